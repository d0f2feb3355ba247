// Counters and ConcurrentHashMap's atomic methods in the shapes found in public Java
// projects, written for this corpus after the cited patterns (not copied); format as in
// Caches.java.
package corpus.counters;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

public class Counters<T> {
    private final ConcurrentHashMap<String, Long> words = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<T, AtomicInteger> atomics = new ConcurrentHashMap<T, AtomicInteger>();
    private final ConcurrentHashMap<String, LongAdder> adders = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Integer> scores = new ConcurrentHashMap<>();
    private int total;

    // Pattern: undergrowthlinear/2016MyBookSummary .../java8ForImpatient/ch6/sec02/
    // UpdatingValues.java (the "Error - might not replace oldValue" line): get, then put of
    // the incremented value. Witness: get(1) -> null; env put(1, 1000); put(1, 1) -> 1000:
    // the environment's update is lost.
    // expect: SCM not-linearizable
    public void countNaive(String word) {
        Long oldValue = words.get(word);
        Long newValue = oldValue == null ? 1 : oldValue + 1;
        words.put(word, newValue);
    }

    // Same source, the do/while retry with replace(k, old, new): replace after get with the
    // value get returned, a VCM; but the key may be absent, and replace(k, null, v) throws
    // NullPointerException in ConcurrentHashMap, which no atomic increment does.
    // Witness: get(1) -> null; replace(1, null, 1) throws NullPointerException, the same
    // exception the operation throws when run alone from {}: it is linearizable as written
    // (it always throws on an absent key).
    // expect: VCM linearizable
    public void countRetry(String word) {
        Long oldValue;
        Long newValue;
        do {
            oldValue = words.get(word);
            newValue = oldValue == null ? 1 : oldValue + 1;
        } while (!words.replace(word, oldValue, newValue));
    }

    // Same source: `compute` with a lambda that increments: one atomic step, and a second
    // read of the result: an update between them is visible. Witness: compute(1, ..) -> 1;
    // env put(1, 1000); get(1) -> 1000.
    // expect: SCM not-linearizable
    public Long countAndRead(String word) {
        words.compute(word, (k, v) -> v == null ? 1 : v + 1);
        return words.get(word);
    }

    // Same source: merge with an adding function, then getOrDefault: as above, the second read
    // is a separate step. Witness: merge(1, 1, ..) -> 1; env remove(1); getOrDefault(1, 0)
    // -> 0.
    // expect: SCM not-linearizable
    public Long mergeAndRead(String word) {
        words.merge(word, 1L, (existingValue, newValue2) -> existingValue + newValue2);
        return words.getOrDefault(word, 0L);
    }

    // Pattern: GenVector/untitled src/thread/collections.java: compute only, its result
    // returned, with a read before it for a log line: one update, justified by its own state.
    // expect: SCM linearizable
    public Long countLogged(String word) {
        Long before = words.get(word);
        return words.compute(word, (k, v) -> v == null ? 1 : v + 1);
    }

    // Pattern: FindBugs's bugIdeas Ideas_2009_04_16.java (getCounter): get, create on a miss,
    // putIfAbsent ignoring its result: returns a counter the map may not hold. Witness:
    // get(1) -> null; env put(1, 1000); putIfAbsent(1, new AtomicInteger()) -> 1000;
    // returns its own counter.
    // expect: SCM not-linearizable
    AtomicInteger getCounter(T t) {
        AtomicInteger value = atomics.get(t);
        if (value == null) {
            value = new AtomicInteger();
            atomics.putIfAbsent(t, value);
        }
        return value;
    }

    // The fixed getCounter, then used: the increment is a call on the returned counter, an
    // effect outside the map; the map part is the putIfAbsent pattern.
    // expect: SCM linearizable
    AtomicInteger getCounterFixed(T t) {
        AtomicInteger value = atomics.get(t);
        if (value == null) {
            AtomicInteger created = new AtomicInteger();
            value = atomics.putIfAbsent(t, created);
            if (value == null) {
                value = created;
            }
        }
        value.incrementAndGet();
        return value;
    }

    // Pattern: the LongAdder idiom of the same UpdatingValues.java: putIfAbsent then get and
    // increment: a remove between them makes get return null (NullPointerException on the
    // increment), which no atomic run throws after inserting.
    // expect: SCM not-linearizable
    public void add(String word) {
        adders.putIfAbsent(word, new LongAdder());
        adders.get(word).increment();
    }

    // The idiom's fix: computeIfAbsent's result, one map call: not a composed operation, so
    // it is not reported. Used twice (count then read), it is:
    // expect: SCM not-linearizable
    public long addAndSum(String word) {
        adders.computeIfAbsent(word, k -> new LongAdder()).increment();
        return adders.get(word).sum();
    }

    // A lambda with an effect on other state: `total++` inside the function writes a field;
    // an assignment inside an expression is not modelled, so the operation is unsupported.
    // expect: SCM unsupported
    public Integer scoreAndCount(String player) {
        Integer s = scores.computeIfAbsent(player, p -> total++);
        return scores.get(player);
    }

    // A merge whose function can give null (removing the entry) depending on the value held:
    // Fig. 11 "Remove". The bounded check finds the remove between merge and get.
    // expect: data-dependent not-proved
    // reasons: Remove
    // bounded: not-linearizable
    public Integer decrement(String player) {
        scores.merge(player, 1, (a, b) -> a - b == 0 ? null : a - b);
        return scores.get(player);
    }

    // A merge whose function is a method reference (Integer::sum), then a read: the function
    // is not seen (its result is unknown), which the report says; the read after it is a
    // separate step. Witness as for mergeAndRead.
    // expect: SCM not-linearizable
    public Integer addScore(String player, Integer points) {
        scores.merge(player, points, Integer::sum);
        return scores.get(player);
    }
}
