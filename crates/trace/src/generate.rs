//! Deterministic random generation of valid traces, for tests and benchmarks.
//!
//! [`generate`] simulates one interleaving of a lock-based program and streams its events to a
//! sink; memory is O(threads + vars + locks), never O(events), so it can emit hundreds of
//! millions of events. The same [`GenConfig`] always gives the same trace, on every platform.
//!
//! The simulated program:
//!
//! - `T0` is the main thread. It first forks `T1`..`T{n-1}`, and joins each of them at the end,
//!   once that thread has released its locks and closed its atomic block.
//! - At each step a random thread takes a random action valid for it: an access, an acquire, a
//!   release, or opening or closing an atomic block (`begin` / `end`, depth at most 1 per
//!   thread). A thread that wants a lock another thread holds waits, and the holder runs
//!   instead.
//! - Variable `x_i` is guarded by lock `L_(i mod locks)`. Threads access variables inside
//!   critical sections: an access is made under a guard the thread holds, except that with
//!   probability `unprotected` it goes to a uniformly random variable whatever the thread holds.
//!   With `locks == 0` or `max_depth == 0` every access is unprotected. Reads outnumber writes
//!   about 2:1.
//! - Locks are acquired in increasing index order (lock-order discipline) and released
//!   innermost first; a thread never holds more than `max_depth` of them. Locks `L_i` with
//!   `i >= vars` would guard nothing, so they are never acquired.
//! - Critical sections and atomic blocks nest properly within one thread: a lock acquired inside
//!   a block is released before the block's `end`.
//! - Every event has a source location, as if the simulated program were one file `gen.rs`
//!   whose code sites each event comes from. Sites depend on what the event does, never on the
//!   random draws of its interleaving, so that a race shows up again and again at the same pair
//!   of sites, as races of real programs do:
//!   - `fork` at `gen.rs:4` and `join` at `gen.rs:6` (the main thread's spawn and join loops);
//!   - accesses at `gen.rs:10` .. `gen.rs:73` (`sites`, 64 by default; more sites go on from
//!     `gen.rs:136`, after the block sites): each variable has one write site and two read
//!     sites, each shared with other variables;
//!   - `acq(L_i)` at `gen.rs:80 + 2 (i mod 16)` and `rel(L_i)` on the line after it (a
//!     critical section per lock, shared by locks 16 apart);
//!   - the `begin` of thread `T_i`'s atomic blocks at `gen.rs:120 + 2 (i mod 8)` and its `end`
//!     on the line after it.
//!
//! - With `per_request` set, a thread per request: once a thread has made that many events
//!   and holds no lock and no block, `T0` joins it and forks a new thread in its place (the
//!   next name), so that `threads - 1` requests run at a time, each short, and the trace has
//!   about `events / per_request` threads, as a server's that starts a thread per request.
//!
//! The trace has exactly `events` events. The closing events (releases, `end`s, joins) are
//! budgeted all along, and once the budget left equals what is needed to close everything, the
//! threads wind down in a random interleaving. If `events < 2 * (threads - 1)`, only
//! `events / 2` threads besides `T0` are forked (every forked thread is still joined), and the
//! other thread names never appear; when `unprotected` is 0 and that would leave room for a
//! single access, which could not be protected, one thread fewer is forked. The one exception to
//! "`unprotected == 0` means every access is protected" is a trace of exactly one event, which
//! can only be an access.

use crate::event::{Call, Event, Op, Value};
use crate::names::{Interner, LocId, LockId, Names, ObjId, SymId, ThreadId, VarId};
use crate::source::Trace;
use hindsight_rng::{Prob, SplitMix64};
use rustc_hash::FxHashMap;
use std::convert::Infallible;
use std::fmt::Write as _;

/// What to generate. Out-of-range values are tolerated: `threads` and `vars` of 0 count as 1,
/// fractions are clamped to `[0, 1]` (NaN counts as 0).
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Total events emitted, exactly, forks, joins, lock and block events included.
    pub events: u64,
    /// Number of threads, `T0` (main) .. `T{threads-1}`.
    pub threads: u32,
    /// Number of variables, `x0` ..
    pub vars: u32,
    /// Number of locks, `L0` ..; may be 0.
    pub locks: u32,
    /// Maximum number of locks a thread holds at once (0 = never acquire locks).
    pub max_depth: u32,
    /// Fraction of accesses made regardless of the locks held.
    pub unprotected: f64,
    /// Probability that a thread opens an atomic block at a step when it is not in one.
    pub blocks: f64,
    pub seed: u64,
    /// With `n > 0`, every access becomes an action on a dictionary instead: a read of `x_i`
    /// is `m_i.get(k)/v` (or now and then `m_i.size()/n`), a write is `m_i.put(k, v)/p`, over
    /// keys `0..n`, with results that a real dictionary would return in trace order (the
    /// workload of `hindsight commute --builtin map`). Taken as at most 65,536 (each dictionary
    /// keeps a dense table of its keys' values; the CLI refuses more).
    pub map_keys: u32,
    /// With `n > 0`, a server that starts a thread per request: once a thread other than `T0`
    /// has made `n` events and holds nothing, `T0` joins it and forks a new thread (the next
    /// unused name) in its place, so `threads - 1` requests are in flight at any time and the
    /// trace has about `events / n` threads.
    pub per_request: u32,
    /// Number of access sites (code lines that accesses or dictionary calls come from), 64 by
    /// default; 0 counts as 1. Each variable has one write site and two read sites among them,
    /// so `vars >= sites / 3` is needed for every site to be used.
    pub sites: u32,
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig {
            events: 1000,
            threads: 4,
            vars: 16,
            locks: 4,
            max_depth: 2,
            unprotected: 0.05,
            blocks: 0.0,
            seed: 0,
            map_keys: 0,
            per_request: 0,
            sites: DEFAULT_SITES,
        }
    }
}

/// Calls `sink` once per event, in trace order, with indices `0..config.events`. Names are
/// interned in `names` as they are first used (thread, then target, then location), exactly as
/// a reader of the written trace would intern them. Stops at the first error of `sink`.
pub fn generate<E>(
    config: &GenConfig,
    names: &mut Names,
    mut sink: impl FnMut(&Event, &Names) -> Result<(), E>,
) -> Result<(), E> {
    Gen::new(config, names).run(&mut sink)
}

/// Convenience for tests: the whole trace in memory.
pub fn generate_trace(config: &GenConfig) -> Trace {
    let mut names = Names::default();
    let mut events = Vec::with_capacity(config.events.min(1 << 20) as usize);
    let result = generate::<Infallible>(config, &mut names, |e, _| {
        events.push(e.clone());
        Ok(())
    });
    match result {
        Ok(()) => {}
        Err(never) => match never {},
    }
    Trace { names, events }
}

/// How many threads `T0` forks: as many as fit with their joins. When every access must be
/// protected and that would leave exactly one other event, one fewer, to make room for
/// `acq`, an access and `rel` (a lone access could not be protected).
fn forked_threads(events: u64, threads: u32, strict: bool) -> u32 {
    let forked = u64::from(threads - 1).min(events / 2);
    let forked = if strict && forked > 0 && events - 2 * forked == 1 {
        forked - 1
    } else {
        forked
    };
    forked as u32
}

