//! Happens-before data races, exactly: an access is *racy* when some earlier access to the same
//! variable by another thread, at least one of the two a write, is unordered with it by
//! happens-before. Every racy access is reported once, with the latest such earlier access.
//!
//! The per-variable state keeps, for reads and for writes, only the accesses that a later access
//! could still race with: an access may be dropped once a later access covers it (it happens
//! before that access, and that access conflicts with everything it conflicts with: a write
//! covers reads and writes, a read covers reads). Dropping is exact: whenever a dropped access
//! would race with a future access, so does the access that covered it, which is later in the
//! trace, so neither the verdict nor the latest partner changes. In the common race-free case
//! each set is a single FastTrack epoch; it grows only with accesses that really race (or with
//! concurrent reads, FastTrack's read-shared mode), to one access per thread, and the check of
//! a set of several walks it from the latest access down and stops at the first unordered one
//! ([`hindsight_order::latest`]): many threads on one variable cost no scan of them all.
//!
//! Racy accesses are reported grouped by default: one finding per distinct (variable, source
//! location of the earlier access, source location of the racy one), with how many racy
//! accesses it stands for, the threads involved and the first and last of them, so that memory
//! follows the distinct pairs and not the races. [`Granularity::EveryEvent`] reports every racy
//! access instead, handing its findings over batch by batch.

use crate::driver::{Analysis, AnalysisOutput, FindingsJob, LentCall, Observer};
use crate::groups::{count, Granularity, Group, Groups, Site};
use hindsight_order::{Entry, HappensBefore, LatestPerThread, VectorClock};
use hindsight_report::{EventRef, Finding, Rule};
use hindsight_trace::{ErrorKind, Event, LocId, Names, Op, ThreadId, VarId};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

/// An access a later one may race with: its epoch, and what a report needs to name it. Whether
/// it is a read or a write is known from the set that holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Access {
    thread: ThreadId,
    clock: u32,
    index: u64,
    loc: Option<LocId>,
}

/// The hot half of a set of accesses: what the check of every access reads. `clock == 0` is the
/// empty set, `thread == MANY` a set of several accesses kept in `Races::many`, anything else
/// the single access `clock@thread`.
///
/// Traces with many variables make this analysis bound by cache misses on per-variable state,
/// so the state is split: the check loads 16 bytes per variable (both sets), and the index and
/// location of the single access, needed only to report a race, live in a parallel cold array
/// that the common path only writes (stores do not stall the way loads do).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    thread: u32,
    clock: u32,
}

const MANY: u32 = u32::MAX;

/// Whether a set is empty or its single access happens before an access of `t` at `vc`: the
/// common case, decided from the hot half alone.
#[inline(always)]
fn single_or_empty_ordered(s: Slot, t: ThreadId, vc: &VectorClock) -> bool {
    s.clock == 0 || (s.thread != MANY && (s.thread == t.0 || s.clock <= vc.get(ThreadId(s.thread))))
}

/// The cold half of a single-access set.
#[derive(Clone, Copy, Debug, Default)]
struct Cold {
    index: u64,
    loc: Option<LocId>,
}

/// The reads and writes of one variable.
#[derive(Clone, Copy, Debug, Default)]
struct Hot {
    reads: Slot,
    writes: Slot,
}

#[derive(Clone, Copy, Debug, Default)]
struct ColdPair {
    reads: Cold,
    writes: Cold,
}

/// What a set of several accesses keeps of each (the thread and index are the entry's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Kept {
    clock: u32,
    loc: Option<LocId>,
}

/// A set of several accesses: each thread's latest, in trace order (see
/// [`hindsight_order::latest`] for why the check does not scan them all).
type Many = LatestPerThread<Kept>;

fn access_of(e: Entry<Kept>) -> Access {
    Access {
        thread: e.thread,
        clock: e.value.clock,
        index: e.index,
        loc: e.value.loc,
    }
}

