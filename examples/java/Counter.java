// A lost update across two synchronized methods: `bump` reads with get() and writes with
// set(), each atomic alone, not together: `views` reports the stale value.
// Twin: CounterFixed (one synchronized increment).
public class Counter {
    private int count;

    synchronized int get() {
        return count; // finding
    }

    synchronized void set(int v) {
        count = v; // finding
    }

    void bump() {
        set(get() + 1);
    }

    public static void main(String[] args) throws Exception {
        Counter c = new Counter();
        Thread a = new Thread(c::bump, "a");
        Thread b = new Thread(c::bump, "b");
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println(c.get());
    }
}
