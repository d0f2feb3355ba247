// A map call on a null field, as MoTH's Jigsaw makes when one thread sets `entries = null`
// between another's `get` and `put`: under the agent the program must get the exception it
// gets without it, a NullPointerException of the call (`Map.put`), not one of the agent's.
import java.util.Map;

public class NullMap {
    static Map<String, Integer> entries;

    public static void main(String[] args) {
        try {
            entries.put("k", 1);
        } catch (NullPointerException e) {
            System.out.println("caught: " + e.getMessage());
        }
    }
}
