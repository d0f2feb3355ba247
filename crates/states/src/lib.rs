//! State-space solvers over one run: the consistent global states of its poset ([`cuts`]) and
//! the reachable global states of its loset ([`reach`]), after Chang's thesis (2016).
//!
//! Inputs are a trace (read through the streaming pass of `hindsight-stream`, whose
//! happens-before clocks give the order), a poset file, or a predicate, each handed over by the
//! caller as a reader or as text; outputs are states, verdicts, and reports of findings
//! ([`cuts::detect()`], [`reach::analyse()`], one entry point per command). Nothing here opens
//! files, prints or knows the command line: every search polls the caller's budget (a deadline
//! and a memory limit, `hindsight_budget`) and stops with an unknown report when it is spent; the
//! caller draws progress from the budget's meters and hears of warnings through a [`Progress`]. The
//! brute-force references the property tests hold the solvers to are behind the `oracle`
//! feature; ParaMount across processes (`cuts::cluster`, on timely dataflow, which opens the
//! network connections its caller's host list names) is behind the `cluster` feature, on by
//! default.

pub mod cuts;
pub mod reach;

/// What a long detection tells its caller while it works; the default method ignores it.
/// How far the search got is read off the meters of its budget (`hindsight_budget::Budget`),
/// which every worker thread counts into.
pub trait Progress: Sync {
    /// The input has been read; `warnings` are the lines about it (as in the report).
    fn input_read(&self, warnings: &[String]) {
        let _ = warnings;
    }
}

/// Progress nobody watches.
pub struct Quiet;

impl Progress for Quiet {}

/// A predicate's text as a summary shows it: trimmed, and cut short past a few hundred
/// characters (a generated predicate can run to megabytes).
pub fn abbreviated(text: &str) -> String {
    const SHOWN: usize = 200;
    let text = text.trim();
    match text.char_indices().nth(SHOWN) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}... ({} characters)", &text[..end], text.chars().count()),
    }
}
