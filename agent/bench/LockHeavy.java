// Overhead bench: 4 threads, 1,000,000 synchronized increments of one counter in all.
public class LockHeavy {
    private long count;

    synchronized void inc() {
        count++;
    }

    public static void main(String[] args) throws Exception {
        LockHeavy c = new LockHeavy();
        Thread[] ts = new Thread[4];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = new Thread(() -> {
                for (int k = 0; k < 250_000; k++) {
                    c.inc();
                }
            }, "inc");
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        System.out.println(c.count);
    }
}
