// Inversion with one lock order (a, then b) in both threads: the state where each holds its
// first lock is not feasible (both would hold a).
public class InversionFixed {
    static final Object a = new Object(), b = new Object();
    static int shared;

    static void pause() {
        try {
            Thread.sleep(300);
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        Thread left = new Thread(() -> {
            synchronized (a) {
                synchronized (b) {
                    shared++;
                }
            }
        }, "left");
        Thread right = new Thread(() -> {
            pause();
            synchronized (a) {
                synchronized (b) {
                    shared++;
                }
            }
        }, "right");
        left.start();
        right.start();
        left.join();
        right.join();
        System.out.println(shared);
    }
}
