// expect: high-level-race 0, stale-value 1
// finding: stale-value Hits.total
// Threads created in a loop (after the classic Runnable/worker examples): main starts four
// workers from one `new Thread(..)` in a `for` loop and joins them in a second loop. Each worker
// reads the total in one synchronized method and writes total + 1 in another, so two workers
// lose an update: stale value, between two instances of the same thread (the loop's thread has
// two copies that run in parallel).
class Hits {
    private int total;

    synchronized int get() { return total; }
    synchronized void put(int t) { total = t; }
}

class Worker implements Runnable {
    private final Hits hits;

    Worker(Hits hits) { this.hits = hits; }

    public void run() {
        int t = hits.get();
        hits.put(t + 1);
    }
}

public class LoopWorkers {
    public static void main(String[] args) throws InterruptedException {
        Hits hits = new Hits();
        Thread[] workers = new Thread[4];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Thread(new Worker(hits));
            workers[i].start();
        }
        for (Thread w : workers) {
            w.join();
        }
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 6
// dynamic-finding: stale-value Hits.total
// Dynamic (recorded run): the same stale value once per pair of the four workers that ran (6);
// the static side folds the loop's threads into two copies and reports it once.
