// An @Atomic transfer that takes the lock twice: another transfer can run between its read
// and its write of a balance, so it is not atomic (a violation for `atomicity`).
// Twin: TransferFixed (one critical section).
public class Transfer {
    static int from = 100, to;
    static final Object lock = new Object();

    @Atomic
    static void transfer(int n) {
        int f;
        synchronized (lock) {
            f = from; // finding
        }
        synchronized (lock) {
            from = f - n; // finding
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
