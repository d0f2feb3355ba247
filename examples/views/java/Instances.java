// expect: high-level-race 0, stale-value 0
// Objects by allocation site (MoTH Section 4.3's first limitation): the swapper swaps one pair,
// the resetter resets another (allocated at another `new`). MoTH's class-level variables make
// `Pair.x` and `Pair.y` one pair of variables and report a high-level race; here they are the
// variables of two allocation sites and nothing is shared.
class Pair {
    int x, y;

    synchronized void swap() {
        int t = x;
        x = y;
        y = t;
    }

    void reset() {
        synchronized (this) { x = 0; }
        synchronized (this) { y = 0; }
    }
}

public class Instances {
    public static void main(String[] args) throws InterruptedException {
        Pair a = new Pair();
        Pair b = new Pair();
        Thread swapper = new Thread(() -> a.swap());
        Thread resetter = new Thread(() -> b.reset());
        swapper.start();
        resetter.start();
        swapper.join();
        resetter.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
// Recorded, the two pairs are two objects (`Pair.x@1`, `Pair.x@2`): nothing, and the summary's
// `removed_by_instances` 1 counts MoTH's class-level high-level race that keeping them apart
// removed.
