//! `hindsight cuts` from input to report: the poset (of a trace, built while the streaming pass
//! validates it; of a poset file, whole or line by line), the predicate bound to it, the chosen
//! enumerator, and the satisfying states turned into findings (`findings`).
//!
//! It owns the choices of a detection: which events enter the poset, when an enumeration stops,
//! how ParaMount's intervals are merged back, how online batches grow. The enumerators know
//! none of it. It never opens files or prints: the caller hands it a reader and watches the
//! work through a [`Progress`].

use super::cluster::{self, fingerprint, Cluster, PartResult};
use super::conjunctive;
use super::findings::{finding, rule};
use super::paramount::{Online, Part, Plan};
use super::poset::{Poset, PosetBuilder, Selection, TracePoset};
use super::poset_file::{parse_poset, PosetStream};
use super::predicate::{parse_predicate, Bound, Predicate};
use super::quicklex::QuickLex;
use super::race::first_racy_pair;
use super::regular::{Regular, Slice};
use super::{bounded, Algorithm, Visitor};
use crate::Progress;
use hindsight_budget::{Account, Budget, Meter, Spent};
use hindsight_order::HappensBefore;
use hindsight_report::{Finding, Report};
use hindsight_stream::reports::{pass_warnings, trace_info};
use hindsight_stream::{observe_any_within, Observer, RunOptions};
use hindsight_syntax::Diagnostic;
use hindsight_trace::{AnyReader, ErrorKind, Event, Names, ThreadId};
use serde_json::Value;
use std::io::BufRead;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// How the consistent global states are enumerated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enumerator {
    Bfs,
    Lex,
    QuickLex,
    /// QuickLex on ParaMount's intervals, in parallel.
    ParaMount,
}

impl Enumerator {
    /// The name reports give it.
    pub fn name(self) -> &'static str {
        match self {
            Enumerator::Bfs => "bfs",
            Enumerator::Lex => "lex",
            Enumerator::QuickLex => "quicklex",
            Enumerator::ParaMount => "paramount",
        }
    }

    /// The sequential enumerator of a whole poset, or of each interval online.
    fn sequential(self) -> Algorithm {
        match self {
            Enumerator::Bfs => Algorithm::Bfs,
            Enumerator::Lex => Algorithm::Lex,
            Enumerator::QuickLex | Enumerator::ParaMount => Algorithm::QuickLex,
        }
    }
}

/// Whether a predicate is decided by a detector that does not enumerate every state, when one
/// applies ([`Detector`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Detection {
    /// A detector when the predicate is recognised, enumeration otherwise.
    #[default]
    Auto,
    /// Always enumerate (with the options' enumerator).
    Enumerate,
    /// Always a detector: an error when the predicate is not recognised.
    Detector,
}

/// The detectors, each for the predicates it recognises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detector {
    /// Exactly `race` or `race(x)`, first state: a racy pair ([`super::race`]).
    RacyPair,
    /// A conjunctive predicate, first state: Garg-Waldecker ([`super::conjunctive::least`]).
    GargWaldecker,
    /// A conjunctive (so regular) predicate, every state: only the satisfying states are
    /// visited ([`super::conjunctive::satisfying`]).
    Slice,
    /// A regular predicate with relations between threads, first state: the least satisfying
    /// state, by advancing forbidden threads ([`super::regular::Regular::least`]).
    Regular,
    /// A regular predicate, every state or their count: the slice (`J(e)` of every event),
    /// then only the satisfying states visited ([`super::regular::Slice`]).
    RegularSlice,
}

impl Detector {
    /// The name reports give it.
    pub fn name(self) -> &'static str {
        match self {
            Detector::RacyPair => "racy-pair",
            Detector::GargWaldecker => "garg-waldecker",
            Detector::Slice => "slice",
            Detector::Regular => "regular",
            Detector::RegularSlice => "regular-slice",
        }
    }
}

/// A predicate's text, already read, and the name its errors are told against (`<predicate>`,
/// or the file it came from).
#[derive(Clone, Debug)]
pub struct PredicateText {
    pub text: String,
    pub name: String,
}

/// What a detection asks.
#[derive(Clone, Debug)]
pub struct Options {
    /// The predicate to detect; without one, only `count` makes sense.
    pub predicate: Option<PredicateText>,
    pub enumerator: Enumerator,
    /// Workers of ParaMount and of the online enumerator (default: the number of CPUs).
    pub threads: Option<usize>,
    /// Only count the states (and, with a predicate, those satisfying it): no findings.
    pub count: bool,
    /// Report every satisfying state, up to `limit`, rather than the first.
    pub all: bool,
    pub limit: u64,
    /// Every event of a trace enters the poset, not only those the predicate looks at.
    pub every_event: bool,
    /// Enumerate while a poset file streams in (ParaMount's online form, Algorithm 6): the
    /// first satisfying state stops the reading.
    pub online: bool,
    /// Whether a detector decides the predicate instead of enumeration.
    pub detection: Detection,
    /// ParaMount across processes ([`cluster`](super::cluster)): this process's place among
    /// them. Every process reads the same input and reports the same thing.
    pub cluster: Option<Cluster>,
}

