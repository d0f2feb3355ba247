// Threads started in a loop, each adding to a shared total without a lock: a race between
// workers (all named `worker`: the trace names them worker, worker#2, ...).
public class Loop {
    static long total;

    public static void main(String[] args) throws Exception {
        Thread[] ts = new Thread[4];
        for (int i = 0; i < ts.length; i++) {
            final int n = i;
            ts[i] = new Thread(() -> total += n, "worker"); // finding
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        System.out.println(total);
    }
}
