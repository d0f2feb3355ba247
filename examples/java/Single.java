// One thread, deterministic: recorded twice, the traces are byte-identical.
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

public class Single {
    int[] cells = new int[4];
    volatile int version;
    final AtomicInteger ops = new AtomicInteger();
    final ConcurrentHashMap<Integer, String> names = new ConcurrentHashMap<>();

    synchronized void put(int i, int v) {
        touch(i);
        cells[i] = v;
        version++;
        ops.incrementAndGet();
        names.put(i, "v" + v);
    }

    /** Re-entered from put: the trace keeps only put's outermost acquire and release. */
    synchronized void touch(int i) {
        synchronized (this) {
            cells[i]++;
        }
    }

    public static void main(String[] args) {
        Single s = new Single();
        for (int i = 0; i < 4; i++) {
            s.put(i, i * i);
        }
        System.out.println(s.version + " " + s.ops.get() + " " + s.names.size());
    }
}