/// What a detection reads.
pub enum Input<'a> {
    /// A trace, read through the validating streaming pass run with these options.
    Trace(&'a mut AnyReader, RunOptions),
    /// The whole text of a poset file.
    PosetText(&'a str),
    /// A poset file as it streams in, line by line.
    PosetLines(&'a mut dyn BufRead),
}

impl Options {
    /// Checks the options against each other and parses the predicate, as [`detect`] does
    /// first: a caller that wants these errors before it opens the input calls it itself.
    /// `poset` says whether the input is a poset file.
    pub fn check(&self, poset: bool) -> Result<Option<Predicate>, Diagnostic> {
        let predicate = self
            .predicate
            .as_ref()
            .map(|p| {
                let mut parsed = parse_predicate(&p.text).map_err(|e| e.in_input(&p.name))?;
                // Binding errors too are placed in `@FILE`'s file.
                parsed.source.clone_from(&p.name);
                Ok::<_, Diagnostic>(parsed)
            })
            .transpose()?;
        if let Some(p) = predicate.as_ref().filter(|p| poset && p.looks_at_events()) {
            return Err(Diagnostic::usage(format!(
                "`{}` looks at what events do, but a poset file's events carry no operation, variable or lock: only a process (P0, P1, ...) and a clock. Ask about the processes (`events(P0) >= 2 && events(P1) == 0`), or give cuts the trace itself",
                p.text
            )));
        }
        if predicate.is_none() && !self.count {
            return Err(Diagnostic::usage(
                "give a predicate to detect (--predicate EXPR) or ask for --count",
            ));
        }
        if self.threads.is_some() && self.enumerator != Enumerator::ParaMount && !self.online {
            return Err(Diagnostic::usage(
                "--threads is for --algo paramount or --online",
            ));
        }
        if self.detection == Detection::Detector && self.online {
            return Err(Diagnostic::usage(
                "--algo detect decides without enumerating: --online enumerates every state as the poset streams in; choose an enumerator (--algo quicklex)",
            ));
        }
        if self.threads == Some(0) {
            return Err(Diagnostic::usage("--threads must be at least 1"));
        }
        if let Some(c) = &self.cluster {
            if self.enumerator != Enumerator::ParaMount || self.online {
                return Err(Diagnostic::usage(
                    "--processes runs ParaMount across processes: give --algo paramount, without --online",
                ));
            }
            if c.hosts.is_empty() || c.process >= c.hosts.len() {
                return Err(Diagnostic::usage(format!(
                    "--process {} is not one of the {} processes (0 to {})",
                    c.process,
                    c.hosts.len(),
                    c.hosts.len().saturating_sub(1)
                )));
            }
            if !cfg!(feature = "cluster") {
                return Err(Diagnostic::usage(
                    "--processes needs hindsight built with the `cluster` feature of hindsight-states",
                ));
            }
        }
        if self.online && !poset {
            // The online enumerator's clocks have one component per process from the first
            // event on, but a trace's threads are only all known once it has been read.
            return Err(Diagnostic::usage(
                "--online reads poset files only (--poset, or a file whose first line is `PID:(c1,...,cn)`): \
                 a trace's threads are only known once it has been read, and online enumeration needs \
                 the number of processes from the first event; `hindsight gen-poset` and `write_poset` \
                 write poset files",
            ));
        }
        Ok(predicate)
    }

    /// How many satisfying states to keep (0: count only), and whether to stop at the first.
    fn keep(&self) -> (u64, bool) {
        let keep = if self.count {
            0
        } else if self.all {
            self.limit
        } else {
            1
        };
        (keep, !self.count && !self.all)
    }
}

/// Detects the predicate of `options` in the consistent global states of `input` (whose name,
/// as the user gave it, is `name`) and reports: the satisfying states as findings (none when
/// counting), and what was enumerated in the summary. Errors in the input, the predicate or
/// the options come back as diagnostics. The enumeration stops when `budget` is spent (BFS's
/// levels are accounted to its memory limit); the report is then unknown, with the states
/// enumerated so far, the frontier it stopped at (sequential enumerators) and the share of
/// intervals done (ParaMount, online).
pub fn detect(
    input: Input<'_>,
    name: &str,
    options: &Options,
    progress: &dyn Progress,
    budget: &Arc<Budget>,
) -> Result<Report, Diagnostic> {
    let poset_file = !matches!(input, Input::Trace(..));
    let predicate = options.check(poset_file)?;
    let budget: &Arc<Budget> = budget;
    let threads = options.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let search = SearchOptions {
        budget,
        keep: options.keep().0,
        first: options.keep().1,
    };
    let mut report = Report::new("cuts");
    let started = Instant::now();
    let (tp, streamed) = match input {
        Input::Trace(reader, run) => {
            let tp = read_trace(
                reader,
                name,
                run,
                predicate.as_ref(),
                options,
                &mut report,
                budget,
            )?;
            (tp, None)
        }
        Input::PosetText(text) if options.online => {
            let mut lines = text.as_bytes();
            let (tp, outcome) = online(
                &mut lines,
                name,
                options,
                predicate.as_ref(),
                threads,
                &search,
            )?;
            (tp, Some(outcome))
        }
        Input::PosetLines(lines) if options.online => {
            let (tp, outcome) = online(lines, name, options, predicate.as_ref(), threads, &search)?;
            (tp, Some(outcome))
        }
        Input::PosetText(text) => (poset_input(text, name)?, None),
        Input::PosetLines(lines) => {
            let mut text = String::new();
            lines
                .read_to_string(&mut text)
                .map_err(|e| Diagnostic::usage(format!("cannot read {name}: {e}")))?;
            (poset_input(&text, name)?, None)
        }
    };
    if poset_file {
        report.trace.insert("path".into(), Value::from(name));
        report.trace.insert("format".into(), Value::from("poset"));
    }
    progress.input_read(&report.warnings);
    let bound = bind(predicate.as_ref(), &tp)?;
    let detected = match (&bound, streamed.is_some()) {
        (Some(bound), false) => detector(bound, &tp.poset, options)?.map(|(detector, regular)| {
            detect_without_enumeration(&tp.poset, bound, detector, regular, &search)
        }),
        _ => None,
    };
    if let Some((detector, outcome, eliminated)) = detected {
        return Ok(detector_report(
            report,
            &tp,
            bound.as_ref(),
            predicate.as_ref(),
            detector,
            &outcome,
            eliminated,
            started,
            poset_file,
            options.count,
            budget,
        ));
    }
    let outcome = match (streamed, &options.cluster) {
        (Some(outcome), _) => outcome,
        (None, Some(cluster)) => {
            distributed(cluster, threads, &tp, predicate.as_ref(), options, budget)?
        }
        (None, None) => enumerate(
            &tp.poset,
            options.enumerator,
            threads,
            bound.as_ref(),
            &search,
        ),
    };
    let seconds = started.elapsed().as_secs_f64();

    let race_only = predicate.as_ref().is_some_and(Predicate::is_race_only);
    report.rules.push(rule(race_only));
    if !options.count {
        report.findings = findings_within(
            &tp,
            bound.as_ref(),
            &outcome.found,
            race_only,
            poset_file,
            budget,
        );
    }
    let s = &mut report.summary;
    if let Some(p) = &predicate {
        s.insert("predicate".into(), Value::from(crate::abbreviated(&p.text)));
    }
    s.insert("algorithm".into(), Value::from(options.enumerator.name()));
    if options.online {
        s.insert("online".into(), Value::from(true));
    }
    if options.enumerator == Enumerator::ParaMount || options.online {
        s.insert("threads".into(), Value::from(threads));
    }
    if let Some(c) = &options.cluster {
        s.insert("cluster_processes".into(), Value::from(c.hosts.len()));
    }
    s.insert("processes".into(), Value::from(tp.poset.processes()));
    s.insert("poset_events".into(), Value::from(tp.poset.events()));
    s.insert("states".into(), Value::from(outcome.states));
    if predicate.is_some() && !search.first {
        s.insert("satisfying".into(), Value::from(outcome.satisfying));
    }
    // Whether every consistent state was enumerated (not stopped at a first or a limit).
    s.insert("complete".into(), Value::from(outcome.complete));
    if let Some(at) = &outcome.stopped_at {
        let frontier: serde_json::Map<String, Value> = tp
            .threads
            .iter()
            .zip(at)
            .map(|(&t, &i)| (tp.names.thread(t).to_owned(), Value::from(i)))
            .collect();
        s.insert("stopped_at".into(), Value::Object(frontier));
    }
    if outcome.intervals > 0 && budget.spent().is_some() {
        s.insert("intervals_done".into(), Value::from(outcome.intervals_done));
        s.insert("intervals".into(), Value::from(outcome.intervals));
    }
    s.insert("seconds".into(), Value::from((seconds * 1e6).round() / 1e6));
    report.note_budget(budget);
    // A state found before the budget ran out is a finding; only the rest is unknown.
    Ok(report)
}

/// The findings of the satisfying states `found`, as many as the memory budget holds: each
/// names every event of a schedule reaching its state, so that a million of them (`--all
/// --limit 1000000`) would take gigabytes. Past the limit the rest are left out and the budget
/// is spent, so that the report says unknown.
fn findings_within(
    tp: &TracePoset,
    bound: Option<&Bound<'_>>,
    found: &[Vec<u32>],
    race_only: bool,
    poset_file: bool,
    budget: &Budget,
) -> Vec<Finding> {
    let mut account = Account::new(budget);
    let mut held = 0u64;
    let mut findings = Vec::new();
    for g in found {
        let f = finding(tp, bound, g, race_only, poset_file);
        held += f.heap_bytes();
        if account.hold(held).is_err() {
            break;
        }
        findings.push(f);
    }
    // The findings live on in the report until it is rendered: their bytes stay charged.
    std::mem::forget(account);
    findings
}

/// The detector that decides `bound` under `options`, with the regular predicate it decides
/// (local states only, for a conjunctive one); `None` to enumerate.
fn detector(
    bound: &Bound<'_>,
    poset: &Poset,
    options: &Options,
) -> Result<Option<(Detector, Option<Regular>)>, Diagnostic> {
    let refuse = |why: &str| {
        Err(Diagnostic::usage(format!(
            "--algo detect cannot decide this: {why}; choose an enumerator (--algo quicklex)"
        )))
    };
    if options.detection == Detection::Enumerate {
        return Ok(None);
    }
    let forced = options.detection == Detection::Detector;
    if options.online {
        // Online detection enumerates as the poset streams in (`Options::check` refuses it
        // with a forced detector).
        return Ok(None);
    }
    let regular = bound.regular().filter(|r| {
        // A predicate that constrains no process holds everywhere: enumeration is the faster
        // way to visit every state, and the least one is the empty state either way.
        forced
            || r.local.never
            || !r.relations.is_empty()
            || (r.local.states.iter().enumerate()).any(|(p, s)| s.len() as u32 <= poset.len(p))
    });
    if let Some(r) = regular {
        let detector = match (options.count || options.all, r.is_conjunctive()) {
            (true, false) => Detector::RegularSlice,
            (true, true) if options.count => Detector::RegularSlice,
            (true, true) => Detector::Slice,
            (false, true) => Detector::GargWaldecker,
            (false, false) => Detector::Regular,
        };
        return Ok(Some((detector, Some(r))));
    }
    if bound.race_only_on().is_some() {
        if !options.all && !options.count {
            return Ok(Some((Detector::RacyPair, None)));
        }
        return if forced {
            refuse("`race` with --all or --count asks for every racy state, which only enumeration visits")
        } else {
            Ok(None)
        };
    }
    if forced {
        return refuse(
            "the predicate is neither regular (a conjunction of conjuncts each about one thread, \
             such as `at(...)` terms, and of comparisons `events(A, c) <= events(B, d) + k`, \
             `==`, `<`, `>=`, `>` of two threads' `events`) nor exactly `race`",
        );
    }
    Ok(None)
}

/// Decides `bound` with `detector`: the states found, and how many candidates were eliminated.
fn detect_without_enumeration(
    poset: &Poset,
    bound: &Bound<'_>,
    detector: Detector,
    regular: Option<Regular>,
    search: &SearchOptions<'_>,
) -> (Detector, Outcome, u64) {
    let mut eliminated = 0;
    let mut outcome = Outcome {
        complete: true,
        ..Outcome::default()
    };
    match (detector, regular) {
        (Detector::RacyPair, _) => {
            if let Some((_, _, g)) = first_racy_pair(poset, bound) {
                outcome.found.push(g);
            }
        }
        (Detector::GargWaldecker, Some(r)) => {
            let lo = vec![0; poset.processes()];
            if let Some(g) = conjunctive::least(poset, &r.local, &lo, &mut eliminated) {
                outcome.found.push(g);
            }
        }
        (Detector::Regular, Some(r)) => {
            let lo = vec![0; poset.processes()];
            if let Some(g) = r.least(poset, &lo, &mut eliminated) {
                outcome.found.push(g);
            }
        }
        (Detector::Slice, Some(r)) => {
            let mut s = Search::new(None, search, 0, None);
            let flow = conjunctive::satisfying(
                poset,
                &r.local,
                &mut |g: &[u32]| {
                    s.states += 1;
                    s.satisfied(g)
                },
                &mut eliminated,
            );
            outcome = s.finish(flow);
        }
        (Detector::RegularSlice, Some(r)) => match Slice::compute(poset, &r, search.budget) {
            Ok(slice) => {
                eliminated = slice.advances;
                let mut s = Search::new(None, search, 0, None);
                let flow = slice.satisfying(&mut |g: &[u32]| {
                    if s.meter.step().is_err() {
                        s.spent = search.budget.spent();
                        return ControlFlow::Break(());
                    }
                    s.states += 1;
                    s.satisfied(g)
                });
                outcome = s.finish(flow);
            }
            Err(_) => outcome.complete = false,
        },
        (_, None) => unreachable!("the slicing detectors come with their predicate"),
    }
    if !matches!(detector, Detector::Slice | Detector::RegularSlice) {
        outcome.satisfying = outcome.found.len() as u64;
    }
    (detector, outcome, eliminated)
}

/// The report of a detection without enumeration.
#[allow(clippy::too_many_arguments)]
fn detector_report(
    mut report: Report,
    tp: &TracePoset,
    bound: Option<&Bound<'_>>,
    predicate: Option<&Predicate>,
    detector: Detector,
    outcome: &Outcome,
    eliminated: u64,
    started: Instant,
    poset_file: bool,
    count: bool,
    budget: &Budget,
) -> Report {
    let seconds = started.elapsed().as_secs_f64();
    let race_only = predicate.is_some_and(Predicate::is_race_only);
    report.rules.push(rule(race_only));
    if !count {
        report.findings = findings_within(tp, bound, &outcome.found, race_only, poset_file, budget);
    }
    let s = &mut report.summary;
    if let Some(p) = predicate {
        s.insert("predicate".into(), Value::from(crate::abbreviated(&p.text)));
    }
    s.insert("algorithm".into(), Value::from(detector.name()));
    s.insert("processes".into(), Value::from(tp.poset.processes()));
    s.insert("poset_events".into(), Value::from(tp.poset.events()));
    if detector != Detector::RacyPair {
        s.insert("eliminated".into(), Value::from(eliminated));
    }
    if matches!(detector, Detector::Slice | Detector::RegularSlice) {
        // The states visited are the satisfying ones, and only they: the consistent states
        // that do not satisfy the predicate are neither visited nor counted.
        s.insert("states".into(), Value::from(outcome.states));
        s.insert("satisfying".into(), Value::from(outcome.satisfying));
        s.insert("complete".into(), Value::from(outcome.complete));
    }
    s.insert("seconds".into(), Value::from((seconds * 1e6).round() / 1e6));
    report.note_budget(budget);
    report
}

/// Builds the poset while the streaming pass validates the trace, with its clocks read off
/// the pass's happens-before.
struct Collect<'a> {
    builder: PosetBuilder,
    /// Which events enter the poset: those this predicate looks at, or every one.
    predicate: Option<&'a Predicate>,
    merge: bool,
}

impl Observer for Collect<'_> {
    fn name(&self) -> &'static str {
        "cuts"
    }
    fn on_event(&mut self, e: &Event, hb: &HappensBefore, names: &Names) -> Result<(), ErrorKind> {
        let predicate = self.predicate;
        let relevant = |e: &Event, n: &Names| predicate.is_none_or(|p| p.relevant(e, n));
        let selection = Selection {
            relevant: &relevant,
            merge: self.merge,
        };
        self.builder.add(e, hb, names, &selection);
        Ok(())
    }
}

