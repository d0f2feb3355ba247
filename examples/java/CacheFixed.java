// Cache with the check and the act in one synchronized block: the calls are ordered by the
// lock, so no two of them can run in either order.
import java.util.concurrent.ConcurrentHashMap;

public class CacheFixed {
    static final ConcurrentHashMap<String, Integer> cache = new ConcurrentHashMap<>();

    static void fill(int v) {
        synchronized (cache) {
            if (!cache.containsKey("k")) {
                cache.put("k", v);
            }
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
