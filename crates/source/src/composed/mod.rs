//! Linearizability of composed operations over a concurrent map via data independence
//! (Shacham et al., "Verifying Atomicity via Data Independence", ISSTA'14 — VINE):
//! `hindsight composed`.
//!
//! Java source (whole classes, or a snippet of fields and methods as the paper quotes them)
//! is parsed by the shared Java front end (`crate::java`); `front.rs` finds the composed
//! operations and lowers them to the syntax tree of `ast.rs`, whose every unknown is explicit;
//! `ir.rs` lowers each to instructions whose map calls are the main transitions of Section 3.1. Each operation is classified (`classify.rs`) as SCM, VCM or FCM (Definitions
//! 4.2-4.4) or as data-dependent with the reasons of Fig. 11; data-independent operations are
//! verified against Definition 3.1 over every interleaving with environment transitions on one
//! key and two values (`verify.rs`, Theorem 4.1 makes that a proof for all keys and values);
//! data-dependent ones can be checked on a small domain (`bounded.rs`, not a proof).
//! `brute.rs` (with the `oracle` feature, for tests) is the independent oracle: two threads
//! running the operation, checked against the map's sequential specification.
//!
//! This module knows nothing of traces, files or output formats.

pub mod arith;
pub mod ast;
pub mod bounded;
#[cfg(feature = "oracle")]
pub mod brute;
pub mod classify;
pub mod front;
pub mod generate;
mod inline;
pub mod ir;
pub mod report;
pub mod verify;

use hindsight_budget::{show_size, Account, Budget, Limits, Spent};
pub use hindsight_syntax::SyntaxError;
use std::time::{Duration, Instant};

pub use classify::{classify, Class, Classification, Reason};
pub use front::parse;
pub use report::{analyse_file, analyse_sources, Source};
pub use verify::{verify, Counterexample, VerifyResult};

/// The verdict the report gives an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Linearizable,
    NotLinearizable,
    NotProved,
    /// The front end cannot model the operation (the map escaping into unknown code, an
    /// iteration other than a traversal of its views, ...).
    Unsupported,
    /// The budget (`--timeout`, `--memory-limit`) ran out before its check started: it is
    /// classified (a walk over its syntax), not verified.
    NotReached,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Linearizable => "linearizable",
            Verdict::NotLinearizable => "not-linearizable",
            Verdict::NotProved => "not-proved",
            Verdict::Unsupported => "unsupported",
            Verdict::NotReached => "not-reached",
        }
    }
}

/// Everything known about one operation after classification and verification.
#[derive(Clone, Debug)]
pub struct Analysed {
    pub name: String,
    /// The Java class it is a method of (empty in a snippet).
    pub class: String,
    pub line: u32,
    pub classification: Classification,
    pub verdict: Verdict,
    /// For a violation: the counterexample.
    pub counterexample: Option<Counterexample>,
    /// Why the verdict is `not-proved` (data-dependent, bounded check found nothing, ...).
    pub note: Option<String>,
    /// States explored by the verifier or the bounded check.
    pub states: usize,
    /// Whether the verdict came from the bounded check (not a proof).
    pub bounded: bool,
}

/// What is checked beyond classification, and the bounds of one operation's check.
#[derive(Clone, Copy, Debug)]
pub struct Checks {
    /// Data-dependent operations get the bounded check.
    pub bounded: bool,
    /// The bounded check's states per operation ([`bounded::Domain::max_states_per_operation`]).
    pub states_per_operation: usize,
    /// The time one operation's check may take (`None`: as long as the run's budget lasts).
    /// A state's cost grows with the values it holds (an unknown call's result on an unknown
    /// call's result...), so a bound on states alone does not bound the time: this one does,
    /// so that a whole project finishes.
    pub time_per_operation: Option<Duration>,
    /// The memory one operation's check may account for (`None`: the run's limit), below
    /// the run's `--memory-limit`: one operation's states do not take the whole machine.
    pub memory_per_operation: Option<u64>,
}