/// The poset of a trace, its facts and warnings written into `report`. Read within `budget`:
/// once it is spent, the poset is that of the events read until then. Those are a prefix of
/// the trace, closed under happens-before, so each consistent state of theirs is one of the
/// whole trace: what is found is real; the rest is unknown, as the spent budget says.
fn read_trace(
    reader: &mut AnyReader,
    name: &str,
    run: RunOptions,
    predicate: Option<&Predicate>,
    options: &Options,
    report: &mut Report,
    budget: &Budget,
) -> Result<TracePoset, Diagnostic> {
    let every = options.every_event || predicate.is_none();
    let mut collect = Collect {
        builder: PosetBuilder::default(),
        predicate: if every { None } else { predicate },
        // Runs of accesses merge into event collections only for the race predicate, which
        // looks at any member of a frontier collection (Algorithm 8).
        merge: !every && predicate.is_some_and(Predicate::is_race_only),
    };
    let format = reader.format();
    let pass = observe_any_within(reader, &mut [&mut collect], run, None, Some(budget))
        .map_err(|e| Diagnostic::error(name, e.pos, e.kind.to_string()))?;
    if let Some(stopped) = pass.stopped {
        report.summary.insert(
            "stopped".into(),
            Value::from(format!(
                "reading the trace ({} reached)",
                stopped.spent.name()
            )),
        );
        report
            .summary
            .insert("events_read".into(), Value::from(stopped.events));
    }
    report.warnings = pass_warnings(name, &pass.warnings, &pass.warning_counts);
    report.trace = trace_info(name, format, &pass.stats);
    Ok(collect.builder.finish(pass.names))
}

