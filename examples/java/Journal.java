// Two threads append to one `StringBuilder` reached through a field, with no lock: a data
// race inside the JDK object, which the agent records as accesses of its contents
// (`Journal.text[]`: `append` updates them, as the JDK models table says) since the JDK itself
// is not instrumented.
// Twin: JournalFixed (a `StringBuffer`, whose methods are synchronized).
public class Journal {
    private final StringBuilder text = new StringBuilder();

    void note(String s) {
        text.append(s); // finding
    }

    public static void main(String[] args) throws Exception {
        Journal j = new Journal();
        Thread a = new Thread(() -> j.note("a"));
        Thread b = new Thread(() -> j.note("b"));
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println(j.text.length());
    }
}
