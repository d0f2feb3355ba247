//! `hindsight cuts` and `hindsight gen-poset`: predicate detection over the consistent global
//! states of a trace's poset (or of a poset file), and the thesis-shaped poset generators.
//!
//! This module owns the command line of these commands: reading the input (a trace through the
//! usual validating pass, or a poset file), choosing the enumerator, the progress line, and
//! turning satisfying states into findings. The algorithms live in `hindsight_states::cuts`.

use crate::output::{open_trace, pipelined, print_warnings};
use crate::{display_path, trace_error, FormatArg, Located};
use anyhow::{bail, Context};
use clap::ValueEnum;
use hindsight_order::HappensBefore;
use hindsight_report::{EventRef, Finding, Report, Rule};
use hindsight_states::cuts::generate::{config_by_name, generate_poset};
use hindsight_states::cuts::paramount::{paramount, Online};
use hindsight_states::cuts::poset::{Poset, PosetBuilder, Selection, TracePoset};
use hindsight_states::cuts::poset_file::{
    looks_like_poset, parse_poset, write_poset, PosetFileError, PosetStream,
};
use hindsight_states::cuts::predicate::{parse_predicate, Bound, Predicate};
use hindsight_states::cuts::quicklex::QuickLex;
use hindsight_states::cuts::{bounded, Algorithm, Visitor};
use hindsight_stream::reports::{pass_warnings, trace_info};
use hindsight_stream::{observe_any, Observer, RunOptions};
use hindsight_trace::{ErrorKind, Event, Names, ThreadId};
use serde_json::{Map, Value};
use std::io::{BufRead, IsTerminal, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum AlgoArg {
    Bfs,
    Lex,
    Quicklex,
    Paramount,
}

#[derive(clap::Args)]
pub struct CutsArgs {
    /// A trace (any format the trace commands read; `-` for standard input) or a poset file
    /// (`PID:(c1,...,cn)` per line; recognised by its first line, or forced with --poset).
    input: PathBuf,
    /// The predicate to detect, e.g. `race`, `atleast(3, method == stop)`,
    /// `at(T1, op == w && var == x) && at(T2, op == r)`; `@FILE` reads it from a file. See the
    /// README section "What `cuts` reports" for the language.
    #[arg(long)]
    predicate: Option<String>,
    /// The enumeration algorithm.
    #[arg(long, value_enum, default_value = "quicklex")]
    algo: AlgoArg,
    /// Worker threads of ParaMount (default: the number of CPUs).
    #[arg(long)]
    threads: Option<usize>,
    /// Just count the consistent global states (and, with --predicate, those satisfying it).
    #[arg(long)]
    count: bool,
    /// Report every satisfying state (up to --limit) instead of the first.
    #[arg(long)]
    all: bool,
    /// The most states --all reports.
    #[arg(long, default_value_t = 100)]
    limit: u64,
    /// The input is a poset file, whatever it looks like.
    #[arg(long)]
    poset: bool,
    /// Enumerate while a poset file streams in (ParaMount's online form, thesis Algorithm 6):
    /// each event's interval is enumerated once its line is read, in batches, and the first
    /// satisfying state stops the reading. Needs the lines in an order consistent with the
    /// clocks; poset files only. --algo picks the enumerator of each interval.
    #[arg(long)]
    online: bool,
    /// Every event of the trace enters the poset, not only those the predicate looks at.
    #[arg(long)]
    every_event: bool,
    /// Show the number of states enumerated so far on standard error (default: when standard
    /// error is a terminal).
    #[arg(long)]
    progress: bool,
    /// Treat every warning about the trace as an error (exit status 2).
    #[arg(long)]
    strict: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: FormatArg,
}

#[derive(clap::Args)]
pub struct GenPosetArgs {
    /// `d-N` (10 processes, N events, random messages) or `w-N` (N processes, 480 events).
    family: String,
    /// Seed of the pseudo-random generator: the same seed gives the same poset.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Probability that an event sends a message (default: the family's).
    #[arg(long)]
    send: Option<f64>,
    /// Probability that an event receives a waiting message (default: the family's).
    #[arg(long)]
    receive: Option<f64>,
    /// Output file; standard output if omitted.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn gen_poset(args: &GenPosetArgs) -> anyhow::Result<u8> {
    let mut config = config_by_name(&args.family, args.seed).map_err(anyhow::Error::msg)?;
    for (p, name) in [(args.send, "--send"), (args.receive, "--receive")] {
        if p.is_some_and(|p| !(0.0..=1.0).contains(&p)) {
            bail!("{name} is a probability: between 0 and 1");
        }
    }
    config.send = args.send.unwrap_or(config.send);
    config.receive = args.receive.unwrap_or(config.receive);
    let text = write_poset(&generate_poset(&config));
    match &args.output {
        Some(p) if p.as_os_str() != "-" => {
            std::fs::write(p, text).with_context(|| format!("cannot write {}", p.display()))?
        }
        _ => std::io::stdout().write_all(text.as_bytes())?,
    }
    Ok(0)
}

/// Builds the poset while the driver streams and validates the trace.
struct Collect {
    builder: PosetBuilder,
    predicate: Option<Predicate>,
    merge: bool,
}

impl Observer for Collect {
    fn name(&self) -> &'static str {
        "cuts"
    }
    fn on_event(&mut self, e: &Event, hb: &HappensBefore, names: &Names) -> Result<(), ErrorKind> {
        let relevant =
            |e: &Event, n: &Names| self.predicate.as_ref().is_none_or(|p| p.relevant(e, n));
        self.builder.add(
            e,
            hb,
            names,
            &Selection {
                relevant: &relevant,
                merge: self.merge,
            },
        );
        Ok(())
    }
}

