//! How the trace analyses report what they find: grouped by default, every occurrence with
//! `--every-event`, as JSON Lines (streamed), and the text's `--limit`.

mod common;

use common::*;
use serde_json::Value;

fn lines(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A trace with many racy accesses at a few pairs of source locations, written for the test
/// `name` (tests run in parallel).
fn racy_trace(name: &str) -> String {
    let path = temp(&format!("racy-{name}.std"));
    let out = hindsight(&[
        "gen",
        "--events",
        "40000",
        "--threads",
        "4",
        "--seed",
        "3",
        "--unprotected",
        "0.2",
        "-o",
        path.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    path.to_str().expect("utf-8").to_owned()
}

#[test]
fn jsonl_is_the_json_report_a_line_per_finding() {
    let trace = racy_trace("jsonl");
    for (command, extra) in [
        ("races", vec![]),
        ("races", vec!["--every-event"]),
        ("commute", vec!["--builtin", "map"]),
        ("atomicity", vec!["--every-event"]),
    ] {
        let input = if command == "commute" {
            "examples/hosts.txt"
        } else {
            trace.as_str()
        };
        let mut args = vec![command, input];
        args.extend(&extra);
        let (code, json) = json(&args);
        args.extend(["--format", "jsonl"]);
        let out = hindsight(&args);
        assert_eq!(out.code, code, "{args:?}: {}", out.stderr);
        let mut lines = lines(&out.stdout);
        let tail = lines.pop().expect("the report's last line");
        let findings = json["findings"].as_array().expect("findings");
        assert_eq!(lines.len(), findings.len(), "{args:?}");
        for (line, finding) in lines.iter_mut().zip(findings) {
            let line = line.as_object_mut().expect("an object");
            assert_eq!(line.remove("analysis"), Some(Value::from(command)));
            assert_eq!(&Value::Object(line.clone()), finding, "{args:?}");
        }
        for key in ["tool", "analysis", "trace", "summary", "warnings"] {
            assert_eq!(tail[key], json[key], "{args:?}: {key}");
        }
        assert!(tail.get("findings").is_none());
    }
}

#[test]
fn every_event_reports_each_racy_access_and_groups_count_them() {
    let trace = racy_trace("every");
    let (code, every) = json(&["races", &trace, "--every-event"]);
    assert_eq!(code, 1);
    let (_, grouped) = json(&["races", &trace]);
    let racy = every["findings"].as_array().expect("findings").len() as u64;
    assert!(racy > 100, "the trace has many racy accesses: {racy}");
    assert_eq!(every["summary"]["racy_events"], racy);
    assert_eq!(grouped["summary"]["racy_events"], racy);
    let groups = grouped["findings"].as_array().expect("findings");
    assert_eq!(grouped["summary"]["groups"], groups.len());
    assert!(groups.len() < 100, "a few pairs of sites: {}", groups.len());
    let total: u64 = groups
        .iter()
        .map(|g| g["occurrences"].as_u64().expect("occurrences"))
        .sum();
    assert_eq!(total, racy);
    assert_eq!(
        every["summary"]["racy_locations"],
        grouped["summary"]["racy_locations"]
    );
}

#[test]
fn text_shows_the_largest_groups_then_a_line_for_the_rest() {
    let trace = racy_trace("limit");
    let (_, grouped) = json(&["races", &trace]);
    let groups = grouped["findings"].as_array().expect("findings");
    let out = hindsight(&["races", &trace, "--limit", "3"]);
    assert_eq!(out.code, 1);
    let shown = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("data-race:"))
        .count();
    assert_eq!(shown, 3);
    let rest: u64 = groups[3..]
        .iter()
        .map(|g| g["occurrences"].as_u64().expect("occurrences"))
        .sum();
    let expected = format!(
        "... and {} more finding(s) standing for {rest} occurrence(s) (--limit shows more)",
        groups.len() - 3
    );
    assert!(out.stdout.contains(&expected), "{}", out.stdout);
    // Most occurrences first.
    let first = groups[0]["occurrences"].as_u64().expect("occurrences");
    assert!(groups
        .iter()
        .all(|g| g["occurrences"].as_u64().expect("n") <= first));
}

#[test]
fn sarif_has_a_result_and_a_flow_per_thread_for_each_group() {
    let trace = racy_trace("sarif");
    let (_, grouped) = json(&["races", &trace]);
    let groups = grouped["findings"].as_array().expect("findings");
    let out = hindsight(&["races", &trace, "--format", "sarif"]);
    let sarif: Value = serde_json::from_str(&out.stdout).expect("SARIF");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), groups.len());
    for (r, g) in results.iter().zip(groups) {
        assert_eq!(r["message"]["text"], g["message"]);
        let flows = r["codeFlows"][0]["threadFlows"].as_array().expect("flows");
        let threads: std::collections::BTreeSet<&str> = g["events"]
            .as_array()
            .expect("events")
            .iter()
            .map(|e| e["thread"].as_str().expect("thread"))
            .collect();
        assert_eq!(flows.len(), threads.len());
        let steps: usize = flows
            .iter()
            .map(|f| f["locations"].as_array().expect("steps").len())
            .sum();
        assert_eq!(steps, 2, "the pair's two events");
    }
}