/// A poset file's text as a trace poset whose elements have no events.
fn poset_input(text: &str, name: &str) -> Result<TracePoset, Diagnostic> {
    let poset = parse_poset(text).map_err(|e| e.in_input(name))?;
    Ok(events_free(poset))
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
) -> Result<Option<Bound<'a>>, Diagnostic> {
    predicate
        .map(|p| p.bind(tp).map_err(|e| e.in_input(&p.source)))
        .transpose()
}

/// What every search of one detection shares.
struct SearchOptions<'a> {
    budget: &'a Budget,
    /// How many satisfying states to keep (0 = only count).
    keep: u64,
    /// Stop at the first satisfying state.
    first: bool,
}

/// What an enumeration found.
#[derive(Default)]
struct Outcome {
    states: u64,
    satisfying: u64,
    /// The satisfying states kept.
    found: Vec<Vec<u32>>,
    /// Whether every state was enumerated.
    complete: bool,
    /// A sequential enumeration stopped by the budget: the first state it did not check
    /// (every state before it in the enumerator's order was checked).
    stopped_at: Option<Vec<u32>>,
    /// ParaMount and online: the intervals enumerated to their end, of those started.
    intervals_done: u64,
    intervals: u64,
}

impl Outcome {
    /// Adds the outcomes of `parts`, in part order, one per part: an interval is done when
    /// all its parts are.
    fn merge_parts(&mut self, parts: &[Part], outcomes: Vec<Outcome>) {
        // The interval of the part before, and whether all its parts so far are done.
        let mut current: Option<(usize, bool)> = None;
        for (part, other) in parts.iter().zip(outcomes) {
            self.states += other.states;
            self.satisfying += other.satisfying;
            self.found.extend(other.found);
            self.complete &= other.complete;
            current = match current {
                Some((interval, done)) if interval == part.interval => {
                    Some((interval, done && other.complete))
                }
                before => {
                    self.intervals_done += u64::from(before.is_some_and(|(_, done)| done));
                    self.intervals += 1;
                    Some((part.interval, other.complete))
                }
            };
        }
        self.intervals_done += u64::from(current.is_some_and(|(_, done)| done));
    }
}

