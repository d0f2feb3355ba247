// Stops the JVM without its shutdown hooks (as a hard kill does) after writing for a while:
// `hindsight record` keeps the complete records the agent had written and warns where the
// trace stops.
public class Halt {
    static long n;

    public static void main(String[] args) {
        long end = System.nanoTime() + 600_000_000L;
        while (System.nanoTime() < end) {
            n++;
        }
        Runtime.getRuntime().halt(3);
    }
}
