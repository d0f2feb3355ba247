// An expiring cache's lookup: the entry read from the map is judged by an unknown call
// (`isExpired`) and the key removed. The proof cannot use a condition on an unknown value
// (restriction 4 of Definition 4.2); `--bounded` takes it both ways and finds the stale
// removal, assuming entry 1000 expired and entry 1001 (which the environment stores between the
// check and the remove) not.
// expect: data-dependent not-proved
// reasons: Branch
// bounded: not-linearizable
// assumes: line 16: the value returned by `1000.isExpired()` is true
// assumes: line 16: the value returned by `1001.isExpired()` is false
// witness: e = cache.get(key) -> 1000 | assume | cache.put(1, 1001) | cache.remove(key) -> 1001
ConcurrentHashMap<String, Entry> cache;

Object lookup(String key) {
  Entry e = cache.get(key);
  if (e != null && e.isExpired()) {
    cache.remove(key);
    return null;
  }
  return e;
}
