// Loop with an AtomicLong: atomics never race.
import java.util.concurrent.atomic.AtomicLong;

public class LoopFixed {
    static final AtomicLong total = new AtomicLong();

    public static void main(String[] args) throws Exception {
        Thread[] ts = new Thread[4];
        for (int i = 0; i < ts.length; i++) {
            final int n = i;
            ts[i] = new Thread(() -> total.addAndGet(n), "worker");
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        System.out.println(total.get());
    }
}