fn entry_of(a: Access) -> Entry<Kept> {
    Entry {
        thread: a.thread,
        index: a.index,
        value: Kept {
            clock: a.clock,
            loc: a.loc,
        },
    }
}

/// The sets of several accesses, keyed by variable and "is the write set", and the bytes they
/// hold (kept up to date as they change, so that a budget may poll it).
#[derive(Default)]
struct ManySets {
    sets: FxHashMap<(VarId, bool), Many>,
    bytes: usize,
}

/// One set of accesses (the reads or the writes of a variable), spread over its three homes.
///
/// A set of several accesses keeps, besides the accesses no later one covers, some that a
/// later one does (an access is dropped when a check passes over it, not whenever it becomes
/// covered, which would take a scan of the set): a covered access never changes an answer,
/// since the access that covers it is later in the trace and unordered with every access it
/// is unordered with. The set keeps one access per thread, so what it holds stays bounded by
/// the threads.
struct Set<'a> {
    slot: &'a mut Slot,
    cold: &'a mut Cold,
    many: &'a mut ManySets,
    key: (VarId, bool),
}

impl Set<'_> {
    #[inline]
    fn single(&self) -> Access {
        Access {
            thread: ThreadId(self.slot.thread),
            clock: self.slot.clock,
            index: self.cold.index,
            loc: self.cold.loc,
        }
    }

    #[inline]
    fn set_single(&mut self, a: Access) {
        *self.slot = Slot {
            thread: a.thread.0,
            clock: a.clock,
        };
        *self.cold = Cold {
            index: a.index,
            loc: a.loc,
        };
    }

    /// Whether the set is empty or its single access happens before an access of `t` at
    /// `vc`: the common case, decided from the hot half alone.
    #[inline(always)]
    fn single_or_empty_ordered(&self, t: ThreadId, vc: &VectorClock) -> bool {
        single_or_empty_ordered(*self.slot, t, vc)
    }

    /// The latest access of the set unordered with an access of `t` at `vc`. With `covers`
    /// (the access covers the set's), the accesses the check passes over are dropped.
    #[inline(always)]
    fn latest_unordered(&mut self, t: ThreadId, vc: &VectorClock, covers: bool) -> Option<Access> {
        if self.single_or_empty_ordered(t, vc) {
            if covers {
                *self.slot = Slot::default();
            }
            None
        } else if self.slot.thread != MANY {
            Some(self.single())
        } else {
            self.latest_unordered_of_many(t, vc, covers)
        }
    }

    #[cold]
    #[inline(never)]
    fn latest_unordered_of_many(
        &mut self,
        t: ThreadId,
        vc: &VectorClock,
        covers: bool,
    ) -> Option<Access> {
        let set = self
            .many
            .sets
            .get_mut(&self.key)
            .expect("a set of several accesses is kept");
        let before = set.bytes();
        let ordered = |e: &Entry<Kept>| e.value.clock <= vc.get(e.thread);
        let found = set.latest_unordered(t, ordered, covers).map(access_of);
        let (after, len) = (set.bytes(), set.len());
        self.many.bytes = self.many.bytes + after - before;
        if len <= 1 {
            self.settle();
        }
        found
    }

    /// Adds `new`, the latest access; the set holds no access of its thread but those the
    /// set may keep (see [`Set`]).
    #[inline(always)]
    fn add(&mut self, new: Access) {
        if self.slot.clock == 0 || (self.slot.thread == new.thread.0) {
            self.set_single(new);
        } else {
            self.add_to_many(new);
        }
    }

    #[cold]
    #[inline(never)]
    fn add_to_many(&mut self, new: Access) {
        let (set, before) = if self.slot.thread == MANY {
            let set = self
                .many
                .sets
                .get_mut(&self.key)
                .expect("a set of several accesses is kept");
            let before = set.bytes();
            (set, before)
        } else {
            let mut set = Many::default();
            set.record(entry_of(self.single()));
            self.slot.thread = MANY;
            (self.many.sets.entry(self.key).or_insert(set), 0)
        };
        set.record(entry_of(new));
        self.many.bytes = self.many.bytes + set.bytes() - before;
    }

    /// Drops `t`'s access, covered by an access of `t` that conflicts with it.
    #[inline(always)]
    fn drop_thread(&mut self, t: ThreadId) {
        if self.slot.thread == t.0 {
            *self.slot = Slot::default();
        } else if self.slot.thread == MANY {
            self.drop_thread_of_many(t);
        }
    }

    #[cold]
    #[inline(never)]
    fn drop_thread_of_many(&mut self, t: ThreadId) {
        let set = self
            .many
            .sets
            .get_mut(&self.key)
            .expect("a set of several accesses is kept");
        let before = set.bytes();
        set.remove(t);
        let (after, len) = (set.bytes(), set.len());
        self.many.bytes = self.many.bytes + after - before;
        if len <= 1 {
            self.settle();
        }
    }

    /// Leaves the several-access state for the single access or the empty set it shrank to.
    fn settle(&mut self) {
        let set = self
            .many
            .sets
            .remove(&self.key)
            .expect("a set of several accesses is kept");
        self.many.bytes -= set.bytes();
        match set.last() {
            None => *self.slot = Slot::default(),
            Some(e) => self.set_single(access_of(e)),
        }
    }
}

