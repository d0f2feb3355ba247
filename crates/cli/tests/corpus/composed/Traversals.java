// Operations that traverse a map (for over its views, clear()), test a value (containsValue),
// assign inside a condition, or use two maps, in the shapes of alibaba/Sentinel (Apache-2.0,
// commit d75a6687b82711f8611ef91f6a56e993d24f57c5); written for this corpus after the files
// cited above each, reduced to the map calls and what they depend on.
//   expect: CLASS VERDICT   reasons: RULE ...   bounded: VERDICT
//   assumes: ASSUMPTION (one line each, exactly as reported)   witness: STEP | STEP | ...
package corpus.traversals;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

public class Traversals {
    private static final Map<Long, Metric> METRIC_MAP = new ConcurrentHashMap<>();
    private static final Map<String, Group> CONN_MAP = new ConcurrentHashMap<>();
    private static final Map<String, String> NAMESPACE_MAP = new ConcurrentHashMap<>();
    private static final ConcurrentHashMap<String, Loader> LOADERS = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Class<?>> classMap = new ConcurrentHashMap<>();
    private static final Object CREATE_LOCK = new Object();

    // sentinel-cluster/sentinel-cluster-server-default/src/main/java/com/alibaba/csp/sentinel/
    // cluster/flow/statistic/ClusterMetricStatistics.java, resetFlowMetrics: a fresh metric for
    // every id, through a local holding keySet(). The traversal reads id 1; another thread
    // removes it; the put then brings id 1 back. No atomic run does that: before the put(1)
    // or after the remove(1) the reset leaves the map empty, and between them the remove
    // would have returned the new metric, not 1000.
    // expect: data-dependent not-proved
    // reasons: Iteration Keys
    // bounded: not-linearizable
    // witness: METRIC_MAP.put(1, 1000) | next entry after entry -> 1=1000 | METRIC_MAP.remove(1) | METRIC_MAP.put(id,
    public static void resetFlowMetrics() {
        Set<Long> keySet = METRIC_MAP.keySet();
        for (Long id : keySet) {
            METRIC_MAP.put(id, new Metric(Config.getSampleCount(), Config.getIntervalMs()));
        }
    }

    // The same file, putMetricIfAbsent: containsKey then put, the classic lost update
    // (Fig. 4a's shape): the key is absent, another thread puts 1000, the put overwrites it
    // and returns true; atomically from {1->1000} it returns false and keeps 1000.
    // expect: SCM not-linearizable
    public static boolean putMetricIfAbsent(long id, Metric metric) {
        Assert.notNull(metric, "Cluster metric cannot be null");
        if (METRIC_MAP.containsKey(id)) {
            return false;
        }
        METRIC_MAP.put(id, metric);
        return true;
    }

    // sentinel-cluster/sentinel-cluster-server-default/src/main/java/com/alibaba/csp/sentinel/
    // cluster/server/connection/ConnectionManager.java, getOrCreateGroup: double-checked
    // creation with the second read assigned inside the condition (`(group = get(ns)) ==
    // null`, run just before the test). The lock orders only callers of this method; a put
    // by any other client between the second get and the put is overwritten (the lowering
    // reads `synchronized` as its body: the map's other clients need not take the lock).
    // expect: SCM not-linearizable
    public static Group getOrCreateGroup(String namespace) {
        Assert.assertNotBlank(namespace, "namespace should not be empty");
        Group group = CONN_MAP.get(namespace);
        if (group == null) {
            synchronized (CREATE_LOCK) {
                if ((group = CONN_MAP.get(namespace)) == null) {
                    group = new Group(namespace);
                    CONN_MAP.put(namespace, group);
                }
            }
        }
        return group;
    }

