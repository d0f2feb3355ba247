// Maps that extend ConcurrentHashMap (or interfaces that extend ConcurrentMap) and add
// composed operations (Fig. 5's shape), in the shapes found in public Java projects, written
// for this corpus after the cited patterns (not copied); format as in Caches.java.
package corpus.custom;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

// Pattern: dorkbox/Network .../network/util/ConcurrentHashMapFactory.java (getOrCreate):
// unqualified get and putIfAbsent act on the map itself; the value comes from an abstract
// factory method (an unknown call).
abstract class FactoryMap<K, V> extends ConcurrentHashMap<K, V> {
    private static final long serialVersionUID = 1L;

    public abstract V createNewObject(Object... args);

    // get, create, putIfAbsent, keep the winner: linearizable. The varargs parameter is a
    // second input, the value.
    // expect: SCM linearizable
    public final V getOrCreate(K key, Object... args) {
        V orig = get(key);
        if (orig == null) {
            orig = createNewObject(args);
            V putByOtherThreadJustNow = putIfAbsent(key, orig);
            if (putByOtherThreadJustNow != null) {
                orig = putByOtherThreadJustNow;
            }
        }
        return orig;
    }

    // The same through `this.`: still the map itself, still linearizable.
    // expect: SCM linearizable
    public final V getOrCreateThis(K key) {
        V orig = this.get(key);
        if (orig == null) {
            V created = createNewObject(key);
            V raced = this.putIfAbsent(key, created);
            return raced == null ? created : raced;
        }
        return orig;
    }

    // Forgetting the winner: putIfAbsent's result is dropped. Witness: get(1) -> null; env
    // put(1, 1000); putIfAbsent(1, createNewObject()#1) -> 1000; returns its own object.
    // expect: SCM not-linearizable
    public final V getOrCreateLost(K key) {
        V orig = get(key);
        if (orig == null) {
            orig = createNewObject(key);
            putIfAbsent(key, orig);
        }
        return orig;
    }
}

// Pattern: secure-software-engineering/FlowDroid soot/jimple/infoflow/collect/
// MyConcurrentHashMap.java (putIfAbsentElseGet with a value factory): putIfAbsent of a fresh
// value, then get when it lost.
class FactoryValueMap<K, V> extends ConcurrentHashMap<K, V> {
    private static final long serialVersionUID = 1L;

    // putIfAbsent, and on a loss return putIfAbsent's result: a single map call, so not a
    // composed operation, and not reported.
    public V putIfAbsentElseGet(K key, V value) {
        V oldValue = putIfAbsent(key, value);
        if (oldValue == null) {
            return value;
        }
        return oldValue;
    }

    // On a loss, read again with get: a remove in between makes it return null though the key
    // was present when putIfAbsent lost. Witness: putIfAbsent(1, 500) -> 1000 on {1->1000};
    // env remove(1); get(1) -> null: no atomic run returns null after finding the key (the
    // run from {} would insert and return 500).
    // expect: SCM not-linearizable
    public V putIfAbsentElseGetAgain(K key, V value) {
        if (putIfAbsent(key, value) == null) {
            return value;
        }
        return get(key);
    }

    // Removes the entry only when the caller's flag says so: the exit depends on the input
    // `force` (Fig. 11 "Exit"), and the remove then get is the same race.
    // expect: data-dependent not-proved
    // reasons: Exit
    // bounded: not-linearizable
    public V evict(K key, boolean force) {
        if (!force) {
            return get(key);
        }
        V old = remove(key);
        if (old == null) {
            return get(key);
        }
        return old;
    }

    // Iterates over its own keys removing each (a weakly consistent traversal, modelled since
    // issue #40): the traversal is at key 1 when another thread puts 0 behind it and 2 ahead;
    // it removes 1 and 2, returns 2 and leaves {0}. No atomic purge placed among the three
    // puts does that (after the first two it leaves {} and the third then adds 2).
    // expect: data-dependent not-proved
    // reasons: Iteration Keys
    // bounded: not-linearizable
    // witness: this.put(1, 1000) | this.put(0, 1000) | remove(k) -> 1000 | this.put(2, 1000) | returns 2
    public int purge(K prefix) {
        int n = 0;
        for (K k : keySet()) {
            if (remove(k) != null) {
                n++;
            }
        }
        return n;
    }
}

// An interface that extends ConcurrentMap: its default methods call the map's own methods,
// atomic by ConcurrentMap's contract, so they are composed operations on it.
// Pattern: rackilea/diplomski javaFiles/fragment_201087.java (ConcurrentMap's default
// computeIfAbsent as the JDK writes it): get; on a miss, compute and putIfAbsent, return
// the value computed if it won, else the winner; every step an assignment inside one `&&`
// chain. Linearizable by hand: a hit is linearized at the get, a won putIfAbsent at it, a
// lost one at it too (it returns the value present then, as a run from there would), and a
// function giving null returns null with no update, as a run from the get's state would.
// The assignments inside the `&&` chain run as Java runs them, left to right, each only when
// the tests before it held. The test of the function's result (`newValue != null`) is a
// branch on a value computed from the key (Branch), so the reduction does not apply; the
// bounded check, taking that test both ways, finds no violation (there is none, as above).
interface ComputingMap<K, V> extends ConcurrentMap<K, V> {
    // expect: data-dependent not-proved
    // reasons: Branch
    // bounded: not-proved
    default V computeIfAbsent(K key, Function<? super K, ? extends V> mappingFunction) {
        Objects.requireNonNull(mappingFunction);
        V v, newValue;
        return ((v = get(key)) == null
                && (newValue = mappingFunction.apply(key)) != null
                && (v = putIfAbsent(key, newValue)) == null) ? newValue : v;
    }
}
