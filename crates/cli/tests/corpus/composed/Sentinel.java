// Composed operations of alibaba/Sentinel (Apache-2.0; snapshot of commit d75a6687b827, Oct
// 2025), each written for this corpus after the method cited above it: the same map calls,
// conditions, helpers and exits in the same order, logging and comments left out.
//   expect: CLASS VERDICT     reasons: RULE ...     bounded: VERDICT (as in Caches.java)
package corpus.sentinel;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

// sentinel-cluster/sentinel-cluster-server-default/src/main/java/com/alibaba/csp/sentinel/
// cluster/flow/statistic/ClusterMetricStatistics.java
final class ClusterMetrics {
    private static final Map<Long, Object> METRIC_MAP = new ConcurrentHashMap<>();

    // putMetricIfAbsent: containsKey, then put, reporting whether it stored. Witness:
    // containsKey(1) -> false; env put(1, 1000); put(1, metric) (the LP, overwriting 1000);
    // returns true, but the sequential run from {1->1000} returns false and keeps 1000.
    // expect: SCM not-linearizable
    static boolean putMetricIfAbsent(long id, Object metric) {
        AssertUtil.notNull(metric, "metric");
        if (METRIC_MAP.containsKey(id)) {
            return false;
        }
        METRIC_MAP.put(id, metric);
        return true;
    }

    // resetFlowMetrics: a traversal of keySet() that puts a fresh metric under each key it
    // reaches. The traversal reads every key (Iteration) and the put's key is the traversal's,
    // not an input (Keys). A key another thread removes after the traversal reached it is put
    // back. Witness: env put(1, 1000); the traversal reaches 1; env remove(1); put(1, fresh)
    // leaves {1->fresh}. Placed before the env put it sees {} and writes nothing; placed
    // between the two it writes 1 and the remove takes it; placed after, it sees {}: every
    // order ends with {}, the run ends with {1->fresh}.
    // expect: data-dependent not-proved
    // reasons: Iteration Keys
    // bounded: not-linearizable
    // witness: METRIC_MAP.put(1, 1000) | next entry after entry -> 1=1000 | METRIC_MAP.remove(1) | METRIC_MAP.put(id, new Object()) -> null
    static void resetFlowMetrics() {
        Set<Long> keys = METRIC_MAP.keySet();
        for (Long id : keys) {
            METRIC_MAP.put(id, new Object());
        }
    }
}

// .../cluster/flow/statistic/limit/GlobalRequestLimiter.java (initIfAbsent): a negated
// containsKey guarding a put whose value comes from a static factory of the key. Witness:
// containsKey(1) -> false; env put(1, 1000); put(1, limiter) leaves {1->limiter} where the
// sequential run from {1->1000} stores nothing.
final class RequestLimiters {
    private static final Map<String, Object> GLOBAL_QPS_LIMITER_MAP = new ConcurrentHashMap<>();

    // expect: SCM not-linearizable
    static void initIfAbsent(String namespace) {
        AssertUtil.notEmpty(namespace, "namespace");
        if (!GLOBAL_QPS_LIMITER_MAP.containsKey(namespace)) {
            GLOBAL_QPS_LIMITER_MAP.put(namespace, new RequestLimiter(Config.getMaxAllowedQps(namespace)));
        }
    }
}

// .../cluster/server/connection/ConnectionManager.java: two maps, namespace -> group and
// address -> namespace.
final class Connections {
    private static final Map<String, Object> CONN_MAP = new ConcurrentHashMap<>();
    private static final Map<String, String> NAMESPACE_MAP = new ConcurrentHashMap<>();
    private static final Object CREATE_LOCK = new Object();

