//! Sync-preserving races (Mathur, Pavlogiannis, Viswanathan, POPL'21), exactly: a pair of
//! conflicting accesses is a sync-preserving race when some correct reordering that keeps the
//! order of each lock's critical sections enables both. The paper characterizes them by ideals:
//! (e1, e2) is one exactly when neither access is in the *sync-preserving ideal* of the pair,
//! the smallest set holding the events before each in its thread, closed under thread order,
//! fork, join and reads-from, and holding the release of every critical section whose lock is
//! acquired again within the set ([`Recording::close`]).
//!
//! The ideal only grows as either access moves later in its thread. So, per variable and pair
//! of threads (t, u), the accesses of `u` are candidates for the accesses of `t` in order: a
//! candidate inside the ideal of its pair with an access of `t` is inside it for every later
//! access of `t` too, and is dropped for good; once the access of `t` is itself inside the
//! ideal, no later candidate of `u` races with it. Each candidate is thus dropped at most once
//! per thread, and each access stops at the first candidate that races with it (the paper's
//! Algorithm 2, whose per-thread-pair scan gives its O(N·T²) closure steps).
//!
//! Which partner a racy access is reported with: the latest, in the trace, of the first
//! racing access of each other thread. Three things keep the work of an access from growing
//! with the thread count when it need not (#38):
//! - Only the threads that accessed the variable are looked at, and of those not the ones all
//!   of whose accesses held a lock the access at hand holds ([`Touched`]): a candidate made
//!   holding a common lock is inside the ideal (its section is released before the later
//!   section of that lock is acquired, and that acquire precedes the access), so it never
//!   races with this access or a later one of its thread.
//! - The threads are looked at latest access first, and the look stops once every thread left
//!   accessed the variable last before the partner found: none of their accesses can be a
//!   later partner. Where threads run concurrently, the first thread looked at is the answer.
//! - The ideal is closed from the union of two closures, walking only the threads it holds
//!   events of ([`Recording::close`]), with per-event closures kept only where an event
//!   learns of another thread.
//!
//! The pass keeps the trace as [`Recording`] and every access as a candidate, with a cursor
//! per pair of threads that met on a variable: memory linear in the trace and in the pairs the
//! scans met, reported in the summary.

use crate::accesses::Locksets;
use crate::found::{Access, Found, Race};
use crate::recording::{Frontier, Recording};
use crate::shb::{finish_model, Options};
use crate::touched::{Accessors, Go, Order, Touched};
use hindsight_order::HappensBefore;
use hindsight_report::Rule;
use hindsight_stream::driver::{Analysis, AnalysisOutput, FindingsJob, LentCall, Observer};
use hindsight_trace::{ErrorKind, Event, LocId, Names, Op, ThreadId, VarId};
use rustc_hash::FxHashMap;
use std::time::Instant;

/// An access kept as a candidate partner of later accesses.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    rank: u32,
    index: u64,
    /// Its thread's happens-before epoch.
    hb: u32,
    loc: Option<LocId>,
    /// The locks its thread held (an id of [`SyncP::locksets`]).
    lockset: u32,
}

/// Where the accesses of one thread to one variable of one kind (a write: `true`) are kept.
type ListKey = (VarId, ThreadId, bool);

/// The scan of one pair of threads on one variable: thread `t`'s accesses, the first access of
/// `u` of one kind not yet dropped for them.
type CursorKey = (VarId, ThreadId, ThreadId, bool);