/// The default of [`Checks::time_per_operation`].
pub const TIME_PER_OPERATION: Duration = Duration::from_secs(10);

/// The default of [`Checks::memory_per_operation`]: 1 GiB.
pub const MEMORY_PER_OPERATION: u64 = 1 << 30;

impl Checks {
    /// The checks of `hindsight composed` (with `--bounded` or without), default bounds.
    pub fn new(bounded: bool) -> Checks {
        Checks {
            bounded,
            states_per_operation: bounded::STATES_PER_OPERATION,
            time_per_operation: Some(TIME_PER_OPERATION),
            memory_per_operation: Some(MEMORY_PER_OPERATION),
        }
    }
}

/// Classifies and verifies every operation of `program` (with `bounded`, data-dependent
/// operations get the bounded check), within `budget`.
pub fn analyse(program: &ast::Program, bounded: bool, budget: &Budget) -> Vec<Analysed> {
    program
        .operations
        .iter()
        .map(|op| analyse_one(program, op, bounded, budget))
        .collect()
}

/// Classifies and verifies one operation within `budget`: once it is spent, the verdict is
/// not proved, with the states explored until then.
pub fn analyse_one(
    program: &ast::Program,
    op: &ast::Operation,
    bounded: bool,
    budget: &Budget,
) -> Analysed {
    analyse_checked(program, op, &Checks::new(bounded), budget)
}

/// [`analyse_one`] with the checks and bounds of `checks`.
pub fn analyse_checked(
    program: &ast::Program,
    op: &ast::Operation,
    checks: &Checks,
    budget: &Budget,
) -> Analysed {
    // The operation's own budget: the run's deadline or its time bound, whichever comes
    // first, and the run's memory limit or its memory bound, whichever is smaller
    // (operations are checked one at a time, so each may hold what the run may).
    let run_memory = budget.limits().memory;
    let memory = checks
        .memory_per_operation
        .map_or(run_memory, |m| m.min(run_memory));
    let bounded_here = checks.time_per_operation.is_some() || memory < run_memory;
    let own = (bounded_here && budget.check().is_ok()).then(|| {
        let left = budget
            .deadline()
            .map(|d| d.saturating_duration_since(Instant::now()));
        let timeout = match (checks.time_per_operation, left) {
            (Some(t), Some(l)) => Some(t.min(l)),
            (t, l) => t.or(l),
        };
        Budget::new(Limits { timeout, memory })
    });
    let mut out = analyse_modelled(program, op, checks, own.as_ref().unwrap_or(budget));
    if let Some(own) = &own {
        budget.add_steps(own.reading().steps);
        match own.spent() {
            // The operation's own bound, below the run's: this operation stops alone.
            Some(Spent::Memory) if memory < run_memory => {
                if matches!(out.verdict, Verdict::NotProved | Verdict::NotReached) {
                    out.verdict = Verdict::NotProved;
                    out.note = Some(format!(
                        "{}stopped at the bound of {} per operation after {} states, with no violation found; this is not a proof",
                        if out.bounded { "bounded check: " } else { "" },
                        show_size(memory),
                        out.states
                    ));
                }
            }
            Some(Spent::Memory) => {
                // The run's limit, reached by this operation: the run stops as with one
                // budget.
                Account::new(budget).out_of_memory();
            }
            // The run's deadline passed (`check` marks it so), or only the operation's bound.
            Some(Spent::Time) if budget.check().is_ok() => {
                // Stopped by its own bound (before its search started, or in it).
                if matches!(out.verdict, Verdict::NotProved | Verdict::NotReached) {
                    out.verdict = Verdict::NotProved;
                    out.note = Some(format!(
                        "{}stopped at the bound of {} s per operation after {} states, with no violation found; this is not a proof",
                        if out.bounded { "bounded check: " } else { "" },
                        checks.time_per_operation.unwrap_or_default().as_secs_f64(),
                        out.states
                    ));
                }
            }
            _ => {}
        }
    }
    if let Some((pos, what)) = &op.unsupported {
        out.verdict = Verdict::Unsupported;
        out.note = Some(format!("line {}:{}: {what}", pos.line, pos.col));
        out.counterexample = None;
        return out;
    }
    let notes = &mut out.classification.notes;
    for (pos, why) in &op.derived {
        notes.push(format!("line {}: {why}", pos.line));
    }
    for (pos, why) in &op.lambda_effects {
        notes.push(format!("line {}: {why}", pos.line));
    }
    // A proof covers the modelled paths only: with some left out, it proves nothing. A
    // violation on a modelled path is still a real one.
    if out.verdict == Verdict::Linearizable || out.verdict == Verdict::NotProved {
        if let Some((pos, why)) = op.approximations.first() {
            let note = format!("line {}: {why}", pos.line);
            out.note = Some(match (&out.note, out.verdict) {
                (Some(n), Verdict::NotProved) => format!("{n}; {note}"),
                _ => note,
            });
            out.verdict = Verdict::NotProved;
        }
    }
    out
}

