//! The shapes of real programs that once made an analysis quadratic (#38): many threads on
//! one variable, many threads holding locks at once, deep lock nesting, many locks, many
//! variables, a thread per request. Each runs every trace analysis on a size that takes well
//! under a second per analysis when the work is linear in the trace, and minutes when it is
//! quadratic (these run unoptimised, so the sizes are modest; `--bench shapes` measures the
//! growth from n to 2n on larger ones). The bound each is held to, [`LIMIT`], is far above
//! the linear time (each test takes seconds at most unloaded): a loaded
//! machine (CI's two cores shared with builds) stretches the wall time several-fold and cannot
//! reach it. It catches a gross regression only; the growth is the bench's to measure. Each
//! shape lists the analyses that are linear on it; the others are in BENCHMARKS.md ("Shapes")
//! with their figures, still to be made linear. The sync-preserving and OSR models are held
//! to it on many threads on one variable, many threads holding locks, deep nesting and a
//! thread per request (their closures follow the threads an access is ordered after, not
//! every thread); a thread that reads, again and again, a variable every other thread wrote
//! still walks those threads at each read, and the deadline test below holds them to
//! `--timeout` there.

use hindsight_budget::{Budget, Limits};
use hindsight_predict::{analysis, Model, Options};
use hindsight_stream::atomicity::{self, Atomicity};
use hindsight_stream::commute::builtin::builtin;
use hindsight_stream::commute::load::load;
use hindsight_stream::commute::{Binding, Commute};
use hindsight_stream::groups::Granularity;
use hindsight_stream::views::{DynamicViews, Regions};
use hindsight_stream::{analyse_trace_within, Analysis, RunOptions};
use hindsight_trace::shapes::shape;
use hindsight_trace::{AnyReader, TextReader};
use std::io::Read;
use std::time::{Duration, Instant};

/// The trace analyses by name, as the commands build them (`check` is several at once).
fn analyses(name: &str) -> Vec<Box<dyn Analysis>> {
    let options = Options {
        granularity: Granularity::Grouped,
        witnesses: false,
        beyond_hb: false,
    };
    let commute = || {
        let loaded = load(builtin("map").expect("shipped"), "map", false).expect("loads");
        Box::new(Commute::new(loaded.specs, Binding::All(0))) as Box<dyn Analysis>
    };
    let views = || Box::new(DynamicViews::new(Regions::Auto, true)) as Box<dyn Analysis>;
    let atomicity = || Box::new(Atomicity::new(atomicity::Options::default())) as Box<dyn Analysis>;
    match name {
        "races" => vec![analysis(Model::Hb, options)],
        "shb" => vec![analysis(Model::Shb, options)],
        "wcp" => vec![analysis(Model::Wcp, options)],
        "syncp" => vec![analysis(Model::SyncP, options)],
        "osr" => vec![analysis(Model::Osr, options)],
        "commute" => vec![commute()],
        "atomicity" => vec![atomicity()],
        "views" => vec![views()],
        "check" => vec![
            analysis(Model::Hb, options),
            commute(),
            atomicity(),
            views(),
        ],
        other => panic!("no analysis {other}"),
    }
}

/// Runs `analysis` on `text` within `budget`; the time it took.
fn run(text: &str, analysis: &str, budget: &Budget) -> Duration {
    let source: Box<dyn Read + Send> = Box::new(std::io::Cursor::new(text.as_bytes().to_vec()));
    let mut reader = AnyReader::Text(TextReader::new(source));
    let started = Instant::now();
    analyse_trace_within(
        &mut reader,
        "shape",
        analyses(analysis),
        RunOptions::default(),
        None,
        Some(budget),
    )
    .expect("the shapes are valid traces");
    started.elapsed()
}

const LINEAR: [&str; 7] = [
    "races",
    "shb",
    "wcp",
    "commute",
    "atomicity",
    "views",
    "check",
];

/// The wall time no analysis may reach at the sizes below, where each takes well under a
/// second unloaded: a loaded machine's stretch of the wall time cannot fail the tests.
const LIMIT: Duration = Duration::from_secs(60);

/// Each of `names` on `shape` at size `n`, each well within [`LIMIT`] (a quadratic one, at
/// these sizes, takes minutes).
fn linear_on(shape_name: &str, n: usize, names: &[&str]) {
    let text = shape(shape_name, n).expect("a shape");
    let slow: Vec<String> = names
        .iter()
        .map(|a| (a, run(&text, a, &Budget::unlimited())))
        .filter(|(_, took)| *took >= LIMIT)
        .map(|(a, took)| format!("{a} {took:?}"))
        .collect();
    assert!(slow.is_empty(), "on {shape_name} ({n}): {slow:?}");
}

#[test]
fn many_threads_on_one_variable() {
    linear_on(
        "one-variable",
        12_000,
        &[&LINEAR[..], &["syncp", "osr"]].concat(),
    );
}

#[test]
fn many_threads_holding_locks_at_once() {
    linear_on(
        "locks-held",
        12_000,
        &[
            "races",
            "shb",
            "wcp",
            "commute",
            "atomicity",
            "syncp",
            "osr",
        ],
    );
}

#[test]
fn deep_lock_nesting() {
    linear_on("nesting", 2_000, &LINEAR);
}

