//! `views` on recorded Java runs against `views` on the same Java sources: every program of
//! `examples/views/java` is compiled on its own, recorded with the agent (`synchronized`
//! methods as atomic blocks, as the static front end takes them) and analysed with
//! `views --regions both` (blocks and lock spans: `synchronized` blocks are regions statically
//! too, and the program using `lock()` is analysed statically with `--regions locks`). Each
//! run's answer must be one of the outcomes the program states at its end with `// dynamic:`
//! (counts) and the `// dynamic-finding: KIND VARS` lines after it (variables without the
//! agent's per-run object numbers `@ID`); a program has several such outcomes when the answer
//! depends on the schedule the run took. Where no outcome is the static answer (`// expect:`
//! and `// finding:`), the program explains the difference in a paragraph starting
//! `// Dynamic`. Skipped where no JDK or no agent is built, unless `HINDSIGHT_REQUIRE_JAVA=1`
//! (CI), where that is a failure.

mod common;

use common::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What one run of `views` answers: the counts and the distinct findings.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outcome {
    high_level_races: u64,
    stale_values: u64,
    /// `KIND VAR,VAR`, variables sorted, as the headers write them.
    findings: BTreeSet<String>,
}

/// `high-level-race N, stale-value M` into the two counts.
fn counts(line: &str, name: &str) -> (u64, u64) {
    let mut hlr = None;
    let mut stale = None;
    for kv in line.split(',') {
        let (k, n) = kv
            .trim()
            .rsplit_once(' ')
            .unwrap_or_else(|| panic!("{name}: `{line}`"));
        let n: u64 = n.parse().unwrap_or_else(|_| panic!("{name}: `{line}`"));
        match k {
            "high-level-race" => hlr = Some(n),
            "stale-value" => stale = Some(n),
            _ => panic!("{name}: unknown kind `{k}`"),
        }
    }
    (
        hlr.unwrap_or_else(|| panic!("{name}: no high-level-race count")),
        stale.unwrap_or_else(|| panic!("{name}: no stale-value count")),
    )
}

/// The static answer (`// expect:`, `// finding:`) and the dynamic outcomes of a header.
fn stated(text: &str, name: &str) -> (Outcome, Vec<Outcome>) {
    let mut stat: Option<Outcome> = None;
    let mut dynamic: Vec<Outcome> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("// expect:") {
            let (h, s) = counts(rest, name);
            stat = Some(Outcome {
                high_level_races: h,
                stale_values: s,
                findings: BTreeSet::new(),
            });
        } else if let Some(rest) = line.strip_prefix("// finding:") {
            let o = stat.as_mut().expect("`// expect:` before `// finding:`");
            o.findings.insert(rest.trim().to_string());
        } else if let Some(rest) = line.strip_prefix("// dynamic:") {
            let (h, s) = counts(rest, name);
            dynamic.push(Outcome {
                high_level_races: h,
                stale_values: s,
                findings: BTreeSet::new(),
            });
        } else if let Some(rest) = line.strip_prefix("// dynamic-finding:") {
            let o = dynamic
                .last_mut()
                .unwrap_or_else(|| panic!("{name}: `// dynamic:` before `// dynamic-finding:`"));
            o.findings.insert(rest.trim().to_string());
        }
    }
    (stat.expect("a `// expect:` line"), dynamic)
}

/// A trace variable as the headers name it: `Account.balance@1` is `Account.balance`,
/// `boolean[]@2[]` is `boolean[][]`.
fn unnumbered(var: &str) -> String {
    let mut out = String::new();
    let mut chars = var.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '@' && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn observed(trace: &str, name: &str) -> Outcome {
    let (code, v) = json(&["views", "--regions", "both", trace]);
    let summary = &v["summary"];
    let h = summary["high_level_races"].as_u64().expect("count");
    let s = summary["stale_values"].as_u64().expect("count");
    assert_eq!(code, if h + s > 0 { 1 } else { 0 }, "{name}");
    let findings = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let mut vars: Vec<String> = f["variables"]
                .as_array()
                .expect("variables")
                .iter()
                .map(|x| unnumbered(x.as_str().expect("name")))
                .collect();
            vars.sort();
            format!("{} {}", f["kind"].as_str().expect("kind"), vars.join(","))
        })
        .collect();
    Outcome {
        high_level_races: h,
        stale_values: s,
        findings,
    }
}

/// Whether Java can run here; `false` after saying why (a failure under
/// `HINDSIGHT_REQUIRE_JAVA=1`).
fn java_here() -> bool {
    let required = std::env::var_os("HINDSIGHT_REQUIRE_JAVA").is_some_and(|v| v == "1");
    let javac = Command::new("javac").arg("-version").output();
    let why = if !hindsight_java::agent_built() {
        "this build has no Java agent (no JDK or libasm-java at build time)"
    } else if !javac.is_ok_and(|o| o.status.success()) {
        "no javac"
    } else {
        return true;
    };
    assert!(!required, "HINDSIGHT_REQUIRE_JAVA=1 but {why}");
    eprintln!("skipped: {why}");
    false
}

