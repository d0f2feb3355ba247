// An interface that extends ConcurrentMap: its default methods call the map's own methods,
// atomic by ConcurrentMap's contract, so they are composed operations on it. Written for this
// corpus after the cited pattern (not copied); format as in Caches.java.
package corpus.interfaces;

import java.util.Objects;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

// Pattern: rackilea/diplomski javaFiles/fragment_201087.java (ConcurrentMap's default
// computeIfAbsent as the JDK writes it): get; on a miss, compute and putIfAbsent, return
// the value computed if it won, else the winner; every step an assignment inside one `&&`
// chain. Linearizable by hand: a hit is linearized at the get, a won putIfAbsent at it, a
// lost one at it too (it returns the value present then, as a run from there would), and a
// function giving null returns null with no update, as a run from the get's state would.
// The tool cannot hoist assignments that a short-circuit may skip, so it lists the
// operation, unsupported, at the construct (before, the interface was not seen at all).
interface ComputingMap<K, V> extends ConcurrentMap<K, V> {
    // expect: SCM unsupported
    default V computeIfAbsent(K key, Function<? super K, ? extends V> mappingFunction) {
        Objects.requireNonNull(mappingFunction);
        V v, newValue;
        return ((v = get(key)) == null
                && (newValue = mappingFunction.apply(key)) != null
                && (v = putIfAbsent(key, newValue)) == null) ? newValue : v;
    }
}