/// The sync-preserving analysis.
pub struct SyncP {
    recording: Recording,
    vars: Vec<Accessors>,
    /// Every access, per variable, thread and kind, in trace order.
    lists: FxHashMap<ListKey, Vec<Candidate>>,
    cursors: FxHashMap<CursorKey, u32>,
    found: Found,
    /// Reused frontiers: the events before the access at hand, and an ideal.
    before: Frontier,
    ideal: Frontier,
    closures: u64,
    /// The locks each thread holds: two accesses made holding a common lock are never a race
    /// (the earlier's section is released, within their ideal, before the later's is acquired).
    locksets: Locksets,
    /// What `vars` and the candidates' lists have allocated, counted as they grow (see
    /// [`SyncP::bytes`]).
    var_bytes: usize,
    /// The pass's deadline: an access may be checked against many threads, each check a
    /// closure, so one access of a trace of many threads can take long.
    deadline: Option<Instant>,
}

/// What a map entry of [`SyncP::lists`] or [`SyncP::cursors`] takes besides its value.
const ENTRY_BYTES: usize = 32;

impl SyncP {
    pub fn new(options: Options) -> SyncP {
        SyncP {
            recording: Recording::new(),
            vars: Vec::new(),
            lists: FxHashMap::default(),
            cursors: FxHashMap::default(),
            found: Found::new("syncp", options.granularity, options.witnesses)
                .only_beyond_hb(options.beyond_hb),
            before: Frontier::new(),
            ideal: Frontier::new(),
            closures: 0,
            locksets: Locksets::default(),
            var_bytes: 0,
            deadline: None,
        }
    }

    /// The races kept so far (see [`Found::races`]).
    pub fn races(&self) -> &[Race] {
        self.found.races()
    }

    /// The first candidate of `list` from `cursor` on that races with the access of `t` at
    /// `rank`, dropping those that never will; `None` when none does. Whatever the cursor, the
    /// answer is the earliest candidate outside the ideal of its pair when the access is too:
    /// a dropped candidate is inside the ideal of its pair with every later access of `t`
    /// (the ideal only grows), and once the access is inside one, it is inside the ideals of
    /// the later candidates.
    #[allow(clippy::too_many_arguments)]
    fn scan(
        locksets: &Locksets,
        mine: u32,
        recording: &Recording,
        before: &Frontier,
        ideal: &mut Frontier,
        closures: &mut u64,
        list: &[Candidate],
        cursor: &mut u32,
        (t, rank): (ThreadId, u32),
        u: ThreadId,
    ) -> Option<Candidate> {
        while let Some(&c) = list.get(*cursor as usize) {
            // Already below the access by thread order, fork, join and reads-from alone.
            if before.get(u) > c.rank || locksets.share(c.lockset, mine) {
                *cursor += 1;
                continue;
            }
            ideal.copy_from(before);
            recording.join_predecessors(u, c.rank, ideal);
            recording.close(ideal);
            *closures += 1;
            if ideal.get(u) > c.rank {
                *cursor += 1;
                continue;
            }
            if ideal.get(t) > rank {
                return None;
            }
            return Some(c);
        }
        None
    }

