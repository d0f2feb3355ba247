// expect: high-level-race 0, stale-value 1
// finding: stale-value LockedAccount.balance
// args: --regions locks
// Explicit locks (`--regions locks`): the account guards its balance with a ReentrantLock;
// read() returns from inside the try (the finally's unlock ends the span there) and deposit()
// writes a value computed from what read() returned, in a second lock span: stale value,
// as for MoTH's Account test. Without `--regions locks` there is no region and no finding.
import java.util.concurrent.locks.ReentrantLock;

class LockedAccount {
    private final ReentrantLock lock = new ReentrantLock();
    private int balance;

    int read() {
        lock.lock();
        try {
            return balance;
        } finally {
            lock.unlock();
        }
    }

    void write(int v) {
        lock.lock();
        try {
            balance = v;
        } finally {
            lock.unlock();
        }
    }

    void deposit(int amount) {
        int b = read();
        write(b + amount);
    }
}

public class LockAccount {
    public static void main(String[] args) throws InterruptedException {
        LockedAccount a = new LockedAccount();
        Thread t1 = new Thread(() -> a.deposit(5));
        Thread t2 = new Thread(() -> a.deposit(7));
        t1.start();
        t2.start();
        t1.join();
        t2.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 1
// dynamic-finding: stale-value LockedAccount.balance
