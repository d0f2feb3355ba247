//! `races --model` and `--witness` from the command line: the models' answers on a trace
//! happens-before misses a race in, the witness in text, JSON and SARIF, and refusals.

mod common;

use common::{hindsight, json, root, write_temp};

/// Happens-before orders the writes through `l`; running T2's section first enables both.
const MISSED: &str = "T0|fork(T1)\nT0|fork(T2)\nT1|w(x)|A.java:3\nT1|acq(l)|A.java:4\nT1|rel(l)|A.java:5\nT2|acq(l)|B.java:7\nT2|rel(l)|B.java:8\nT2|w(x)|B.java:9\n";

#[test]
fn each_model_reports_its_racy_events() {
    let path = write_temp("missed.std", MISSED);
    for (model, racy) in [("hb", 0), ("shb", 0), ("wcp", 1), ("syncp", 1), ("osr", 1)] {
        let (code, v) = json(&["races", &path, "--model", model]);
        assert_eq!(code, if racy > 0 { 1 } else { 0 }, "{model}");
        assert_eq!(v["summary"]["racy_events"], racy, "{model}");
    }
}

#[test]
fn a_witness_is_shown_in_text_json_and_sarif() {
    let path = write_temp("witnessed.std", MISSED);
    let text = hindsight(&["races", &path, "--model", "syncp", "--witness"]);
    assert_eq!(text.code, 1, "{}", text.stderr);
    assert!(
        text.stdout.contains(
            "    witness: run these 4 event(s), then both accesses are enabled:\n      #0 T0 fork(T1)\n      #1 T0 fork(T2)\n      #5 T2 acq(l) at B.java:7\n      #6 T2 rel(l) at B.java:8\n"
        ),
        "{}",
        text.stdout
    );
    let (_, v) = json(&["races", &path, "--model", "syncp", "--witness"]);
    let w = &v["findings"][0]["witness"];
    let steps: Vec<u64> = w["schedule"]
        .as_array()
        .expect("schedule")
        .iter()
        .map(|e| e["index"].as_u64().expect("index"))
        .collect();
    assert_eq!(steps, [0, 1, 5, 6]);
    assert_eq!(w["enabled"][1]["location"], "B.java:9");
    assert_eq!(v["summary"]["witnesses"], 1);
    let sarif = hindsight(&[
        "races",
        &path,
        "--model",
        "syncp",
        "--witness",
        "--format",
        "sarif",
    ]);
    let s: serde_json::Value = serde_json::from_str(&sarif.stdout).expect("sarif");
    let flows = s["runs"][0]["results"][0]["codeFlows"]
        .as_array()
        .expect("flows");
    assert_eq!(flows.len(), 2);
    assert!(flows[1]["message"]["text"]
        .as_str()
        .expect("text")
        .starts_with("witness"));
}

/// T1 writes inside its section: only reversing the sections (T2's first) exposes the race.
const REVERSAL: &str = "T0|fork(T1)\nT0|fork(T2)\nT1|acq(l)|A.java:4\nT1|w(x)|A.java:5\nT1|rel(l)|A.java:6\nT2|acq(l)|B.java:7\nT2|rel(l)|B.java:8\nT2|w(x)|B.java:9\n";

#[test]
fn osr_reports_and_witnesses_a_reversal() {
    let path = write_temp("reversal.std", REVERSAL);
    for (model, racy) in [("syncp", 0), ("osr", 1)] {
        let (_, v) = json(&["races", &path, "--model", model]);
        assert_eq!(v["summary"]["racy_events"], racy, "{model}");
    }
    let text = hindsight(&["races", &path, "--model", "osr", "--witness"]);
    assert_eq!(text.code, 1, "{}", text.stderr);
    assert!(
        text.stdout.contains(
            "    witness: run these 5 event(s), then both accesses are enabled:\n      #0 T0 fork(T1)\n      #1 T0 fork(T2)\n      #5 T2 acq(l) at B.java:7\n      #6 T2 rel(l) at B.java:8\n      #2 T1 acq(l) at A.java:4\n"
        ),
        "{}",
        text.stdout
    );
    let (_, v) = json(&["races", &path, "--model", "osr", "--witness"]);
    assert_eq!(v["summary"]["witnesses"], 1);
    assert_eq!(v["summary"]["model"], "osr");
}

