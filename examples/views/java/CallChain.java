// expect: high-level-race 0, stale-value 1
// finding: stale-value Slot.amount
// Call chains, arrays of objects, `for` with `break`: bank.slot(i).take(n) calls a method on a
// call's result. The teller finds the first slot holding enough (a search loop that breaks
// out), then takes from it in a second region with the amount it saw: stale value of
// `Slot.amount`. The slots are objects of one allocation site in an array (`Bank.slots[]` holds
// them); the refiller writes `Slot.amount` through the same chain.
class Slot {
    int amount = 10;

    synchronized int amount() { return amount; }

    synchronized void set(int a) { amount = a; }
}

class Bank {
    final Slot[] slots = new Slot[3];

    Bank() {
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot();
        }
    }

    Slot slot(int i) { return slots[i]; }
}

public class CallChain {
    static void teller(Bank bank, int n) {
        int found = -1;
        int seen = 0;
        for (int i = 0; i < 3; i++) {
            seen = bank.slot(i).amount();
            if (seen >= n) {
                found = i;
                break;
            }
        }
        if (found < 0) {
            return;
        }
        bank.slot(found).set(seen - n);
    }

    public static void main(String[] args) throws InterruptedException {
        Bank bank = new Bank();
        Thread teller = new Thread(() -> teller(bank, 4));
        Thread refill = new Thread(() -> bank.slot(0).set(10));
        teller.start();
        refill.start();
        teller.join();
        refill.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 1
// dynamic-finding: stale-value Slot.amount
