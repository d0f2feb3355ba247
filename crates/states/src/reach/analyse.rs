//! `hindsight reach` from trace to report: the loset built while the streaming pass validates
//! the trace, then what the options ask of it (validity, one state's verdict, counts, the
//! first state where a predicate holds), each turned into findings and summary entries
//! (`findings`).
//!
//! A predicate of `hindsight cuts` is asked of a loset state through a `Projection`. Nothing
//! here opens files or prints.

use super::enumerate::{self, Lex};
use super::findings::{
    invalid_finding, parse_state, predicate_finding, refutation, rules, state_finding,
};
use super::loset::{Loset, LosetBuilder};
use super::search::Validity;
use super::{Reach, Verdict};
use crate::cuts::detect::PredicateText;
use crate::cuts::poset::{Poset, TracePoset};
use crate::cuts::predicate::{parse_predicate, Predicate};
use crate::Progress;
use hindsight_budget::{Account, Budget, Meter, Spent};
use hindsight_order::HappensBefore;
use hindsight_report::Report;
use hindsight_stream::reports::pass_warnings;
use hindsight_stream::{observe_any_within, Observer, RunOptions};
use hindsight_syntax::Diagnostic;
use hindsight_trace::{AnyReader, ErrorKind, Event, Names};
use serde_json::{Map, Value};
use std::ops::ControlFlow;
use std::time::Instant;

/// What `reach` is asked.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A predicate in the language of `hindsight cuts`: report the first strongly feasible
    /// state where it holds, proven reachable if possible.
    pub predicate: Option<PredicateText>,
    /// Count the strongly feasible states (and, with `exact`, the reachable ones).
    pub count: bool,
    /// Decide by search every state the polynomial classes leave open.
    pub exact: bool,
    /// Report an invalid loset (its final state unreachable) with its cycle.
    pub check_valid: bool,
    /// One global state to decide, as `T1=3,T2=2` (threads not named: 0).
    pub state: Option<String>,
}

impl Options {
    /// Whether the options ask anything, as [`analyse`] checks first: a caller that wants the
    /// error before it opens the trace calls it itself.
    pub fn check(&self) -> Result<(), Diagnostic> {
        if self.count || self.check_valid || self.predicate.is_some() || self.state.is_some() {
            Ok(())
        } else {
            Err(Diagnostic::usage(
                "`reach` needs --predicate EXPR, --count, --check-valid or --state",
            ))
        }
    }
}