fn read_predicate(text: &str) -> anyhow::Result<Predicate> {
    let (source, shown) = match text.strip_prefix('@') {
        Some(file) => (
            std::fs::read_to_string(file).with_context(|| format!("cannot read {file}"))?,
            file.to_owned(),
        ),
        None => (text.to_owned(), "<predicate>".to_owned()),
    };
    parse_predicate(&source).map_err(|e| {
        Located(format!(
            "{shown}:{}:{}: error: {}",
            e.line, e.column, e.message
        ))
        .into()
    })
}

/// A poset file as a trace poset whose elements have no events.
fn poset_input(path: &Path) -> anyhow::Result<TracePoset> {
    let shown = display_path(path);
    let text = if path.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).context("cannot read standard input")?
    } else {
        std::fs::read_to_string(path).with_context(|| format!("cannot read {shown}"))?
    };
    let poset = parse_poset(&text).map_err(|e| located(&shown, &e))?;
    Ok(events_free(poset))
}

fn located(shown: &str, e: &PosetFileError) -> Located {
    Located(format!(
        "{shown}:{}:{}: error: {}",
        e.line, e.column, e.message
    ))
}

/// A poset read from a poset file as a trace poset whose elements have no events, its
/// processes named `P0`, `P1`, ...
fn events_free(poset: Poset) -> TracePoset {
    let n = poset.processes();
    let mut names = Names::default();
    for p in 0..n {
        let _ = names.threads.intern(format!("P{p}").as_bytes());
    }
    TracePoset {
        threads: (0..n).map(|p| ThreadId(p as u32)).collect(),
        members: vec![Vec::new(); n],
        starts: (0..n).map(|p| vec![0; poset.len(p) as usize + 1]).collect(),
        names,
        trace_events: poset.events(),
        poset,
    }
}

fn bind<'a>(
    predicate: Option<&'a Predicate>,
    tp: &'a TracePoset,
) -> anyhow::Result<Option<Bound<'a>>> {
    Ok(match predicate {
        Some(p) => Some(p.bind(tp).map_err(|e| {
            Located(format!(
                "<predicate>:{}:{}: error: {}",
                e.line, e.column, e.message
            ))
        })?),
        None => None,
    })
}

/// The largest batch of intervals [`online`] enumerates at once.
const ONLINE_BATCH: u64 = 4096;

/// What an enumeration found: states, satisfying states, the satisfying states kept, and
/// whether every state was enumerated.
type Outcome = (u64, u64, Vec<Vec<u32>>, bool);

