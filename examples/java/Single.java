// One thread, deterministic: recorded twice, the traces are byte-identical.
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

public class Single {
    int[] cells = new int[4];
    volatile int version;
    final AtomicInteger ops = new AtomicInteger();
    final ConcurrentHashMap<Integer, String> names = new ConcurrentHashMap<>();

    synchronized void put(int i, int v) {
        cells[i] = v;
        version++;
        ops.incrementAndGet();
        names.put(i, "v" + v);
    }

    public static void main(String[] args) {
        Single s = new Single();
        for (int i = 0; i < 4; i++) {
            s.put(i, i * i);
        }
        System.out.println(s.version + " " + s.ops.get() + " " + s.names.size());
    }
}
