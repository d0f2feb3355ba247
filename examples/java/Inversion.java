// A lock-order inversion: `left` takes a then b, `right` takes b then a. This run does not
// deadlock (right waits until left is done), but the state where left holds a and right
// holds b, each about to take the other, is reachable: `reach --state` finds it.
// Twin: InversionFixed (both take a first; that state cannot be reached).
public class Inversion {
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
            synchronized (a) { // finding
                synchronized (b) {
                    shared++;
                }
            }
        }, "left");
        Thread right = new Thread(() -> {
            pause();
            synchronized (b) { // finding
                synchronized (a) {
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