/// `cuts --online`: reads a poset file line by line, checking each line against the events
/// before it ([`PosetStream`]), inserts each event into ParaMount's online enumerator and
/// enumerates the intervals in batches while reading goes on. Batches grow from 1 to
/// [`ONLINE_BATCH`] intervals, so a satisfying state near the start stops the reading early;
/// with a predicate, which is bound again for every batch (a pass over the events so far),
/// they also grow with the events read, so binding stays linear overall.
fn online(
    args: &CutsArgs,
    predicate: Option<&Predicate>,
    threads: usize,
    progress: &Progress,
) -> anyhow::Result<(TracePoset, Outcome)> {
    let shown = display_path(&args.input);
    let mut reader: Box<dyn BufRead> = if args.input.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let f = std::fs::File::open(&args.input).with_context(|| format!("cannot read {shown}"))?;
        Box::new(std::io::BufReader::new(f))
    };
    let algorithm = match args.algo {
        AlgoArg::Bfs => Algorithm::Bfs,
        AlgoArg::Lex => Algorithm::Lex,
        AlgoArg::Quicklex | AlgoArg::Paramount => Algorithm::QuickLex,
    };
    let (keep, first) = modes(args);
    let best = AtomicUsize::new(usize::MAX);
    let mut stream = PosetStream::default();
    let mut enumerator: Option<Online<TracePoset>> = None;
    let (mut states, mut satisfying, mut found, mut complete) = (0u64, 0u64, Vec::new(), true);
    let mut text = String::new();
    let mut line = 0usize;
    loop {
        text.clear();
        let end = reader
            .read_line(&mut text)
            .with_context(|| format!("cannot read {shown} at line {}", line + 1))?
            == 0;
        if !end {
            line += 1;
            if let Some(l) = stream.parse(&text, line).map_err(|e| located(&shown, &e))? {
                let e = enumerator.get_or_insert_with(|| {
                    let empty = events_free(Poset::new(l.clock.len()));
                    Online::with_store(empty, threads, algorithm)
                });
                stream
                    .check(&l, e.poset())
                    .map_err(|e| located(&shown, &e))?;
                e.insert(l.pid, &l.clock);
            }
        }
        let Some(e) = enumerator.as_mut() else {
            if end {
                break;
            }
            continue;
        };
        let pending = e.pending() as u64;
        let before = e.inserted() - pending;
        let mut target = before.clamp(1, ONLINE_BATCH);
        if predicate.is_some() {
            target = target.max(before / 2);
        }
        if pending > 0 && (pending >= target || end) {
            let batch = e.take();
            let e = &*e;
            let bound = bind(predicate, e.store())?;
            let results = e.run(
                &batch,
                |i| Search::new(bound.as_ref(), progress, keep, first, i, Some(&best)),
                |_, s, flow| {
                    s.progress.add(s.unreported);
                    (s.states, s.satisfying, s.found, flow.is_continue())
                },
            );
            for (st, sat, f, cont) in results {
                states += st;
                satisfying += sat;
                found.extend(f);
                complete &= cont;
            }
            found.truncate(keep as usize);
            if first && !found.is_empty() {
                // The first satisfying state: nothing read later can come before it.
                complete = false;
                break;
            }
        }
        if end {
            break;
        }
    }
    let tp = match enumerator {
        Some(e) => {
            let mut tp = e.into_store();
            tp.trace_events = tp.poset.events();
            tp
        }
        None => {
            // No events: the empty state is the only one.
            let tp = events_free(Poset::new(0));
            let bound = bind(predicate, &tp)?;
            let mut s = Search::new(bound.as_ref(), progress, keep, first, 0, None);
            let _ = s.visit(&[]);
            s.progress.add(s.unreported);
            (states, satisfying, found) = (s.states, s.satisfying, s.found);
            tp
        }
    };
    Ok((tp, (states, satisfying, found, complete)))
}

fn is_poset_file(path: &Path) -> bool {
    if path.as_os_str() == "-" {
        return false;
    }
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = vec![0u8; 4096];
    let n = std::io::Read::read(&mut f, &mut head).unwrap_or(0);
    head.truncate(n);
    looks_like_poset(&String::from_utf8_lossy(&head))
}

/// Progress on standard error: states so far, at most twice a second.
struct Progress {
    enabled: bool,
    states: AtomicU64,
    started: Instant,
    last_ms: AtomicU64,
}

const PROGRESS_BATCH: u64 = 1 << 22;

