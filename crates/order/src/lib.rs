//! The order layer of hindsight: vector clocks, FastTrack epochs, and the happens-before pass
//! over a stream of events. Clocks of threads that share history share memory (see
//! [`clock`]), so that traces of hundreds of thousands of short threads stay small.
//!
//! It owns the meaning of "ordered before": program order, fork → child, child → join,
//! release → later acquire of the same lock, send → receive. It knows nothing of how events are
//! read or written, and nothing of any analysis: analyses ask it for the clock of the current
//! event and decide for themselves what a race or a violation is.

pub mod clock;
pub mod hb;
pub mod latest;
#[cfg(feature = "oracle")]
pub mod reference;

pub use clock::{join_into, Epoch, VectorClock};
pub use hb::HappensBefore;
pub use latest::{Entry, LatestPerThread};