    fn access(&mut self, e: &Event, x: VarId, write: bool, hb: &HappensBefore) {
        let t = e.thread;
        let rank = self.recording.rank_of_next(t);
        if let Some(current) = self.recording.before_next(t) {
            self.before.copy_from(current);
        }
        if x.index() >= self.vars.len() {
            let before = self.vars.capacity();
            self.vars.resize_with(x.index() + 1, Accessors::default);
            self.var_bytes += (self.vars.capacity() - before) * std::mem::size_of::<Accessors>();
        }
        let lockset = self.locksets.held(t);
        let (lists_before, cursors_before) = (self.lists.capacity(), self.cursors.capacity());
        let mut partner: Option<(ThreadId, Candidate, bool)> = None;
        let mut looked = 0u32;
        let mut late = false;
        let kinds: &[bool] = if write { &[true, false] } else { &[true] };
        for &writes in kinds {
            let var = &self.vars[x.index()];
            let touched = if writes { &var.writers } else { &var.readers };
            Touched::walk(
                &[touched],
                lockset,
                &self.locksets,
                Order::Descending,
                |u, latest| {
                    if u == t {
                        return Go::On;
                    }
                    // Every thread left accessed the variable last before the partner.
                    if partner.is_some_and(|(_, p, _)| latest < p.index) {
                        return Go::Stop;
                    }
                    // Past the deadline the access is left unchecked and unrecorded: the pass
                    // stops at its next poll, and what was reported is what the whole run
                    // reports of the events before.
                    looked += 1;
                    if looked % 64 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d) {
                        late = true;
                        return Go::Stop;
                    }
                    let Some(list) = self.lists.get(&(x, u, writes)) else {
                        return Go::On;
                    };
                    let cursor = self.cursors.entry((x, t, u, writes)).or_insert(0);
                    let found = SyncP::scan(
                        &self.locksets,
                        lockset,
                        &self.recording,
                        &self.before,
                        &mut self.ideal,
                        &mut self.closures,
                        list,
                        cursor,
                        (t, rank),
                        u,
                    );
                    if let Some(c) = found {
                        if partner.is_none_or(|(_, p, _)| c.index > p.index) {
                            partner = Some((u, c, writes));
                        }
                    }
                    Go::On
                },
            );
            if late {
                return;
            }
        }
        if let Some((u, c, partner_writes)) = partner {
            self.found.found(Race {
                var: x,
                partner: Access {
                    thread: u,
                    index: c.index,
                    loc: c.loc,
                    write: partner_writes,
                },
                racy: Access {
                    thread: t,
                    index: e.index,
                    loc: e.loc,
                    write,
                },
                hb_ordered: c.hb <= hb.clock(t).get(u),
            });
        }
        let me = Candidate {
            rank,
            index: e.index,
            hb: hb.epoch(t).clock,
            loc: e.loc,
            lockset,
        };
        let list = self.lists.entry((x, t, write)).or_default();
        let list_before = list.capacity();
        list.push(me);
        self.var_bytes += (list.capacity() - list_before) * std::mem::size_of::<Candidate>();
        self.var_bytes +=
            self.vars[x.index()].touch(write, t, lockset, e.index, &mut self.locksets);
        self.var_bytes += (self.lists.capacity() - lists_before) * ENTRY_BYTES
            + (self.cursors.capacity() - cursors_before) * ENTRY_BYTES;
    }

    /// What the analysis holds besides its recording and races: counted as it grows, so that
    /// a budget may poll it.
    fn bytes(&self) -> usize {
        self.var_bytes + self.locksets.bytes()
    }
}

impl Observer for SyncP {
    fn name(&self) -> &'static str {
        "races"
    }

    fn needs_lock_valid(&self) -> bool {
        true
    }

    fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    fn on_event(&mut self, e: &Event, hb: &HappensBefore, _: &Names) -> Result<(), ErrorKind> {
        match e.op {
            Op::Read(x) => self.access(e, x, false, hb),
            Op::Write(x) => self.access(e, x, true, hb),
            _ => self.locksets.observe(e),
        }
        self.recording.record(e);
        Ok(())
    }

    fn on_call(
        &mut self,
        call: &LentCall<'_>,
        _: &HappensBefore,
        _: &Names,
    ) -> Result<(), ErrorKind> {
        self.recording.record(call.at);
        Ok(())
    }

    fn findings_job(&mut self) -> Option<FindingsJob> {
        self.found.job()
    }

    fn held_bytes(&self) -> u64 {
        (self.bytes() + self.recording.bytes() + self.found.bytes()) as u64
    }
}

impl Analysis for SyncP {
    fn finish(self: Box<Self>, names: &Names) -> AnalysisOutput {
        let bytes = self.bytes();
        let closures = self.closures;
        let mut out = finish_model(
            self.found,
            Some(self.recording),
            bytes,
            names,
            Rule {
                id: "data-race",
                description: "Two conflicting accesses that a correct reordering keeping each lock's critical sections in order enables together (POPL'21)",
            },
        );
        out.summary
            .insert("closures".into(), serde_json::Value::from(closures));
        out
    }
}
