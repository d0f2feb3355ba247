package hindsight.rt;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The recording session: per-thread buffers, the global order, and the writer of the
 * {@code .hst} file.
 *
 * <p>Each event draws a sequence number from one counter while its thread holds its own
 * buffer's lock, and the file is written in sequence-number order. The instrumentation draws
 * an acquire after the real acquisition, a release before the real release, a fork before
 * {@code Thread.start}, a join after {@code join} returns, a send before the operation that
 * publishes and a receive after the one that observes; so every happens-before edge of the
 * program runs from one draw to a later one and the file order is a linear extension of
 * happens-before (see docs/java.md).
 *
 * <p>Memory is bounded: a buffer holds at most {@link #CAP} events; a full buffer, a timer
 * every {@link #PERIOD_MS} ms and the end of the run drain every buffer into the file. A drain
 * holds the registry lock and then every buffer's lock, so no draw is in flight: the events
 * taken are exactly the sequence numbers from the last drain's end up to the counter.
 */
public final class Trace {
    static final int CAP = 8192;
    static final long PERIOD_MS = 200;

    /** Operations as buffered (the writer expands them into trace events). */
    static final int READ = 1, WRITE = 2, ALOAD = 3, ALOAD_ACQ = 4, ASTORE = 5, ASTORE_REL = 6,
            RMW = 7, RMW_ACQREL = 8, ACQ = 9, REL = 10, WAIT = 11, WAKE = 12, FORK = 13,
            JOIN = 14, SND = 15, RCV = 16, SND_GROUP = 17, RCV_ALL = 18, BEGIN = 19, END = 20,
            CALL = 21, RACQ = 22, RREL = 23, WACQ = 24, WREL = 25;

    /**
     * How an access names its variable, in the operation's bits 8-9: a static field
     * ({@code a} = its name), an instance field ({@code a} = the field's name, {@code b} = the
     * object), an array element ({@code a} = the index, {@code b} = the array), or an object
     * that is itself the variable (an atomic; {@code b} = the object).
     */
    static final int STATIC = 0, FIELD = 1 << 8, ELEM = 2 << 8, OBJ = 3 << 8;

    /** One buffer's events, in draw order. */
    static final class Events {
        final long[] seq = new long[CAP];
        final int[] op = new int[CAP];
        final int[] a = new int[CAP];
        final int[] b = new int[CAP];
        final int[] loc = new int[CAP];
        Object[] call;
    }

    static final class Buf {
        final ReentrantLock lock = new ReentrantLock();
        final Thread thread;
        final int tid;
        int n;
        Events ev = new Events();
        /** The events a drain took last time, written and handed back for reuse. */
        Events spare;
        /** A one-entry cache of the last object this thread numbered. */
        Object lastObj;
        int lastId;

        Buf(Thread thread, int tid) {
            this.thread = thread;
            this.tid = tid;
        }

        int id(Object o) {
            if (o == lastObj) {
                return lastId;
            }
            int id = Ids.id(o);
            lastObj = o;
            lastId = id;
            return id;
        }
    }

    private static final AtomicLong SEQ = new AtomicLong();
    private static final Object registry = new Object();
    private static final ArrayList<Buf> bufs = new ArrayList<>();
    /** Threads numbered before they ran (at their fork), and every numbered thread. */
    private static final IdentityHashMap<Thread, Integer> forked = new IdentityHashMap<>();
    private static final WeakHashMap<Thread, Integer> tids = new WeakHashMap<>();
    private static final ArrayList<String> threadNames = new ArrayList<>();
    private static final HashMap<String, Integer> nameUses = new HashMap<>();
    private static final ReentrantLock drainLock = new ReentrantLock();

    static volatile boolean recording;
    /** The agent option no-lock-edges: monitors and locks are not written. */
    static boolean noLocks;
    /** The agent option no-message-edges: no send or receive is written. */
    static boolean noMessages;
    private static Writer writer;
    private static String target;
    private static File partial;

    private static final ThreadLocal<Buf> local = ThreadLocal.withInitial(Trace::register);

    private Trace() {}

    static void start(String out) throws IOException {
        target = out;
        File t = new File(out).getAbsoluteFile();
        partial = new File(t.getParentFile(), t.getName() + "." + ProcessHandle.current().pid() + ".partial");
        writer = new Writer(new Out(new FileOutputStream(partial)));
        recording = true;
        Thread flusher = new Thread(Trace::flushLoop, "hindsight-flush");
        flusher.setDaemon(true);
        flusher.start();
        Runtime.getRuntime().addShutdownHook(new Thread(Trace::finish, "hindsight-finish"));
    }

    private static void flushLoop() {
        while (recording) {
            try {
                Thread.sleep(PERIOD_MS);
            } catch (InterruptedException e) {
                return;
            }
            drain(true);
        }
    }

    /** Writes what is buffered, the end record, and renames the file into place. */
    private static void finish() {
        drainLock.lock();
        try {
            if (!recording) {
                return;
            }
            drain(false);
            recording = false;
            writer.finish();
            Files.move(partial.toPath(), new File(target).getAbsoluteFile().toPath(),
                    StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            System.err.println("hindsight: wrote " + writer.events + " events to " + target);
        } catch (IOException e) {
            System.err.println("hindsight: error: cannot write " + target + ": " + e.getMessage());
        } finally {
            drainLock.unlock();
        }
    }

    /** A unique name for a thread: its Java name, suffixed #2, #3, ... when taken. */
    private static String uniqueName(String name) {
        Integer uses = nameUses.get(name);
        if (uses == null) {
            nameUses.put(name, 1);
            return name;
        }
        for (int k = uses + 1; ; k++) {
            String candidate = name + "#" + k;
            if (!nameUses.containsKey(candidate)) {
                nameUses.put(name, k);
                nameUses.put(candidate, 1);
                return candidate;
            }
        }
    }

    /** The thread's number, assigned now if it has none. Called under {@code registry}. */
    private static int tidOf(Thread t) {
        Integer id = tids.get(t);
        if (id == null) {
            id = threadNames.size();
            threadNames.add(uniqueName(t.getName()));
            tids.put(t, id);
        }
        return id;
    }

    private static Buf register() {
        Thread t = Thread.currentThread();
        boolean crowded;
        Buf b;
        synchronized (registry) {
            Integer id = forked.remove(t);
            b = new Buf(t, id != null ? id : tidOf(t));
            bufs.add(b);
            crowded = bufs.size() % 256 == 0;
        }
        if (crowded) {
            // Threads that ended leave their buffers until a drain drops them.
            drain(false);
        }
        return b;
    }

    static int forkTid(Thread t) {
        synchronized (registry) {
            int id = tidOf(t);
            forked.put(t, id);
            return id;
        }
    }

    static int joinTid(Thread t) {
        synchronized (registry) {
            return tidOf(t);
        }
    }

    static Buf buf() {
        return local.get();
    }

    static void push(Buf b, int op, int a, int bb, int loc, Object call) {
        b.lock.lock();
        try {
            int i = b.n;
            if (i == CAP) {
                return; // recording stopped: nothing drains any more
            }
            Events e = b.ev;
            e.seq[i] = SEQ.getAndIncrement();
            e.op[i] = op;
            e.a[i] = a;
            e.b[i] = bb;
            e.loc[i] = loc;
            if (call != null) {
                if (e.call == null) {
                    e.call = new Object[CAP];
                }
                e.call[i] = call;
            }
            b.n = i + 1;
        } finally {
            b.lock.unlock();
        }
        if (b.n == CAP) {
            drain(false);
        }
    }

    static void push(int op, int a, int b, int loc) {
        if (recording) {
            push(buf(), op, a, b, loc, null);
        }
    }

    /**
     * Moves every buffered event to the file, in sequence-number order. The buffers are
     * swapped out under their locks (so no draw is in flight and the events taken are exactly
     * the numbers up to the counter); they are written after the threads have been let go.
     */
    static void drain(boolean flush) {
        drainLock.lock();
        try {
            if (!recording) {
                return;
            }
            Buf[] all;
            Events[] taken;
            int[] counts;
            int total = 0;
            synchronized (registry) {
                all = bufs.toArray(new Buf[0]);
                taken = new Events[all.length];
                counts = new int[all.length];
                for (Buf b : all) {
                    b.lock.lock();
                }
                try {
                    for (int k = 0; k < all.length; k++) {
                        Buf b = all[k];
                        taken[k] = b.ev;
                        counts[k] = b.n;
                        total += b.n;
                        b.ev = b.spare != null ? b.spare : new Events();
                        b.spare = null;
                        b.n = 0;
                    }
                } finally {
                    for (Buf b : all) {
                        b.lock.unlock();
                    }
                }
                bufs.removeIf(b -> !b.thread.isAlive() && b.n == 0);
            }
            long base = writer.nextSeq;
            int[] owner = new int[total];
            for (int k = 0; k < all.length; k++) {
                Events e = taken[k];
                for (int i = 0; i < counts[k]; i++) {
                    owner[(int) (e.seq[i] - base)] = k;
                }
            }
            int[] cursor = new int[all.length];
            for (int s = 0; s < total; s++) {
                int k = owner[s];
                Events e = taken[k];
                int i = cursor[k]++;
                Object call = null;
                if (e.call != null) {
                    call = e.call[i];
                    e.call[i] = null;
                }
                writer.event(all[k].tid, e.op[i], e.a[i], e.b[i], e.loc[i], call);
            }
            writer.nextSeq = base + total;
            for (int k = 0; k < all.length; k++) {
                all[k].spare = taken[k];
            }
            if (flush) {
                writer.out.flush();
            }
        } catch (IOException e) {
            recording = false;
            System.err.println("hindsight: error: cannot write " + target + ": " + e.getMessage());
        } finally {
            drainLock.unlock();
        }
    }

    static String threadName(int tid) {
        synchronized (registry) {
            return threadNames.get(tid);
        }
    }

    /**
     * The writer: maps the buffered operations to the file's events and names, in file order.
     * Only the draining thread touches it.
     */
    static final class Writer {
        static final byte[] MAGIC = {(byte) 0x89, 'H', 'S', 'T', '\r', '\n', 0x1a, '\n'};
        static final int K_THREAD = 0, K_VAR = 1, K_LOCK = 2, K_MSG = 3, K_OBJ = 4, K_SYM = 5, K_LOC = 6;
        static final int OP_READ = 1, OP_WRITE = 2, OP_ACQ = 3, OP_REL = 4, OP_FORK = 6,
                OP_JOIN = 7, OP_BEGIN = 8, OP_BEGIN_LABEL = 9, OP_END = 10, OP_SND = 11,
                OP_RCV = 12, OP_CALL = 13, OP_ALOAD = 14, OP_ASTORE = 15, OP_RMW = 16;

        final Out out;
        long nextSeq;
        long events;
        int thread = -1;
        final int[] defined = new int[7];
        /** Per kind, the file id of each name already defined. */
        @SuppressWarnings("unchecked")
        final HashMap<String, Integer>[] fileIds = new HashMap[7];
        /** Caches from the buffered numbers to file ids. */
        final HashMap<Long, Integer> varIds = new HashMap<>();
        /** By object, thread and location number: the file id plus one (0: none yet). */
        int[] lockIds = new int[1024];
        int[] threadIds = new int[64];
        int[] locIds = new int[1024];
        /** A direct-mapped cache in front of {@code varIds}. */
        final long[] varKeys = new long[4096];
        final int[] varVals = new int[4096];
        /** Per message file id: whether a send heads a release sequence a receive reads. */
        final ArrayList<Boolean> released = new ArrayList<>();
        /** Per thread and monitor, how often the thread holds it (writes only the outermost). */
        final HashMap<Long, int[]> depth = new HashMap<>();
        /** Per group (an object), the messages its members sent, by sending thread. */
        final HashMap<Integer, HashMap<Integer, Integer>> groups = new HashMap<>();
        final byte[] scratch = new byte[64];

        Writer(Out out) throws IOException {
            this.out = out;
            for (int k = 0; k < 7; k++) {
                fileIds[k] = new HashMap<>();
            }
            out.write(MAGIC);
            varint(1);
        }

        void varint(long x) throws IOException {
            while ((x & ~0x7fL) != 0) {
                out.write((int) ((x & 0x7f) | 0x80));
                x >>>= 7;
            }
            out.write((int) x);
        }

        /** The file id of {@code name} of kind {@code k}, defined now if new. */
        int def(int k, String name) throws IOException {
            Integer id = fileIds[k].get(name);
            if (id != null) {
                return id;
            }
            byte[] bytes = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            out.write(0);
            out.write(k);
            varint(bytes.length);
            out.write(bytes);
            int n = defined[k]++;
            fileIds[k].put(name, n);
            if (k == K_MSG) {
                released.add(false);
            }
            return n;
        }

        String varName(int op, int a, int b) {
            switch (op & (3 << 8)) {
                case STATIC: return Names.get(a);
                case FIELD: return Names.get(a) + "@" + b;
                case ELEM: return Ids.name(b) + "[" + a + "]";
                default: return Ids.name(b);
            }
        }

        int var(int op, int a, int b) throws IOException {
            // Bit 63 set: never the zero key of an empty slot.
            long key = (1L << 63) | ((long) ((op >> 8) & 3) << 61) | ((long) (b & 0x1fffffff) << 32)
                    | (a & 0xffffffffL);
            int slot = (int) ((key * 0x9E3779B97F4A7C15L) >>> 52);
            if (varKeys[slot] == key) {
                return varVals[slot];
            }
            Integer id = varIds.get(key);
            if (id == null) {
                id = def(K_VAR, varName(op, a, b));
                varIds.put(key, id);
            }
            varKeys[slot] = key;
            varVals[slot] = id;
            return id;
        }

        static int[] fit(int[] table, int i) {
            if (i < table.length) {
                return table;
            }
            return java.util.Arrays.copyOf(table, Math.max(table.length * 2, i + 1));
        }

        int lock(int obj) throws IOException {
            lockIds = fit(lockIds, obj);
            if (lockIds[obj] == 0) {
                lockIds[obj] = def(K_LOCK, Ids.name(obj)) + 1;
            }
            return lockIds[obj] - 1;
        }

        int thread(int tid) throws IOException {
            threadIds = fit(threadIds, tid);
            if (threadIds[tid] == 0) {
                threadIds[tid] = def(K_THREAD, threadName(tid)) + 1;
            }
            return threadIds[tid] - 1;
        }

        int loc(int l) throws IOException {
            locIds = fit(locIds, l);
            if (locIds[l] == 0) {
                locIds[l] = def(K_LOC, Names.get(l)) + 1;
            }
            return locIds[l] - 1;
        }

        /** One event: its operand (if any) is already defined. */
        void emit(int tid, int code, int operand, int loc) throws IOException {
            int t = thread(tid);
            int l = loc >= 0 ? loc(loc) : -1;
            boolean newThread = t != thread;
            out.write(code | (newThread ? 0x80 : 0) | (l >= 0 ? 0x40 : 0));
            if (newThread) {
                varint(t);
                thread = t;
            }
            if (operand >= 0) {
                varint(operand);
            }
            if (l >= 0) {
                varint(l);
            }
            events++;
        }

        void send(int tid, int m, int loc) throws IOException {
            if (noMessages) {
                return;
            }
            emit(tid, OP_SND, m, loc);
            released.set(m, true);
        }

        /** A receive, written only where a send of the message came before (a rule of traces). */
        void receive(int tid, int m, int loc) throws IOException {
            if (released.get(m)) {
                emit(tid, OP_RCV, m, loc);
            }
        }

        long lastDepthKey = -1;
        int[] lastDepth;

        int[] depthOf(int tid, int obj) {
            long key = ((long) tid << 32) | (obj & 0xffffffffL);
            if (key != lastDepthKey) {
                lastDepth = depth.computeIfAbsent(key, k -> new int[2]);
                lastDepthKey = key;
            }
            return lastDepth;
        }

        void event(int tid, int op, int a, int b, int loc, Object call) throws IOException {
            int code = op & 0xff;
            switch (code) {
                case READ: emit(tid, OP_READ, var(op, a, b), loc); break;
                case WRITE: emit(tid, OP_WRITE, var(op, a, b), loc); break;
                case ALOAD: emit(tid, OP_ALOAD, var(op, a, b), loc); break;
                case ALOAD_ACQ: {
                    int x = var(op, a, b);
                    receive(tid, def(K_MSG, varName(op, a, b)), loc);
                    emit(tid, OP_ALOAD, x, loc);
                    break;
                }
                case ASTORE: {
                    int x = var(op, a, b);
                    emit(tid, OP_ASTORE, x, loc);
                    // A plain store ends the release sequence: later acquires read no release.
                    Integer m = fileIds[K_MSG].get(varName(op, a, b));
                    if (m != null) {
                        released.set(m, false);
                    }
                    break;
                }
                case ASTORE_REL: {
                    int x = var(op, a, b);
                    emit(tid, OP_ASTORE, x, loc);
                    send(tid, def(K_MSG, varName(op, a, b)), loc);
                    break;
                }
                case RMW: emit(tid, OP_RMW, var(op, a, b), loc); break;
                case RMW_ACQREL: {
                    int x = var(op, a, b);
                    int m = def(K_MSG, varName(op, a, b));
                    receive(tid, m, loc);
                    emit(tid, OP_RMW, x, loc);
                    send(tid, m, loc);
                    break;
                }
                case ACQ: {
                    if (noLocks) {
                        break;
                    }
                    int[] d = depthOf(tid, b);
                    if (d[0]++ == 0) {
                        emit(tid, OP_ACQ, lock(b), loc);
                    }
                    break;
                }
                case REL: {
                    if (noLocks) {
                        break;
                    }
                    int[] d = depthOf(tid, b);
                    if (d[0] > 0 && --d[0] == 0) {
                        emit(tid, OP_REL, lock(b), loc);
                    }
                    break;
                }
                case WAIT: {
                    // Object.wait gives the monitor up whatever its depth, and takes it back.
                    int[] d = depthOf(tid, b);
                    if (d[0] > 0) {
                        d[1] = d[0];
                        d[0] = 0;
                        emit(tid, OP_REL, lock(b), loc);
                    }
                    break;
                }
                case WAKE: {
                    int[] d = depthOf(tid, b);
                    if (d[1] > 0 && d[0] == 0) {
                        d[0] = d[1];
                        d[1] = 0;
                        emit(tid, OP_ACQ, lock(b), loc);
                    }
                    break;
                }
                case FORK: emit(tid, OP_FORK, thread(a), loc); break;
                case JOIN: emit(tid, OP_JOIN, thread(a), loc); break;
                case SND: send(tid, def(K_MSG, Names.get(a)), loc); break;
                case RCV: receive(tid, def(K_MSG, Names.get(a)), loc); break;
                case SND_GROUP: {
                    HashMap<Integer, Integer> g = groups.computeIfAbsent(b, k -> new HashMap<>());
                    Integer m = g.get(tid);
                    if (m == null) {
                        m = def(K_MSG, Ids.name(b) + "." + threadName(tid));
                        g.put(tid, m);
                    }
                    send(tid, m, loc);
                    break;
                }
                case RCV_ALL: {
                    HashMap<Integer, Integer> g = groups.get(b);
                    if (g != null) {
                        for (Integer m : g.values().toArray(new Integer[0])) {
                            receive(tid, m, loc);
                        }
                    }
                    break;
                }
                case RACQ: {
                    receive(tid, def(K_MSG, Ids.name(b) + ".w"), loc);
                    break;
                }
                case RREL: {
                    // A reader sends its own message, which the next writer receives.
                    event(tid, SND_GROUP, 0, b, loc, null);
                    break;
                }
                case WACQ: {
                    if (!noLocks) {
                        emit(tid, OP_ACQ, lock(b), loc);
                    }
                    event(tid, RCV_ALL, 0, b, loc, null);
                    break;
                }
                case WREL: {
                    send(tid, def(K_MSG, Ids.name(b) + ".w"), loc);
                    if (!noLocks) {
                        emit(tid, OP_REL, lock(b), loc);
                    }
                    break;
                }
                case BEGIN: emit(tid, OP_BEGIN_LABEL, def(K_SYM, Names.get(a)), loc); break;
                case END: emit(tid, OP_END, -1, loc); break;
                case CALL: writeCall(tid, (Object[]) call, loc); break;
                default: throw new IllegalStateException("operation " + op);
            }
        }

        /** {@code call = {map id, method, args Object[], results Object[]}}. */
        void writeCall(int tid, Object[] call, int loc) throws IOException {
            int obj = def(K_OBJ, Ids.name((Integer) call[0]));
            int method = def(K_SYM, (String) call[1]);
            Object[] args = (Object[]) call[2];
            Object[] results = (Object[]) call[3];
            // Symbols and strings the values name are defined before the record.
            int[][] enc = new int[2][];
            Object[][] lists = {args, results};
            for (int j = 0; j < 2; j++) {
                enc[j] = new int[lists[j].length];
                for (int i = 0; i < lists[j].length; i++) {
                    Object v = lists[j][i];
                    if (v instanceof String) {
                        enc[j][i] = def(K_SYM, (String) v);
                    } else if (v instanceof Sym) {
                        enc[j][i] = def(K_SYM, ((Sym) v).name);
                    }
                }
            }
            int t = thread(tid);
            int l = loc >= 0 ? loc(loc) : -1;
            boolean newThread = t != thread;
            out.write(OP_CALL | (newThread ? 0x80 : 0) | (l >= 0 ? 0x40 : 0));
            if (newThread) {
                varint(t);
                thread = t;
            }
            varint(obj);
            varint(method);
            for (int j = 0; j < 2; j++) {
                varint(lists[j].length);
                for (int i = 0; i < lists[j].length; i++) {
                    Object v = lists[j][i];
                    if (v == null) {
                        out.write(1);
                    } else if (v instanceof Long) {
                        long x = (Long) v;
                        out.write(0);
                        varint((x << 1) ^ (x >> 63));
                    } else if (v instanceof String) {
                        out.write(3);
                        varint(enc[j][i]);
                    } else {
                        out.write(2);
                        varint(enc[j][i]);
                    }
                }
            }
            if (l >= 0) {
                varint(l);
            }
            events++;
        }

        void finish() throws IOException {
            out.write(0x1f);
            varint(events);
            out.close();
        }
    }

    /** An unsynchronized buffered file output (only the draining thread writes). */
    static final class Out {
        final FileOutputStream file;
        final byte[] buf = new byte[1 << 16];
        int pos;

        Out(FileOutputStream file) {
            this.file = file;
        }

        void write(int b) throws IOException {
            if (pos == buf.length) {
                flush();
            }
            buf[pos++] = (byte) b;
        }

        void write(byte[] bytes) throws IOException {
            for (byte x : bytes) {
                write(x);
            }
        }

        void flush() throws IOException {
            file.write(buf, 0, pos);
            pos = 0;
        }

        void close() throws IOException {
            flush();
            file.close();
        }
    }

    /** A bare identifier as a call value ({@code true}, an enum constant, an object's name). */
    static final class Sym {
        final String name;

        Sym(String name) {
            this.name = name;
        }
    }
}
