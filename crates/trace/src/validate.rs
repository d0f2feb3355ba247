//! Streaming validation: errors that make a trace meaningless, and warnings for what real logs
//! do that the papers' models forbid (accepted with the usual vector-clock meaning).

use crate::error::{ErrorKind, Position, TraceError, Warning, WarningKind};
use crate::event::{Event, Op};
use crate::names::{LockId, Names, ThreadId};

/// How many warnings of one kind are kept word for word; the rest are only counted.
pub const KEPT_PER_KIND: usize = 10;

#[derive(Clone, Default)]
struct ThreadState {
    /// Seen, and not joined: its reads, writes, requests and calls need no check.
    quiet: bool,
    first_pos: Option<Position>,
    forked: bool,
    joined: bool,
    warned_after_join: bool,
    open_blocks: u64,
}

/// Checks each event as it streams past. Memory is bounded by the number of threads, locks and
/// messages.
pub struct Validator {
    strict: bool,
    threads: Vec<ThreadState>,
    root: Option<ThreadId>,
    /// Per lock, the threads holding it with their re-entrancy counts. Out-of-order logs can make
    /// two threads hold one lock at once, so this is a list, almost always of length 0 or 1.
    holders: Vec<Vec<(ThreadId, u32)>>,
    sent: Vec<bool>,
    /// Joins of threads not seen yet: an error at the end if they never appear.
    pending_joins: Vec<(ThreadId, ThreadId, Position)>,
    warnings: Vec<Warning>,
    warning_counts: Vec<(&'static str, u64)>,
    lock_violation: Option<Warning>,
}

impl Validator {
    /// With `strict`, every warning is an error.
    pub fn new(strict: bool) -> Validator {
        Validator {
            strict,
            threads: Vec::new(),
            root: None,
            holders: Vec::new(),
            sent: Vec::new(),
            pending_joins: Vec::new(),
            warnings: Vec::new(),
            warning_counts: Vec::new(),
            lock_violation: None,
        }
    }

    fn thread(&mut self, t: ThreadId) -> &mut ThreadState {
        if t.index() >= self.threads.len() {
            self.threads.resize(t.index() + 1, ThreadState::default());
        }
        &mut self.threads[t.index()]
    }

    /// Records a warning as the validator's own are recorded (counted, kept up to
    /// [`KEPT_PER_KIND`] of its kind, an error under `strict`): those of the repair in front
    /// of it come in this way.
    pub fn warn(&mut self, pos: Position, kind: WarningKind) -> Result<(), TraceError> {
        if self.strict {
            return Err(TraceError::new(pos, ErrorKind::Strict(kind)));
        }
        let code = kind.code();
        let count = match self.warning_counts.iter_mut().find(|(c, _)| *c == code) {
            Some((_, n)) => n,
            None => {
                self.warning_counts.push((code, 0));
                &mut self.warning_counts.last_mut().expect("just pushed").1
            }
        };
        *count += 1;
        if *count as usize <= KEPT_PER_KIND {
            self.warnings.push(Warning { pos, kind });
        }
        Ok(())
    }

    /// Checks one event; `pos` is where it stands in its file.
    #[inline]
    pub fn check(&mut self, e: &Event, pos: Position, names: &Names) -> Result<(), TraceError> {
        let quiet = self.threads.get(e.thread.index()).is_some_and(|s| s.quiet);
        if quiet {
            // Seen and not joined: `check_event` would change nothing in the thread's state,
            // only the operation needs a look.
            match e.op {
                Op::Read(_) | Op::Write(_) | Op::Request(_) | Op::Call(_) => return Ok(()),
                Op::Acquire(l) => return self.acquire(e.thread, l, pos, names),
                Op::Release(l) => return self.release(e.thread, l, pos, names),
                _ => {}
            }
        }
        self.check_event(e, pos, names)
    }

    /// Checks a call by `thread`, as [`Self::check`] checks one: what a call does is no
    /// concern of validation, only who makes it.
    #[inline]
    pub fn check_call(
        &mut self,
        thread: ThreadId,
        pos: Position,
        names: &Names,
    ) -> Result<(), TraceError> {
        let quiet = self.threads.get(thread.index()).is_some_and(|s| s.quiet);
        if quiet {
            return Ok(());
        }
        self.check_thread(thread, pos, names)
    }

    /// What any event by `t` tells of `t`: the thread's first appearance, and events after
    /// its join.
    #[inline]
    fn check_thread(
        &mut self,
        t: ThreadId,
        pos: Position,
        names: &Names,
    ) -> Result<(), TraceError> {
        if self.root.is_none() {
            self.root = Some(t);
        }
        let state = self.thread(t);
        if state.first_pos.is_none() {
            state.first_pos = Some(pos);
        }
        state.quiet = !state.joined;
        if state.joined && !state.warned_after_join {
            state.warned_after_join = true;
            let thread = names.thread(t).to_owned();
            self.warn(pos, WarningKind::EventAfterJoin { thread })?;
        }
        Ok(())
    }