/// Below this many names of a kind, ids are cached in a vector; above, the rare names beyond it
/// are looked up by their text each time (slower, but memory stays bounded for absurd configs).
const DENSE_LIMIT: u32 = 1 << 22;
const NONE: u32 = u32::MAX;

/// Interns `{prefix}{i}` names lazily, caching their ids.
struct NameCache {
    prefix: &'static str,
    ids: Vec<u32>,
    buf: String,
}

impl NameCache {
    fn new(prefix: &'static str, count: u32) -> NameCache {
        NameCache {
            prefix,
            ids: vec![NONE; count.min(DENSE_LIMIT) as usize],
            buf: String::new(),
        }
    }

    #[inline]
    fn get(&mut self, interner: &mut Interner, i: u32) -> u32 {
        match self.ids.get(i as usize) {
            Some(&id) if id != NONE => id,
            _ => self.intern(interner, i),
        }
    }

    #[cold]
    fn intern(&mut self, interner: &mut Interner, i: u32) -> u32 {
        self.buf.clear();
        let _ = write!(self.buf, "{}{}", self.prefix, i);
        let id = interner
            .intern(self.buf.as_bytes())
            .expect("generated names are ASCII");
        if let Some(slot) = self.ids.get_mut(i as usize) {
            *slot = id;
        }
        id
    }
}

/// Which thread holds each lock.
enum Holders {
    Dense(Vec<u32>),
    Sparse(FxHashMap<u32, u32>),
}

impl Holders {
    fn new(locks: u32) -> Holders {
        if locks <= DENSE_LIMIT {
            Holders::Dense(vec![NONE; locks as usize])
        } else {
            Holders::Sparse(FxHashMap::default())
        }
    }

    /// The holder of `l`, or `NONE`.
    #[inline]
    fn get(&self, l: u32) -> u32 {
        match self {
            Holders::Dense(v) => v[l as usize],
            Holders::Sparse(m) => m.get(&l).copied().unwrap_or(NONE),
        }
    }

    #[inline]
    fn set(&mut self, l: u32, t: u32) {
        match self {
            Holders::Dense(v) => v[l as usize] = t,
            Holders::Sparse(m) => {
                if t == NONE {
                    m.remove(&l);
                } else {
                    m.insert(l, t);
                }
            }
        }
    }
}

#[derive(Clone, Debug, Default)]
struct ThreadState {
    /// Locks held, outermost first; indices increase along the stack.
    held: Vec<u32>,
    in_block: bool,
    /// `held.len()` when the open block began: locks below it outlive the block.
    block_base: u32,
    /// The thread's own events left before it closes its block.
    block_left: u32,
    /// Where the thread stands in `Gen::holding`, while it holds a lock.
    holding_pos: u32,
}

/// The operations generated, with raw name indices.
#[derive(Clone, Copy, Debug)]
enum GenOp {
    /// Variable, write?, location line.
    Access(u32, bool, u32),
    Acquire(u32),
    Release(u32),
    Fork(u32),
    Join(u32),
    Begin,
    End,
}

/// Probability that a thread inside a critical section simply accesses a variable.
/// 0.8 gives about 4 accesses per acquire, lock events about a third of the trace.
const STAY: f64 = 0.8;
/// Probability that a thread leaving the access pattern nests a lock rather than releasing one.
const NEST: f64 = 0.35;
/// The code sites of the simulated program `gen.rs` (see the module documentation).
const FORK_LINE: u32 = 4;
const JOIN_LINE: u32 = 6;
/// Access sites: `FIRST_LINE .. FIRST_LINE + DEFAULT_SITES`; with more sites, the others
/// follow the last line (`LAST_LINE ..`), so that traces with the default keep their lines.
pub const DEFAULT_SITES: u32 = 64;
const FIRST_LINE: u32 = 10;
/// Critical sections: `acq` at `LOCK_LINE + 2 (l mod LOCK_SITES)`, `rel` on the next line.
const LOCK_LINE: u32 = 80;
const LOCK_SITES: u32 = 16;
/// Atomic blocks: `begin` at `BLOCK_LINE + 2 (t mod BLOCK_SITES)`, `end` on the next line.
const BLOCK_LINE: u32 = 120;
const BLOCK_SITES: u32 = 8;
/// One past the last line of `gen.rs`.
const LAST_LINE: u32 = BLOCK_LINE + 2 * BLOCK_SITES;

// Sites beyond the default ones go after the last line, clear of every other event's line.
const _: () =
    assert!(FIRST_LINE + DEFAULT_SITES <= LOCK_LINE && LOCK_LINE + 2 * LOCK_SITES <= BLOCK_LINE);

/// The line of variable `x`'s access site `kind` (0 its write, 1 and 2 its reads) among
/// `sites` access sites.
fn site_line(x: u32, kind: u32, sites: u32) -> u32 {
    let site = ((u64::from(x % sites) * 3 + u64::from(kind)) % u64::from(sites)) as u32;
    if site < DEFAULT_SITES {
        FIRST_LINE + site
    } else {
        LAST_LINE + (site - DEFAULT_SITES)
    }
}

struct Gen<'n> {
    names: &'n mut Names,
    thread_names: NameCache,
    var_names: NameCache,
    lock_names: NameCache,
    loc_names: NameCache,
    rng: SplitMix64,
    vars: u32,
    /// Access sites, at least 1.
    sites: u32,
    /// `config.locks`: the modulus of the guard mapping.
    locks: u32,
    /// Locks that guard some variable, the only ones acquired: `min(locks, vars)`.
    used_locks: u32,
    depth: u32,
    /// Whether accesses can be protected at all.
    protect: bool,
    unprotected: Prob,
    blocks: Prob,
    stay: Prob,
    nest: Prob,
    threads: Vec<ThreadState>,
    holders: Holders,
    /// Threads holding at least one lock.
    holding: Vec<u32>,
    /// Index of the next event.
    index: u64,
    events: u64,
    /// Events needed to close everything: held locks, open blocks, pending joins.
    reserve: u64,
    maps: Option<Maps>,
    requests: Option<Requests>,
}

/// The thread-per-request mode: the thread running in each worker slot, and its events so far.
struct Requests {
    per_request: u32,
    /// Per slot, the thread name index running in it.
    thread: Vec<u32>,
    /// Per slot, that thread's events so far.
    made: Vec<u32>,
    next: u32,
}

/// The dictionaries of `map_keys` mode, with their contents, so that results are consistent.
struct Maps {
    keys: u32,
    /// Per object touched so far: per key the value (0 = nil), and the size.
    contents: FxHashMap<u32, (Vec<u8>, i64)>,
    names: NameCache,
    put: u32,
    get: u32,
    size: u32,
    /// Reused between events: generating allocates nothing per call.
    spare: Option<Box<Call>>,
}

