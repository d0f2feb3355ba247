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
    insta::assert_snapshot!(out.stdout);
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
