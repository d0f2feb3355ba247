// Overhead bench, a realistic program: a pool of 4 counts words of generated text in
// chunks, each task filling its own HashMap, then merged into a ConcurrentHashMap.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public class WordCount {
    static final String[] WORDS = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"};

    static Map<String, Integer> count(int chunk) {
        Map<String, Integer> local = new HashMap<>();
        long seed = chunk * 7919L + 1;
        for (int i = 0; i < 20_000; i++) {
            seed = seed * 6364136223846793005L + 1442695040888963407L;
            String w = WORDS[(int) ((seed >>> 33) % WORDS.length)];
            local.merge(w, 1, Integer::sum);
        }
        return local;
    }

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<Map<String, Integer>>> parts = new ArrayList<>();
        for (int c = 0; c < 64; c++) {
            final int chunk = c;
            parts.add(pool.submit(() -> count(chunk)));
        }
        ConcurrentHashMap<String, Integer> total = new ConcurrentHashMap<>();
        for (Future<Map<String, Integer>> f : parts) {
            for (Map.Entry<String, Integer> e : f.get().entrySet()) {
                Integer old = total.get(e.getKey());
                total.put(e.getKey(), old == null ? e.getValue() : old + e.getValue());
            }
        }
        pool.shutdown();
        System.out.println(total.get("alpha"));
    }
}
