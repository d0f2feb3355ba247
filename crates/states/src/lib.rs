//! State-space solvers over one run: the consistent global states of its poset ([`cuts`]) and
//! the reachable global states of its loset ([`reach`]), after Chang's thesis (2016).
//!
//! Inputs are a trace (through the streaming pass of `hindsight-stream`, whose happens-before
//! clocks give the order) or a poset file; outputs are states, verdicts and findings. Nothing
//! here opens files or prints; the predicate and poset-file languages are parsed from text the
//! caller reads.

pub mod cuts;
pub mod reach;
