//! The Java programs of `examples/views/java` through the library entry point (the CLI test
//! `java_views` runs them through the binary): each gives the counts its `// expect:` line
//! states; and the precision rules one by one on small programs.

use hindsight_source::views::java::{analyse_java, JavaOptions};
use std::path::Path;

fn counts(name: &str, text: &str, options: &JavaOptions) -> (u64, u64) {
    let run = analyse_java(&[(name.to_owned(), text.to_owned())], options)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let s = &run.report.summary;
    (
        s["high_level_races"].as_u64().unwrap(),
        s["stale_values"].as_u64().unwrap(),
    )
}

#[test]
fn the_example_programs_give_their_stated_counts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/views/java");
    let mut n = 0;
    for e in std::fs::read_dir(dir).expect("examples") {
        let path = e.expect("entry").path();
        if path.extension().is_none_or(|x| x != "java") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let expect = text
            .lines()
            .find_map(|l| l.strip_prefix("// expect: high-level-race "))
            .expect("an expect line");
        let (races, stale) = expect.split_once(", stale-value ").expect("two counts");
        let options = JavaOptions {
            lock_regions: text.contains("// args: --regions locks"),
            ..JavaOptions::default()
        };
        assert_eq!(
            counts(&name, &text, &options),
            (races.parse().unwrap(), stale.parse().unwrap()),
            "{name}"
        );
        n += 1;
    }
    assert!(n >= 20, "{n}");
}

const SHARED: &str = "class S {\n  int x, y;\n  synchronized int get() { return x; }\n  synchronized void set(int v) { x = v; }\n  synchronized boolean ok() { return x > 0; }\n  synchronized void other(int v) { y = v; }\n}\n";

fn with_main(worker: &str, main: &str) -> String {
    format!(
        "{SHARED}class W implements Runnable {{\n  S s;\n  W(S s) {{ this.s = s; }}\n  public void run() {{\n{worker}\n  }}\n}}\npublic class Main {{\n  public static void main(String[] a) throws Exception {{\n    S s = new S();\n{main}\n  }}\n}}\n"
    )
}

const TWO: &str = "    Thread t1 = new Thread(new W(s));\n    Thread t2 = new Thread(new W(s));\n    t1.start();\n    t2.start();\n    t1.join();\n    t2.join();";

fn stale(worker: &str, main: &str) -> u64 {
    counts(
        "Main.java",
        &with_main(worker, main),
        &JavaOptions::default(),
    )
    .1
}

#[test]
fn data_dependence_is_a_stale_value_and_independence_is_not() {
    assert_eq!(stale("    int v = s.get();\n    s.set(v + 1);", TWO), 1);
    assert_eq!(stale("    int v = s.get();\n    s.set(1);", TWO), 0);
    // Through another variable's write: the value read still flows into a write.
    assert_eq!(
        stale("    int v = s.get();\n    s.other(v);\n    s.set(2);", TWO),
        1
    );
}

#[test]
fn control_dependence_is_a_stale_value() {
    assert_eq!(stale("    if (s.ok()) {\n      s.set(3);\n    }", TWO), 1);
    assert_eq!(stale("    if (!s.ok()) return;\n    s.set(3);", TWO), 1);
    // Both branches reach what follows: it does not depend on the condition.
    assert_eq!(
        stale(
            "    int k = 0;\n    if (s.ok()) { k = 1; } else { k = 2; }\n    s.set(3);",
            TWO
        ),
        0
    );
}

#[test]
fn the_order_of_regions_is_respected() {
    assert_eq!(
        stale(
            "    s.set(4);\n    int v = s.get();\n    System.out.println(v);",
            TWO
        ),
        0
    );
}

#[test]
fn a_thread_started_after_another_was_joined_is_not_paired() {
    let sequential = "    Thread t1 = new Thread(new W(s));\n    t1.start();\n    t1.join();\n    Thread t2 = new Thread(new W(s));\n    t2.start();\n    t2.join();";
    assert_eq!(
        stale("    int v = s.get();\n    s.set(v + 1);", sequential),
        0
    );
    // Joined after the second start: parallel.
    let overlapping = "    Thread t1 = new Thread(new W(s));\n    t1.start();\n    Thread t2 = new Thread(new W(s));\n    t2.start();\n    t1.join();\n    t2.join();";
    assert_eq!(
        stale("    int v = s.get();\n    s.set(v + 1);", overlapping),
        1
    );
}

