//! Errors and warnings about a trace, each with the place in the file it concerns.

pub use hindsight_syntax::Position;

/// What makes a trace unusable. Each variant is one line of explanation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    #[error("cannot read: {0}")]
    Io(String),
    /// The input sent nothing more before the deadline of `--timeout` ([`hindsight_budget::ReadUntil`]).
    #[error("no more input came before the deadline")]
    InputTimedOut,
    #[error("bad syntax: {0}")]
    Syntax(String),
    #[error("unknown operation `{0}` (expected one of r, w, acq, rel, req, fork, join, begin, end, snd, rcv, call)")]
    UnknownOp(String),
    #[error("name is not valid UTF-8")]
    NotUtf8,
    #[error("not a hindsight binary trace (bad magic number)")]
    BadMagic,
    #[error("binary trace version {0} is not supported (this build reads version {1})")]
    UnsupportedVersion(u64, u64),
    #[error("truncated binary trace: {0}")]
    Truncated(String),
    #[error("corrupt binary trace: {0}")]
    Corrupt(String),
    #[error("{thread} receives message `{msg}`, which was never sent before")]
    ReceiveNeverSent { thread: String, msg: String },
    #[error("{thread} joins thread `{target}`, which never appears in the trace")]
    JoinUnknownThread { thread: String, target: String },
    #[error("{thread} releases lock `{lock}`, which it does not hold")]
    ReleaseNotHeld { thread: String, lock: String },
    #[error("{thread} {op}s itself")]
    SelfForkJoin { thread: String, op: &'static str },
    #[error("{0} (an error under --strict)")]
    Strict(WarningKind),
    #[error("{0}")]
    Unsupported(String),
    /// An event an analysis cannot accept (a call of a method its spec does not declare, ...).
    #[error("{0}")]
    Analysis(String),
}

/// An error and where it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{pos}: {kind}")]
pub struct TraceError {
    pub pos: Position,
    pub kind: ErrorKind,
}

impl TraceError {
    pub fn new(pos: Position, kind: ErrorKind) -> TraceError {
        TraceError { pos, kind }
    }
}

impl ErrorKind {
    /// The kind of a failed read: the deadline's own when the input timed out.
    pub fn of_io(e: &std::io::Error) -> ErrorKind {
        match e.kind() {
            std::io::ErrorKind::TimedOut => ErrorKind::InputTimedOut,
            _ => ErrorKind::Io(e.to_string()),
        }
    }
}

/// What real logs do that the papers' models forbid. Accepted, with the usual vector-clock
/// meaning, unless `--strict` is given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WarningKind {
    #[error("thread `{thread}` has events before the fork that creates it (the fork orders only its later events)")]
    EventBeforeFork { thread: String },
    #[error("thread `{thread}` is never forked")]
    NeverForked { thread: String },
    #[error("thread `{thread}` is forked more than once")]
    ForkedTwice { thread: String },
    #[error("{thread} acquires lock `{lock}` while {holder} holds it (lock records out of order)")]
    AcquireHeld {
        thread: String,
        lock: String,
        holder: String,
    },
    /// Repaired by [`crate::repair::LockRepair`]: the acquire waits for the holder's release.
    #[error("{thread} acquires lock `{lock}` while {holder} holds it (lock records out of order); repaired: {holder}'s later release of it is taken to come first")]
    LateRelease {
        thread: String,
        lock: String,
        holder: String,
    },
    /// Tolerated by [`crate::repair::LockRepair`] where the repair cannot put the release
    /// back: the section this acquire opens is read as not protected by the lock.
    #[error("{thread} acquires lock `{lock}` while {holder} holds it (lock records out of order, no reordering frees it); tolerated: the section {thread} opens here is taken as not protected by `{lock}`")]
    UnprotectedSection {
        thread: String,
        lock: String,
        holder: String,
    },
    /// A release with no acquire of the lock before it in its thread: a log that starts
    /// while the lock is held, or one that lost the acquire.
    #[error("{thread} releases lock `{lock}` with no acquire of it before; {treatment}")]
    ReleaseWithoutAcquire {
        thread: String,
        lock: String,
        /// What the pass does with it: ignored, or read as logged.
        treatment: &'static str,
    },
    #[error("thread `{thread}` has events after it was joined (the join orders only its earlier events)")]
    EventAfterJoin { thread: String },
    #[error("{thread}: `end` without a matching `begin`")]
    EndWithoutBegin { thread: String },
    /// An empty file or stream is more often a logger that failed than a run that did nothing.
    #[error("the trace has no events")]
    Empty,
}

impl WarningKind {
    /// A short stable name per kind, used to count and to cap repeated warnings.
    pub fn code(&self) -> &'static str {
        match self {
            WarningKind::EventBeforeFork { .. } => "event-before-fork",
            WarningKind::NeverForked { .. } => "never-forked",
            WarningKind::ForkedTwice { .. } => "forked-twice",
            WarningKind::AcquireHeld { .. } => "acquire-held-lock",
            WarningKind::LateRelease { .. } => "late-release",
            WarningKind::UnprotectedSection { .. } => "unprotected-section",
            WarningKind::ReleaseWithoutAcquire { .. } => "release-without-acquire",
            WarningKind::EventAfterJoin { .. } => "event-after-join",
            WarningKind::EndWithoutBegin { .. } => "end-without-begin",
            WarningKind::Empty => "empty",
        }
    }
}

/// A warning and where it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{pos}: warning: {kind}")]
pub struct Warning {
    pub pos: Position,
    pub kind: WarningKind,
}
