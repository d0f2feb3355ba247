// expect: high-level-race 0, stale-value 0
// Buffer (Artho et al. 2004; MoTH Table 2: no anomaly, one false positive of MoTH): the
// consumer checks that the buffer holds an item, then takes one in a second block that checks
// again before decrementing. Correct: the count written is computed from the count read in the
// same block, and the second block re-checks what the first one decided on (the re-check rule:
// a branch's dependence is not acted on by a region that reads the variable again itself).
public class Buffer {
    private int count;

    synchronized int size() { return count; }

    synchronized void put() { count = count + 1; }

    synchronized void take() {
        if (count > 0) {
            count = count - 1;
        }
    }

    void consume() {
        if (size() > 0) {
            take();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Buffer b = new Buffer();
        Thread producer = new Thread(() -> b.put());
        Thread consumer = new Thread(() -> b.consume());
        producer.start();
        consumer.start();
        producer.join();
        consumer.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
// dynamic: high-level-race 0, stale-value 1
// dynamic-finding: stale-value Buffer.count
// Dynamic (recorded run): MoTH's answer, which depends on the schedule. When the consumer runs
// after the producer, size() reads `count` and take() reads and writes it in a second region
// while the producer writes it: MoTH's false positive of Table 2 (the re-check rule is the
// static side's, it needs the branch, which a trace does not hold). When the consumer runs
// first, size() sees 0, take() does not run: nothing.
