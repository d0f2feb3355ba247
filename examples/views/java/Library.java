// expect: high-level-race 0, stale-value 2
// finding: stale-value Wallet.cents
// finding: stale-value Wallet.cents
// mode: library
// A single-threaded harness (issue #23's library-mode false negative): main calls the library
// once and starts no thread, so there is no second thread to pair with. As MoTH assumes, every
// public method of the analysed classes may then run concurrently with every other (and with
// itself): addTip() reads the cents in one synchronized method and writes a value computed from
// them in another, and a concurrent addTip() or pay() writes them in between: a stale value,
// reported once per pair of clients (addTip() with pay(), addTip() with a second addTip()).
class Wallet {
    private int cents;

    synchronized int balance() { return cents; }

    synchronized void set(int c) { cents = c; }

    public synchronized void pay(int c) { cents = cents - c; }

    public void addTip(int pct) {
        int now = balance();
        set(now + now * pct / 100);
    }
}

public class Library {
    public static void main(String[] args) {
        Wallet w = new Wallet();
        w.addTip(10);
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
// Dynamic (recorded run): nothing. Library mode has no counterpart in a run: main calls the
// library from one thread, and a trace's views are only those of the threads that ran.
