//! `hindsight reach`: predicate detection under locking constraints, on the loset of a trace
//! (Chang's thesis, Chapters 5-6).

use crate::{display_path, place, print_report, trace_error, FormatArg, InputArgs, Located};
use anyhow::bail;
use hindsight_report::{EventRef, Finding, Report, Rule};
use hindsight_states::cuts::poset::{Poset, TracePoset};
use hindsight_states::cuts::predicate::{parse_predicate, Predicate};
use hindsight_states::reach::classes::{Cycle, EdgeKind, Node};
use hindsight_states::reach::loset::{Ev, Loset, LosetBuilder};
use hindsight_states::reach::search::{Invalidity, Validity};
use hindsight_states::reach::{enumerate, Proof, Reach, Refutation, Verdict};
use hindsight_trace::Format;
use serde_json::{Map, Value};
use std::ops::ControlFlow;
use std::time::Instant;

#[derive(clap::Args)]
pub struct ReachArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// A predicate over the frontier events, in the language of `hindsight cuts` (a thread's
    /// frontier event is its latest event the predicate looks at): report the first strongly
    /// feasible state where it holds, proven reachable if possible.
    #[arg(long)]
    pub predicate: Option<String>,
    /// Count the strongly feasible states (and, with --exact, the reachable ones).
    #[arg(long)]
    pub count: bool,
    /// Decide by search every state the polynomial classes leave open.
    #[arg(long)]
    pub exact: bool,
    /// Whether the loset is valid (its final state reachable), with the cycle otherwise.
    #[arg(long)]
    pub check_valid: bool,
    /// Decide one global state, given per thread as the number of its events in the state:
    /// `T1=3,T2=2` (threads not named: 0).
    #[arg(long, value_name = "THREAD=N,...")]
    pub state: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: FormatArg,
}

