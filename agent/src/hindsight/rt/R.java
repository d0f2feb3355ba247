package hindsight.rt;

import static hindsight.rt.Trace.*;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.concurrent.locks.StampedLock;
import java.util.function.Supplier;

/**
 * What instrumented code calls. Field and array accesses and monitors are hooks placed next
 * to the instruction; calls of the modelled JDK APIs are replaced by the helpers here, which
 * make the real call and record it on the right side of it (see {@link Trace} for why the
 * side matters). Every method takes the event's location last.
 */
public final class R {
    private R() {}

    /** Options the transformer reads: disabled edges (for tests of what each edge hides). */
    static volatile boolean noVolatileEdges, noExecutorEdges, noJoinEdges, noForkEdges;

    // ---- plain accesses ------------------------------------------------------------------

    public static void rs(int var, int loc) {
        push(READ | STATIC, var, 0, loc);
    }

    public static void ws(int var, int loc) {
        push(WRITE | STATIC, var, 0, loc);
    }

    public static void rf(Object o, int field, int loc) {
        if (o != null && recording) {
            Buf b = buf();
            Trace.push(b, READ | FIELD, field, b.id(o), loc, null);
        }
    }

    public static void wf(Object o, int field, int loc) {
        if (o != null && recording) {
            Buf b = buf();
            Trace.push(b, WRITE | FIELD, field, b.id(o), loc, null);
        }
    }

    /**
     * A call of a JDK type of the models table on object {@code o} (see the transformer's
     * {@code jdkState}): a read and/or a write of its one variable {@code var}; under its
     * monitor when the type's methods are atomic ({@code effect & 4}), as the JDK's are.
     */
    public static void jdk(Object o, int var, int effect, int loc) {
        if (o != null && recording) {
            Buf b = buf();
            int id = b.id(o);
            if ((effect & 4) != 0) {
                Trace.push(b, ACQ, 0, id, loc, null);
            }
            if ((effect & 1) != 0) {
                Trace.push(b, READ | FIELD, var, id, loc, null);
            }
            if ((effect & 2) != 0) {
                Trace.push(b, WRITE | FIELD, var, id, loc, null);
            }
            if ((effect & 4) != 0) {
                Trace.push(b, REL, 0, id, loc, null);
            }
        }
    }

    public static void ra(Object arr, int index, int loc) {
        if (arr != null && recording) {
            Buf b = buf();
            Trace.push(b, READ | ELEM, index, b.id(arr), loc, null);
        }
    }

    public static void wa(Object arr, int index, int loc) {
        if (arr != null && recording) {
            Buf b = buf();
            Trace.push(b, WRITE | ELEM, index, b.id(arr), loc, null);
        }
    }

    // ---- volatile fields and atomics: the access and its record under one stripe lock ----

    private static final int STRIPES = 256;
    private static final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

