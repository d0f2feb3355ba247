// Lazy-initialisation caches in the shapes found in public Java projects. Each operation is
// written for this corpus after the pattern cited above it (the search tool's terms forbid
// copying third-party code verbatim); the expected class and verdict are reasoned by hand.
//   expect: CLASS VERDICT     reasons: RULE ...     bounded: VERDICT (as in examples/composed)
package corpus.caches;

import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

public class Caches<K, V> {
    private final ConcurrentMap<String, Object> byName = new ConcurrentHashMap<>();
    private final Map<String, String> computed = new ConcurrentHashMap<>();
    private ConcurrentHashMap<K, V> values = new ConcurrentHashMap<K, V>();
    private final Factory factory;
    private static final String DEFAULT = "default";

    public Caches(Factory factory) {
        this.factory = factory;
    }

    // Pattern: thriftybug/Java-Multithreading
    // SynchronisedCollections/ConcurrentCollections/ConcurrentMap/ConcurrentCache.java
    // (getCachedValue): get, compute on a miss, put. The value comes from a method of the
    // class (an unknown call): another thread's put between the get and the put is
    // overwritten, and the caller keeps a value the map no longer holds.
    // Witness: get(1) -> null; env put(1, 1000); put(1, computeValue(1)#1) returns the
    // value it computed, though the map held 1000 first and put replaced it: no sequential
    // run from {1->1000} computes anything.
    // expect: SCM not-linearizable
    public String getCachedValue(String key) {
        String value = computed.get(key);
        if (value == null) {
            value = computeValue(key);
            computed.put(key, value);
        }
        return value;
    }

    // Pattern: rackilea/diplomski javaFiles/fragment_97404.java: get, create on a miss,
    // putIfAbsent and keep the winner (Fig. 2's shape); the factory is a field's method.
    // expect: SCM linearizable
    public Object getOrCreate(String key) {
        Object result = byName.get(key);
        if (result == null) {
            result = factory.create(key);
            Object old = byName.putIfAbsent(key, result);
            if (old != null) {
                result = old;
            }
        }
        return result;
    }