/// The whole poset enumerated offline.
fn enumerate(
    poset: &Poset,
    enumerator: Enumerator,
    threads: usize,
    bound: Option<&Bound<'_>>,
    options: &SearchOptions<'_>,
) -> Outcome {
    if enumerator == Enumerator::ParaMount {
        let plan = Plan::new(poset, threads);
        options.budget.add_total(plan.parts.len() as u64);
        let best = AtomicUsize::new(usize::MAX);
        let results = plan.run(
            poset,
            threads,
            Algorithm::QuickLex,
            |i| Search::new(bound, options, i, Some(&best)),
            |_, s, flow| s.finish(flow),
        );
        let mut outcome = Outcome {
            complete: true,
            ..Outcome::default()
        };
        outcome.merge_parts(&plan.parts, results);
        outcome.found.truncate(options.keep as usize);
        return outcome;
    }
    let lo = vec![0; poset.processes()];
    let hi = poset.final_state();
    let mut s = Search::new(bound, options, 0, None);
    let flow = match enumerator.sequential() {
        Algorithm::QuickLex => QuickLex::new(poset).enumerate(&lo, &hi, &mut s),
        algorithm => bounded(poset, algorithm, &lo, &hi, &mut s),
    };
    let mut outcome = s.finish(flow);
    outcome.stopped_at = outcome.stopped_at.take().filter(|_| !outcome.complete);
    outcome
}