    static {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    private static final class Pending {
        ReentrantLock lock;
        int form, a, b;
    }

    private static final ThreadLocal<Pending> pending = ThreadLocal.withInitial(Pending::new);

    private static ReentrantLock stripe(int h) {
        h *= 0x9E3779B9;
        return stripes[(h >>> 24) & (STRIPES - 1)];
    }

    /** Before a static volatile access: holds the variable's stripe until {@link #vdone}. */
    public static void vlockS(int var) {
        if (!recording) {
            return;
        }
        Pending p = pending.get();
        p.lock = stripe(var);
        p.form = STATIC;
        p.a = var;
        p.lock.lock();
    }

    /** Before an instance volatile access ({@code field} -1: the object is the variable). */
    public static void vlockO(Object o, int field) {
        if (o == null || !recording) {
            pending.get().lock = null;
            return;
        }
        Pending p = pending.get();
        int id = buf().id(o);
        p.lock = stripe(id * 31 + field);
        p.form = field < 0 ? OBJ : FIELD;
        p.a = field;
        p.b = id;
        p.lock.lock();
    }

    /** After the access: records it as {@code op} and lets the stripe go. */
    public static void vdone(int op, int loc) {
        Pending p = pending.get();
        ReentrantLock l = p.lock;
        if (l == null) {
            return;
        }
        p.lock = null;
        try {
            if (noVolatileEdges) {
                op = op == ALOAD_ACQ ? ALOAD : op == ASTORE_REL ? ASTORE : op == RMW_ACQREL ? RMW : op;
            }
            if (recording) {
                Trace.push(buf(), op | p.form, p.a, p.b, loc, null);
            }
        } finally {
            l.unlock();
        }
    }

    /** An op code for the instrumentation (the constants are package-private). */
    public static final int V_LOAD = ALOAD_ACQ, V_STORE = ASTORE_REL;

    // ---- monitors -----------------------------------------------------------------------

    public static void acq(Object o, int loc) {
        if (recording) {
            Buf b = buf();
            Trace.push(b, ACQ, 0, b.id(o), loc, null);
        }
    }

    public static void rel(Object o, int loc) {
        if (recording) {
            Buf b = buf();
            Trace.push(b, REL, 0, b.id(o), loc, null);
        }
    }

    private static void obj(int op, Object o, int loc) {
        if (o != null && recording) {
            Buf b = buf();
            Trace.push(b, op, 0, b.id(o), loc, null);
        }
    }

    public static void wait(Object o, int loc) throws InterruptedException {
        obj(WAIT, o, loc);
        try {
            o.wait();
        } finally {
            obj(WAKE, o, loc);
        }
    }

    public static void wait(Object o, long ms, int loc) throws InterruptedException {
        obj(WAIT, o, loc);
        try {
            o.wait(ms);
        } finally {
            obj(WAKE, o, loc);
        }
    }

    public static void wait(Object o, long ms, int ns, int loc) throws InterruptedException {
        obj(WAIT, o, loc);
        try {
            o.wait(ms, ns);
        } finally {
            obj(WAKE, o, loc);
        }
    }

    // ---- atomic blocks --------------------------------------------------------------------

    public static void begin(int label, int loc) {
        push(BEGIN, label, 0, loc);
    }

    public static void end(int loc) {
        push(END, 0, 0, loc);
    }

    // ---- threads --------------------------------------------------------------------------

    public static void start(Thread t, int loc) {
        if (recording && !noForkEdges) {
            push(FORK, forkTid(t), 0, loc);
        }
        t.start();
    }

    private static void joined(Thread t, int loc) {
        if (!t.isAlive() && recording && !noJoinEdges) {
            push(JOIN, joinTid(t), 0, loc);
        }
    }

    public static void join(Thread t, int loc) throws InterruptedException {
        t.join();
        joined(t, loc);
    }

    public static void join(Thread t, long ms, int loc) throws InterruptedException {
        t.join(ms);
        joined(t, loc);
    }

    // ---- java.util.concurrent.locks ----------------------------------------------------------

    /** Read and write locks and conditions, by the lock that made them. */
    private static final Map<Object, Object> owners =
            Collections.synchronizedMap(new java.util.WeakHashMap<>());

    private static final class Key {
        final Object o;

        Key(Object o) {
            this.o = o;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key && ((Key) other).o == o;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(o);
        }
    }

    private static Object ownerOf(Object derived) {
        // Keyed by identity: the JDK's locks do not override equals, so a weak map works.
        return owners.get(derived);
    }

    private static void acquired(Lock l, int loc) {
        if (!recording) {
            return;
        }
        if (l instanceof ReentrantReadWriteLock.ReadLock) {
            Object rw = ownerOf(l);
            obj(RACQ, rw != null ? rw : l, loc);
        } else if (l instanceof ReentrantReadWriteLock.WriteLock) {
            Object rw = ownerOf(l);
            Object key = rw != null ? rw : l;
            Buf b = buf();
            int id = b.id(key);
            // Re-entrant write acquisitions are counted like monitors by a plain ACQ.
            Trace.push(b, WACQ, 0, id, loc, null);
        } else {
            obj(ACQ, l, loc);
        }
    }

    private static void releasing(Lock l, int loc) {
        if (!recording) {
            return;
        }
        if (l instanceof ReentrantReadWriteLock.ReadLock) {
            Object rw = ownerOf(l);
            obj(RREL, rw != null ? rw : l, loc);
        } else if (l instanceof ReentrantReadWriteLock.WriteLock) {
            Object rw = ownerOf(l);
            obj(WREL, rw != null ? rw : l, loc);
        } else {
            obj(REL, l, loc);
        }
    }

    public static void lock(Lock l, int loc) {
        l.lock();
        acquired(l, loc);
    }

    public static void lockInterruptibly(Lock l, int loc) throws InterruptedException {
        l.lockInterruptibly();
        acquired(l, loc);
    }

    public static boolean tryLock(Lock l, int loc) {
        boolean ok = l.tryLock();
        if (ok) {
            acquired(l, loc);
        }
        return ok;
    }

    public static boolean tryLock(Lock l, long t, TimeUnit u, int loc) throws InterruptedException {
        boolean ok = l.tryLock(t, u);
        if (ok) {
            acquired(l, loc);
        }
        return ok;
    }

    public static void unlock(Lock l, int loc) {
        releasing(l, loc);
        l.unlock();
    }

    public static Condition newCondition(Lock l, int loc) {
        Condition c = l.newCondition();
        owners.put(c, l);
        return c;
    }

    public static Lock readLock(ReadWriteLock rw, int loc) {
        Lock l = rw.readLock();
        owners.put(l, rw);
        return l;
    }

    public static Lock writeLock(ReadWriteLock rw, int loc) {
        Lock l = rw.writeLock();
        owners.put(l, rw);
        return l;
    }

    public static ReentrantReadWriteLock.ReadLock readLock(ReentrantReadWriteLock rw, int loc) {
        ReentrantReadWriteLock.ReadLock l = rw.readLock();
        owners.put(l, rw);
        return l;
    }

    public static ReentrantReadWriteLock.WriteLock writeLock(ReentrantReadWriteLock rw, int loc) {
        ReentrantReadWriteLock.WriteLock l = rw.writeLock();
        owners.put(l, rw);
        return l;
    }

    /** A condition's await gives its lock up and takes it back, as Object.wait does. */
    private static Object conditionLock(Condition c) {
        return ownerOf(c);
    }

    public static void await(Condition c, int loc) throws InterruptedException {
        Object l = conditionLock(c);
        obj(WAIT, l, loc);
        try {
            c.await();
        } finally {
            obj(WAKE, l, loc);
        }
    }

    public static void awaitUninterruptibly(Condition c, int loc) {
        Object l = conditionLock(c);
        obj(WAIT, l, loc);
        try {
            c.awaitUninterruptibly();
        } finally {
            obj(WAKE, l, loc);
        }
    }

    public static boolean await(Condition c, long t, TimeUnit u, int loc) throws InterruptedException {
        Object l = conditionLock(c);
        obj(WAIT, l, loc);
        try {
            return c.await(t, u);
        } finally {
            obj(WAKE, l, loc);
        }
    }

    public static long awaitNanos(Condition c, long ns, int loc) throws InterruptedException {
        Object l = conditionLock(c);
        obj(WAIT, l, loc);
        try {
            return c.awaitNanos(ns);
        } finally {
            obj(WAKE, l, loc);
        }
    }

    // ---- StampedLock: write mode as a write lock, read mode as a read lock ----------------

    public static long writeLock(StampedLock l, int loc) {
        long stamp = l.writeLock();
        obj(WACQ, l, loc);
        return stamp;
    }

    public static long tryWriteLock(StampedLock l, int loc) {
        long stamp = l.tryWriteLock();
        if (stamp != 0) {
            obj(WACQ, l, loc);
        }
        return stamp;
    }

    public static long readLock(StampedLock l, int loc) {
        long stamp = l.readLock();
        obj(RACQ, l, loc);
        return stamp;
    }

    public static long tryReadLock(StampedLock l, int loc) {
        long stamp = l.tryReadLock();
        if (stamp != 0) {
            obj(RACQ, l, loc);
        }
        return stamp;
    }

    public static void unlockWrite(StampedLock l, long stamp, int loc) {
        obj(WREL, l, loc);
        l.unlockWrite(stamp);
    }

    public static void unlockRead(StampedLock l, long stamp, int loc) {
        obj(RREL, l, loc);
        l.unlockRead(stamp);
    }

    public static void unlock(StampedLock l, long stamp, int loc) {
        obj(StampedLock.isWriteLockStamp(stamp) ? WREL : RREL, l, loc);
        l.unlock(stamp);
    }

    /**
     * An optimistic read receives the last write unlock (what the reads after it see when a
     * later validate succeeds); reads racing with a later writer stay unordered with it.
     */
    public static long tryOptimisticRead(StampedLock l, int loc) {
        long stamp = l.tryOptimisticRead();
        if (stamp != 0) {
            obj(RACQ, l, loc);
        }
        return stamp;
    }

    // ---- executors and futures ---------------------------------------------------------------

    private static int tasks;

    private static synchronized int nextTask() {
        return ++tasks;
    }

    /** The task a future completes, by future. */
    private static final Map<Key, Task> futures = Collections.synchronizedMap(new java.util.HashMap<>());

    /** A submitted task: receives its submission when it starts, sends its end when done. */
    static final class Task implements Runnable, Callable<Object>, Supplier<Object> {
        final Object inner;
        final int start, done;
        /** Where it was submitted: the location of its start and end events too. */
        final int loc;

        Task(Object inner, int n, int loc) {
            this.inner = inner;
            this.loc = loc;
            this.start = Names.intern("task" + n);
            this.done = Names.intern("task" + n + ".done");
        }

        private void begin() {
            if (!noExecutorEdges) {
                push(RCV, start, 0, loc);
            }
        }

        private void finish() {
            push(SND, done, 0, loc);
        }

        @Override
        public void run() {
            begin();
            try {
                ((Runnable) inner).run();
            } finally {
                finish();
            }
        }

        @Override
        public Object call() throws Exception {
            begin();
            try {
                return ((Callable<?>) inner).call();
            } finally {
                finish();
            }
        }

        @Override
        public Object get() {
            begin();
            try {
                return ((Supplier<?>) inner).get();
            } finally {
                finish();
            }
        }
    }

    private static Task submit(Object inner, int loc) {
        Task t = new Task(inner, nextTask(), loc);
        push(SND, t.start, 0, loc);
        return t;
    }

    private static <F> F submitted(F future, Task t) {
        if (future != null) {
            futures.put(new Key(future), t);
        }
        return future;
    }

    public static void execute(Executor e, Runnable r, int loc) {
        if (!recording || r == null) {
            e.execute(r);
            return;
        }
        e.execute(submit(r, loc));
    }

    public static Future<?> submit(ExecutorService e, Runnable r, int loc) {
        if (!recording || r == null) {
            return e.submit(r);
        }
        Task t = submit(r, loc);
        return submitted(e.submit((Runnable) t), t);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    public static Future<?> submit(ExecutorService e, Runnable r, Object result, int loc) {
        if (!recording || r == null) {
            return e.submit(r, result);
        }
        Task t = submit(r, loc);
        return submitted(e.submit((Runnable) t, result), t);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    public static Future<?> submit(ExecutorService e, Callable c, int loc) {
        if (!recording || c == null) {
            return e.submit(c);
        }
        Task t = submit(c, loc);
        return submitted(e.submit((Callable<Object>) t), t);
    }

    /** Each task wrapped as {@code submit} wraps it; each future paired with its task. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static List invokeAll(ExecutorService e, Collection tasks, int loc) throws InterruptedException {
        if (!recording || tasks == null) {
            return e.invokeAll(tasks);
        }
        List<Task> wrapped = new ArrayList<>();
        for (Object c : tasks) {
            wrapped.add(submit(c, loc));
        }
        List<Future<Object>> fs = e.invokeAll((Collection) wrapped);
        for (int i = 0; i < fs.size() && i < wrapped.size(); i++) {
            submitted(fs.get(i), wrapped.get(i));
            // invokeAll returns when every task is complete, having observed each completion.
            completed(fs.get(i), loc);
        }
        return fs;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    public static CompletableFuture supplyAsync(Supplier s, int loc) {
        if (!recording || s == null) {
            return CompletableFuture.supplyAsync(s);
        }
        Task t = submit(s, loc);
        return submitted(CompletableFuture.supplyAsync((Supplier<Object>) t), t);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    public static CompletableFuture supplyAsync(Supplier s, Executor e, int loc) {
        if (!recording || s == null) {
            return CompletableFuture.supplyAsync(s, e);
        }
        Task t = submit(s, loc);
        return submitted(CompletableFuture.supplyAsync((Supplier<Object>) t, e), t);
    }

    @SuppressWarnings("rawtypes")
    public static CompletableFuture runAsync(Runnable r, int loc) {
        if (!recording || r == null) {
            return CompletableFuture.runAsync(r);
        }
        Task t = submit(r, loc);
        return submitted(CompletableFuture.runAsync((Runnable) t), t);
    }

    @SuppressWarnings("rawtypes")
    public static CompletableFuture runAsync(Runnable r, Executor e, int loc) {
        if (!recording || r == null) {
            return CompletableFuture.runAsync(r, e);
        }
        Task t = submit(r, loc);
        return submitted(CompletableFuture.runAsync((Runnable) t, e), t);
    }

    private static void completed(Object future, int loc) {
        if (!recording) {
            return;
        }
        Task t = futures.get(new Key(future));
        if (t != null && !noExecutorEdges) {
            push(RCV, t.done, 0, loc);
        }
    }

    public static Object get(Future<?> f, int loc) throws InterruptedException, ExecutionException {
        Object v = f.get();
        completed(f, loc);
        return v;
    }

    public static Object get(Future<?> f, long t, TimeUnit u, int loc)
            throws InterruptedException, ExecutionException, TimeoutException {
        Object v = f.get(t, u);
        completed(f, loc);
        return v;
    }

    public static Object join(CompletableFuture<?> f, int loc) {
        Object v = f.join();
        completed(f, loc);
        return v;
    }

    // ---- latches, barriers, semaphores: every release before every later acquire -----------

    public static void countDown(CountDownLatch l, int loc) {
        obj(SND_GROUP, l, loc);
        l.countDown();
    }

    public static void await(CountDownLatch l, int loc) throws InterruptedException {
        l.await();
        obj(RCV_ALL, l, loc);
    }

    public static boolean await(CountDownLatch l, long t, TimeUnit u, int loc) throws InterruptedException {
        boolean ok = l.await(t, u);
        if (ok) {
            obj(RCV_ALL, l, loc);
        }
        return ok;
    }

    public static int await(CyclicBarrier b, int loc) throws InterruptedException, BrokenBarrierException {
        obj(SND_GROUP, b, loc);
        int r = b.await();
        obj(RCV_ALL, b, loc);
        return r;
    }

    public static int await(CyclicBarrier b, long t, TimeUnit u, int loc)
            throws InterruptedException, BrokenBarrierException, TimeoutException {
        obj(SND_GROUP, b, loc);
        int r = b.await(t, u);
        obj(RCV_ALL, b, loc);
        return r;
    }

    public static void release(Semaphore s, int loc) {
        obj(SND_GROUP, s, loc);
        s.release();
    }

    public static void release(Semaphore s, int n, int loc) {
        obj(SND_GROUP, s, loc);
        s.release(n);
    }

    public static void acquire(Semaphore s, int loc) throws InterruptedException {
        s.acquire();
        obj(RCV_ALL, s, loc);
    }

    public static void acquire(Semaphore s, int n, int loc) throws InterruptedException {
        s.acquire(n);
        obj(RCV_ALL, s, loc);
    }

    public static void acquireUninterruptibly(Semaphore s, int loc) {
        s.acquireUninterruptibly();
        obj(RCV_ALL, s, loc);
    }

    public static boolean tryAcquire(Semaphore s, int loc) {
        boolean ok = s.tryAcquire();
        if (ok) {
            obj(RCV_ALL, s, loc);
        }
        return ok;
    }

    public static boolean tryAcquire(Semaphore s, long t, TimeUnit u, int loc) throws InterruptedException {
        boolean ok = s.tryAcquire(t, u);
        if (ok) {
            obj(RCV_ALL, s, loc);
        }
        return ok;
    }

    // ---- java.util.concurrent queues: an insertion before the removal that takes it ---------

    private static boolean concurrent(Object q) {
        return recording && q != null && q.getClass().getName().startsWith("java.util.concurrent.");
    }

    private static void inserting(Object q, int loc) {
        if (concurrent(q)) {
            obj(SND_GROUP, q, loc);
        }
    }

    private static <T> T removed(Object q, T e, int loc) {
        if (e != null && concurrent(q)) {
            obj(RCV_ALL, q, loc);
        }
        return e;
    }

    public static void put(BlockingQueue<Object> q, Object e, int loc) throws InterruptedException {
        inserting(q, loc);
        q.put(e);
    }

    public static boolean offer(Queue<Object> q, Object e, int loc) {
        inserting(q, loc);
        return q.offer(e);
    }

    public static boolean offer(BlockingQueue<Object> q, Object e, long t, TimeUnit u, int loc)
            throws InterruptedException {
        inserting(q, loc);
        return q.offer(e, t, u);
    }

    public static boolean add(Queue<Object> q, Object e, int loc) {
        inserting(q, loc);
        return q.add(e);
    }

    public static Object take(BlockingQueue<?> q, int loc) throws InterruptedException {
        return removed(q, q.take(), loc);
    }

    public static Object poll(Queue<?> q, int loc) {
        return removed(q, q.poll(), loc);
    }

    public static Object poll(BlockingQueue<?> q, long t, TimeUnit u, int loc) throws InterruptedException {
        return removed(q, q.poll(t, u), loc);
    }

    public static Object remove(Queue<?> q, int loc) {
        return removed(q, q.remove(), loc);
    }

    // ---- concurrent maps: calls for `commute --builtin map` ------------------------------

    /** Whether calls on `m` are recorded; a null `m` is not, so that the call throws the
     *  program's own NullPointerException (`Map.put` on null), not one of the agent's. */
    private static boolean modelled(Map<?, ?> m) {
        return recording && m != null && (m instanceof ConcurrentMap
                || m.getClass().getName().equals("java.util.Collections$SynchronizedMap"));
    }

    /** A map value as the trace writes it: integers, strings, nil, symbols. */
    private static Object value(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v instanceof Character) {
            return String.valueOf(v);
        }
        if (v instanceof String) {
            return v;
        }
        if (v instanceof Boolean || v instanceof Enum) {
            return new Sym(v.toString());
        }
        return new Sym(Ids.name(buf().id(v)));
    }

    private static void call(Map<?, ?> m, String method, Object[] args, Object[] results, int loc) {
        Buf b = buf();
        Object[] c = {b.id(m), method, args, results};
        Trace.push(b, CALL, 0, 0, loc, c);
    }

    private static ReentrantLock mapLock(Map<?, ?> m) {
        return stripe(buf().id(m));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    public static Object put(Map m, Object k, Object v, int loc) {
        if (!modelled(m)) {
            return m.put(k, v);
        }
        ReentrantLock l = mapLock(m);
        l.lock();
        try {
            Object p = m.put(k, v);
            call(m, "put", new Object[] {value(k), value(v)}, new Object[] {value(p)}, loc);
            return p;
        } finally {
            l.unlock();
        }
    }

    @SuppressWarnings("rawtypes")
    public static Object get(Map m, Object k, int loc) {
        if (!modelled(m)) {
            return m.get(k);
        }
        ReentrantLock l = mapLock(m);
        l.lock();
        try {
            Object v = m.get(k);
            call(m, "get", new Object[] {value(k)}, new Object[] {value(v)}, loc);
            return v;
        } finally {
            l.unlock();
        }
    }

    @SuppressWarnings("rawtypes")
    public static boolean containsKey(Map m, Object k, int loc) {
        if (!modelled(m)) {
            return m.containsKey(k);
        }
        ReentrantLock l = mapLock(m);
        l.lock();
        try {
            // What the key maps to, the value the map spec's get returns.
            Object v = m.get(k);
            call(m, "get", new Object[] {value(k)}, new Object[] {value(v)}, loc);
            return v != null || m.containsKey(k);
        } finally {
            l.unlock();
        }
    }

    @SuppressWarnings("rawtypes")
    public static Object remove(Map m, Object k, int loc) {
        if (!modelled(m)) {
            return m.remove(k);
        }
        ReentrantLock l = mapLock(m);
        l.lock();
        try {
            Object p = m.remove(k);
            call(m, "put", new Object[] {value(k), null}, new Object[] {value(p)}, loc);
            return p;
        } finally {
            l.unlock();
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    public static Object putIfAbsent(Map m, Object k, Object v, int loc) {
        if (!modelled(m)) {
            return m.putIfAbsent(k, v);
        }
        ReentrantLock l = mapLock(m);
        l.lock();
        try {
            Object p = m.putIfAbsent(k, v);
            if (p == null) {
                call(m, "put", new Object[] {value(k), value(v)}, new Object[] {null}, loc);
            } else {
                call(m, "get", new Object[] {value(k)}, new Object[] {value(p)}, loc);
            }
            return p;
        } finally {
            l.unlock();
        }
    }

    @SuppressWarnings("rawtypes")
    public static int size(Map m, int loc) {
        if (!modelled(m)) {
            return m.size();
        }
        ReentrantLock l = mapLock(m);
        l.lock();
        try {
            int n = m.size();
            call(m, "size", new Object[0], new Object[] {(long) n}, loc);
            return n;
        } finally {
            l.unlock();
        }
    }

    // ---- java.util.concurrent.atomic (generated list in Atomics) -----------------------------

    /** Before an atomic object's operation: its stripe, held until {@link #vdone}. */
    public static void alock(Object o) {
        vlockO(o, -1);
    }

    /** Before an atomic array's operation on element {@code i}: the element's stripe. */
    public static void alock(Object o, int i) {
        if (o == null || !recording) {
            pending.get().lock = null;
            return;
        }
        Pending p = pending.get();
        int id = buf().id(o);
        p.lock = stripe(id * 31 + i);
        p.form = ELEM;
        p.a = i;
        p.b = id;
        p.lock.lock();
    }

    public static final int A_LOAD = ALOAD_ACQ, A_STORE = ASTORE_REL, A_RMW = RMW_ACQREL,
            A_LOAD_PLAIN = ALOAD, A_STORE_PLAIN = ASTORE;
}
