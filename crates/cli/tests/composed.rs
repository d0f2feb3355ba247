//! `hindsight composed` end to end: every operation of `examples/composed/*.java` gets the
//! class, reasons, verdict and bounded verdict its `// expect:` lines state; doubleNonLin's
//! counterexample is the trace of Fig. 4a; formats, exit statuses and bad input.

mod common;

use common::*;

use serde_json::Value;
use std::process::Command;

/// What an example file says about one operation.
#[derive(Debug, Default)]
struct Expected {
    name: String,
    class: String,
    verdict: String,
    reasons: Vec<String>,
    bounded: Option<String>,
    /// The bounded violation's assumptions about unknown values, exactly and in order.
    assumes: Vec<String>,
    /// Steps the bounded violation's witness takes, in order (each a substring of one event).
    witness: Vec<String>,
}

/// Reads the `// expect:`, `// reasons:` and `// bounded:` lines and the name of the operation
/// that follows them.
fn expectations(file: &str) -> Vec<Expected> {
    let text = std::fs::read_to_string(root().join(file)).expect("example file");
    let mut out = Vec::new();
    let mut current: Option<Expected> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("// expect:") {
            let mut words = rest.split_whitespace();
            current = Some(Expected {
                class: words.next().expect("a class").to_owned(),
                verdict: words.next().expect("a verdict").to_owned(),
                ..Expected::default()
            });
        } else if let Some(rest) = t.strip_prefix("// reasons:") {
            let e = current.as_mut().expect("reasons after expect");
            e.reasons = rest.split_whitespace().map(str::to_owned).collect();
        } else if let Some(rest) = t.strip_prefix("// bounded:") {
            let e = current.as_mut().expect("bounded after expect");
            e.bounded = Some(rest.trim().to_owned());
        } else if let Some(rest) = t.strip_prefix("// assumes:") {
            let e = current.as_mut().expect("assumes after expect");
            e.assumes.push(rest.trim().to_owned());
        } else if let Some(rest) = t.strip_prefix("// witness:") {
            let e = current.as_mut().expect("witness after expect");
            e.witness = rest.split(" | ").map(|w| w.trim().to_owned()).collect();
        } else if !t.starts_with("//") && t.contains('(') {
            if let Some(mut e) = current.take() {
                let before = &t[..t.find('(').expect("a parenthesis")];
                e.name = before.split_whitespace().last().expect("a name").to_owned();
                out.push(e);
            }
        }
    }
    out
}

fn operations(json: &Value) -> &Vec<Value> {
    json["summary"]["operations"]
        .as_array()
        .expect("summary.operations")
}

fn find<'a>(ops: &'a [Value], name: &str) -> &'a Value {
    ops.iter()
        .find(|o| o["name"] == name)
        .unwrap_or_else(|| panic!("no operation {name} in the report"))
}

