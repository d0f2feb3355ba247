//! `hindsight views` end to end: programs and traces, formats, filters, exit statuses, errors.

mod common;

use common::*;

use serde_json::Value;
use std::path::Path;

#[test]
fn coordinates_program_text() {
    let out = hindsight(&["views", "examples/views/coordinates.mv"]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stderr, "");
    // The default memory limit is a share of the machine's memory.
    let (summary, limit) = out
        .stdout
        .rsplit_once(", memory_limit ")
        .expect("a memory limit");
    assert!(limit.trim().parse::<u64>().is_ok(), "{limit}");
    insta::assert_snapshot!(format!("{summary}\n"));
}

#[test]
fn coordinates_trace_json_names_threads_variables_views_and_events() {
    let (code, v) = json(&["views", "examples/views/coordinates.std"]);
    assert_eq!(code, 1);
    assert_eq!(v["analysis"], "views");
    let f = &v["findings"].as_array().expect("findings")[..];
    assert_eq!(f.len(), 1);
    assert_eq!(f[0]["kind"], "high-level-race");
    assert_eq!(f[0]["threads"], serde_json::json!(["T1", "T2"]));
    assert_eq!(f[0]["variables"], serde_json::json!(["Coord.x", "Coord.y"]));
    let views = f[0]["views"].as_array().expect("views");
    let shown: Vec<(&str, &str, &str)> = views
        .iter()
        .map(|w| {
            (
                w["thread"].as_str().unwrap(),
                w["role"].as_str().unwrap(),
                w["view"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            (
                "T1",
                "maximal",
                "{r(Coord.x)•, w(Coord.x)•, r(Coord.y)•, w(Coord.y)•}"
            ),
            ("T2", "split-first", "{w(Coord.x)∘}"),
            ("T2", "split-second", "{w(Coord.y)∘}"),
        ]
    );
    assert_eq!(views[0]["origin"], "events #5..#10");
    let events: Vec<u64> = f[0]["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["index"].as_u64().unwrap())
        .collect();
    assert_eq!(events, [3, 6, 7, 8, 9, 12]);
    assert_eq!(f[0]["events"][0]["location"], "coordinates.mv:18");
    assert_eq!(v["summary"]["regions"], "blocks");
    assert_eq!(v["summary"]["removed_by_mhp"], 0);
    assert_eq!(v["summary"]["removed_by_instances"], 0);
}

#[test]
fn account_gives_one_stale_value() {
    for input in ["examples/views/account.mv", "examples/views/account.std"] {
        let (code, v) = json(&["views", input]);
        assert_eq!(code, 1, "{input}");
        let f = v["findings"].as_array().unwrap();
        assert_eq!(f.len(), 1, "{input}");
        assert_eq!(f[0]["kind"], "stale-value");
        assert_eq!(f[0]["variables"], serde_json::json!(["Account.balance"]));
        assert_eq!(v["summary"]["high_level_races"], 0);
    }
    let (_, v) = json(&["views", "examples/views/account.std"]);
    assert_eq!(v["summary"]["regions"], "locks");
}

#[test]
fn sarif_has_one_rule_per_kind() {
    let out = hindsight(&["views", "examples/views/knight.std", "--format", "sarif"]);
    assert_eq!(out.code, 1);
    let v: Value = serde_json::from_str(&out.stdout).expect("SARIF");
    assert_eq!(v["version"], "2.1.0");
    let rules: Vec<&str> = v["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["high-level-race", "stale-value"]);
    let results: Vec<&str> = v["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(results, ["high-level-race", "stale-value"]);
}

#[test]
fn the_mhp_filter_removes_ordered_regions_and_can_be_turned_off() {
    let (code, v) = json(&["views", "examples/views/ordered.std"]);
    assert_eq!(code, 0);
    assert_eq!(v["summary"]["removed_by_mhp"], 1);
    let (code, v) = json(&["views", "examples/views/ordered.std", "--no-mhp"]);
    assert_eq!(code, 1);
    assert_eq!(v["summary"]["mhp"], "off");
    assert_eq!(v["findings"][0]["kind"], "high-level-race");
}

#[test]
fn instances_are_kept_apart() {
    let (code, v) = json(&["views", "examples/views/instances.std"]);
    assert_eq!(code, 0);
    assert_eq!(v["summary"]["removed_by_instances"], 1);
    let (code, _) = json(&["views", "examples/views/instances.mv"]);
    assert_eq!(code, 1, "statically the instances are one variable");
}

#[test]
fn regions_choose_blocks_or_locks() {
    // coordinates.std has blocks and no locks; account.std locks and no blocks.
    let (code, v) = json(&[
        "views",
        "examples/views/coordinates.std",
        "--regions",
        "locks",
    ]);
    assert_eq!(
        (code, &v["summary"]["atomic_regions"]),
        (0, &Value::from(0))
    );
    let (code, v) = json(&["views", "examples/views/account.std", "--regions", "blocks"]);
    assert_eq!(
        (code, &v["summary"]["atomic_regions"]),
        (0, &Value::from(0))
    );
    let (code, v) = json(&["views", "examples/views/account.std", "--regions", "both"]);
    assert_eq!((code, &v["summary"]["stale_values"]), (1, &Value::from(1)));
    // In `both`, a lock region inside a block is part of the block.
    let nested = write_temp(
        "nested.std",
        "T1|begin\nT1|acq(l)\nT1|w(o.x)\nT1|rel(l)\nT1|w(o.y)\nT1|end\nT2|acq(l)\nT2|w(o.x)\nT2|rel(l)\nT2|acq(l)\nT2|w(o.y)\nT2|rel(l)\n",
    );
    let (_, v) = json(&["views", &nested, "--regions", "both"]);
    assert_eq!(v["summary"]["atomic_regions"], 3);
    assert_eq!(v["summary"]["high_level_races"], 1);
    let (_, v) = json(&["views", &nested, "--regions", "locks"]);
    assert_eq!(v["summary"]["atomic_regions"], 3);
    assert_eq!(v["summary"]["high_level_races"], 0);
}

#[test]
fn binary_traces_and_stdin_give_the_same_answer() {
    let hst = Path::new(env!("CARGO_TARGET_TMPDIR")).join("views-tests/knight.hst");
    std::fs::create_dir_all(hst.parent().unwrap()).unwrap();
    let hst = hst.to_str().unwrap();
    let out = hindsight(&["convert", "examples/views/knight.std", hst]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (_, text) = json(&["views", "examples/views/knight.std"]);
    let (code, binary) = json(&["views", hst]);
    assert_eq!(code, 1);
    assert_eq!(text["findings"], binary["findings"]);
}

#[test]
fn unknown_procedures_are_warned_about_and_strict_refuses_them() {
    let out = hindsight(&["views", "examples/views/native.mv"]);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "examples/views/native.mv:12:13: warning: native procedure without `reads`/`writes` annotation `show`: assumed to read and write every field of its receiver and object arguments\n"
    );
    let out = hindsight(&["views", "examples/views/native.mv", "--strict"]);
    assert_eq!(out.code, 2);
    assert!(out
        .stderr
        .contains("native.mv:12:13: error: native procedure"));
    let out = hindsight(&["views", "examples/views/native_annotated.mv"]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
}

#[test]
fn bad_input_is_located_and_exits_2() {
    let bad = write_temp("bad.mv", "class C { x; }\nthread T {\n  c.x := 1\n}\n");
    let out = hindsight(&["views", &bad]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .ends_with("bad.mv:4:1: error: expected `;`, found `}`\n"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stdout, "");

    let unknown = write_temp("unknown.mv", "thread T {\n  y := c.x;\n}\n");
    let out = hindsight(&["views", &unknown]);
    assert_eq!(out.code, 2);
    assert!(out
        .stderr
        .ends_with("unknown.mv:2:8: error: unknown variable `c`\n"));

    let trace = write_temp("bad.std", "T1|begin\nT1|frob(x)\n");
    let out = hindsight(&["views", &trace]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("bad.std:2: error:"), "{}", out.stderr);

    let out = hindsight(&["views", "examples/views/account.mv", "--no-mhp"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("apply to traces"));

    let out = hindsight(&["views", "examples/views/missing.mv"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("cannot read examples/views/missing.mv"));
}
