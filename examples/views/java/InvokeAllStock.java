// expect: high-level-race 0, stale-value 1
// finding: stale-value Stock.units
// `invokeAll` (after the batch shape of executor examples: a list of Callables handed to a
// pool, which returns when every one is done). Two different tasks run at once: a sale that
// checks the stock in one synchronized call and takes units in another, and a recount that
// overwrites the stock. The sale may act on a stale stock (the recount writes `units` between
// its check and its take): 1 stale value, the sale's. Each task is in the list once, so each
// runs once: no copy, and no warning of the sale against itself. `invokeAll` returns only
// when both are done, so main's own check-then-act afterwards (`sell` again) runs alone: no
// stale value for main.
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

class Stock {
    private int units = 10;

    synchronized int units() { return units; }
    synchronized void take(int n) { units = units - n; }
    synchronized void recount(int n) { units = n; }

    int sell(int n) {
        if (units() >= n) {
            take(n);
            return n;
        }
        return 0;
    }
}

public class InvokeAllStock {
    public static void main(String[] args) throws Exception {
        Stock stock = new Stock();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Callable<Integer>> batch = new ArrayList<>();
        batch.add(() -> stock.sell(4));
        batch.add(() -> { stock.recount(7); return 0; });
        pool.invokeAll(batch);
        stock.sell(2);
        pool.shutdown();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 1
// dynamic-finding: stale-value Stock.units
// The check always passes (4 of 10 or of 7), so every run has both regions of the sale and the
// recount's write: the same answer as statically; `invokeAll` waits for both tasks, so main's
// sale afterwards is ordered after them in the run too.
