// expect: high-level-race 0, stale-value 5
// finding: stale-value Tally.explored
// finding: stale-value Tally.explored
// finding: stale-value Tally.explored
// finding: stale-value Tally.explored
// finding: stale-value Tally.explored
// SpawnTree (after the shape of MoTH's Knight test, written anew): a `Thread` subclass whose
// `run` starts two new solvers of its own class for the next level and joins them, to a depth
// the analysis cannot know. The analysis walks at most two `Solver` threads along a chain of
// starts: the root (`Solver@..:64`) and each child (`:50`, `:51`); the solvers below a child
// are folded onto it (its copy ` [2]` stands for them), and every thread from a child down is
// taken to run in parallel with every other thread.
// - stale value of `Tally.explored`: each solver reads `explored` in `seen()` and writes back
//   `n + 1` in `record(n)`; other solvers write `explored` in parallel. One warning per pair of
//   threads: `:50`/`:50 [2]` and `:51`/`:51 [2]` (a solver and those below it), `:50`/`:51`
//   (siblings, which do run in parallel), and root/`:50`, root/`:51`: these two are the price
//   of the bound (the root's regions end before it starts its children, an order the folded
//   subtree no longer uses).
// - no high-level race: `found` is only ever accessed on its own (`solved()`), and `explored`
//   on its own in each region.
class Tally {
    int explored;
    int found;

    @Atomic int seen() { return explored; }

    @Atomic void record(int n) { explored = n + 1; }

    @Atomic void solved() { found = found + 1; }
}

class Solver extends Thread {
    final Tally tally;
    final int depth;

    Solver(Tally tally, int depth) {
        this.tally = tally;
        this.depth = depth;
    }

    public void run() {
        int n = tally.seen();
        tally.record(n);
        if (depth == 0) {
            tally.solved();
            return;
        }
        Solver left = new Solver(tally, depth - 1);
        Solver right = new Solver(tally, depth - 1);
        left.start();
        right.start();
        try {
            left.join();
            right.join();
        } catch (InterruptedException e) {
            return;
        }
    }
}

public class SpawnTree {
    public static void main(String[] args) throws InterruptedException {
        Solver root = new Solver(new Tally(), 12);
        root.start();
        root.join();
    }
}

@interface Atomic {}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 9999
// dynamic-finding: stale-value Tally.explored
// Dynamic (recorded run): the stale value of `Tally.explored` once per pair of the 8,191
// solvers that ran, up to the sensors' limit (the report says `sensor_limit_reached`; the
// 9,999th is the last before it); the static side bounds the copies and reports five.