/// One racy access and the latest earlier access it races with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Race {
    pub var: VarId,
    /// Index of the earlier partner in the trace.
    pub partner: u64,
    /// Index of the racy access.
    pub racy: u64,
    partner_access: (Access, bool),
    racy_access: (Access, bool),
}

/// An access as a race report names it: the access, and whether it is a write.
type Side = (Access, bool);

/// What groups racy accesses: the variable, and where the earlier and the racy access stand.
type RaceKey = (VarId, Site, Site);

/// The `races` analysis.
#[derive(Default)]
pub struct Races {
    hot: Vec<Hot>,
    cold: Vec<ColdPair>,
    /// Sets of several accesses.
    many: ManySets,
    granularity: Granularity,
    /// Every racy access not yet handed over to a findings job (every-event reports only).
    races: Vec<Race>,
    /// The racy accesses by group (grouped reports only), each the pair (partner, racy).
    groups: Groups<RaceKey, (Side, Side)>,
    racy_events: u64,
    racy_variables: FxHashSet<VarId>,
    /// The source locations of racy accesses: RAPID's "racy lines".
    racy_locations: FxHashSet<LocId>,
}

impl Races {
    /// The analysis reporting racy accesses grouped by variable and pair of source locations.
    pub fn new() -> Races {
        Races::default()
    }

    /// The analysis reporting at `granularity`.
    pub fn with_granularity(granularity: Granularity) -> Races {
        Races {
            granularity,
            ..Races::default()
        }
    }

    /// The races found so far and not handed over, in trace order of the racy access (every
    /// racy access is kept only at [`Granularity::EveryEvent`]).
    pub fn races(&self) -> &[Race] {
        &self.races
    }

    #[cold]
    fn found(&mut self, race: Race) {
        self.racy_events += 1;
        let (p, a) = (race.partner_access, race.racy_access);
        match self.granularity {
            Granularity::EveryEvent => {
                self.racy_variables.insert(race.var);
                self.racy_locations.extend(a.0.loc);
                self.races.push(race);
            }
            // The variables and locations are the groups' keys' (counted at the end).
            Granularity::Grouped => {
                let key = (race.var, site(&p), site(&a));
                self.groups.add(key, &[p.0.thread, a.0.thread], (p, a));
            }
        }
    }

