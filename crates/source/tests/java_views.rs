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