    fn check_event(&mut self, e: &Event, pos: Position, names: &Names) -> Result<(), TraceError> {
        let t = e.thread;
        let tname = || names.thread(t).to_owned();
        self.check_thread(t, pos, names)?;
        match &e.op {
            Op::Acquire(l) => self.acquire(t, *l, pos, names)?,
            Op::Release(l) => self.release(t, *l, pos, names)?,
            Op::Fork(u) | Op::Join(u) if *u == t => {
                return Err(TraceError::new(
                    pos,
                    ErrorKind::SelfForkJoin {
                        thread: tname(),
                        op: e.op.mnemonic(),
                    },
                ))
            }
            Op::Fork(u) => {
                let child = self.thread(*u);
                let (twice, early) = (child.forked, child.first_pos.is_some());
                child.forked = true;
                let thread = names.thread(*u).to_owned();
                if twice {
                    self.warn(pos, WarningKind::ForkedTwice { thread })?;
                } else if early && Some(*u) != self.root {
                    self.warn(pos, WarningKind::EventBeforeFork { thread })?;
                }
            }
            Op::Join(u) => {
                let child = self.thread(*u);
                child.joined = true;
                child.quiet = false;
                if child.first_pos.is_none() && !child.forked {
                    self.pending_joins.push((t, *u, pos));
                }
            }
            Op::Send(m) => {
                if m.index() >= self.sent.len() {
                    self.sent.resize(m.index() + 1, false);
                }
                self.sent[m.index()] = true;
            }
            Op::Receive(m) => {
                if !self.sent.get(m.index()).copied().unwrap_or(false) {
                    return Err(TraceError::new(
                        pos,
                        ErrorKind::ReceiveNeverSent {
                            thread: tname(),
                            msg: names.msg(*m).to_owned(),
                        },
                    ));
                }
            }
            Op::Begin(_) => self.thread(t).open_blocks += 1,
            Op::End => {
                let state = self.thread(t);
                if state.open_blocks == 0 {
                    self.warn(pos, WarningKind::EndWithoutBegin { thread: tname() })?;
                } else {
                    state.open_blocks -= 1;
                }
            }
            Op::Read(_)
            | Op::Write(_)
            | Op::AtomicLoad(_)
            | Op::AtomicStore(_)
            | Op::AtomicRmw(_)
            | Op::Request(_)
            | Op::Call(_) => {}
        }
        Ok(())
    }

    fn release(
        &mut self,
        t: ThreadId,
        l: LockId,
        pos: Position,
        names: &Names,
    ) -> Result<(), TraceError> {
        let held = self.holders.get_mut(l.index()).and_then(|hs| {
            let i = hs.iter().position(|&(h, _)| h == t)?;
            hs[i].1 -= 1;
            if hs[i].1 == 0 {
                hs.swap_remove(i);
            }
            Some(())
        });
        if held.is_some() {
            return Ok(());
        }
        let (thread, lock) = (names.thread(t).to_owned(), names.lock(l).to_owned());
        if self.strict {
            return Err(TraceError::new(
                pos,
                ErrorKind::ReleaseNotHeld { thread, lock },
            ));
        }
        // Reaches here only from a stream read as logged (no tolerance in front): the
        // release is kept, with its vector-clock meaning (later acquires of the lock are
        // ordered after it), as RAPID reads it.
        let w = WarningKind::ReleaseWithoutAcquire {
            thread,
            lock,
            treatment: "read as logged (later acquires of the lock are ordered after it)",
        };
        if self.lock_violation.is_none() {
            self.lock_violation = Some(Warning {
                pos,
                kind: w.clone(),
            });
        }
        self.warn(pos, w)
    }

    fn acquire(
        &mut self,
        t: ThreadId,
        l: LockId,
        pos: Position,
        names: &Names,
    ) -> Result<(), TraceError> {
        if l.index() >= self.holders.len() {
            self.holders.resize_with(l.index() + 1, Vec::new);
        }
        let hs = &mut self.holders[l.index()];
        if let Some(entry) = hs.iter_mut().find(|(h, _)| *h == t) {
            entry.1 += 1; // re-entrant acquisition by the holder
            return Ok(());
        }
        let other = hs.first().map(|&(h, _)| h);
        hs.push((t, 1));
        if let Some(holder) = other {
            let w = WarningKind::AcquireHeld {
                thread: names.thread(t).to_owned(),
                lock: names.lock(l).to_owned(),
                holder: names.thread(holder).to_owned(),
            };
            if self.lock_violation.is_none() {
                self.lock_violation = Some(Warning {
                    pos,
                    kind: w.clone(),
                });
            }
            self.warn(pos, w)?;
        }
        Ok(())
    }

    /// Checks what can only be known at the end of the trace.
    pub fn finish(&mut self, names: &Names) -> Result<(), TraceError> {
        for &(t, u, pos) in &self.pending_joins {
            let s = &self.threads[u.index()];
            if s.first_pos.is_none() && !s.forked {
                return Err(TraceError::new(
                    pos,
                    ErrorKind::JoinUnknownThread {
                        thread: names.thread(t).to_owned(),
                        target: names.thread(u).to_owned(),
                    },
                ));
            }
        }
        let never_forked: Vec<(usize, Position)> = self
            .threads
            .iter()
            .enumerate()
            .filter(|(i, s)| !s.forked && Some(ThreadId(*i as u32)) != self.root)
            .filter_map(|(i, s)| Some((i, s.first_pos?)))
            .collect();
        for (i, pos) in never_forked {
            let thread = names.thread(ThreadId(i as u32)).to_owned();
            self.warn(pos, WarningKind::NeverForked { thread })?;
        }
        if self.root.is_none() {
            self.warn(Position::File, WarningKind::Empty)?;
        }
        Ok(())
    }

    /// The warnings kept word for word (at most [`KEPT_PER_KIND`] of each kind).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// How many warnings of each kind were raised, by [`WarningKind::code`].
    pub fn warning_counts(&self) -> &[(&'static str, u64)] {
        &self.warning_counts
    }

    /// The first acquisition of a lock held by another thread, or release of one not held,
    /// if any: analyses whose theory needs lock-valid traces refuse the trace with it (a
    /// stream tolerated by [`crate::LockRepair`] has none).
    pub fn lock_violation(&self) -> Option<&Warning> {
        self.lock_violation.as_ref()
    }
}
