// Records a little, then sleeps: the tests stop it with SIGTERM (the shutdown hook writes the
// whole trace) and with SIGKILL (`record` keeps the records the agent had flushed).
public class Sleeper {
    static int n;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 1000; i++) {
            n++;
        }
        Thread.sleep(60_000);
    }
}
