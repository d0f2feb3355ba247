//! WCP as the paper's Algorithm 1 states it, nothing dropped (feature `oracle`): every
//! section's clocks kept for every thread, rule (a)'s clocks joined per (lock, variable). The
//! reference [`crate::wcp`] must answer exactly as, on any lock-valid trace: the property tests
//! run both (`tests/wcp_pruning.rs`). It reports every racy event, with its partner, and nothing
//! else (no witnesses, no summary).

use crate::accesses::{Accesses, Nesting};
use crate::found::{Found, Race};
use hindsight_order::{HappensBefore, VectorClock};
use hindsight_stream::driver::Observer;
use hindsight_stream::groups::Granularity;
use hindsight_trace::{ErrorKind, Event, LockId, Names, Op, ThreadId, VarId};
use rustc_hash::FxHashMap;

/// Where a clock lies in a lock's arena.
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    start: u32,
    len: u32,
}

/// A section of a lock, as rule (b) needs it, its clocks in the lock's arena.
#[derive(Clone, Copy, Debug)]
struct Section {
    thread: ThreadId,
    /// `C` at the acquire.
    acquired: Span,
    /// `H` at the release (`None` while the section is open).
    released: Option<Span>,
}

#[derive(Default)]
struct LockState {
    h: VectorClock,
    p: VectorClock,
    /// Every section of the lock: a thread's releases may still need any section it has not
    /// consumed, and a thread forked later starts from the first. Their clocks live in
    /// `arena`, so that a section costs no allocation of its own.
    sections: Vec<Section>,
    arena: Vec<u32>,
    /// Per thread, the index of the next section its releases look at.
    cursor: Vec<usize>,
}

/// A lock a thread holds, with the variables its section read and wrote so far (each once).
#[derive(Default)]
struct Held {
    lock: LockId,
    reads: Vec<VarId>,
    writes: Vec<VarId>,
}

/// The reference WCP analysis.
pub struct WcpQueues {
    h: Vec<VectorClock>,
    p: Vec<VectorClock>,
    /// Per thread, the locks it holds (the first `depth` entries; the others are kept for
    /// their buffers).
    held: Vec<Vec<Held>>,
    depth: Vec<usize>,
    /// Scratch for `C` clocks.
    scratch: VectorClock,
    /// Scratch for the components of a clock, read or stored at every acquire and release.
    components: Vec<u32>,
    locks: Vec<LockState>,
    /// Rule (a)'s clocks: per (lock, variable), the join of the `H` clocks of releases of the
    /// sections that read it, and of those that wrote it.
    read_in: FxHashMap<(LockId, VarId), VectorClock>,
    written_in: FxHashMap<(LockId, VarId), VectorClock>,
    messages: Vec<VectorClock>,
    /// Per variable, the `H` and `C` clocks of its latest atomic access (see `atomic_order`).
    atomics: Vec<(VectorClock, VectorClock)>,
    accesses: Accesses,
    nesting: Nesting,
    found: Found,
}

impl Default for WcpQueues {
    fn default() -> WcpQueues {
        WcpQueues::new()
    }
}

impl WcpQueues {
    pub fn new() -> WcpQueues {
        WcpQueues {
            h: Vec::new(),
            p: Vec::new(),
            held: Vec::new(),
            depth: Vec::new(),
            scratch: VectorClock::new(),
            components: Vec::new(),
            locks: Vec::new(),
            read_in: FxHashMap::default(),
            written_in: FxHashMap::default(),
            messages: Vec::new(),
            atomics: Vec::new(),
            accesses: Accesses::default(),
            nesting: Nesting::default(),
            found: Found::new("wcp", Granularity::EveryEvent, false),
        }
    }

    /// Every racy event so far, with its partner.
    pub fn races(&self) -> &[Race] {
        self.found.races()
    }

    fn thread(&mut self, t: ThreadId) {
        while self.h.len() <= t.index() {
            let id = ThreadId(self.h.len() as u32);
            self.h.push(VectorClock::for_new_thread(id));
            self.p.push(VectorClock::new());
            self.held.push(Vec::new());
            self.depth.push(0);
        }
    }

    /// `C_t`: `P_t` with `t`'s own component from `H_t`.
    fn c(&self, t: ThreadId) -> VectorClock {
        let mut c = self.p[t.index()].clone();
        c.set(t, self.h[t.index()].get(t));
        c
    }