impl Progress {
    fn add(&self, n: u64) {
        if !self.enabled {
            return;
        }
        let total = self.states.fetch_add(n, Ordering::Relaxed) + n;
        let ms = self.started.elapsed().as_millis() as u64;
        let last = self.last_ms.load(Ordering::Relaxed);
        if ms >= last + 500
            && self
                .last_ms
                .compare_exchange(last, ms, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            eprint!("\rcuts: {total} states so far ({:.1} s)", ms as f64 / 1e3);
        }
    }
    fn done(&self) {
        if self.enabled && self.last_ms.load(Ordering::Relaxed) > 0 {
            eprintln!();
        }
    }
}

/// How many satisfying states to keep (0: count only), and whether to stop at the first.
fn modes(args: &CutsArgs) -> (u64, bool) {
    let keep = if args.count {
        0
    } else if args.all {
        args.limit
    } else {
        1
    };
    (keep, !args.count && !args.all)
}

/// What one enumeration (or one ParaMount interval) saw.
struct Search<'a> {
    bound: Option<&'a Bound<'a>>,
    progress: &'a Progress,
    states: u64,
    unreported: u64,
    satisfying: u64,
    found: Vec<Vec<u32>>,
    /// How many satisfying states to keep (0 = only count).
    keep: u64,
    /// Stop at the first satisfying state.
    first: bool,
    /// ParaMount: stop when an earlier interval already found one.
    interval: usize,
    best: Option<&'a AtomicUsize>,
}

impl<'a> Search<'a> {
    fn new(
        bound: Option<&'a Bound<'a>>,
        progress: &'a Progress,
        keep: u64,
        first: bool,
        interval: usize,
        best: Option<&'a AtomicUsize>,
    ) -> Search<'a> {
        Search {
            bound,
            progress,
            states: 0,
            unreported: 0,
            satisfying: 0,
            found: Vec::new(),
            keep,
            first,
            interval,
            best,
        }
    }
}