impl<'n> Gen<'n> {
    fn new(config: &GenConfig, names: &'n mut Names) -> Gen<'n> {
        let threads = config.threads.max(1);
        let vars = config.vars.max(1);
        let sites = config.sites.max(1);
        let used_locks = config.locks.min(vars);
        let depth = config.max_depth.min(used_locks);
        let unprotected = Prob::new(config.unprotected);
        let forked = forked_threads(
            config.events,
            threads,
            depth > 0 && unprotected == Prob::NEVER,
        );
        let per_request = config.per_request;
        let thread_count = if per_request > 0 {
            (config.events / u64::from(per_request) + u64::from(forked) + 1)
                .min(u64::from(DENSE_LIMIT)) as u32
        } else {
            forked + 1
        };
        Gen {
            names,
            thread_names: NameCache::new("T", thread_count),
            var_names: NameCache::new("x", vars),
            lock_names: NameCache::new("L", used_locks),
            loc_names: NameCache::new("gen.rs:", LAST_LINE + sites.saturating_sub(DEFAULT_SITES)),
            rng: SplitMix64::new(config.seed),
            vars,
            sites,
            locks: config.locks,
            used_locks,
            depth,
            protect: depth > 0,
            unprotected,
            blocks: Prob::new(config.blocks),
            stay: Prob::new(STAY),
            nest: Prob::new(NEST),
            threads: vec![ThreadState::default(); forked as usize + 1],
            holders: Holders::new(used_locks),
            holding: Vec::new(),
            index: 0,
            events: config.events,
            reserve: 0,
            maps: (config.map_keys > 0).then(|| Maps {
                keys: config.map_keys.min(1 << 16),
                contents: FxHashMap::default(),
                names: NameCache::new("m", vars),
                put: 0,
                get: 0,
                size: 0,
                spare: None,
            }),
            requests: (per_request > 0).then(|| Requests {
                per_request,
                thread: (0..=forked).collect(),
                made: vec![0; forked as usize + 1],
                next: forked + 1,
            }),
        }
    }

    fn run<E, S>(&mut self, sink: &mut S) -> Result<(), E>
    where
        S: FnMut(&Event, &Names) -> Result<(), E>,
    {
        for child in 1..self.threads.len() as u32 {
            self.reserve += 1; // its join
            self.emit(0, GenOp::Fork(child), sink)?;
        }
        while self.index < self.events {
            if self.slack() == 0 {
                return self.wind_down(sink);
            }
            self.step(sink)?;
        }
        Ok(())
    }

    /// Events left beyond those needed to close everything.
    #[inline]
    fn slack(&self) -> u64 {
        self.events - self.index - self.reserve
    }

    /// One event of the body of the trace, with `slack() >= 1`.
    ///
    /// The slack rules keep the trace closable, and keep every access protected when
    /// `unprotected` is 0: acquiring needs slack 3 (room for an access under the lock), opening
    /// a block needs 4, and at slack 1 the only event left is an access by a lock holder. So
    /// slack 1 is reached only by acquiring, or by a protected access, with a lock still held;
    /// at slack 2 with nothing held anywhere, an empty critical section uses up the slack.
    fn step<E, S>(&mut self, sink: &mut S) -> Result<(), E>
    where
        S: FnMut(&Event, &Names) -> Result<(), E>,
    {
        let s = self.slack();
        let t = self.rng.below(self.threads.len() as u64) as u32;
        if s >= 4 && self.request_done(t) {
            return self.next_request(t, sink);
        }
        if s == 1 {
            let h = if !self.threads[t as usize].held.is_empty() {
                t
            } else {
                self.random_holder().unwrap_or(t)
            };
            return self.access(h, sink);
        }
        let th = &self.threads[t as usize];
        let held = th.held.len() as u32;
        if th.in_block && th.block_left == 0 {
            return if held > th.block_base {
                self.release(t, sink)
            } else {
                self.end(t, sink)
            };
        }
        if !th.in_block && s >= 4 && self.rng.passes(self.blocks) {
            return self.begin(t, sink);
        }
        if !self.protect {
            return self.access(t, sink);
        }
        if held > 0 {
            return self.holder_step(t, s, true, sink);
        }
        // Outside any critical section: the thread wants a lock.
        if s >= 3 {
            let l = self.rng.below(u64::from(self.used_locks)) as u32;
            match self.holders.get(l) {
                NONE => self.acquire(t, l, sink),
                h => self.holder_step(h, s, false, sink),
            }
        } else if let Some(h) = self.random_holder() {
            self.holder_step(h, s, false, sink)
        } else {
            // Nothing held anywhere and no room for an access under a lock.
            let l = self.rng.below(u64::from(self.used_locks)) as u32;
            self.acquire(t, l, sink)
        }
    }

    /// A step of thread `t`, which holds a lock, with slack `s >= 2`. Without `nest`, it does
    /// not try to acquire (it runs because another thread waits for one of its locks).
    fn holder_step<E, S>(&mut self, t: u32, s: u64, nest: bool, sink: &mut S) -> Result<(), E>
    where
        S: FnMut(&Event, &Names) -> Result<(), E>,
    {
        if self.rng.passes(self.stay) {
            return self.access(t, sink);
        }
        let th = &self.threads[t as usize];
        let held = th.held.len() as u32;
        let top = th.held[th.held.len() - 1];
        let can_nest = nest && s >= 3 && held < self.depth && top + 1 < self.used_locks;
        let can_release = held > if th.in_block { th.block_base } else { 0 };
        if can_nest && (!can_release || self.rng.passes(self.nest)) {
            let l = top + 1 + self.rng.below(u64::from(self.used_locks - top - 1)) as u32;
            match self.holders.get(l) {
                NONE => self.acquire(t, l, sink),
                h => self.holder_step(h, s, false, sink),
            }
        } else if can_release {
            self.release(t, sink)
        } else {
            self.access(t, sink)
        }
    }

    /// Once the events left are exactly those needed to close everything: every thread
    /// releases its locks and closes its block, innermost first, and `T0` joins each child as
    /// soon as it is done, in a random interleaving.
    fn wind_down<E, S>(&mut self, sink: &mut S) -> Result<(), E>
    where
        S: FnMut(&Event, &Names) -> Result<(), E>,
    {
        let mut live: Vec<u32> = (0..self.threads.len() as u32).collect();
        while self.index < self.events && !live.is_empty() {
            let i = self.rng.below(live.len() as u64) as usize;
            let t = live[i];
            let th = &self.threads[t as usize];
            if th.in_block && th.held.len() as u32 == th.block_base {
                self.end(t, sink)?;
            } else if !th.held.is_empty() {
                self.release(t, sink)?;
            } else {
                live.swap_remove(i);
                if t != 0 {
                    self.reserve -= 1;
                    self.emit(0, GenOp::Join(t), sink)?;
                }
            }
        }
        debug_assert_eq!(self.index, self.events);
        Ok(())
    }

    /// Whether the thread in slot `t` is a request that has made its events and can be joined.
    fn request_done(&self, t: u32) -> bool {
        let th = &self.threads[t as usize];
        t != 0
            && th.held.is_empty()
            && !th.in_block
            && self
                .requests
                .as_ref()
                .is_some_and(|r| r.made[t as usize] >= r.per_request)
    }

    /// `T0` joins the request in slot `t` and forks the next one in its place.
    fn next_request<E, S>(&mut self, t: u32, sink: &mut S) -> Result<(), E>
    where
        S: FnMut(&Event, &Names) -> Result<(), E>,
    {
        self.emit(0, GenOp::Join(t), sink)?;
        if let Some(r) = &mut self.requests {
            r.thread[t as usize] = r.next;
            r.made[t as usize] = 0;
            r.next += 1;
        }
        self.emit(0, GenOp::Fork(t), sink)
    }

    /// The thread name index of the thread in slot `t`.
    #[inline]
    fn thread_of(&self, t: u32) -> u32 {
        match &self.requests {
            Some(r) => r.thread[t as usize],
            None => t,
        }
    }

    fn random_holder(&mut self) -> Option<u32> {
        if self.holding.is_empty() {
            return None;
        }
        let i = self.rng.below(self.holding.len() as u64) as usize;
        Some(self.holding[i])
    }

    /// Counts one of `t`'s own events against its open block.
    #[inline]
    fn tick(&mut self, t: u32) {
        let th = &mut self.threads[t as usize];
        th.block_left = th.block_left.saturating_sub(1);
    }

    /// An access by `t`: under one of its locks (chosen at random) unless it holds none or the
    /// `unprotected` coin says otherwise.
    fn access<E, S>(&mut self, t: u32, sink: &mut S) -> Result<(), E>
    where
        S: FnMut(&Event, &Names) -> Result<(), E>,
    {
        let held = &self.threads[t as usize].held;
        let x = if held.is_empty() || self.rng.passes(self.unprotected) {
            self.rng.below(u64::from(self.vars)) as u32
        } else {
            let l = *self.rng.pick(held);
            // The variables guarded by `l` are l, l + locks, l + 2 locks, ... below vars.
            let guarded = u64::from(self.vars - 1 - l) / u64::from(self.locks) + 1;
            (u64::from(l) + u64::from(self.locks) * self.rng.below(guarded)) as u32
        };
        // Each variable has one write site and two read sites, shared with other variables.
        let kind = self.rng.below(3) as u32;
        let line = site_line(x, kind, self.sites);
        self.tick(t);
        self.emit(t, GenOp::Access(x, kind == 0, line), sink)
    }

    fn acquire<E, S>(&mut self, t: u32, l: u32, sink: &mut S) -> Result<(), E>
    where
        S: FnMut(&Event, &Names) -> Result<(), E>,
    {
        self.holders.set(l, t);
        let th = &mut self.threads[t as usize];
        if th.held.is_empty() {
            th.holding_pos = self.holding.len() as u32;
            self.holding.push(t);
        }
        th.held.push(l);
        self.reserve += 1;
        self.tick(t);
        self.emit(t, GenOp::Acquire(l), sink)
    }

    fn release<E, S>(&mut self, t: u32, sink: &mut S) -> Result<(), E>
    where
        S: FnMut(&Event, &Names) -> Result<(), E>,
    {
        let th = &mut self.threads[t as usize];
        let Some(l) = th.held.pop() else {
            debug_assert!(false, "release by a thread holding nothing");
            return Ok(());
        };
        if th.held.is_empty() {
            let pos = th.holding_pos as usize;
            self.holding.swap_remove(pos);
            if let Some(&moved) = self.holding.get(pos) {
                self.threads[moved as usize].holding_pos = pos as u32;
            }
        }
        self.holders.set(l, NONE);
        self.reserve -= 1;
        self.tick(t);
        self.emit(t, GenOp::Release(l), sink)
    }

    fn begin<E, S>(&mut self, t: u32, sink: &mut S) -> Result<(), E>
    where
        S: FnMut(&Event, &Names) -> Result<(), E>,
    {
        let len = 2 + self.rng.below(7) as u32;
        let th = &mut self.threads[t as usize];
        th.in_block = true;
        th.block_base = th.held.len() as u32;
        th.block_left = len;
        self.reserve += 1;
        self.emit(t, GenOp::Begin, sink)
    }

    fn end<E, S>(&mut self, t: u32, sink: &mut S) -> Result<(), E>
    where
        S: FnMut(&Event, &Names) -> Result<(), E>,
    {
        self.threads[t as usize].in_block = false;
        self.reserve -= 1;
        self.emit(t, GenOp::End, sink)
    }

    /// Interns the names of one event, in the order a reader would meet them, and hands it to
    /// the sink.
    #[inline]
    fn emit<E, S>(&mut self, t: u32, op: GenOp, sink: &mut S) -> Result<(), E>
    where
        S: FnMut(&Event, &Names) -> Result<(), E>,
    {
        let (t_name, operand) = match op {
            GenOp::Fork(c) | GenOp::Join(c) => (self.thread_of(t), self.thread_of(c)),
            _ => (self.thread_of(t), 0),
        };
        if let Some(r) = &mut self.requests {
            r.made[t as usize] = r.made[t as usize].saturating_add(1);
        }
        let names = &mut *self.names;
        let thread = ThreadId(self.thread_names.get(&mut names.threads, t_name));
        let line = match op {
            GenOp::Access(_, _, line) => line,
            GenOp::Acquire(l) => LOCK_LINE + 2 * (l % LOCK_SITES),
            GenOp::Release(l) => LOCK_LINE + 2 * (l % LOCK_SITES) + 1,
            GenOp::Fork(_) => FORK_LINE,
            GenOp::Join(_) => JOIN_LINE,
            GenOp::Begin => BLOCK_LINE + 2 * (t % BLOCK_SITES),
            GenOp::End => BLOCK_LINE + 2 * (t % BLOCK_SITES) + 1,
        };
        let loc = Some(LocId(self.loc_names.get(&mut names.locations, line)));
        let op = match op {
            GenOp::Access(x, write, _) => match &mut self.maps {
                Some(maps) => Op::Call(maps.action(x, write, &mut self.rng, names)),
                None => {
                    let x = VarId(self.var_names.get(&mut names.vars, x));
                    if write {
                        Op::Write(x)
                    } else {
                        Op::Read(x)
                    }
                }
            },
            GenOp::Acquire(l) => Op::Acquire(LockId(self.lock_names.get(&mut names.locks, l))),
            GenOp::Release(l) => Op::Release(LockId(self.lock_names.get(&mut names.locks, l))),
            GenOp::Fork(_) => {
                Op::Fork(ThreadId(self.thread_names.get(&mut names.threads, operand)))
            }
            GenOp::Join(_) => {
                Op::Join(ThreadId(self.thread_names.get(&mut names.threads, operand)))
            }
            GenOp::Begin => Op::Begin(None),
            GenOp::End => Op::End,
        };
        let event = Event {
            index: self.index,
            thread,
            op,
            loc,
        };
        self.index += 1;
        let result = sink(&event, names);
        if let (Op::Call(call), Some(maps)) = (event.op, &mut self.maps) {
            maps.spare = Some(call);
        }
        result
    }
}

impl Maps {
    /// A dictionary action on `m_x`, applied to its contents.
    fn action(
        &mut self,
        x: u32,
        write: bool,
        rng: &mut SplitMix64,
        names: &mut Names,
    ) -> Box<Call> {
        if self.put == self.get {
            for (slot, name) in [
                (&mut self.put, "put"),
                (&mut self.get, "get"),
                (&mut self.size, "size"),
            ] {
                *slot = names.symbols.intern(name.as_bytes()).expect("ASCII");
            }
        }
        let mut call = self.spare.take().unwrap_or_default();
        call.args.clear();
        call.results.clear();
        call.object = ObjId(self.names.get(&mut names.objects, x));
        let keys = self.keys;
        let (contents, size) = self
            .contents
            .entry(x)
            .or_insert_with(|| (vec![0; keys as usize], 0));
        let value = |v: u8| {
            if v == 0 {
                Value::Nil
            } else {
                Value::Int(i64::from(v))
            }
        };
        let k = rng.modulo(u64::from(keys)) as usize;
        let roll = rng.modulo(10);
        if write {
            // Values 1..=3, and now and then nil (a removal).
            let v = if roll == 0 {
                0
            } else {
                1 + rng.modulo(3) as u8
            };
            let old = contents[k];
            *size += i64::from(old == 0 && v != 0) - i64::from(old != 0 && v == 0);
            contents[k] = v;
            call.method = SymId(self.put);
            call.args.extend([Value::Int(k as i64), value(v)]);
            call.results.push(value(old));
        } else if roll < 2 {
            call.method = SymId(self.size);
            call.results.push(Value::Int(*size));
        } else {
            call.method = SymId(self.get);
            call.args.push(Value::Int(k as i64));
            call.results.push(value(contents[k]));
        }
        call
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Position;
    use crate::text::{TextReader, TextWriter};
    use crate::validate::Validator;
    use crate::{BinaryReader, BinaryWriter};

    fn index_of(name: &str, prefix: &str) -> u32 {
        name.strip_prefix(prefix)
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("bad name {name:?}, expected {prefix}N"))
    }

