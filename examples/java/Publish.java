// Publication through a volatile flag: the write of `data` happens before the read that
// follows the read of `ready` seeing true (JLS 17.4.4), so no race. Without the volatile's
// edge (agent option no-volatile-edges) the accesses of `data` race.
public class Publish {
    static int data;
    static volatile boolean ready;

    public static void main(String[] args) throws Exception {
        Thread reader = new Thread(() -> {
            while (!ready) {
                Thread.onSpinWait();
            }
            System.out.println(data); // finding-without-edge
        }, "reader");
        reader.start();
        data = 42; // finding-without-edge
        ready = true;
    }
}