    // Pattern: zhuyijian135757/http-server .../common/lang/SimpleCache.java (get): the value
    // comes from a Callable inside try/catch, and putIfAbsent's result is ignored: the caller
    // returns its own value though another one won. Witness: get(1) -> null; env put(1, 1000);
    // putIfAbsent(1, call()#1) -> 1000; returns call()#1, but the map holds 1000 and no atomic
    // run returns a value other than the one it leaves (the catch paths are not modelled, but
    // the violation is on the normal path). `ifAbsent` is only called and `label` never read:
    // inputs only passed along, so the operation stays an SCM and the proof search finds it.
    // expect: SCM not-linearizable
    public V get(K key, Callable<V> ifAbsent, String label) {
        V value = this.values.get(key);
        if (value == null) {
            try {
                value = ifAbsent.call();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
            this.values.putIfAbsent(key, value);
        }
        return value;
    }

    // The same as `get` with two inputs: an SCM, and the bug is found by the proof search.
    // expect: SCM not-linearizable
    public V lookup(K key, Callable<V> ifAbsent) {
        V value = this.values.get(key);
        if (value == null) {
            try {
                value = ifAbsent.call();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
            this.values.putIfAbsent(key, value);
        }
        return value;
    }

    // Pattern: rackilea/diplomski javaFiles/fragment_278545.java (computeIfAbsent by hand),
    // written without the assignment inside the condition: correct.
    // expect: SCM linearizable
    public Object computeIfAbsentByHand(String k) {
        Object v = byName.get(k);
        if (v == null) {
            Object vNew = new Object();
            Object prev = byName.putIfAbsent(k, vNew);
            v = prev == null ? vNew : prev;
        }
        return v;
    }

    // The same fragment as written there: `v = (v = map.putIfAbsent(..)) == null ? ..`, an
    // assignment inside an expression, which the lowering does not model.
    // expect: SCM unsupported
    public Object computeIfAbsentAsWritten(String k) {
        Object v = byName.get(k);
        if (v == null) {
            Object vNew = new Object();
            v = (v = byName.putIfAbsent(k, vNew)) == null ? vNew : v;
        }
        return v;
    }

    // Check-then-act with containsKey, then a get: a remove between them makes it return null
    // after seeing the key, but null is what an atomic run from the state after the remove
    // returns too (a read-only trace linearizes at any state it saw): linearizable.
    // expect: SCM linearizable
    public Object cachedOrNull(String key) {
        if (byName.containsKey(key)) {
            return byName.get(key);
        }
        return null;
    }

    // Pattern: the reserved key of a configuration cache (a constant of the class): an FCM.
    // expect: FCM linearizable
    public Object config(String name) {
        if (name.equals(DEFAULT)) {
            return factory.defaults();
        }
        Object c = byName.get(name);
        if (c == null) {
            Object fresh = factory.create(name);
            c = byName.putIfAbsent(name, fresh);
            if (c == null) {
                c = fresh;
            }
        }
        return c;
    }

    // A key derived from the input (`name.toLowerCase()`) once, before any map call: an input
    // like a parameter; get-then-putIfAbsent with the winner kept: linearizable.
    // expect: SCM linearizable
    public Object byLowerCase(String name) {
        String key = name.toLowerCase();
        Object c = byName.get(key);
        if (c == null) {
            Object fresh = factory.create(key);
            Object prev = byName.putIfAbsent(key, fresh);
            if (prev != null) {
                return prev;
            }
            return fresh;
        }
        return c;
    }

    // The key computed twice: each computation is an unknown call (Keys). Taken as a function
    // of its receiver (`toLowerCase` is one), both compute the same key K, which the bounded
    // check's environment writes too (since issue #40, stated in the assumptions): get(K) ->
    // null; env put(K, 1000); putIfAbsent(K, ..) -> 1000 changes nothing; returns null with
    // the map {K->1000}. No run alone from a state it saw explains that: from {} it inserts
    // its value, from {K->1000} it returns 1000. Not linearizable. (The earlier attempt wrote
    // keys from unknown results as fresh values, named by their place among a run's calls,
    // and reported a false violation on Pools.any; a key here is the call itself, the same in
    // every run, so no renaming is involved.)
    // expect: data-dependent not-proved
    // reasons: Keys
    // bounded: not-linearizable
    // assumes: line 177: `1.toLowerCase()` returns an equal value whenever it is called on the same receiver and arguments (a key made from it is the same key)
    // witness: byName.get(name.toLowerCase()) -> null | byName.put(1.toLowerCase(), 1000) | byName.putIfAbsent(name.toLowerCase(), factory.create(name)) -> 1000 | returns null
    public Object byLowerCaseTwice(String name) {
        Object c = byName.get(name.toLowerCase());
        if (c == null) {
            byName.putIfAbsent(name.toLowerCase(), factory.create(name));
        }
        return c;
    }

    private String computeValue(String key) {
        return "Value for " + key;
    }
}

// Operations that reach their map through helpers of the class, a getter, a local alias, a
// superclass's field, an inner class or an anonymous class (issue 40, items 2 and 5). Written
// for this corpus after the patterns cited (not copied); class and verdict reasoned by hand.
abstract class HelperCaches<K, V> {
    private static final Map<String, String> values = new ConcurrentHashMap<>();
    protected final ConcurrentMap<K, V> formats = new ConcurrentHashMap<>();

    // Pattern: thriftybug/Java-Multithreading
    // SynchronisedCollections/ConcurrentCollections/ConcurrentMap/ConcurrentCache.java
    // (getCachedValue): get, on a miss a private static helper computes the value (it sleeps
    // in a try/catch: more than guards and a return, and no map call, so it stays an unknown
    // call), then put. Check-then-act with an overwriting put: an SCM, and a put by another
    // thread between the get and the put is overwritten while this one returns its own value.
    // expect: SCM not-linearizable
    public static String cachedValue(String key) {
        String value = values.get(key);
        if (value == null) {
            value = slowValue(key);
            values.put(key, value);
        }
        return value;
    }

    private static String slowValue(String key) {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        return "value of " + key;
    }

    // Written after the same getCachedValue with its two map calls moved into helpers of
    // the class, `lookup` (a `get`) and `store` (a `putIfAbsent` keeping the winner), and the
    // key checked by a helper that throws on null and returns it: inlined, the key stays the
    // parameter and the operation is Fig. 2's get-then-putIfAbsent, linearizable. The null
    // check compares the key with null: an FCM over the inputs {null, one other key}.
    // expect: FCM linearizable
    public String cachedThroughHelpers(String key) {
        String value = lookup(checked(key));
        if (value == null) {
            value = store(checked(key), "value of " + key);
        }
        return value;
    }

    private static String checked(String key) {
        if (key == null) {
            throw new NullPointerException("key");
        }
        return key;
    }

    private String lookup(String key) {
        return values.get(key);
    }

    private String store(String key, String value) {
        String previous = values.putIfAbsent(key, value);
        if (previous != null) {
            return previous;
        }
        return value;
    }

    // Pattern: apache/commons-lang
    // src/main/java/org/apache/commons/lang3/time/AbstractFormatCache.java
    // (getDateInstance): a public method delegates to an overload of the same arity,
    // `getDateTimeInstance(Integer, Integer, ..)` beside `getDateTimeInstance(int, int, ..)`,
    // which reaches the map. The arguments' static types (`Integer.valueOf(..)`, `null`, a
    // parameter of type K) match the private overload exactly, as Java resolves the call:
    // it is inlined, and its one atomic computeIfAbsent is no composed operation, so neither
    // public method is reported (before issue #40's overloads by type, both were unsupported).
    V dateInstance(final int dateStyle, final K zone) {
        return dateTimeInstance(Integer.valueOf(dateStyle), null, zone);
    }

    // The public overload: the same call, the same answer (calling an overload of its own
    // name is no recursion).
    V dateTimeInstance(final int dateStyle, final int timeStyle, final K zone) {
        return dateTimeInstance(Integer.valueOf(dateStyle), Integer.valueOf(timeStyle), zone);
    }

    private V dateTimeInstance(final Integer dateStyle, final Integer timeStyle, final K zone) {
        return formats.computeIfAbsent(zone, z -> create(z));
    }

    protected abstract V create(K zone);

    // Pattern: apache/commons-lang
    // src/main/java/org/apache/commons/lang3/concurrent/ConcurrentUtils.java
    // (createIfAbsentUnchecked calling createIfAbsent): the helper receives the map as a
    // parameter (its calls act on the field passed) and first compares it with null, a use
    // of the map as a value the analysis does not model: unsupported, at the helper's line.
    // expect: SCM unsupported
    public V createUnchecked(final K key, final V fallback) {
        return createIfAbsent(formats, key, fallback);
    }

    // The helper itself, an operation of its own (two map calls): the same construct. Its
    // early exit on `map == null` also makes it data-dependent (Exit), which the verdict
    // does not need.
    // expect: data-dependent unsupported
    // reasons: Exit
    private static <A, B> B createIfAbsent(final ConcurrentMap<A, B> map, final A key, final B fallback) {
        if (map == null) {
            return null;
        }
        final B value = map.get(key);
        if (value == null) {
            final B previous = map.putIfAbsent(key, fallback);
            return previous != null ? previous : fallback;
        }
        return value;
    }
}

// The registry of a base class, reached by a subclass (a superclass's field), through a getter
// and through a local alias, and by an inner and an anonymous class.
class RegistryBase {
    protected final ConcurrentHashMap<String, Object> registry = new ConcurrentHashMap<>();

    protected ConcurrentHashMap<String, Object> getRegistry() {
        return registry;
    }
}

class Registry extends RegistryBase {
    // Written after the thriftybug getCachedValue above, on the superclass's map through its
    // getter: get, then an overwriting put: an SCM, not linearizable (a put between them is
    // lost while this returns its own value).
    // expect: SCM not-linearizable
    public Object register(String name) {
        Object current = getRegistry().get(name);
        if (current == null) {
            current = new Object();
            getRegistry().put(name, current);
        }
        return current;
    }

    // The same with a local alias of the inherited field and putIfAbsent keeping the winner:
    // Fig. 2's shape, linearizable.
    // expect: SCM linearizable
    public Object registerOnce(String name) {
        ConcurrentHashMap<String, Object> map = this.registry;
        Object current = map.get(name);
        if (current == null) {
            Object created = new Object();
            Object previous = map.putIfAbsent(name, created);
            current = previous != null ? previous : created;
        }
        return current;
    }

    class Evictor {
        // An inner class's method on the outer class's map: containsKey then remove. If a
        // remove by another thread comes between, this remove finds nothing and returns null
        // although containsKey said present; run atomically, the key would be either absent
        // (false branch, null) or present (its value returned). Here the method returns the
        // removed value, so the null after a `true` check has no sequential explanation:
        // not linearizable.
        // expect: SCM not-linearizable
        Object evict(String name) {
            if (registry.containsKey(name)) {
                return registry.remove(name);
            }
            return "absent";
        }
    }

    // The method itself only builds the task: the anonymous class uses the map, which the
    // method's own analysis does not follow (unsupported, listed), while the task's `run` is
    // an operation of its own below.
    // expect: SCM unsupported
    Runnable evictLater(final String name) {
        return new Runnable() {
            // The anonymous class's method: the key is the enclosing method's captured local,
            // one fixed value that is no input of `run`, so the key is not the operation's
            // input (Keys): data-dependent. Its containsKey-then-remove discards the removed
            // value, so every interleaving has an atomic explanation; nothing is proved, and
            // the bounded check finds no violation.
            // expect: data-dependent not-proved
            // reasons: Keys
            // bounded: not-proved
            public void run() {
                if (registry.containsKey(name)) {
                    registry.remove(name);
                }
            }
        };
    }
}

// Pattern: yuanguangxin/LeetCode src/其他/线程安全的本地缓存/Main.java (get, a "thread-safe
// local cache"): double-checked get, the second check inside `synchronized (cache)` (the map
// itself as the lock), then a put of a value made by a static helper of the class (no map:
// an unknown call). Locking the map's monitor orders only the threads that take it (no
// java.util.concurrent map locks its own monitor), so another thread's put between the
// second get and the put is lost: get(1) -> null twice; env put(1, 1000); put(1, loaded)
// returns the loaded value, where the sequential run from {1->1000} returns 1000. (Before,
// the lock expression counted as the map escaping into unseen code: unsupported.)
class LockedCache {
    private final Map<Object, Object> cache = new ConcurrentHashMap<>();

    static Object load(Object key) {
        String value = key + ": value";
        return value;
    }

    // expect: SCM not-linearizable
    Object getLocked(Object key) {
        Object value = cache.get(key);
        if (value == null) {
            synchronized (cache) {
                value = cache.get(key);
                if (value == null) {
                    value = load(key);
                    cache.put(key, value);
                }
            }
        }
        return value;
    }
}
