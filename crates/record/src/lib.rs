//! Drop-in replacements for the std synchronization types that record what a concurrent Rust
//! program does as a hindsight trace (binary `.hst`), for `hindsight races`, `commute`,
//! `atomicity`, `views` and the other analyses.
//!
//! Change `use std::sync::Mutex` to `use hindsight_record::sync::Mutex` (likewise `RwLock`,
//! `Condvar`, `Barrier`, `Once`, `OnceLock`, `LazyLock`, `mpsc`, `atomic`, and `std::thread` to
//! `hindsight_record::thread`) and start recording with `HINDSIGHT_TRACE=path` and
//! `let _trace = hindsight_record::init();` at the top of `main` (or an explicit
//! [`Recorder`]). The data behind a lock is recorded through its guards (a read per `Deref`, a
//! write per `DerefMut`, at most `r w r` per critical section: see `on/sync.rs`); data shared
//! otherwise goes in a [`Shared`], concurrent collections are [`Map`]/[`Set`], and
//! [`atomic_block`] marks code that *should* be atomic (what `atomicity` checks; `views` takes
//! lock regions, what the program really runs atomically). `thread::park`/`unpark`, barriers and
//! one-time initialisations record the happens-before edges std documents, as messages.
//!
//! With the `record` feature off every synchronization type is the std type itself and the
//! rest are transparent wrappers: the program runs as if it used std (see `off.rs`).
//!
//! This crate owns how a running program becomes a trace; it knows nothing of any analysis.

mod value;

#[cfg(feature = "record")]
mod on;
#[cfg(feature = "record")]
pub use on::{
    atomic_begin, atomic_block, init, sync, thread, AtomicBlock, Map, Recorder, Set, Shared,
    Summary, TraceGuard,
};

#[cfg(not(feature = "record"))]
mod off;
#[cfg(not(feature = "record"))]
pub use off::{
    atomic_begin, atomic_block, init, sync, thread, AtomicBlock, Map, Recorder, Set, Shared,
    Summary, TraceGuard,
};

pub use value::{ToValue, TraceValue};

/// Names an object in the trace (`Mutex::new(0).named("balance")`); without it an object is
/// named after the file and line that created it. A no-op without the `record` feature.
pub trait Named: Sized {
    fn named(self, name: &str) -> Self;
}

#[cfg(not(feature = "record"))]
impl<T> Named for T {
    #[inline(always)]
    fn named(self, _name: &str) -> Self {
        self
    }
}

/// Whether this build records (the `record` feature).
pub const RECORDS: bool = cfg!(feature = "record");
