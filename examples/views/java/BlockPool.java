// expect: high-level-race 0, stale-value 1
// finding: stale-value Pool.state[]
// An index found in one region, kept in an array and used by another (issue #41, item 2; the
// shape of MoTH's Allocate Vector as published, written anew): each client finds a free block
// in one synchronized method, keeps its index in its own `taken[k]` (an array no region
// touches), and later passes `taken[k]` to `claim` and then to `release`. The index depends on
// the read of `Pool.state[]` in `findFree`; it reaches `claim` through the client's array, and
// `claim` writes the element it names (`state[i] = 'A'`): the element written is chosen by the
// stale index, so one stale value on `Pool.state[]` (the other client claims blocks too). The
// re-check inside `claim` (`state[i] != 'A'`) does not undo it: the write's index, not its
// value, is what is stale, and `release` later frees a block the client may never have got.
// One variable: no high-level race.
class Pool {
    private final char[] state = new char[16];

    Pool() {
        for (int i = 0; i < state.length; i++) {
            state[i] = 'F';
        }
    }

    synchronized int findFree() {
        for (int i = 0; i < state.length; i++) {
            if (state[i] == 'F') {
                return i;
            }
        }
        return -1;
    }

    synchronized void claim(int i) {
        if (state[i] != 'A') {
            state[i] = 'A';
        }
    }

    synchronized void release(int i) {
        if (state[i] != 'F') {
            state[i] = 'F';
        }
    }
}

class Client extends Thread {
    private final Pool pool;
    private final int[] taken = new int[4];

    Client(Pool pool) { this.pool = pool; }

    public void run() {
        for (int k = 0; k < taken.length; k++) {
            taken[k] = pool.findFree();
            if (taken[k] != -1) {
                pool.claim(taken[k]);
            }
        }
        for (int k = 0; k < taken.length; k++) {
            if (taken[k] != -1) {
                pool.release(taken[k]);
            }
        }
    }
}

public class BlockPool {
    public static void main(String[] args) throws InterruptedException {
        Pool pool = new Pool();
        Client a = new Client(pool);
        Client b = new Client(pool);
        a.start();
        b.start();
        a.join();
        b.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 1
// dynamic-finding: stale-value char[][]
// dynamic: high-level-race 0, stale-value 0
// Dynamic (recorded run): a stale value named `char[]@ID[]`: the agent names an array by its
// type and object (the field `state` is final, so no access names it), and `views` on a trace
// takes every element as one variable. Each client reads it in findFree() and writes it in a
// later claim() or release(), and the two threads are unordered by happens-before, so the stale
// value shows in any run where both clients write the array, whatever the order of their
// regions (10 of 12 runs on a 2-core machine, 2026-11-29, two of them with one client's every
// region before the other's). None shows when the clients alternate region by region from the
// start (the other 2): both find the same free block, the second claim() finds it 'A' and
// does not write, the second release() finds it 'F' and does not write, so only one client
// ever writes the array, and a stale value needs another thread's write. (Until this second
// answer was stated, the test failed on such a run: CI of 2026-11-29.)
