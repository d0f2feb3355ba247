// Two threads increment a shared counter without a lock: a data race.
// Twin: RaceFixed (the increments in synchronized blocks).
public class Race {
    static int hits;

    public static void main(String[] args) throws Exception {
        Thread a = new Thread(() -> hits++, "a"); // finding
        Thread b = new Thread(() -> hits++, "b"); // finding
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println(hits);
    }
}
