//! One streaming pass over a trace, and the analyses that ride it.
//!
//! The engine ([`driver`], [`pipeline`]) reads events from a `hindsight-trace` source, validates
//! them, advances the happens-before pass of `hindsight-order` and hands each event to a chain of
//! [`Analysis`] objects (RoadRunner's tool chain), in one thread or split over two. The trace
//! analyses built on it are here too: [`races`], [`commute`], [`atomicity`] and the views of a
//! trace ([`views`], whose sensors live in `hindsight-views`).
//!
//! This crate owns what a bug in a trace is and how one pass finds it. It does not open files
//! (a caller hands it a reader), print, or know the command line; it parses only the language
//! that belongs to one of its analyses (commutativity specs), from text the caller reads.

pub mod atomicity;
pub mod budgeted;
pub mod commute;
pub mod driver;
pub mod groups;
pub mod pipeline;
pub mod races;
pub mod reports;
pub mod timelines;
pub mod views;

pub use driver::{
    observe, observe_any, observe_any_to, observe_any_within, observe_to, observe_within, run,
    run_any, Analysis, AnalysisOutput, FindingSink, FindingsJob, LentCall, Observer, Pass,
    RunOptions, RunOutcome, Stopped, TraceStats,
};
pub use pipeline::{
    observe_pipelined, observe_pipelined_to, observe_pipelined_within, run_pipelined, BatchCursor,
    BatchError,
};
pub use reports::{analyse_trace, analyse_trace_to, analyse_trace_within, TraceRun};
