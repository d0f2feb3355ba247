//! Linearizability of recorded histories (Wing & Gong's search with Lowe's memoization,
//! P-compositionality), Porcupine-class: `hindsight lin`.
//!
//! A history is what clients recorded: each operation's invocation and, unless it was lost,
//! its completion. Semantics follow Jepsen: `ok` completed with the given output; `fail` did
//! not happen (dropped from the history); `info`, or an invocation with no completion, has an
//! unknown outcome: it may take effect at any point after its invocation, or never, and its
//! process issues nothing further.
//!
//! The search runs within a `hindsight_budget::Budget` the caller gives: its deadline and its
//! memory limit, one total over the independent parts that are searched in parallel; a part
//! stopped by it is undecided and the report unknown, saying which parts and how far each got.

pub mod check;
pub mod models;
pub mod parse;
pub mod report;
pub mod simulate;

pub use check::{check, CheckOptions, Outcome, PartitionResult, Verdict};
pub use models::{choose_model, model_by_name, Model, MODELS};
pub use parse::{History, Op, Val};
pub use report::{analyse, analyse_with, parse_init, read_within, unread_report};
