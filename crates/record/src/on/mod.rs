//! The recording build (`feature = "record"`): wrappers around the std types that record
//! every operation into the active session of [`recorder`].

mod atomic;
mod buffer;
mod channel;
mod once;
mod park;
pub mod recorder;
pub mod shared;
pub mod sync;
pub mod thread;

pub use recorder::{init, Recorder, Summary, TraceGuard};
pub use shared::{atomic_begin, atomic_block, AtomicBlock, Map, Set, Shared};
