//! The SARIF of every command that prints it, on every bundled example, validates against the
//! SARIF 2.1.0 JSON schema. The renderer builds its output from `serde-sarif`'s typed model,
//! which follows the schema's shape but not its array constraints (`uniqueItems`), so only the
//! schema itself can tell.
//!
//! The schema is the one `serde-sarif` ships (`src/schema.json` of the crates.io package this
//! workspace locks, MIT): the OASIS SARIF 2.1.0 schema (oasis-tcs/sarif-spec,
//! `Schemata/sarif-schema-2.1.0.json`) as that crate's maintainers adapted it to JSON Schema
//! draft 7, and the schema its Rust types are generated from. It is read where cargo unpacked
//! the package rather than copied here: the OASIS original is under the OASIS IPR policy, not an
//! open-source licence, and reading it in place also keeps it in step with the dependency.

mod common;

use common::*;
use jsonschema::{Draft, Validator};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// `serde-sarif`'s copy of the schema, found through `cargo metadata`. Offline and for this
/// host only: the build has fetched every package the host needs, and no others (without the
/// filter, cargo wants the packages of every target, WebAssembly's included).
fn schema_path() -> PathBuf {
    let cargo = option_env!("CARGO").unwrap_or("cargo");
    let version = Command::new(cargo)
        .arg("-vV")
        .output()
        .expect("run cargo -vV");
    let version = String::from_utf8(version.stdout).expect("utf-8");
    let host = version
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("cargo -vV names the host");
    let out = Command::new(cargo)
        .args(["metadata", "--offline", "--format-version", "1"])
        .args(["--filter-platform", host, "--manifest-path"])
        .arg(root().join("Cargo.toml"))
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata JSON");
    let manifest = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .find(|p| p["name"] == "serde-sarif")
        .and_then(|p| p["manifest_path"].as_str())
        .expect("serde-sarif among the packages");
    PathBuf::from(manifest)
        .parent()
        .expect("package folder")
        .join("src/schema.json")
}

/// Compiled once: compiling is the slow part, validating a log is fast.
fn validator() -> Validator {
    let path = schema_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut schema: Value = serde_json::from_str(&text).expect("schema JSON");
    // This copy predates the 2.1.0 errata, which fixed the pattern of `language` (of a run and
    // of a tool component): its stray `]` is no valid regex, and the validator checks the
    // schema's own patterns before it compiles them. The errata's pattern instead (errata01,
    // sarif-spec commit 0a8091f7); hindsight never writes `language`.
    for owner in ["run", "toolComponent"] {
        let pattern = &mut schema["definitions"][owner]["properties"]["language"]["pattern"];
        if pattern == "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$" {
            *pattern = Value::from("^[a-zA-Z]{2}(-[a-zA-Z]{2})?$");
        }
    }
    assert!(
        schema["title"]
            .as_str()
            .is_some_and(|t| t.contains("SARIF") && t.contains("2.1.0")),
        "{} is not the SARIF 2.1.0 schema",
        path.display()
    );
    jsonschema::options()
        .with_draft(Draft::Draft7)
        // The schema's `uri` and `date-time` formats are part of the contract for consumers.
        .should_validate_formats(true)
        .build(&schema)
        .expect("the schema compiles")
}

