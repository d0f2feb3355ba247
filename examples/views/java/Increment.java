// expect: high-level-race 0, stale-value 1
// finding: stale-value Counter.value
// `i = inc(i)` twice in a row (issue #23's false negative): inc() sets the counter from what the
// caller saw and returns the new value, so the second call writes a value computed from what the
// first call read. Another thread can bump the counter between the two calls, and the second
// call then writes back a stale value. Both calls are the same method: MoTH's views of the two
// regions are equal ({w(value), r(value)}) and its `psv` needs two different views, so it is
// silent. Here the two calls are two regions (two call sites) and the value read by the first
// flows into the write of the second: stale value.
class Counter {
    int value;

    synchronized int inc(int seen) {
        value = seen + 1;
        return value;
    }

    synchronized void bump() { value = value + 10; }
}

public class Increment {
    public static void main(String[] args) throws InterruptedException {
        Counter c = new Counter();
        Thread stepper = new Thread(() -> {
            int i = 0;
            i = c.inc(i);
            i = c.inc(i);
        });
        Thread bumper = new Thread(() -> c.bump());
        stepper.start();
        bumper.start();
        stepper.join();
        bumper.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
// Dynamic (recorded run): nothing, MoTH's answer: both calls are regions of the same view
// {r(value), w(value)} and the stale-value sensor needs two different views; the data flow
// between the calls (the static side's rule) is not in a trace.
