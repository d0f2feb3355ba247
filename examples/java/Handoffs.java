// Ten hand-offs from a producer thread to a consumer thread, each through one of the
// synchronizers the agent models, each on its own variable: no race. Each line marked
// `without OPTION` races when the agent drops that kind of edge (the tests check each).
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

public class Handoffs {
    static int latched, permitted, met, written, notified, locked, flagged, computed, queued, slotted;
    static final CountDownLatch latch = new CountDownLatch(1);
    static final Semaphore semaphore = new Semaphore(0);
    static final CyclicBarrier barrier = new CyclicBarrier(2);
    static final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    static final ReentrantLock lock = new ReentrantLock();
    static final AtomicBoolean flag = new AtomicBoolean();
    static final AtomicIntegerArray slots = new AtomicIntegerArray(4);
    static final Object monitor = new Object();
    static final LinkedBlockingQueue<String> queue = new LinkedBlockingQueue<>();
    static boolean ready;

    interface Body {
        void run() throws Exception;
    }

    static Thread spawn(String name, Body body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        }, name);
        t.start();
        return t;
    }

    static void pause() throws InterruptedException {
        Thread.sleep(300);
    }

    public static void main(String[] args) throws Exception {
        Thread[] ts = {
            spawn("latch-producer", () -> {
                latched = 1; // without no-message-edges
                latch.countDown();
            }),
            spawn("latch-consumer", () -> {
                latch.await();
                System.out.println(latched); // without no-message-edges
            }),
            spawn("semaphore-producer", () -> {
                permitted = 1; // without no-message-edges
                semaphore.release();
            }),
            spawn("semaphore-consumer", () -> {
                semaphore.acquire();
                System.out.println(permitted); // without no-message-edges
            }),
            spawn("barrier-producer", () -> {
                met = 1; // without no-message-edges
                barrier.await();
            }),
            spawn("barrier-consumer", () -> {
                barrier.await();
                System.out.println(met); // without no-message-edges
            }),
            spawn("rw-producer", () -> {
                rw.writeLock().lock();
                written = 1; // without no-message-edges
                rw.writeLock().unlock();
            }),
            spawn("rw-consumer", () -> {
                pause();
                rw.readLock().lock();
                int seen = written; // without no-message-edges
                rw.readLock().unlock();
                System.out.println(seen);
            }),
            spawn("wait-producer", () -> {
                notified = 1; // without no-lock-edges
                synchronized (monitor) {
                    ready = true; // without no-lock-edges
                    monitor.notifyAll();
                }
            }),
            spawn("wait-consumer", () -> {
                synchronized (monitor) {
                    while (!ready) { // without no-lock-edges
                        monitor.wait();
                    }
                }
                System.out.println(notified); // without no-lock-edges
            }),
            spawn("lock-producer", () -> {
                lock.lock();
                locked = 1; // without no-lock-edges
                lock.unlock();
            }),
            spawn("lock-consumer", () -> {
                pause();
                lock.lock();
                System.out.println(locked); // without no-lock-edges
                lock.unlock();
            }),
            spawn("flag-producer", () -> {
                flagged = 1; // without no-message-edges no-volatile-edges
                flag.set(true);
            }),
            spawn("flag-consumer", () -> {
                while (!flag.get()) {
                    Thread.onSpinWait();
                }
                System.out.println(flagged); // without no-message-edges no-volatile-edges
            }),
            spawn("slot-producer", () -> {
                slotted = 1; // without no-message-edges no-volatile-edges
                slots.set(2, 1);
            }),
            spawn("slot-consumer", () -> {
                while (slots.get(2) == 0) {
                    Thread.onSpinWait();
                }
                System.out.println(slotted); // without no-message-edges no-volatile-edges
            }),
            spawn("queue-producer", () -> {
                queued = 1; // without no-message-edges
                queue.put("job");
            }),
            spawn("queue-consumer", () -> {
                queue.take();
                System.out.println(queued); // without no-message-edges
            }),
            spawn("future-consumer", () -> {
                CompletableFuture<Integer> f = CompletableFuture.supplyAsync(() -> {
                    computed = 1; // without no-message-edges no-executor-edges
                    return 1;
                });
                f.join();
                System.out.println(computed); // without no-message-edges no-executor-edges
            }),
        };
        for (Thread t : ts) {
            t.join();
        }
    }
}
