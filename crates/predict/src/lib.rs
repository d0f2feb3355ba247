//! Predictive race models: races that happen-before misses, found in one recorded run.
//!
//! Happens-before orders two critical sections of one lock as the run happened to order them,
//! so it never reports accesses in different critical sections that another correct order of
//! the same run puts side by side. The models here predict such races:
//! - [`shb`], schedulable happens-before (Mathur, Kini, Viswanathan, OOPSLA'18): happens-before
//!   plus the write each read sees; every race it reports is a predictable race.
//! - [`wcp`], weak causal precedence (Kini, Mathur, Viswanathan, PLDI'17): orders two critical
//!   sections only when they conflict; weakly sound (a reported race means some race or a
//!   deadlock is predictable).
//! - [`syncp`], sync-preserving races (Mathur, Pavlogiannis, Viswanathan, POPL'21): the races
//!   exposed by a correct reordering that keeps the order of each lock's critical sections,
//!   exactly.
//!
//! [`witness`] builds, for a predicted race, a correct reordering of a prefix of the trace that
//! ends with the two accesses enabled together, and [`replay`] checks one against the
//! definition alone before anyone shows it. [`oracle`] (feature `oracle`) enumerates every
//! correct reordering of small traces: the ground truth of the tests.
//!
//! It knows the event model and the order layer's vector clocks; it never opens files, prints,
//! or knows the command line. The streaming models are observers of `hindsight-stream`'s pass;
//! [`syncp`] and witnesses keep what their algorithms need of the trace in memory.

#[cfg(feature = "oracle")]
pub mod oracle;
pub mod found;
pub mod recording;
pub mod replay;
pub mod witness;
pub mod shb;
pub mod wcp;
mod accesses;
pub mod syncp;