/// Reads the trace `reader` reads (its name as the user gave it: `name`) into its loset and
/// answers what `options` ask. Errors in the trace, the predicate or the state come back as
/// diagnostics; the trace's warnings go to `progress` as soon as it has been read. Every
/// search and enumeration stops when `budget` is spent: the report is then unknown, with the
/// states counted so far and where the enumeration stopped.
pub fn analyse(
    reader: &mut AnyReader,
    name: &str,
    run: RunOptions,
    options: &Options,
    progress: &dyn Progress,
    budget: &Budget,
) -> Result<Report, Diagnostic> {
    options.check()?;
    let format = reader.format();
    let mut builder = Building {
        loset: LosetBuilder::default(),
        meter: Meter::new(budget),
        account: Account::new(budget),
        spent: None,
    };
    // Within the budget: an input that sends nothing more stops at its deadline.
    let pass = observe_any_within(reader, &mut [&mut builder], run, None, Some(budget))
        .map_err(|e| Diagnostic::error(name, e.pos, e.kind.to_string()))?;
    let events = builder.loset.events();
    let warnings = pass_warnings(name, &pass.warnings, &pass.warning_counts);
    progress.input_read(&warnings);
    // The loset is made beside the builder's tables: charged before, and kept charged while
    // the loset lives.
    let mut held = builder.account;
    let finished = builder.loset.held_bytes() + builder.loset.finished_bytes();
    // A pass stopped by its budget (an input that sent nothing more before the deadline)
    // built the loset of the events read until then.
    if let Some(stopped) = pass.stopped {
        builder.spent = builder.spent.or(Some(stopped.spent));
    }
    if let (None, Err(spent)) = (builder.spent, held.hold_within(finished)) {
        builder.spent = Some(spent);
    }
    if let Some(spent) = builder.spent {
        return Ok(unknown_while_building(
            name,
            format.name(),
            events,
            spent,
            warnings,
            budget,
        ));
    }
    let loset = builder.loset.finish(pass.names);
    let state = options
        .state
        .as_deref()
        .map(|s| parse_state(&loset, s))
        .transpose()?;
    let predicate = options
        .predicate
        .as_ref()
        .map(|p| parse_predicate(&p.text).map_err(|e| e.in_input(&p.name)))
        .transpose()?;
    let projection = predicate.as_ref().map(|p| Projection::new(&loset, p));
    let predicate_name = options.predicate.as_ref().map_or("", |p| p.name.as_str());
    let bound = match (&predicate, &projection) {
        (Some(p), Some(proj)) => Some(
            p.bind(&proj.poset)
                .map_err(|e| e.in_input(predicate_name))?,
        ),
        _ => None,
    };
    let started = Instant::now();
    let reach = Reach::new(&loset, budget);

    let mut report = Report::new("reach");
    report.warnings = warnings;
    let t = &mut report.trace;
    t.insert("path".into(), Value::from(name));
    t.insert("format".into(), Value::from(format.name()));
    t.insert("events".into(), Value::from(events));
    t.insert("threads".into(), Value::from(loset.processes()));
    t.insert(
        "locks".into(),
        Value::from(loset.by_lock.iter().filter(|v| !v.is_empty()).count()),
    );
    t.insert("intervals".into(), Value::from(loset.intervals.len()));
    report.rules = rules();
    let valid = match &reach.validity {
        Validity::Valid(_) => Value::from(true),
        Validity::Invalid(_) => Value::from(false),
        Validity::Unknown { explored, .. } => {
            report
                .summary
                .insert("validity_search_states".into(), Value::from(*explored));
            Value::from("unknown")
        }
    };
    report.summary.insert("valid".into(), valid);

    if options.check_valid {
        if let Validity::Invalid(why) = &reach.validity {
            report.findings.push(invalid_finding(&loset, why));
        }
    }
    if let Some(g) = &state {
        decide_state(&reach, g, options.exact, budget, &mut report);
    }
    if options.count {
        count(&reach, options.exact, &loset, &mut report.summary);
    }
    if let (Some(p), Some(proj), Some(bound)) = (&predicate, &projection, &bound) {
        let mut frontier = vec![0u32; loset.processes()];
        let detection = reach.detect(
            &mut |g: &[u32]| {
                proj.project(g, &mut frontier);
                bound.holds(&frontier)
            },
            options.exact,
        );
        let s = &mut report.summary;
        s.insert("predicate".into(), Value::from(crate::abbreviated(&p.text)));
        s.insert("states".into(), Value::from(detection.states));
        s.insert("satisfying".into(), Value::from(detection.satisfying));
        s.insert("complete".into(), Value::from(detection.complete));
        if let Some(at) = &detection.stopped_at {
            s.insert("stopped_at".into(), shown_state(&loset, at));
        }
        if detection.unreachable > 0 {
            s.insert(
                "satisfying_unreachable".into(),
                Value::from(detection.unreachable),
            );
        }
        if let Some((g, verdict)) = &detection.found {
            report.findings.push(predicate_finding(&loset, g, verdict));
        }
    }
    report.summary.insert(
        "milliseconds".into(),
        Value::from(hindsight_report::milliseconds(started.elapsed())),
    );
    report.note_budget(budget);
    Ok(report)
}

/// The loset built while the pass reads the trace, until the budget is spent: the events
/// after that are read and validated (the pass cannot be stopped midway) but not added.
struct Building<'b> {
    loset: LosetBuilder,
    meter: Meter<'b>,
    /// The loset's memory, charged after every event (cheap until it crosses a granule): an
    /// event inside deep nesting adds a list as long as the nesting.
    account: Account<'b>,
    spent: Option<Spent>,
}

impl Observer for Building<'_> {
    fn name(&self) -> &'static str {
        self.loset.name()
    }

    fn keeps_lock_order(&self) -> bool {
        self.loset.keeps_lock_order()
    }

    fn on_event(&mut self, e: &Event, hb: &HappensBefore, names: &Names) -> Result<(), ErrorKind> {
        if self.spent.is_some() {
            return Ok(());
        }
        if let Err(spent) = self.meter.step() {
            self.spent = Some(spent);
            return Ok(());
        }
        self.loset.on_event(e, hb, names)?;
        if let Err(spent) = self.account.hold(self.loset.held_bytes()) {
            self.spent = Some(spent);
        }
        Ok(())
    }
}

/// The report of a run whose budget was spent before its loset was built: nothing is known
/// of its states, only how many events were added.
fn unknown_while_building(
    name: &str,
    format: &str,
    events: u64,
    spent: Spent,
    warnings: Vec<String>,
    budget: &Budget,
) -> Report {
    let mut report = Report::new("reach");
    report.warnings = warnings;
    report.trace.insert("path".into(), Value::from(name));
    report.trace.insert("format".into(), Value::from(format));
    report.rules = rules();
    let s = &mut report.summary;
    s.insert("valid".into(), Value::from("unknown"));
    s.insert("events_added".into(), Value::from(events));
    s.insert(
        "stopped".into(),
        Value::from(format!("building the loset ({} reached)", spent.name())),
    );
    report.note_budget(budget);
    report
}

