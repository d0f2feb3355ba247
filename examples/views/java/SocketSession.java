// expect: high-level-race 1, stale-value 1
// finding: high-level-race Meter.bytes,Session.socket.<state>
// finding: stale-value Session.socket.<state>
// State inside a JDK object (issue #41, item 1; the shape of MoTH's Connection test, written
// anew): a session keeps a `Socket` and counts the bytes sent. The socket's open or closed state
// lives inside the JDK object; the models table (`state Socket`) gives it one variable,
// `Session.socket.<state>`, read by `isClosed`/`getOutputStream` and overwritten by `close`.
// 1. High-level race: `hangUp` closes the socket in one atomic method and zeroes the counter in
//    another; `send` reads the socket state and updates the counter in one atomic method. The
//    write views {socket.<state>} and {Meter.bytes} of the hanging-up thread both overlap the
//    sender's maximal read view and form no chain (Property 1).
// 2. Stale value: `trySend` asks `isOpen()` in one atomic method and, because the answer was
//    yes, runs `send` (which writes `Meter.bytes`) in another; the other thread may close the
//    socket between them (check-then-act on `Session.socket.<state>`).
// `isOpen` alone, or `send` alone, is no finding: the counts are exactly one of each.
import java.io.IOException;
import java.net.Socket;

class Meter {
    int bytes;

    synchronized void reset() { bytes = 0; }

    void add(int n) { bytes = bytes + n; }
}

class Session {
    private final Meter meter = new Meter();
    private Socket socket;

    void open() { socket = new Socket(); }

    synchronized boolean isOpen() { return !socket.isClosed(); }

    synchronized void send(byte[] data) throws IOException {
        socket.getOutputStream().write(data);
        meter.add(data.length);
    }

    synchronized void closeSocket() throws IOException { socket.close(); }

    void hangUp() throws IOException {
        closeSocket();
        meter.reset();
    }
}

public class SocketSession {
    static void trySend(Session s, byte[] data) throws IOException {
        if (s.isOpen()) {
            s.send(data);
        }
    }

    public static void main(String[] args) throws Exception {
        Session s = new Session();
        s.open();
        Thread sender = new Thread(() -> {
            try {
                trySend(s, new byte[] {1, 2, 3});
            } catch (IOException e) {
                System.out.println(e);
            }
        });
        Thread closer = new Thread(() -> {
            try {
                s.hangUp();
            } catch (IOException e) {
                System.out.println(e);
            }
        });
        sender.start();
        closer.start();
        sender.join();
        closer.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
// Dynamic (recorded run): nothing, in every schedule. The agent records the socket's state
// through the field (`Session.socket.<state>`: isOpen() and send() read it, closeSocket()
// overwrites it), but the socket is never connected, so `getOutputStream` throws inside send()
// before `meter.add` runs (or, closer first, isOpen() is false and send() is not called): the
// sender's regions only read `Session.socket` and its state, together, as the closer's region
// accesses them (no split view, nothing written back), and `Meter.bytes` is written by
// reset() alone.
