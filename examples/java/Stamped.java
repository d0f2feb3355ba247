// A StampedLock's write mode orders writers, its read mode orders a reader after the last
// writer: a point written under the write lock and read under the read lock, and read
// optimistically (validated), races nowhere. Without the lock edges it does.
import java.util.concurrent.locks.StampedLock;

public class Stamped {
    static final StampedLock lock = new StampedLock();
    static int x, y;

    static void move(int d) {
        long s = lock.writeLock();
        x += d; // without no-lock-edges no-message-edges
        y += d; // without no-lock-edges no-message-edges
        lock.unlockWrite(s);
    }

    static int sum() throws InterruptedException {
        Thread.sleep(300);
        long s = lock.readLock();
        try {
            return x + y; // without no-lock-edges no-message-edges
        } finally {
            lock.unlockRead(s);
        }
    }

    public static void main(String[] args) throws Exception {
        Thread a = new Thread(() -> move(1), "a");
        Thread b = new Thread(() -> move(2), "b");
        Thread c = new Thread(() -> {
            try {
                System.out.println(sum());
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        }, "c");
        a.start();
        b.start();
        c.start();
        a.join();
        b.join();
        c.join();
    }
}
