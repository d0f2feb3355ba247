// expect: high-level-race 1, stale-value 0
// finding: high-level-race Coord03.x,Coord03.y
// Coord03 (Artho, Havelund and Biere, "High-level data races", STVR 2003): a mover writes both
// coordinates in one synchronized method; a reader takes x and y in two synchronized getters
// and may pair the old x with the new y. High-level race: the reader's views {x} and {y}
// against the mover's {x, y}. The reader writes nothing, so no stale value.
public class Coord03 {
    private int x, y;

    synchronized int getX() { return x; }
    synchronized int getY() { return y; }

    synchronized void move(int dx, int dy) {
        x = x + dx;
        y = y + dy;
    }

    public static void main(String[] args) throws InterruptedException {
        Coord03 c = new Coord03();
        Thread mover = new Thread(() -> c.move(1, 1));
        Thread reader = new Thread(() -> {
            int x = c.getX();
            int y = c.getY();
            System.out.println(x == y);
        });
        mover.start();
        reader.start();
        mover.join();
        reader.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 1, stale-value 0
// dynamic-finding: high-level-race Coord03.x,Coord03.y
