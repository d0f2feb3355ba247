// A race happens-before misses: `first` writes `x`, then takes the lock; `second` (which
// runs later) takes the lock and reads `x`. The release orders the accesses in this run, but
// the two critical sections touch nothing in common, so another run could take them in the
// other order: `races --model wcp` (and syncp) predict the race, `races` does not.
// Twin: PredictFixed (the critical sections conflict, so their order is forced).
public class Predict {
    static int x, a, b;
    static final Object lock = new Object();

    public static void main(String[] args) throws Exception {
        Thread first = new Thread(() -> {
            x = 1; // finding
            synchronized (lock) {
                a = 1;
            }
        }, "first");
        Thread second = new Thread(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                return;
            }
            synchronized (lock) {
                b = 1;
            }
            System.out.println(x); // finding
        }, "second");
        first.start();
        second.start();
        first.join();
        second.join();
    }
}
