// expect: high-level-race 0, stale-value 0
// DoubleCheck (Artho et al. 2004; MoTH Table 2: no anomaly, one false positive): double-checked
// initialisation done right: the instance is checked in one block, then checked again and set
// inside a second one. The second block re-reads `instance` before writing it, so it does not
// act on the first block's (possibly stale) answer.
class Resource {}

public class DoubleCheck {
    private Resource instance;

    synchronized Resource peek() { return instance; }

    Resource get() {
        if (peek() == null) {
            synchronized (this) {
                if (instance == null) {
                    instance = new Resource();
                }
            }
        }
        return peek();
    }

    public static void main(String[] args) throws InterruptedException {
        DoubleCheck d = new DoubleCheck();
        Thread a = new Thread(() -> d.get());
        Thread b = new Thread(() -> d.get());
        a.start();
        b.start();
        a.join();
        b.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