/// The command lines whose SARIF is checked: each SARIF-producing command, on each example it
/// runs on in `tests/examples.rs`.
fn commands() -> Vec<Vec<String>> {
    fn files(dir: &str, ext: &str) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(root().join(dir))
            .expect("examples folder")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(ext))
            .map(|n| format!("{dir}/{n}"))
            .collect();
        v.sort();
        v
    }
    let mut traces: Vec<String> = [
        "examples/bank.std",
        "examples/rapid.std",
        "examples/hosts.txt",
        "examples/messages.txt",
        "examples/cuts/fig1.txt",
        "examples/cuts/elevator.txt",
    ]
    .map(String::from)
    .to_vec();
    traces.extend(files("examples/atomicity", ".std"));
    traces.extend(files("examples/views", ".std"));
    traces.extend(files("examples/reach", ".txt"));

    let owned = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let mut all = Vec::new();
    for t in &traces {
        all.push(owned(&["races", t]));
        all.push(owned(&["cuts", t, "--predicate", "race", "--all"]));
    }
    // The traces `atomicity` accepts, as `tests/examples.rs` runs it: the others are not
    // lock-valid, or (but for this flag) not nested.
    let mut atomicity = files("examples/atomicity", ".std");
    atomicity.extend([
        "examples/bank.std".to_owned(),
        "examples/rapid.std".to_owned(),
    ]);
    for t in &atomicity {
        let lax = if t.ends_with("nonnested.std") {
            vec!["--ignore-non-nested"]
        } else {
            vec![]
        };
        for mode in [None, Some("--all"), Some("--schedule")] {
            let mut args = vec!["atomicity", t.as_str()];
            args.extend(&lax);
            args.extend(mode);
            all.push(owned(&args));
        }
    }
    for t in [
        "examples/hosts.txt",
        "examples/bank.std",
        "examples/views/account.std",
    ] {
        all.push(owned(&[
            "check",
            t,
            "--analyses",
            "races,commute,atomicity,views",
            "--builtin",
            "map",
        ]));
    }
    for t in ["examples/hosts.txt", "examples/messages.txt"] {
        all.push(owned(&["commute", t, "--builtin", "map"]));
    }
    let mut views = files("examples/views", ".mv");
    views.extend(files("examples/views", ".std"));
    for v in &views {
        all.push(owned(&["views", v]));
    }
    all.push(owned(&[
        "cuts",
        "examples/cuts/elevator.txt",
        "--predicate",
        "count(method == at by arg0, arg1) >= 3",
    ]));
    all.push(owned(&[
        "cuts",
        "examples/cuts/fig2.poset",
        "--predicate",
        "true",
        "--all",
    ]));
    for t in files("examples/reach", ".txt") {
        all.push(owned(&[
            "cuts",
            &t,
            "--predicate",
            "count(method == open) >= 2",
        ]));
        // fig6_7 has thousands of states that only a search decides: seconds of the whole
        // test's budget for a log without results, whose shape the other inputs cover.
        if t.ends_with("fig6_7.txt") {
            continue;
        }
        all.push(owned(&[
            "reach",
            &t,
            "--predicate",
            "count(method == open) >= 2 && count(method == close) >= 0",
        ]));
    }
    for t in ["examples/bank.std", "examples/cuts/fig1.txt"] {
        all.push(owned(&["reach", t, "--predicate", "race"]));
    }
    for p in files("examples/composed", ".java") {
        all.push(owned(&["composed", &p]));
    }
    for h in ["examples/register.jsonl", "examples/register.edn"] {
        all.push(owned(&["lin", h, "--model", "cas-register"]));
    }
    for args in &mut all {
        args.extend(["--format".to_owned(), "sarif".to_owned()]);
    }
    all
}

/// A `uniqueItems` message quotes the whole array: its start is enough to tell which.
fn short(message: &str) -> String {
    const MAX: usize = 300;
    match message.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}...", &message[..i]),
        None => message.to_owned(),
    }
}

#[test]
fn every_sarif_output_validates_against_the_schema() {
    let validator = validator();
    let mut failures = Vec::new();
    let mut checked = 0;
    for args in commands() {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let line = format!("hindsight {}", args.join(" "));
        let out = hindsight(&args);
        // A command that rejects SARIF for these arguments says so on stderr and prints no
        // log; anything it does print must be one SARIF log.
        if out.stdout.trim().is_empty() {
            failures.push(format!(
                "{line}: no output (exit {})\n{}",
                out.code, out.stderr
            ));
            continue;
        }
        let log: Value = match serde_json::from_str(&out.stdout) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{line}: not JSON: {e}"));
                continue;
            }
        };
        checked += 1;
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| {
                format!(
                    "  at {:?}: {}",
                    e.instance_path().as_str(),
                    short(&e.to_string())
                )
            })
            .collect();
        if !errors.is_empty() {
            failures.push(format!("{line}:\n{}", errors.join("\n")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of the SARIF logs fail the SARIF 2.1.0 schema:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 100, "only {checked} logs checked");
}
