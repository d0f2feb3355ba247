// Predict with critical sections that conflict (both touch `a`): no predicted race.
public class PredictFixed {
    static int x, a;
    static final Object lock = new Object();

    public static void main(String[] args) throws Exception {
        Thread first = new Thread(() -> {
            x = 1;
            synchronized (lock) {
                a = 1;
            }
        }, "first");
        Thread second = new Thread(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                return;
            }
            int seen;
            synchronized (lock) {
                seen = a;
            }
            if (seen == 1) {
                System.out.println(x);
            }
        }, "second");
        first.start();
        second.start();
        first.join();
        second.join();
    }
}
