// expect: high-level-race 0, stale-value 1
// finding: stale-value AllocationVector.used[]
// Allocate Vector (IBM's concurrency testing repository): a thread finds a free block in one
// synchronized method and marks it used in another; two threads can allocate the same block.
// The array is an object with one element variable `AllocationVector.used[]`; the element
// written is chosen by the index read in the first region (the index flows into the write):
// stale value. No high-level race: one variable.
class AllocationVector {
    private final boolean[] used = new boolean[8];

    synchronized int findFree() {
        for (int i = 0; i < used.length; i++) {
            if (!used[i]) {
                return i;
            }
        }
        return -1;
    }

    synchronized void markUsed(int i) { used[i] = true; }

    int allocate() {
        int i = findFree();
        if (i >= 0) {
            markUsed(i);
        }
        return i;
    }
}

public class AllocateVector {
    public static void main(String[] args) throws InterruptedException {
        AllocationVector v = new AllocationVector();
        Thread a = new Thread(() -> v.allocate());
        Thread b = new Thread(() -> v.allocate());
        a.start();
        b.start();
        a.join();
        b.join();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 1
// dynamic-finding: stale-value boolean[][]
// Dynamic (recorded run): the same stale value, named `boolean[]@ID[]`: the agent names an array
// by its type and object (the field `used` is final, so no access names it), and `views` on a
// trace takes every element of a Java array as one variable, as the static side does.