/// The published runs in `examples/papers/` (the WDP paper's Figure 2(b) and its artifact's
/// `RaceWithPrevWr`): a race on y, and one on x with T0's write, that only a reversal of two
/// sections of `m` exposes; `crates/predict/tests/papers.rs` reasons each model's answer.
#[test]
fn the_published_reversals_from_their_example_files() {
    for (file, racy, partner) in [
        ("wdp-figure-2b.std", "Figure2B.java:39", "Figure2B.java:23"),
        (
            "race-with-prev-wr.std",
            "RaceWithPrevWr.java:65",
            "RaceWithPrevWr.java:38",
        ),
    ] {
        let path = root().join("examples/papers").join(file);
        let path = path.to_str().expect("utf-8 path");
        for model in ["hb", "shb", "wcp", "syncp"] {
            let (code, v) = json(&["races", path, "--model", model]);
            assert_eq!(code, 0, "{file} {model}");
            assert_eq!(v["summary"]["racy_events"], 0, "{file} {model}");
        }
        let (code, v) = json(&["races", path, "--model", "osr", "--witness"]);
        assert_eq!(code, 1, "{file}");
        assert_eq!(v["summary"]["racy_events"], 1, "{file}");
        assert_eq!(v["summary"]["witnesses"], 1, "{file}");
        let enabled = &v["findings"][0]["witness"]["enabled"];
        assert_eq!(enabled[0]["location"], partner, "{file}");
        assert_eq!(enabled[1]["location"], racy, "{file}");
    }
}

#[test]
fn races_happens_before_reports_owe_no_witness() {
    // T2's unsynchronised write races by happens-before already: no witness is owed.
    let path = write_temp("plain.std", "T0|fork(T1)\nT0|fork(T2)\nT1|w(x)\nT2|w(x)\n");
    let (code, v) = json(&["races", &path, "--model", "wcp", "--witness"]);
    assert_eq!(code, 1);
    assert!(v["findings"][0].get("witness").is_none());
    assert_eq!(v["summary"]["witnesses"], 0);
    let missed = write_temp("wcp-missed.std", MISSED);
    let (_, v) = json(&["races", &missed, "--model", "wcp", "--witness"]);
    assert_eq!(
        v["findings"][0]["witness"]["schedule"]
            .as_array()
            .map(Vec::len),
        Some(4)
    );
}

#[test]
fn bad_requests_are_refused() {
    let path = write_temp("refused.std", MISSED);
    let run = hindsight(&["races", &path, "--witness"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("`--witness` needs a predictive `--model`"),
        "{}",
        run.stderr
    );
    let run = hindsight(&["races", &path, "--model", "cp"]);
    assert_eq!(run.code, 2);
    // A lock taken while another thread holds it is outside the models' theory: T2's section
    // is tolerated (not protected by `l`, a warning), and refused under --strict.
    let overlapping = write_temp("overlap.std", "T1|acq(l)\nT2|acq(l)\nT1|w(x)\n");
    for model in ["syncp", "osr"] {
        let run = hindsight(&["races", &overlapping, "--model", model]);
        assert_eq!(run.code, 0, "{model}: {}", run.stderr);
        assert!(
            run.stderr.contains("overlap.std:2: warning:")
                && run.stderr.contains("not protected by `l`"),
            "{model}: {}",
            run.stderr
        );
        let run = hindsight(&["races", &overlapping, "--model", model, "--strict"]);
        assert_eq!(run.code, 2, "{model}: {}", run.stderr);
        assert!(
            run.stderr.contains("overlap.std:2"),
            "{model}: {}",
            run.stderr
        );
    }
}
