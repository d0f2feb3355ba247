// Handoff reading the result without waiting for the future: a race.
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

public class HandoffBroken {
    static int[] job = new int[1];

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        job[0] = 20;
        pool.execute(() -> {
            job[0] = job[0] * 2 + 2; // finding
        });
        Thread.sleep(200);
        System.out.println(job[0]); // finding
        pool.shutdown();
        pool.awaitTermination(10, TimeUnit.SECONDS);
    }
}
