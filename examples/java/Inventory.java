// A value of a JDK list's contents acted on after its region: each thread takes a ticket
// numbered by the size it reads in one synchronized method and adds it in another, so both
// can read the same size and add the same ticket twice. The list's state is inside
// `java.util.ArrayList`, which the agent does not instrument; it records each call the models
// table lists (`size` reads the contents, `add` updates them) on a list read from a field as
// an access of one variable, `Inventory.items[]` (per list object), so `views` sees a value
// read in one region acted on in a later one: a stale value at the two calls. The `log` is a
// `StringBuffer`, whose methods are atomic (the table says `synchronized`): appending to it
// from both threads outside any region is no race.
// Twin: InventoryFixed (the size read and the ticket added in one synchronized method).
import java.util.ArrayList;

public class Inventory {
    private final ArrayList<Integer> items = new ArrayList<>();
    private final StringBuffer log = new StringBuffer();

    synchronized int count() {
        return items.size(); // finding
    }

    synchronized void put(int item) {
        items.add(item); // finding
    }

    void ticket() {
        int n = count();
        put(n);
        log.append(n);
    }

    public static void main(String[] args) throws Exception {
        Inventory inv = new Inventory();
        Thread a = new Thread(inv::ticket);
        Thread b = new Thread(inv::ticket);
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println(inv.count() + " " + inv.log);
    }
}
