//! The recording session: per-thread event buffers, the global order, names, and writing the
//! `.hst` file. Every wrapper type calls into this module at the moment its operation takes
//! effect; it knows nothing of which wrapper called it.
//!
//! # Why the global order respects happens-before
//!
//! Each event takes a sequence number from one counter (`Session::seq`, a `fetch_add`) at the
//! moment its operation takes effect, and the trace is written sorted by that number. All
//! `fetch_add`s on one atomic are totally ordered (its modification order), and that order is
//! consistent with happens-before (C++/Rust coherence: if A happens before B, B's read-modify-
//! write reads a value at least as new as A's). So it suffices that every happens-before edge of
//! the program runs from one sequence-number draw to a later one:
//! - program order: a thread's draws are sequenced one after another;
//! - locks: an acquire draws *after* the real lock is obtained, a release draws *before* the
//!   real unlock, so `rel` of one critical section precedes `acq` of the next;
//! - fork/join: `fork` draws before the real spawn, the child's first event after it starts;
//!   the child's last event draws before it finishes, `join` after the real join returns;
//! - messages: `snd` draws before the real send, `rcv` after the real receive returns;
//! - atomics and traced collections: the operation and its draw happen under one internal lock
//!   (recording builds only), so the trace order of operations on one object is their real
//!   order and a call's recorded result is the one that order produces.
//!
//! Relaxed ordering suffices for the counter: coherence holds for relaxed RMWs too, and the
//! happens-before edges come from the program's own synchronization.
//!
//! Buffers are per thread (no lock on the hot path); a full buffer, a finishing thread (also one
//! that panics: the flush runs in a drop guard) and [`Recorder::finish`] move them to the
//! session, which merges them by sequence number when it writes the file.

use super::buffer::{Chunk, Merge};
use crate::value::TraceValue;
use hindsight_trace::{
    BinaryWriter, Call, Event, NameKind, Names, Op, OutputFile, ThreadId, Value,
};
use hindsight_trace::{LocId, LockId, MsgId, ObjId, SymId, VarId};
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::cell::RefCell;
use std::io;
use std::panic::Location;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex, PoisonError};

/// The names of one session, and the state that makes them unique and stable.
pub(crate) struct NameTable {
    names: Names,
    /// Threads that recorded without being spawned through this crate (the first is `main`).
    unregistered: u32,
}

impl NameTable {
    /// Interns `name` as a new name of `kind`, suffixed `#2`, `#3`, ... if it is taken, so
    /// that two objects never share an id.
    fn fresh(&mut self, kind: NameKind, name: &str) -> u32 {
        let interner = self.names.of_mut(kind);
        if interner.lookup(name).is_none() {
            return interner.intern(name.as_bytes()).expect("a &str is UTF-8");
        }
        (2u32..)
            .find_map(|k| {
                let candidate = format!("{name}#{k}");
                match interner.lookup(&candidate) {
                    Some(_) => None,
                    None => Some(interner.intern(candidate.as_bytes()).expect("UTF-8")),
                }
            })
            .expect("some suffix is free")
    }

    pub(crate) fn symbol(&mut self, s: &str) -> SymId {
        SymId(self.names.symbols.intern(s.as_bytes()).expect("UTF-8"))
    }
}

/// The sequence counter on a cache line of its own: every event of every thread writes it,
/// and nothing else should move with it.
#[repr(align(128))]
struct Counter(AtomicU64);

pub(crate) struct Session {
    /// Distinguishes this session from earlier ones in the same process (never 0).
    gen: u32,
    path: PathBuf,
    /// Where the trace is written at the end: made at the start, so that a path that cannot
    /// be written fails before the program runs, and renamed into place only once complete,
    /// so that an earlier trace at the path survives a recording that does not finish.
    out: StdMutex<Option<OutputFile>>,
    seq: Counter,
    names: StdMutex<NameTable>,
    chunks: StdMutex<Vec<Chunk>>,
    /// Message ids handed out, for unique message names.
    messages: AtomicU64,
}

