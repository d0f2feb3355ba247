// expect: high-level-race 2, stale-value 2
// finding: high-level-race Table.size,Table.sum
// finding: high-level-race Table.size,Table.sum
// finding: stale-value Table.size
// finding: stale-value Table.sum
// Arithmetic Database (Teixeira et al., PADTAD 2010): inserting a row updates the row count and
// the column sum by read-then-write in separate transactions (lost updates of each); an auditor
// reads count and sum together. Three anomalies: stale values of `size` and of `sum` (the
// inserters, against each other), and the auditor's consistent view {size, sum} against each
// inserter's separate updates (one high-level race per inserter).
class Table {
    int size;
    int sum;

    synchronized int getSize() { return size; }
    synchronized void setSize(int s) { size = s; }
    synchronized int getSum() { return sum; }
    synchronized void setSum(int s) { sum = s; }

    synchronized int average() { return size == 0 ? 0 : sum / size; }

    void insert(int value) {
        int n = getSize();
        setSize(n + 1);
        int s = getSum();
        setSum(s + value);
    }
}

public class ArithmeticDb {
    public static void main(String[] args) throws InterruptedException {
        Table t = new Table();
        Thread i1 = new Thread(() -> t.insert(5));
        Thread i2 = new Thread(() -> t.insert(7));
        Thread auditor = new Thread(() -> System.out.println(t.average()));
        i1.start();
        i2.start();
        auditor.start();
        i1.join();
        i2.join();
        auditor.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 2, stale-value 2
// dynamic-finding: high-level-race Table.size,Table.sum
// dynamic-finding: stale-value Table.size
// dynamic-finding: stale-value Table.sum
// dynamic: high-level-race 0, stale-value 2
// dynamic-finding: stale-value Table.size
// dynamic-finding: stale-value Table.sum
// Dynamic (recorded run): the static answer when the auditor runs after an insert; when it runs
// before both (`size` is 0), average() does not read `sum`: its view is {size}, and the
// high-level races, which need its consistent view {size, sum}, do not show.
