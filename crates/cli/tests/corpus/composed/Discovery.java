// Operations that were silently absent from the report (issue #40, item 5), found by listing
// every method of agileapes/couteau (MIT; snapshot e39931bf492d, Oct 2016) and apache/dubbo
// (Apache-2.0; snapshot 324c62550ab2, Oct 2024) that calls a concurrent map's methods and
// comparing with what `hindsight composed` lists. Written for this corpus after the method
// cited above each (not copied); format as in Caches.java.
package corpus.discovery;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

// couteau-context/src/main/java/com/mmnaseri/couteau/context/impl/AbstractMapRegistry.java and
// ConcurrentRegistry.java: the base class reaches its map only through an abstract getter,
// so alone it has no map; the subclass's getter returns a ConcurrentHashMap field, and the
// base's methods, run on a ConcurrentRegistry, are composed operations on that map. They are
// listed as the subclass's (`ConcurrentRegistry.write`), at their lines in the base class.
// SimpleRegistry's map is a HashMap: no operation there.
abstract class AbstractMapRegistry<E> {
    protected abstract Map<String, E> getMap();

    // put, then report whether the key is there. Witness: put(1, item) -> null (the
    // linearization point: the only update); env remove(1); containsKey(1) -> false;
    // returns false. Alone, from any state, put then containsKey gives true.
    // expect: SCM not-linearizable
    protected final boolean write(String name, E item) {
        getMap().put(name, item);
        return contains(name);
    }

    protected final E read(String name) {
        return getMap().get(name);
    }

    // remove, then report whether the key is gone. Witness: remove(1) -> null from {} (the
    // linearization point); env put(1, 1000); containsKey(1) -> true; returns false. Alone,
    // remove then containsKey gives true from every state.
    // expect: SCM not-linearizable
    protected boolean remove(String name) {
        getMap().remove(name);
        return !contains(name);
    }

    public boolean contains(String name) {
        return getMap().containsKey(name);
    }
}

class ConcurrentRegistry<E> extends AbstractMapRegistry<E> {
    private final Map<String, E> map = new ConcurrentHashMap<String, E>();

    @Override
    protected Map<String, E> getMap() {
        return map;
    }
}

class SimpleRegistry<E> extends AbstractMapRegistry<E> {
    private final Map<String, E> map = new HashMap<String, E>();

    @Override
    protected Map<String, E> getMap() {
        return map;
    }
}

// couteau-reflection/src/main/java/com/mmnaseri/couteau/reflection/cp/MappedClassLoader.java
// (getBytes): a map of arrays, `new ConcurrentHashMap<String, byte[]>()`, was taken for an
// array of maps and not seen. containsKey, then get: witness containsKey(1) -> true from
// {1->1000}; env remove(1); get(1) -> null; returns null. Alone it returns 1000 from
// {1->1000} and throws from {}: never null.
class MappedClassLoader {
    private Map<String, byte[]> bytes = new ConcurrentHashMap<String, byte[]>();

    // expect: SCM not-linearizable
    public byte[] getBytes(String name) throws ClassNotFoundException {
        if (!bytes.containsKey(name)) {
            throw new ClassNotFoundException("Class not found: " + name);
        }
        return bytes.get(name);
    }
}

// dubbo-registry/dubbo-registry-api/src/main/java/org/apache/dubbo/registry/client/event/
// listener/ServiceInstancesChangedListener.java (removeListener): the field is declared as a
// plain Map and set to a ConcurrentHashMap in the constructor (and nowhere else), so it is a
// concurrent map. Get the key's listener set, drop a listener from it, and remove the key
// when the set is empty: data-dependent, the condition is a stored object's state (Branch).
// The check-then-act is a real bug: between the test of the set read and the remove,
// another thread replaces the entry with a non-empty set, which the remove then drops.
// Witness (bounded): env put(1, 1000); get(1) -> 1000; assuming 1000.isEmpty() is true;
// env put(1, 1001); remove(1) -> 1001 (the linearization point); alone from {1->1001}, with
// 1001.isEmpty() false, nothing is removed.
class ListenerRegistry<L> {
    protected Map<String, Set<L>> listeners;

    ListenerRegistry() {
        this.listeners = new ConcurrentHashMap<>();
    }

    // expect: data-dependent not-proved
    // reasons: Branch
    // bounded: not-linearizable
    // assumes: line 115: the value returned by `1000.isEmpty()` is true
    // assumes: line 115: the value returned by `1001.isEmpty()` is false
    // witness: listeners.get(serviceKey) -> 1000 | listeners.put(1, 1001) | listeners.remove(serviceKey) -> 1001
    public synchronized void removeListener(String serviceKey, L listener) {
        Set<L> current = this.listeners.get(serviceKey);
        if (current != null) {
            current.remove(listener);
            if (current.isEmpty()) {
                this.listeners.remove(serviceKey);
            }
        }
    }
}

// dubbo-common/src/main/java/org/apache/dubbo/common/url/component/GroupServiceKeyCache.java
// (getServiceKey): a map of maps set in the constructor; the inner maps, read from the outer
// one, get calls of their own. The reduction covers one map, its keys and values, not maps
// stored in it: listed unsupported, at the inner map.
class ServiceKeys {
    private final ConcurrentMap<String, ConcurrentMap<Integer, String>> keys;

