//! What a user gets with unusual or hostile inputs and options: outputs never destroy inputs
//! nor leave half-written files, numeric options are checked, a byte-order mark is text, an
//! empty trace is warned about, and the input's control characters never reach the terminal.

mod common;

use common::{hindsight, root, temp, write_temp};
use std::path::Path;

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The files of `dir` whose names start with `.` and end in `.part`: temporary outputs.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with('.') && n.ends_with(".part"))
        .collect()
}

/// Output with its run times left out: the rest must match between two runs.
fn untimed(out: &str) -> String {
    out.lines()
        .map(|l| {
            l.split(", ")
                .filter(|item| !item.starts_with("milliseconds ") && !item.starts_with("seconds "))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = temp(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

#[test]
fn convert_refuses_to_write_its_input_by_any_name() {
    let dir = fresh_dir("same-file");
    let input = dir.join("v.std");
    std::fs::copy(root().join("examples/bank.std"), &input).expect("copy");
    let before = read(&input);
    let hard = dir.join("hard.std");
    std::fs::hard_link(&input, &hard).expect("hard link");
    let mut outputs = vec![input.clone(), hard.clone()];
    #[cfg(unix)]
    {
        let soft = dir.join("soft.hst");
        std::os::unix::fs::symlink(&input, &soft).expect("symlink");
        outputs.push(soft);
    }
    for out in &outputs {
        for to in [&[][..], &["--to", "binary"][..], &["--to", "text"][..]] {
            let mut args = vec!["convert", input.to_str().unwrap(), out.to_str().unwrap()];
            args.extend(to);
            let o = hindsight(&args);
            assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
            assert!(o.stderr.contains("the same file"), "{}", o.stderr);
            assert_eq!(read(&input), before, "{args:?} changed the input");
        }
    }
    // The RAPID writer's location map may not be the input either.
    let map_is_input = dir.join("m");
    std::fs::rename(&hard, dir.join("m.locations")).expect("rename");
    let o = hindsight(&[
        "convert",
        dir.join("m.locations").to_str().unwrap(),
        map_is_input.to_str().unwrap(),
        "--to",
        "rapid",
    ]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert_eq!(read(&input), before);
    assert!(!map_is_input.exists(), "a refused run wrote its trace");
    assert_eq!(leftovers(&dir), Vec::<String>::new());
}

#[test]
fn a_failed_run_leaves_the_target_as_it_was() {
    let dir = fresh_dir("failed-run");
    let bad = dir.join("bad.std");
    std::fs::write(&bad, "T1|w(x)|1\nT1|w(y)|2\nT1|zz(x)|3\n").expect("write");
    for to in ["text", "binary", "rapid"] {
        let target = dir.join(format!("out-{to}"));
        std::fs::write(&target, b"an earlier output").expect("write");
        let o = hindsight(&[
            "convert",
            bad.to_str().unwrap(),
            target.to_str().unwrap(),
            "--to",
            to,
        ]);
        assert_eq!(o.code, 2, "{to}: {}", o.stderr);
        assert!(o.stderr.contains("bad.std:3"), "{}", o.stderr);
        assert_eq!(read(&target), b"an earlier output", "--to {to}");
    }
    assert!(!dir.join("out-rapid.locations").exists());
    assert_eq!(leftovers(&dir), Vec::<String>::new());
}

#[test]
fn outputs_appear_whole_with_the_usual_permissions() {
    let dir = fresh_dir("outputs");
    let trace = dir.join("g.std");
    let o = hindsight(&[
        "gen",
        "--events",
        "500",
        "--seed",
        "3",
        "-o",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let stdout = hindsight(&["gen", "--events", "500", "--seed", "3"]);
    assert_eq!(read(&trace), stdout.stdout.as_bytes());
    for (args, name) in [
        (vec!["gen-poset", "d-20", "--seed", "1"], "p.txt"),
        (vec!["gen-history", "--ops", "20", "--seed", "1"], "h.jsonl"),
    ] {
        let out = dir.join(name);
        let mut with_o = args.clone();
        with_o.extend(["-o", out.to_str().unwrap()]);
        assert_eq!(hindsight(&with_o).code, 0);
        assert_eq!(read(&out), hindsight(&args).stdout.as_bytes(), "{name}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&trace).unwrap().permissions().mode();
        // Readable by others unless the umask says otherwise: not a private temporary file.
        assert_ne!(mode & 0o600, 0, "{mode:o}");
        assert_ne!(mode & 0o044, 0, "{mode:o}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        // Through a symbolic link to the file it names; the link stays a link.
        let real = dir.join("real.std");
        std::fs::write(&real, "old").expect("write");
        let link = dir.join("link.std");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        let o = hindsight(&["gen", "--events", "50", "-o", link.to_str().unwrap()]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            read(&real),
            hindsight(&["gen", "--events", "50"]).stdout.as_bytes()
        );
        // A device is written, not replaced.
        let o = hindsight(&["gen", "--events", "50", "-o", "/dev/null"]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        let null = std::fs::metadata("/dev/null").unwrap();
        assert!(null.file_type().is_char_device());
    }
    assert_eq!(leftovers(&dir), Vec::<String>::new());
}

#[test]
fn numeric_options_are_checked() {
    for args in [
        &["gen", "--unprotected", "2"][..],
        &["gen", "--unprotected", "NaN"],
        &["gen", "--blocks", "-0.5"],
        &["gen", "--threads", "0"],
        &["gen", "--vars", "0"],
        &["gen-poset", "d-10", "--send", "inf"],
        &["gen-history", "--stale-reads", "1.5"],
        &["gen-history", "--clients", "0"],
        &["gen-history", "--clients", "4000000000"],
        &["gen-history", "--model", "kv", "--keys", "4000000000"],
        &[
            "cuts",
            "examples/cuts/fig1.txt",
            "--count",
            "--algo",
            "paramount",
            "--threads",
            "100000",
        ],
        &[
            "lin",
            "examples/register.jsonl",
            "--model",
            "cas-register",
            "--timeout",
            "1e300",
        ],
    ] {
        let o = hindsight(args);
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        assert!(!o.stderr.contains("panicked"), "{args:?}: {}", o.stderr);
    }
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_text() {
    let bom = |path: &str| {
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend(read(&root().join(path)));
        let name = Path::new(path).file_name().unwrap().to_str().unwrap();
        let p = temp(&format!("bom-{name}"));
        std::fs::write(&p, bytes).expect("write");
        p.to_str().unwrap().to_owned()
    };
    let same = |plain: &[&str], marked: &[&str]| {
        let (a, b) = (hindsight(plain), hindsight(marked));
        assert_eq!(b.code, a.code, "{marked:?}: {}", b.stderr);
        assert!(!b.stderr.contains("error"), "{marked:?}: {}", b.stderr);
        // The marked copy's path is the only other difference.
        let mut b_out = b.stdout.clone();
        for (x, y) in marked.iter().zip(plain) {
            b_out = b_out.replace(x, y);
        }
        assert_eq!(untimed(&b_out), untimed(&a.stdout), "{marked:?}");
    };
    let trace = bom("examples/bank.std");
    same(&["races", "examples/bank.std"], &["races", &trace]);
    let program = bom("examples/views/coordinates.mv");
    same(
        &["views", "examples/views/coordinates.mv"],
        &["views", &program],
    );
    let java = bom("examples/composed/paper.java");
    same(
        &["composed", "examples/composed/paper.java"],
        &["composed", &java],
    );
    let history = bom("examples/register.jsonl");
    same(
        &["lin", "examples/register.jsonl", "--model", "cas-register"],
        &["lin", &history, "--model", "cas-register"],
    );
    let poset = hindsight(&["gen-poset", "d-12", "--seed", "2"]).stdout;
    let plain = write_temp("poset.txt", &poset);
    let marked = write_temp("bom-poset.txt", &format!("\u{feff}{poset}"));
    same(&["cuts", &plain, "--count"], &["cuts", &marked, "--count"]);
    let spec = bom("crates/stream/specs/map.spec");
    same(
        &[
            "commute",
            "examples/hosts.txt",
            "--spec",
            "crates/stream/specs/map.spec",
        ],
        &["commute", "examples/hosts.txt", "--spec", &spec],
    );
}

#[test]
fn an_empty_trace_is_warned_about() {
    let empty = write_temp("empty.std", "# nothing was logged\n");
    for cmd in ["races", "atomicity", "stats"] {
        let o = hindsight(&[cmd, &empty]);
        assert_eq!(o.code, 0, "{cmd}: {}", o.stderr);
        assert!(
            o.stderr.contains("warning: the trace has no events"),
            "{cmd}: {}",
            o.stderr
        );
        let strict = hindsight(&[cmd, &empty, "--strict"]);
        assert_eq!(strict.code, 2, "{cmd} --strict: {}", strict.stderr);
    }
    let program = write_temp("empty.mv", "class C { f; }\n");
    let o = hindsight(&["views", &program]);
    assert!(
        o.stderr.contains("the program has no thread"),
        "{}",
        o.stderr
    );
}

#[test]
fn control_characters_of_the_input_reach_no_terminal_raw() {
    let trace = write_temp(
        "control.std",
        "T1|w(x\u{1b}[2J)|A.java:1\nT2|w(x\u{1b}[2J)|A.java:2\n",
    );
    let o = hindsight(&["races", &trace]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(!o.stdout.contains('\u{1b}'), "{}", o.stdout);
    assert!(o.stdout.contains("x\\u{1b}[2J"), "{}", o.stdout);
    assert!(!o.stderr.contains('\u{1b}'), "{}", o.stderr);
    // JSON carries the name as it is (escaped by JSON itself).
    let json = hindsight(&["races", &trace, "--format", "json"]);
    assert!(json.stdout.contains("x\\u001b[2J"), "{}", json.stdout);
    let bad = write_temp("control-bad.std", "T1|w(x)|1\nT1|\u{7}zz(x)|2\n");
    let o = hindsight(&["races", &bad]);
    assert_eq!(o.code, 2);
    assert!(!o.stderr.contains('\u{7}'), "{}", o.stderr);
}

#[test]
fn reach_reads_a_predicate_from_a_file_and_long_predicates_are_cut_short() {
    let file = write_temp("open.pred", "count(method == open) >= 2\n");
    let inline = hindsight(&[
        "reach",
        "examples/reach/fig1_5_t2_first.txt",
        "--predicate",
        "count(method == open) >= 2",
    ]);
    let from_file = hindsight(&[
        "reach",
        "examples/reach/fig1_5_t2_first.txt",
        "--predicate",
        &format!("@{file}"),
    ]);
    assert_eq!(from_file.code, inline.code, "{}", from_file.stderr);
    assert_eq!(untimed(&from_file.stdout), untimed(&inline.stdout));
    let long = format!("count(method == open) >= {}2", "0".repeat(5000));
    let file = write_temp("long.pred", &long);
    for cmd in ["reach", "cuts"] {
        let o = hindsight(&[
            cmd,
            "examples/reach/fig1_5_t2_first.txt",
            "--predicate",
            &format!("@{file}"),
        ]);
        assert_eq!(o.code, 1, "{cmd}: {}", o.stderr);
        assert!(o.stdout.len() < 2000, "{cmd}: {} bytes", o.stdout.len());
        assert!(o.stdout.contains("characters)"), "{cmd}: {}", o.stdout);
    }
}