#[test]
fn a_main_without_threads_is_a_library() {
    let text = with_main("", "    W w = new W(s);\n    w.run();");
    let run = analyse_java(&[("Main.java".into(), text)], &JavaOptions::default()).unwrap();
    assert_eq!(run.report.summary["mode"], "library");
}

/// A shared object whose `a()` splits what `b()` does in one region; `step` is the body of
/// `a()`'s first region, which decides whether its read of `n` leaves the read view.
fn read_modify_write(step: &str) -> (u64, u64) {
    let text = format!(
        "class S {{
    int n; int m;
    synchronized int a() {{ {step} }}
    synchronized int c() {{ return m; }}
    synchronized void b() {{ n = 0; m = 0; }}
}}
public class Main {{
    public static void main(String[] args) throws InterruptedException {{
        S s = new S();
        Thread t1 = new Thread(() -> {{ s.a(); s.c(); }});
        Thread t2 = new Thread(() -> s.b());
        t1.start(); t2.start(); t1.join(); t2.join();
    }}
}}
"
    );
    counts("Main.java", &text, &JavaOptions::default())
}

#[test]
fn a_read_that_only_writes_its_own_variable_back_leaves_the_read_view() {
    // `n = n + 1` observes nothing with `m`: the read views {}, {m} form a chain under b()'s
    // {n, m}.
    assert_eq!(read_modify_write("n = n + 1; return 0;"), (0, 0));
    // The read is returned, decides a branch, is kept in a local, or written to another
    // variable: it stays
    // ({n} and {m} split b()'s {n, m}).
    assert_eq!(read_modify_write("n = n + 1; return n;").0, 1);
    assert_eq!(
        read_modify_write("if (n > 0) { n = n + 1; } return 0;").0,
        1
    );
    assert_eq!(read_modify_write("int k = n; n = k + 1; return k;").0, 1);
    assert_eq!(read_modify_write("n = n + 1; m = n; return 0;").0, 1);
}

/// Main's own check-then-act after the threads of `start` and `join`: a stale value only if
/// some worker (which writes `x`) may still run.
fn main_after(start_and_join: &str) -> u64 {
    stale(
        "    s.set(1);",
        &format!("{start_and_join}\n    int v = s.get();\n    s.set(v + 1);"),
    )
}

#[test]
fn threads_started_in_a_loop_and_joined_in_a_loop_are_joined() {
    let shapes = [
        // Slots started in place, an enhanced `for` joining.
        "    Thread[] ts = new Thread[3];\n    for (int i = 0; i < ts.length; i++) {\n      ts[i] = new Thread(new W(s));\n      ts[i].start();\n    }\n    for (Thread t : ts) t.join();",
        // A local stored into its slot, a counter joining, the join in a `try`.
        "    Thread[] ts = new Thread[4];\n    for (int i = 0; i < 4; ++i) {\n      Thread t = new Thread(new W(s));\n      t.start();\n      ts[i] = t;\n    }\n    for (int j = 0; j < ts.length; j++) {\n      try { ts[j].join(); } catch (InterruptedException e) { }\n    }",
        // A list.
        "    java.util.List<Thread> ts = new java.util.ArrayList<>();\n    for (int i = 0; i < 3; i++) {\n      Thread t = new Thread(new W(s));\n      ts.add(t);\n      t.start();\n    }\n    for (Thread t : ts) {\n      t.join();\n    }",
    ];
    for shape in shapes {
        assert_eq!(main_after(shape), 0, "{shape}");
    }
}

