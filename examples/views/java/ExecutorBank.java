// expect: high-level-race 0, stale-value 1
// finding: stale-value BankAccount.balance
// Executors and check-then-act with an early return: each task checks the balance in one
// synchronized call and returns when it is too low; otherwise it debits in another. The debit
// runs only because the check passed (control dependence through the early `return`), and it
// writes a value computed from the balance it read itself — but that read comes from `debit`'s
// own region, so only the check is stale: two tasks can both pass the check and overdraw.
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

class BankAccount {
    private int balance = 100;

    synchronized int balance() { return balance; }

    synchronized void debit(int amount) { balance = balance - amount; }

    void withdraw(int amount) {
        if (balance() < amount) {
            return;
        }
        debit(amount);
    }
}

public class ExecutorBank {
    public static void main(String[] args) throws InterruptedException {
        BankAccount acct = new BankAccount();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        pool.submit(() -> acct.withdraw(80));
        pool.submit(() -> acct.withdraw(60));
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.SECONDS);
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
// dynamic: high-level-race 0, stale-value 1
// dynamic-finding: stale-value BankAccount.balance
// Dynamic (recorded run): depends on the schedule. The usual run: the first task debits (20
// left), the second sees 20 < 60 and returns, never writing: nothing (also when one pool thread
// runs both tasks). Only when both tasks pass the check before either debits does each thread
// read the balance in one region and write it in another while the other writes it: the stale
// value.