/// The whole poset enumerated by ParaMount across the processes of `cluster`, `threads`
/// workers each: every process binds the predicate to its own copy of the poset, enumerates
/// its workers' share of the parts, and gets every part's outcome back, so every process
/// reports the same. The budget is this process's: its limits stop its own workers (their
/// parts are then incomplete, and so is the report), its meters count its own share.
#[cfg(feature = "cluster")]
fn distributed(
    cluster: &Cluster,
    threads: usize,
    tp: &TracePoset,
    predicate: Option<&Predicate>,
    options: &Options,
    budget: &Arc<Budget>,
) -> Result<Outcome, Diagnostic> {
    let cluster = Cluster {
        threads,
        ..cluster.clone()
    };
    let plan = Arc::new(Plan::new(&tp.poset, cluster.workers()));
    // What every process must agree on: the poset, the question, the split.
    let question = format!(
        "{:?} {:?} {:?} {} {}",
        predicate.map(|p| &p.text),
        options.keep(),
        options.every_event,
        cluster.workers(),
        plan.parts.len()
    );
    let check = fingerprint(&tp.poset, fingerprint_text(&question));
    let (keep, first) = options.keep();
    let shared = Arc::new((tp.clone(), predicate.cloned(), Arc::clone(budget)));
    let results = cluster::run(&cluster, Arc::clone(&plan), check, move |share| {
        let (tp, predicate, budget) = &*shared;
        // The predicate was bound to this poset already: binding again cannot fail.
        let Ok(bound) = bind(predicate.as_ref(), tp) else {
            return;
        };
        let search = SearchOptions {
            budget,
            keep,
            first,
        };
        budget.add_total(share.len() as u64);
        let quick = QuickLex::new(&tp.poset);
        while let Some(i) = share.next_part() {
            let part = &share.plan().parts[i];
            let mut s = Search::new(bound.as_ref(), &search, i, Some(share.best()));
            let flow = quick.enumerate(&part.lo, &part.hi, &mut s);
            let o = s.finish(flow);
            share.done(PartResult {
                part: i,
                check,
                states: o.states,
                satisfying: o.satisfying,
                found: o.found,
                complete: o.complete,
            });
        }
    })?;
    let outcomes = results
        .into_iter()
        .map(|r| Outcome {
            states: r.states,
            satisfying: r.satisfying,
            found: r.found,
            complete: r.complete,
            ..Outcome::default()
        })
        .collect();
    let mut outcome = Outcome {
        complete: true,
        ..Outcome::default()
    };
    outcome.merge_parts(&plan.parts, outcomes);
    outcome.found.truncate(keep as usize);
    Ok(outcome)
}

