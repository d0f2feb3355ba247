// expect: high-level-race 0, stale-value 0
// A write-back whose value does not depend on the read (issue #23's second false positive): the
// closer reads the queue's length in one region (to log it), then closes: `closed = true` and
// `items.clear()` in another. MoTH's `psv` sees `items` read in one region and written in
// another and reports a stale value; but what close() writes depends on nothing it read (clear()
// overwrites the contents: `write` in the models table). The producer adds under the lock and
// re-checks `closed` itself. Views {items[]}, {closed, items[]} and the producer's
// {closed, items[]} form chains: no high-level race.
import java.util.ArrayList;
import java.util.List;

class Queue {
    private final List<Integer> items = new ArrayList<>();
    private boolean closed;

    synchronized int length() { return items.size(); }

    synchronized void close() {
        closed = true;
        items.clear();
    }

    synchronized void offer(int x) {
        if (!closed) {
            items.add(x);
        }
    }
}

public class Closer {
    public static void main(String[] args) throws InterruptedException {
        Queue q = new Queue();
        Thread closer = new Thread(() -> {
            int n = q.length();
            System.out.println(n);
            q.close();
        });
        Thread producer = new Thread(() -> q.offer(1));
        closer.start();
        producer.start();
        closer.join();
        producer.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
// dynamic: high-level-race 0, stale-value 1
// dynamic-finding: stale-value Queue.items[]
// Dynamic (recorded run): the agent records `items.size()` as a read and `items.clear()` as a
// write of the list's state (`Queue.items[]`, the static side's name). A trace does not hold
// that clear()'s write depends on nothing length() read, so when the producer's add() may fall
// between the closer's two regions (the producer ran before close()), the write-back is MoTH's
// stale value, as MoTH's `psv` reports it; when the producer runs after close(), it reads
// `closed` and writes nothing, and nothing is reported.
