// Publish with a plain flag: `data` and `ready` race.
public class PublishBroken {
    static int data;
    static boolean ready;

    public static void main(String[] args) throws Exception {
        Thread reader = new Thread(() -> {
            while (!ready) { // finding
                Thread.onSpinWait();
            }
            System.out.println(data); // finding
        }, "reader");
        reader.start();
        data = 42; // finding
        ready = true; // finding
        reader.join();
    }
}
