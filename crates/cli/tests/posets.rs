//! Poset files as a newcomer meets them: processes named `P0`, `P1`, ... (or by number), and
//! errors that say what a poset file is and which command reads it.

mod common;

use common::hindsight;

const FIG2: &str = "examples/cuts/fig2.poset";

#[test]
fn a_predicate_on_events_of_a_poset_file_is_an_error_saying_posets_carry_none() {
    for predicate in [
        "race",
        "exists(var == x)",
        "at(P0, op == w)",
        "count(lock == l) >= 1",
    ] {
        let out = hindsight(&["cuts", FIG2, "--predicate", predicate]);
        assert_eq!(out.code, 2, "{predicate}: {}", out.stdout);
        assert!(
            out.stderr
                .contains("a poset file's events carry no operation, variable or lock"),
            "{predicate}: {}",
            out.stderr
        );
    }
    // What a poset file has, its processes' events, can be asked about.
    let out = hindsight(&["cuts", FIG2, "--predicate", "events(P1) >= 2"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let out = hindsight(&[
        "cuts",
        FIG2,
        "--predicate",
        "events(1) >= 2 && events(P0) == 0",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
}

#[test]
fn an_unknown_process_is_an_error_listing_the_known_ones() {
    let out = hindsight(&["cuts", FIG2, "--predicate", "events(p1) >= 1"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains(
            "no thread `p1` has an event relevant to the predicate; those that do: P0, P1, P2 (or their numbers, 0 to 2)"
        ),
        "{}",
        out.stderr
    );
    let out = hindsight(&[
        "cuts",
        "examples/cuts/fig1.txt",
        "--predicate",
        "at(t9, op == w)",
    ]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("those that do: t1, t2"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_trace_command_given_a_poset_file_names_cuts() {
    for command in ["races", "atomicity", "stats", "reach"] {
        let mut args = vec![command, FIG2];
        if command == "reach" {
            args.push("--count");
        }
        let out = hindsight(&args);
        assert_eq!(out.code, 2, "{command}");
        assert_eq!(
            out.stderr.trim(),
            "examples/cuts/fig2.poset: error: this looks like a poset file, not a trace: use `hindsight cuts` (with `--poset` when it comes on standard input)",
            "{command}"
        );
    }
}
