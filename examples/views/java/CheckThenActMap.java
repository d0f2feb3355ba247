// expect: high-level-race 0, stale-value 1
// finding: stale-value Cache.table[]
// Check-then-act on a synchronized collection (after the pattern of
// vkarikov/concurrency src/main/java/race/CheckThanActRaceConditionSynchronized.java, which
// makes the whole check-then-act one synchronized method): here `Hashtable` makes each call
// atomic on its own (`synchronized` in the models table), so containsKey() and put() are two
// regions; put() runs because containsKey() said no, and another thread can put in between:
// stale value of the table's contents. The safe variant does both in one synchronized method
// and gives nothing.
import java.util.Hashtable;

class Cache {
    private final Hashtable<String, Integer> table = new Hashtable<>();
    private final Hashtable<String, Integer> safe = new Hashtable<>();

    void remember(String k, int v) {
        if (!table.containsKey(k)) {
            table.put(k, v);
        }
    }

    synchronized void rememberSafely(String k, int v) {
        if (!safe.containsKey(k)) {
            safe.put(k, v);
        }
    }
}

public class CheckThenActMap {
    public static void main(String[] args) throws InterruptedException {
        Cache c = new Cache();
        Thread a = new Thread(() -> {
            c.remember("k", 1);
            c.rememberSafely("k", 1);
        });
        Thread b = new Thread(() -> {
            c.remember("k", 2);
            c.rememberSafely("k", 2);
        });
        a.start();
        b.start();
        a.join();
        b.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
// Dynamic (recorded run): nothing. `Hashtable` is JDK code, which the agent does not instrument,
// and the agent models no `Hashtable` call (only `ConcurrentHashMap`'s, for `commute`): the
// trace has no region and no variable for the table's contents. The agent records JDK state
// through fields for the models table's lists, sets, builders, sockets and streams, not for
// maps, whose calls are the map model's (`commute`'s vocabulary).