fn unchecked(program: &ast::Program, op: &ast::Operation) -> Analysed {
    Analysed {
        name: op.name.clone(),
        class: program.class.clone(),
        line: op.pos.line,
        classification: classify(program, op),
        verdict: Verdict::NotProved,
        counterexample: None,
        note: None,
        states: 0,
        bounded: false,
    }
}

fn analyse_modelled(
    program: &ast::Program,
    op: &ast::Operation,
    checks: &Checks,
    budget: &Budget,
) -> Analysed {
    let bounded = checks.bounded;
    let mut out = unchecked(program, op);
    if op.unsupported.is_some() {
        return out;
    }
    let data_dependent = out.classification.class == Class::DataDependent;
    if data_dependent && !bounded {
        out.note = Some(
            "the reduction to one key and two values needs data independence (try --bounded)"
                .into(),
        );
        return out;
    }
    // A spent budget leaves every search not started: the operation is listed, classified.
    if let Err(spent) = budget.check() {
        out.verdict = Verdict::NotReached;
        out.note = Some(format!(
            "the budget ran out (--{}) before its check started",
            spent.name()
        ));
        return out;
    }
    let code = ir::lower(program, op);
    if !data_dependent {
        match verify(
            &code,
            &out.classification,
            &verify::Limits::default(),
            budget,
        ) {
            VerifyResult::Linearizable { states } => {
                out.verdict = Verdict::Linearizable;
                out.states = states;
                return out;
            }
            VerifyResult::Violation(c) => {
                out.verdict = Verdict::NotLinearizable;
                out.states = c.states;
                out.counterexample = Some(*c);
                return out;
            }
            // The proof cannot follow every path (a condition on an unknown value, arithmetic
            // on one): with --bounded, the bounded search looks for a violation there.
            VerifyResult::NotProved(why) if bounded => {
                out.note = Some(format!("the proof stopped: {why}"));
            }
            VerifyResult::NotProved(why) => {
                out.note = Some(why);
                return out;
            }
        }
    }
    out.bounded = true;
    let domain = bounded::Domain {
        max_states_per_operation: checks.states_per_operation,
        ..bounded::Domain::default()
    };
    let r = bounded::check(&code, &domain, budget);
    out.states = r.states;
    match r.result {
        VerifyResult::Violation(c) => {
            out.verdict = Verdict::NotLinearizable;
            out.counterexample = Some(*c);
        }
        VerifyResult::Linearizable { .. } => {
            out.note = Some(format!(
                "{}bounded check: no violation among {} states on the small domain ({}); this is not a proof",
                proof_note(&out.note), r.states, r.domain
            ));
        }
        VerifyResult::NotProved(why) => {
            out.note = Some(format!("{}bounded check: {why}", proof_note(&out.note)))
        }
    }
    out
}

/// What the proof said before the bounded check ran, as the start of the note.
fn proof_note(note: &Option<String>) -> String {
    note.as_ref().map_or(String::new(), |n| format!("{n}; "))
}
