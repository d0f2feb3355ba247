//! Source front ends and the analyses that work on programs rather than runs: the Java front
//! end ([`java`], tree-sitter-java: any valid Java file, its classes, fields and methods),
//! composed operations over a concurrent map found in Java ([`composed`], VINE), and views
//! (MoTH) of programs of its small language and of real Java programs ([`views`], whose
//! sensors live in `hindsight-views`).
//!
//! Inputs are source text the caller reads; outputs are classifications, verdicts and views.
//! Nothing here knows traces, files or output formats. The composed verifier and its bounded
//! check search within the caller's `hindsight_budget::Budget` and stop, not proved, once it is
//! spent.

pub mod composed;
pub mod java;
pub mod views;
