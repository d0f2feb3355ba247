// The agent's cost on calls of JDK types the models table lists, reached through fields: 4
// threads each make 50,000 `add`/`size`/`get` calls on a list field under its owner's monitor
// (each recorded as an access of `ListHeavy.items[]`), beside a list in a local, which is
// not recorded.
import java.util.ArrayList;

public class ListHeavy {
    private final ArrayList<Integer> items = new ArrayList<>();

    synchronized void step(int i) {
        items.add(i);
        if (items.size() > 64) {
            items.clear();
        }
        int first = items.get(0);
        ArrayList<Integer> local = new ArrayList<>();
        local.add(first);
    }

    public static void main(String[] args) throws Exception {
        ListHeavy h = new ListHeavy();
        Thread[] ts = new Thread[4];
        for (int t = 0; t < ts.length; t++) {
            ts[t] = new Thread(() -> {
                for (int i = 0; i < 50_000; i++) {
                    h.step(i);
                }
            });
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join();
        }
    }
}
