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
//! - [`osr`], optimistic sync-reversal races (Shi, Mathur, Pavlogiannis, ICSE'24): the races
//!   of the optimistic reordering of each pair's lock closure, which may reverse the order of
//!   critical sections; every sync-preserving race is one.
//!
//! [`witness`] builds, for a predicted race, a correct reordering of a prefix of the trace after
//! which the two accesses are enabled together (the pair's sync-preserving ideal, from
//! [`recording`]), and [`replay`] checks one against the definition alone before anyone shows
//! it. [`found`] keeps and renders the races as `races` does (groups, `--every-event`, the
//! same summary). [`analysis`] is the entry point: the analysis of a [`Model`]. `oracle`
//! (feature `oracle`) enumerates every correct reordering of small traces: the ground truth of
//! the tests; `wcp_queues` (feature `oracle`) is WCP with nothing dropped, the reference the
//! pruned [`wcp`] is held to.
//!
//! It knows the event model, the order layer's vector clocks and the pass's observer traits;
//! it never opens files, prints, or knows the command line. [`shb`] and [`wcp`] stream;
//! [`syncp`] and witnesses keep what their algorithms need of the trace in memory, and every
//! model reports what it holds (`memory_bytes`).

mod accesses;
pub mod found;
mod held;
#[cfg(feature = "oracle")]
pub mod oracle;
pub mod osr;
pub mod recording;
pub mod replay;
pub mod shb;
pub mod syncp;
mod touched;
pub mod wcp;
#[cfg(feature = "oracle")]
pub mod wcp_queues;
pub mod witness;

use hindsight_stream::driver::Analysis;
use hindsight_stream::races::Races;

pub use shb::Options;

/// The race models `races --model` chooses from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Model {
    /// Happens-before, exactly (`hindsight_stream::races`).
    #[default]
    Hb,
    Shb,
    Wcp,
    SyncP,
    Osr,
}

impl Model {
    /// Whether the model predicts races beyond the observed order of critical sections, so
    /// that its races may be owed a witness.
    pub fn predicts(self) -> bool {
        self != Model::Hb
    }
}

/// The analysis of `model`, reporting as `options` says (happens-before races need no
/// witness: the run itself shows them).
pub fn analysis(model: Model, options: Options) -> Box<dyn Analysis> {
    match model {
        Model::Hb => Box::new(Races::with_granularity(options.granularity)),
        Model::Shb => Box::new(shb::Shb::new(options)),
        Model::Wcp => Box::new(wcp::Wcp::new(options)),
        Model::SyncP => Box::new(syncp::SyncP::new(options)),
        Model::Osr => Box::new(osr::Osr::new(options)),
    }
}