    #[inline]
    fn access(&mut self, x: VarId, write: bool, e: &Event, hb: &HappensBefore) {
        if x.index() >= self.hot.len() {
            self.hot.resize(x.index() + 1, Hot::default());
            self.cold.resize(x.index() + 1, ColdPair::default());
        }
        let t = e.thread;
        let vc = hb.clock(t);
        let me = Access {
            thread: t,
            clock: vc.get(t),
            index: e.index,
            loc: e.loc,
        };
        let hot = &mut self.hot[x.index()];
        let cold = &mut self.cold[x.index()];
        // Fast path, almost every access of a well-synchronised program: each set is empty or
        // one access ordered before this one. No race; this access replaces what it covers.
        if single_or_empty_ordered(hot.writes, t, vc) && single_or_empty_ordered(hot.reads, t, vc) {
            let slot = Slot {
                thread: t.0,
                clock: me.clock,
            };
            let c = Cold {
                index: me.index,
                loc: me.loc,
            };
            if write {
                (hot.writes, cold.writes) = (slot, c);
                hot.reads = Slot::default();
            } else {
                (hot.reads, cold.reads) = (slot, c);
            }
            return;
        }
        let mut writes = Set {
            slot: &mut hot.writes,
            cold: &mut cold.writes,
            many: &mut self.many,
            key: (x, true),
        };
        // A write covers the writes it is ordered after; a read covers none of them.
        let mut partner = writes.latest_unordered(t, vc, write).map(|w| (w, true));
        if write {
            writes.add(me);
        }
        let mut reads = Set {
            slot: &mut hot.reads,
            cold: &mut cold.reads,
            many: &mut self.many,
            key: (x, false),
        };
        // Either access covers the reads it is ordered after; only a write races with them.
        let r = reads.latest_unordered(t, vc, true);
        if write {
            if let Some(r) = r {
                if partner.is_none_or(|(w, _)| r.index > w.index) {
                    partner = Some((r, false));
                }
            }
            reads.drop_thread(t);
        } else {
            reads.add(me);
        }
        if let Some(p) = partner {
            self.found(Race {
                var: x,
                partner: p.0.index,
                racy: e.index,
                partner_access: p,
                racy_access: (me, write),
            });
        }
    }
}

fn site(&(a, write): &Side) -> Site {
    Site::of(a.loc, u32::from(write), a.thread)
}

fn event_ref(&(a, write): &Side, x: VarId, names: &Names) -> EventRef {
    EventRef {
        index: a.index,
        thread: names.thread(a.thread).to_owned(),
        op: format!("{}({})", if write { "w" } else { "r" }, names.var(x)),
        location: a.loc.map(|l| names.location(l).to_owned()),
    }
}

fn describe(&(_, write): &Side) -> &'static str {
    if write {
        "write"
    } else {
        "read"
    }
}

/// Where a side of a group stands, for its message.
fn place(side: &Side, names: &Names) -> String {
    match side.0.loc {
        Some(l) => format!("at {}", names.location(l)),
        None => format!("by {}", names.thread(side.0.thread)),
    }
}

/// The finding of one racy access.
fn race_finding(r: &Race, names: &Names) -> Finding {
    let var = names.var(r.var);
    let (p, a) = (&r.partner_access, &r.racy_access);
    let message = format!(
        "{} of `{var}` by {} (#{}) races with the earlier {} by {} (#{})",
        describe(a),
        names.thread(a.0.thread),
        a.0.index,
        describe(p),
        names.thread(p.0.thread),
        p.0.index
    );
    let mut fields = serde_json::Map::new();
    fields.insert("variable".into(), Value::from(var));
    Finding {
        kind: "data-race".into(),
        message,
        occurrences: None,
        events: vec![event_ref(p, r.var, names), event_ref(a, r.var, names)],
        fields,
        group: Some(var.to_owned()),
    }
}

