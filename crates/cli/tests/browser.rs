//! The HTML report of every bundled example, opened in a real browser (headless Chromium): the
//! page's script runs without an error or a console message, and the pictures are drawn —
//! swimlanes with the finding's events set apart, lock spans and happens-before edges where the
//! trace has them, the schedule player, the `lin` history with the operations that cannot
//! follow the longest linearizable prefix.
//!
//! What a reader sees is measured in the browser by a script of the test (`browser/check.js`)
//! added to a copy of each page: no two labels of the pictures meet (their bounding boxes, as
//! Chromium lays them out), each swimlane shows both the first and the last event of its
//! finding (at load, and again when the finding is chosen after its window was scrolled away),
//! in one window or, for a pair far apart, in two; a witness's toggle shows its whole schedule
//! and its short form again.
//!
//! Without Chromium the test says so and passes, unless `HINDSIGHT_REQUIRE_BROWSER=1` (CI sets
//! it, after installing Debian's `chromium`), when a missing browser fails it.

mod common;

use common::*;
use scraper::{Html, Selector};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn browser() -> Option<PathBuf> {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .unwrap_or_default()
        {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

/// One report to open and what its page must show.
struct Case {
    args: Vec<String>,
    /// Findings drawn as swimlanes (at least one event set apart in each).
    swimlanes: bool,
    /// Lock spans and happens-before edges in some swimlane.
    locks_and_edges: bool,
    /// A schedule to step through.
    player: bool,
    /// A history with stuck operations.
    history: bool,
    /// A witness whose short form folds events, with the toggle to its whole schedule.
    toggle: bool,
    /// The browser window's width, in CSS pixels.
    width: u32,
    /// How the first finding's swimlane must be framed: `one` window or `split` in two.
    framed: Option<&'static str>,
}

fn case(args: &[&str]) -> Case {
    Case {
        args: args.iter().map(|s| s.to_string()).collect(),
        swimlanes: false,
        locks_and_edges: false,
        player: false,
        history: false,
        toggle: false,
        width: 1000,
        framed: None,
    }
}

fn files(dir: &str, ext: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(root().join(dir))
        .expect("examples folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(ext))
        .map(|n| format!("{dir}/{n}"))
        .collect();
    out.sort();
    out
}

/// Every bundled example, each under the command it is for.
fn cases() -> Vec<Case> {
    let mut all = vec![
        Case {
            swimlanes: true,
            locks_and_edges: true,
            ..case(&["races", "examples/bank.std"])
        },
        Case {
            swimlanes: true,
            locks_and_edges: true,
            player: true,
            ..case(&[
                "races",
                "examples/missed.std",
                "--model",
                "syncp",
                "--witness",
            ])
        },
        Case {
            swimlanes: true,
            ..case(&["races", "examples/rapid.std", "--model", "wcp"])
        },
        // Lock requests right before their acquires, nested sections, long names, and a
        // witness whose short form folds a run of lock churn.
        Case {
            swimlanes: true,
            locks_and_edges: true,
            player: true,
            toggle: true,
            ..case(&[
                "races",
                "examples/dense.std",
                "--model",
                "syncp",
                "--witness",
            ])
        },
        // The same in a narrow window.
        Case {
            swimlanes: true,
            locks_and_edges: true,
            player: true,
            toggle: true,
            width: 500,
            ..case(&[
                "races",
                "examples/dense.std",
                "--model",
                "syncp",
                "--witness",
            ])
        },
        Case {
            swimlanes: true,
            ..case(&["commute", "examples/hosts.txt", "--builtin", "map"])
        },
        case(&["commute", "examples/messages.txt", "--builtin", "map"]),
        Case {
            swimlanes: true,
            player: true,
            ..case(&["cuts", "examples/cuts/fig1.txt", "--predicate", "race"])
        },
        case(&[
            "cuts",
            "examples/cuts/elevator.txt",
            "--predicate",
            "count(method == at by arg0, arg1) >= 3",
        ]),
        case(&["cuts", "examples/cuts/fig2.poset", "--count"]),
        Case {
            history: true,
            ..case(&["lin", "examples/register.jsonl", "--model", "cas-register"])
        },
        case(&["lin", "examples/register.edn", "--model", "cas-register"]),
        Case {
            swimlanes: true,
            ..case(&[
                "check",
                "examples/bank.std",
                "--analyses",
                "races,atomicity,views",
            ])
        },
    ];
    for t in files("examples/atomicity", ".std") {
        // nonnested.std breaks nested locking on purpose: accepted with a warning.
        all.push(case(&[
            "atomicity",
            &t,
            "--schedule",
            "--ignore-non-nested",
        ]));
    }
    for t in files("examples/views", ".std")
        .into_iter()
        .chain(files("examples/views", ".mv"))
    {
        all.push(case(&["views", &t]));
    }
    for t in files("examples/reach", ".txt") {
        all.push(case(&["reach", &t, "--check-valid"]));
    }
    for p in files("examples/composed", ".java") {
        // expiry.java's and quota.java's one violation is found by the bounded check (its
        // witness assumes what unknown calls return).
        let mut args = vec!["composed", p.as_str()];
        if p.ends_with("expiry.java") || p.ends_with("quota.java") {
            args.push("--bounded");
        }
        all.push(Case {
            swimlanes: true,
            ..case(&args)
        });
    }
    // The atomicity examples with a violation: its inferred run, step by step.
    all.push(Case {
        swimlanes: true,
        locks_and_edges: true,
        player: true,
        ..case(&["atomicity", "examples/atomicity/rwr.std", "--schedule"])
    });
    all
}

/// Chromium's DOM of the page at `page` after its scripts ran, and what it logged.
fn open(chromium: &Path, page: &Path, profile: &Path, width: u32) -> (String, String) {
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--window-size={width},900"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    let started = Instant::now();
    loop {
        if child.try_wait().expect("chromium").is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium did not finish {} in 120 s", page.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("chromium output");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn count(doc: &Html, css: &str) -> usize {
    doc.select(&Selector::parse(css).unwrap()).count()
}

/// What is wrong with the page of `c` as Chromium shows it.
fn problems(c: &Case, dom: &str, log: &str) -> Vec<String> {
    let mut wrong = Vec::new();
    for line in log.lines().filter(|l| l.contains(":CONSOLE")) {
        wrong.push(format!("console: {line}"));
    }
    let doc = Html::parse_document(dom);
    let ready = doc
        .select(&Selector::parse("body").unwrap())
        .next()
        .and_then(|b| b.value().attr("data-ready").map(str::to_owned));
    if ready.is_none() {
        wrong.push("the page's script did not finish (no data-ready)".into());
    }
    let errors: String = doc
        .select(&Selector::parse("#js-errors").unwrap())
        .flat_map(|e| e.text())
        .collect();
    if !errors.trim().is_empty() {
        wrong.push(format!("script errors: {errors}"));
    }
    let findings = count(&doc, "article.finding");
    if findings != count(&doc, "article.finding .track:not(.second) > svg.swimlane") {
        wrong.push("a finding without its swimlane".into());
    }
    if c.swimlanes && (findings == 0 || count(&doc, "svg.swimlane g.ev.pair") < 2) {
        wrong.push("no swimlane with the finding's events set apart".into());
    }
    if c.locks_and_edges
        && (count(&doc, "svg.swimlane .lock-span") == 0 || count(&doc, "svg.swimlane line.hb") == 0)
    {
        wrong.push("no lock span or happens-before edge".into());
    }
    if c.player {
        let positions: Vec<String> = doc
            .select(&Selector::parse(".player .pos").unwrap())
            .map(|p| p.text().collect())
            .collect();
        if positions.is_empty() || positions.iter().any(|p| p.is_empty()) {
            wrong.push("no schedule player set up by the script".into());
        }
    }
    if c.history && (count(&doc, "svg.history .op-bar") == 0 || count(&doc, ".op-bar.stuck") == 0) {
        wrong.push("no history with the operations that cannot follow the prefix".into());
    }
    // What the test's script measured: its complaints, and the facts it saw.
    let measured: String = doc
        .select(&Selector::parse("pre#check").unwrap())
        .flat_map(|e| e.text())
        .collect();
    if !measured.contains("fact: labels") {
        wrong.push("the test's script did not run".into());
    }
    let facts: Vec<&str> = measured
        .lines()
        .filter_map(|l| l.strip_prefix("fact: "))
        .collect();
    wrong.extend(
        measured
            .lines()
            .filter(|l| !l.starts_with("fact: ") && !l.is_empty())
            .map(str::to_owned),
    );
    if c.toggle && !facts.iter().any(|f| f.starts_with("toggle ")) {
        wrong.push("no witness toggle".into());
    }
    if let Some(framed) = c.framed {
        let first = facts
            .iter()
            .find_map(|f| f.strip_prefix("window f0-0 "))
            .unwrap_or("not drawn");
        if first != framed {
            wrong.push(format!(
                "the first swimlane is framed {first}, not {framed}"
            ));
        }
    }
    wrong
}

/// A copy of `page` with the test's measuring script after the page's own.
fn with_check(page: &Path) -> PathBuf {
    let html = std::fs::read_to_string(page).expect("the page");
    let end = html.rfind("</body>").expect("</body>");
    let copy = page.with_extension("check.html");
    std::fs::write(
        &copy,
        format!(
            "{}<script>{}</script>{}",
            &html[..end],
            include_str!("browser/check.js"),
            &html[end..]
        ),
    )
    .expect("write the page's copy");
    copy
}

/// A race whose two writes are thousands of events apart (`races` reports it: nothing orders
/// them), the threads busy with other variables between.
fn far_apart_trace() -> String {
    let mut t = String::from("T0|fork(T1)\nT0|fork(T2)\nT1|w(x)|Far.java:1\n");
    for k in 0..1500 {
        t.push_str(&format!("T1|r(a{})|Far.java:2\n", k % 7));
        t.push_str(&format!("T2|w(b{})|Far.java:3\n", k % 5));
    }
    t.push_str("T2|w(x)|Far.java:4\n");
    t
}

#[test]
fn every_example_report_opens_in_chromium() {
    let Some(chromium) = browser() else {
        if std::env::var("HINDSIGHT_REQUIRE_BROWSER").as_deref() == Ok("1") {
            panic!(
                "HINDSIGHT_REQUIRE_BROWSER=1 but no chromium on PATH (apt-get install chromium)"
            );
        }
        println!("skipped: no chromium on PATH; the HTML reports were not opened in a browser (apt-get install chromium)");
        return;
    };
    let dir = temp("browser");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut cases = cases();
    let far = dir.join("far.std").to_string_lossy().into_owned();
    std::fs::write(&far, far_apart_trace()).unwrap();
    // Wide enough for the pair's window (about 30 columns), and too narrow for it.
    for (width, framed) in [(2000, "one"), (700, "split")] {
        cases.push(Case {
            swimlanes: true,
            width,
            framed: Some(framed),
            ..case(&["races", &far])
        });
    }
    // The pages first (one hindsight at a time), then two browsers at a time.
    let mut pages = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let page = dir.join(format!("{i}.html"));
        let mut args: Vec<&str> = c.args.iter().map(String::as_str).collect();
        let page_arg = page.to_string_lossy().into_owned();
        args.extend(["--html", &page_arg]);
        let out = hindsight(&args);
        assert!(
            out.code <= 1,
            "hindsight {}: exit {}\n{}",
            c.args.join(" "),
            out.code,
            out.stderr
        );
        pages.push(with_check(&page));
    }
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for worker in 0..2 {
            let (chromium, dir, cases, pages, failures, next) =
                (&chromium, &dir, &cases, &pages, &failures, &next);
            s.spawn(move || {
                let profile = dir.join(format!("profile-{worker}"));
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(page) = pages.get(i) else { break };
                    let (dom, log) = open(chromium, page, &profile, cases[i].width);
                    for p in problems(&cases[i], &dom, &log) {
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("hindsight {}: {p}", cases[i].args.join(" ")));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!(
        "{} example reports opened in {}",
        cases.len(),
        chromium.display()
    );
}
