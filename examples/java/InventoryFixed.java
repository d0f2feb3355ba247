// Inventory with the size read and the ticket added in one synchronized method: each thread
// reads and updates the list's contents in one region, so no value read in one region is
// acted on in another. Twin of: Inventory.
import java.util.ArrayList;

public class InventoryFixed {
    private final ArrayList<Integer> items = new ArrayList<>();
    private final StringBuffer log = new StringBuffer();

    synchronized int ticket() {
        int n = items.size();
        items.add(n);
        return n;
    }

    synchronized int count() {
        return items.size();
    }

    public static void main(String[] args) throws Exception {
        InventoryFixed inv = new InventoryFixed();
        Thread a = new Thread(() -> inv.log.append(inv.ticket()));
        Thread b = new Thread(() -> inv.log.append(inv.ticket()));
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println(inv.count() + " " + inv.log);
    }
}
