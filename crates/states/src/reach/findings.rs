//! How `hindsight reach` tells what it decided: events by trace index, thread and operation,
//! states by what each thread has done, cycles of the normalization edge by edge, runs as
//! sequences of trace indices.

use super::classes::{Cycle, EdgeKind, Node};
use super::loset::{Ev, Loset};
use super::search::Invalidity;
use super::{Proof, Refutation, Verdict};
use hindsight_report::{EventRef, Finding, Rule};
use hindsight_syntax::Diagnostic;
use serde_json::{Map, Value};

/// The rules of the findings.
pub(super) fn rules() -> Vec<Rule> {
    vec![
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
    ]
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

/// A state told thread by thread.
struct StateText {
    /// `T1 after #3 w(x), T2 not started`.
    text: String,
    /// The frontier events.
    events: Vec<EventRef>,
    /// Per thread name, its number of events in the state.
    counts: Map<String, Value>,
}

fn state_text(loset: &Loset, g: &[u32]) -> StateText {
    let mut parts = Vec::new();
    let mut events = Vec::new();
    let mut counts = Map::new();
    for (p, &i) in g.iter().enumerate() {
        let name = loset.names.thread(loset.threads[p]).to_owned();
        counts.insert(name.clone(), Value::from(i));
        if i == 0 {
            parts.push(format!("{name} not started"));
        } else {
            let r = event_ref(loset, (p, i));
            parts.push(format!("{name} after #{} {}", r.index, r.op));
            events.push(r);
        }
    }
    StateText {
        text: parts.join(", "),
        events,
        counts,
    }
}

/// A run as `#3 #5 ...`, and as the list of trace indices.
fn schedule(loset: &Loset, run: &[Ev]) -> (String, Value) {
    let idx: Vec<u64> = run.iter().map(|&e| loset.trace_index(e)).collect();
    let text = idx
        .iter()
        .map(|i| format!("#{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    (text, Value::from(idx))
}

pub(super) fn proof_name(p: Proof) -> &'static str {
    match p {
        Proof::LockFree => "lock-free feasible",
        Proof::Viable => "viable",
        Proof::Search => "search",
    }
}

/// Why a state is unreachable.
pub(super) fn refutation(loset: &Loset, r: &Refutation) -> String {
    match r {
        Refutation::Inconsistent { missing, needed_by } => format!(
            "inconsistent: {} happens before {}, which the state has without it",
            short(loset, *missing),
            short(loset, *needed_by)
        ),
        Refutation::Incompatible(l, a, b) => format!(
            "incompatible: {} and {} both hold `{}`",
            short(loset, *a),
            short(loset, *b),
            loset.names.lock(*l)
        ),
        Refutation::NotStronglyFeasible(c) => {
            let (t, _) = cycle_text(loset, c);
            format!("feasible but not strongly feasible: the locking orders close the cycle {t}")
        }
        Refutation::NoRun { explored } => format!(
            "strongly feasible but unreachable: no run reaches it (search explored {explored} states)"
        ),
    }
}

/// Parses `T1=3,T2=2` (threads not named: 0) into a state.
pub(super) fn parse_state(loset: &Loset, text: &str) -> Result<Vec<u32>, Diagnostic> {
    let mut g = vec![0u32; loset.processes()];
    for part in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((name, n)) = part.split_once('=') else {
            return Err(Diagnostic::usage(format!(
                "--state: `{part}` is not THREAD=N"
            )));
        };
        let name = name.trim();
        let Some(p) = loset
            .threads
            .iter()
            .position(|&t| loset.names.thread(t) == name)
        else {
            return Err(Diagnostic::usage(format!(
                "--state: no thread `{name}` has events in the trace"
            )));
        };
        let Ok(i) = n.trim().parse::<u32>() else {
            return Err(Diagnostic::usage(format!(
                "--state: `{}` is not a number of events",
                n.trim()
            )));
        };
        if i > loset.len(p) {
            return Err(Diagnostic::usage(format!(
                "--state: thread `{name}` has only {} events",
                loset.len(p)
            )));
        }
        g[p] = i;
    }
    Ok(g)
}

pub(super) fn invalid_finding(loset: &Loset, why: &Invalidity) -> Finding {
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
                let f = state_text(loset, g).text;
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
        occurrences: None,
        kind: "invalid-loset".into(),
        message,
        events,
        fields: Map::new(),
        group: None,
    }
}

/// The finding for the state asked about, proven reachable by `proof` with `run`.
pub(super) fn state_finding(loset: &Loset, g: &[u32], proof: Proof, run: &[Ev]) -> Finding {
    let state = state_text(loset, g);
    let (s, idx) = schedule(loset, run);
    let mut fields = Map::new();
    fields.insert("state".into(), Value::Object(state.counts));
    fields.insert("proof".into(), Value::from(proof_name(proof)));
    fields.insert("schedule".into(), idx);
    Finding {
        occurrences: None,
        kind: "state".into(),
        message: format!(
            "the state where {} is reachable ({}); schedule: {s}",
            state.text,
            proof_name(proof)
        ),
        events: state.events,
        fields,
        group: None,
    }
}

/// The finding for a satisfying state and its verdict.
pub(super) fn predicate_finding(loset: &Loset, g: &[u32], verdict: &Verdict) -> Finding {
    let state = state_text(loset, g);
    let f = state.text;
    let mut fields = Map::new();
    fields.insert("state".into(), Value::Object(state.counts));
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
        occurrences: None,
        kind: kind.into(),
        message,
        events: state.events,
        fields,
        group: None,
    }
}