/// The generation of the active session; 0 when nothing records. Checked first by every
/// wrapper, so that a program not recording pays one relaxed load per operation.
static ACTIVE_GEN: AtomicU32 = AtomicU32::new(0);
static NEXT_GEN: AtomicU32 = AtomicU32::new(1);
static ACTIVE: StdMutex<Option<Arc<Session>>> = StdMutex::new(None);

fn lock<T>(m: &StdMutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while a recorder lock was held left consistent data (each critical section is a
    // single push or intern): keep recording.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether a session is recording. Wrappers skip all recording work when it is not.
#[inline(always)]
pub(crate) fn active() -> bool {
    ACTIVE_GEN.load(Ordering::Relaxed) != 0
}

/// A thread's view of the session: its id, its buffer, its location cache.
pub(crate) struct Local {
    session: Arc<Session>,
    /// `session.gen`, kept here: reading it through the `Arc` would touch the session on
    /// every event.
    gen: u32,
    thread: ThreadId,
    name: String,
    children: u32,
    buf: Chunk,
    /// Interned source locations, keyed by the address of the `Location` (one static per
    /// call site; a site whose static is duplicated is looked up once per copy and interned
    /// once by its text).
    locs: FxHashMap<usize, LocId>,
    /// The last location looked up: loops record from the same few sites.
    last_loc: (usize, LocId),
}

impl Local {
    fn new(session: Arc<Session>, thread: ThreadId, name: String) -> Local {
        Local {
            gen: session.gen,
            session,
            thread,
            name,
            children: 0,
            buf: Chunk::new(thread),
            locs: FxHashMap::default(),
            last_loc: (0, LocId(0)),
        }
    }

    #[inline]
    fn loc(&mut self, loc: &'static Location<'static>) -> LocId {
        let key = loc as *const Location<'static> as usize;
        if self.last_loc.0 == key {
            return self.last_loc.1;
        }
        let id = match self.locs.get(&key) {
            Some(&id) => id,
            None => self.intern_loc(key, loc),
        };
        self.last_loc = (key, id);
        id
    }

    #[cold]
    fn intern_loc(&mut self, key: usize, loc: &'static Location<'static>) -> LocId {
        let text = format!("{}:{}:{}", loc.file(), loc.line(), loc.column());
        let id = LocId(
            lock(&self.session.names)
                .names
                .locations
                .intern(text.as_bytes())
                .expect("UTF-8"),
        );
        self.locs.insert(key, id);
        id
    }

    /// Records `op` now: the sequence number is drawn here.
    #[inline]
    pub(crate) fn push(&mut self, op: Op, loc: Option<&'static Location<'static>>) {
        let loc = loc.map(|l| self.loc(l));
        let seq = self.session.seq.0.fetch_add(1, Ordering::Relaxed);
        self.buf.push(seq, op, loc);
        if self.buf.is_full() {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        let full = std::mem::replace(&mut self.buf, Chunk::new(self.thread));
        lock(&self.session.chunks).push(full);
    }

    pub(crate) fn names(&self) -> std::sync::MutexGuard<'_, NameTable> {
        lock(&self.session.names)
    }

    #[inline]
    pub(crate) fn gen(&self) -> u32 {
        self.gen
    }

    pub(crate) fn thread(&self) -> ThreadId {
        self.thread
    }

    /// A new message id, named after `label`.
    pub(crate) fn message(&mut self, label: &str) -> MsgId {
        let n = self.session.messages.fetch_add(1, Ordering::Relaxed);
        let name = format!("{label}/{n}");
        MsgId(
            self.names()
                .names
                .msgs
                .intern(name.as_bytes())
                .expect("UTF-8"),
        )
    }
}

impl Drop for Local {
    /// Threads not spawned through this crate hand over their buffer when they exit.
    fn drop(&mut self) {
        self.flush();
    }
}

thread_local! {
    static LOCAL: RefCell<Option<Local>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's view of the active session, registering the thread if it has
/// none; `None` when nothing records (or during thread teardown).
#[inline]
pub(crate) fn with_local<R>(f: impl FnOnce(&mut Local) -> R) -> Option<R> {
    let gen = ACTIVE_GEN.load(Ordering::Acquire);
    if gen == 0 {
        return None;
    }
    LOCAL
        .try_with(|cell| {
            let mut slot = cell.try_borrow_mut().ok()?;
            if slot.as_ref().is_none_or(|l| l.gen != gen) {
                let session = lock(&ACTIVE).clone()?;
                if session.gen != gen {
                    return None;
                }
                let (thread, name) = {
                    let mut t = lock(&session.names);
                    t.unregistered += 1;
                    let name = if t.unregistered == 1 {
                        "main".to_owned()
                    } else {
                        format!("thread{}", t.unregistered - 1)
                    };
                    (ThreadId(t.fresh(NameKind::Thread, &name)), name)
                };
                *slot = Some(Local::new(session, thread, name));
            }
            Some(f(slot.as_mut().expect("set above")))
        })
        .ok()
        .flatten()
}

/// How an object of the program is named in the trace: by the user, or by where it was
/// created. Its id is resolved on first use in each session and cached.
pub(crate) struct ObjName {
    /// `gen << 32 | id` of the session that last resolved it.
    cached: AtomicU64,
    label: Label,
}

enum Label {
    Site(&'static Location<'static>),
    Name(Box<str>),
}

impl ObjName {
    pub(crate) const fn site(loc: &'static Location<'static>) -> ObjName {
        ObjName {
            cached: AtomicU64::new(0),
            label: Label::Site(loc),
        }
    }

    pub(crate) fn rename(&mut self, name: &str) {
        self.label = Label::Name(name.into());
        *self.cached.get_mut() = 0;
    }

    /// The label as a name: the given one, or `file.rs:LINE` of the creation site.
    pub(crate) fn label(&self) -> Cow<'_, str> {
        match &self.label {
            Label::Name(n) => Cow::Borrowed(n),
            Label::Site(loc) => {
                let file = loc.file();
                let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
                Cow::Owned(format!("{base}:{}", loc.line()))
            }
        }
    }

    /// The id of this object in the session `l` records to.
    #[inline]
    pub(crate) fn id(&self, kind: NameKind, l: &Local) -> u32 {
        let c = self.cached.load(Ordering::Relaxed);
        if (c >> 32) as u32 == l.gen() {
            return c as u32;
        }
        self.resolve(kind, l)
    }

    #[cold]
    fn resolve(&self, kind: NameKind, l: &Local) -> u32 {
        let mut t = l.names();
        // Re-check under the lock: another thread may have resolved it meanwhile.
        let c = self.cached.load(Ordering::Relaxed);
        if (c >> 32) as u32 == l.gen() {
            return c as u32;
        }
        let id = t.fresh(kind, &self.label());
        self.cached
            .store(u64::from(l.gen()) << 32 | u64::from(id), Ordering::Relaxed);
        id
    }

    pub(crate) fn var(&self, l: &Local) -> VarId {
        VarId(self.id(NameKind::Var, l))
    }
    pub(crate) fn lock(&self, l: &Local) -> LockId {
        LockId(self.id(NameKind::Lock, l))
    }
    pub(crate) fn msg(&self, l: &Local) -> MsgId {
        MsgId(self.id(NameKind::Msg, l))
    }
    pub(crate) fn object(&self, l: &Local) -> ObjId {
        ObjId(self.id(NameKind::Object, l))
    }
}

/// Records `call(object.method(args)/results)`.
pub(crate) fn record_call(
    l: &mut Local,
    object: &ObjName,
    method: &str,
    args: &[TraceValue<'_>],
    results: &[TraceValue<'_>],
    loc: &'static Location<'static>,
) {
    let object = object.object(l);
    let call = {
        let mut t = l.names();
        let mut value = |v: &TraceValue<'_>| match v {
            TraceValue::Int(i) => Value::Int(*i),
            TraceValue::Nil => Value::Nil,
            TraceValue::Sym(s) => Value::Sym(t.symbol(s)),
            TraceValue::Str(s) => Value::Str(t.symbol(s)),
        };
        let args = args.iter().map(&mut value).collect();
        let results = results.iter().map(&mut value).collect();
        Call {
            object,
            method: t.symbol(method),
            args,
            results,
        }
    };
    l.push(Op::Call(Box::new(call)), Some(loc));
}

/// What the parent hands a thread it spawns.
pub(crate) struct ChildStart {
    session: Arc<Session>,
    thread: ThreadId,
    name: String,
}

/// A spawned thread's identity in the trace, for the `join`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChildId {
    gen: u32,
    thread: ThreadId,
}

/// Names the next child of this thread (`parent.k`, stable across runs since a thread spawns
/// its children in program order, or the name given to `thread::Builder`) and records
/// `fork(child)`.
pub(crate) fn fork(
    loc: &'static Location<'static>,
    given: Option<&str>,
) -> Option<(ChildStart, ChildId)> {
    if !active() {
        return None;
    }
    with_local(|l| {
        l.children += 1;
        let name = match given {
            Some(n) => n.to_owned(),
            None => format!("{}.{}", l.name, l.children),
        };
        let thread = ThreadId(l.names().fresh(NameKind::Thread, &name));
        l.push(Op::Fork(thread), Some(loc));
        (
            ChildStart {
                session: l.session.clone(),
                thread,
                name,
            },
            ChildId {
                gen: l.gen(),
                thread,
            },
        )
    })
}

/// Records `join(child)` if the child belongs to the session still recording.
pub(crate) fn join(child: Option<ChildId>, loc: &'static Location<'static>) {
    if let Some(c) = child {
        with_local(|l| {
            if l.gen() == c.gen {
                l.push(Op::Join(c.thread), Some(loc));
            }
        });
    }
}

/// Installed in a spawned thread for the duration of its closure; its drop (which runs when
/// the closure returns *or unwinds*) hands the thread's events to the session before the
/// thread can be joined, so nothing recorded is lost when a thread panics.
pub(crate) struct ChildGuard(());

pub(crate) fn enter_child(start: Option<ChildStart>) -> Option<ChildGuard> {
    let start = start?;
    LOCAL
        .try_with(|cell| {
            *cell.borrow_mut() = Some(Local::new(start.session, start.thread, start.name));
        })
        .ok()?;
    Some(ChildGuard(()))
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = LOCAL.try_with(|cell| {
            if let Ok(mut slot) = cell.try_borrow_mut() {
                // Dropping the local flushes it.
                slot.take();
            }
        });
    }
}

/// What a finished recording wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub path: PathBuf,
    pub events: u64,
    pub threads: usize,
}

