//! Docs that run: every command shown in a ```` ```console ```` block of README.md and docs/*.md
//! runs here, and what it prints is compared with what the page shows.
//!
//! A block is a shell session: `$ COMMAND` lines, each followed by what it prints (standard
//! output and standard error together, as a terminal shows them). A `? N` line right under the
//! command gives its exit status when it is not 0. In the shown output, `[..]` stands for any
//! text within a line (a time, the machine's memory) and a line `...` for any number of lines.
//! Each block runs in a fresh folder where `examples` and `crates` lead to the repository's, so
//! the paths read as from the repository's root and files a command writes go nowhere else;
//! `hindsight` is the binary under test. Other blocks (`text`, `sh`, ...) are not run.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

/// One `$ COMMAND` of a page and what the page says it does.
#[derive(Debug)]
struct Shown {
    page: String,
    line: usize,
    command: String,
    status: i32,
    output: Vec<String>,
}

/// The console blocks of a page, each a list of commands in order.
fn console_blocks(page: &str, text: &str) -> Vec<Vec<Shown>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<Shown>> = None;
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        match &mut current {
            None if line.trim() == "```console" => current = Some(Vec::new()),
            None => {}
            Some(_) if line.trim() == "```" => blocks.push(current.take().expect("block")),
            Some(block) => {
                if let Some(command) = line.strip_prefix("$ ") {
                    block.push(Shown {
                        page: page.to_string(),
                        line: number,
                        command: command.to_string(),
                        status: 0,
                        output: Vec::new(),
                    });
                    continue;
                }
                let shown = block.last_mut().unwrap_or_else(|| {
                    panic!("{page}:{number}: a console block must start with a `$ ` command")
                });
                match line.strip_prefix("? ") {
                    Some(status) if shown.output.is_empty() => {
                        shown.status = status.trim().parse().unwrap_or_else(|_| {
                            panic!("{page}:{number}: `? N` needs an exit status, not `{status}`")
                        })
                    }
                    _ => shown.output.push(line.to_string()),
                }
            }
        }
    }
    assert!(current.is_none(), "{page}: a console block is not closed");
    blocks
}

/// Whether `actual` is `pattern`, where `[..]` in the pattern matches any text.
fn line_matches(pattern: &str, actual: &str) -> bool {
    let mut parts = pattern.split("[..]");
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// Whether the lines `actual` are the shown lines `pattern` (`...` matching any lines).
fn lines_match(pattern: &[String], actual: &[&str]) -> bool {
    match pattern.split_first() {
        None => actual.is_empty(),
        Some((p, rest)) if p == "..." => {
            (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..]))
        }
        Some((p, rest)) => match actual.split_first() {
            Some((a, after)) => line_matches(p, a) && lines_match(rest, after),
            None => false,
        },
    }
}

fn pages() -> Vec<PathBuf> {
    let root = root();
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// Runs one block's commands in a fresh folder; the mismatches, described.
fn run_block(block: &[Shown], bin_dir: &Path) -> String {
    let root = root();
    let dir = tempfile::tempdir().expect("temporary folder");
    for linked in ["examples", "crates"] {
        std::os::unix::fs::symlink(root.join(linked), dir.path().join(linked)).expect("symlink");
    }
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = String::new();
    for shown in block {
        // A command that hangs fails the test instead of holding it up.
        let out = Command::new("timeout")
            .args(["-k", "5", "60", "sh", "-c"])
            .arg(format!("exec 2>&1\n{}", shown.command))
            .current_dir(dir.path())
            .env("PATH", &path)
            .env("COLUMNS", "100")
            .env_remove("HINDSIGHT_TRACE")
            .stdin(Stdio::null())
            .output()
            .expect("run sh");
        let status = out.status.code().unwrap_or(-1);
        let text = String::from_utf8_lossy(&out.stdout);
        let actual: Vec<&str> = text.lines().collect();
        if status != shown.status || !lines_match(&shown.output, &actual) {
            let _ = writeln!(
                failures,
                "{}:{}: $ {}\n--- shown (exit status {}):\n{}\n--- printed (exit status {status}):\n{}\n",
                shown.page,
                shown.line,
                shown.command,
                shown.status,
                shown.output.join("\n"),
                text.trim_end()
            );
        }
    }
    failures
}

#[test]
fn every_console_command_in_the_readme_and_the_manual_prints_what_is_shown() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_hindsight"));
    let bin_dir = bin.parent().expect("binary folder");
    let root = root();
    let mut blocks = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("read page");
        let name = page
            .strip_prefix(&root)
            .unwrap_or(&page)
            .display()
            .to_string();
        blocks.extend(console_blocks(&name, &text));
    }
    let commands: usize = blocks.iter().map(Vec::len).sum();
    assert!(
        commands >= 40,
        "only {commands} console commands found in README.md and docs/"
    );
    // Blocks are independent (each has its folder): run them on every core.
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = blocks
            .iter()
            .map(|block| s.spawn(|| run_block(block, bin_dir)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("block thread"))
            .filter(|f| !f.is_empty())
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} block(s) print something else than shown:\n\n{}",
        failures.len(),
        failures.concat()
    );
}

#[test]
fn the_matcher_elides_only_where_asked() {
    assert!(line_matches("a [..] c", "a bb c"));
    assert!(line_matches("seconds [..]", "seconds 0.1"));
    assert!(!line_matches("seconds [..], x", "seconds 0.1, y"));
    assert!(!line_matches("a", "ab"));
    assert!(line_matches("[..]", ""));
    let shown: Vec<String> = ["a", "...", "z"].iter().map(|s| s.to_string()).collect();
    assert!(lines_match(&shown, &["a", "z"]));
    assert!(lines_match(&shown, &["a", "b", "c", "z"]));
    assert!(!lines_match(&shown, &["a", "b"]));
    assert!(!lines_match(&shown[..1], &["a", "b"]));
    let blocks = console_blocks(
        "t.md",
        "```console\n$ hindsight x\n? 1\nout\n$ y\n```\n```text\n$ z\n```\n",
    );
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0][0].status, 1);
    assert_eq!(blocks[0][0].output, ["out"]);
    assert_eq!(blocks[0][1].command, "y");
}
