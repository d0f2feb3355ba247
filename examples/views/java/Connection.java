// expect: high-level-race 0, stale-value 1
// finding: stale-value Connection.connected
// Connection (Beckman, Bierhoff and Aldrich, OOPSLA 2008; MoTH Table 2: two anomalies, one
// missed by MoTH): the sender checks isConnected() in one atomic method and sends in another
// (check-then-act); the closer disconnects and empties the buffer atomically.
// - no high-level race here: send() reads `buffer` only to write `buffer + x` back in the same
//   region, so its read view holds nothing (docs/views.md, read-modify-write); the sender's
//   read view {connected} and write view {buffer} against the closer's {connected, buffer} form chains.
//   The anomaly the race stood for (a send after the disconnect) is the stale value below.
//   (MoTH's suite version reads the socket's state in send(): there the race stays.)
// - stale value of `connected`: send() runs only if the value read by isConnected() was true
//   (control dependence), and the closer writes `connected` in between. MoTH's false negative.
public class Connection {
    private boolean connected = true;
    private int buffer;

    @Atomic
    boolean isConnected() { return connected; }

    @Atomic
    void send(int x) { buffer = buffer + x; }

    @Atomic
    void disconnect() {
        connected = false;
        buffer = 0;
    }

    void trySend(int x) {
        if (isConnected()) {
            send(x);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Connection c = new Connection();
        Thread sender = new Thread(() -> c.trySend(3));
        Thread closer = new Thread(() -> c.disconnect());
        sender.start();
        closer.start();
        sender.join();
        closer.join();
    }
}

@interface Atomic {}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
// dynamic: high-level-race 1, stale-value 0
// dynamic-finding: high-level-race Connection.buffer,Connection.connected
// Dynamic (recorded run): MoTH's answer, which depends on the schedule. Sender first: its
// views {connected} and {buffer} against the closer's {connected, buffer}: the high-level
// race. Closer first: isConnected() sees false and send() does not run: nothing. The stale
// value of `connected` is never reported: the sender never writes `connected`, and a trace
// holds no control dependence (MoTH's false negative, as the static side explains).
