// StartJoin reading the total before the join: a race.
public class StartJoinBroken {
    int total;

    public static void main(String[] args) throws Exception {
        StartJoinBroken s = new StartJoinBroken();
        s.total = 1;
        Thread t = new Thread(() -> s.total += 41, "child"); // finding
        t.start();
        Thread.sleep(100);
        System.out.println(s.total); // finding
        t.join();
    }
}
