// Atomic blocks from annotations: an `Atomic` annotation of any package or nesting, retained
// at run time here (CLASS, the default, works too: Atomic.java), and, with the agent option
// synchronized-atomic, every synchronized method. `deposit` reads and writes the balance in
// two critical sections, so two deposits can interleave: an atomicity violation.
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

public class Blocks {
    @Retention(RetentionPolicy.RUNTIME)
    @interface Atomic {}

    static int balance;
    static final Object lock = new Object();

    static synchronized int total() {
        return balance;
    }

    @Atomic
    static void deposit(int n) {
        int b;
        synchronized (lock) {
            b = balance; // finding
        }
        synchronized (lock) {
            balance = b + n; // finding
        }
    }

    public static void main(String[] args) throws Exception {
        Thread a = new Thread(() -> deposit(1), "a");
        Thread b = new Thread(() -> deposit(2), "b");
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println(total());
    }
}
