//! What the HTML report costs, and how fast a browser opens it: `races` over a generated trace
//! of N racy events (grouped findings), with and without `--html` in the same run, the page's
//! size, and headless Chromium's time to load it and run its script (`--dump-dom`) against the
//! same browser on an empty page (its start-up), also in the same run.
//!
//! `cargo bench -p hindsight-cli --bench html` (events: `HINDSIGHT_BENCH_EVENTS`, default 1
//! million). The trace is `hindsight gen --events N --threads 8 --seed 7 --unprotected 0.2`;
//! without Chromium on PATH the browser part is skipped, saying so.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn hindsight(args: &[&str]) -> Duration {
    let started = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_hindsight"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run hindsight");
    let took = started.elapsed();
    assert!(
        status.code().is_some_and(|c| c <= 1),
        "hindsight {args:?}: {status}"
    );
    took
}

/// The best of `runs` loads of `page` by headless Chromium, script included.
fn load(chromium: &Path, page: &Path, profile: &Path, runs: usize) -> Duration {
    (0..runs)
        .map(|_| {
            let started = Instant::now();
            let out = Command::new(chromium)
                .args([
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-first-run",
                ])
                .arg(format!("--user-data-dir={}", profile.display()))
                .arg("--dump-dom")
                .arg(format!("file://{}", page.display()))
                .stderr(Stdio::null())
                .output()
                .expect("run chromium");
            let took = started.elapsed();
            let dom = String::from_utf8_lossy(&out.stdout);
            assert!(
                dom.contains("data-ready") || page.ends_with("empty.html"),
                "the page's script did not finish"
            );
            took
        })
        .min()
        .expect("a run")
}

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| ["chromium", "chromium-browser", "google-chrome"].map(|n| d.join(n)))
        .find(|p| p.is_file())
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let events: u64 = std::env::var("HINDSIGHT_BENCH_EVENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let dir = std::env::temp_dir().join("hindsight-html-bench");
    std::fs::create_dir_all(&dir).expect("bench folder");
    let trace = dir.join("racy.hst");
    let (trace_s, page_s) = (
        trace.to_string_lossy().into_owned(),
        dir.join("races.html").to_string_lossy().into_owned(),
    );
    let n = events.to_string();
    hindsight(&[
        "gen",
        "--events",
        &n,
        "--threads",
        "8",
        "--seed",
        "7",
        "--unprotected",
        "0.2",
        "-o",
        &trace_s,
    ]);
    let plain = (0..3)
        .map(|_| hindsight(&["races", &trace_s, "--format", "json"]))
        .min()
        .unwrap();
    let with_page = (0..3)
        .map(|_| hindsight(&["races", &trace_s, "--format", "json", "--html", &page_s]))
        .min()
        .unwrap();
    let size = std::fs::metadata(&page_s).expect("the page").len();
    println!("html/races {events} events: races --format json {plain:.2?}; with --html {with_page:.2?} ({:.2}x); page {size} bytes ({:.2} MB)",
        with_page.as_secs_f64() / plain.as_secs_f64(),
        size as f64 / 1e6
    );
    let Some(chromium) = chromium() else {
        println!("html/chromium: skipped (no chromium on PATH)");
        return;
    };
    let empty = dir.join("empty.html");
    std::fs::write(&empty, "<!DOCTYPE html><title>empty</title>").expect("empty page");
    let profile = dir.join("profile");
    let blank = load(&chromium, &empty, &profile, 3);
    let page = load(&chromium, Path::new(&page_s), &profile, 3);
    println!(
        "html/chromium: load + script of the page {page:.2?}; of an empty page {blank:.2?} ({:.2}x); the page's own share {:.2?}",
        page.as_secs_f64() / blank.as_secs_f64(),
        page.saturating_sub(blank)
    );
    let _ = std::fs::remove_file(&trace);
}