    /// `C_t`, into `into`.
    fn c_into(&self, t: ThreadId, into: &mut VectorClock) {
        into.copy_from(&self.p[t.index()]);
        into.set(t, self.h[t.index()].get(t));
    }

    fn lock(&mut self, l: LockId) -> &mut LockState {
        if l.index() >= self.locks.len() {
            self.locks.resize_with(l.index() + 1, LockState::default);
        }
        &mut self.locks[l.index()]
    }

    /// A plain access, or with `atomic` an atomic one: it conflicts (rule (a) orders the
    /// sections around it, as the value it reads or writes must be kept) but never races. An
    /// RMW comes here as a write: it conflicts with every access of its variable.
    fn access(&mut self, e: &Event, x: VarId, write: bool, atomic: bool, hb: &HappensBefore) {
        let t = e.thread;
        // Rule (a): the release of an earlier section of a held lock that conflicts with this
        // access is ordered before it.
        let depth = self.depth[t.index()];
        for held in &mut self.held[t.index()][..depth] {
            let key = (held.lock, x);
            if let Some(w) = self.written_in.get(&key) {
                self.p[t.index()].join(w);
            }
            if write {
                if let Some(r) = self.read_in.get(&key) {
                    self.p[t.index()].join(r);
                }
                if !held.writes.contains(&x) {
                    held.writes.push(x);
                }
            } else if !held.reads.contains(&x) {
                held.reads.push(x);
            }
        }
        if atomic {
            self.atomic_order(t, x);
            return;
        }
        let (h, p) = (&self.h[t.index()], &self.p[t.index()]);
        let own = h.get(t);
        let ordered = |u: ThreadId| if u == t { own } else { p.get(u) };
        if let Some(race) = self.accesses.check(x, write, e, hb, ordered) {
            self.found.found(race);
        }
        self.accesses.record(x, write, e, hb, own);
    }

    /// Orders every atomic access of `x` after the previous one, in `H` and in WCP. Atomics
    /// never race, and WCP has no reads-from edge: without this, plain data published through
    /// an atomic would be reported although no correct reordering separates it (the write an
    /// atomic load sees is kept). A trace whose atomic accesses are each a one-event critical
    /// section of a lock of their variable is one where they cannot race, and has the same
    /// correct reorderings; WCP on it orders at most what this orders, so a pair left unordered
    /// here is a WCP race of that trace, and weak soundness carries over.
    fn atomic_order(&mut self, t: ThreadId, x: VarId) {
        if x.index() >= self.atomics.len() {
            self.atomics.resize_with(x.index() + 1, Default::default);
        }
        let (h, c) = &self.atomics[x.index()];
        self.h[t.index()].join(h);
        self.p[t.index()].join(c);
        let (h, c) = (self.h[t.index()].clone(), self.c(t));
        self.atomics[x.index()] = (h, c);
        self.h[t.index()].increment(t);
    }

    fn acquire(&mut self, t: ThreadId, l: LockId) {
        self.lock(l);
        let state = &self.locks[l.index()];
        self.h[t.index()].join(&state.h);
        self.p[t.index()].join(&state.p);
        let mut c = std::mem::take(&mut self.scratch);
        self.c_into(t, &mut c);
        let state = &mut self.locks[l.index()];
        c.copy_components_into(&mut self.components);
        let acquired = push_clock(&mut state.arena, &self.components);
        state.sections.push(Section {
            thread: t,
            acquired,
            released: None,
        });
        self.scratch = c;
        let (held, depth) = (&mut self.held[t.index()], &mut self.depth[t.index()]);
        if *depth == held.len() {
            held.push(Held::default());
        }
        let h = &mut held[*depth];
        h.lock = l;
        h.reads.clear();
        h.writes.clear();
        *depth += 1;
    }

