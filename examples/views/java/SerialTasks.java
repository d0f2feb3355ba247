// expect: high-level-race 0, stale-value 1
// finding: stale-value Till.cash
// Tasks of a single-thread executor against tasks of a pool (after the check-then-act
// shape of executor examples: `if (a.balance() >= n) a.take(n)` submitted in a loop). The
// same withdrawal runs three times on a Purse through `Executors.newSingleThreadExecutor()`
// and three times on a Till through `Executors.newFixedThreadPool(3)`.
// - The Till: two pool threads can both pass the check before either takes: the take acts
//   on a stale balance, 1 stale value (`Till.cash`; the loop's task has a copy standing for
//   its other runs).
// - The Purse: the JDK runs the tasks of a single-thread executor one at a time, in the
//   order submitted, so no other task writes `coins` between a task's check and its take, and
//   main does not touch the purse: no warning. Without that rule the loop's task would get a
//   copy and the same stale value as the Till.
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

class Purse {
    private int coins = 25;

    synchronized int coins() { return coins; }
    synchronized void take(int n) { coins = coins - n; }

    void spend(int n) {
        if (coins() >= n) {
            take(n);
        }
    }
}

class Till {
    private int cash = 25;

    synchronized int cash() { return cash; }
    synchronized void take(int n) { cash = cash - n; }

    void pay(int n) {
        if (cash() >= n) {
            take(n);
        }
    }
}

public class SerialTasks {
    public static void main(String[] args) throws InterruptedException {
        Purse purse = new Purse();
        Till till = new Till();
        ExecutorService one = Executors.newSingleThreadExecutor();
        ExecutorService many = Executors.newFixedThreadPool(3);
        for (int i = 0; i < 3; i++) {
            one.submit(() -> purse.spend(10));
            many.submit(() -> till.pay(10));
        }
        one.shutdown();
        many.shutdown();
        one.awaitTermination(5, TimeUnit.SECONDS);
        many.awaitTermination(5, TimeUnit.SECONDS);
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
// dynamic: high-level-race 0, stale-value 1
// dynamic-finding: stale-value Till.cash
// dynamic: high-level-race 0, stale-value 2
// dynamic-finding: stale-value Till.cash
// dynamic: high-level-race 0, stale-value 3
// dynamic-finding: stale-value Till.cash
// Dynamic (recorded run): the Purse's tasks all run on the executor's one thread, so a run
// pairs none of them, as statically. The Till's stale value is reported once per pair of pool
// threads that ran a task reading and one writing the cash: how many of the three threads
// took a task (one may run two, or all three) and whether the third check fails (25 is
// enough for two) depend on the schedule, from none (one thread ran all three) to three.
