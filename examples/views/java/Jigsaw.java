// expect: high-level-race 0, stale-value 1
// finding: stale-value ResourceStore.entry
// Jigsaw (von Praun and Gross 2003, the W3C server's resource store): load() looks the entry up
// in one transaction and, when it is missing, adds it in another; two loaders both add it.
// - stale value of `entry`: add() runs under the branch on the looked-up entry;
// - no high-level race: add() reads `loaded` only to write `loaded + 1` back (docs/views.md,
//   read-modify-write), so its read view is empty and the loaders' read views {entry} and {} form a
//   chain under the other loader's write view {entry, loaded}. MoTH, whose read view keeps
//   that read, reports a race here; the lost add is the stale value below.
// `loaded` is read and overwritten in one transaction: never stale.
class ResourceStore {
    private int entry;
    private int loaded;

    synchronized int lookup() { return entry; }

    synchronized void add(int id) {
        entry = id;
        loaded = loaded + 1;
    }

    void load(int id) {
        if (lookup() == 0) {
            add(id);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        ResourceStore s = new ResourceStore();
        Thread a = new Thread(() -> s.load(1));
        Thread b = new Thread(() -> s.load(2));
        a.start();
        b.start();
        a.join();
        b.join();
    }
}

public class Jigsaw {
    public static void main(String[] args) throws InterruptedException {
        ResourceStore.main(args);
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
// dynamic: high-level-race 1, stale-value 1
// dynamic-finding: high-level-race ResourceStore.entry,ResourceStore.loaded
// dynamic-finding: stale-value ResourceStore.entry
// Dynamic (recorded run): depends on the schedule. The usual run: the second loader finds the
// entry and does not add: its one view {entry} gives nothing. When both loaders look up before
// either adds, the static answer: each reads `entry` in lookup() and writes it in add() while
// the other writes it (the stale value), and each add() writes {entry, loaded} together while
// the other loader reads {entry} and {loaded} in separate regions (the high-level race).
