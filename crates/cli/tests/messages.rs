//! Messages about inputs say where: an input that is not UTF-8 gives its file, line and
//! column and the byte's offset (a Java file found in a directory is skipped with a warning
//! instead); a predicate read from a file is placed in that file; a generator's family states
//! its range. And predicate arithmetic is exact, whichever algorithm decides it.

mod common;

use common::{hindsight, temp};

/// `text` with a byte that begins no UTF-8 character on its second line, after `é`.
fn not_utf8(name: &str, first_line: &str) -> String {
    let p = temp(name);
    let mut bytes = first_line.as_bytes().to_vec();
    bytes.extend_from_slice(b"\n\xc3\xa9\xff\n");
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_owned()
}

#[test]
fn a_text_input_that_is_not_utf8_is_placed() {
    let offset = |first: &str| first.len() + 3;
    let history = not_utf8("h.jsonl", "{}");
    let spec = not_utf8("s.spec", "# a spec");
    let java = not_utf8("J.java", "class J {}");
    let predicate = not_utf8("p.txt", "# a predicate");
    let at_predicate = format!("@{predicate}");
    for (args, file, first) in [
        (vec!["lin", &history], &history, "{}"),
        (
            vec!["commute", "examples/hosts.txt", "--spec", &spec],
            &spec,
            "# a spec",
        ),
        (vec!["views", &java], &java, "class J {}"),
        (vec!["composed", &java], &java, "class J {}"),
        (
            vec![
                "cuts",
                "examples/cuts/fig1.txt",
                "--predicate",
                &at_predicate,
            ],
            &predicate,
            "# a predicate",
        ),
    ] {
        let o = hindsight(&args);
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        let expected = format!(
            "{file}:2:2: error: not UTF-8 text (byte 0xff at offset {} of the file)",
            offset(first)
        );
        assert!(o.stderr.contains(&expected), "{args:?}: {}", o.stderr);
    }
}

#[test]
fn a_java_file_in_a_directory_that_is_not_utf8_is_skipped_with_a_warning() {
    let dir = temp("java-not-utf8");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("Bad.java"),
        b"class Bad { String s = \"\xff\"; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("Good.java"),
        "class Good { int x; synchronized int get() { return x; } }\n",
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    for command in ["views", "composed"] {
        let o = hindsight(&[command, d]);
        assert!(o.code == 0 || o.code == 1, "{command}: {}", o.stderr);
        assert!(
            o.stderr.contains("Bad.java:1:25: warning: not UTF-8 text")
                && o.stderr.contains("skipped"),
            "{command}: {}",
            o.stderr
        );
    }
    // `views --strict` makes the warning an error.
    let o = hindsight(&["views", d, "--strict"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
}

#[test]
fn a_predicate_file_names_its_errors() {
    let p = temp("named.txt");
    std::fs::write(&p, "# no such thread\nevents(zz) > 0\n").unwrap();
    let at = format!("@{}", p.display());
    for command in ["cuts", "reach"] {
        let o = hindsight(&[command, "examples/cuts/fig1.txt", "--predicate", &at]);
        assert_eq!(o.code, 2, "{}", o.stderr);
        let expected = format!("{}:2:8: error: no thread `zz`", p.display());
        assert!(o.stderr.contains(&expected), "{command}: {}", o.stderr);
    }
}

#[test]
fn a_poset_family_out_of_range_states_its_range() {
    let o = hindsight(&["gen-poset", "w-481"]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("from 1 to 480 processes"), "{}", o.stderr);
    let o = hindsight(&["gen-poset", "d-10000001"]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("from 1 to 10000000 events"),
        "{}",
        o.stderr
    );
    assert_eq!(hindsight(&["gen-poset", "w-480"]).code, 0);
}

#[test]
fn predicate_arithmetic_is_exact_by_every_algorithm() {
    let never = "events(t1) - events(t2) - 9223372036854775807 - 9223372036854775807 > 0";
    let always = "events(t1) - events(t2) + 9223372036854775807 + 9223372036854775807 > 0";
    for algo in ["auto", "detect", "bfs", "lex", "quicklex", "paramount"] {
        for (predicate, code) in [(never, 0), (always, 1)] {
            let o = hindsight(&[
                "cuts",
                "examples/cuts/fig1.txt",
                "--algo",
                algo,
                "--predicate",
                predicate,
            ]);
            assert_eq!(
                o.code, code,
                "{algo}: {predicate}: {}{}",
                o.stdout, o.stderr
            );
        }
    }
}

#[test]
fn standard_input_that_is_not_utf8_is_placed() {
    // Every reader of text from standard input, `lin`'s (which reads on the budget) included.
    let bytes = b"# first line\n\xc3\xa9\xff\n";
    let expected = "<stdin>:2:2: error: not UTF-8 text (byte 0xff at offset 15 of the file)";
    for args in [
        &["lin", "-"][..],
        &["composed", "-"],
        &["commute", "examples/hosts.txt", "--spec", "-"],
        &["cuts", "examples/cuts/fig1.txt", "--predicate", "@-"],
    ] {
        let o = common::hindsight_stdin(args, Some(bytes));
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        assert!(o.stderr.contains(expected), "{args:?}: {}", o.stderr);
        assert_eq!(
            o.stderr.matches("error").count(),
            1,
            "{args:?}: {}",
            o.stderr
        );
    }
}

#[test]
fn other_text_inputs_that_are_not_utf8_are_placed() {
    // A views program, a model table and a poset file.
    let program = not_utf8("p.mv", "// a program");
    let models = not_utf8("models.txt", "# models");
    let poset = not_utf8("p.poset", "0:(1,0)");
    for (args, file, first) in [
        (vec!["views", program.as_str()], &program, "// a program"),
        (
            vec!["views", "examples/java/Race.java", "--models", &models],
            &models,
            "# models",
        ),
        (vec!["cuts", poset.as_str(), "--count"], &poset, "0:(1,0)"),
    ] {
        let o = hindsight(&args);
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        let expected = format!(
            "{file}:2:2: error: not UTF-8 text (byte 0xff at offset {} of the file)",
            first.len() + 3
        );
        assert!(o.stderr.contains(&expected), "{args:?}: {}", o.stderr);
    }
}
