// Journal with a `StringBuffer`: every method holds the buffer's monitor (the JDK models
// table lists it as `synchronized`), so the two appends are ordered by it and do not race.
// Twin of: Journal.
public class JournalFixed {
    private final StringBuffer text = new StringBuffer();

    void note(String s) {
        text.append(s);
    }

    public static void main(String[] args) throws Exception {
        JournalFixed j = new JournalFixed();
        Thread a = new Thread(() -> j.note("a"));
        Thread b = new Thread(() -> j.note("b"));
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println(j.text.length());
    }
}
