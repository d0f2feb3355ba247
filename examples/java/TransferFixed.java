// Transfer in one critical section: atomic.
public class TransferFixed {
    static int from = 100, to;
    static final Object lock = new Object();

    @Atomic
    static void transfer(int n) {
        synchronized (lock) {
            int f = from;
            from = f - n;
            to += n;
        }
    }

    public static void main(String[] args) throws Exception {
        Thread a = new Thread(() -> transfer(10), "a");
        Thread b = new Thread(() -> transfer(20), "b");
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println(from + " " + to);
    }
}
