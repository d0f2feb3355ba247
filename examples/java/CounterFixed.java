// Counter with one synchronized increment: no stale value.
public class CounterFixed {
    private int count;

    synchronized int get() {
        return count;
    }

    synchronized void increment() {
        count = count + 1;
    }

    public static void main(String[] args) throws Exception {
        CounterFixed c = new CounterFixed();
        Thread a = new Thread(c::increment, "a");
        Thread b = new Thread(c::increment, "b");
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println(c.get());
    }
}