/// An explicit handle on a recording: [`Recorder::start`] begins recording every traced
/// operation of the process, [`Recorder::finish`] (or dropping the handle) writes the trace.
/// One recording is active at a time.
pub struct Recorder {
    session: Option<Arc<Session>>,
}

impl Recorder {
    /// Starts recording to `path` (binary `.hst` format), with the calling thread as `main`.
    pub fn start(path: impl AsRef<Path>) -> io::Result<Recorder> {
        let path = path.as_ref().to_path_buf();
        let mut active = lock(&ACTIVE);
        if active.is_some() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "a hindsight recording is already active in this process",
            ));
        }
        let out = OutputFile::create(&path, &[])?;
        let gen = NEXT_GEN.fetch_add(1, Ordering::Relaxed);
        let mut table = NameTable {
            names: Names::default(),
            unregistered: 1,
        };
        let main = ThreadId(table.fresh(NameKind::Thread, "main"));
        let session = Arc::new(Session {
            gen,
            path,
            out: StdMutex::new(Some(out)),
            seq: Counter(AtomicU64::new(0)),
            names: StdMutex::new(table),
            chunks: StdMutex::new(Vec::new()),
            messages: AtomicU64::new(0),
        });
        *active = Some(session.clone());
        let registered = LOCAL.try_with(|cell| {
            *cell.borrow_mut() = Some(Local::new(session.clone(), main, "main".to_owned()));
        });
        if registered.is_err() {
            *active = None;
            return Err(io::Error::other("thread-local storage is being torn down"));
        }
        ACTIVE_GEN.store(gen, Ordering::Release);
        Ok(Recorder {
            session: Some(session),
        })
    }

    /// Starts recording to the path in `HINDSIGHT_TRACE`, if it is set and non-empty.
    pub fn from_env() -> io::Result<Option<Recorder>> {
        match std::env::var_os("HINDSIGHT_TRACE") {
            Some(p) if !p.is_empty() => Recorder::start(PathBuf::from(p)).map(Some),
            _ => Ok(None),
        }
    }

    /// Stops recording and writes the trace. Events of threads still running (not joined) are
    /// written up to their last buffer hand-over; later ones are dropped.
    pub fn finish(mut self) -> io::Result<Summary> {
        let session = self.session.take().expect("finished once");
        finish_session(session)
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if let Some(session) = self.session.take() {
            if let Err(e) = finish_session(session) {
                eprintln!("hindsight-record: cannot write the trace: {e}");
            }
        }
    }
}

