// expect: high-level-race 0, stale-value 0
// Start/join order (MoTH Section 4.3's may-happen-in-parallel remedy; issue #23's third false
// positive): the Coordinates test, but main joins the swapper before it starts the resetter, so
// no swap can run between the two resets. The pair is removed: the swapper is surely joined
// when the resetter starts.
class Point {
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

public class Ordered {
    public static void main(String[] args) throws InterruptedException {
        Point p = new Point();
        Thread swapper = new Thread(() -> p.swap());
        swapper.start();
        swapper.join();
        Thread resetter = new Thread(() -> p.reset());
        resetter.start();
        resetter.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
