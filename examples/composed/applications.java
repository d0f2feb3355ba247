// Composed operations of the kinds the paper's 57 applications contain (memoizing caches,
// lazy registries, counters, check-then-act misuses), each with its expected class and verdict
// and why. Format of the expectation lines: see paper.java.

ConcurrentHashMap<String, Counter> counters;
ConcurrentHashMap<String, Session> sessions;
ConcurrentHashMap<String, Handler> handlers;
ConcurrentHashMap<String, Integer> counts;
ConcurrentHashMap<String, Object> cache;
ConcurrentHashMap<Integer, Integer> squares;
ConcurrentHashMap<String, Object> configs;
ConcurrentHashMap<String, Object> registry;
ConcurrentHashMap<String, Object> entries;
static final Object DEFAULT_CONFIG = new Config("default");
static final int MAX_ENTRIES = 100;
int hits;

// Check-then-act with put: two callers may both miss, both create, and the later put
// overwrites the counter the earlier caller returned (and keeps using).
// expect: SCM not-linearizable
Counter getCounter(String name) {
  Counter c = counters.get(name);
  if (c == null) {
    c = new Counter();
    counters.put(name, c);
  }
  return c;
}

// The fix: putIfAbsent and return the winner (Fig. 2's pattern).
// expect: SCM linearizable
Counter getCounterFixed(String name) {
  Counter c = counters.get(name);
  if (c == null) {
    Counter fresh = new Counter();
    c = counters.putIfAbsent(name, fresh);
    if (c == null)
      c = fresh;
  }
  return c;
}

// containsKey, then put, then get: a remove between the put and the get makes it return null,
// which no atomic execution does.
// expect: SCM not-linearizable
Session getSession(String id) {
  if (!sessions.containsKey(id)) {
    sessions.put(id, new Session());
  }
  return sessions.get(id);
}

// A lazy registry that ignores putIfAbsent's result and returns its own handler even when
// another one was registered first. Linearizable all the same: run alone it does exactly that
// too, so no interleaving shows anything an atomic run cannot. The misuse is in its sequential
// behaviour (callers may hold a handler the map does not), which linearizability does not judge.
// expect: SCM linearizable
Handler register(String name) {
  Handler h = new Handler();
  handlers.putIfAbsent(name, h);
  return h;
}

// The fixed registry.
// expect: SCM linearizable
Handler registerFixed(String name) {
  Handler h = new Handler();
  Handler old = handlers.putIfAbsent(name, h);
  if (old != null)
    return old;
  return h;
}

// A counter incremented with get and put: an update between them is lost.
// expect: SCM not-linearizable
void increment(String key) {
  Integer n = counts.get(key);
  if (n == null)
    counts.put(key, 1);
  else
    counts.put(key, n + 1);
}

// The same counter with a compare-and-set retry loop: the replace only succeeds on the value
// get returned, so it is a VCM, and linearizable.
// expect: VCM linearizable
int incrementAndGet(String key) {
  while (true) {
    Integer old = counts.get(key);
    if (old == null) {
      if (counts.putIfAbsent(key, 1) == null)
        return 1;
    } else {
      if (counts.replace(key, old, old + 1))
        return old + 1;
    }
  }
}

// Evicts through containsKey then remove: if the entry vanishes in between, the remove
// returns null, which is what an atomic eviction of an absent key returns.
// expect: SCM linearizable
Object evict(String key) {
  if (cache.containsKey(key)) {
    return cache.remove(key);
  }
  return null;
}

// get then remove, returning what get saw: two callers can both "take" the same entry.
// expect: SCM not-linearizable
Object take(String key) {
  Object v = cache.get(key);
  if (v != null)
    cache.remove(key);
  return v;
}

// Memoizes a pure function with put: another writer's value is overwritten (benign only if
// every writer stores n * n, which the map's other clients do not promise).
// expect: SCM not-linearizable
Integer square(Integer n) {
  Integer r = squares.get(n);
  if (r == null) {
    r = n * n;
    squares.put(n, r);
  }
  return r;
}

// A configuration registry with a reserved key: the key is only compared with a constant, so
// it is an FCM checked on {"default", "*"}; both paths are atomic.
// expect: FCM linearizable
Object getConfig(String name) {
  if (name.equals("default"))
    return DEFAULT_CONFIG;
  Object c = configs.get(name);
  if (c == null) {
    Object fresh = new Config(name);
    c = configs.putIfAbsent(name, fresh);
    if (c == null)
      c = fresh;
  }
  return c;
}

// replace(k, v) refreshes only a present entry; one map call, so atomic.
// expect: SCM linearizable
Object refresh(String key) {
  Object fresh = new Entry();
  Object old = entries.replace(key, fresh);
  if (old == null)
    return null;
  return fresh;
}

// Caches only while the map is small: size() depends on every key (Fig. 11 "Size"); the
// bounded check finds the remove between the putIfAbsent and the get.
// expect: data-dependent not-proved
// reasons: Size
// bounded: not-linearizable
Object cacheIfRoom(String key, Object value) {
  if (cache.size() < MAX_ENTRIES) {
    cache.putIfAbsent(key, value);
  }
  return cache.get(key);
}

// Counts hits in a global field: not encapsulated (Fig. 11 "Globals"). Its increment loses
// updates, but only another incrementer can see that; the bounded environment writes globals
// without reading them, so the bounded check finds nothing (and proves nothing).
// expect: data-dependent not-proved
// reasons: Globals
// bounded: not-proved
Object lookup(String key) {
  hits = hits + 1;
  return cache.get(key);
}

// Unregisters only the handler it saw, with remove(k, v) (Fig. 11 "Remove"). Not linearizable:
// the environment may replace the handler between the get and the remove, which then fails,
// and the operation answers "not registered" while a handler was registered throughout (run
// atomically it would have removed one). The bounded check finds it.
// expect: data-dependent not-proved
// reasons: Remove
// bounded: not-linearizable
boolean unregister(String name) {
  Handler h = handlers.get(name);
  if (h == null)
    return false;
  return handlers.remove(name, h);
}

// Validates the key before use: the throw depends on the key other than by comparison with a
// constant (Fig. 11 "Exit").
// expect: data-dependent not-proved
// reasons: Exit
Object lookupValidated(String id) {
  if (id.length() > 64)
    throw new IllegalArgumentException("id too long");
  return cache.get(id);
}

// Renames an entry: two keys (Fig. 11 "Keys"), and a reader can see the entry under neither
// name, which the bounded check finds.
// expect: data-dependent not-proved
// reasons: Keys
// bounded: not-linearizable
void rename(String from, String to) {
  Object v = registry.remove(from);
  if (v != null)
    registry.put(to, v);
}