impl Visitor for Search<'_> {
    #[inline]
    fn visit(&mut self, g: &[u32]) -> ControlFlow<()> {
        self.states += 1;
        self.unreported += 1;
        if self.unreported == PROGRESS_BATCH || self.states == 1 {
            if self.unreported == PROGRESS_BATCH {
                self.progress.add(self.unreported);
                self.unreported = 0;
            }
            if let Some(best) = self.best {
                if best.load(Ordering::Relaxed) < self.interval {
                    return ControlFlow::Break(());
                }
            }
        }
        let Some(bound) = self.bound else {
            return ControlFlow::Continue(());
        };
        if bound.holds(g) {
            self.satisfying += 1;
            if (self.found.len() as u64) < self.keep {
                self.found.push(g.to_vec());
            }
            if self.first {
                if let Some(best) = self.best {
                    best.fetch_min(self.interval, Ordering::Relaxed);
                }
                return ControlFlow::Break(());
            }
            if self.keep > 0 && self.found.len() as u64 >= self.keep && self.best.is_none() {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }
}

pub fn run(args: &CutsArgs) -> anyhow::Result<u8> {
    let predicate = args.predicate.as_deref().map(read_predicate).transpose()?;
    if predicate.is_none() && !args.count {
        bail!("give a predicate to detect (--predicate EXPR) or ask for --count");
    }
    if args.threads.is_some() && args.algo != AlgoArg::Paramount && !args.online {
        bail!("--threads is for --algo paramount or --online");
    }
    if args.threads == Some(0) {
        bail!("--threads must be at least 1");
    }
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let poset_file = args.poset || is_poset_file(&args.input);
    if args.online && !poset_file {
        // The online enumerator's clocks have one component per process from the first event
        // on, but a trace's threads are only all known once it has been read.
        bail!(
            "--online reads poset files only (--poset, or a file whose first line is `PID:(c1,...,cn)`): \
             a trace's threads are only known once it has been read, and online enumeration needs \
             the number of processes from the first event; `hindsight gen-poset` and `write_poset` \
             write poset files"
        );
    }
    let progress = Progress {
        enabled: args.progress || std::io::stderr().is_terminal(),
        states: AtomicU64::new(0),
        started: Instant::now(),
        last_ms: AtomicU64::new(0),
    };
    let (keep, first) = modes(args);
    let mut report = Report::new("cuts");
    let started = Instant::now();
    let mut streamed = None;
    let tp = if args.online {
        let (tp, outcome) = online(args, predicate.as_ref(), threads, &progress)?;
        streamed = Some(outcome);
        report
            .trace
            .insert("path".into(), Value::from(display_path(&args.input)));
        report.trace.insert("format".into(), Value::from("poset"));
        tp
    } else if poset_file {
        let tp = poset_input(&args.input)?;
        report
            .trace
            .insert("path".into(), Value::from(display_path(&args.input)));
        report.trace.insert("format".into(), Value::from("poset"));
        tp
    } else {
        let every = args.every_event || predicate.is_none();
        let merge = !every && predicate.as_ref().is_some_and(Predicate::is_race_only);
        let mut collect = Collect {
            builder: PosetBuilder::default(),
            predicate: if every { None } else { predicate.clone() },
            merge,
        };
        let mut reader = open_trace(&args.input)?;
        let format = reader.format();
        let options = RunOptions {
            strict: args.strict,
            pipeline: pipelined(1),
        };
        let pass = observe_any(&mut reader, &mut [&mut collect], options)
            .map_err(|e| trace_error(&args.input, e))?;
        let name = display_path(&args.input);
        report.warnings = pass_warnings(&name, &pass.warnings, &pass.warning_counts);
        print_warnings(&report.warnings);
        report.trace = trace_info(&name, format, &pass.stats);
        collect.builder.finish(pass.names)
    };
    let bound = bind(predicate.as_ref(), &tp)?;
    let poset = &tp.poset;
    let search =
        |interval, best| Search::new(bound.as_ref(), &progress, keep, first, interval, best);
    let (states, satisfying, found, complete) = if let Some(outcome) = streamed {
        outcome
    } else if args.algo == AlgoArg::Paramount {
        let best = AtomicUsize::new(usize::MAX);
        let sub = Algorithm::QuickLex;
        let results = paramount(
            poset,
            threads,
            sub,
            |i| search(i, Some(&best)),
            |_, s, flow| {
                s.progress.add(s.unreported);
                (s.states, s.satisfying, s.found, flow.is_continue())
            },
        );
        let complete = results.iter().all(|r| r.3);
        let states = results.iter().map(|r| r.0).sum::<u64>();
        let satisfying = results.iter().map(|r| r.1).sum::<u64>();
        let mut found: Vec<Vec<u32>> = results.into_iter().flat_map(|r| r.2).collect();
        found.truncate(keep as usize);
        (states, satisfying, found, complete)
    } else {
        let algorithm = match args.algo {
            AlgoArg::Bfs => Algorithm::Bfs,
            AlgoArg::Lex => Algorithm::Lex,
            _ => Algorithm::QuickLex,
        };
        let lo = vec![0; poset.processes()];
        let hi = poset.final_state();
        let mut s = search(0, None);
        let flow = if algorithm == Algorithm::QuickLex {
            QuickLex::new(poset).enumerate(&lo, &hi, &mut s)
        } else {
            bounded(poset, algorithm, &lo, &hi, &mut s)
        };
        progress.add(s.unreported);
        (s.states, s.satisfying, s.found, flow.is_continue())
    };
    let seconds = started.elapsed().as_secs_f64();
    progress.done();

    let race_only = predicate.as_ref().is_some_and(Predicate::is_race_only);
    report.rules.push(if race_only {
        Rule {
            id: "data-race",
            description: "Two concurrent conflicting accesses are both maximal in a consistent global state: a schedule runs them back to back",
        }
    } else {
        Rule {
            id: "predicate",
            description: "A consistent global state (reachable by some schedule of the run) satisfies the predicate",
        }
    });
    for g in &found {
        report
            .findings
            .push(finding(&tp, bound.as_ref(), g, race_only, poset_file));
    }
    let s = &mut report.summary;
    if let Some(p) = &predicate {
        s.insert("predicate".into(), Value::from(p.text.trim()));
    }
    s.insert(
        "algorithm".into(),
        Value::from(format!("{:?}", args.algo).to_lowercase()),
    );
    if args.online {
        s.insert("online".into(), Value::from(true));
    }
    if args.algo == AlgoArg::Paramount || args.online {
        s.insert("threads".into(), Value::from(threads));
    }
    s.insert("processes".into(), Value::from(poset.processes()));
    s.insert("poset_events".into(), Value::from(poset.events()));
    s.insert("states".into(), Value::from(states));
    if predicate.is_some() && !first {
        s.insert("satisfying".into(), Value::from(satisfying));
    }
    // Whether every consistent state was enumerated (not stopped at a first or a limit).
    s.insert("complete".into(), Value::from(complete));
    s.insert("seconds".into(), Value::from((seconds * 1e6).round() / 1e6));
    if args.count {
        report.findings.clear();
        crate::output::print_report(&report, args.format)?;
        return Ok(0);
    }
    crate::output::print_report(&report, args.format)?;
    Ok(report.exit_code() as u8)
}

fn event_ref(tp: &TracePoset, p: usize, i: u32, member: usize, poset_file: bool) -> EventRef {
    let thread = tp.names.thread(tp.threads[p]).to_owned();
    if poset_file {
        return EventRef {
            index: u64::from(i),
            thread,
            op: format!("event {i}"),
            location: None,
        };
    }
    let e = &tp.element(p, i)[member];
    EventRef {
        index: e.index,
        thread,
        op: e.display_op(&tp.names).to_string(),
        location: e.loc.map(|l| tp.names.location(l).to_owned()),
    }
}

fn describe(r: &EventRef, poset_file: bool) -> String {
    if poset_file {
        format!("{} {}", r.thread, r.op)
    } else {
        format!("#{} {} {}", r.index, r.thread, r.op)
    }
}

fn finding(
    tp: &TracePoset,
    bound: Option<&Bound<'_>>,
    g: &[u32],
    race_only: bool,
    poset_file: bool,
) -> Finding {
    let n = g.len();
    let frontier: Vec<EventRef> = (0..n)
        .filter(|&p| g[p] > 0)
        .map(|p| event_ref(tp, p, g[p], 0, poset_file))
        .collect();
    let mut schedule = Vec::new();
    let mut order = tp.poset.schedule(g);
    if !poset_file {
        // The trace's own order, restricted to the cut, is a linear extension too, and reads
        // more naturally than the clock-sum order.
        order.sort_by_key(|&(p, i)| tp.element(p, i)[0].index);
    }
    for (p, i) in order {
        if poset_file {
            schedule.push(format!("P{p} event {i}"));
        } else {
            for m in 0..tp.element(p, i).len() {
                schedule.push(describe(&event_ref(tp, p, i, m, false), false));
            }
        }
    }
    let state: Vec<String> = (0..n)
        .map(|p| {
            let t = tp.names.thread(tp.threads[p]);
            if g[p] == 0 {
                format!("{t} before its first event")
            } else {
                let r = event_ref(tp, p, g[p], 0, poset_file);
                if poset_file {
                    format!("{t} at {}", r.op)
                } else {
                    format!("{t} at #{} {}", r.index, r.op)
                }
            }
        })
        .collect();
    let mut fields = Map::new();
    fields.insert("frontier".into(), Value::from(g.to_vec()));
    fields.insert("state".into(), Value::from(state.clone()));
    fields.insert("schedule".into(), Value::from(schedule.clone()));
    let reach = if schedule.len() <= 12 {
        format!("schedule reaching it: {}", schedule.join(", "))
    } else {
        format!(
            "a schedule of {} events reaches it (`schedule` in JSON)",
            schedule.len()
        )
    };
    let race = if race_only {
        bound.and_then(|b| b.explain_race(g))
    } else {
        None
    };
    if let Some(r) = race {
        let a = event_ref(tp, r.first.0, r.first.1, r.first.2, poset_file);
        let b = event_ref(tp, r.second.0, r.second.1, r.second.2, poset_file);
        let var = tp.names.var(r.var).to_owned();
        fields.insert("variable".into(), Value::from(var.clone()));
        let message = format!(
            "data race on {var}: {} and {} are concurrent and both maximal in the consistent global state [{}]; {reach}",
            describe(&a, false),
            describe(&b, false),
            state.join(", "),
        );
        return Finding {
            kind: "data-race".into(),
            message,
            events: vec![a, b],
            fields,
            group: Some(var),
        };
    }
    Finding {
        kind: "predicate".into(),
        message: format!(
            "the predicate holds in the consistent global state [{}]; {reach}",
            state.join(", "),
        ),
        events: frontier,
        fields,
        group: None,
    }
}
