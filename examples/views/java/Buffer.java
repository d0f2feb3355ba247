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
