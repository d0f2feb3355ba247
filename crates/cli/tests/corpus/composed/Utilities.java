// Operations that call a static method of a utility class of the project, passing it the map
// (issue #40, item 2: helpers of other classes), in the shapes of apache/dubbo (Apache-2.0;
// snapshot 324c62550ab2, Oct 2024). The utility class is dubbo's `ConcurrentHashMapUtils`
// (dubbo-common/src/main/java/org/apache/dubbo/common/utils/ConcurrentHashMapUtils.java),
// about 90 of whose calls dubbo makes; its code runs in the caller on the caller's map, the
// lambda the caller passes applied where it applies it. Written for this corpus after the
// method cited above each (not copied); format as in Caches.java.
package corpus.utilities;

import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

// dubbo-common/.../utils/ConcurrentHashMapUtils.java: a workaround for JDK-8161372 — on
// Java 8, get first and create on a miss with putIfAbsent (the function may run twice);
// else the map's own computeIfAbsent. A utility class: its only field is a constant.
class ConcurrentHashMapUtils {
    private static final String VERSION = "8";

    // The utility's own method is an operation on whatever map it is passed: its exit on a
    // null from `func` depends on what the unknown function returns for the key.
    // Bounded: the two ways are each linearizable (the putIfAbsent's result is returned
    // when another thread won), so nothing is found on the small domain.
    // expect: data-dependent not-proved
    // reasons: Exit
    // bounded: not-proved
    public static <K, V> V computeIfAbsent(ConcurrentMap<K, V> map, K key, Function<? super K, ? extends V> func) {
        Objects.requireNonNull(func);
        if (JRE.JAVA_8.isCurrentVersion()) {
            V v = map.get(key);
            if (null == v) {
                v = func.apply(key);
                if (null == v) {
                    return null;
                }
                final V res = map.putIfAbsent(key, v);
                if (null != res) {
                    return res;
                }
            }
            return v;
        } else {
            return map.computeIfAbsent(key, func);
        }
    }
}

// dubbo-common/.../utils/CollectionUtils.java (isEmpty): a utility with no map, inlined
// as the expression it returns.
class CollectionUtils {
    public static boolean isEmpty(Collection<?> collection) {
        return collection == null || collection.isEmpty();
    }
}

public class Utilities {
    private final ConcurrentMap<String, Metrics> metricsStatistics = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Listener> pathKeyListeners = new ConcurrentHashMap<>();
    private final ConcurrentMap<Object, Factory> factories = new ConcurrentHashMap<>();
    private static final ConcurrentMap<String, ConcurrentMap<String, Status>> METHOD_STATISTICS =
            new ConcurrentHashMap<>();

    // dubbo-rpc/dubbo-rpc-api/.../rpc/AdaptiveMetrics.java (getStatus): get-or-create through
    // the utility. On Java 8: get -> found is the linearization point, else the putIfAbsent
    // (returning the value another thread stored, or storing the new one and returning it);
    // otherwise the one atomic computeIfAbsent. The flag is read once, so the proof takes it
    // both ways; the lambda's `new Metrics()` is never null, so the early `return null` is
    // dead.
    // expect: SCM linearizable
    public Metrics getStatus(String idKey) {
        return ConcurrentHashMapUtils.computeIfAbsent(metricsStatistics, idKey, k -> new Metrics());
    }

    // AdaptiveMetrics.addConsumerReq: the same through the class's helper, then a call on
    // the object found (no map state): linearizable as getStatus is.
    // expect: SCM linearizable
    public void addConsumerReq(String idKey) {
        Metrics metrics = getStatus(idKey);
        metrics.consumerReq.incrementAndGet();
    }

    // dubbo-configcenter/dubbo-configcenter-zookeeper/.../CacheListener.java (addListener):
    // the lambda passes the key and two more parameters into the listener it creates, then
    // registers the caller's listener on the one found. Get-or-create as getStatus: the
    // Java 8 path's `null == v` for `v = new Listener(pathKey, key, group)` is a value made
    // from the key, but one `new` made on every path, never null: it decides nothing.
    // expect: SCM linearizable
    public Listener addListener(String pathKey, Object configurationListener, String key, String group) {
        Listener listener = ConcurrentHashMapUtils.computeIfAbsent(
                pathKeyListeners, pathKey, p -> new Listener(p, key, group));
        listener.addListener(configurationListener);
        return listener;
    }