/// The closure models keep a thread's held locks as one path of a trie of sets, not a set per
/// lock operation (the square of the depth): 20,000 nested locks.
#[test]
fn deep_lock_nesting_in_the_closure_models() {
    linear_on("nesting", 20_000, &["syncp", "osr"]);
}

#[test]
fn many_locks() {
    linear_on(
        "many-locks",
        30_000,
        &[
            "races",
            "shb",
            "wcp",
            "commute",
            "atomicity",
            "views",
            "check",
        ],
    );
}

#[test]
fn many_variables() {
    linear_on("many-variables", 60_000, &LINEAR);
}

#[test]
fn a_thread_per_request() {
    linear_on(
        "thread-per-request",
        12_000,
        &[&LINEAR[..], &["syncp", "osr"]].concat(),
    );
}

/// The predictive models on the shapes where they were quadratic, at sizes where they took
/// minutes: the WCP sections' clocks were dense copies as wide as the thread count (a thread
/// per request, locks held at once), and every model scanned a thread's held locks at each
/// acquire and release (deep nesting).
#[test]
fn the_models_on_a_thread_per_request() {
    linear_on("thread-per-request", 50_000, &["shb", "wcp"]);
}

#[test]
fn the_models_with_locks_held_at_once() {
    linear_on("locks-held", 50_000, &["shb", "wcp"]);
}

#[test]
fn the_models_on_deep_nesting() {
    linear_on("nesting", 200_000, &["shb", "wcp"]);
}

/// `views`, and `check` with it, with many threads holding locks at once: every two of the
/// threads' regions run in parallel, and the relation of views that may run in parallel held
/// every pair of them (saturated past 4 million pairs, at about 2,900 threads), and each join
/// searched the threads in flight for the joined one. The views share only a variable they
/// all read: no pair conflicts, so none is asked about or kept, and the relation stays exact.
/// 50,000 threads: minutes if either part were quadratic.
#[test]
fn views_with_locks_held_at_once() {
    let text = shape("locks-held", 50_000).expect("a shape");
    let source: Box<dyn Read + Send> = Box::new(std::io::Cursor::new(text.as_bytes().to_vec()));
    let mut reader = AnyReader::Text(TextReader::new(source));
    let started = Instant::now();
    let run = analyse_trace_within(
        &mut reader,
        "shape",
        analyses("views"),
        RunOptions::default(),
        None,
        None,
    )
    .expect("the shapes are valid traces");
    let took = started.elapsed();
    assert!(took < LIMIT, "views took {took:?}");
    let summary = &run.reports[0].summary;
    assert_eq!(summary["atomic_regions"], 50_000);
    assert_eq!(summary.get("mhp_saturated"), None, "{summary:?}");
    linear_on("locks-held", 50_000, &["check"]);
}

/// The closure models may check one access against many threads, each check a closure of the
/// trace's ideal: a main thread that joined thousands of writers and then reads their variable
/// again and again walks every writer at each read (quadratic still), and the pass's deadline
/// must stop it within the run, not after it. The deadline is held with slack for a loaded
/// machine (the pass's thread may wait seconds for a core).
#[test]
fn the_models_of_every_thread_hold_the_deadline() {
    let mut text = shape("one-variable", 4_000).expect("a shape");
    (0..4_000).for_each(|_| text.push_str("T0|r(x)|M.java:5\n"));
    for model in ["syncp", "osr"] {
        let budget = Budget::new(Limits::new(Some(Duration::from_millis(300)), None));
        let took = run(&text, model, &budget);
        assert!(
            took < Duration::from_millis(300) + Duration::from_secs(10),
            "{model} ran {took:?} past a 300 ms timeout"
        );
    }
}

/// Random traces of many short threads through the vector-clock models: the sets of last
/// accesses pass their small form, and in the test builds every check is held against the
/// scan of every thread's last access it replaced (`accesses::shadow`), pair for pair.
#[test]
fn many_short_threads_give_the_scans_partners() {
    use hindsight_rng::SplitMix64;
    use hindsight_stream::Observer;
    use hindsight_trace::arbitrary::{trace_from_choices, Shape};
    let mut rng = SplitMix64::new(0x5_4A9E);
    let mut next = || rng.next_u64() as u8;
    let options = Options {
        granularity: Granularity::EveryEvent,
        witnesses: false,
        beyond_hb: false,
    };
    for round in 0..200 {
        let choices: Vec<(u8, u8, u8)> = (0..250).map(|_| (next(), next(), next())).collect();
        let shape = Shape {
            threads: 9 + (round % 40) as u8,
            vars: 1 + (round % 2) as u8,
            locks: 1 + (round % 2) as u8,
            msgs: 1,
            odd: false,
        };
        let trace = trace_from_choices(&choices, shape);
        let mut shb = hindsight_predict::shb::Shb::new(options);
        let mut wcp = hindsight_predict::wcp::Wcp::new(options);
        let mut hb = hindsight_order::HappensBefore::new();
        for e in &trace.events {
            hb.before(e);
            shb.on_event(e, &hb, &trace.names).expect("accepted");
            wcp.on_event(e, &hb, &trace.names).expect("accepted");
            hb.after(e);
        }
    }
}
