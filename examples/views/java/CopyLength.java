// expect: high-level-race 0, stale-value 1
// finding: stale-value CopyLength.chars[]
// mode: library
// State inside a JDK object read by one atomic method and used by the next (issue #41, item 1;
// the shape of MoTH's StringBuffer test, written anew): `copyOf` asks the other text's length
// in one atomic method and passes it to `copyInto`, which copies that many characters with
// `StringBuilder.getChars` into the fresh array (`read+arg3` in the models table: the array is
// filled from the contents and the length given). Another client may `trim` the text between
// them, so the copy is made with a stale length: one stale value on `CopyLength.chars[]`. No program
// thread is started, so every public method is a client (library mode, MoTH's assumption); each
// region touches one shared variable: no high-level race.
public class CopyLength {
    private final StringBuilder chars = new StringBuilder("some text");

    public synchronized int length() { return chars.length(); }

    public synchronized void copyInto(char[] dst, int n) { chars.getChars(0, n, dst, 0); }

    public synchronized void trim() { chars.deleteCharAt(0); }

    public char[] copyOf(CopyLength other) {
        int n = other.length();
        char[] dst = new char[n];
        other.copyInto(dst, n);
        return dst;
    }

    public static void main(String[] args) {
        CopyLength a = new CopyLength();
        CopyLength b = new CopyLength();
        a.copyOf(b);
        b.trim();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
// Dynamic (recorded run): nothing. Library mode has no counterpart in a run: main calls the
// library from one thread (main exists only to be recorded). The agent records the
// `StringBuilder`'s contents through the field (`CopyLength.chars[]`: read by `length` and
// `copyInto`, updated by `trim`), but one thread has no pair of threads to report; the copy
// into `dst` (`getChars` filling its argument) is JDK code and not recorded.
