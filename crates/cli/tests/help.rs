//! The command line a person meets: help that fits a terminal, options only where they apply,
//! one meaning per option name, completions and a man page.

mod common;

use common::hindsight;
use std::process::Command;

/// `hindsight ARGS` with the terminal `columns` wide.
fn at_width(args: &[&str], columns: &str) -> common::Out {
    let out = Command::new(env!("CARGO_BIN_EXE_hindsight"))
        .args(args)
        .env("COLUMNS", columns)
        .output()
        .expect("run hindsight");
    common::Out {
        code: out.status.code().expect("exit code"),
        stdout: String::from_utf8(out.stdout).expect("utf-8"),
        stderr: String::from_utf8(out.stderr).expect("utf-8"),
    }
}

/// The subcommands `hindsight --help` lists.
fn subcommands() -> Vec<String> {
    let help = hindsight(&["--help"]).stdout;
    let list = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands section");
    let names: Vec<String> = list
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_owned)
        .collect();
    assert!(names.len() >= 15, "subcommands found: {names:?}");
    names
}

#[test]
fn every_help_fits_100_columns() {
    let mut commands: Vec<Vec<String>> = vec![vec!["--help".into()]];
    for name in subcommands() {
        commands.push(vec![name.clone(), "--help".into()]);
        commands.push(vec![name, "-h".into()]);
    }
    for args in commands {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = at_width(&args, "100");
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        for line in out.stdout.lines() {
            assert!(
                line.chars().count() <= 100,
                "hindsight {args:?}: a line of {} columns: {line}",
                line.chars().count()
            );
        }
    }
}

#[test]
fn help_wraps_to_a_narrower_terminal() {
    let out = at_width(&["races", "--help"], "60");
    assert!(
        out.stdout.lines().all(|l| l.chars().count() <= 60),
        "{}",
        out.stdout
    );
}

/// The options every command used to show, and the commands each applies to.
const PLACED: [(&str, &[&str]); 3] = [
    (
        "--one-thread",
        &[
            "races",
            "atomicity",
            "commute",
            "views",
            "check",
            "cuts",
            "reach",
            "lin",
            "composed",
            "stats",
            "convert",
        ],
    ),
    (
        "--rr-exclude",
        &[
            "races",
            "atomicity",
            "commute",
            "views",
            "check",
            "cuts",
            "reach",
            "stats",
            "convert",
        ],
    ),
    (
        "--html",
        &[
            "races",
            "atomicity",
            "commute",
            "views",
            "check",
            "cuts",
            "reach",
            "lin",
            "composed",
        ],
    ),
];

#[test]
fn global_options_show_only_under_the_commands_they_apply_to() {
    for name in subcommands() {
        let help = hindsight(&[&name, "--help"]).stdout;
        for (option, applies) in PLACED {
            let shown = help
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{option} ")) || l.trim() == option);
            assert_eq!(
                shown,
                applies.contains(&name.as_str()),
                "{option} under `hindsight {name} --help`:\n{help}"
            );
        }
    }
}

#[test]
fn a_global_option_on_a_command_it_does_not_apply_to_is_a_usage_error() {
    let out = hindsight(&[
        "gen",
        "--events",
        "5",
        "--threads",
        "2",
        "--seed",
        "1",
        "--one-thread",
    ]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stderr
            .contains("`--one-thread` does not apply to `hindsight gen`"),
        "{}",
        out.stderr
    );
    let out = hindsight(&["lin", "examples/register.edn", "--rr-exclude", "x"]);
    assert_eq!(out.code, 2);
    assert!(out
        .stderr
        .contains("`--rr-exclude` does not apply to `hindsight lin`"));
    // Where it applies, it is taken before or after the command's own arguments.
    assert_eq!(
        hindsight(&["races", "examples/bank.std", "--one-thread"]).code,
        1
    );
    assert_eq!(
        hindsight(&["--one-thread", "races", "examples/bank.std"]).code,
        1
    );
}

#[test]
fn cuts_old_option_names_still_work_and_say_the_new_ones() {
    let new = hindsight(&[
        "cuts",
        "examples/cuts/fig1.txt",
        "--predicate",
        "true",
        "--all",
        "--max-states",
        "2",
        "--full-poset",
        "--format",
        "json",
    ]);
    let old = hindsight(&[
        "cuts",
        "examples/cuts/fig1.txt",
        "--predicate",
        "true",
        "--all",
        "--limit",
        "2",
        "--every-event",
        "--format",
        "json",
    ]);
    assert_eq!(new.code, old.code);
    let findings = |s: &str| -> serde_json::Value {
        serde_json::from_str::<serde_json::Value>(s).expect("json")["findings"].clone()
    };
    assert_eq!(findings(&new.stdout), findings(&old.stdout));
    assert_eq!(findings(&new.stdout).as_array().map(Vec::len), Some(2));
    assert!(
        old.stderr.contains("`cuts --limit` is now `--max-states`"),
        "{}",
        old.stderr
    );
    assert!(
        old.stderr
            .contains("`cuts --every-event` is now `--full-poset`"),
        "{}",
        old.stderr
    );
    assert!(!new.stderr.contains("is now"), "{}", new.stderr);
    let help = hindsight(&["cuts", "--help"]).stdout;
    let options: Vec<&str> = help
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("--"))
        .collect();
    assert!(
        options.iter().any(|l| l.starts_with("--max-states")),
        "{help}"
    );
    assert!(
        !options
            .iter()
            .any(|l| l.starts_with("--limit") || l.starts_with("--every-event")),
        "{help}"
    );
}

#[test]
fn completions_and_the_man_page_cover_every_command() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = hindsight(&["completions", shell]);
        assert_eq!(out.code, 0, "{shell}: {}", out.stderr);
        for name in ["races", "gen-history", "--max-states"] {
            assert!(out.stdout.contains(name), "{shell} completions lack {name}");
        }
    }
    assert_eq!(hindsight(&["completions", "tcsh"]).code, 2);
    let man = hindsight(&["man"]);
    assert_eq!(man.code, 0, "{}", man.stderr);
    assert!(man.stdout.starts_with(".ie") || man.stdout.contains(".TH hindsight 1"));
    for name in subcommands() {
        // roff writes a hyphen as `\-`.
        let roff = name.replace('-', "\\-");
        assert!(man.stdout.contains(&roff), "the man page lacks {name}");
    }
}