fn finish_session(session: Arc<Session>) -> io::Result<Summary> {
    // The calling thread's events first: it is usually `main`, which never exits through a
    // spawn guard.
    let _ = LOCAL.try_with(|cell| {
        if let Ok(mut slot) = cell.try_borrow_mut() {
            if slot.as_ref().is_some_and(|l| l.session.gen == session.gen) {
                slot.take();
            }
        }
    });
    {
        let mut active = lock(&ACTIVE);
        ACTIVE_GEN.store(0, Ordering::Release);
        *active = None;
    }
    let chunks = std::mem::take(&mut *lock(&session.chunks));
    let table = lock(&session.names);
    let out = lock(&session.out)
        .take()
        .expect("a session is finished once");
    let mut writer = BinaryWriter::new(out)?;
    let mut event = Event::new(0, ThreadId(0), Op::End);
    let mut events = 0u64;
    for (thread, op, loc) in Merge::new(chunks) {
        event.index = events;
        event.thread = thread;
        event.op = op;
        event.loc = loc;
        writer.write_event(&event, &table.names)?;
        events += 1;
    }
    writer.finish()?.commit()?;
    Ok(Summary {
        path: session.path.clone(),
        events,
        threads: table.names.threads.len(),
    })
}

/// Returned by [`crate::init`]: writes the trace when dropped, which happens at the end of
/// `main` and also when `main` unwinds from a panic.
pub struct TraceGuard {
    recorder: Option<Recorder>,
}

impl TraceGuard {
    /// Writes the trace now; `None` if nothing was recording.
    pub fn finish(mut self) -> Option<io::Result<Summary>> {
        self.recorder.take().map(Recorder::finish)
    }
}

impl Drop for TraceGuard {
    fn drop(&mut self) {
        if let Some(r) = self.recorder.take() {
            match r.finish() {
                Ok(s) => eprintln!(
                    "hindsight-record: {} events of {} threads written to {}",
                    s.events,
                    s.threads,
                    s.path.display()
                ),
                Err(e) => eprintln!("hindsight-record: cannot write the trace: {e}"),
            }
        }
    }
}

/// Starts recording if `HINDSIGHT_TRACE` names a file; keep the guard alive until the end of
/// `main` (`let _trace = hindsight_record::init();`).
pub fn init() -> TraceGuard {
    let recorder = match Recorder::from_env() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("hindsight-record: not recording: {e}");
            None
        }
    };
    TraceGuard { recorder }
}