/// The finding of a group of racy accesses.
fn group_finding(g: &Group<RaceKey, (Side, Side)>, names: &Names) -> Finding {
    let (x, _, _) = g.key;
    let var = names.var(x);
    let (p, a) = &g.first;
    let threads: Vec<&str> = g.threads.iter().map(|&t| names.thread(t)).collect();
    let message = format!(
        "{} of `{var}` {} races with the earlier {} {} ({}; threads {})",
        describe(a),
        place(a, names),
        describe(p),
        place(p, names),
        count(g.occurrences, "racy access", "racy accesses"),
        threads.join(", ")
    );
    let mut fields = serde_json::Map::new();
    fields.insert("variable".into(), Value::from(var));
    fields.insert("threads".into(), Value::from(threads));
    if let Some((p, a)) = &g.last {
        let last = [event_ref(p, x, names), event_ref(a, x, names)];
        fields.insert(
            "last".into(),
            serde_json::to_value(last).expect("event references serialize"),
        );
    }
    Finding {
        kind: "data-race".into(),
        message,
        occurrences: Some(g.occurrences),
        events: vec![event_ref(p, x, names), event_ref(a, x, names)],
        fields,
        group: None,
    }
}

impl Observer for Races {
    fn name(&self) -> &'static str {
        "races"
    }

    /// The per-variable tables, the sets of several accesses, the racy accesses not yet
    /// handed over and the groups.
    fn held_bytes(&self) -> u64 {
        use std::mem::size_of;
        let many = size_of::<((VarId, bool), Many)>() + 1;
        (self.hot.capacity() * size_of::<Hot>()
            + self.cold.capacity() * size_of::<ColdPair>()
            + self.many.sets.capacity() * many
            + self.many.bytes
            + self.races.capacity() * size_of::<Race>()
            + (self.racy_variables.capacity() + self.racy_locations.capacity()) * 5) as u64
            + self.groups.bytes()
    }

    #[inline]
    fn on_event(&mut self, e: &Event, hb: &HappensBefore, _: &Names) -> Result<(), ErrorKind> {
        match e.op {
            Op::Read(x) => self.access(x, false, e, hb),
            Op::Write(x) => self.access(x, true, e, hb),
            _ => {}
        }
        Ok(())
    }

    /// Calls are nothing to races.
    fn on_call(&mut self, _: &LentCall<'_>, _: &HappensBefore, _: &Names) -> Result<(), ErrorKind> {
        Ok(())
    }

    /// Every racy access found in the batch, as findings built elsewhere: so that reporting
    /// every racy access does not hold them all until the end.
    fn findings_job(&mut self) -> Option<FindingsJob> {
        if self.races.is_empty() {
            return None;
        }
        let races = std::mem::take(&mut self.races);
        Some(Box::new(move |names: &Names| {
            races.iter().map(|r| race_finding(r, names)).collect()
        }))
    }
}

impl Analysis for Races {
    fn finish(self: Box<Self>, names: &Names) -> AnalysisOutput {
        let mut out = AnalysisOutput::default();
        let groups = self.groups.len();
        let (mut racy_variables, mut racy_locations) = (self.racy_variables, self.racy_locations);
        for g in self.groups.iter() {
            let (x, _, racy) = g.key;
            racy_variables.insert(x);
            if let Site::At(l) = racy {
                racy_locations.insert(l);
            }
        }
        out.findings = self.races.iter().map(|r| race_finding(r, names)).collect();
        out.findings.extend(
            self.groups
                .into_sorted()
                .iter()
                .map(|g| group_finding(g, names)),
        );
        let s = &mut out.summary;
        s.insert("racy_events".into(), Value::from(self.racy_events));
        s.insert("racy_locations".into(), Value::from(racy_locations.len()));
        s.insert("racy_variables".into(), Value::from(racy_variables.len()));
        if self.granularity == Granularity::Grouped {
            s.insert("groups".into(), Value::from(groups));
        }
        out.rules.push(Rule {
            id: "data-race",
            description: "Two accesses to one variable by different threads, at least one a write, unordered by happens-before",
        });
        out
    }
}
