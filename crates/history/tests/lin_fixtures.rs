//! The hand-written histories of `fixtures/lin/models` (each with its verdict reasoned in its
//! comments, `MODEL-ok` linearizable and `MODEL-bad` not) and the bad inputs of
//! `fixtures/lin/errors`, through the report entry point `hindsight lin` calls.

use hindsight_budget::Budget;
use hindsight_history::analyse;
use hindsight_syntax::Position;
use std::path::Path;

fn fixtures(dir: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/lin")
        .join(dir)
}

fn verdict(text: &str, name: &str, model: &str) -> String {
    let report = analyse(text, name, model, None, &Budget::unlimited(), false)
        .unwrap_or_else(|d| panic!("{name} under {model}: {d}"));
    report.summary["verdict"]
        .as_str()
        .expect("verdict")
        .to_string()
}

#[test]
fn every_model_fixture_has_its_verdict() {
    let mut seen = 0;
    for entry in std::fs::read_dir(fixtures("models")).expect("fixtures") {
        let path = entry.expect("entry").path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let Some((stem, _)) = name.rsplit_once('.') else {
            continue;
        };
        let Some((model, expected)) = stem.rsplit_once('-') else {
            continue;
        };
        let text = std::fs::read_to_string(&path).expect("read");
        let want = match expected {
            "ok" => "linearizable",
            "bad" => "not-linearizable",
            _ => continue,
        };
        assert_eq!(verdict(&text, &name, model), want, "{name}");
        seen += 1;
    }
    assert_eq!(seen, 18);
}

#[test]
fn auto_picks_the_model_when_the_operations_tell() {
    for (file, model) in [
        ("kv-ok.edn", "kv"),
        ("kv-bad.edn", "kv"),
        ("register-ok.edn", "register"),
        ("multi-register-bad.edn", "multi-register"),
        ("mutex-bad.edn", "mutex"),
        ("set-ok.edn", "set"),
    ] {
        let text = std::fs::read_to_string(fixtures("models").join(file)).expect("read");
        let report =
            analyse(&text, file, "auto", None, &Budget::unlimited(), false).expect("a report");
        assert_eq!(report.summary["model"], model, "{file}");
        assert_eq!(report.summary["model_chosen"], "auto", "{file}");
        let explicit =
            analyse(&text, file, model, None, &Budget::unlimited(), false).expect("a report");
        assert_eq!(
            report.summary["verdict"], explicit.summary["verdict"],
            "{file}"
        );
    }
    // read, write and cas fit Knossos' cas-register and Porcupine's etcd, which differ.
    let text = std::fs::read_to_string(fixtures("models").join("cas-register-ok.edn")).unwrap();
    let e = analyse(&text, "h.edn", "auto", None, &Budget::unlimited(), false).unwrap_err();
    assert!(e.message.contains("cas-register, etcd"), "{e}");
    assert_eq!(e.position, Position::File);
    let text = std::fs::read_to_string(fixtures("models").join("fifo-queue-ok.edn")).unwrap();
    let e = analyse(&text, "h.edn", "auto", None, &Budget::unlimited(), false).unwrap_err();
    assert!(
        e.message.contains("fifo-queue, unordered-queue, queue"),
        "{e}"
    );
    let e = analyse(
        "{:process 0, :type :invoke, :f :frobnicate, :value 1}\n",
        "h.edn",
        "auto",
        None,
        &Budget::unlimited(),
        false,
    )
    .unwrap_err();
    assert!(e.message.contains("no model fits"), "{e}");
}

#[test]
fn failed_cas_is_read_by_etcd_and_dropped_by_cas_register() {
    let text = std::fs::read_to_string(fixtures("models").join("etcd-bad.log")).unwrap();
    assert_eq!(
        verdict(&text, "etcd-bad.log", "cas-register"),
        "linearizable"
    );
    let report = analyse(
        &text,
        "etcd-bad.log",
        "etcd",
        None,
        &Budget::unlimited(),
        false,
    )
    .unwrap();
    assert_eq!(report.findings.len(), 1);
    assert!(
        report.findings[0].message.contains("cas([1 4]) -> fail"),
        "{}",
        report.findings[0].message
    );
}

