// A quota: the count an unknown counter keeps for the entry read from the map, plus the request
// at hand, is compared with the limit, and the user dropped when over it. The proof cannot use
// arithmetic on an unknown value; `--bounded` makes `counter.used(e) + 1` a term, takes the
// comparison both ways (as a bound on `counter.used(e)`) and finds the stale removal: entry
// 1000 over the quota, entry 1001 (which the environment stores between the check and the
// remove) under it; the model of those assumptions, 3 and 2, is reported with them.
// expect: data-dependent not-proved
// reasons: Branch
// bounded: not-linearizable
// assumes: line 20: `this.counter.used(1000) + 1 > 3` holds
// assumes: line 20: `this.counter.used(1001) + 1 > 3` does not hold
// assumes: line 20: the value returned by `this.counter.used(1000)` is `3`
// assumes: line 20: the value returned by `this.counter.used(1001)` is `2`
// witness: e = quotas.get(user) -> 1000 | assume | quotas.put(1, 1001) | quotas.remove(user) -> 1001
ConcurrentHashMap<String, Quota> quotas;
final Counter counter;

Quota admit(String user) {
  Quota e = quotas.get(user);
  if (e != null && counter.used(e) + 1 > 3) {
    quotas.remove(user);
    return null;
  }
  return e;
}