/// A state as a summary shows it: each thread's name with its number of events.
fn shown_state(loset: &Loset, g: &[u32]) -> Value {
    Value::Object(
        loset
            .threads
            .iter()
            .zip(g)
            .map(|(&t, &i)| (loset.names.thread(t).to_owned(), Value::from(i)))
            .collect(),
    )
}

/// The verdict on the state `g`: a finding if reachable, the summary's `verdict` and `reason`
/// otherwise.
fn decide_state(reach: &Reach<'_>, g: &[u32], exact: bool, budget: &Budget, report: &mut Report) {
    let loset = reach.loset;
    let s = &mut report.summary;
    match reach.decide(g, exact) {
        Verdict::Reachable { proof, run } => {
            s.insert("verdict".into(), Value::from("reachable"));
            report.findings.push(state_finding(loset, g, proof, &run));
        }
        Verdict::Unreachable(r) => {
            s.insert("verdict".into(), Value::from("unreachable"));
            s.insert("reason".into(), Value::from(refutation(loset, &r)));
        }
        Verdict::Unknown => {
            s.insert("verdict".into(), Value::from("unknown"));
            let reason = match budget.spent() {
                Some(_) => "strongly feasible, neither lock-free nor viable; the search for a run stopped when the budget ran out",
                None => "strongly feasible, neither lock-free nor viable; --exact searches",
            };
            s.insert("reason".into(), Value::from(reason));
        }
    }
}

/// Counts the strongly feasible states and, with `exact`, the reachable ones by proof; if the
/// budget runs out, those counted so far and where the enumeration stopped.
fn count(reach: &Reach<'_>, exact: bool, loset: &Loset, summary: &mut Map<String, Value>) {
    let mut states = 0u64;
    let mut reachable = 0u64;
    let mut by = [0u64; 3];
    let mut within = reach.within(|g: &[u32]| {
        states += 1;
        if exact {
            if let Verdict::Reachable { proof, .. } = reach.decide(g, true) {
                reachable += 1;
                by[proof as usize] += 1;
            }
        }
        ControlFlow::Continue(())
    });
    let stats = enumerate::enumerate(reach.loset, Lex::Lex2, &mut within);
    let stopped_at = within.stopped_at();
    drop(within);
    summary.insert("states".into(), Value::from(states));
    if let Some(at) = &stopped_at {
        summary.insert("stopped_at".into(), shown_state(loset, at));
    }
    summary.insert(
        "strong_feasibility_checks".into(),
        Value::from(stats.checks),
    );
    if exact {
        summary.insert("reachable".into(), Value::from(reachable));
        let mut proofs = Map::new();
        for (k, name) in ["lock_free", "viable", "search"].iter().enumerate() {
            proofs.insert((*name).into(), Value::from(by[k]));
        }
        summary.insert("proven_by".into(), Value::Object(proofs));
    }
}

/// The loset seen through a predicate: its relevant events as the elements of a `cuts` poset
/// (ordered by the loset's happened-before, without lock edges), so that the predicate of
/// `hindsight cuts` answers for a loset state through its latest relevant event per thread.
struct Projection {
    poset: TracePoset,
    /// Per process: `seen[p][i]` = relevant events among its first `i` events.
    seen: Vec<Vec<u32>>,
}

impl Projection {
    fn new(loset: &Loset, predicate: &Predicate) -> Projection {
        let n = loset.processes();
        let mut seen = Vec::with_capacity(n);
        let mut members = Vec::with_capacity(n);
        for p in 0..n {
            let mut s = vec![0u32];
            let mut m = Vec::new();
            for e in &loset.events[p] {
                let relevant = predicate.relevant(e, &loset.names);
                if relevant {
                    m.push(e.clone());
                }
                s.push(s.last().copied().unwrap_or(0) + u32::from(relevant));
            }
            seen.push(s);
            members.push(m);
        }
        let mut poset = Poset::new(n);
        let mut row = vec![0u32; n];
        for p in 0..n {
            for i in 1..=loset.len(p) {
                if seen[p][i as usize] == seen[p][i as usize - 1] {
                    continue;
                }
                let c = loset.hb.clock(p, i);
                for q in 0..n {
                    row[q] = seen[q][c[q] as usize];
                }
                poset.push(p, &row);
            }
        }
        let starts = members
            .iter()
            .map(|m| (0..=m.len() as u32).collect())
            .collect();
        Projection {
            poset: TracePoset {
                poset,
                threads: loset.threads.clone(),
                members,
                starts,
                names: loset.names.clone(),
                trace_events: loset.hb.events(),
            },
            seen,
        }
    }

    /// The frontier of `g` in the projection.
    fn project(&self, g: &[u32], out: &mut [u32]) {
        for (p, (&i, o)) in g.iter().zip(out.iter_mut()).enumerate() {
            *o = self.seen[p][i as usize];
        }
    }
}
