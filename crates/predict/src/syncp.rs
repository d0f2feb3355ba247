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
//! The pass keeps the trace as [`Recording`] (a clock per event) and every access as a
//! candidate: memory linear in the trace, as the algorithm needs, reported in the summary.

use crate::accesses::Locksets;
use crate::found::{Access, Found, Race};
use crate::recording::{Frontier, Recording};
use crate::shb::{finish_model, Options};
use hindsight_order::HappensBefore;
use hindsight_report::Rule;
use hindsight_stream::driver::{Analysis, AnalysisOutput, FindingsJob, LentCall, Observer};
use hindsight_trace::{ErrorKind, Event, LocId, Names, Op, ThreadId, VarId};
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

/// The accesses of one variable, per thread, and per pair of threads (t, u) the first access
/// of `u` not yet dropped for `t`.
#[derive(Default)]
struct Var {
    reads: Vec<Vec<Candidate>>,
    writes: Vec<Vec<Candidate>>,
    read_cursor: Vec<Vec<usize>>,
    write_cursor: Vec<Vec<usize>>,
}

impl Var {
    /// What the variable's lists and cursors have allocated: `O(threads)` to count, as the
    /// access that grows them already is.
    fn bytes(&self) -> usize {
        let per = std::mem::size_of::<Candidate>();
        self.reads
            .iter()
            .chain(&self.writes)
            .map(|l| l.capacity() * per)
            .sum::<usize>()
            + self
                .read_cursor
                .iter()
                .chain(&self.write_cursor)
                .map(|c| c.capacity() * 8)
                .sum::<usize>()
    }
}

fn grow<T: Default + Clone>(v: &mut Vec<T>, n: usize) {
    if v.len() < n {
        v.resize(n, T::default());
    }
}

/// The sync-preserving analysis.
pub struct SyncP {
    recording: Recording,
    vars: Vec<Var>,
    found: Found,
    /// Reused frontiers: the events before the access at hand, and an ideal.
    before: Frontier,
    ideal: Frontier,
    closures: u64,
    /// The locks each thread holds: two accesses made holding a common lock are never a race
    /// (the earlier's section is released, within their ideal, before the later's is acquired).
    locksets: Locksets,
    /// What `vars` has allocated, counted as it grows (see [`SyncP::bytes`]).
    var_bytes: usize,
    /// The pass's deadline: an access is checked against every other thread, each check a
    /// closure, so one access of a trace of many threads can take seconds.
    deadline: Option<Instant>,
}

impl SyncP {
    pub fn new(options: Options) -> SyncP {
        SyncP {
            recording: Recording::new(),
            vars: Vec::new(),
            found: Found::new("syncp", options.granularity, options.witnesses)
                .only_beyond_hb(options.beyond_hb),
            before: Vec::new(),
            ideal: Vec::new(),
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
    /// `rank`, dropping those that never will; `None` when none does.
    #[allow(clippy::too_many_arguments)]
    fn scan(
        locksets: &Locksets,
        mine: u32,
        recording: &mut Recording,
        before: &Frontier,
        ideal: &mut Frontier,
        closures: &mut u64,
        list: &[Candidate],
        cursor: &mut usize,
        (t, rank): (ThreadId, u32),
        u: ThreadId,
    ) -> Option<Candidate> {
        while let Some(&c) = list.get(*cursor) {
            // Already below the access by thread order, fork, join and reads-from alone.
            if before.get(u.index()).is_some_and(|&n| n > c.rank) || locksets.share(c.lockset, mine)
            {
                *cursor += 1;
                continue;
            }
            ideal.clear();
            ideal.extend_from_slice(before);
            recording.join_predecessors(u, c.rank, ideal);
            recording.close(ideal);
            *closures += 1;
            if ideal[u.index()] > c.rank {
                *cursor += 1;
                continue;
            }
            if ideal[t.index()] > rank {
                return None;
            }
            return Some(c);
        }
        None
    }

    fn access(&mut self, e: &Event, x: VarId, write: bool, hb: &HappensBefore) {
        let t = e.thread;
        let rank = self.recording.rank_of_next(t);
        self.before.clear();
        self.before.resize(self.recording.thread_count(), 0);
        self.recording.join_predecessors(t, rank, &mut self.before);
        if x.index() >= self.vars.len() {
            self.vars.resize_with(x.index() + 1, Var::default);
        }
        let threads = self.recording.thread_count();
        let lockset = self.locksets.held(t);
        let var = &mut self.vars[x.index()];
        let before = var.bytes();
        grow(&mut var.reads, threads);
        grow(&mut var.writes, threads);
        grow(&mut var.read_cursor, threads);
        grow(&mut var.write_cursor, threads);
        grow(&mut var.read_cursor[t.index()], threads);
        grow(&mut var.write_cursor[t.index()], threads);
        let mut partner: Option<(ThreadId, Candidate, bool)> = None;
        for u in 0..threads {
            if u == t.index() {
                continue;
            }
            // Past the deadline the access is left unchecked and unrecorded: the pass stops
            // at its next poll, and what was reported is what the whole run reports of the
            // events before.
            if u % 64 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d) {
                return;
            }
            let ut = ThreadId(u as u32);
            let kinds: &[bool] = if write { &[true, false] } else { &[true] };
            for &writes in kinds {
                let (list, cursor) = if writes {
                    (&var.writes[u], &mut var.write_cursor[t.index()][u])
                } else {
                    (&var.reads[u], &mut var.read_cursor[t.index()][u])
                };
                let found = SyncP::scan(
                    &self.locksets,
                    lockset,
                    &mut self.recording,
                    &self.before,
                    &mut self.ideal,
                    &mut self.closures,
                    list,
                    cursor,
                    (t, rank),
                    ut,
                );
                if let Some(c) = found {
                    if partner.is_none_or(|(_, p, _)| c.index > p.index) {
                        partner = Some((ut, c, writes));
                    }
                }
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
        let var = &mut self.vars[x.index()];
        if write {
            var.writes[t.index()].push(me);
        } else {
            var.reads[t.index()].push(me);
        }
        self.var_bytes += var.bytes() - before;
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