    // getOrCreateGroup: double-checked creation under a lock, the second check an assignment
    // inside the condition, then a put (not putIfAbsent). The lock excludes only other
    // creators; a put by any other writer (the environment of Section 3.1) between the second
    // get and the put is overwritten. Witness: get(1) -> null; get(1) -> null; env put(1,
    // 1000); put(1, group) (LP); returns group, where the sequential run from {1->1000}
    // returns 1000.
    // expect: SCM not-linearizable
    static Object getOrCreateGroup(String namespace) {
        AssertUtil.assertNotBlank(namespace, "namespace");
        Object group = CONN_MAP.get(namespace);
        if (group == null) {
            synchronized (CREATE_LOCK) {
                if ((group = CONN_MAP.get(namespace)) == null) {
                    group = new ConnectionGroup(namespace);
                    CONN_MAP.put(namespace, group);
                }
            }
        }
        return group;
    }

    // getOrCreateConnectionGroup: the same through a helper of the class (inlined; its
    // parameter is the key), so the same violation.
    // expect: SCM not-linearizable
    static Object getOrCreateConnectionGroup(String namespace) {
        AssertUtil.assertNotBlank(namespace, "namespace");
        Object group = getOrCreateGroup(namespace);
        return group;
    }

    // addConnection: the helper on CONN_MAP, then a put on NAMESPACE_MAP under the second
    // input, the address: a second map and a key other than the first input (Keys). The
    // helper's lost update is a real violation here too: get(1) -> null twice; env
    // put(1, 1000); the helper's put overwrites it and the group it made is returned, where
    // a run after the env put returns 1000 and one before it leaves 1000 in the map. (The
    // tool reports it as two updates, Definition 3.1's single point, after checking that
    // the history is not linearizable either.)
    // expect: data-dependent not-proved
    // reasons: Keys
    // bounded: not-linearizable
    // witness: CONN_MAP.get(namespace) -> null | CONN_MAP.put(1, 1000) | CONN_MAP.put(namespace, getOrCreateGroup#1.group) -> 1000 | NAMESPACE_MAP.put(address, namespace)
    static Object addConnection(String namespace, String address) {
        AssertUtil.assertNotBlank(namespace, "namespace");
        AssertUtil.assertNotBlank(address, "address");
        Object group = getOrCreateGroup(namespace);
        ((ConnectionGroup) group).addConnection(address);
        NAMESPACE_MAP.put(address, namespace);
        return group;
    }

    // removeConnection(address): the namespace read from one map is the key of a get on the
    // other (Keys); a return inside depends on that get. Its only update is the final
    // remove(address), but a run that finds a namespace without a group returns before it.
    // Witness: get(1) -> null; env put(1, 1000) (an address registered under a namespace
    // with no group); remove(1) removes it. Run alone before the env put it removes nothing
    // (and the env put leaves 1000); after it, it finds the namespace 1000, no group, and
    // returns without removing: every order leaves {1->1000}, the run leaves {}.
    // expect: data-dependent not-proved
    // reasons: Keys
    // bounded: not-linearizable
    // witness: NAMESPACE_MAP.get(address) -> null | NAMESPACE_MAP.put(1, 1000) | NAMESPACE_MAP.remove(address) -> 1000
    static void removeConnection(String address) {
        AssertUtil.assertNotBlank(address, "address");
        String namespace = NAMESPACE_MAP.get(address);
        if (namespace != null) {
            Object group = CONN_MAP.get(namespace);
            if (group == null) {
                return;
            }
            ((ConnectionGroup) group).removeConnection(address);
        }
        NAMESPACE_MAP.remove(address);
    }
}

// sentinel-core/src/main/java/com/alibaba/csp/sentinel/config/SentinelConfig.java
// (setConfigIfAbsent): get, put when absent, two inputs (the value only stored). Witness:
// get(1) -> null; env put(1, 1000); put(1, value) leaves {1->value}; the sequential run from
// {1->1000} keeps 1000.
final class Config {
    private static final ConcurrentMap<String, String> props = new ConcurrentHashMap<>();

    // expect: SCM not-linearizable
    static void setConfigIfAbsent(String key, String value) {
        AssertUtil.notNull(key, "key");
        AssertUtil.notNull(value, "value");
        String v = props.get(key);
        if (v == null) {
            props.put(key, value);
        }
    }
}

