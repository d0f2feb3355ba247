// A check-then-act on a ConcurrentHashMap: both threads can find the key absent and both
// put, one value lost; `commute --builtin map` reports the calls that do not commute.
// Twin: CacheFixed (putIfAbsent, one atomic step).
import java.util.concurrent.ConcurrentHashMap;

public class Cache {
    static final ConcurrentHashMap<String, Integer> cache = new ConcurrentHashMap<>();

    static void fill(int v) {
        if (!cache.containsKey("k")) { // finding
            cache.put("k", v); // finding
        }
    }

    public static void main(String[] args) throws Exception {
        Thread a = new Thread(() -> fill(1), "a");
        Thread b = new Thread(() -> fill(2), "b");
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println(cache.get("k"));
    }
}
