// Work handed to a pool: the submit happens before the task, the task before the return of
// Future.get (java.util.concurrent's memory consistency effects), so no race. Without the
// executor's edges (agent option no-executor-edges) the accesses of `job` race.
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public class Handoff {
    static int[] job = new int[1];

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        job[0] = 20; // finding-without-edge
        Future<?> f = pool.submit(() -> {
            job[0] = job[0] * 2 + 2; // finding-without-edge
        });
        f.get();
        System.out.println(job[0]); // finding-without-edge
        List<Callable<Integer>> more = List.of(() -> job[0] + 1, () -> job[0] + 2); // finding-without-edge
        for (Future<Integer> g : pool.invokeAll(more)) {
            job[0] = g.get(); // finding-without-edge
        }
        pool.shutdown();
    }
}
