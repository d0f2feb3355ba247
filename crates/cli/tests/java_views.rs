//! `hindsight views` on Java end to end: every program of `examples/views/java` gives exactly
//! the findings its header states (`// expect:` counts, one `// finding: KIND VARS` line per
//! finding, `// mode: library`, `// args:`), the text output shows both regions' lines, the
//! options, and bad input.

mod common;

use common::*;
use std::collections::BTreeMap;

fn header<'a>(text: &'a str, marker: &str) -> Vec<&'a str> {
    text.lines()
        .filter_map(|l| l.strip_prefix(marker))
        .map(str::trim)
        .collect()
}

#[test]
fn every_java_program_gives_exactly_its_stated_findings() {
    let dir = root().join("examples/views/java");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples/views/java")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "java"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "{} programs", files.len());
    let mut kinds_seen = BTreeMap::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let rel = format!("examples/views/java/{name}");
        let mut args = vec!["views", rel.as_str()];
        let extra = header(&text, "// args:");
        let extra: Vec<&str> = extra.iter().flat_map(|a| a.split_whitespace()).collect();
        args.extend(extra.iter().copied());
        let (code, v) = json(&args);
        let expect = header(&text, "// expect:");
        assert_eq!(expect.len(), 1, "{name}: one expect line");
        let counts: BTreeMap<&str, u64> = expect[0]
            .split(',')
            .map(|kv| {
                let (k, n) = kv.trim().rsplit_once(' ').expect("key count");
                (k, n.parse().expect("count"))
            })
            .collect();
        assert_eq!(
            v["summary"]["high_level_races"], counts["high-level-race"],
            "{name}"
        );
        assert_eq!(
            v["summary"]["stale_values"], counts["stale-value"],
            "{name}"
        );
        let total = counts.values().sum::<u64>();
        assert_eq!(code, if total > 0 { 1 } else { 0 }, "{name}");
        let mut want: Vec<String> = header(&text, "// finding:")
            .iter()
            .map(|s| s.to_string())
            .collect();
        want.sort();
        let mut got: Vec<String> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let mut vars: Vec<&str> = f["variables"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap())
                    .collect();
                vars.sort();
                format!("{} {}", f["kind"].as_str().unwrap(), vars.join(","))
            })
            .collect();
        got.sort();
        assert_eq!(got, want, "{name}");
        let library =
            !header(&text, "// mode: library").is_empty() || text.contains("\n// mode: library");
        assert_eq!(
            v["summary"]["mode"],
            if library { "library" } else { "program" },
            "{name}"
        );
        for f in v["findings"].as_array().unwrap() {
            *kinds_seen
                .entry(f["kind"].as_str().unwrap().to_owned())
                .or_insert(0) += 1;
            // Both regions of the split thread are named by their source lines.
            let regions = f["regions"].as_array().expect("regions");
            assert!(regions.len() >= 2, "{name}: {f}");
            for r in &regions[..2] {
                let lines = r["lines"].as_str().unwrap();
                assert!(lines.starts_with(&rel), "{name}: {lines}");
                assert!(!r["body"].as_str().unwrap().is_empty(), "{name}");
            }
        }
    }
    assert!(kinds_seen.len() == 2, "{kinds_seen:?}");
}

