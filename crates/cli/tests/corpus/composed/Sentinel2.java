// More composed operations of alibaba/Sentinel (Apache-2.0; snapshot of commit d75a6687b827,
// Oct 2025), written for this corpus after the method cited above each, as in Sentinel.java.
//   expect: CLASS VERDICT     reasons: RULE ...     bounded: VERDICT (as in Caches.java)
package corpus.sentinel2;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

// sentinel-extension/sentinel-parameter-flow-control/src/main/java/com/alibaba/csp/sentinel/
// slots/block/flow/param/ParameterMetricStorage.java (initParamMetricsFor): return on a null
// resource or name (Exit), the key a name read from the resource once into a local and again
// at the put (Keys), double-checked get and put under a lock, then initialise the metric read
// or made. The bounded check takes `getName()` as a function of its receiver (stated in the
// assumptions): both reads give one key N, which its environment writes too (since issue #40;
// it follows the name's null test both ways to find it). The put's lost update is real:
// getName() not null; get(N) -> null twice; env put(N, 1000); put(N, m) -> 1000 leaves
// {N->m}, where the run alone from {N->1000} keeps 1000: not linearizable.
final class ParamMetrics {
    private static final Map<String, Metric> metricsMap = new ConcurrentHashMap<>();
    private static final Object LOCK = new Object();

    // expect: data-dependent not-proved
    // reasons: Exit Keys
    // bounded: not-linearizable
    // assumes: line 33: the value returned by `1.getName()` is not `null`
    // assumes: line 38: `1.getName()` returns an equal value whenever it is called on the same receiver and arguments (a key made from it is the same key)
    // witness: metric = metricsMap.get(resourceName) -> null | metricsMap.put(1.getName(), 1000) | metricsMap.put(resourceWrapper.getName(), metric) -> 1000 | returns (void)
    static void initParamMetricsFor(Resource resourceWrapper, Object rule) {
        if (resourceWrapper == null || resourceWrapper.getName() == null) {
            return;
        }
        String resourceName = resourceWrapper.getName();
        Metric metric;
        if ((metric = metricsMap.get(resourceName)) == null) {
            synchronized (LOCK) {
                if ((metric = metricsMap.get(resourceName)) == null) {
                    metric = new Metric();
                    metricsMap.put(resourceWrapper.getName(), metric);
                }
            }
        }
        metric.initialize(rule);
    }
}

// sentinel-adapter/sentinel-zuul2-adapter/src/main/java/com/alibaba/csp/sentinel/adapter/
// gateway/zuul2/api/ZuulGatewayApiMatcherManager.java (getApiMatcherMap): the map handed to
// a library wrapper, whose callers read it later: its uses cannot be counted, so it is
// listed, unsupported, with the construct.
final class ApiMatchers {
    private static final Map<String, Object> API_MATCHER_MAP = new ConcurrentHashMap<>();

    // expect: SCM unsupported
    static Map<String, Object> getApiMatcherMap() {
        return Collections.unmodifiableMap(API_MATCHER_MAP);
    }
}

// sentinel-dashboard/src/main/java/com/alibaba/csp/sentinel/dashboard/metric/MetricFetcher.java
// (doFetchAppMetric): containsKey then get(app).get() (an NPE if another thread removes the
// app between them, which no sequential run throws: a real violation), arithmetic on the
// value read, a return when too near, then computeIfAbsent(app, ..).set(end). The arithmetic
// is on unknown values (`currentTimeMillis() - 6000`, `get(app).get() + 1000`, `Math.max`,
// `/ 1000 * 1000`): terms since issue #40 (item 3), so the bounded check follows the path
// past them: env put(1, 1000); containsKey(app) -> true; env remove(1); get(app) -> null;
// `.get()` throws NullPointerException. The runs alone never throw (from {} they skip the
// read; from {1->1000} they read 1000, and take the comparison `endTime > now - 2000`, on
// terms of two unknowns, both ways: return, or computeIfAbsent), and the trace updates
// nothing: not linearizable. The path assumes nothing (the NPE comes before any comparison).
final class Fetcher {
    private final Map<String, AtomicLong> appLastFetchTime = new ConcurrentHashMap<>();

