// A thread's start happens before its first action, its last action before the return of
// its join (JLS 17.4.5): no race. Without the join's edge (agent option no-join-edges) the
// child's write and the main thread's read race.
public class StartJoin {
    int total;

    public static void main(String[] args) throws Exception {
        StartJoin s = new StartJoin();
        s.total = 1;
        Thread t = new Thread(() -> s.total += 41, "child"); // finding-without-edge
        t.start();
        t.join();
        System.out.println(s.total); // finding-without-edge
    }
}
