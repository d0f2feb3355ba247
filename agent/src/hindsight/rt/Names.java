package hindsight.rt;

import java.util.ArrayList;
import java.util.HashMap;

/**
 * The strings the instrumented code refers to by number: source locations, static field and
 * field names, method names, labels. The transformer interns them when a class loads and
 * embeds the numbers as constants, so the hot path never builds a string. The writer maps
 * these numbers to the file's own ids, defined in the file at their first use.
 */
public final class Names {
    private static final ArrayList<String> strings = new ArrayList<>();
    private static final HashMap<String, Integer> index = new HashMap<>();

    private Names() {}

    public static synchronized int intern(String s) {
        Integer id = index.get(s);
        if (id != null) {
            return id;
        }
        int n = strings.size();
        strings.add(s);
        index.put(s, n);
        return n;
    }

    static synchronized String get(int id) {
        return strings.get(id);
    }
}
