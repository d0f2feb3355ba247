// expect: high-level-race 0, stale-value 1
// finding: stale-value Local.field
// Local (Artho et al. 2003): a value is copied into a local in one synchronized block and used
// to update the same field in a later one; the other thread sets the field in between. Stale
// value (data dependence). One variable only: no high-level race.
public class Local {
    private int field;

    void update() {
        int tmp;
        synchronized (this) { tmp = field; }
        tmp = tmp * 2 + 1;
        synchronized (this) { field = tmp; }
    }

    synchronized void set(int v) { field = v; }

    public static void main(String[] args) throws InterruptedException {
        Local l = new Local();
        Thread a = new Thread(() -> l.update());
        Thread b = new Thread(() -> l.set(7));
        a.start();
        b.start();
        a.join();
        b.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 1
// dynamic-finding: stale-value Local.field
