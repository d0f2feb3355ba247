package hindsight.rt;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The helpers that replace calls on {@code java.util.concurrent.atomic}'s scalar classes:
 * {@code Class_method(receiver, args..., loc)}. Each runs the operation and records it under
 * the object's stripe lock ({@link R#alock}, {@link R#vdone}), so the trace order of the
 * operations on one atomic is their real order and each acquire receives the release it
 * read. A failed compare-and-set is a load (it has a volatile read's effect). Generated from
 * one table (the array classes' operations act on one element, each its own variable); the functional updates ({@code updateAndGet}, ...) run application code and are
 * not modelled (docs/java.md).
 */
public final class Atomics {
    private Atomics() {}

    public static int AtomicInteger_get(AtomicInteger o, int loc) {
        R.alock(o);
        try { return o.get(); } finally { R.vdone(R.A_LOAD, loc); }
    }

    public static int AtomicInteger_getAcquire(AtomicInteger o, int loc) {
        R.alock(o);
        try { return o.getAcquire(); } finally { R.vdone(R.A_LOAD, loc); }
    }

    public static int AtomicInteger_getPlain(AtomicInteger o, int loc) {
        R.alock(o);
        try { return o.getPlain(); } finally { R.vdone(R.A_LOAD_PLAIN, loc); }
    }

    public static int AtomicInteger_getOpaque(AtomicInteger o, int loc) {
        R.alock(o);
        try { return o.getOpaque(); } finally { R.vdone(R.A_LOAD_PLAIN, loc); }
    }

    public static void AtomicInteger_set(AtomicInteger o, int v, int loc) {
        R.alock(o);
        try { o.set(v); } finally { R.vdone(R.A_STORE, loc); }
    }

    public static void AtomicInteger_lazySet(AtomicInteger o, int v, int loc) {
        R.alock(o);
        try { o.lazySet(v); } finally { R.vdone(R.A_STORE, loc); }
    }

    public static void AtomicInteger_setRelease(AtomicInteger o, int v, int loc) {
        R.alock(o);
        try { o.setRelease(v); } finally { R.vdone(R.A_STORE, loc); }
    }

    public static void AtomicInteger_setPlain(AtomicInteger o, int v, int loc) {
        R.alock(o);
        try { o.setPlain(v); } finally { R.vdone(R.A_STORE_PLAIN, loc); }
    }

    public static void AtomicInteger_setOpaque(AtomicInteger o, int v, int loc) {
        R.alock(o);
        try { o.setOpaque(v); } finally { R.vdone(R.A_STORE_PLAIN, loc); }
    }

    public static int AtomicInteger_getAndSet(AtomicInteger o, int v, int loc) {
        R.alock(o);
        try { return o.getAndSet(v); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static boolean AtomicInteger_compareAndSet(AtomicInteger o, int e, int u, int loc) {
        R.alock(o);
        boolean r = false; try { r = o.compareAndSet(e, u); return r; } finally { R.vdone(r ? R.A_RMW : R.A_LOAD, loc); }
    }

    public static boolean AtomicInteger_weakCompareAndSetVolatile(AtomicInteger o, int e, int u, int loc) {
        R.alock(o);
        boolean r = false; try { r = o.weakCompareAndSetVolatile(e, u); return r; } finally { R.vdone(r ? R.A_RMW : R.A_LOAD, loc); }
    }

    public static int AtomicInteger_intValue(AtomicInteger o, int loc) {
        R.alock(o);
        try { return o.intValue(); } finally { R.vdone(R.A_LOAD, loc); }
    }

    public static long AtomicInteger_longValue(AtomicInteger o, int loc) {
        R.alock(o);
        try { return o.longValue(); } finally { R.vdone(R.A_LOAD, loc); }
    }

    public static int AtomicInteger_getAndIncrement(AtomicInteger o, int loc) {
        R.alock(o);
        try { return o.getAndIncrement(); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static int AtomicInteger_getAndDecrement(AtomicInteger o, int loc) {
        R.alock(o);
        try { return o.getAndDecrement(); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static int AtomicInteger_incrementAndGet(AtomicInteger o, int loc) {
        R.alock(o);
        try { return o.incrementAndGet(); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static int AtomicInteger_decrementAndGet(AtomicInteger o, int loc) {
        R.alock(o);
        try { return o.decrementAndGet(); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static int AtomicInteger_getAndAdd(AtomicInteger o, int d, int loc) {
        R.alock(o);
        try { return o.getAndAdd(d); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static int AtomicInteger_addAndGet(AtomicInteger o, int d, int loc) {
        R.alock(o);
        try { return o.addAndGet(d); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static long AtomicLong_get(AtomicLong o, int loc) {
        R.alock(o);
        try { return o.get(); } finally { R.vdone(R.A_LOAD, loc); }
    }

    public static long AtomicLong_getAcquire(AtomicLong o, int loc) {
        R.alock(o);
        try { return o.getAcquire(); } finally { R.vdone(R.A_LOAD, loc); }
    }

    public static long AtomicLong_getPlain(AtomicLong o, int loc) {
        R.alock(o);
        try { return o.getPlain(); } finally { R.vdone(R.A_LOAD_PLAIN, loc); }
    }

    public static long AtomicLong_getOpaque(AtomicLong o, int loc) {
        R.alock(o);
        try { return o.getOpaque(); } finally { R.vdone(R.A_LOAD_PLAIN, loc); }
    }

    public static void AtomicLong_set(AtomicLong o, long v, int loc) {
        R.alock(o);
        try { o.set(v); } finally { R.vdone(R.A_STORE, loc); }
    }

    public static void AtomicLong_lazySet(AtomicLong o, long v, int loc) {
        R.alock(o);
        try { o.lazySet(v); } finally { R.vdone(R.A_STORE, loc); }
    }

    public static void AtomicLong_setRelease(AtomicLong o, long v, int loc) {
        R.alock(o);
        try { o.setRelease(v); } finally { R.vdone(R.A_STORE, loc); }
    }

    public static void AtomicLong_setPlain(AtomicLong o, long v, int loc) {
        R.alock(o);
        try { o.setPlain(v); } finally { R.vdone(R.A_STORE_PLAIN, loc); }
    }

    public static void AtomicLong_setOpaque(AtomicLong o, long v, int loc) {
        R.alock(o);
        try { o.setOpaque(v); } finally { R.vdone(R.A_STORE_PLAIN, loc); }
    }

    public static long AtomicLong_getAndSet(AtomicLong o, long v, int loc) {
        R.alock(o);
        try { return o.getAndSet(v); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static boolean AtomicLong_compareAndSet(AtomicLong o, long e, long u, int loc) {
        R.alock(o);
        boolean r = false; try { r = o.compareAndSet(e, u); return r; } finally { R.vdone(r ? R.A_RMW : R.A_LOAD, loc); }
    }

    public static boolean AtomicLong_weakCompareAndSetVolatile(AtomicLong o, long e, long u, int loc) {
        R.alock(o);
        boolean r = false; try { r = o.weakCompareAndSetVolatile(e, u); return r; } finally { R.vdone(r ? R.A_RMW : R.A_LOAD, loc); }
    }

    public static long AtomicLong_longValue(AtomicLong o, int loc) {
        R.alock(o);
        try { return o.longValue(); } finally { R.vdone(R.A_LOAD, loc); }
    }

    public static long AtomicLong_getAndIncrement(AtomicLong o, int loc) {
        R.alock(o);
        try { return o.getAndIncrement(); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static long AtomicLong_getAndDecrement(AtomicLong o, int loc) {
        R.alock(o);
        try { return o.getAndDecrement(); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static long AtomicLong_incrementAndGet(AtomicLong o, int loc) {
        R.alock(o);
        try { return o.incrementAndGet(); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static long AtomicLong_decrementAndGet(AtomicLong o, int loc) {
        R.alock(o);
        try { return o.decrementAndGet(); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static long AtomicLong_getAndAdd(AtomicLong o, long d, int loc) {
        R.alock(o);
        try { return o.getAndAdd(d); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static long AtomicLong_addAndGet(AtomicLong o, long d, int loc) {
        R.alock(o);
        try { return o.addAndGet(d); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static boolean AtomicBoolean_get(AtomicBoolean o, int loc) {
        R.alock(o);
        try { return o.get(); } finally { R.vdone(R.A_LOAD, loc); }
    }

    public static boolean AtomicBoolean_getAcquire(AtomicBoolean o, int loc) {
        R.alock(o);
        try { return o.getAcquire(); } finally { R.vdone(R.A_LOAD, loc); }
    }

    public static boolean AtomicBoolean_getPlain(AtomicBoolean o, int loc) {
        R.alock(o);
        try { return o.getPlain(); } finally { R.vdone(R.A_LOAD_PLAIN, loc); }
    }

    public static boolean AtomicBoolean_getOpaque(AtomicBoolean o, int loc) {
        R.alock(o);
        try { return o.getOpaque(); } finally { R.vdone(R.A_LOAD_PLAIN, loc); }
    }

    public static void AtomicBoolean_set(AtomicBoolean o, boolean v, int loc) {
        R.alock(o);
        try { o.set(v); } finally { R.vdone(R.A_STORE, loc); }
    }

    public static void AtomicBoolean_lazySet(AtomicBoolean o, boolean v, int loc) {
        R.alock(o);
        try { o.lazySet(v); } finally { R.vdone(R.A_STORE, loc); }
    }

    public static void AtomicBoolean_setRelease(AtomicBoolean o, boolean v, int loc) {
        R.alock(o);
        try { o.setRelease(v); } finally { R.vdone(R.A_STORE, loc); }
    }

    public static void AtomicBoolean_setPlain(AtomicBoolean o, boolean v, int loc) {
        R.alock(o);
        try { o.setPlain(v); } finally { R.vdone(R.A_STORE_PLAIN, loc); }
    }

    public static void AtomicBoolean_setOpaque(AtomicBoolean o, boolean v, int loc) {
        R.alock(o);
        try { o.setOpaque(v); } finally { R.vdone(R.A_STORE_PLAIN, loc); }
    }

    public static boolean AtomicBoolean_getAndSet(AtomicBoolean o, boolean v, int loc) {
        R.alock(o);
        try { return o.getAndSet(v); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static boolean AtomicBoolean_compareAndSet(AtomicBoolean o, boolean e, boolean u, int loc) {
        R.alock(o);
        boolean r = false; try { r = o.compareAndSet(e, u); return r; } finally { R.vdone(r ? R.A_RMW : R.A_LOAD, loc); }
    }

    public static boolean AtomicBoolean_weakCompareAndSetVolatile(AtomicBoolean o, boolean e, boolean u, int loc) {
        R.alock(o);
        boolean r = false; try { r = o.weakCompareAndSetVolatile(e, u); return r; } finally { R.vdone(r ? R.A_RMW : R.A_LOAD, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static Object AtomicReference_get(AtomicReference o, int loc) {
        R.alock(o);
        try { return o.get(); } finally { R.vdone(R.A_LOAD, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static Object AtomicReference_getAcquire(AtomicReference o, int loc) {
        R.alock(o);
        try { return o.getAcquire(); } finally { R.vdone(R.A_LOAD, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static Object AtomicReference_getPlain(AtomicReference o, int loc) {
        R.alock(o);
        try { return o.getPlain(); } finally { R.vdone(R.A_LOAD_PLAIN, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static Object AtomicReference_getOpaque(AtomicReference o, int loc) {
        R.alock(o);
        try { return o.getOpaque(); } finally { R.vdone(R.A_LOAD_PLAIN, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static void AtomicReference_set(AtomicReference o, Object v, int loc) {
        R.alock(o);
        try { o.set(v); } finally { R.vdone(R.A_STORE, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static void AtomicReference_lazySet(AtomicReference o, Object v, int loc) {
        R.alock(o);
        try { o.lazySet(v); } finally { R.vdone(R.A_STORE, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static void AtomicReference_setRelease(AtomicReference o, Object v, int loc) {
        R.alock(o);
        try { o.setRelease(v); } finally { R.vdone(R.A_STORE, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static void AtomicReference_setPlain(AtomicReference o, Object v, int loc) {
        R.alock(o);
        try { o.setPlain(v); } finally { R.vdone(R.A_STORE_PLAIN, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static void AtomicReference_setOpaque(AtomicReference o, Object v, int loc) {
        R.alock(o);
        try { o.setOpaque(v); } finally { R.vdone(R.A_STORE_PLAIN, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static Object AtomicReference_getAndSet(AtomicReference o, Object v, int loc) {
        R.alock(o);
        try { return o.getAndSet(v); } finally { R.vdone(R.A_RMW, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static boolean AtomicReference_compareAndSet(AtomicReference o, Object e, Object u, int loc) {
        R.alock(o);
        boolean r = false; try { r = o.compareAndSet(e, u); return r; } finally { R.vdone(r ? R.A_RMW : R.A_LOAD, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static boolean AtomicReference_weakCompareAndSetVolatile(AtomicReference o, Object e, Object u, int loc) {
        R.alock(o);
        boolean r = false; try { r = o.weakCompareAndSetVolatile(e, u); return r; } finally { R.vdone(r ? R.A_RMW : R.A_LOAD, loc); }
    }

    public static int AtomicIntegerArray_get(AtomicIntegerArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.get(i); } finally { R.vdone(R.A_LOAD, loc); }
    }

    public static int AtomicIntegerArray_getAcquire(AtomicIntegerArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.getAcquire(i); } finally { R.vdone(R.A_LOAD, loc); }
    }

    public static int AtomicIntegerArray_getPlain(AtomicIntegerArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.getPlain(i); } finally { R.vdone(R.A_LOAD_PLAIN, loc); }
    }

    public static void AtomicIntegerArray_set(AtomicIntegerArray o, int i, int v, int loc) {
        R.alock(o, i);
        try { o.set(i, v); } finally { R.vdone(R.A_STORE, loc); }
    }

    public static void AtomicIntegerArray_lazySet(AtomicIntegerArray o, int i, int v, int loc) {
        R.alock(o, i);
        try { o.lazySet(i, v); } finally { R.vdone(R.A_STORE, loc); }
    }

    public static void AtomicIntegerArray_setRelease(AtomicIntegerArray o, int i, int v, int loc) {
        R.alock(o, i);
        try { o.setRelease(i, v); } finally { R.vdone(R.A_STORE, loc); }
    }

    public static void AtomicIntegerArray_setPlain(AtomicIntegerArray o, int i, int v, int loc) {
        R.alock(o, i);
        try { o.setPlain(i, v); } finally { R.vdone(R.A_STORE_PLAIN, loc); }
    }

    public static int AtomicIntegerArray_getAndSet(AtomicIntegerArray o, int i, int v, int loc) {
        R.alock(o, i);
        try { return o.getAndSet(i, v); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static boolean AtomicIntegerArray_compareAndSet(AtomicIntegerArray o, int i, int e, int u, int loc) {
        R.alock(o, i);
        boolean r = false; try { r = o.compareAndSet(i, e, u); return r; } finally { R.vdone(r ? R.A_RMW : R.A_LOAD, loc); }
    }

    public static int AtomicIntegerArray_getAndIncrement(AtomicIntegerArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.getAndIncrement(i); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static int AtomicIntegerArray_getAndDecrement(AtomicIntegerArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.getAndDecrement(i); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static int AtomicIntegerArray_incrementAndGet(AtomicIntegerArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.incrementAndGet(i); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static int AtomicIntegerArray_decrementAndGet(AtomicIntegerArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.decrementAndGet(i); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static int AtomicIntegerArray_getAndAdd(AtomicIntegerArray o, int i, int d, int loc) {
        R.alock(o, i);
        try { return o.getAndAdd(i, d); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static int AtomicIntegerArray_addAndGet(AtomicIntegerArray o, int i, int d, int loc) {
        R.alock(o, i);
        try { return o.addAndGet(i, d); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static long AtomicLongArray_get(AtomicLongArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.get(i); } finally { R.vdone(R.A_LOAD, loc); }
    }

    public static long AtomicLongArray_getAcquire(AtomicLongArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.getAcquire(i); } finally { R.vdone(R.A_LOAD, loc); }
    }

    public static long AtomicLongArray_getPlain(AtomicLongArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.getPlain(i); } finally { R.vdone(R.A_LOAD_PLAIN, loc); }
    }

    public static void AtomicLongArray_set(AtomicLongArray o, int i, long v, int loc) {
        R.alock(o, i);
        try { o.set(i, v); } finally { R.vdone(R.A_STORE, loc); }
    }

    public static void AtomicLongArray_lazySet(AtomicLongArray o, int i, long v, int loc) {
        R.alock(o, i);
        try { o.lazySet(i, v); } finally { R.vdone(R.A_STORE, loc); }
    }

    public static void AtomicLongArray_setRelease(AtomicLongArray o, int i, long v, int loc) {
        R.alock(o, i);
        try { o.setRelease(i, v); } finally { R.vdone(R.A_STORE, loc); }
    }

    public static void AtomicLongArray_setPlain(AtomicLongArray o, int i, long v, int loc) {
        R.alock(o, i);
        try { o.setPlain(i, v); } finally { R.vdone(R.A_STORE_PLAIN, loc); }
    }

    public static long AtomicLongArray_getAndSet(AtomicLongArray o, int i, long v, int loc) {
        R.alock(o, i);
        try { return o.getAndSet(i, v); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static boolean AtomicLongArray_compareAndSet(AtomicLongArray o, int i, long e, long u, int loc) {
        R.alock(o, i);
        boolean r = false; try { r = o.compareAndSet(i, e, u); return r; } finally { R.vdone(r ? R.A_RMW : R.A_LOAD, loc); }
    }

    public static long AtomicLongArray_getAndIncrement(AtomicLongArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.getAndIncrement(i); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static long AtomicLongArray_getAndDecrement(AtomicLongArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.getAndDecrement(i); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static long AtomicLongArray_incrementAndGet(AtomicLongArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.incrementAndGet(i); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static long AtomicLongArray_decrementAndGet(AtomicLongArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.decrementAndGet(i); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static long AtomicLongArray_getAndAdd(AtomicLongArray o, int i, long d, int loc) {
        R.alock(o, i);
        try { return o.getAndAdd(i, d); } finally { R.vdone(R.A_RMW, loc); }
    }

    public static long AtomicLongArray_addAndGet(AtomicLongArray o, int i, long d, int loc) {
        R.alock(o, i);
        try { return o.addAndGet(i, d); } finally { R.vdone(R.A_RMW, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static Object AtomicReferenceArray_get(AtomicReferenceArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.get(i); } finally { R.vdone(R.A_LOAD, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static Object AtomicReferenceArray_getAcquire(AtomicReferenceArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.getAcquire(i); } finally { R.vdone(R.A_LOAD, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static Object AtomicReferenceArray_getPlain(AtomicReferenceArray o, int i, int loc) {
        R.alock(o, i);
        try { return o.getPlain(i); } finally { R.vdone(R.A_LOAD_PLAIN, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static void AtomicReferenceArray_set(AtomicReferenceArray o, int i, Object v, int loc) {
        R.alock(o, i);
        try { o.set(i, v); } finally { R.vdone(R.A_STORE, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static void AtomicReferenceArray_lazySet(AtomicReferenceArray o, int i, Object v, int loc) {
        R.alock(o, i);
        try { o.lazySet(i, v); } finally { R.vdone(R.A_STORE, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static void AtomicReferenceArray_setRelease(AtomicReferenceArray o, int i, Object v, int loc) {
        R.alock(o, i);
        try { o.setRelease(i, v); } finally { R.vdone(R.A_STORE, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static void AtomicReferenceArray_setPlain(AtomicReferenceArray o, int i, Object v, int loc) {
        R.alock(o, i);
        try { o.setPlain(i, v); } finally { R.vdone(R.A_STORE_PLAIN, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static Object AtomicReferenceArray_getAndSet(AtomicReferenceArray o, int i, Object v, int loc) {
        R.alock(o, i);
        try { return o.getAndSet(i, v); } finally { R.vdone(R.A_RMW, loc); }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) public static boolean AtomicReferenceArray_compareAndSet(AtomicReferenceArray o, int i, Object e, Object u, int loc) {
        R.alock(o, i);
        boolean r = false; try { r = o.compareAndSet(i, e, u); return r; } finally { R.vdone(r ? R.A_RMW : R.A_LOAD, loc); }
    }
}