/// A loset with what the validator said about its trace.
struct ReadLoset {
    loset: Loset,
    warnings: Vec<hindsight_trace::Warning>,
    warning_counts: Vec<(&'static str, u64)>,
    events: u64,
}

fn event_ref(loset: &Loset, e: Ev) -> EventRef {
    let ev = loset.event(e);
    EventRef {
        index: ev.index,
        thread: loset.names.thread(ev.thread).to_owned(),
        op: ev.display_op(&loset.names).to_string(),
        location: ev.loc.map(|l| loset.names.location(l).to_owned()),
    }
}

fn short(loset: &Loset, e: Ev) -> String {
    let r = event_ref(loset, e);
    format!("#{} {} {}", r.index, r.thread, r.op)
}

fn node(loset: &Loset, n: Node) -> String {
    match n {
        Node::Start => "(the events before the bound)".into(),
        Node::End => "(past the state)".into(),
        Node::Event(e) => short(loset, e),
    }
}

fn edge(loset: &Loset, k: EdgeKind) -> String {
    match k {
        EdgeKind::Program => "program order".into(),
        EdgeKind::HappenedBefore => "happened-before".into(),
        EdgeKind::LockingOrder(l) => format!("locking order on `{}`", loset.names.lock(l)),
        EdgeKind::Dynamic(l) => format!("dynamic locking order on `{}`", loset.names.lock(l)),
    }
}

/// The cycle as text, and its events.
fn cycle_text(loset: &Loset, c: &Cycle) -> (String, Vec<EventRef>) {
    let mut s = String::new();
    for (n, k) in &c.steps {
        s.push_str(&node(loset, *n));
        s.push_str(&format!(" -[{}]-> ", edge(loset, *k)));
    }
    if let Some((n, _)) = c.steps.first() {
        s.push_str(&node(loset, *n));
    }
    let events = c
        .steps
        .iter()
        .filter_map(|(n, _)| match n {
            Node::Event(e) => Some(event_ref(loset, *e)),
            _ => None,
        })
        .collect();
    (s, events)
}

fn frontier(loset: &Loset, g: &[u32]) -> (String, Vec<EventRef>, Map<String, Value>) {
    let mut parts = Vec::new();
    let mut events = Vec::new();
    let mut state = Map::new();
    for (p, &i) in g.iter().enumerate() {
        let name = loset.names.thread(loset.threads[p]).to_owned();
        state.insert(name.clone(), Value::from(i));
        if i == 0 {
            parts.push(format!("{name} not started"));
        } else {
            let r = event_ref(loset, (p, i));
            parts.push(format!("{name} after #{} {}", r.index, r.op));
            events.push(r);
        }
    }
    (parts.join(", "), events, state)
}

fn schedule(loset: &Loset, run: &[Ev]) -> (String, Value) {
    let idx: Vec<u64> = run.iter().map(|&e| loset.trace_index(e)).collect();
    let text = idx
        .iter()
        .map(|i| format!("#{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    (text, Value::from(idx))
}

fn proof_name(p: Proof) -> &'static str {
    match p {
        Proof::LockFree => "lock-free feasible",
        Proof::Viable => "viable",
        Proof::Search => "search",
    }
}

fn refutation(loset: &Loset, r: &Refutation) -> (String, Vec<EventRef>) {
    match r {
        Refutation::Inconsistent { missing, needed_by } => (
            format!(
                "inconsistent: {} happens before {}, which the state has without it",
                short(loset, *missing),
                short(loset, *needed_by)
            ),
            vec![event_ref(loset, *missing), event_ref(loset, *needed_by)],
        ),
        Refutation::Incompatible(l, a, b) => (
            format!(
                "incompatible: {} and {} both hold `{}`",
                short(loset, *a),
                short(loset, *b),
                loset.names.lock(*l)
            ),
            vec![event_ref(loset, *a), event_ref(loset, *b)],
        ),
        Refutation::NotStronglyFeasible(c) => {
            let (t, ev) = cycle_text(loset, c);
            (
                format!("feasible but not strongly feasible: the locking orders close the cycle {t}"),
                ev,
            )
        }
        Refutation::NoRun { explored } => (
            format!(
                "strongly feasible but unreachable: no run reaches it (search explored {explored} states)"
            ),
            Vec::new(),
        ),
    }
}

/// Parses `T1=3,T2=2` into a state.
fn parse_state(loset: &Loset, text: &str) -> anyhow::Result<Vec<u32>> {
    let mut g = vec![0u32; loset.processes()];
    for part in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((name, n)) = part.split_once('=') else {
            bail!("--state: `{part}` is not THREAD=N");
        };
        let Some(p) = loset
            .threads
            .iter()
            .position(|&t| loset.names.thread(t) == name.trim())
        else {
            bail!(
                "--state: no thread `{}` has events in the trace",
                name.trim()
            );
        };
        let Ok(i) = n.trim().parse::<u32>() else {
            bail!("--state: `{}` is not a number of events", n.trim());
        };
        if i > loset.len(p) {
            bail!(
                "--state: thread `{}` has only {} events",
                name.trim(),
                loset.len(p)
            );
        }
        g[p] = i;
    }
    Ok(g)
}

pub fn run(a: ReachArgs) -> anyhow::Result<u8> {
    if !(a.count || a.check_valid || a.predicate.is_some() || a.state.is_some()) {
        bail!("`reach` needs --predicate EXPR, --count, --check-valid or --state");
    }
    let path = &a.input.trace;
    let wrap = |error| trace_error(path, error);
    let mut reader = hindsight_trace::open(path).map_err(wrap)?;
    let trace_format = reader.format();
    let mut builder = LosetBuilder::default();
    let options = hindsight_stream::RunOptions {
        strict: a.input.strict,
        pipeline: false,
    };
    let pass =
        hindsight_stream::observe_any(&mut reader, &mut [&mut builder], options).map_err(wrap)?;
    let events = builder.events();
    let read = ReadLoset {
        loset: builder.finish(pass.names),
        warnings: pass.warnings,
        warning_counts: pass.warning_counts,
        events,
    };
    let mut warning_lines: Vec<String> = read
        .warnings
        .iter()
        .map(|w| format!("{}: warning: {}", place(path, w.pos), w.kind))
        .collect();
    for &(code, n) in &read.warning_counts {
        let kept = read
            .warnings
            .iter()
            .filter(|w| w.kind.code() == code)
            .count() as u64;
        if n > kept {
            warning_lines.push(format!(
                "{}: warning: {} more `{code}` warning(s) not shown",
                display_path(path),
                n - kept
            ));
        }
    }
    for l in &warning_lines {
        eprintln!("{l}");
    }
    let loset = read.loset;
    let state = a
        .state
        .as_deref()
        .map(|s| parse_state(&loset, s))
        .transpose()?;
    let predicate = a
        .predicate
        .as_deref()
        .map(|text| {
            parse_predicate(text).map_err(|e| {
                Located(format!(
                    "<predicate>:{}:{}: error: {}",
                    e.line, e.column, e.message
                ))
            })
        })
        .transpose()?;
    let projection = predicate.as_ref().map(|p| Projection::new(&loset, p));
    let bound = match (&predicate, &projection) {
        (Some(p), Some(proj)) => Some(p.bind(&proj.poset).map_err(|e| {
            Located(format!(
                "<predicate>:{}:{}: error: {}",
                e.line, e.column, e.message
            ))
        })?),
        _ => None,
    };
    let started = Instant::now();
    let reach = Reach::new(&loset);

    let mut report = Report::new("reach");
    report.warnings = warning_lines;
    report
        .trace
        .insert("path".into(), Value::from(display_path(path)));
    report.trace.insert(
        "format".into(),
        Value::from(match trace_format {
            Format::Text => "text",
            Format::Binary => "binary",
        }),
    );
    report
        .trace
        .insert("events".into(), Value::from(read.events));
    report
        .trace
        .insert("threads".into(), Value::from(loset.processes()));
    report.trace.insert(
        "locks".into(),
        Value::from(loset.by_lock.iter().filter(|v| !v.is_empty()).count()),
    );
    report
        .trace
        .insert("intervals".into(), Value::from(loset.intervals.len()));
    report.rules = vec![
        Rule {
            id: "predicate",
            description: "The predicate holds in a reachable global state of the loset",
        },
        Rule {
            id: "predicate-strongly-feasible",
            description:
                "The predicate holds in a strongly feasible global state not proven reachable",
        },
        Rule {
            id: "invalid-loset",
            description: "No run of the loset reaches its final state",
        },
        Rule {
            id: "state",
            description: "The global state asked about is reachable",
        },
    ];
    let valid = matches!(reach.validity, Validity::Valid(_));
    report.summary.insert("valid".into(), Value::from(valid));

    if a.check_valid {
        if let Validity::Invalid(why) = &reach.validity {
            report.findings.push(invalid_finding(&loset, why));
        }
    }
    if let Some(g) = &state {
        decide_state(&loset, &reach, g, a.exact, &mut report);
    }
    if a.count {
        let mut states = 0u64;
        let mut reachable = 0u64;
        let mut by = [0u64; 3];
        let stats = enumerate::enumerate(&loset, enumerate::Lex::Lex2, &mut |g: &[u32]| {
            states += 1;
            if a.exact {
                if let Verdict::Reachable { proof, .. } = reach.decide(g, true) {
                    reachable += 1;
                    by[proof as usize] += 1;
                }
            }
            ControlFlow::Continue(())
        });
        report.summary.insert("states".into(), Value::from(states));
        report.summary.insert(
            "strong_feasibility_checks".into(),
            Value::from(stats.checks),
        );
        if a.exact {
            report
                .summary
                .insert("reachable".into(), Value::from(reachable));
            let mut proofs = Map::new();
            for (k, name) in ["lock_free", "viable", "search"].iter().enumerate() {
                proofs.insert((*name).into(), Value::from(by[k]));
            }
            report
                .summary
                .insert("proven_by".into(), Value::Object(proofs));
        }
    }
    if let (Some(p), Some(proj), Some(bound)) = (&predicate, &projection, &bound) {
        let mut frontier = vec![0u32; loset.processes()];
        let detection = reach.detect(
            &mut |g: &[u32]| {
                proj.project(g, &mut frontier);
                bound.holds(&frontier)
            },
            a.exact,
        );
        report
            .summary
            .insert("predicate".into(), Value::from(p.text.clone()));
        report
            .summary
            .insert("states".into(), Value::from(detection.states));
        report
            .summary
            .insert("satisfying".into(), Value::from(detection.satisfying));
        report
            .summary
            .insert("complete".into(), Value::from(detection.complete));
        if detection.unreachable > 0 {
            report.summary.insert(
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
        Value::from(started.elapsed().as_secs_f64() * 1e3),
    );
    print_report(&report, a.format)?;
    Ok(report.exit_code() as u8)
}

fn invalid_finding(loset: &Loset, why: &Invalidity) -> Finding {
    let (message, events) = match why {
        Invalidity::FinalIncompatible(l, a, b) => (
            format!(
                "invalid loset: the final state is incompatible: {} and {} both end holding `{}`",
                short(loset, *a),
                short(loset, *b),
                loset.names.lock(*l)
            ),
            vec![event_ref(loset, *a), event_ref(loset, *b)],
        ),
        Invalidity::Cycle(c) => {
            let (t, ev) = cycle_text(loset, c);
            (
                format!("invalid loset: normalizing it closes the cycle {t}"),
                ev,
            )
        }
        Invalidity::NoRun { explored, blocked } => match blocked {
            Some((g, c)) => {
                let (t, ev) = cycle_text(loset, c);
                let (f, _, _) = frontier(loset, g);
                (
                    format!(
                        "invalid loset: no run reaches the final state (search explored {explored} states, cutting every state from which the rest closes a cycle), e.g. from the state where {f}: {t}"
                    ),
                    ev,
                )
            }
            None => (
                format!(
                    "invalid loset: no run reaches the final state (search explored {explored} states)"
                ),
                Vec::new(),
            ),
        },
    };
    Finding {
        kind: "invalid-loset".into(),
        message,
        events,
        fields: Map::new(),
        group: None,
    }
}

fn decide_state(loset: &Loset, reach: &Reach, g: &[u32], exact: bool, report: &mut Report) {
    let (f, events, state) = frontier(loset, g);
    let verdict = reach.decide(g, exact);
    let mut fields = Map::new();
    fields.insert("state".into(), Value::Object(state));
    match verdict {
        Verdict::Reachable { proof, run } => {
            let (s, idx) = schedule(loset, &run);
            fields.insert("proof".into(), Value::from(proof_name(proof)));
            fields.insert("schedule".into(), idx);
            report
                .summary
                .insert("verdict".into(), Value::from("reachable"));
            report.findings.push(Finding {
                kind: "state".into(),
                message: format!(
                    "the state where {f} is reachable ({}); schedule: {s}",
                    proof_name(proof)
                ),
                events,
                fields,
                group: None,
            });
        }
        Verdict::Unreachable(r) => {
            let (why, _) = refutation(loset, &r);
            report
                .summary
                .insert("verdict".into(), Value::from("unreachable"));
            report.summary.insert("reason".into(), Value::from(why));
        }
        Verdict::Unknown => {
            report
                .summary
                .insert("verdict".into(), Value::from("unknown"));
            report.summary.insert(
                "reason".into(),
                Value::from("strongly feasible, neither lock-free nor viable; --exact searches"),
            );
        }
    }
}

/// The finding for a satisfying state and its verdict.
pub fn predicate_finding(loset: &Loset, g: &[u32], verdict: &Verdict) -> Finding {
    let (f, events, state) = frontier(loset, g);
    let mut fields = Map::new();
    fields.insert("state".into(), Value::Object(state));
    let (kind, message) = match verdict {
        Verdict::Reachable { proof, run } => {
            let (s, idx) = schedule(loset, run);
            fields.insert("proof".into(), Value::from(proof_name(*proof)));
            fields.insert("schedule".into(), idx);
            (
                "predicate",
                format!(
                    "the predicate holds where {f}; proven reachable ({}); schedule: {s}",
                    proof_name(*proof)
                ),
            )
        }
        _ => {
            fields.insert("proof".into(), Value::from("strongly feasible only"));
            (
                "predicate-strongly-feasible",
                format!(
                    "the predicate holds where {f}; that state is strongly feasible but not proven reachable (--exact searches)"
                ),
            )
        }
    };
    Finding {
        kind: kind.into(),
        message,
        events,
        fields,
        group: None,
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