// sentinel-core/src/main/java/com/alibaba/csp/sentinel/spi/SpiLoader.java (of): the key is
// computed once from the parameter (`service.getName()`), double-checked get under a lock,
// putIfAbsent, then a get for the result. Witness: get(1) -> null; get(1) -> null;
// putIfAbsent(1, loader) -> null (LP); env put(1, 1000) (or remove(1)); get(1) -> 1000
// (or null) is returned, where the sequential run returns the loader it stored. The
// argument check `isTrue(service.isInterface() || isAbstract(..), ..)` only passes an
// unknown boolean along (the proof stopped there, `cannot evaluate`, before 5a45e4e).
final class Loaders {
    private static final ConcurrentHashMap<String, Object> SPI_LOADER_MAP = new ConcurrentHashMap<>();

    // expect: SCM not-linearizable
    static Object of(Class<?> service) {
        AssertUtil.notNull(service, "service");
        AssertUtil.isTrue(service.isInterface() || Modifier.isAbstract(service.getModifiers()),
                "must be an interface or abstract class");
        String className = service.getName();
        Object loader = SPI_LOADER_MAP.get(className);
        if (loader == null) {
            synchronized (Loaders.class) {
                loader = SPI_LOADER_MAP.get(className);
                if (loader == null) {
                    SPI_LOADER_MAP.putIfAbsent(className, new SpiLoader(service));
                    loader = SPI_LOADER_MAP.get(className);
                }
            }
        }
        return loader;
    }
}

// sentinel-core/src/main/java/com/alibaba/csp/sentinel/eagleeye/StatLogController.java
// (createLoggerIfNotExists): the key is computed from the parameter, double-checked get and
// put under a lock, and the map's size is read to size a pool (Size). The put's lost update
// is real: get(k) -> null twice; env put(k, 1000); put(k, made) returns made, where the
// sequential run from {k->1000} returns 1000 (and one from {} leaves made, not 1000).
final class StatLoggers {
    private static final Map<String, Object> statLoggers = new ConcurrentHashMap<>();

    // expect: data-dependent not-proved
    // reasons: Size
    // bounded: not-linearizable
    // witness: statLoggers.get(loggerName) -> null | statLoggers.put(1, 1000) | statLoggers.put(loggerName, statLogger) -> 1000
    static Object createLoggerIfNotExists(StatLoggerBuilder builder) {
        String loggerName = builder.getLoggerName();
        Object statLogger = statLoggers.get(loggerName);
        if (statLogger == null) {
            synchronized (StatLoggers.class) {
                if ((statLogger = statLoggers.get(loggerName)) == null) {
                    statLogger = builder.create();
                    statLoggers.put(loggerName, statLogger);
                    Pools.setMaximumPoolSize(Math.max(1, statLoggers.size()));
                }
            }
        }
        return statLogger;
    }
}

// sentinel-cluster/sentinel-cluster-client-default/src/main/java/com/alibaba/csp/sentinel/
// cluster/client/handler/TokenClientPromiseHolder.java (completePromise): containsKey, get,
// then a branch on the stored entry's promise state (Branch). It never writes the map; it
// returns false when the key is absent at either read or the promise is done, true after
// completing the entry it read. Every trace returns what a sequential run from the state at
// its get returns under the same answers of the promise: linearizable, but not provable by
// the reduction; the bounded check finds no violation.
final class Promises {
    private static final Map<Integer, Entry> PROMISE_MAP = new ConcurrentHashMap<>();

    // expect: data-dependent not-proved
    // reasons: Branch
    // bounded: not-proved
    static boolean completePromise(int xid, Object response) {
        if (!PROMISE_MAP.containsKey(xid)) {
            return false;
        }
        Entry entry = PROMISE_MAP.get(xid);
        if (entry != null) {
            Promise promise = entry.getKey();
            if (promise.isDone() || promise.isCancelled()) {
                return false;
            }
            entry.setValue(response);
            promise.setSuccess();
            return true;
        }
        return false;
    }
}