    // The same file, removeConnection(String address): the address's namespace, then the
    // namespace's group, then the address removed. With two maps it is data-dependent (Keys);
    // the bounded check finds that a namespace put for the address after the get (null) is
    // removed by the final remove, although the operation run alone from that state returns
    // early (no group) and keeps it: neither order of the two explains the empty map.
    // expect: data-dependent not-proved
    // reasons: Keys
    // bounded: not-linearizable
    // witness: namespace = NAMESPACE_MAP.get(address) -> null | NAMESPACE_MAP.put(1, 1000) | NAMESPACE_MAP.remove(address) -> 1000
    public static void removeConnection(String address) {
        Assert.assertNotBlank(address, "address should not be empty");
        String namespace = NAMESPACE_MAP.get(address);
        if (namespace != null) {
            Group group = CONN_MAP.get(namespace);
            if (group == null) {
                return;
            }
            group.removeConnection(address);
        }
        NAMESPACE_MAP.remove(address);
    }

    // The same file, clear: two clear()s, each a traversal removing what it reaches. The
    // first finds CONN_MAP empty; another thread then writes NAMESPACE_MAP[1], CONN_MAP[1] and
    // NAMESPACE_MAP[2]; the second clear removes both namespaces but not the group. No atomic
    // clear of both maps, placed among those three puts, leaves exactly CONN_MAP[1].
    // expect: data-dependent not-proved
    // reasons: Iteration Keys
    // bounded: not-linearizable
    // witness: NAMESPACE_MAP.put(1, 1000) | CONN_MAP.put(1, 1000) | NAMESPACE_MAP.remove(key) -> 1000 | NAMESPACE_MAP.put(2, 1000) | NAMESPACE_MAP.remove(key) -> 1000
    static void clear() {
        CONN_MAP.clear();
        NAMESPACE_MAP.clear();
    }

    // sentinel-core/src/main/java/com/alibaba/csp/sentinel/spi/SpiLoader.java, resetAndClearAll
    // (test-only and synchronized there, which orders nothing for other clients): each loader
    // reset through an entrySet() local, then clear(). The clear's traversal is at key 2 when
    // another thread puts key 1 behind it and replaces 2; the clear removes 2 and leaves 1.
    // An atomic clear leaves the map empty, or (before the puts) lets the replace return null.
    // expect: data-dependent not-proved
    // reasons: Iteration Keys
    // bounded: not-linearizable
    // witness: LOADERS.put(2, 1000) | loader.resetAndClear() | LOADERS.put(1, 1000) | LOADERS.put(2, 1001) | LOADERS.remove(key) -> 1001
    static void resetAndClearAll() {
        Set<Map.Entry<String, Loader>> entries = LOADERS.entrySet();
        for (Map.Entry<String, Loader> entry : entries) {
            Loader loader = entry.getValue();
            loader.resetAndClear();
        }
        LOADERS.clear();
    }

    // The same file, load: a class registered once, under its alias (containsValue, a
    // traversal of the values, then put). It is a check-then-act: another thread registering
    // the same class under another alias between the two makes it registered twice. The
    // bounded check's environment also writes the values the operation stores that another
    // thread can hold (here the argument `clazz`), so it finds that: with alias=2, clazz=1
    // on the empty map, containsValue(1) finds nothing; env put(1, 1) -> null (the same
    // class under alias 1); env put(2, 1000) -> null; put(2, 1) -> 1000. Final map
    // {1->1, 2->1}. No atomic place fits: first, its put(2, 1) makes the env's put(2, 1000)
    // return 1 instead of null; after put(1, 1), containsValue(1) holds and it returns
    // without writing, leaving 2->1000 at the end instead of 2->1.
    // expect: data-dependent not-proved
    // reasons: Iteration Branch
    // bounded: not-linearizable
    // witness: classMap.put(1, 1) | classMap.put(2, 1000) | classMap.put(alias, clazz) -> 1000
    void register(String alias, Class<?> clazz) {
        if (classMap.containsValue(clazz)) {
            return;
        }
        classMap.put(alias, clazz);
    }
}
