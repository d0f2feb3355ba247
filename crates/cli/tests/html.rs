//! `--format html` and `--html FILE` on the command line: the page beside the usual output,
//! the same exit status, the refusals (an input as the page, JSON Lines, a command without a
//! report), and standard input drawn without a window.

mod common;

use common::*;

#[test]
fn the_page_goes_beside_the_text_with_the_same_exit_status() {
    let page = temp("bank.html");
    let _ = std::fs::remove_file(&page);
    let plain = hindsight(&["races", "examples/bank.std"]);
    let with_page = hindsight(&[
        "races",
        "examples/bank.std",
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(with_page.code, 1);
    assert_eq!(with_page.stdout, plain.stdout);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    // The window around the first race: T1's critical section, the lock edge to T2.
    assert!(html.contains("class=\"lock-span\""));
    assert!(html.contains("lock L0 (happens-before"));
    assert_eq!(html.matches("<svg class=\"swimlane\"").count(), 2);
}

#[test]
fn format_html_prints_the_page() {
    let out = hindsight(&[
        "lin",
        "examples/register.jsonl",
        "--model",
        "cas-register",
        "--format",
        "html",
    ]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.starts_with("<!DOCTYPE html>"));
    assert!(out.stdout.contains("class=\"op-bar stuck\""));
    let clean = hindsight(&[
        "lin",
        "examples/register.edn",
        "--model",
        "cas-register",
        "--format",
        "html",
    ]);
    assert_eq!(clean.code, 0);
    assert!(clean.stdout.contains("no findings"));
}

#[test]
fn an_input_is_never_the_page() {
    let copy = write_temp(
        "copy.std",
        &std::fs::read_to_string(root().join("examples/bank.std")).unwrap(),
    );
    let out = hindsight(&["races", &copy, "--html", &copy]);
    assert_eq!(out.code, 2);
    assert!(
        out.stdout.is_empty(),
        "refused before the run: {}",
        out.stdout
    );
    assert!(
        out.stderr.contains("is both read and written by this run"),
        "{}",
        out.stderr
    );
    assert!(std::fs::read_to_string(&copy)
        .unwrap()
        .contains("T1|acq(L0)"));
}

#[test]
fn commands_without_a_kept_report_refuse_html() {
    let out = hindsight(&["gen", "--events", "5", "--html", "x.html"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("`--html` does not apply to `hindsight gen`"),
        "{}",
        out.stderr
    );
    let out = hindsight(&[
        "races",
        "examples/bank.std",
        "--format",
        "jsonl",
        "--html",
        "x.html",
    ]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("JSON Lines"), "{}", out.stderr);
    let out = hindsight(&["stats", "examples/bank.std", "--format", "html"]);
    assert_eq!(out.code, 2);
}

#[test]
fn standard_input_is_drawn_without_a_window() {
    let trace = std::fs::read(root().join("examples/bank.std")).unwrap();
    let out = hindsight_stdin(&["races", "-", "--format", "html"], Some(&trace));
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("read once"));
    // Only the findings' own events: no lock span.
    assert!(!out.stdout.contains("class=\"lock-span\""));
    assert_eq!(out.stdout.matches("<svg class=\"swimlane\"").count(), 2);
}
