// Operations that decide on an unknown value read from the map (a stored entry's expiry), in
// the shapes found in public Java projects; written for this corpus after the pattern cited
// above each (not copied). The proof turns them away (restriction 4 of Definition 4.2: a map
// result used other than compared with null); --bounded takes the unknown value both ways and
// finds the violation, with the assumptions it needs and its witness.
//   expect: CLASS VERDICT   reasons: RULE ...   bounded: VERDICT
//   assumes: ASSUMPTION (one line each, exactly as reported)   witness: STEP | STEP | ...
package corpus.unknowns;

import java.util.concurrent.ConcurrentHashMap;

public class Unknowns {
    private ConcurrentHashMap<String, Entry> cache = new ConcurrentHashMap<String, Entry>();
    private final long expiration;

    Unknowns(long expiration) {
        this.expiration = expiration;
    }

    // Pattern: yanma0618/Job Company/SL/ConcurrentCache.java (get, with its expiry check, which
    // that file keeps commented out; its cleaner thread runs the same check-then-remove): read
    // the entry, and if it has expired remove the key. Witness: the entry 1000 is read and
    // judged expired; the environment replaces it with 1001, which is not; remove(key) then
    // removes 1001. No atomic run explains it: from {1->1000} the map is left empty but the
    // environment's put saw 1000 there; from {1->1001} the fresh entry stays.
    // expect: data-dependent not-proved
    // reasons: Branch
    // bounded: not-linearizable
    // assumes: line 35: the value returned by `1000.isExpired(this.expiration)` is true
    // assumes: line 35: the value returned by `1001.isExpired(this.expiration)` is false
    // witness: cache.put(1, 1000) | e = cache.get(key) -> 1000 | assume | cache.put(1, 1001) | cache.remove(key) -> 1001
    public String get(String key) {
        Entry e = cache.get(key);
        if (e != null) {
            if (e.isExpired(expiration)) {
                cache.remove(key);
                return null;
            }
            return e.value();
        }
        return null;
    }

    // The same file's cleaner, for one key (its loop over keySet() is iteration, item 4):
    // `cache.get(key).isExpired(expiration)` then `cache.remove(key)`. Witness as for get: the
    // expired 1000 read, 1001 written by the environment, removed by the operation.
    // expect: data-dependent not-proved
    // reasons: Branch
    // bounded: not-linearizable
    // assumes: line 54: the value returned by `1000.isExpired(this.expiration)` is true
    // assumes: line 54: the value returned by `1001.isExpired(this.expiration)` is false
    // witness: cache.get(key) -> 1000 | assume | cache.put(1, 1001) | cache.remove(key) -> 1001
    public void evictIfExpired(String key) {
        if (cache.get(key).isExpired(expiration)) {
            cache.remove(key);
        }
    }

    // The repair such caches make: remove(key, e) removes only the entry judged. Still not
    // linearizable, and the bounded check says why: the entry 1000 is judged expired, the
    // environment writes 1001, remove(key, e) fails and the operation reports a miss while
    // 1001 stays. Run atomically before the put it would have removed 1000 (the put then sees
    // no entry); after it, it judges 1001: expired, it removes it; not, it returns its value.
    // No answer about 1001 explains a miss that leaves it, so nothing about 1001 is assumed.
    // expect: data-dependent not-proved
    // reasons: Branch Remove
    // bounded: not-linearizable
    // assumes: line 75: the value returned by `1000.isExpired(this.expiration)` is true
    // witness: e = cache.get(key) -> 1000 | assume | cache.put(1, 1001) | cache.remove(key, e) -> false
    public String getRemovingOnlyItself(String key) {
        Entry e = cache.get(key);
        if (e == null) {
            return null;
        }
        if (e.isExpired(expiration)) {
            cache.remove(key, e);
            return null;
        }
        return e.value();
    }
}
