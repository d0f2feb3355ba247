// expect: high-level-race 0, stale-value 2
// finding: stale-value Coord04.x
// finding: stale-value Coord04.y
// Coord04 (Artho, Havelund and Biere, "Using block-local atomicity to detect stale-value
// concurrency errors", ATVA 2004): the incrementer copies both coordinates in one block and
// writes back x + 1, y + 1 in another; the resetter zeroes both atomically. A reset in between
// is undone. Stale values of x and of y (data dependence). No high-level race: every region
// touches {x, y} whole.
public class Coord04 {
    int x, y;

    void increment() {
        int a, b;
        synchronized (this) {
            a = x;
            b = y;
        }
        synchronized (this) {
            x = a + 1;
            y = b + 1;
        }
    }

    synchronized void reset() {
        x = 0;
        y = 0;
    }

    public static void main(String[] args) throws InterruptedException {
        Coord04 c = new Coord04();
        Thread inc = new Thread(() -> c.increment());
        Thread res = new Thread(() -> c.reset());
        inc.start();
        res.start();
        inc.join();
        res.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 2
// dynamic-finding: stale-value Coord04.x
// dynamic-finding: stale-value Coord04.y