#[test]
fn bad_inputs_are_positioned_errors() {
    for (file, model, line, words) in [
        ("unknown-function.edn", "kv", 4, "`delete`"),
        ("cas-not-a-pair.edn", "cas-register", 2, "pair"),
        ("kv-number.edn", "kv", 4, "string"),
    ] {
        let text = std::fs::read_to_string(fixtures("errors").join(file)).expect("read");
        let e = analyse(&text, file, model, None, &Budget::unlimited(), false).unwrap_err();
        assert_eq!(e.position, Position::Line(line), "{file}: {e}");
        assert!(e.message.contains(words), "{file}: {e}");
    }
    let e = analyse("", "h", "stack", None, &Budget::unlimited(), false).unwrap_err();
    assert!(e.message.contains("auto, register"), "{e}");
}

/// `--init` numbers that are not 64-bit integers are refused, as the readers refuse them in
/// histories, and so are maps and other compound values (Knossos' per-key initial map);
/// a quoted value is a string, any other word too.
#[test]
fn init_numbers_outside_the_integers_are_refused() {
    use hindsight_history::{parse_init, Val};
    for bad in [
        "1e30",
        "-2.5",
        "1.",
        "1/2",
        "7N",
        "1.5M",
        "99999999999999999999",
        "+3E-4",
    ] {
        let e = parse_init(bad).unwrap_err();
        assert!(e.contains("only 64-bit integers"), "{bad}: {e}");
    }
    for compound in ["{:x 0 :y 0}", "[1 2]", "(1)", "#{1}", "{\"x\": 0}"] {
        let e = parse_init(compound).unwrap_err();
        assert!(e.contains("not one value"), "{compound}: {e}");
    }
    assert_eq!(parse_init("\"{:x 0}\""), Ok(Val::Str("{:x 0}".into())));
    assert_eq!(parse_init("-12"), Ok(Val::Int(-12)));
    assert_eq!(parse_init("\"1e30\""), Ok(Val::Str("1e30".into())));
    assert_eq!(parse_init("x1e30"), Ok(Val::Str("x1e30".into())));
    assert_eq!(parse_init("nil"), Ok(Val::Nil));
    assert_eq!(parse_init("inf"), Ok(Val::Str("inf".into())));
    let text = "{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\", \"value\": null}\n{\"process\": 0, \"type\": \"ok\", \"f\": \"read\", \"value\": 1}\n";
    let e = analyse(
        text,
        "h.jsonl",
        "register",
        Some("1e30"),
        &Budget::unlimited(),
        false,
    )
    .unwrap_err();
    assert!(e.to_string().contains("--init 1e30"), "{e}");
}

/// A history without operations is a warning, an error under `--strict`, as an empty trace.
#[test]
fn a_history_without_operations_is_warned() {
    for text in ["", "\n\n"] {
        let report = analyse(
            text,
            "h.jsonl",
            "register",
            None,
            &Budget::unlimited(),
            false,
        )
        .expect("a report");
        assert_eq!(report.exit_code(), 0);
        assert_eq!(
            report.warnings,
            ["h.jsonl: warning: the history has no operations"]
        );
        let e = analyse(
            text,
            "h.jsonl",
            "register",
            None,
            &Budget::unlimited(),
            true,
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("no operations (an error under --strict)"),
            "{e}"
        );
    }
    let one = "{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\", \"value\": null}\n{\"process\": 0, \"type\": \"ok\", \"f\": \"read\", \"value\": null}\n";
    let report =
        analyse(one, "h.jsonl", "register", None, &Budget::unlimited(), true).expect("a report");
    assert!(report.warnings.is_empty());
}
