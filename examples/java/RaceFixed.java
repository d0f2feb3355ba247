// Race with each increment in a synchronized block: no race (the monitor's release
// happens before the next acquire; without those edges, agent option no-lock-edges, the race
// comes back).
public class RaceFixed {
    static int hits;
    static final Object lock = new Object();

    static void hit() {
        synchronized (lock) {
            hits++; // finding-without-edge
        }
    }

    public static void main(String[] args) throws Exception {
        Thread a = new Thread(RaceFixed::hit, "a");
        Thread b = new Thread(RaceFixed::hit, "b");
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println(hits);
    }
}
