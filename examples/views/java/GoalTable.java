// expect: high-level-race 1, stale-value 0
// finding: high-level-race Goal.reached,Goal.value
// Arrays of objects shared through two classes (issue #41, item 2; the shape of MoTH's NASA
// test, written anew): `main` makes one `Goal[]` and hands it to a monitor and a worker.
// No element is ever stored, so the analysis takes one `Goal` object to stand for the elements
// (MoTH's variables are class and field: `goals[k].reached` is `Goal.reached` whatever `k` is).
// A worker records a goal's value and marks it reached in two atomic methods; the monitor reads
// both in one. The worker's write views {Goal.value} and {Goal.reached} both overlap the
// monitor's maximal read view and form no chain: one high-level race. No value read in one
// region is used by a later one of the same thread: no stale value.
class Goal {
    int value;
    boolean reached;
}

class Monitor extends Thread {
    private final Goal[] goals;

    Monitor(Goal[] goals) { this.goals = goals; }

    synchronized boolean inconsistent(int k) {
        return goals[k].reached && goals[k].value == 0;
    }

    public void run() {
        if (inconsistent(3)) {
            System.out.println("goal 3 reached without a value");
        }
    }
}

class Worker extends Thread {
    private final Goal[] goals;

    Worker(Goal[] goals) { this.goals = goals; }

    synchronized void record(int k, int v) { goals[k].value = v; }

    synchronized void reach(int k) { goals[k].reached = true; }

    public void run() {
        record(3, 42);
        reach(3);
    }
}

public class GoalTable {
    public static void main(String[] args) {
        Goal[] goals = new Goal[8];
        new Monitor(goals).start();
        new Worker(goals).start();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
// Dynamic (recorded run): nothing. No element of `goals` is stored, so `goals[3]` is null in
// the run: inconsistent() and record() each read `Goal[]@ID[]` and throw a
// NullPointerException, which ends both threads; reach() never runs and no `Goal` field is
// accessed. The static side takes one `Goal` object for the elements; a run has none.