    // CacheListener.removeListener: get, then remove the key when the listener found has no
    // listeners left (`CollectionUtils.isEmpty` inlined: a call on the stored object).
    // Witness: env put(1, 1000); get(1) -> 1000, whose listeners are assumed null (empty);
    // env put(1, 1001) (another thread's new listener); remove(1) removes 1001 and the
    // operation returns 1000: from {1->1001}, where the remove takes effect, the operation
    // alone returns 1001. It removes a listener another thread registered meanwhile.
    // expect: data-dependent not-proved
    // reasons: Branch
    // bounded: not-linearizable
    // assumes: line 112: the value returned by `1000.getListeners()` is `null`
    // witness: get(pathKey) -> 1000 | pathKeyListeners.put(1, 1001) | remove(pathKey) -> 1001 | returns 1000
    public Listener removeListener(String pathKey, Object configurationListener) {
        Listener listener = pathKeyListeners.get(pathKey);
        if (listener != null) {
            listener.removeListener(configurationListener);
            if (CollectionUtils.isEmpty(listener.getListeners())) {
                pathKeyListeners.remove(pathKey);
            }
        }
        return listener;
    }

    // dubbo-serialization/dubbo-serialization-hessian2/.../Hessian2FactoryManager.java
    // (getSerializerFactory): the function a method reference of the class, its result
    // unknown (said in the notes): on Java 8 a null from it is returned as null, an exit
    // that depends on a value of the key, so data-dependent; get-or-create otherwise, and
    // the bounded check finds nothing.
    // expect: data-dependent not-proved
    // reasons: Branch
    // bounded: not-proved
    public Factory factoryFor(Object classLoader) {
        return ConcurrentHashMapUtils.computeIfAbsent(factories, classLoader, this::createFactory);
    }

    // dubbo-rpc/dubbo-rpc-api/.../rpc/RpcStatus.java (getStatus(URL, String)): the utility
    // gives a concurrent map held in a map, on which the second call acts: maps of maps are
    // not modelled, so the operation is listed unsupported, never judged on a wrong model
    // (classified on its calls as lowered: `map`'s key is not the input key `uri`).
    // expect: data-dependent unsupported
    // reasons: Keys
    public static Status methodStatus(String uri, String methodName) {
        ConcurrentMap<String, Status> map =
                ConcurrentHashMapUtils.computeIfAbsent(METHOD_STATISTICS, uri, k -> new ConcurrentHashMap<>());
        return ConcurrentHashMapUtils.computeIfAbsent(map, methodName, k -> new Status());
    }

    private final ConcurrentMap<String, Watcher> watcherCaches = new ConcurrentHashMap<>();

    // dubbo-registry/dubbo-registry-zookeeper/.../ZookeeperServiceDiscovery.java
    // (removeServiceInstancesChangedListener), its `try` around the close left out: a
    // collection's forEach whose function uses the map is the loop over the service names.
    // Witness (one round): the name's watcher is 1000, with no listeners left; env
    // put(name, 1001) (another thread's new watcher); remove(name) removes 1001. From
    // {name->1001}, where the remove takes effect, the operation alone finds 1001, whose
    // listeners it does not empty (assumed), and leaves it: it removed a watcher another
    // thread registered meanwhile.
    // expect: data-dependent not-proved
    // reasons: Exit Keys Branch
    // bounded: not-linearizable
    // assumes: line 163: the value returned by `1.iterator().hasNext()` is true
    // assumes: line 167: the value returned by `1000.getListeners().isEmpty()` is true
    // assumes: line 163: the value returned by `1.iterator().next().hasNext()` is false
    // assumes: line 167: the value returned by `1001.getListeners().isEmpty()` is false
    // assumes: line 164: `1.iterator().next().current()` returns an equal value whenever it is called on the same receiver and arguments (a key made from it is the same key)
    // witness: watcherCaches.put(1.iterator().next().current(), 1000) | get(serviceName) -> 1000 | watcherCaches.put(1.iterator().next().current(), 1001) | remove(serviceName) -> 1001 | returns (void)
    public void removeWatchers(Object listener, java.util.Set<String> serviceNames) {
        serviceNames.forEach(serviceName -> {
            Watcher watcher = watcherCaches.get(serviceName);
            if (watcher != null) {
                watcher.getListeners().remove(listener);
                if (watcher.getListeners().isEmpty()) {
                    watcherCaches.remove(serviceName);
                    watcher.close();
                }
            }
        });
    }

    private Factory createFactory(Object classLoader) {
        return new Factory(classLoader);
    }
}