    /// What the checker saw, for tests that look at proportions.
    #[derive(Debug, Default)]
    struct Stats {
        accesses: u64,
        unguarded: u64,
        writes: u64,
        acquires: u64,
        begins: u64,
        max_depth: usize,
        forked: u32,
    }

    #[derive(Default, Clone)]
    struct Th {
        held: Vec<u32>,
        in_block: bool,
        forked: bool,
        joined: bool,
        seen: bool,
    }

    /// Replays a generated trace and panics at the first violation of what `generate` promises.
    fn check(config: &GenConfig, trace: &Trace) -> Stats {
        let n = &trace.names;
        let ctx = |i: usize| format!("{config:?}, event {i}");
        assert_eq!(trace.events.len() as u64, config.events, "{config:?}");
        let threads = config.threads.max(1);
        let vars = config.vars.max(1);
        let mut forked = (threads - 1).min((config.events / 2).min(u64::from(u32::MAX)) as u32);
        // Negative and NaN fractions count as 0.
        let strict = (config.unprotected.is_nan() || config.unprotected <= 0.0)
            && config.locks > 0
            && config.max_depth > 0;
        if strict && forked > 0 && config.events == 2 * u64::from(forked) + 1 {
            forked -= 1;
        }
        // A single event can only be an access, and no lock can protect it.
        let strict = strict && config.events != 1;
        let mut ths = vec![Th::default(); threads as usize];
        ths[0].forked = true;
        let mut holder: FxHashMap<u32, u32> = FxHashMap::default();
        let mut stats = Stats {
            forked,
            ..Stats::default()
        };
        for (i, e) in trace.events.iter().enumerate() {
            assert_eq!(e.index, i as u64, "{}", ctx(i));
            let t = index_of(n.thread(e.thread), "T");
            let line = index_of(
                e.loc
                    .map(|l| n.location(l))
                    .expect("every event has a location"),
                "gen.rs:",
            );
            let site = match &e.op {
                Op::Read(_) | Op::Write(_) => None,
                Op::Acquire(l) => Some(80 + 2 * (index_of(n.lock(*l), "L") % 16)),
                Op::Release(l) => Some(81 + 2 * (index_of(n.lock(*l), "L") % 16)),
                Op::Fork(_) => Some(4),
                Op::Join(_) => Some(6),
                Op::Begin(_) => Some(120 + 2 * (t % 8)),
                Op::End => Some(121 + 2 * (t % 8)),
                _ => None,
            };
            if let Some(site) = site {
                assert_eq!(line, site, "{}", ctx(i));
            }
            assert!(t < threads, "{}", ctx(i));
            let th = &mut ths[t as usize];
            assert!(th.forked, "event before fork: {}", ctx(i));
            assert!(!th.joined, "event after join: {}", ctx(i));
            th.seen = true;
            // The forks come first, in order.
            if (i as u32) < forked {
                assert_eq!(
                    e.op,
                    Op::Fork(ThreadId(n.threads.lookup(&format!("T{}", i + 1)).unwrap())),
                    "{}",
                    ctx(i)
                );
                assert_eq!(t, 0, "{}", ctx(i));
            }
            match &e.op {
                Op::Read(x) | Op::Write(x) => {
                    let x = index_of(n.var(*x), "x");
                    assert!(x < vars, "{}", ctx(i));
                    // One write site and two read sites per variable.
                    let site = |kind: u32| site_line(x, kind, config.sites.max(1));
                    if matches!(e.op, Op::Write(_)) {
                        assert_eq!(line, site(0), "{}", ctx(i));
                    } else {
                        assert!(line == site(1) || line == site(2), "{}", ctx(i));
                    }
                    stats.accesses += 1;
                    stats.writes += matches!(e.op, Op::Write(_)) as u64;
                    let guarded = config.locks > 0 && th.held.contains(&(x % config.locks));
                    if !guarded {
                        stats.unguarded += 1;
                        assert!(!strict, "unprotected access: {}", ctx(i));
                    }
                }
                Op::Acquire(l) => {
                    let l = index_of(n.lock(*l), "L");
                    assert!(l < config.locks.min(vars), "{}", ctx(i));
                    assert!(
                        holder.insert(l, t).is_none(),
                        "acquire of a held lock: {}",
                        ctx(i)
                    );
                    if let Some(&top) = th.held.last() {
                        assert!(l > top, "lock order: {}", ctx(i));
                    }
                    th.held.push(l);
                    assert!(
                        th.held.len() as u32 <= config.max_depth,
                        "depth: {}",
                        ctx(i)
                    );
                    stats.max_depth = stats.max_depth.max(th.held.len());
                    stats.acquires += 1;
                }
                Op::Release(l) => {
                    let l = index_of(n.lock(*l), "L");
                    assert_eq!(th.held.pop(), Some(l), "release not innermost: {}", ctx(i));
                    assert_eq!(holder.remove(&l), Some(t), "{}", ctx(i));
                }
                Op::Begin(None) => {
                    assert!(!th.in_block, "nested block: {}", ctx(i));
                    th.in_block = true;
                    stats.begins += 1;
                }
                Op::End => {
                    assert!(th.in_block, "end without begin: {}", ctx(i));
                    th.in_block = false;
                }
                Op::Fork(c) => {
                    assert_eq!(t, 0, "{}", ctx(i));
                    let c = index_of(n.thread(*c), "T");
                    assert!(c >= 1 && c <= forked, "{}", ctx(i));
                    let ch = &mut ths[c as usize];
                    assert!(!ch.forked, "{}", ctx(i));
                    ch.forked = true;
                }
                Op::Join(c) => {
                    assert_eq!(t, 0, "{}", ctx(i));
                    let c = index_of(n.thread(*c), "T");
                    let ch = &mut ths[c as usize];
                    assert!(ch.forked && !ch.joined, "{}", ctx(i));
                    assert!(
                        ch.held.is_empty(),
                        "join of a thread holding locks: {}",
                        ctx(i)
                    );
                    assert!(!ch.in_block, "join of a thread in a block: {}", ctx(i));
                    ch.joined = true;
                }
                other => panic!("unexpected {other:?}: {}", ctx(i)),
            }
        }
        for (t, th) in ths.iter().enumerate() {
            assert!(
                th.held.is_empty() && !th.in_block,
                "T{t} not closed: {config:?}"
            );
            if t >= 1 && t as u32 <= forked {
                assert!(th.joined, "T{t} never joined: {config:?}");
            } else if t > 0 {
                assert!(!th.seen && !th.forked, "{config:?}");
            }
        }
        // The trace's own validator, in strict mode, agrees.
        let mut v = Validator::new(true);
        for e in &trace.events {
            v.check(e, Position::Event(e.index), n)
                .unwrap_or_else(|err| panic!("{err:?}: {config:?}"));
        }
        let finished = v.finish(n);
        if trace.events.is_empty() {
            // An empty trace is valid, with a warning: an error in strict mode.
            assert!(
                matches!(&finished, Err(e) if matches!(e.kind, crate::ErrorKind::Strict(crate::WarningKind::Empty))),
                "{finished:?}"
            );
        } else {
            finished.unwrap_or_else(|err| panic!("{err:?}: {config:?}"));
        }
        stats
    }

