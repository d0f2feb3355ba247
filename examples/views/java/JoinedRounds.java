// expect: high-level-race 0, stale-value 1
// finding: stale-value Tally.total
// Threads started in a loop and joined in a loop, then used by main (after the usual
// fork-join shape of worker arrays: `t[i] = new T(); t[i].start();`, later `for (T t : ts)
// t.join();`). Three Counter threads each read the tally in one synchronized call and write
// it back plus one in another: two of them can lose an update, a stale value between two runs
// of the same thread class (the loop's thread has a copy standing for the other runs).
// After the join loop, main reads the total and publishes it: a read in one region and a
// write computed from it in a later one, but every Counter is joined by then (the array is a
// local only the two loops touch, one thread per slot, every slot joined), so no other thread
// writes `total` while main runs them: no stale value for main. Joins inside a loop used to be
// ignored for threads started in a loop, which paired main with the Counters here.
class Tally {
    private int total;
    private int published;

    synchronized int total() { return total; }
    synchronized void setTotal(int t) { total = t; }
    synchronized void publish(int t) { published = t; }
}

class Counter extends Thread {
    private final Tally tally;

    Counter(Tally tally) { this.tally = tally; }

    public void run() {
        int t = tally.total();
        tally.setTotal(t + 1);
    }
}

public class JoinedRounds {
    public static void main(String[] args) throws InterruptedException {
        Tally tally = new Tally();
        Counter[] counters = new Counter[3];
        for (int i = 0; i < counters.length; i++) {
            counters[i] = new Counter(tally);
            counters[i].start();
        }
        for (Counter c : counters) {
            c.join();
        }
        int seen = tally.total();
        tally.publish(seen);
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 3
// dynamic-finding: stale-value Tally.total
// Dynamic (recorded run): the same stale value once per pair of the three Counters that ran
// (3), where the static side folds them into one thread and its copy; main's reads come after
// every join in the run too, so it has none either way.