#[test]
fn a_join_loop_that_may_miss_a_thread_joins_none() {
    let start = "    Thread[] ts = new Thread[3];\n    for (int i = 0; i < ts.length; i++) {\n      ts[i] = new Thread(new W(s));\n      ts[i].start();\n    }\n";
    let not_all = [
        // Not every slot.
        format!("{start}    for (int j = 0; j < 2; j++) ts[j].join();"),
        format!("{start}    for (int j = 1; j < ts.length; j++) ts[j].join();"),
        // May leave early.
        format!("{start}    for (Thread t : ts) {{ if (t == null) break; t.join(); }}"),
        // The join under a branch.
        format!("{start}    for (Thread t : ts) {{ if (s.ok()) t.join(); }}"),
        // The array escapes: the callee may replace a slot.
        format!("{start}    shuffle(ts);\n    for (Thread t : ts) t.join();"),
        // Another slot store after the start loop.
        format!("{start}    ts[0] = new Thread(new W(s));\n    for (Thread t : ts) t.join();"),
        // Only under a branch.
        format!("{start}    if (s.ok()) {{ for (Thread t : ts) t.join(); }}"),
        // The slot stored under a branch: a started thread may have no slot.
        "    Thread[] ts = new Thread[3];\n    for (int i = 0; i < 3; i++) {\n      Thread t = new Thread(new W(s));\n      t.start();\n      if (s.ok()) ts[i] = t;\n    }\n    for (Thread t : ts) t.join();".to_owned(),
        // The counter moved in the body: two starts may share a slot.
        "    Thread[] ts = new Thread[3];\n    for (int i = 0; i < 3; i++) {\n      ts[i] = new Thread(new W(s));\n      ts[i].start();\n      i = i - 1 + 1;\n    }\n    for (Thread t : ts) t.join();".to_owned(),
        // A `while` filling slots by hand.
        "    Thread[] ts = new Thread[3];\n    int i = 0;\n    while (i < 3) {\n      ts[i] = new Thread(new W(s));\n      ts[i].start();\n      i++;\n    }\n    for (Thread t : ts) t.join();".to_owned(),
    ];
    for shape in &not_all {
        assert!(main_after(shape) > 0, "{shape}");
    }
}

/// Stale values of a task submitted three times to `pool`, checking then setting `x`.
fn tasks(pool: &str) -> u64 {
    stale(
        "    if (s.ok()) {\n      s.set(3);\n    }",
        &format!("    java.util.concurrent.ExecutorService e = java.util.concurrent.Executors.{pool};\n    for (int i = 0; i < 3; i++) e.submit(new W(s));\n    e.shutdown();\n    e.awaitTermination(1, java.util.concurrent.TimeUnit.SECONDS);"),
    )
}

#[test]
fn a_single_thread_executor_runs_its_tasks_one_at_a_time() {
    assert_eq!(tasks("newSingleThreadExecutor()"), 0);
    assert_eq!(tasks("newFixedThreadPool(1)"), 0);
    assert_eq!(tasks("newFixedThreadPool(2)"), 1);
    assert_eq!(tasks("newCachedThreadPool()"), 1);
    // One executor per iteration: tasks of different executors run at once.
    let each = stale(
        "    if (s.ok()) {\n      s.set(3);\n    }",
        "    for (int i = 0; i < 3; i++) {\n      java.util.concurrent.ExecutorService e = java.util.concurrent.Executors.newSingleThreadExecutor();\n      e.submit(new W(s));\n    }",
    );
    assert_eq!(each, 1);
}

#[test]
fn invoke_all_runs_each_task_as_often_as_listed_and_joins_them() {
    let run = |adds: &str| {
        stale(
            "    if (s.ok()) {\n      s.set(3);\n    }",
            &format!("    java.util.concurrent.ExecutorService e = java.util.concurrent.Executors.newFixedThreadPool(4);\n    java.util.List<W> l = new java.util.ArrayList<>();\n{adds}\n    e.invokeAll(l);\n    int v = s.get();\n    s.set(v + 1);"),
        )
    };
    // Listed once: no copy, and main's check-then-act after `invokeAll` runs alone.
    assert_eq!(run("    l.add(new W(s));"), 0);
    // Listed in a loop, or twice: two runs at once.
    assert_eq!(run("    for (int i = 0; i < 2; i++) l.add(new W(s));"), 1);
    assert_eq!(run("    W w = new W(s);\n    l.add(w);\n    l.add(w);"), 1);
}
