// expect: high-level-race 1, stale-value 0
// finding: high-level-race Property.achieved,Property.value
// NASA (Artho et al. 2003, after the Remote Agent executive): the executive sets a property's
// value and its "achieved" flag in one synchronized block; the daemon checks the flag in one
// block and reads the value in another. High-level race: {achieved} and {value} against
// {value, achieved}. The daemon only reads: no stale value.
class Property {
    int value;
    boolean achieved;
}

class Executive extends Thread {
    private final Property p;
    Executive(Property p) { this.p = p; }

    public void run() {
        synchronized (p) {
            p.value = 42;
            p.achieved = true;
        }
    }
}

class Daemon extends Thread {
    private final Property p;
    Daemon(Property p) { this.p = p; }

    public void run() {
        boolean ok;
        synchronized (p) { ok = p.achieved; }
        if (ok) {
            int v;
            synchronized (p) { v = p.value; }
            System.out.println(v);
        }
    }
}

public class Nasa {
    public static void main(String[] args) throws InterruptedException {
        Property p = new Property();
        Executive e = new Executive(p);
        Daemon d = new Daemon(p);
        e.start();
        d.start();
        e.join();
        d.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
// dynamic: high-level-race 1, stale-value 0
// dynamic-finding: high-level-race Property.achieved,Property.value
// Dynamic (recorded run): depends on the schedule. When the daemon checks the flag after the
// executive set it, it runs its second block and the run gives the static answer; when it
// checks first, `ok` is false, the block reading `value` never runs and has no view: nothing
// to report (seen on a clean clone's CI run).
