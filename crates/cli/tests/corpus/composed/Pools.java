// Connection pools, session maps and registries in the shapes found in public Java projects,
// written for this corpus after the cited patterns (not copied); format as in Caches.java.
package corpus.pools;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

public class Pools {
    private ConcurrentHashMap<String, Connection> pool = new ConcurrentHashMap<String, Connection>();
    private static final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Handler> handlers = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Point> locations = new ConcurrentHashMap<>();
    private final Clock clock;

    Pools(Clock clock) {
        this.clock = clock;
    }

    // Pattern: honghebest/pattern-example .../future/sqlpool/ConnectionPool.java and
    // ganjing1987/gitskills .../Event/concurrent/ConnectionPool.java (getConnection):
    // containsKey, else create and putIfAbsent, ignoring its result. Witness: containsKey(1)
    // -> false; env put(1, 1000); putIfAbsent(1, createConnection()#1) -> 1000; returns its own
    // connection, which the map does not hold and no atomic run from {1->1000} returns.
    // expect: SCM not-linearizable
    public Connection getConnection(String key) {
        Connection conn = null;
        if (pool.containsKey(key)) {
            conn = pool.get(key);
        } else {
            conn = createConnection();
            pool.putIfAbsent(key, conn);
        }
        return conn;
    }

    // The fix: keep putIfAbsent's winner.
    // expect: SCM linearizable
    public Connection getConnectionFixed(String key) {
        Connection conn = pool.get(key);
        if (conn == null) {
            Connection created = createConnection();
            Connection raced = pool.putIfAbsent(key, created);
            conn = raced != null ? raced : created;
        }
        return conn;
    }

    // Pattern: the same pools' release path: get, then remove if present. Two releasers both
    // see the connection and both close it. Witness: get(1) -> 1000 on {1->1000}; env
    // remove(1) -> 1000; remove(1) -> null; returns 1000. Placed before the env remove, the
    // operation would have removed the entry and the env remove would have returned null;
    // placed after, it would return null.
    // expect: SCM not-linearizable
    public Connection release(String key) {
        Connection c = pool.get(key);
        if (c != null) {
            pool.remove(key);
        }
        return c;
    }

    // The fix: the remove's result is what was released.
    // expect: SCM linearizable
    public Connection releaseFixed(String key) {
        Connection c = pool.get(key);
        if (c != null) {
            c = pool.remove(key);
        }
        return c;
    }

    // Pattern: woowacourse/java-http tomcat/src/main/java/org/apache/catalina/SessionManager.java
    // (findSession) extended with expiry: the session is checked with an unknown call
    // (`isExpired`) and removed. The proof cannot use a condition on an unknown call (not
    // proved); the bounded check takes it both ways and finds the stale removal: session 1000
    // judged expired, the environment stores 1001 (not expired), remove(id) removes 1001. No
    // atomic run leaves the map empty with the environment's put having seen 1000.
    // expect: data-dependent not-proved
    // reasons: Branch
    // bounded: not-linearizable
    // assumes: line 88: the value returned by `1000.isExpired()` is true
    // assumes: line 88: the value returned by `1001.isExpired()` is false
    // witness: s = sessions.get(id) -> 1000 | assume | sessions.put(1, 1001) | sessions.remove(id) -> 1001
    public static Session findSession(final String id) {
        Session s = sessions.get(id);
        if (s != null && s.isExpired()) {
            sessions.remove(id);
            return null;
        }
        return s;
    }

    // Session creation with a generated id: the key is computed once from the parameter and a
    // final field's unknown call before the map calls, so it is an input; putIfAbsent then
    // get: a remove in between makes it return null after inserting. Witness:
    // putIfAbsent(k, new Session) -> null; env remove(k); get(k) -> null.
    // expect: SCM not-linearizable
    public Session create(String user) {
        String id = user + ":" + clock.millis();
        sessions.putIfAbsent(id, new Session(user));
        return sessions.get(id);
    }

    // Pattern: a listener registry: register only if absent, reporting whether it was added.
    // One update and a read of putIfAbsent's result: linearizable.
    // expect: SCM linearizable
    public boolean register(String name, Handler h) {
        if (handlers.containsKey(name)) {
            return false;
        }
        return handlers.putIfAbsent(name, h) == null;
    }

    // Unregisters only the handler it was given (remove(k, v)): Fig. 11 "Remove"; one atomic
    // update, so the bounded check finds nothing.
    // expect: data-dependent not-proved
    // reasons: Remove
    // bounded: not-proved
    public boolean unregister(String name, Handler h) {
        Handler current = handlers.get(name);
        if (current == null) {
            return false;
        }
        return handlers.remove(name, h);
    }

    // Pattern: a vehicle tracker's setLocation (replace, throw when absent) extended with a
    // read of the result: replace, then get. An update between them is visible.
    // Witness: replace(1, p) -> 1000 on {1->1000}; env put(1, 1000') ... with one env value:
    // env remove(1); get(1) -> null: returns null after replacing.
    // expect: SCM not-linearizable
    public Point moveAndRead(String id, Point p) {
        if (locations.replace(id, p) == null) {
            throw new IllegalArgumentException("invalid vehicle name: " + id);
        }
        return locations.get(id);
    }

    // The replace alone, with the throw on its result: one map call, but written with a
    // second read first (get for logging): read-only then one update, linearizable.
    // expect: SCM linearizable
    public void setLocation(String id, Point p) {
        Point before = locations.get(id);
        if (locations.replace(id, p) == null) {
            throw new IllegalArgumentException("invalid vehicle name: " + id);
        }
    }

    // Waits for a handler with a timeout: a traversal of the map's values (weakly consistent
    // iteration, modelled since issue #40), each handler's name looked up. Data-dependent
    // (Iteration, and the key `h.name()` is not an input). Taken as a function of its handler
    // (as a name is), `1000.name()` is a key N the bounded check's environment writes too:
    // env put(1, 1000); the traversal reaches 1=1000; env put(1, 1001), put(N, 1001);
    // containsKey(N) -> true; returns 1000. A real violation: returning 1000 needs 1000 in
    // the map and its name present at one instant, but 1000 was replaced before N was added;
    // placed before, between or after the puts, the operation returns null or 1001 (whatever
    // 1001's name is). The earlier attempt (fresh values as keys) reported a violation here
    // for a wrong reason (a renaming that matched calls made in another order); this one is
    // judged with the name as one key in every run, and replayed by the brute force.
    // expect: data-dependent not-proved
    // reasons: Iteration Keys
    // bounded: not-linearizable
    // assumes: line 169: `1000.name()` returns an equal value whenever it is called on the same receiver and arguments (a key made from it is the same key)
    // witness: handlers.put(1, 1000) | next entry after entry -> 1=1000 | handlers.put(1, 1001) | handlers.put(1000.name(), 1001) | handlers.containsKey(h.name()) -> true | returns 1000
    public Handler any(long timeout) {
        for (Handler h : handlers.values()) {
            if (handlers.containsKey(h.name())) {
                return h;
            }
        }
        return null;
    }

    // The map handed to unknown code: it may do anything to it.
    // expect: SCM unsupported
    public Handler publish(String name, Handler h) {
        handlers.put(name, h);
        Registry.publish(handlers, TimeUnit.SECONDS);
        return handlers.get(name);
    }

    private Connection createConnection() {
        return new Connection();
    }
}