    // expect: data-dependent not-proved
    // reasons: Branch
    // bounded: not-linearizable
    // witness: appLastFetchTime.put(1, 1000) | appLastFetchTime.containsKey(app) -> true | appLastFetchTime.remove(1) | throws NullPointerException
    private void doFetchAppMetric(final String app) {
        long now = System.currentTimeMillis();
        long lastFetchMs = now - 6000;
        if (appLastFetchTime.containsKey(app)) {
            lastFetchMs = Math.max(lastFetchMs, appLastFetchTime.get(app).get() + 1000);
        }
        lastFetchMs = lastFetchMs / 1000 * 1000;
        long endTime = lastFetchMs + 1000;
        if (endTime > now - 1000 * 2) {
            return;
        }
        appLastFetchTime.computeIfAbsent(app, a -> new AtomicLong()).set(endTime);
    }
}

// sentinel-cluster/sentinel-cluster-server-default/src/main/java/com/alibaba/csp/sentinel/
// cluster/flow/rule/ClusterFlowRuleManager.java (registerPropertyIfAbsent, register2Property,
// registerPropertyInternal): double-checked containsKey under a lock, then two helpers deep:
// a supplier read from a static field (Globals) makes the property, a return when there is
// none, then get, detach the old listener, put. Two violations in the paper's environment
// (any thread may write the map and the field): a lost update (containsKey -> false twice;
// env put(ns, 1000); the helper replaces it, where a run from {ns->1000} does nothing) and
// the one the bounded check reports, the field tested then read again: env sets the
// supplier; `propertySupplier == null` is false; env sets it to null; `.apply` throws, which
// no sequential run does. In Sentinel itself both need a writer Sentinel does not have
// (its setter rejects null; the map's writers hold UPDATE_LOCK): violations of the
// operation, as Definition 3.1 judges it, not of the program.
final class FlowProperties {
    private static final Map<String, Property> PROPERTY_MAP = new ConcurrentHashMap<>();
    private static volatile Function<String, Source> propertySupplier;
    private static final Object UPDATE_LOCK = new Object();

    // expect: data-dependent not-proved
    // reasons: Globals Branch
    // bounded: not-linearizable
    // witness: propertySupplier = propertySupplier#1 | if (propertySupplier == null) | propertySupplier = null | throws NullPointerException
    static void registerPropertyIfAbsent(String namespace) {
        AssertUtil.notEmpty(namespace, "namespace");
        if (!PROPERTY_MAP.containsKey(namespace)) {
            synchronized (UPDATE_LOCK) {
                if (!PROPERTY_MAP.containsKey(namespace)) {
                    register2Property(namespace);
                }
            }
        }
    }

    // The field's test-then-read alone (the same witness).
    // expect: data-dependent not-proved
    // reasons: Globals Exit
    // bounded: not-linearizable
    // witness: propertySupplier = propertySupplier#1 | if (propertySupplier == null) | propertySupplier = null | throws NullPointerException
    static void register2Property(String namespace) {
        AssertUtil.notEmpty(namespace, "namespace");
        if (propertySupplier == null) {
            return;
        }
        Source property = propertySupplier.apply(namespace);
        if (property == null) {
            return;
        }
        synchronized (UPDATE_LOCK) {
            registerPropertyInternal(namespace, property);
        }
    }

    // The helper alone: get, detach what was read, put. The put is the only update and
    // writes whatever is there; nothing is returned: linearizable at the put, proved.
    // expect: SCM linearizable
    private static void registerPropertyInternal(String namespace, Source property) {
        Property oldProperty = PROPERTY_MAP.get(namespace);
        if (oldProperty != null) {
            oldProperty.getProperty().removeListener(oldProperty.getListener());
        }
        Listener listener = new FlowRulePropertyListener(namespace);
        property.addListener(listener);
        PROPERTY_MAP.put(namespace, new Property(namespace, property, listener));
    }
}
