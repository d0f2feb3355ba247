// expect: high-level-race 1, stale-value 0
// finding: high-level-race Counters.a,Counters.b
// OverReporting (von Praun and Gross 2003; MoTH Table 2: no anomaly, one false positive kept
// here): two independent counters are reset together in one transaction and incremented
// separately elsewhere. No invariant relates them, but view consistency takes every set of
// variables accessed together as one meant to be accessed atomically: the increments' views
// {a} and {b} against the reset's {a, b}. Reported, as by MoTH: the views cannot tell intent.
class Counters {
    int a, b;

    synchronized void incA() { a = a + 1; }
    synchronized void incB() { b = b + 1; }

    synchronized void reset() {
        a = 0;
        b = 0;
    }
}

public class OverReporting {
    public static void main(String[] args) throws InterruptedException {
        Counters c = new Counters();
        Thread inc = new Thread(() -> {
            c.incA();
            c.incB();
        });
        Thread res = new Thread(() -> c.reset());
        inc.start();
        res.start();
        inc.join();
        res.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 1, stale-value 0
// dynamic-finding: high-level-race Counters.a,Counters.b