    /// Varied configurations, small and degenerate ones included.
    fn configs(count: u64) -> Vec<GenConfig> {
        let mut rng = SplitMix64::new(0xC0FFEE);
        let fractions = [0.0, 0.0, 0.05, 0.3, 1.0, -1.0, 2.0, f64::NAN];
        let mut out = Vec::new();
        for i in 0..count {
            let events = match i % 4 {
                0 => rng.below(40),
                1 => rng.below(400),
                _ => rng.below(4000),
            };
            out.push(GenConfig {
                events,
                threads: rng.below(12) as u32,
                vars: rng.below(40) as u32,
                locks: rng.below(10) as u32,
                max_depth: rng.below(5) as u32,
                unprotected: *rng.pick(&fractions),
                blocks: *rng.pick(&[0.0, 0.1, 0.5, 1.0, f64::NAN]),
                seed: rng.next_u64(),
                map_keys: 0,
                per_request: 0,
                sites: DEFAULT_SITES,
            });
        }
        out
    }

    #[test]
    fn generate_is_deterministic() {
        for config in configs(40) {
            let a = generate_trace(&config);
            let b = generate_trace(&config);
            assert_eq!(a.events, b.events);
            for kind in crate::NameKind::ALL {
                assert!(a.names.of(kind).iter().eq(b.names.of(kind).iter()));
            }
        }
        let config = GenConfig::default();
        let other = GenConfig {
            seed: 1,
            ..config.clone()
        };
        assert_ne!(
            generate_trace(&config).events,
            generate_trace(&other).events
        );
    }