// .../cluster/flow/rule/ClusterFlowRuleManager.java (removeProperty): under a lock, get,
// detach the listener of what was read, remove. Linearizable: the remove is the only update
// and takes whatever is there (a value put after the get is removed too; a remove before
// it makes it a no-op, as the sequential run from that state does); nothing is returned.
final class FlowRules {
    private static final Map<String, Property> PROPERTY_MAP = new ConcurrentHashMap<>();
    private static final Object UPDATE_LOCK = new Object();

    // expect: SCM linearizable
    static void removeProperty(String namespace) {
        AssertUtil.notEmpty(namespace, "namespace");
        synchronized (UPDATE_LOCK) {
            Property property = PROPERTY_MAP.get(namespace);
            if (property != null) {
                property.getProperty().removeListener(property.getListener());
                PROPERTY_MAP.remove(namespace);
            }
        }
    }
}

// sentinel-dashboard/src/main/java/com/alibaba/csp/sentinel/dashboard/config/DashboardConfig.java
// (getConfigStr): containsKey then get (a cast of its result returned), else read the
// environment through a helper of the class (not inlined: no map, more than guards and a
// return, so an unknown call), return null when blank (Exit: that return depends on an
// unknown value), else put and return. Two real violations when the configuration is not
// blank: containsKey(1) -> true; env remove(1); get(1) -> null returns null, which no
// sequential run does; and the one the bounded check reports, a lost update:
// containsKey(1) -> false; env put(1, 1000); put(1, config) returns the configuration
// where the sequential run from {1->1000} returns 1000.
final class Dashboard {
    private static final ConcurrentMap<String, Object> cacheMap = new ConcurrentHashMap<>();

    private static String getConfig(String name) {
        String val = System.getenv(name);
        if (StringUtils.isNotEmpty(val)) {
            return val;
        }
        val = System.getProperty(name);
        if (StringUtils.isNotEmpty(val)) {
            return val;
        }
        return "";
    }

    // expect: data-dependent not-proved
    // reasons: Exit
    // bounded: not-linearizable
    // assumes: line 309: the value returned by `StringUtils.isBlank(this.getConfig(1))` is false
    // witness: cacheMap.containsKey(name) -> false | cacheMap.put(1, 1000) | cacheMap.put(name, val) -> 1000
    static String getConfigStr(String name) {
        if (cacheMap.containsKey(name)) {
            return (String) cacheMap.get(name);
        }
        String val = getConfig(name);
        if (StringUtils.isBlank(val)) {
            return null;
        }
        cacheMap.put(name, val);
        return val;
    }
}

// sentinel-transport/sentinel-transport-netty-http/src/main/java/com/alibaba/csp/sentinel/
// transport/command/netty/HttpServer.java (registerCommand): return early on bad input
// (Exit: a return that depends on the inputs), refuse a duplicate by containsKey, else put.
// Witness (valid input): containsKey(1) -> false; env put(1, 1000); put(1, handler)
// overwrites the other registration, which the sequential run from {1->1000} refuses.
final class Commands {
    private final Map<String, Object> handlerMap = new ConcurrentHashMap<>();

    // expect: data-dependent not-proved
    // reasons: Exit
    // bounded: not-linearizable
    // assumes: line 331: the value returned by `StringUtil.isEmpty(1)` is false
    // witness: handlerMap.containsKey(commandName) -> false | handlerMap.put(1, 1000) | handlerMap.put(commandName, handler) -> 1000
    void registerCommand(String commandName, Object handler) {
        if (StringUtil.isEmpty(commandName) || handler == null) {
            return;
        }
        if (handlerMap.containsKey(commandName)) {
            return;
        }
        handlerMap.put(commandName, handler);
    }
}
