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

    // The key computed twice: each computation is an unknown call whose results may differ,
    // so the two calls may use different keys (Keys). It also returns `c`, null, after
    // losing the putIfAbsent: get(k1) -> null; env put(k1, 1000), put(k2, 1000);
    // putIfAbsent(k2, ..) -> 1000; returns null with the map full: placed before the puts it
    // would have inserted its value, after them it would return 1000. The bounded check
    // finds that.
    // expect: data-dependent not-proved
    // reasons: Keys
    // bounded: not-linearizable
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
