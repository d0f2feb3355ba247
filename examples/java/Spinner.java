// Never ends by itself, as MoTH's test programs and servers do: the tests record it with
// `--max-trace`, which stops it (SIGTERM, so that the agent's shutdown hook ends the trace)
// once its trace holds that much.
public class Spinner {
    static int n;

    public static void main(String[] args) {
        while (true) {
            n++;
        }
    }
}