    ServiceKeys() {
        this.keys = new ConcurrentHashMap<>(512);
    }

    // expect: data-dependent unsupported
    public String getServiceKey(String serviceName, int port) {
        ConcurrentMap<Integer, String> byPort = keys.get(serviceName);
        if (byPort == null) {
            keys.putIfAbsent(serviceName, new ConcurrentHashMap<>());
            byPort = keys.get(serviceName);
        }
        String key = byPort.get(port);
        if (key == null) {
            key = serviceName + ":" + port;
            byPort.put(port, key);
        }
        return key;
    }
}

// dubbo-rpc/dubbo-rpc-triple/src/main/java/org/apache/dubbo/rpc/protocol/tri/
// Http3Exchanger.java (connect): one map call, `compute`, whose function registers a
// listener that later removes the entry: the map used inside the function is a use the
// analysis does not count, so the operation is listed (unsupported) however few calls it has.
class Exchanger {
    private static final Map<String, Client> CLIENTS = new ConcurrentHashMap<>(16);

    // expect: data-dependent unsupported
    public static Client connect(String address) {
        return CLIENTS.compute(address, (a, client) -> {
            if (client == null) {
                Client created = Client.open(a);
                created.onClose(() -> CLIENTS.remove(a, created));
                client = created;
            } else {
                client.retain();
            }
            return client;
        });
    }
}

interface Client {
    static Client open(String address) {
        return null;
    }

    void onClose(Runnable r);

    void retain();
}

// dubbo-remoting/dubbo-remoting-api/src/main/java/org/apache/dubbo/remoting/exchange/support/
// DefaultFuture.java (the private constructor): a constructor that registers the object in
// two static maps. The object is not shared while it is built, but the static maps are:
// another thread reads them meanwhile. Constructors were never listed; one that uses a static
// map is an operation (its object's own fields are its locals). Two maps, keyed by an id
// read from the request (an unknown call's result): data-dependent (Keys). The put into
// FUTURES then CHANNELS is two updates another thread can see apart (a future found with no
// channel yet). The bounded check finds it, assuming `request.getId()` returns the same id
// whenever it is called on the same request (so another thread's key made from it is this
// key): between the two puts, another thread puts its own future and channel at that id.
// The constructor's second put returns that thread's channel, so in any sequential order the
// other ran first; but then FUTURES would end with this future, and it ends with the
// other's. Not linearizable.
final class Future {
    private static final Map<Long, Future> FUTURES = new ConcurrentHashMap<>();
    private static final Map<Long, Object> CHANNELS = new ConcurrentHashMap<>();

    private final Object channel;
    private final Long id;

    // expect: data-dependent not-proved
    // reasons: Keys
    // bounded: not-linearizable
    // assumes: line 209: `1.getId()` returns an equal value whenever it is called on the same receiver and arguments (a key made from it is the same key)
    // witness: FUTURES.put(id, this) -> null | FUTURES.put(1.getId(), 1000) | CHANNELS.put(1.getId(), 1000) | CHANNELS.put(id, channel) -> 1000
    private Future(Object channel, Request request) {
        this.channel = channel;
        this.id = request.getId();
        FUTURES.put(id, this);
        CHANNELS.put(id, channel);
    }

    // Its object's own map, while it is built: no operation.
    private final Map<String, Object> attributes = new ConcurrentHashMap<>();

    private Future(Object channel) {
        this.channel = channel;
        this.id = 0L;
        attributes.put("channel", channel);
        attributes.put("id", id);
    }
}

interface Request {
    Long getId();
}

// couteau-concurrency/src/main/java/com/mmnaseri/couteau/concurrency/deferred/impl/
// DeferredTask.java (all): a local map captured by an anonymous class. `all` hands the map
// to the anonymous object (unsupported, at the class); the object's `process`, run by
// whichever thread completes a promise, records its result and, when it is the last one,
// reads the results back (every one in a loop there; the first one here, which keeps the
// bounded check short). Its calls are on the captured map, which the anonymous class sees as
// a map of its own (before, it saw an unknown name and listed nothing). Keyed by a captured
// index and a constant, not by its parameter: data-dependent (Keys).
final class Promises {
    // expect: data-dependent unsupported
    static Object all(final List<Promise> promises) {
        final ConcurrentMap<Integer, Object> results = new ConcurrentHashMap<Integer, Object>();
        final AtomicInteger count = new AtomicInteger(0);
        for (int i = 0; i < promises.size(); i++) {
            final int index = i;
            promises.get(i).then(new Processor() {
                // expect: data-dependent not-proved
                // reasons: Keys
                // bounded: not-proved
                @Override
                public void process(Object result) {
                    results.putIfAbsent(index, result);
                    if (count.incrementAndGet() == promises.size()) {
                        List<Object> objects = new ArrayList<Object>();
                        objects.add(results.get(0));
                        Promises.done(objects);
                    }
                }
            });
        }
        return count;
    }

    static void done(List<Object> objects) {
    }
}

interface Promise {
    void then(Processor p);
}

interface Processor {
    void process(Object result);
}
