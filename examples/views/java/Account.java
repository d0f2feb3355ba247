// expect: high-level-race 0, stale-value 1
// finding: stale-value Account.balance
// Account (MoTH Fig. 7, after von Praun and Gross): update() reads the balance in one atomic
// method and writes tmp + a in another; a second client running update() can write between
// them, and one deposit is lost.
// Stale value: T1 reads Account.balance in read() and sumTmp() writes a value computed from
// it (data dependence); the other thread writes Account.balance in sumTmp(); the threads are
// both started before either is joined.
public class Account {
    int balance;

    void update(int a) {
        int tmp = read();
        sumTmp(tmp, a);
    }

    synchronized int read() {
        return balance;
    }

    synchronized void sumTmp(int tmp, int a) {
        balance = tmp + a;
    }

    public static void main(String[] args) throws InterruptedException {
        Account acc = new Account();
        Thread t1 = new Thread(() -> acc.update(10));
        Thread t2 = new Thread(() -> acc.update(20));
        t1.start();
        t2.start();
        t1.join();
        t2.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 1
// dynamic-finding: stale-value Account.balance