    fn release(&mut self, t: ThreadId, l: LockId) {
        let mut c = std::mem::take(&mut self.scratch);
        self.c_into(t, &mut c);
        let p = &mut self.p[t.index()];
        let state = &mut self.locks[l.index()];
        if state.cursor.len() <= t.index() {
            state.cursor.resize(t.index() + 1, 0);
        }
        // Rule (b): an earlier section whose acquire is ordered before this release has its
        // release ordered before this one; the sections are consumed in order, as the
        // paper's queues are.
        let mut next = state.cursor[t.index()];
        let components = &mut self.components;
        while let Some(s) = state.sections.get(next) {
            let acquired = clock(&state.arena, s.acquired);
            let ordered = match s.released {
                // This thread's own open section: the one being released.
                None if s.thread == t => break,
                // Its own earlier section: thread order puts the acquire below `C_t`, so
                // whether it is WCP before this release is asked of `P_t`.
                Some(_) if s.thread == t => {
                    acquired.get(t.index()).copied().unwrap_or(0) <= p.get(t)
                }
                _ => {
                    c.copy_components_into(components);
                    leq(acquired, components)
                }
            };
            if !ordered {
                break;
            }
            if let Some(r) = s.released {
                // `C_t` grows with `P_t`: later sections are checked against both.
                join_into(p, clock(&state.arena, r));
                join_into(&mut c, clock(&state.arena, r));
            }
            next += 1;
        }
        state.cursor[t.index()] = next;
        self.scratch = c;
        let depth = self.depth[t.index()];
        let Some(i) = self.held[t.index()][..depth]
            .iter()
            .rposition(|h| h.lock == l)
        else {
            return;
        };
        // Keep the buffers of the popped entry at the end of the stack.
        self.held[t.index()][i..depth].rotate_left(1);
        self.depth[t.index()] = depth - 1;
        let held = &self.held[t.index()][depth - 1];
        let h = &self.h[t.index()];
        for (vars, into) in [
            (&held.reads, &mut self.read_in),
            (&held.writes, &mut self.written_in),
        ] {
            for &x in vars {
                into.entry((l, x)).or_default().join(h);
            }
        }
        let state = &mut self.locks[l.index()];
        state.h.copy_from(h);
        state.p.copy_from(&self.p[t.index()]);
        h.copy_components_into(&mut self.components);
        let released = push_clock(&mut state.arena, &self.components);
        if let Some(open) = state
            .sections
            .iter_mut()
            .rev()
            .find(|s| s.thread == t && s.released.is_none())
        {
            open.released = Some(released);
        }
        self.h[t.index()].increment(t);
    }
}

fn push_clock(arena: &mut Vec<u32>, c: &[u32]) -> Span {
    let span = Span {
        start: arena.len() as u32,
        len: c.len() as u32,
    };
    arena.extend_from_slice(c);
    span
}

fn clock(arena: &[u32], s: Span) -> &[u32] {
    &arena[s.start as usize..(s.start + s.len) as usize]
}

/// `a ⊑ b` for clocks held as component slices (missing components are zero).
fn leq(a: &[u32], b: &[u32]) -> bool {
    a.iter()
        .enumerate()
        .all(|(i, &x)| x <= b.get(i).copied().unwrap_or(0))
}

fn join_into(into: &mut VectorClock, c: &[u32]) {
    for (i, &x) in c.iter().enumerate() {
        let u = ThreadId(i as u32);
        if x > into.get(u) {
            into.set(u, x);
        }
    }
}

impl Observer for WcpQueues {
    fn name(&self) -> &'static str {
        "races"
    }

    fn needs_lock_valid(&self) -> bool {
        true
    }

    fn on_event(&mut self, e: &Event, hb: &HappensBefore, _: &Names) -> Result<(), ErrorKind> {
        let t = e.thread;
        self.thread(t);
        match e.op {
            Op::Read(x) => self.access(e, x, false, false, hb),
            Op::Write(x) => self.access(e, x, true, false, hb),
            Op::AtomicLoad(x) => self.access(e, x, false, true, hb),
            Op::AtomicStore(x) | Op::AtomicRmw(x) => self.access(e, x, true, true, hb),
            Op::Acquire(l) if self.nesting.acquire(t, l) => self.acquire(t, l),
            Op::Release(l) if self.nesting.release(t, l) => self.release(t, l),
            Op::Fork(u) => {
                self.thread(u);
                let h = self.h[t.index()].clone();
                self.h[u.index()].join(&h);
                self.p[u.index()].join(&h);
                self.h[t.index()].increment(t);
            }
            Op::Join(u) => {
                self.thread(u);
                let h = self.h[u.index()].clone();
                self.h[t.index()].join(&h);
                self.p[t.index()].join(&h);
                self.h[u.index()].increment(u);
            }
            Op::Send(m) => {
                let h = self.h[t.index()].clone();
                if m.index() >= self.messages.len() {
                    self.messages.resize_with(m.index() + 1, Default::default);
                }
                self.messages[m.index()] = h;
                self.h[t.index()].increment(t);
            }
            Op::Receive(m) => {
                if let Some(h) = self.messages.get(m.index()) {
                    self.h[t.index()].join(h);
                    self.p[t.index()].join(h);
                }
            }
            _ => {}
        }
        Ok(())
    }
}
