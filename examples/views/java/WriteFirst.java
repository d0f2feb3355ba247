// expect: high-level-race 0, stale-value 0
// The order of a thread's regions (issue #23's first false positive): the logger sets the level
// in one region and only afterwards reads it in another. MoTH's `psv` sees a read view and a
// write view of `level` and reports a stale value; but the write-back region can only run
// before the read region, so nothing read can be written back. Not reported.
class Config {
    int level;

    synchronized void setLevel(int l) { level = l; }
    synchronized int getLevel() { return level; }
}

public class WriteFirst {
    public static void main(String[] args) throws InterruptedException {
        Config c = new Config();
        Thread logger = new Thread(() -> {
            c.setLevel(3);
            int l = c.getLevel();
            System.out.println(l);
        });
        Thread admin = new Thread(() -> c.setLevel(5));
        logger.start();
        admin.start();
        logger.join();
        admin.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
