// expect: high-level-race 0, stale-value 1
// finding: stale-value Under.x
// UnderReporting (von Praun and Gross 2003): T1 reads x (and records it in y) in one
// transaction, then writes x + 1 in another; T2 resets x in between. Method consistency misses
// it; the value of x read in the first transaction flows into the second's write: stale value.
// T1's views {x, y} and {x} form a chain with T2's {x}: no high-level race.
class Under {
    int x, y;

    void step() {
        int seen;
        synchronized (this) {
            seen = x;
            y = seen;
        }
        synchronized (this) { x = seen + 1; }
    }

    synchronized void reset() { x = 0; }
}

public class UnderReporting {
    public static void main(String[] args) throws InterruptedException {
        Under u = new Under();
        Thread t1 = new Thread(() -> u.step());
        Thread t2 = new Thread(() -> u.reset());
        t1.start();
        t2.start();
        t1.join();
        t2.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 1
// dynamic-finding: stale-value Under.x
