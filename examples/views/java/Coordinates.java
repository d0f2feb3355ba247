// expect: high-level-race 1, stale-value 0
// finding: high-level-race Coord.x,Coord.y
// Coordinates (MoTH Section 4.1.1, after Artho, Havelund and Biere): swap() exchanges x and y in
// one synchronized block; reset() zeroes them in two. A swap between the two resets leaves one
// coordinate non-zero.
// High-level race: the resetter's write views {x} and {y} both overlap the swapper's maximal view
// {x, y} and form no chain. No stale value: nothing read in one region is used in another.
class Coord {
    int x, y;

    void swap() {
        synchronized (this) {
            int oldX = x;
            x = y;
            y = oldX;
        }
    }

    void reset() {
        synchronized (this) { x = 0; }
        synchronized (this) { y = 0; }
    }
}

public class Coordinates {
    public static void main(String[] args) throws Exception {
        Coord c = new Coord();
        Thread swapper = new Thread(() -> c.swap());
        Thread resetter = new Thread(() -> c.reset());
        swapper.start();
        resetter.start();
        swapper.join();
        resetter.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 1, stale-value 0
// dynamic-finding: high-level-race Coord.x,Coord.y