#[cfg(not(feature = "cluster"))]
fn distributed(
    _: &Cluster,
    _: usize,
    _: &TracePoset,
    _: Option<&Predicate>,
    _: &Options,
    _: &Arc<Budget>,
) -> Result<Outcome, Diagnostic> {
    Err(Diagnostic::usage(
        "--processes needs hindsight built with the `cluster` feature of hindsight-states",
    ))
}

/// FNV-1a of a text, a seed for [`fingerprint`].
fn fingerprint_text(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The largest batch of intervals [`online`] enumerates at once.
const ONLINE_BATCH: u64 = 4096;

/// Online detection: reads a poset file line by line, checking each line against the events
/// before it ([`PosetStream`]), inserts each event into ParaMount's online enumerator and
/// enumerates the intervals in batches while reading goes on. Batches grow from 1 to
/// [`ONLINE_BATCH`] intervals, so a satisfying state near the start stops the reading early;
/// with a predicate, which is bound again for every batch (a pass over the events so far),
/// they also grow with the events read, so binding stays linear overall.
fn online(
    reader: &mut dyn BufRead,
    name: &str,
    options: &Options,
    predicate: Option<&Predicate>,
    threads: usize,
    search: &SearchOptions<'_>,
) -> Result<(TracePoset, Outcome), Diagnostic> {
    let algorithm = options.enumerator.sequential();
    let best = AtomicUsize::new(usize::MAX);
    let mut stream = PosetStream::default();
    let mut enumerator: Option<Online<TracePoset>> = None;
    let mut outcome = Outcome {
        complete: true,
        ..Outcome::default()
    };
    let mut text = String::new();
    let mut line = 0usize;
    loop {
        text.clear();
        let end = reader.read_line(&mut text).map_err(|e| {
            Diagnostic::usage(format!("cannot read {name} at line {}: {e}", line + 1))
        })? == 0;
        if !end {
            line += 1;
            if let Some(l) = stream.parse(&text, line).map_err(|e| e.in_input(name))? {
                let e = enumerator.get_or_insert_with(|| {
                    let empty = events_free(Poset::new(l.clock.len()));
                    Online::with_store(empty, threads, algorithm)
                });
                stream.check(&l, e.poset()).map_err(|e| e.in_input(name))?;
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
            search.budget.add_total(batch.plan.parts.len() as u64);
            let e = &*e;
            let bound = bind(predicate, e.store())?;
            let results = e.run(
                &batch,
                |i| Search::new(bound.as_ref(), search, i, Some(&best)),
                |_, s, flow| s.finish(flow),
            );
            outcome.merge_parts(&batch.plan.parts, results);
            outcome.found.truncate(search.keep as usize);
            if search.first && !outcome.found.is_empty() {
                // The first satisfying state: nothing read later can come before it.
                outcome.complete = false;
                break;
            }
            if search.budget.spent().is_some() {
                outcome.complete = false;
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
            let mut s = Search::new(bound.as_ref(), search, 0, None);
            let flow = s.visit(&[]);
            let complete = outcome.complete;
            outcome = s.finish(flow);
            outcome.complete = complete && outcome.complete;
            outcome.stopped_at = None;
            tp
        }
    };
    Ok((tp, outcome))
}

/// What one enumeration (or one part of a ParaMount interval) saw.
struct Search<'a> {
    bound: Option<&'a Bound<'a>>,
    options: &'a SearchOptions<'a>,
    states: u64,
    satisfying: u64,
    found: Vec<Vec<u32>>,
    /// ParaMount: the part searched, to stop when an earlier one (in enumeration order)
    /// already found a state.
    part: usize,
    best: Option<&'a AtomicUsize>,
    meter: Meter<'a>,
    /// The states the enumerator holds (BFS's levels).
    account: Account<'a>,
    /// The satisfying states kept (`found`).
    kept: Account<'a>,
    /// The frontier at the last poll of the budget: where it stopped, once spent.
    at: Vec<u32>,
    spent: Option<Spent>,
}

impl<'a> Search<'a> {
    fn new(
        bound: Option<&'a Bound<'a>>,
        options: &'a SearchOptions<'a>,
        part: usize,
        best: Option<&'a AtomicUsize>,
    ) -> Search<'a> {
        Search {
            bound,
            options,
            states: 0,
            satisfying: 0,
            found: Vec::new(),
            part,
            best,
            meter: Meter::new(options.budget),
            account: Account::new(options.budget),
            kept: Account::new(options.budget),
            at: Vec::new(),
            spent: None,
        }
    }

    /// The outcome, once the enumerator returned `flow`.
    fn finish(self, flow: ControlFlow<()>) -> Outcome {
        if self.best.is_some() {
            self.options.budget.add_done(1);
        }
        Outcome {
            states: self.states,
            satisfying: self.satisfying,
            found: self.found,
            complete: flow.is_continue(),
            stopped_at: self.spent.map(|_| self.at),
            intervals_done: 0,
            intervals: 0,
        }
    }
}

impl Search<'_> {
    /// At the first state and every time the meter polls the budget: stops if it is spent
    /// (`g`, not yet checked, is where), or if an earlier ParaMount part already found a
    /// state.
    #[cold]
    #[inline(never)]
    fn checkpoint(&mut self, g: &[u32]) -> ControlFlow<()> {
        self.at.clear();
        self.at.extend_from_slice(g);
        if let Err(spent) = self.options.budget.check() {
            self.spent = Some(spent);
            return ControlFlow::Break(());
        }
        match self.best {
            Some(best) if best.load(Ordering::Relaxed) < self.part => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        }
    }

    /// Counts and keeps the satisfying state `g`; whether to go on.
    #[inline(never)]
    fn satisfied(&mut self, g: &[u32]) -> ControlFlow<()> {
        self.satisfying += 1;
        let keep = self.options.keep;
        if (self.found.len() as u64) < keep {
            let each = (std::mem::size_of::<Vec<u32>>() + std::mem::size_of_val(g)) as u64;
            if let Err(spent) = self.kept.hold((self.found.len() as u64 + 1) * each) {
                self.spent = Some(spent);
                return ControlFlow::Break(());
            }
            self.found.push(g.to_vec());
        }
        if self.options.first {
            if let Some(best) = self.best {
                best.fetch_min(self.part, Ordering::Relaxed);
            }
            return ControlFlow::Break(());
        }
        if keep > 0 && self.found.len() as u64 >= keep && self.best.is_none() {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}

impl Visitor for Search<'_> {
    /// Inlined into the enumerators' loops, with the rare paths kept out of them.
    #[inline(always)]
    fn visit(&mut self, g: &[u32]) -> ControlFlow<()> {
        if self.meter.step().is_err() || self.meter.polled() || self.states == 0 {
            self.checkpoint(g)?;
        }
        self.states += 1;
        match self.bound {
            Some(bound) if bound.holds(g) => self.satisfied(g),
            _ => ControlFlow::Continue(()),
        }
    }

    #[inline(always)]
    fn hold(&mut self, bytes: u64) -> ControlFlow<()> {
        match self.account.hold(bytes) {
            Ok(()) => ControlFlow::Continue(()),
            Err(spent) => {
                self.spent = Some(spent);
                ControlFlow::Break(())
            }
        }
    }
}
