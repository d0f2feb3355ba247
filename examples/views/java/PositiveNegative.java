// expect: high-level-race 0, stale-value 0
// After the pattern of Anntester/Schirova-Home-work
// src/com/kblyumkin/lecture10/examples/RaceConditionExample.java: two Runnables set a shared
// static value under one lock and read it back in the same block, in a loop. Everything a
// thread reads it reads in the region that wrote it: no stale value, one variable: no
// high-level race.
public class PositiveNegative {
    static long value;
    static final Object lock = new Object();

    static class Positive implements Runnable {
        public void run() {
            for (int i = 0; i < 3; i++) {
                long now;
                synchronized (lock) {
                    value = 1000;
                    now = value;
                }
                if (now != 1000) {
                    System.out.println(now);
                }
            }
        }
    }

    static class Negative implements Runnable {
        public void run() {
            for (int i = 0; i < 3; i++) {
                long now;
                synchronized (lock) {
                    value = -1000;
                    now = value;
                }
                if (now != -1000) {
                    System.out.println(now);
                }
            }
        }
    }

    public static void main(String[] args) {
        new Thread(new Positive()).start();
        new Thread(new Negative()).start();
    }
}

// The answers of `views` on a run recorded with the agent (one per schedule where they differ;
// tested by crates/cli/tests/java_dynviews.rs):
// dynamic: high-level-race 0, stale-value 0
