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

use hindsight_budget::Budget;
pub use hindsight_syntax::SyntaxError;

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
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Linearizable => "linearizable",
            Verdict::NotLinearizable => "not-linearizable",
            Verdict::NotProved => "not-proved",
            Verdict::Unsupported => "unsupported",
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
    let mut out = analyse_modelled(program, op, bounded, budget);
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

fn analyse_modelled(
    program: &ast::Program,
    op: &ast::Operation,
    bounded: bool,
    budget: &Budget,
) -> Analysed {
    let classification = classify(program, op);
    let mut out = Analysed {
        name: op.name.clone(),
        class: program.class.clone(),
        line: op.pos.line,
        classification,
        verdict: Verdict::NotProved,
        counterexample: None,
        note: None,
        states: 0,
        bounded: false,
    };
    if op.unsupported.is_some() {
        return out;
    }
    let code = ir::lower(program, op);
    if out.classification.class != Class::DataDependent {
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
    {
        if !bounded {
            out.note = Some(
                "the reduction to one key and two values needs data independence (try --bounded)"
                    .into(),
            );
            return out;
        }
        out.bounded = true;
        let r = bounded::check(&code, &bounded::Domain::default(), budget);
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
}

/// What the proof said before the bounded check ran, as the start of the note.
fn proof_note(note: &Option<String>) -> String {
    note.as_ref().map_or(String::new(), |n| format!("{n}; "))
}
