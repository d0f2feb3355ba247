package hindsight.rt;

import java.io.IOException;

/** Starts the recording session with the agent's options. */
public final class Control {
    private Control() {}

    public static void start(String out, String options) throws IOException {
        for (String opt : options.split(",")) {
            // Each disables one kind of happens-before edge: only for tests showing the race
            // the edge hides (docs/java.md).
            switch (opt) {
                case "no-volatile-edges": R.noVolatileEdges = true; break;
                case "no-executor-edges": R.noExecutorEdges = true; break;
                case "no-join-edges": R.noJoinEdges = true; break;
                case "no-fork-edges": R.noForkEdges = true; break;
                case "no-lock-edges": Trace.noLocks = true; break;
                case "no-message-edges": Trace.noMessages = true; break;
                default: break;
            }
        }
        Trace.start(out);
    }
}