    /// The start of the default trace (the generator's own stream is pinned in hindsight-rng).
    #[test]
    fn generate_default_start_is_pinned() {
        let first: Vec<_> = generate_trace(&GenConfig::default()).events[..6]
            .iter()
            .map(|e| e.op.mnemonic())
            .collect();
        assert_eq!(&first[..3], ["fork", "fork", "fork"]);
    }

    #[test]
    fn generate_exact_event_count() {
        for events in 0..60 {
            for threads in 0..7 {
                for (locks, depth, unprotected) in
                    [(0, 0, 0.0), (3, 2, 0.0), (3, 0, 0.5), (1, 5, 0.1)]
                {
                    let config = GenConfig {
                        events,
                        threads,
                        vars: 4,
                        locks,
                        max_depth: depth,
                        unprotected,
                        blocks: 0.3,
                        seed: events * 31 + u64::from(threads),
                        map_keys: 0,
                        per_request: 0,
                        sites: DEFAULT_SITES,
                    };
                    let trace = generate_trace(&config);
                    assert_eq!(trace.events.len() as u64, events);
                    check(&config, &trace);
                }
            }
        }
        let config = GenConfig {
            events: 200_000,
            ..GenConfig::default()
        };
        let mut count = 0u64;
        generate::<()>(&config, &mut Names::default(), |e, _| {
            assert_eq!(e.index, count);
            count += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(count, 200_000);
    }

    /// Thread per request: a valid trace (the strict validator's word), of exactly the events
    /// asked, where `T0` forks every other thread and joins it after at least `per_request`
    /// events of its own (its last releases aside), with at most `threads - 1` in flight.
    #[test]
    fn generate_thread_per_request() {
        for (i, config) in configs(300).into_iter().enumerate() {
            let per_request = 1 + (i % 7) as u32;
            let config = GenConfig {
                per_request,
                ..config
            };
            let trace = generate_trace(&config);
            let n = &trace.names;
            assert_eq!(trace.events.len() as u64, config.events);
            let mut v = Validator::new(true);
            for e in &trace.events {
                v.check(e, Position::Event(e.index), n)
                    .unwrap_or_else(|err| panic!("{err:?}: {config:?}"));
            }
            if !trace.events.is_empty() {
                v.finish(n)
                    .unwrap_or_else(|err| panic!("{err:?}: {config:?}"));
            }
            // The wind-down at the end joins requests whatever they made; it forks nothing.
            let last_fork = trace
                .events
                .iter()
                .rposition(|e| matches!(e.op, Op::Fork(_)))
                .unwrap_or(0) as u64;
            let mut made: FxHashMap<ThreadId, u32> = FxHashMap::default();
            let mut in_flight = 0u32;
            for e in &trace.events {
                match e.op {
                    Op::Fork(u) => {
                        assert_eq!(e.thread.0, 0);
                        in_flight += 1;
                        assert!(in_flight < config.threads.max(1), "{config:?}");
                        made.insert(u, 0);
                    }
                    Op::Join(u) => {
                        assert_eq!(e.thread.0, 0);
                        in_flight -= 1;
                        assert!(made[&u] >= per_request || e.index > last_fork, "{config:?}");
                    }
                    _ if e.thread.0 != 0 => *made.get_mut(&e.thread).expect("forked") += 1,
                    _ => {}
                }
            }
            assert_eq!(in_flight, 0, "{config:?}");
        }
        // Once a request is done, the next takes its place: many short threads.
        let config = GenConfig {
            events: 20_000,
            threads: 5,
            per_request: 4,
            sites: DEFAULT_SITES,
            ..GenConfig::default()
        };
        let trace = generate_trace(&config);
        assert!(
            trace.names.threads.len() > 1000,
            "{}",
            trace.names.threads.len()
        );
    }

    #[test]
    fn generate_replays_valid() {
        let mut blocks = 0;
        let mut nested = 0;
        for config in configs(400) {
            let stats = check(&config, &generate_trace(&config));
            blocks += stats.begins;
            nested += (stats.max_depth >= 2) as u32;
        }
        assert!(blocks > 0 && nested > 0);
    }

    #[test]
    fn generate_degenerate_configs() {
        let base = GenConfig::default();
        let cases = [
            GenConfig {
                threads: 0,
                vars: 0,
                ..base.clone()
            },
            GenConfig {
                events: 0,
                ..base.clone()
            },
            GenConfig {
                events: 1,
                ..base.clone()
            },
            GenConfig {
                events: 5,
                threads: 100,
                ..base.clone()
            },
            GenConfig {
                locks: 40,
                vars: 3,
                max_depth: 40,
                ..base.clone()
            },
            GenConfig {
                locks: u32::MAX,
                vars: u32::MAX,
                max_depth: u32::MAX,
                ..base.clone()
            },
            GenConfig {
                threads: 1000,
                locks: 1,
                unprotected: 0.0,
                events: 20_000,
                ..base.clone()
            },
            GenConfig {
                threads: 2,
                locks: 1,
                max_depth: 1,
                unprotected: 0.0,
                blocks: 1.0,
                ..base.clone()
            },
            GenConfig {
                unprotected: f64::INFINITY,
                blocks: f64::NEG_INFINITY,
                ..base.clone()
            },
            GenConfig {
                unprotected: f64::NAN,
                blocks: f64::NAN,
                ..base.clone()
            },
        ];
        for config in cases {
            check(&config, &generate_trace(&config));
        }
    }

    #[test]
    fn generate_small_event_counts_fork_what_fits() {
        // (events, unprotected, threads forked besides T0)
        for (events, unprotected, forked) in [(5, 0.05, 2), (7, 0.05, 3), (7, 0.0, 2), (8, 0.0, 4)]
        {
            let config = GenConfig {
                events,
                threads: 10,
                unprotected,
                ..GenConfig::default()
            };
            let trace = generate_trace(&config);
            let stats = check(&config, &trace);
            assert_eq!(stats.forked, forked, "{config:?}");
            let count = |op: &str| {
                trace
                    .events
                    .iter()
                    .filter(|e| e.op.mnemonic() == op)
                    .count()
            };
            assert_eq!(
                (count("fork"), count("join")),
                (forked as usize, forked as usize)
            );
            assert_eq!(trace.names.threads.len(), forked as usize + 1);
        }
    }

    #[test]
    fn generate_unprotected_zero_keeps_every_access_guarded() {
        for config in configs(300) {
            let config = GenConfig {
                unprotected: 0.0,
                locks: config.locks.max(1),
                max_depth: config.max_depth.max(1),
                ..config
            };
            let stats = check(&config, &generate_trace(&config));
            assert!(stats.unguarded == 0 || config.events == 1, "{config:?}");
        }
    }

    #[test]
    fn generate_proportions() {
        let config = GenConfig {
            events: 200_000,
            threads: 8,
            vars: 64,
            locks: 8,
            max_depth: 3,
            unprotected: 0.2,
            blocks: 0.05,
            seed: 7,
            map_keys: 0,
            per_request: 0,
            sites: DEFAULT_SITES,
        };
        let s = check(&config, &generate_trace(&config));
        let unguarded = s.unguarded as f64 / s.accesses as f64;
        // Unprotected accesses sometimes hit a guard the thread happens to hold.
        assert!((0.15..0.21).contains(&unguarded), "{unguarded}");
        let writes = s.writes as f64 / s.accesses as f64;
        assert!((0.30..0.37).contains(&writes), "{writes}");
        assert!(
            s.acquires > 10_000 && s.begins > 1_000 && s.max_depth == 3,
            "{s:?}"
        );

        let none = GenConfig {
            locks: 0,
            ..config.clone()
        };
        let s = check(&none, &generate_trace(&none));
        assert_eq!((s.unguarded, s.acquires), (s.accesses, 0));
        let no_blocks = GenConfig {
            blocks: 0.0,
            ..config
        };
        assert_eq!(check(&no_blocks, &generate_trace(&no_blocks)).begins, 0);
    }

    #[test]
    fn generate_sites_are_as_many_as_asked_and_the_default_keeps_its_lines() {
        let config = |sites: u32, map_keys: u32| GenConfig {
            events: 200_000,
            threads: 8,
            vars: 100,
            locks: 16,
            max_depth: 2,
            unprotected: 0.05,
            seed: 11,
            map_keys,
            sites,
            ..GenConfig::default()
        };
        // Lines of access events (or dictionary calls): every other event has a fixed line.
        let access_lines = |config: &GenConfig| {
            let trace = generate_trace(config);
            if config.map_keys == 0 {
                // The checker knows variables only; it checks each access's site.
                check(config, &trace);
            }
            let n = &trace.names;
            let mut lines: Vec<u32> = trace
                .events
                .iter()
                .filter(|e| matches!(e.op, Op::Read(_) | Op::Write(_) | Op::Call(_)))
                .map(|e| {
                    let loc = n.location(e.loc.expect("every event has a location"));
                    loc.strip_prefix("gen.rs:").unwrap().parse().unwrap()
                })
                .collect();
            lines.sort_unstable();
            lines.dedup();
            lines
        };
        // 100 variables, three sites each, over 300 sites: each site is used once.
        let wide = access_lines(&config(300, 0));
        assert_eq!(wide.len(), 300);
        let expected: Vec<u32> = (FIRST_LINE..FIRST_LINE + DEFAULT_SITES)
            .chain(LAST_LINE..LAST_LINE + 300 - DEFAULT_SITES)
            .collect();
        assert_eq!(wide, expected);
        // Dictionary calls come from the same sites.
        assert_eq!(access_lines(&config(300, 10_000)).len(), 300);
        // The default: the first 64 lines only, as traces made before the option had.
        let default = access_lines(&config(DEFAULT_SITES, 0));
        assert_eq!(
            default,
            (FIRST_LINE..FIRST_LINE + DEFAULT_SITES).collect::<Vec<_>>()
        );
        // No site at all counts as one.
        assert_eq!(access_lines(&config(0, 0)), [FIRST_LINE]);
    }

    #[test]
    fn generate_text_and_binary_round_trip() {
        for config in configs(30).into_iter().chain([GenConfig {
            events: 20_000,
            blocks: 0.1,
            ..GenConfig::default()
        }]) {
            let trace = generate_trace(&config);

            let mut w = TextWriter::new(Vec::new());
            for e in &trace.events {
                w.write_event(e, &trace.names).unwrap();
            }
            let text = w.finish().unwrap();
            let back = Trace::collect(&mut TextReader::new(&text[..])).unwrap();
            assert_eq!(back.events, trace.events, "{config:?}");

            let mut w = BinaryWriter::new(Vec::new()).unwrap();
            for e in &trace.events {
                w.write_event(e, &trace.names).unwrap();
            }
            let bytes = w.finish().unwrap();
            let mut r = BinaryReader::new(&bytes[..]);
            let back = Trace::collect(&mut r).unwrap();
            assert_eq!(back.events, trace.events, "{config:?}");
            for kind in crate::NameKind::ALL {
                assert!(back.names.of(kind).iter().eq(trace.names.of(kind).iter()));
            }
        }
    }

    #[test]
    fn generate_stops_at_sink_error() {
        let mut seen = 0;
        let result = generate(&GenConfig::default(), &mut Names::default(), |e, _| {
            seen += 1;
            if e.index == 10 {
                Err("stop")
            } else {
                Ok(())
            }
        });
        assert_eq!((result, seen), (Err("stop"), 11));
    }

    /// `cargo test --release -p hindsight-trace generate_speed -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn generate_speed() {
        for (label, config) in [
            (
                "default",
                GenConfig {
                    events: 10_000_000,
                    ..GenConfig::default()
                },
            ),
            (
                "blocks",
                GenConfig {
                    events: 10_000_000,
                    threads: 16,
                    vars: 1000,
                    locks: 32,
                    max_depth: 3,
                    blocks: 0.05,
                    ..GenConfig::default()
                },
            ),
            (
                "contended",
                GenConfig {
                    events: 10_000_000,
                    threads: 64,
                    locks: 2,
                    unprotected: 0.0,
                    ..GenConfig::default()
                },
            ),
        ] {
            let start = std::time::Instant::now();
            let mut count = 0u64;
            generate::<()>(&config, &mut Names::default(), |e, _| {
                count += std::hint::black_box(e).index & 1;
                Ok(())
            })
            .unwrap();
            let secs = start.elapsed().as_secs_f64();
            std::hint::black_box(count);
            println!(
                "{label}: {:.1} M events/s",
                config.events as f64 / secs / 1e6
            );
        }
    }
}

/// What [`generate_nested`] generates: the shape of the CAV'09 atomicity benchmarks (long
/// transactions, nested locks taken in any order).
#[derive(Clone, Debug)]
pub struct NestedConfig {
    /// Total events, exactly (forks, joins, lock and block events included).
    pub events: u64,
    /// `T0` forks `T1..T{threads-1}` first and joins them last.
    pub threads: u32,
    pub vars: u32,
    pub locks: u32,
    /// Maximum number of locks a thread holds at once.
    pub max_depth: u32,
    /// Mean number of a thread's events in one transaction (`begin`..`end`); 0: none.
    pub transaction: u64,
    /// Fraction of accesses that go to any variable; the others go to the thread's own
    /// variables (`x_i` with `i mod threads` the thread's number), as in programs whose
    /// threads mostly work on their own data.
    pub shared: f64,
    pub seed: u64,
}

/// Streams a trace of `config.threads` threads that access `config.vars` variables inside
/// transactions (most of each thread's events are in one) under nested locks. Unlike
/// [`generate`], locks are taken in *any* order, so acquisition histories of different threads
/// are often incompatible; the recorded run itself never waits (a thread only takes a free
/// lock) and releases innermost first. Memory is O(threads + locks).
pub fn generate_nested<E>(
    config: &NestedConfig,
    names: &mut Names,
    mut sink: impl FnMut(&Event, &Names) -> Result<(), E>,
) -> Result<(), E> {
    let threads = config.threads.max(1) as usize;
    let vars = config.vars.max(1);
    let locks = config.locks;
    let depth = config.max_depth.min(locks) as usize;
    let mut rng = SplitMix64::new(config.seed);
    let thread_ids: Vec<ThreadId> = (0..threads)
        .map(|t| {
            ThreadId(
                names
                    .threads
                    .intern(format!("T{t}").as_bytes())
                    .expect("ascii"),
            )
        })
        .collect();
    let mut var_names = NameCache::new("x", vars);
    let mut lock_names = NameCache::new("L", locks);
    let mut owner: Vec<u32> = vec![NONE; locks as usize];
    let mut held: Vec<Vec<u32>> = vec![Vec::new(); threads];
    let mut txn_left: Vec<Option<u64>> = vec![None; threads];
    let mut index = 0u64;
    let forked = (threads as u64 - 1).min(config.events / 2) as usize;
    let mut emit = |t: usize, op: Op, names: &mut Names, index: &mut u64| {
        let e = Event::new(*index, thread_ids[t], op);
        *index += 1;
        sink(&e, names)
    };
    for &child in &thread_ids[1..=forked] {
        emit(0, Op::Fork(child), names, &mut index)?;
    }
    let live = forked + 1;
    // Events needed to close everything: releases, ends, joins.
    let closing = |held: &Vec<Vec<u32>>, txn: &Vec<Option<u64>>| -> u64 {
        held.iter().map(|h| h.len() as u64).sum::<u64>()
            + txn.iter().filter(|t| t.is_some()).count() as u64
            + forked as u64
    };
    let mean = config.transaction;
    let shared = Prob::new(config.shared);
    while index + closing(&held, &txn_left) + 2 < config.events {
        let t = rng.below(live as u64) as usize;
        if let Some(left) = txn_left[t] {
            if left == 0 {
                emit(t, Op::End, names, &mut index)?;
                txn_left[t] = None;
                continue;
            }
            txn_left[t] = Some(left - 1);
        } else if mean > 0 && rng.below(8) == 0 {
            // Transactions of geometric-ish length around `mean`.
            txn_left[t] = Some(1 + rng.below(2 * mean));
            emit(t, Op::Begin(None), names, &mut index)?;
            continue;
        }
        let roll = rng.below(100);
        let op = if roll < 12 && held[t].len() < depth {
            let l = rng.below(u64::from(locks)) as u32;
            if owner[l as usize] == NONE {
                owner[l as usize] = t as u32;
                held[t].push(l);
                Some(Op::Acquire(LockId(lock_names.get(&mut names.locks, l))))
            } else {
                None
            }
        } else if roll < 24 {
            held[t].pop().map(|l| {
                owner[l as usize] = NONE;
                Op::Release(LockId(lock_names.get(&mut names.locks, l)))
            })
        } else {
            None
        };
        let op = op.unwrap_or_else(|| {
            let mut x = rng.below(u64::from(vars)) as u32;
            if !rng.passes(shared) {
                // The thread's own variables: t, t + threads, t + 2 threads, ...
                let own = (vars as usize).saturating_sub(t).div_ceil(threads) as u64;
                if own > 0 {
                    x = (t as u64 + rng.below(own) * threads as u64) as u32;
                }
            }
            let x = VarId(var_names.get(&mut names.vars, x));
            if rng.below(3) == 0 {
                Op::Write(x)
            } else {
                Op::Read(x)
            }
        });
        emit(t, op, names, &mut index)?;
    }
    for t in (0..live).rev() {
        while let Some(l) = held[t].pop() {
            owner[l as usize] = NONE;
            let l = LockId(lock_names.get(&mut names.locks, l));
            emit(t, Op::Release(l), names, &mut index)?;
        }
        if txn_left[t].take().is_some() {
            emit(t, Op::End, names, &mut index)?;
        }
        if t > 0 {
            emit(0, Op::Join(thread_ids[t]), names, &mut index)?;
        }
    }
    // Pad with reads of T0 to the exact count.
    while index < config.events {
        let x = VarId(var_names.get(&mut names.vars, 0));
        emit(0, Op::Read(x), names, &mut index)?;
    }
    Ok(())
}

#[cfg(test)]
mod nested_tests {
    use super::*;
    use crate::validate::Validator;
    use crate::Position;

    #[test]
    fn nested_traces_are_valid_exact_and_nested() {
        for seed in 0..20 {
            let config = NestedConfig {
                events: 500 + seed * 37,
                threads: 1 + (seed % 5) as u32,
                vars: 7,
                locks: 5,
                max_depth: 3,
                transaction: 20,
                shared: 0.3,
                seed,
            };
            let mut names = Names::default();
            let mut events = Vec::new();
            generate_nested::<Infallible>(&config, &mut names, |e, _| {
                events.push(e.clone());
                Ok(())
            })
            .expect("infallible");
            assert_eq!(events.len() as u64, config.events);
            let mut v = Validator::new(true);
            let mut stacks: FxHashMap<ThreadId, Vec<LockId>> = FxHashMap::default();
            for e in &events {
                v.check(e, Position::Event(e.index), &names).expect("valid");
                match e.op {
                    Op::Acquire(l) => stacks.entry(e.thread).or_default().push(l),
                    Op::Release(l) => {
                        assert_eq!(stacks.get_mut(&e.thread).and_then(|s| s.pop()), Some(l))
                    }
                    _ => {}
                }
            }
            v.finish(&names).expect("valid");
            assert!(v.warnings().is_empty(), "{:?}", v.warnings());
        }
    }
}