fn check_file(file: &str, minimum: usize) {
    let expected = expectations(file);
    assert!(
        expected.len() >= minimum,
        "{file}: {} expectations",
        expected.len()
    );
    let plain = hindsight(&["composed", file, "--format", "json"]);
    assert!(plain.code == 0 || plain.code == 1, "{}", plain.stderr);
    let plain: Value = serde_json::from_str(&plain.stdout).expect("json");
    let bounded = hindsight(&["composed", file, "--bounded", "--format", "json"]);
    let bounded: Value = serde_json::from_str(&bounded.stdout).expect("json");
    assert_eq!(
        operations(&plain).len(),
        expected.len(),
        "{file}: every operation has an expectation"
    );
    for e in &expected {
        let op = find(operations(&plain), &e.name);
        assert_eq!(op["class"], e.class.as_str(), "{}: class", e.name);
        assert_eq!(op["verdict"], e.verdict.as_str(), "{}: verdict", e.name);
        let rules: Vec<&str> = op["reasons"]
            .as_array()
            .expect("reasons")
            .iter()
            .map(|r| r["rule"].as_str().expect("rule"))
            .collect();
        for r in &e.reasons {
            assert!(
                rules.contains(&r.as_str()),
                "{}: reason {r} missing from {rules:?}",
                e.name
            );
        }
        assert_eq!(
            rules.is_empty(),
            e.class != "data-dependent",
            "{}: reasons exactly for data-dependent operations: {rules:?}",
            e.name
        );
        // Every reason points at a line of the operation.
        let start = op["line"].as_u64().expect("line");
        for r in op["reasons"].as_array().expect("reasons") {
            let line = r["line"].as_u64().expect("reason line");
            assert!(
                line >= start && r["column"].as_u64().expect("column") >= 1,
                "{}: {r}",
                e.name
            );
        }
        let b = find(operations(&bounded), &e.name);
        match &e.bounded {
            Some(v) => {
                assert_eq!(b["verdict"], v.as_str(), "{}: bounded verdict", e.name);
                assert_eq!(b["bounded"], true, "{}", e.name);
            }
            // The bounded flag changes nothing for data-independent operations.
            None => assert_eq!(b["verdict"], op["verdict"], "{}: bounded verdict", e.name),
        }
        if e.bounded.as_deref() == Some("not-linearizable") {
            let finding = bounded["findings"]
                .as_array()
                .expect("findings")
                .iter()
                .find(|f| f["operation"] == e.name.as_str())
                .unwrap_or_else(|| panic!("{}: no bounded finding", e.name));
            let assumed: Vec<&str> = finding["assumptions"]
                .as_array()
                .expect("assumptions")
                .iter()
                .map(|a| a.as_str().expect("an assumption"))
                .collect();
            assert_eq!(assumed, e.assumes, "{}: assumptions", e.name);
            let events: Vec<&str> = finding["events"]
                .as_array()
                .expect("events")
                .iter()
                .map(|ev| ev["op"].as_str().expect("op"))
                .collect();
            let mut at = 0;
            for w in &e.witness {
                match events[at..].iter().position(|ev| ev.contains(w.as_str())) {
                    Some(i) => at += i + 1,
                    None => panic!("{}: witness step {w:?} not in order in {events:#?}", e.name),
                }
            }
        } else {
            assert!(
                e.assumes.is_empty() && e.witness.is_empty(),
                "{}: assumptions and witness are for bounded violations",
                e.name
            );
        }
        // Each violation is a finding located at a line of the file.
        let findings: Vec<&Value> = plain["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["operation"] == e.name.as_str())
            .collect();
        assert_eq!(
            findings.len(),
            usize::from(e.verdict == "not-linearizable"),
            "{}",
            e.name
        );
    }
}

#[test]
fn every_example_of_the_paper_has_its_class_and_verdict() {
    check_file("examples/composed/paper.java", 10);
}

#[test]
fn every_application_example_has_its_class_and_verdict() {
    check_file("examples/composed/applications.java", 10);
}

#[test]
fn the_expiry_example_is_a_bounded_violation() {
    check_file("examples/composed/expiry.java", 1);
}

#[test]
fn the_quota_example_is_a_bounded_violation_under_arithmetic() {
    check_file("examples/composed/quota.java", 1);
}

#[test]
fn double_non_lin_shows_the_trace_of_figure_4a() {
    let out = hindsight(&[
        "composed",
        "examples/composed/paper.java",
        "--operation",
        "doubleNonLin",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let json: Value = serde_json::from_str(&out.stdout).expect("json");
    let f = &json["findings"][0];
    assert_eq!(f["kind"], "not-linearizable");
    let ops: Vec<&str> = f["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["op"].as_str().expect("op"))
        .collect();
    // Fig. 4a: runs sequentially from <pc=1, K=1, C={}> to the putIfAbsent (the linearization
    // point, C={(1,2)}), the environment puts another value, the second get returns it.
    assert_eq!(ops.len(), 7, "{ops:#?}");
    assert!(ops[0].contains("C={}") && ops[0].ends_with("val = m.get(K) -> null"));
    assert!(ops[2].ends_with("nv = K * 2"));
    assert!(ops[3].contains("m.putIfAbsent(K, nv) -> null [linearization point] -> C={1->2}"));
    assert_eq!(ops[4], "m.put(1, 1000) -> C={1->1000}");
    assert!(ops[5].ends_with("val = m.get(K) -> 1000"));
    assert!(ops[6].ends_with("return val: returns 1000"));
    assert_eq!(f["events"][4]["thread"], "environment");
    assert_eq!(
        f["sequential"][0],
        "sequential run from <line 73, C={}>: returns 2, C={1->2}"
    );
    assert!(f["message"]
        .as_str()
        .expect("message")
        .ends_with("the operation returns 1000 but the sequential run from the linearization point's state returns 2"));

    let text = hindsight(&[
        "composed",
        "examples/composed/paper.java",
        "--operation",
        "doubleNonLin",
    ]);
    assert_eq!(text.code, 1);
    assert!(
        text.stdout
            .starts_with("doubleNonLin (line 73): not linearizable (class SCM)\n"),
        "{}",
        text.stdout
    );
    assert!(text
        .stdout
        .contains("    LP  <line 77, K=1, val=null, nv=2, C={}>  m.putIfAbsent(K, nv) -> null\n"));
    assert!(text
        .stdout
        .contains("    env m.put(1, 1000)  C={1->1000}\n"));

    // SARIF: the result points at the return of line 80 of the file.
    let sarif = hindsight(&[
        "composed",
        "examples/composed/paper.java",
        "--operation",
        "doubleNonLin",
        "--format",
        "sarif",
    ]);
    let sarif: Value = serde_json::from_str(&sarif.stdout).expect("sarif");
    let loc = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
    assert_eq!(
        loc["artifactLocation"]["uri"],
        "examples/composed/paper.java"
    );
    assert_eq!(loc["region"]["startLine"], 80);
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "not-linearizable");
}

#[test]
fn text_output_states_the_proof() {
    let out = hindsight(&[
        "composed",
        "examples/composed/paper.java",
        "--operation",
        "getLock",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "getLock (line 34): linearizable (proved for all keys and values, class SCM)\n\
         composed: 1 operation(s): 1 linearizable, 0 not linearizable, 0 not proved\n"
    );
    let out = hindsight(&[
        "composed",
        "examples/composed/paper.java",
        "--operation",
        "forOsFamily",
    ]);
    assert!(out.stdout.starts_with(
        "forOsFamily (line 115): linearizable (proved for all keys and values, class FCM with inputs {\"unix\", \"windows\", \"*\"})\n"
    ), "{}", out.stdout);
    let out = hindsight(&[
        "composed",
        "examples/composed/paper.java",
        "--operation",
        "getInstance",
    ]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("  Keys at 141:26: `renderers.get(DEFAULT)` uses the key `DEFAULT`, not the input key `language`"), "{}", out.stdout);
}

#[test]
fn exit_status_is_one_with_a_violation() {
    assert_eq!(
        hindsight(&["composed", "examples/composed/paper.java"]).code,
        1
    );
    // Data-dependent and not proved is not a finding.
    let out = hindsight(&[
        "composed",
        "examples/composed/paper.java",
        "--operation",
        "getDestination",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0);
    let out = hindsight(&[
        "composed",
        "examples/composed/paper.java",
        "--operation",
        "getDestination",
        "--bounded",
    ]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("found by the bounded check"));
}

fn bad(index: usize, source: &str) -> Out {
    let dir = std::env::temp_dir().join(format!("hindsight-composed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("bad{index}.java"));
    std::fs::write(&path, source).expect("write");
    let out = hindsight(&["composed", path.to_str().expect("utf-8 path")]);
    std::fs::remove_file(&path).ok();
    out
}

#[test]
fn bad_input_is_an_error_with_line_and_column() {
    // Only syntax errors stop a file: every message names the construct and its method.
    let cases: &[(&str, &str)] = &[
        (
            "Object f(String k) {\n  return m.get(k)\n}\n",
            ":2:18: error: syntax error in the return statement of method `f`: missing `;`",
        ),
        (
            "Object f(String k) {\n  return \"open;\n}\n",
            ":2:11: error: syntax error in the file: unexpected `open;`",
        ),
        (
            "Object f(String k) {\n  return m.get(k);\n",
            ":2:19: error: syntax error in the method declaration of method `f`: missing `}`",
        ),
        (
            "Object f(String k) { return #; }\n",
            ":1:29: error: syntax error in the return statement of method `f`: unexpected `#`",
        ),
        (
            "class A {\n  int get(int k) {\n    if (k > ) return 1;\n  }\n}\n",
            ":3:",
        ),
    ];
    for (i, (source, expected)) in cases.iter().enumerate() {
        let out = bad(i, source);
        assert_eq!(out.code, 2, "{source}: {}", out.stderr);
        assert!(out.stderr.contains(expected), "{source}: {}", out.stderr);
        assert!(out.stdout.is_empty());
    }
    let out = hindsight(&[
        "composed",
        "examples/composed/paper.java",
        "--operation",
        "nope",
    ]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("has no operation `nope`"),
        "{}",
        out.stderr
    );
    // What the analysis does not model is reported per operation; the file goes on.
    let out = bad(
        100,
        "Object f(String k) {\n  return m.get(k, k);\n}\nObject g(String k) {\n  switch (k) { default: }\n  return m.remove(k);\n}\n",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("f (line 1): unsupported: line 2:10: `m.get(k, k)`: `get` with 2 argument(s) is not a modelled map method"), "{}", out.stdout);
    assert!(
        out.stdout.contains("g (line 4): linearizable"),
        "{}",
        out.stdout
    );
    let out = hindsight(&["composed", "examples/composed/missing.java"]);
    assert_eq!(out.code, 2);
    assert!(out
        .stderr
        .contains("cannot read examples/composed/missing.java"));
}

#[test]
fn classifier_edge_cases() {
    // (operation, class, reasons): a null-checked key is an FCM with null in its inputs; an
    // assigned input, an exit on the value input and `.equals` on a map result are
    // data-dependent; `?:` on a null check and a map call inside `?:` stay SCM. An object
    // `new` made from the key is never null on every path (g): its null check decides nothing;
    // made on one path only (h), the check decides on the other path's map value.
    let source = r#"ConcurrentHashMap<String, Object> m;
Object a(String k) {
  if (k == null) throw new NullPointerException();
  return m.get(k);
}
Object b(String k, Object v) {
  k = "x";
  return m.put(k, v);
}
Object c(String k, Object v) {
  if (v == null) throw new NullPointerException();
  return m.putIfAbsent(k, v);
}
Object d(String k) {
  Object x = m.get(k);
  if (x != null && x.equals("y")) return x;
  return m.remove(k);
}
int e(String k) {
  Object x = m.get(k);
  return x == null ? 0 : 1;
}
Object f(String k) {
  Object x = m.get(k);
  Object r = x != null ? x : m.putIfAbsent(k, new Obj());
  return r;
}
Object g(String k) {
  Object x = m.get(k);
  if (x == null) {
    x = new Obj(k);
    if (x == null) return null;
    Object y = m.putIfAbsent(k, x);
    if (y != null) return y;
  }
  return x;
}
Object h(String k, int n) {
  Object x = m.get(k);
  if (n > 0) x = new Obj(k);
  if (x == null) return null;
  return m.put(k, x);
}
"#;
    let dir = std::env::temp_dir().join(format!("hindsight-composed-edge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("edge.java");
    std::fs::write(&path, source).expect("write");
    let out = hindsight(&[
        "composed",
        path.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json: Value = serde_json::from_str(&out.stdout).expect("json");
    let expected: &[(&str, &str, &str, &[&str])] = &[
        ("a", "FCM", "linearizable", &[]),
        ("b", "data-dependent", "not-proved", &["Assign"]),
        ("c", "data-dependent", "not-proved", &["Exit"]),
        ("d", "data-dependent", "not-proved", &["Branch"]),
        ("e", "SCM", "linearizable", &[]),
        ("f", "SCM", "linearizable", &[]),
        ("g", "SCM", "linearizable", &[]),
        (
            "h",
            "data-dependent",
            "not-proved",
            &["Branch", "Branch", "Exit"],
        ),
    ];
    for (name, class, verdict, reasons) in expected {
        let op = find(operations(&json), name);
        assert_eq!(op["class"], *class, "{name}");
        assert_eq!(op["verdict"], *verdict, "{name}");
        let rules: Vec<&str> = op["reasons"]
            .as_array()
            .expect("reasons")
            .iter()
            .map(|r| r["rule"].as_str().expect("rule"))
            .collect();
        assert_eq!(rules, *reasons, "{name}");
    }
    assert_eq!(
        find(operations(&json), "a")["inputs"],
        serde_json::json!(["null", "1"])
    );
}

#[test]
fn reads_standard_input() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_hindsight"))
        .args(["composed", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run hindsight");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"Object f(String k) {\n  return m.remove(k);\n}\n")
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "f (line 1): linearizable (proved for all keys and values, class SCM)\n\
         composed: 1 operation(s): 1 linearizable, 0 not linearizable, 0 not proved\n"
    );
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hindsight-composed-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The issue's validator cache: the value stored comes from a call the tool cannot see
/// (`owner.create(key)`), an arbitrary value. The environment's put between the put and the
/// second get makes it return a value no atomic run returns: not linearizable, never proved.
fn validators() -> String {
    std::fs::read_to_string(root().join("examples/validators/Validators.java")).expect("example")
}

#[test]
fn unknown_calls_give_fresh_values_and_derived_keys_are_inputs() {
    let dir = temp_dir("validators");
    let path = dir.join("Validators.java");
    std::fs::write(&path, validators()).expect("write");
    let out = hindsight(&[
        "composed",
        path.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let json: Value = serde_json::from_str(&out.stdout).expect("json");
    let ops = operations(&json);
    // `single` has one map call: an atomic step, not a composed operation.
    let names: Vec<&str> = ops
        .iter()
        .map(|o| o["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["get", "byUrl", "twice", "dump"]);
    for o in ops {
        assert_eq!(o["file"], path.to_str().expect("utf-8"));
        assert_eq!(o["java_class"], "Validators");
    }
    let get = find(ops, "get");
    assert_eq!(get["line"], 10);
    assert_eq!(
        (get["class"].as_str(), get["verdict"].as_str()),
        (Some("SCM"), Some("not-linearizable"))
    );
    // The key computed once from the parameter is an input: the operation is an SCM, proved.
    let by_url = find(ops, "byUrl");
    assert_eq!(
        (by_url["class"].as_str(), by_url["verdict"].as_str()),
        (Some("SCM"), Some("linearizable"))
    );
    assert!(
        by_url["notes"][0]
            .as_str()
            .expect("note")
            .contains("the key `key` is computed once from the parameters"),
        "{by_url}"
    );
    // Computed twice, the keys are two fresh values: not the input key, so not proved.
    let twice = find(ops, "twice");
    assert_eq!(
        (twice["class"].as_str(), twice["verdict"].as_str()),
        (Some("data-dependent"), Some("not-proved"))
    );
    assert_eq!(twice["reasons"][0]["rule"], "Keys");
    // A traversal of the map's values: modelled, data-dependent by `Iteration`.
    let dump = find(ops, "dump");
    assert_eq!(
        (dump["class"].as_str(), dump["verdict"].as_str()),
        (Some("data-dependent"), Some("not-proved"))
    );
    assert_eq!(dump["reasons"][0]["rule"], "Iteration");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn directories_are_searched_recursively_and_syntax_errors_skip_one_file() {
    let dir = temp_dir("tree");
    std::fs::create_dir_all(dir.join("a/b")).expect("dirs");
    std::fs::write(dir.join("a/b/Validators.java"), validators()).expect("write");
    std::fs::write(dir.join("a/Broken.java"), "class Broken { void f( }\n").expect("write");
    std::fs::write(dir.join("a/notes.txt"), "not java").expect("write");
    std::fs::write(
        dir.join("Plain.java"),
        "class Plain { java.util.Map<String, Integer> m = new java.util.HashMap<>();\n int f(String k) { m.put(k, 1); return m.get(k); } }\n",
    )
    .expect("write");
    let out = hindsight(&["composed", dir.to_str().expect("utf-8"), "--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("Broken.java:1:"), "{}", out.stderr);
    let json: Value = serde_json::from_str(&out.stdout).expect("json");
    // A HashMap is not a concurrent map: Plain has no composed operation.
    assert_eq!(operations(&json).len(), 4);
    assert!(operations(&json).iter().all(|o| o["file"]
        .as_str()
        .expect("file")
        .ends_with("Validators.java")));
    std::fs::remove_dir_all(&dir).ok();
    let out = hindsight(&[
        "composed",
        "examples/composed/paper.java",
        "examples/composed/applications.java",
    ]);
    assert!(
        out.stdout
            .starts_with("removeAttribute (examples/composed/paper.java:23): linearizable"),
        "{}",
        out.stdout
    );
}

/// The corpus of composed operations in the shapes of public Java projects
/// (`tests/corpus/composed`, each operation citing the pattern it follows, with its class and
/// verdict reasoned by hand): every operation found has its expectation, and no other.
#[test]
fn the_corpus_of_real_shapes_has_its_classes_and_verdicts() {
    let dir = "crates/cli/tests/corpus/composed";
    let mut total = 0;
    for file in [
        "Caches.java",
        "Pools.java",
        "Counters.java",
        "CustomMaps.java",
        "Inputs.java",
        "Unknowns.java",
        "Traversals.java",
        "Sentinel.java",
        "Sentinel2.java",
        "Discovery.java",
        "Utilities.java",
    ] {
        let path = format!("{dir}/{file}");
        check_file(&path, 3);
        total += expectations(&path).len();
    }
    assert!(total >= 80, "{total} operations in the corpus");
    // The directory as a whole: the same operations, each with its file.
    let out = hindsight(&["composed", dir, "--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let json: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(operations(&json).len(), total);
}

/// `Optional.ofNullable(x).orElse(d)`: of a map's `get(k)`, `getOrDefault(k, d)` (the lost
/// update of a counter is found); of a local, `x` unless null; with a map call in `d`, an
/// unknown call, as before (the `size()` in it still makes the operation data-dependent).
/// `orZero` throws when a remove comes between its putIfAbsent and its get (null + w), which
/// no atomic run does.
#[test]
fn optional_of_nullable_or_else_is_modelled() {
    let source = "ConcurrentHashMap<String, Integer> counts;\n\
        int increment(String key) {\n  int n = Optional.ofNullable(counts.get(key)).orElse(0);\n  counts.put(key, n + 1);\n  return n + 1;\n}\n\
        Integer orZero(String key) {\n  Integer v = counts.putIfAbsent(key, 1);\n  Integer w = Optional.ofNullable(v).orElse(0);\n  return counts.get(key) + w;\n}\n\
        Integer both(String key) {\n  return Optional.ofNullable(counts.get(key)).orElse(counts.size());\n}\n";
    let out = hindsight_stdin(&["composed", "-"], Some(source.as_bytes()));
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains("n = counts.getOrDefault(key, 0) -> 0")
            && out
                .stdout
                .contains("increment (line 2): not linearizable (class SCM)"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("orZero (line 7): not linearizable")
            && out.stdout.contains("w = (v != null) ? v : 0"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("both (line 12): not proved (class data-dependent)")
            && out.stdout.contains("Size at 13:"),
        "{}",
        out.stdout
    );
}

/// A budget spent part way (here the memory limit, by the first search) stops every search:
/// the operations decided before are kept, the one it stopped is not proved, and every other
/// is listed, classified, as not reached (exit 3: nothing was found).
#[test]
fn a_spent_budget_lists_every_operation_and_those_not_reached() {
    let file = "crates/cli/tests/corpus/composed/Discovery.java";
    let all = operations(
        &serde_json::from_str::<Value>(&hindsight(&["composed", file, "--format", "json"]).stdout)
            .expect("json"),
    )
    .len();
    let out = hindsight(&[
        "composed",
        file,
        "--bounded",
        "--memory-limit",
        "1K",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 3, "{}", out.stdout);
    let json: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(json["summary"]["budget_spent"], "memory-limit");
    let ops = operations(&json);
    assert_eq!(ops.len(), all, "every operation is listed");
    let not_reached: Vec<&Value> = ops
        .iter()
        .filter(|o| o["verdict"] == "not-reached")
        .collect();
    assert_eq!(
        json["summary"]["not_reached"].as_u64(),
        Some(not_reached.len() as u64)
    );
    assert!(not_reached.len() >= 3, "{}", out.stdout);
    for o in not_reached {
        assert!(o["class"].is_string(), "classified: {o}");
        assert!(
            o["note"]
                .as_str()
                .is_some_and(|n| n.contains("--memory-limit")),
            "{o}"
        );
    }
    // Unsupported operations need no search: still decided.
    assert!(ops.iter().any(|o| o["verdict"] == "unsupported"));
    let text = hindsight(&["composed", file, "--bounded", "--memory-limit", "1K"]);
    assert_eq!(text.code, 3);
    assert!(
        text.stdout.contains(
            "not reached (class SCM): the budget ran out (--memory-limit) before its check started"
        ) && text
            .stdout
            .contains("not reached\ncomposed: unknown: the budget ran out (--memory-limit)"),
        "{}",
        text.stdout
    );
}

/// The per-operation bound stops one operation's check, says where, and leaves the run's
/// budget whole: the next operation is checked (from scratch, with the same bound).
#[test]
fn the_bound_per_operation_stops_each_check_and_says_where() {
    let file = "crates/cli/tests/corpus/composed/Discovery.java";
    let out = hindsight(&[
        "composed",
        file,
        "--bounded",
        "--operation-timeout",
        "0.000001",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let json: Value = serde_json::from_str(&out.stdout).expect("json");
    assert!(json["summary"]["budget_spent"].is_null());
    let ops = operations(&json);
    let stopped = ops
        .iter()
        .filter(|o| {
            o["verdict"] == "not-proved"
                && o["note"]
                    .as_str()
                    .is_some_and(|n| n.contains("stopped at the bound of 0.000001 s per operation"))
        })
        .count();
    // Every operation that needs a search: all but the unsupported ones.
    let searched = ops.iter().filter(|o| o["verdict"] != "unsupported").count();
    assert_eq!(stopped, searched, "{}", out.stdout);
    // The memory bound per operation: each operation stops at it alone, the run goes on.
    let out = hindsight(&[
        "composed",
        file,
        "--bounded",
        "--operation-memory-limit",
        "1K",
    ]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stdout
            .contains("stopped at the bound of 1 KiB per operation after")
            && !out.stdout.contains("not reached"),
        "{}",
        out.stdout
    );
    // The bound on states stops the bounded check too, and says in which exploration.
    let out = hindsight(&[
        "composed",
        file,
        "--bounded",
        "--operation",
        "removeListener",
        "--states-per-operation",
        "10",
    ]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stdout.contains(
            "bounded check: stopped at the bound of 10 states per operation, in exploration 1 of"
        ),
        "{}",
        out.stdout
    );
}
