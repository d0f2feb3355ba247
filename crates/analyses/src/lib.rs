//! The analyses of hindsight, one module each, all behind the [`Analysis`] interface so that
//! several run in a single streaming pass over a trace (RoadRunner's tool chain is the model).
//!
//! This crate owns what counts as a bug and how it is found. It reads events through
//! `hindsight-trace`, asks `hindsight-order` what happens before what, and hands finished
//! findings to `hindsight-report`; it does not open files or print anything itself. It does
//! parse the small languages that only its analyses use (commutativity specs, histories, poset
//! files, predicates, `.mv` programs, composed operations), from text the CLI hands it.

pub mod atomicity;
pub mod commute;
pub mod composed;
pub mod cuts;
pub mod driver;
pub mod lin;
pub mod pipeline;
pub mod races;
pub mod reach;
pub mod views;

pub use driver::{
    run, run_any, Analysis, AnalysisOutput, FindingsJob, LentCall, RunOptions, RunOutcome,
    TraceStats,
};
pub use pipeline::{run_pipelined, BatchCursor, BatchError};