/// Compiles one program into its own folder (programs reuse class names: `Counter`, `Atomic`).
fn compile(path: &Path, class: &str) -> PathBuf {
    let dir = temp(&format!("dynviews-{class}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new("javac")
        .arg("-d")
        .arg(&dir)
        .arg(path)
        .output()
        .expect("javac");
    assert!(
        out.status.success(),
        "{class}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

/// Records `class` with `synchronized` methods as atomic blocks; the trace's path.
fn record(classes: &Path, class: &str, run: usize) -> String {
    let trace = temp(&format!("dynviews-{class}-{run}.hst"));
    let trace = trace.to_str().unwrap().to_string();
    let r = hindsight(&[
        "record",
        "--out",
        &trace,
        "--agent",
        "synchronized-atomic",
        "--",
        "java",
        "-Xshare:off",
        "-cp",
        classes.to_str().unwrap(),
        class,
    ]);
    assert_eq!(r.code, 0, "{class}: {}", r.stderr);
    trace
}

/// Each program is recorded once: the outcomes a program states are every answer its
/// schedules can give (reasoned in its trailer: the answer changes only where a branch on shared
/// state decides whether a region runs at all, since the views and their may-happen-in-parallel
/// relation are the same in every interleaving of the same regions), so one run of any
/// schedule must give one of them, and more runs would only cost time.
#[test]
fn every_recorded_program_gives_a_stated_dynamic_answer_and_explains_a_difference() {
    if !java_here() {
        return;
    }
    let dir = root().join("examples/views/java");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples/views/java")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "java"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "{} programs", files.len());
    let mut failures = Vec::new();
    for path in &files {
        let class = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let (stat, dynamic) = stated(&text, &class);
        assert!(
            !dynamic.is_empty(),
            "{class}: no `// dynamic:` line (the answer of `views` on a recorded run)"
        );
        for o in &dynamic {
            assert!(
                o.findings.len() as u64 <= o.high_level_races + o.stale_values,
                "{class}: more distinct findings than findings in {o:?}"
            );
        }
        // The static answer written as a dynamic outcome: every finding line once.
        let agrees = dynamic.iter().any(|o| {
            o.high_level_races == stat.high_level_races
                && o.stale_values == stat.stale_values
                && o.findings == stat.findings
        });
        assert!(
            agrees || text.lines().any(|l| l.starts_with("// Dynamic")),
            "{class}: the dynamic answers differ from the static one and no `// Dynamic` paragraph says why"
        );
        let classes = compile(path, &class);
        let trace = record(&classes, &class, 0);
        let got = observed(&trace, &class);
        if !dynamic.contains(&got) {
            failures.push(format!("{class}: {got:?}, stated {dynamic:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn objects_kept_apart_remove_the_class_level_warning_moth_gives() {
    if !java_here() {
        return;
    }
    let path = root().join("examples/views/java/Instances.java");
    let classes = compile(&path, "Instances");
    let trace = record(&classes, "Instances", 0);
    let (code, v) = json(&["views", "--regions", "both", &trace]);
    assert_eq!(code, 0);
    // MoTH's class-level `Pair.x`, `Pair.y` give the high-level race the header describes;
    // the run's two objects do not share them.
    assert_eq!(v["summary"]["removed_by_instances"], 1, "{v}");
    assert_eq!(v["summary"]["high_level_races"], 0);
}

#[test]
fn trace_variables_lose_only_their_object_numbers() {
    assert_eq!(unnumbered("Account.balance@1"), "Account.balance");
    assert_eq!(unnumbered("boolean[]@2[]"), "boolean[][]");
    assert_eq!(unnumbered("boolean[]@12[3]"), "boolean[][3]");
    assert_eq!(unnumbered("mail@example.x"), "mail@example.x");
    assert_eq!(unnumbered("Tally.explored"), "Tally.explored");
}

#[test]
fn a_header_states_counts_and_findings_per_outcome() {
    let text = "// expect: high-level-race 1, stale-value 0\n\
                // finding: high-level-race A.x,A.y\n\
                // dynamic: high-level-race 0, stale-value 0\n\
                // dynamic: high-level-race 1, stale-value 1\n\
                // dynamic-finding: high-level-race A.x,A.y\n\
                // dynamic-finding: stale-value A.x\n";
    let (stat, dynamic) = stated(text, "T");
    assert_eq!(stat.high_level_races, 1);
    assert_eq!(stat.findings.len(), 1);
    assert_eq!(dynamic.len(), 2);
    assert!(dynamic[0].findings.is_empty());
    assert_eq!(dynamic[1].stale_values, 1);
    assert_eq!(dynamic[1].findings.len(), 2);
}

#[test]
#[should_panic(expected = "unknown kind")]
fn a_header_with_an_unknown_kind_is_rejected() {
    stated(
        "// expect: high-level-race 0, stale-value 0\n// dynamic: data-race 1, stale-value 0\n",
        "T",
    );
}