#[test]
fn text_output_shows_both_region_bodies() {
    let out = hindsight(&["views", "examples/views/java/Account.java"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    // The default memory limit is a share of the machine's memory.
    let (summary, limit) = out
        .stdout
        .rsplit_once(", memory_limit ")
        .expect("a memory limit");
    assert!(limit.trim().parse::<u64>().is_ok(), "{limit}");
    insta::assert_snapshot!(format!("{summary}\n"));
}

#[test]
fn library_mode_is_said_and_can_be_forced() {
    let out = hindsight(&["views", "examples/views/java/Library.java"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("library mode: no second thread"),
        "{}",
        out.stdout
    );
    // Coordinates starts two threads; forced into library mode, every public method is a
    // client (none is public there): nothing is reported, and the mode is said.
    let (code, v) = json(&["views", "examples/views/java/Coordinates.java", "--library"]);
    assert_eq!(code, 0);
    assert_eq!(v["summary"]["mode"], "library");
    let (code, v) = json(&["views", "examples/views/java/Coordinates.java"]);
    assert_eq!(code, 1);
    assert_eq!(v["summary"]["mode"], "program");
}

#[test]
fn lock_spans_are_regions_only_when_asked() {
    let (code, v) = json(&["views", "examples/views/java/LockAccount.java"]);
    assert_eq!(code, 0);
    assert_eq!(v["summary"]["regions"], 0);
    let (code, _) = json(&[
        "views",
        "examples/views/java/LockAccount.java",
        "--regions",
        "locks",
    ]);
    assert_eq!(code, 1);
}

#[test]
fn a_directory_is_one_program_and_models_extend_the_table() {
    let dir = temp("java-dir");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("Store.java"),
        "class Store {\n  Journal j = new Journal();\n  synchronized int size() { return j.length(); }\n  synchronized void log(int n) { j.reset(); }\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("Main.java"),
        "public class Main {\n  public static void main(String[] a) throws Exception {\n    Store s = new Store();\n    Thread t = new Thread(() -> { int n = s.size(); s.log(n); });\n    Thread u = new Thread(() -> s.log(0));\n    t.start(); u.start(); t.join(); u.join();\n  }\n}\n",
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    // `Journal` is unknown: its objects are opaque, nothing is shared, a warning says so.
    let out = hindsight(&["views", d]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("class `Journal` unknown"),
        "{}",
        out.stderr
    );
    // As a model whose reset() overwrites without reading: no stale value.
    let models = temp("java-models.txt");
    std::fs::write(&models, "Journal length read\nJournal reset write\n").unwrap();
    let m = models.to_str().unwrap();
    let (code, v) = json(&["views", d, "--models", m]);
    assert_eq!(code, 0, "{v}");
    // With reset() as an update (reads, then writes), log() still does not use the length it
    // was given... but its write depends on the contents it read itself, not on size()'s read.
    std::fs::write(&models, "Journal length read\nJournal reset update\n").unwrap();
    let (code, _) = json(&["views", d, "--models", m]);
    assert_eq!(code, 0);
    // A bad models file is an input error at its line.
    std::fs::write(&models, "Journal length sometimes\n").unwrap();
    let out = hindsight(&["views", d, "--models", m]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("models.txt:1:"), "{}", out.stderr);
}

/// `--models` adds a JDK-like type with a state (`state TYPES`) and a method that fills an
/// array argument (`read+argN`); a bad argument number is an input error at its line.
#[test]
fn models_add_state_variables_and_filled_arguments() {
    let dir = temp("java-gauge");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("Main.java"),
        "class Meter {\n  Gauge g = new Gauge();\n  synchronized int level() { return g.level(); }\n  synchronized void copy(int[] dst, int n) { g.sample(n, dst); }\n  synchronized void drain() { g.drain(); }\n}\npublic class Main {\n  public static void main(String[] a) throws Exception {\n    Meter m = new Meter();\n    Thread t = new Thread(() -> { int n = m.level(); int[] d = new int[4]; m.copy(d, n); });\n    Thread u = new Thread(() -> m.drain());\n    t.start(); u.start(); t.join(); u.join();\n  }\n}\n",
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    let models = temp("gauge-models.txt");
    let m = models.to_str().unwrap();
    // Without the fill, copy() only reads the gauge: no region acts on the level read.
    std::fs::write(
        &models,
        "Gauge level,sample read\nGauge drain update\nstate Gauge\n",
    )
    .unwrap();
    let (code, v) = json(&["views", d, "--models", m]);
    assert_eq!(code, 0, "{v}");
    // sample() fills its second argument: copy() writes a value computed from the stale level.
    std::fs::write(
        &models,
        "Gauge level read\nGauge sample read+arg2\nGauge drain update\nstate Gauge\n",
    )
    .unwrap();
    let (code, v) = json(&["views", d, "--models", m]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["findings"][0]["kind"], "stale-value", "{v}");
    assert_eq!(v["findings"][0]["variables"][0], "Meter.g.<state>", "{v}");
    std::fs::write(&models, "Gauge level read\nGauge sample read+arg0\n").unwrap();
    let out = hindsight(&["views", d, "--models", m]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("gauge-models.txt:2:") && out.stderr.contains("+argN"),
        "{}",
        out.stderr
    );
}

#[test]
fn unparsable_java_is_located_and_the_next_file_analysed() {
    let dir = temp("java-bad");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("A.java"),
        "class A {\n  void f() {\n    int x = ;\n  }\n}\n",
    )
    .unwrap();
    std::fs::copy(
        root().join("examples/views/java/Account.java"),
        dir.join("B.java"),
    )
    .unwrap();
    let a = dir.join("A.java");
    let b = dir.join("B.java");
    let out = hindsight(&["views", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("A.java:3:11: "), "{}", out.stderr);
    assert!(out.stderr.contains("file skipped"), "{}", out.stderr);
    assert!(out.stdout.contains("stale-value"), "{}", out.stdout);
    // Nothing analysable: exit 2, with the place.
    let out = hindsight(&["views", a.to_str().unwrap()]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("A.java:3:11: "), "{}", out.stderr);
    // Java with a trace is refused; so is --no-mhp on Java.
    let out = hindsight(&["views", b.to_str().unwrap(), "examples/views/account.std"]);
    assert_eq!(out.code, 2);
    let out = hindsight(&["views", b.to_str().unwrap(), "--no-mhp"]);
    assert_eq!(out.code, 2);
    // Garbage never panics.
    std::fs::write(dir.join("C.java"), "class {{{ ]] \u{0} synchronized").unwrap();
    let out = hindsight(&["views", dir.join("C.java").to_str().unwrap()]);
    assert_eq!(out.code, 2);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
}

/// A program whose one worker calls a chain of `depth` methods, each calling the next twice:
/// `2^depth` calls in all, each context of the last one a region of its own.
fn doubling_chain(depth: usize) -> String {
    let mut text = String::from(
        "class Cell {\n    int x;\n    @Atomic void bump() { x = x + 1; }\n}\n\npublic class Doubling {\n",
    );
    for i in 0..depth {
        text.push_str(&format!(
            "    static void m{i}(Cell c) {{ m{}(c); m{}(c); }}\n",
            i + 1,
            i + 1
        ));
    }
    text.push_str(&format!(
        "    static void m{depth}(Cell c) {{ c.bump(); }}\n    public static void main(String[] args) throws InterruptedException {{\n        Cell c = new Cell();\n        Thread t = new Thread(() -> m0(c));\n        t.start();\n        t.join();\n    }}\n}}\n\n@interface Atomic {{}}\n"
    ));
    text
}

#[test]
fn a_program_past_its_timeout_stops_with_unknown() {
    // 2^40 calls: hours of walking without the budget.
    let path = write_temp("Doubling.java", &doubling_chain(40));
    let started = std::time::Instant::now();
    let (code, v) = json(&["views", &path, "--timeout", "1"]);
    assert_eq!(code, 3, "{v:#}");
    assert_eq!(v["summary"]["budget_spent"], "timeout", "{v:#}");
    assert_eq!(v["summary"]["timeout"], 1.0, "{v:#}");
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    let out = hindsight(&["views", &path, "--timeout", "1", "--progress"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("views: unknown: the budget ran out (--timeout)"),
        "{}",
        out.stdout
    );
    // The memory limit stops it too (the regions of each context are held).
    let (code, v) = json(&["views", &path, "--memory-limit", "1M"]);
    assert_eq!(code, 3, "{v:#}");
    assert_eq!(v["summary"]["budget_spent"], "memory-limit", "{v:#}");
}

#[test]
fn a_program_within_its_budget_answers_as_without() {
    let path = write_temp("Doubling8.java", &doubling_chain(8));
    let (code, v) = json(&["views", &path, "--timeout", "60"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["summary"]["timeout"], 60.0, "{v:#}");
    assert!(v["summary"].get("budget_spent").is_none(), "{v:#}");
    // `.mv` programs take the budget options too.
    let (code, v) = json(&[
        "views",
        "examples/views/coordinates.mv",
        "--timeout",
        "60",
        "--memory-limit",
        "1G",
    ]);
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(v["summary"]["timeout"], 60.0, "{v:#}");
    assert_eq!(v["summary"]["memory_limit"], 1u64 << 30, "{v:#}");
}

#[test]
fn threads_that_start_their_own_class_are_bounded_and_said() {
    let started = std::time::Instant::now();
    let (code, v) = json(&["views", "examples/views/java/SpawnTree.java"]);
    // The bound is `spawn_copies` below (a count of the work); the wall time only catches an
    // unbounded walk (2^13 solvers), with room for a loaded machine.
    assert!(started.elapsed().as_secs() < 120, "{:?}", started.elapsed());
    assert_eq!(code, 1, "{v:#}");
    let s = &v["summary"];
    assert_eq!(s["spawn_copies"], 2, "{v:#}");
    assert_eq!(
        s["spawn_bounded"],
        serde_json::json!(["Solver@SpawnTree.java:50", "Solver@SpawnTree.java:51"]),
        "{v:#}"
    );
    // main, the root solver, its two children and their copies.
    assert_eq!(s["threads"], 6, "{v:#}");
    let out = hindsight(&["views", "examples/views/java/SpawnTree.java"]);
    assert!(
        out.stdout
            .contains("start threads of their own class: at most 2 threads of one class"),
        "{}",
        out.stdout
    );
}

/// `depth` methods each calling the next once; the last reads `Cell.x` in one region and
/// writes back a value computed from it in another, in two threads: one stale value.
fn plain_chain(depth: usize) -> String {
    let mut text = String::from(
        "class Cell {\n    int x;\n    @Atomic int get() { return x; }\n    @Atomic void set(int v) { x = v; }\n}\n\npublic class Chain {\n",
    );
    for i in 0..depth {
        text.push_str(&format!(
            "    static void m{i}(Cell c) {{ m{}(c); }}\n",
            i + 1
        ));
    }
    text.push_str(&format!(
        "    static void m{depth}(Cell c) {{ int v = c.get(); c.set(v + 1); }}\n    public static void main(String[] args) throws InterruptedException {{\n        Cell c = new Cell();\n        Thread a = new Thread(() -> m0(c));\n        Thread b = new Thread(() -> m0(c));\n        a.start();\n        b.start();\n        a.join();\n        b.join();\n    }}\n}}\n\n@interface Atomic {{}}\n"
    ));
    text
}

#[test]
fn deep_call_chains_are_followed_and_recursion_is_not() {
    for depth in [30, 200] {
        let path = write_temp(&format!("Chain{depth}.java"), &plain_chain(depth));
        let out = hindsight(&["views", &path]);
        assert_eq!(out.code, 1, "{depth}: {}{}", out.stdout, out.stderr);
        assert!(
            !out.stderr.contains("not followed"),
            "{depth}: {}",
            out.stderr
        );
        let (_, v) = json(&["views", &path]);
        assert_eq!(v["summary"]["stale_values"], 1, "{depth}: {v:#}");
    }
    // Real recursion: the method is on the stack when it is called again.
    let text = plain_chain(3).replace(
        "static void m1(Cell c) { m2(c); }",
        "static void m1(Cell c) { m2(c); m0(c); }",
    );
    assert!(text.contains("m0(c); }"), "{text}");
    let path = write_temp("Recursive.java", &text);
    let out = hindsight(&["views", &path]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("recursive call of `m0` not followed"),
        "{}",
        out.stderr
    );
}
