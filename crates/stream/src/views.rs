//! Views from a trace (MoTH's views, observed instead of computed): every atomic region of a
//! thread gives a view, built access by access with `add` exactly as HEAP READ and HEAP WRITE
//! do. A region is an outermost `begin`..`end` block, an outermost lock region (from the first
//! acquire while holding no lock to the release of the last lock held), or either
//! (`--regions blocks|locks|both`). By default lock regions, unless the trace has no lock at
//! all and has blocks: `begin`/`end` has one meaning across the analyses, code that *should*
//! be atomic (what `atomicity` checks, and what the recorder's `atomic_block` writes), so in a
//! trace with locks its blocks are not what the program runs atomically; only in a trace with
//! no lock (a MoTH program's, whose atomic sections are its only synchronization) are they
//! the regions.
//!
//! Beyond the paper (Section 4.3):
//! - *object instances kept apart*: a trace variable `Class#id.field` (the Java agent's
//!   `Class.field@ID`) is its own variable; the paper's class-level variable `Class.field` is
//!   used only to count the warnings that separating instances removed;
//! - *arrays*: the Java agent's element variables `T[]@ID[i]` are one variable per array, as
//!   the static front end's element variable is (see `element_variable`);
//! - *may happen in parallel*: a warning needs a region of one thread to run between two
//!   regions of another. Regions ordered in every schedule cannot: the analysis runs its own
//!   happens-before pass (the same `HappensBefore`) over the edges that order every schedule,
//!   fork, join, send and receive, leaving out lock edges, which only record which critical
//!   section happened to go first (with them, any two regions on one lock would look ordered);
//!   until the first acquire or release that pass is the driver's own, copied from there on. A
//!   warning whose regions never run in parallel is dropped (`--no-mhp` keeps them). Orders
//!   made through locks (a flag set and polled under a lock) are not seen, so the filter errs
//!   on the side of keeping warnings.
//!
//! Memory is bounded by the number of distinct views per thread, not by the trace: per (thread,
//! view) the analysis keeps the view once, the events of its first region, and four numbers.
//! Two views of different threads *may run in parallel* when some region of one is unordered
//! with some region of the other; the relation is kept for the pairs of views that conflict
//! (a variable both access and one of them writes), the only pairs a sensor's witness holds
//! (see `mark_parallel`), so that threads running at once over views that share no written
//! variable cost no pair. It is decided exactly, online: when a region `B'` of thread
//! `u` ends, a region `B` of thread `t` that ended earlier is unordered with it iff
//! `epoch(B.end) > clock(B'.begin)[t]`, so only the latest end of each view of `t` matters, and
//! `t`'s views are kept in order of their latest end so that the scan stops at the first one
//! ordered before `B'` (or already examined at the previous end of `B'`'s view).
//!
//! This module knows events, happens-before and views; the sensors know none of that.

use crate::driver::{Analysis, AnalysisOutput, Observer};
use crate::groups::{count, Granularity, Groups};
use hindsight_budget::{Account, Budget, Spent};
use hindsight_order::{HappensBefore, VectorClock};
use hindsight_report::{EventRef, Finding};
use hindsight_trace::{ErrorKind, Event, LocId, Names, Op, ThreadId, VarId};
use hindsight_views::sensors::{Warning, LIMIT};
use hindsight_views::view::{add_bits, Kind, Mark, View, WRITES};
use hindsight_views::{
    detect_within, findings, mhp_filter, rules, Knowledge, Provenance, Schedule, ThreadViews,
    ViewId,
};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;
use std::sync::Arc;

/// Which regions are atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Regions {
    /// Lock regions if the trace has a lock; `begin`/`end` blocks if it has none (and has
    /// blocks).
    Auto,
    Blocks,
    Locks,
    Both,
}

impl Regions {
    fn name(self) -> &'static str {
        match self {
            // Still `Auto` at the end: no block came before the trace's first lock, lock
            // regions were used.
            Regions::Auto => "locks",
            Regions::Blocks => "blocks",
            Regions::Locks => "locks",
            Regions::Both => "both",
        }
    }
}

const NONE: u32 = u32::MAX;

/// How the analysis finds the views a region that ends may run in parallel with (see
/// `DynamicViews::mark_parallel`). Both ways give the same relation; the choice is the
/// cheaper at each region's end, and a test can force one to hold each to the brute force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marking {
    /// The cheaper of the two at each end.
    Cheaper,
    /// Through the variables of the region's view.
    ByVariables,
    /// Through the threads that may have a region unordered with it.
    ByThreads,
}

/// How many pairs of conflicting views the may-happen-in-parallel relation records at most
/// (64 MB or so). Past it the relation is saturated: every pair is taken to run in parallel,
/// so the filter removes only what program order rules out, never a warning it cannot
/// justify.
const MAX_PARALLEL_PAIRS: usize = 1 << 22;

/// An access event of a region: index and location.
type At = (u64, Option<LocId>);

/// One variable of the open region: its bits and its first read and first write.
#[derive(Clone, Copy)]
struct Entry {
    var: u32,
    bits: u8,
    read: Option<At>,
    write: Option<At>,
}

/// What is kept of every thread the trace has: a few numbers (a thread per request makes
/// hundreds of thousands of threads, most of them long finished).
#[derive(Clone, Copy)]
struct ThreadState {
    depth: u32,
    locks: u32,
    /// The thread's open region in `DynamicViews::open_regions` (`NONE`: none is open).
    region: u32,
    /// Its most recently ended slot (`NONE`: none yet).
    head: u32,
    /// Its number of slots.
    slots: u32,
    /// The thread's place in `DynamicViews::open` (`NONE`: not there): a join takes it out
    /// without a search (a thread per request joins its threads in the order it forked them,
    /// which a search of the open threads would meet last once they are shuffled).
    open_at: u32,
}

impl Default for ThreadState {
    fn default() -> ThreadState {
        ThreadState {
            depth: 0,
            locks: 0,
            region: NONE,
            head: NONE,
            slots: 0,
            open_at: NONE,
        }
    }
}

impl ThreadState {
    fn active(&self) -> bool {
        self.region != NONE
    }
}

/// The region a thread has open: kept while it is open only, and reused for the next region of
/// any thread, so that memory follows the regions open at once rather than the threads seen.
#[derive(Default)]
struct OpenRegion {
    begin: u64,
    begin_clock: VectorClock,
    entries: Vec<Entry>,
    /// Position of a variable in `entries`, once a region is too long for a linear scan.
    index: FxHashMap<u32, u32>,
    /// The region's accesses in order, replayed at class level when two of its variables are
    /// one class-level variable (the marks then depend on the order).
    log: Vec<(u32, Kind)>,
}

/// A view of one thread: the first region that produced it, and what the may-happen-in-parallel
/// filter needs of all its regions.
struct Slot {
    thread: u32,
    view: ViewId,
    first_begin: u64,
    first_end: u64,
    first_events: Box<[Entry]>,
    last_begin: u64,
    /// Epoch of the latest end, and its trace index + 1 (0: none yet).
    last_end_epoch: u32,
    last_end_seq: u64,
    /// Neighbours in the thread's list of slots by latest end, most recent first.
    prev: u32,
    next: u32,
    /// Per thread, how many of its slots are known to run in parallel with this one (a map:
    /// with a thread per request, a slot meets few of the many threads; boxed, as a slot per
    /// thread of such a trace meets none and the empty map would cost each its size).
    known: Option<Box<FxHashMap<u32, u32>>>,
}

fn bump(counts: &mut Option<Box<FxHashMap<u32, u32>>>, t: usize) {
    *counts
        .get_or_insert_with(Box::default)
        .entry(t as u32)
        .or_insert(0) += 1;
}

/// A thread joined, and the joining thread's epoch at the join.
#[derive(Clone, Copy)]
struct Joined {
    epoch: u32,
    thread: u32,
}

/// Views interned by contents.
#[derive(Default)]
struct Interner {
    ids: FxHashMap<Box<[(u32, u8)]>, ViewId>,
    views: Vec<View>,
    /// Entries of all the views.
    entries: usize,
}

impl Interner {
    fn intern(&mut self, entries: &[(u32, u8)]) -> ViewId {
        if let Some(&id) = self.ids.get(entries) {
            return id;
        }
        let id = self.views.len() as ViewId;
        self.entries += entries.len();
        self.views.push(View::from_entries(entries.to_vec()));
        self.ids.insert(entries.into(), id);
        id
    }
}

/// The paper's class-level views (`Class.field` for every `Class#id.field`), kept only once the
/// trace names an instance.
#[derive(Default)]
struct ClassLevel {
    views: Interner,
    /// Which class-level views each thread has: (thread, view).
    threads: FxHashSet<(u32, u32)>,
    /// The class-level view of each view, when renaming its variables gives it (`NONE`: not
    /// computed yet, `COLLIDES`: two of its variables are one class-level variable).
    of_view: Vec<u32>,
}

const COLLIDES: u32 = u32::MAX - 1;

impl ClassLevel {
    fn insert(&mut self, t: usize, id: ViewId) {
        self.threads.insert((t as u32, id));
    }

    /// The class-level view of `view` if renaming gives it.
    fn renamed(&mut self, view: ViewId, views: &Interner, var_class: &[u32]) -> u32 {
        if let Some(&id) = self.of_view.get(view as usize) {
            if id != NONE {
                return id;
            }
        }
        let mut entries: Vec<(u32, u8)> = views.views[view as usize]
            .entries()
            .iter()
            .map(|&(v, b)| (var_class[v as usize], b))
            .collect();
        entries.sort_unstable_by_key(|e| e.0);
        let id = if entries.windows(2).any(|w| w[0].0 == w[1].0) {
            COLLIDES
        } else {
            self.views.intern(&entries)
        };
        if self.of_view.len() <= view as usize {
            self.of_view.resize(view as usize + 1, NONE);
        }
        self.of_view[view as usize] = id;
        id
    }
}

/// The `views` analysis over a trace.
pub struct DynamicViews {
    regions: Regions,
    mhp: bool,
    marking: Marking,
    /// `Auto` has seen an acquire: the trace has locks, so its blocks are not regions.
    seen_lock: bool,
    /// `Auto` took blocks at a `begin` before any acquire; the first acquire undoes that.
    provisional: bool,
    threads: Vec<ThreadState>,
    open_regions: Vec<OpenRegion>,
    /// The entries of `open_regions` no thread has open.
    free_regions: Vec<u32>,
    views: Interner,
    /// The slot of each (thread, view) the trace has.
    slot_of: FxHashMap<(u32, ViewId), u32>,
    slots: Vec<Slot>,
    /// The pairs of slots (smaller first) whose views conflict and have regions unordered.
    parallel: FxHashSet<(u32, u32)>,
    /// Per variable of the views (by id), the slots whose view accesses it, and those whose
    /// view writes it: where `mark_parallel` finds the slots a view conflicts with. Kept
    /// with the filter on only.
    accessing: Vec<Vec<u32>>,
    writing: Vec<Vec<u32>>,
    /// Entries of `accessing` and `writing`.
    var_slots: usize,
    /// The threads with slots that may have a region unordered with a region about to end:
    /// those not joined, and those joined since (see `joined`).
    open: Vec<u32>,
    /// Per joining thread, the threads it joined, in order, with its epoch at each join: a
    /// region beginning after a join (its clock holds that epoch) is ordered after every region
    /// the joined thread ended before it, so the threads joined early drop out of every scan
    /// of a thread-per-request trace.
    joined: FxHashMap<u32, Vec<Joined>>,
    /// The threads with a non-empty `joined` list.
    joiners: Vec<u32>,
    /// Class-level variable of each trace variable (`NONE`: not seen yet).
    var_class: Vec<u32>,
    class_names: Vec<String>,
    class_ids: FxHashMap<String, u32>,
    class: Option<ClassLevel>,
    /// Per trace variable, the variable that stands for it in views (`NONE`: not seen yet):
    /// itself, or for an element of a Java array the array's first element seen.
    element_of: Vec<u32>,
    /// Per Java array (`T[]@ID`), the variable standing for all its elements.
    arrays: FxHashMap<String, u32>,
    /// The name each array's standing variable is reported by: `T[]@ID[]`.
    array_names: FxHashMap<u32, String>,
    scratch: Vec<(u32, u8)>,
    scratch_threads: Vec<u32>,
    /// Entries of all the slots' `first_events`.
    slot_events: usize,
    region_count: u64,
    /// Happens-before without lock edges (see the module comment): until the first acquire or
    /// release it is the pass's own happens-before (`None`), from there on a copy of it that
    /// leaves lock edges out.
    must: Option<HappensBefore>,
    /// One finding per group of warnings with the same kind and source locations, or one per
    /// warning.
    granularity: Granularity,
    /// The run's budget, and what this analysis has charged to it.
    budget: Option<Charge>,
    /// Events seen; past the budget, the pass stops here and the report is unknown.
    events: u64,
    stopped: bool,
}

/// How many events pass between two looks at the budget.
const POLL_EVERY: u64 = 1024;

/// What the views, the slots and the may-happen-in-parallel relation hold, charged to the run's
/// budget. An [`Account`] borrows its budget, and an analysis is owned by the pass that feeds
/// it, so each increase is charged through an account made for it and kept charged: the
/// structures live until the report is made, at the end of the run.
struct Charge {
    budget: Arc<Budget>,
    charged: u64,
}

impl Charge {
    fn hold(&mut self, bytes: u64) -> Result<(), Spent> {
        if bytes <= self.charged {
            return Ok(());
        }
        let mut account = Account::new(&self.budget);
        let held = account.hold(bytes - self.charged);
        self.charged += account.charged();
        // Kept charged (see above): dropping the account would give the bytes back.
        std::mem::forget(account);
        held
    }
}

impl DynamicViews {
    pub fn new(regions: Regions, mhp: bool) -> DynamicViews {
        DynamicViews {
            regions,
            mhp,
            marking: Marking::Cheaper,
            seen_lock: false,
            provisional: false,
            threads: Vec::new(),
            open_regions: Vec::new(),
            free_regions: Vec::new(),
            views: Interner::default(),
            slot_of: FxHashMap::default(),
            slots: Vec::new(),
            parallel: FxHashSet::default(),
            accessing: Vec::new(),
            writing: Vec::new(),
            var_slots: 0,
            open: Vec::new(),
            joined: FxHashMap::default(),
            joiners: Vec::new(),
            var_class: Vec::new(),
            class_names: Vec::new(),
            class_ids: FxHashMap::default(),
            class: None,
            element_of: Vec::new(),
            arrays: FxHashMap::default(),
            array_names: FxHashMap::default(),
            scratch: Vec::new(),
            scratch_threads: Vec::new(),
            slot_events: 0,
            region_count: 0,
            must: None,
            granularity: Granularity::Grouped,
            budget: None,
            events: 0,
            stopped: false,
        }
    }

    /// The analysis reporting at `granularity`.
    pub fn with_granularity(self, granularity: Granularity) -> DynamicViews {
        DynamicViews {
            granularity,
            ..self
        }
    }

    /// The analysis finding parallel views one way only (for tests: the answer is the same).
    pub fn with_marking(self, marking: Marking) -> DynamicViews {
        DynamicViews { marking, ..self }
    }

    /// The analysis within `budget`: the memory of its views, slots and relation of views
    /// that may run in parallel is charged to it, the clock polled as events pass; once the
    /// budget is spent the pass stops, and the report says what the events seen so far show
    /// and that the answer is unknown.
    pub fn within(self, budget: Arc<Budget>) -> DynamicViews {
        DynamicViews {
            budget: Some(Charge { budget, charged: 0 }),
            ..self
        }
    }

    /// What the growing structures hold, in bytes (an estimate from their lengths).
    fn held(&self) -> u64 {
        use std::mem::size_of;
        let threads = self.threads.len() * size_of::<ThreadState>();
        let views = self.views.views.len() * (2 * size_of::<View>() + 48)
            + self.views.entries * 2 * size_of::<(u32, u8)>();
        let slots =
            self.slots.len() * (size_of::<Slot>() + 24) + self.slot_events * size_of::<Entry>();
        // A pair in the set, and the two counts it bumps.
        let parallel = self.parallel.len() * (size_of::<(u32, u32)>() + 2 * 16)
            + (self.accessing.len() + self.writing.len()) * size_of::<Vec<u32>>()
            + self.var_slots * size_of::<u32>();
        let class = self.class.as_ref().map_or(0, |c| {
            c.threads.len() * 16 + c.views.entries * 2 * size_of::<(u32, u8)>()
        });
        (threads + views + slots + parallel + class) as u64
    }

    /// Every [`POLL_EVERY`] events: the steps counted, the clock read and the memory charged;
    /// whether the pass goes on.
    #[cold]
    fn poll(&mut self) -> bool {
        let held = self.held();
        let Some(charge) = &mut self.budget else {
            return true;
        };
        charge.budget.add_steps(POLL_EVERY);
        let spent = charge.budget.check().and_then(|()| charge.hold(held));
        self.stopped = spent.is_err();
        !self.stopped
    }

    /// Every distinct view of every thread so far, with its thread.
    pub fn thread_views(&self) -> Vec<(ThreadId, View)> {
        self.slots
            .iter()
            .map(|s| {
                (
                    ThreadId(s.thread),
                    self.views.views[s.view as usize].clone(),
                )
            })
            .collect()
    }

    /// The pairs of (thread, view) some of whose regions are unordered (the may-happen-in-
    /// parallel relation, recorded only when the filter is on).
    pub fn parallel_views(&self) -> Vec<((ThreadId, View), (ThreadId, View))> {
        let of = |s: u32| {
            let s = &self.slots[s as usize];
            (
                ThreadId(s.thread),
                self.views.views[s.view as usize].clone(),
            )
        };
        self.parallel.iter().map(|&(a, b)| (of(a), of(b))).collect()
    }

    fn slot_index(&self, t: u32, v: ViewId) -> u32 {
        self.slot_of[&(t, v)]
    }

    fn counts_blocks(&self) -> bool {
        matches!(self.regions, Regions::Blocks | Regions::Both)
    }

    fn counts_locks(&self) -> bool {
        matches!(self.regions, Regions::Auto | Regions::Locks | Regions::Both)
    }

    /// The first `begin` of an `Auto` run before any acquire: blocks are the regions (there
    /// were no lock regions to forget), until an acquire says the trace has locks; then the
    /// block regions are forgotten and lock regions counted from that acquire on, which are
    /// all of the trace's. So `Auto` takes exactly: lock regions if the trace has a lock,
    /// blocks otherwise.
    #[cold]
    fn switch_to(&mut self, regions: Regions) {
        let (mhp, granularity, marking) = (self.mhp, self.granularity, self.marking);
        let var_class = std::mem::take(&mut self.var_class);
        let (names, ids) = (
            std::mem::take(&mut self.class_names),
            std::mem::take(&mut self.class_ids),
        );
        let must = std::mem::take(&mut self.must);
        let (budget, events) = (self.budget.take(), self.events);
        *self = DynamicViews::new(regions, mhp)
            .with_granularity(granularity)
            .with_marking(marking);
        self.provisional = regions == Regions::Blocks;
        self.seen_lock = regions == Regions::Locks;
        self.must = must;
        self.budget = budget;
        self.events = events;
        self.var_class = var_class;
        self.class_names = names;
        self.class_ids = ids;
    }

    #[inline]
    fn thread(&mut self, t: ThreadId) -> &mut ThreadState {
        if t.index() >= self.threads.len() {
            self.threads
                .resize_with(t.index() + 1, ThreadState::default);
        }
        &mut self.threads[t.index()]
    }

    fn start(&mut self, e: &Event, must: &HappensBefore) {
        let r = match self.free_regions.pop() {
            Some(r) => r,
            None => {
                self.open_regions.push(OpenRegion::default());
                (self.open_regions.len() - 1) as u32
            }
        };
        self.threads[e.thread.index()].region = r;
        let region = &mut self.open_regions[r as usize];
        region.begin = e.index;
        region.begin_clock.copy_from(must.clock(e.thread));
        region.entries.clear();
        region.index.clear();
        region.log.clear();
    }

    /// The open region of `t` (which has one).
    fn region(&self, t: ThreadId) -> &OpenRegion {
        &self.open_regions[self.threads[t.index()].region as usize]
    }

    /// The class-level variable of `x`, interning it on first sight.
    #[inline]
    fn class_of(&mut self, x: VarId, names: &Names) -> u32 {
        if x.index() < self.var_class.len() && self.var_class[x.index()] != NONE {
            return self.var_class[x.index()];
        }
        self.new_var(x, names)
    }

    #[cold]
    fn new_var(&mut self, x: VarId, names: &Names) -> u32 {
        if x.index() >= self.var_class.len() {
            self.var_class.resize(x.index() + 1, NONE);
        }
        let name = names.var(x);
        let class = class_name(name);
        let id = match self.class_ids.get(class.as_str()) {
            Some(&id) => id,
            None => {
                let id = self.class_names.len() as u32;
                self.class_names.push(class.clone());
                self.class_ids.insert(class.clone(), id);
                id
            }
        };
        self.var_class[x.index()] = id;
        if class != name && self.class.is_none() {
            self.start_class_level();
        }
        id
    }

    /// The first instance variable: until now every variable was its own class-level variable,
    /// so the class-level views so far are the views renamed.
    #[cold]
    fn start_class_level(&mut self) {
        let mut level = ClassLevel::default();
        for i in 0..self.slots.len() {
            let (t, view) = (self.slots[i].thread, self.slots[i].view);
            let id = level.renamed(view, &self.views, &self.var_class);
            level.insert(t as usize, id);
        }
        self.class = Some(level);
    }

    /// The variable standing for `x` in views. MoTH's views hold one variable per class and
    /// field (HEAP READ, HEAP WRITE), and the static front end one element variable per array
    /// (`C.f[]`), whose index a region may have chosen from what another read: the recorded
    /// run's element variables (`T[]@ID[i]`, the Java agent's, one per element for `races`) are
    /// therefore one variable per array here, or a slot found free in one region and marked in
    /// another by a second thread (index 1, after the first thread took 0) would be two
    /// unrelated variables and the stale value invisible.
    #[inline]
    fn element_variable(&mut self, x: VarId, names: &Names) -> VarId {
        match self.element_of.get(x.index()) {
            Some(&v) if v != NONE => VarId(v),
            _ => self.new_element_variable(x, names),
        }
    }

    #[cold]
    fn new_element_variable(&mut self, x: VarId, names: &Names) -> VarId {
        if x.index() >= self.element_of.len() {
            self.element_of.resize(x.index() + 1, NONE);
        }
        let rep = match java_array_of(names.var(x)) {
            Some(array) => match self.arrays.get(array) {
                Some(&rep) => rep,
                None => {
                    self.arrays.insert(array.to_owned(), x.0);
                    self.array_names.insert(x.0, format!("{array}[]"));
                    x.0
                }
            },
            None => x.0,
        };
        self.element_of[x.index()] = rep;
        VarId(rep)
    }

    /// The name a variable of the views is reported by.
    fn var_name<'n>(&'n self, v: u32, names: &'n Names) -> &'n str {
        match self.array_names.get(&v) {
            Some(name) => name,
            None => names.var(VarId(v)),
        }
    }

    #[inline]
    fn access(&mut self, e: &Event, x: VarId, kind: Kind, names: &Names) {
        let x = self.element_variable(x, names);
        self.class_of(x, names);
        let th = &mut self.open_regions[self.threads[e.thread.index()].region as usize];
        th.log.push((x.0, kind));
        let at = (e.index, e.loc);
        let i = if th.entries.len() <= 16 {
            th.entries.iter().position(|en| en.var == x.0)
        } else {
            if th.index.len() < th.entries.len() {
                for (i, en) in th.entries.iter().enumerate() {
                    th.index.insert(en.var, i as u32);
                }
            }
            th.index.get(&x.0).map(|&i| i as usize)
        };
        let en = match i {
            Some(i) => &mut th.entries[i],
            None => {
                th.entries.push(Entry {
                    var: x.0,
                    bits: 0,
                    read: None,
                    write: None,
                });
                if !th.index.is_empty() {
                    th.index.insert(x.0, (th.entries.len() - 1) as u32);
                }
                th.entries.last_mut().expect("just pushed")
            }
        };
        en.bits = add_bits(en.bits, kind, Mark::Open);
        match kind {
            Kind::Read => {
                en.read.get_or_insert(at);
            }
            Kind::Write => {
                en.write.get_or_insert(at);
            }
        }
    }

    fn end(&mut self, e: &Event, must: &HappensBefore) {
        let t = e.thread;
        let r = self.threads[t.index()].region;
        if self.open_regions[r as usize].entries.is_empty() {
            self.close(t);
            return;
        }
        let th = &mut self.open_regions[r as usize];
        self.region_count += 1;
        th.entries.sort_unstable_by_key(|en| en.var);
        self.scratch.clear();
        self.scratch
            .extend(th.entries.iter().map(|en| (en.var, en.bits)));
        let view = self.views.intern(&self.scratch);
        let begin = th.begin;
        let slot = match self.slot_of.get(&(t.0, view)) {
            Some(&s) => s,
            None => {
                let s = self.slots.len() as u32;
                self.slots.push(Slot {
                    thread: t.0,
                    view,
                    first_begin: begin,
                    first_end: e.index,
                    first_events: th.entries.as_slice().into(),
                    last_begin: begin,
                    last_end_epoch: 0,
                    last_end_seq: 0,
                    prev: NONE,
                    next: NONE,
                    known: None,
                });
                self.threads[t.index()].slots += 1;
                self.slot_events += th.entries.len();
                if self.mhp {
                    for en in &th.entries {
                        let x = en.var as usize;
                        if x >= self.accessing.len() {
                            self.accessing.resize_with(x + 1, Vec::new);
                            self.writing.resize_with(x + 1, Vec::new);
                        }
                        self.accessing[x].push(s);
                        self.var_slots += 1;
                        if en.bits & WRITES != 0 {
                            self.writing[x].push(s);
                            self.var_slots += 1;
                        }
                    }
                }
                self.slot_of.insert((t.0, view), s);
                s
            }
        };
        if let Some(level) = &mut self.class {
            let mut id = level.renamed(view, &self.views, &self.var_class);
            if id == COLLIDES {
                let mut entries: Vec<(u32, u8)> = Vec::new();
                for &(v, kind) in &th.log {
                    let c = self.var_class[v as usize];
                    match entries.iter_mut().find(|e| e.0 == c) {
                        Some(e) => e.1 = add_bits(e.1, kind, Mark::Open),
                        None => entries.push((c, add_bits(0, kind, Mark::Open))),
                    }
                }
                entries.sort_unstable_by_key(|e| e.0);
                id = level.views.intern(&entries);
            }
            level.insert(t.index(), id);
        }
        if self.mhp && self.parallel.len() < MAX_PARALLEL_PAIRS {
            self.mark_parallel(slot, t);
        }
        if self.threads[t.index()].open_at == NONE {
            self.threads[t.index()].open_at = self.open.len() as u32;
            self.open.push(t.0);
        }
        let epoch = must.clock(t).get(t);
        let s = &mut self.slots[slot as usize];
        s.last_begin = begin;
        s.last_end_epoch = epoch;
        s.last_end_seq = e.index + 1;
        self.move_to_front(slot, t);
        self.close(t);
    }

    /// `t`'s region is over: its entry goes back to the free ones.
    fn close(&mut self, t: ThreadId) {
        let th = &mut self.threads[t.index()];
        self.free_regions.push(th.region);
        th.region = NONE;
    }

    /// Marks every view of another thread that conflicts with the view of `slot` and has a
    /// region unordered with the region of `slot` that just ended (see the module comment).
    ///
    /// Conflicting views only (`View::conflicts_with`: a variable both access and one writes):
    /// the filter asks about no other pair. A witness of view consistency (MoTH's Property 1)
    /// sets an intruder's view whose read (write) variables are a maximal set `m` beside views
    /// of the split thread whose write (read or write) variables overlap `m`: both access a
    /// variable of the overlap, in a way of which one is a write. A witness of a stale value
    /// (Property 2) sets a view writing the variable beside views reading or writing it. So
    /// threads that hold locks at once over views that share only what they all read (the
    /// `locks-held` shape) record no pair, where every pair of them would be recorded.
    ///
    /// The slots are found the cheaper of two ways, both exact: through the view's variables
    /// (the slots accessing a variable it writes, and writing a variable it reads), each slot's
    /// latest end tested against the region's begin clock; or through the threads that may
    /// have a region unordered with this one (those not joined, and those joined since the
    /// region began: every region of a thread joined earlier ended before it began), each
    /// thread's slots scanned in order of their latest ends, stopping at the first ordered
    /// before the region. A thread per request has a handful of threads in flight and every
    /// thread on one variable; threads holding locks at once have every thread in flight and
    /// few slots on a variable.
    fn mark_parallel(&mut self, slot: u32, t: ThreadId) {
        let view = &self.views.views[self.slots[slot as usize].view as usize];
        let by_variables: usize = view
            .entries()
            .iter()
            .map(|&(x, bits)| self.conflicting(x, bits).len())
            .sum();
        let begin = &self.open_regions[self.threads[t.index()].region as usize].begin_clock;
        let fresh = |j: u32| {
            let known = begin.get(ThreadId(j));
            let list = &self.joined[&j];
            // A join at the epoch the region began at may lie inside the region (no event of
            // the joiner between its begin and the join moves its clock): kept as a candidate;
            // a thread joined before the begin is ordered before it and marks nothing.
            &list[list.partition_point(|x| x.epoch < known)..]
        };
        let by_threads =
            self.open.len() + self.joiners.iter().map(|&j| fresh(j).len()).sum::<usize>();
        let by_variables_cheaper = match self.marking {
            Marking::Cheaper => by_variables <= by_threads,
            Marking::ByVariables => true,
            Marking::ByThreads => false,
        };
        if by_variables_cheaper {
            self.mark_conflicting(slot, t);
            return;
        }
        let mut candidates = std::mem::take(&mut self.scratch_threads);
        candidates.clear();
        candidates.extend_from_slice(&self.open);
        for &j in &self.joiners {
            candidates.extend(fresh(j).iter().map(|x| x.thread));
        }
        for &u in &candidates {
            self.mark_parallel_with(slot, t, u as usize);
        }
        self.scratch_threads = candidates;
    }

    /// The slots whose views conflict with a view that accesses `x` as `bits` says, through
    /// `x`: those accessing it if the view writes it, those writing it if it only reads it.
    fn conflicting(&self, x: u32, bits: u8) -> &[u32] {
        let lists = if bits & WRITES != 0 {
            &self.accessing
        } else {
            &self.writing
        };
        lists.get(x as usize).map_or(&[], Vec::as_slice)
    }

    /// [`mark_parallel`](Self::mark_parallel) through the view's variables.
    fn mark_conflicting(&mut self, slot: u32, t: ThreadId) {
        let prev = self.slots[slot as usize].last_end_seq;
        let view = &self.views.views[self.slots[slot as usize].view as usize];
        let begin = &self.open_regions[self.threads[t.index()].region as usize].begin_clock;
        for &(x, bits) in view.entries() {
            let lists = if bits & WRITES != 0 {
                &self.accessing
            } else {
                &self.writing
            };
            for &s in &lists[x as usize] {
                let d = &self.slots[s as usize];
                let u = d.thread;
                // As the scan of `mark_parallel_with`: a latest end ordered before the region's
                // begin, or examined at the previous end of `slot`'s view, has nothing to add.
                if u == t.0 || d.last_end_epoch <= begin.get(ThreadId(u)) || d.last_end_seq <= prev
                {
                    continue;
                }
                if self.parallel.insert((s.min(slot), s.max(slot))) {
                    bump(&mut self.slots[slot as usize].known, u as usize);
                    bump(&mut self.slots[s as usize].known, t.index());
                }
            }
        }
    }

    /// Marks the views of `u` that conflict with the view of `slot` (of `t`) and have a region
    /// unordered with its region.
    fn mark_parallel_with(&mut self, slot: u32, t: ThreadId, u: usize) {
        let prev = self.slots[slot as usize].last_end_seq;
        // Once every view of `u` is known to run in parallel with this one, there is nothing
        // left to learn about `u` (the common case in long racy runs).
        let known = self.slots[slot as usize]
            .known
            .as_ref()
            .and_then(|k| k.get(&(u as u32)))
            .copied()
            .unwrap_or(0);
        if u == t.index() || known == self.threads[u].slots {
            return;
        }
        let c = self.region(t).begin_clock.get(ThreadId(u as u32));
        let view = &self.views.views[self.slots[slot as usize].view as usize];
        let mut s = self.threads[u].head;
        while s != NONE {
            let d = &self.slots[s as usize];
            if d.last_end_epoch <= c || d.last_end_seq <= prev {
                break;
            }
            let next = d.next;
            if view.conflicts_with(&self.views.views[d.view as usize])
                && self.parallel.insert((s.min(slot), s.max(slot)))
            {
                bump(&mut self.slots[slot as usize].known, u);
                bump(&mut self.slots[s as usize].known, t.index());
            }
            s = next;
        }
    }

    /// After `t` joins `u`: `u` leaves the open threads for `t`'s list of joined ones.
    fn joined(&mut self, t: ThreadId, u: ThreadId, must: &HappensBefore) {
        let Some(k) = self.threads.get(u.index()).map(|th| th.open_at as usize) else {
            return;
        };
        if k == NONE as usize {
            return;
        }
        self.threads[u.index()].open_at = NONE;
        self.open.swap_remove(k);
        if let Some(&moved) = self.open.get(k) {
            self.threads[moved as usize].open_at = k as u32;
        }
        self.thread(t);
        let epoch = must.clock(t).get(t);
        let list = self.joined.entry(t.0).or_default();
        if list.is_empty() {
            self.joiners.push(t.0);
        }
        list.push(Joined { epoch, thread: u.0 });
    }

    /// Opens and closes regions, and adds the accesses made inside them.
    #[inline]
    fn region_event(&mut self, e: &Event, names: &Names, must: &HappensBefore) {
        if let Op::Acquire(_) = e.op {
            if self.provisional {
                self.switch_to(Regions::Locks);
            }
            self.seen_lock = true;
        }
        let (blocks, locks) = (self.counts_blocks(), self.counts_locks());
        match &e.op {
            Op::Read(x) | Op::AtomicLoad(x) if self.thread(e.thread).active() => {
                self.access(e, *x, Kind::Read, names);
            }
            Op::Write(x) | Op::AtomicStore(x) if self.thread(e.thread).active() => {
                self.access(e, *x, Kind::Write, names);
            }
            // One access that reads and then writes: both kinds join the view of the region
            // it is in, together, so no region can fall between them.
            Op::AtomicRmw(x) if self.thread(e.thread).active() => {
                self.access(e, *x, Kind::Read, names);
                self.access(e, *x, Kind::Write, names);
            }
            Op::Acquire(_) if locks => {
                let th = self.thread(e.thread);
                th.locks += 1;
                if !th.active() {
                    self.start(e, must);
                }
            }
            Op::Release(_) if locks => {
                let th = self.thread(e.thread);
                th.locks = th.locks.saturating_sub(1);
                if th.active() && th.locks == 0 && !(blocks && th.depth > 0) {
                    self.end(e, must);
                }
            }
            Op::Begin(_) if blocks || (self.regions == Regions::Auto && !self.seen_lock) => {
                if self.regions == Regions::Auto {
                    self.switch_to(Regions::Blocks);
                }
                let th = self.thread(e.thread);
                th.depth += 1;
                if !th.active() {
                    self.start(e, must);
                }
            }
            Op::End if blocks || self.regions == Regions::Auto => {
                let th = self.thread(e.thread);
                if th.depth > 0 {
                    th.depth -= 1;
                    if th.active() && th.depth == 0 && !(locks && th.locks > 0) {
                        self.end(e, must);
                    }
                }
            }
            _ => {}
        }
    }

    fn move_to_front(&mut self, slot: u32, t: ThreadId) {
        let head = self.threads[t.index()].head;
        if head == slot {
            return;
        }
        let (p, n) = {
            let s = &self.slots[slot as usize];
            (s.prev, s.next)
        };
        if p != NONE {
            self.slots[p as usize].next = n;
        }
        if n != NONE {
            self.slots[n as usize].prev = p;
        }
        let s = &mut self.slots[slot as usize];
        s.prev = NONE;
        s.next = head;
        if head != NONE {
            self.slots[head as usize].prev = slot;
        }
        self.threads[t.index()].head = slot;
    }
}

/// The array of a Java array element variable as the agent names it, `T[]@ID[INDEX]`: `T[]@ID`.
fn java_array_of(var: &str) -> Option<&str> {
    let open = var.strip_suffix(']')?.rfind('[')?;
    let index = &var[open + 1..var.len() - 1];
    let array = &var[..open];
    let (ty, id) = array.rsplit_once('@')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(index) && digits(id) && ty.ends_with("[]")).then_some(array)
}

/// The class-level name of a trace variable: `Class#id.field` and the Java agent's
/// `Class.field@ID` are `Class.field`; any other name is its own.
pub fn class_name(var: &str) -> String {
    if let Some(dot) = var.rfind('.') {
        if let Some(hash) = var[..dot].find('#') {
            return format!("{}{}", &var[..hash], &var[dot..]);
        }
        if let Some((field, id)) = var[dot..].rsplit_once('@') {
            if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) {
                return format!("{}{field}", &var[..dot]);
            }
        }
    }
    var.to_owned()
}

impl Observer for DynamicViews {
    fn name(&self) -> &'static str {
        "views"
    }

    /// Until the first acquire or release: from there on the analysis runs its own
    /// happens-before without lock edges, and the pass's clocks can go (unless another
    /// analysis of the pass reads them). Once stopped by the budget it reads nothing.
    fn reads_happens_before(&self) -> bool {
        self.must.is_none() && !self.stopped
    }

    #[inline]
    fn on_event(&mut self, e: &Event, hb: &HappensBefore, names: &Names) -> Result<(), ErrorKind> {
        if self.stopped {
            return Ok(());
        }
        if self.events != 0
            && self.events % POLL_EVERY == 0
            && self.budget.is_some()
            && !self.poll()
        {
            return Ok(());
        }
        self.events += 1;
        if let Some(must) = &mut self.must {
            must.before(e);
        } else if matches!(e.op, Op::Acquire(_) | Op::Release(_)) {
            // The pass has applied the edges into `e`, and a first acquire has none.
            self.must = Some(hb.without_lock_edges_from_here());
        }
        let own = self.must.take();
        let must = own.as_ref().unwrap_or(hb);
        self.region_event(e, names, must);
        if let Op::Join(u) = e.op {
            self.joined(e.thread, u, must);
        }
        self.must = own;
        if let Some(must) = &mut self.must {
            must.after(e);
        }
        Ok(())
    }
}

impl Analysis for DynamicViews {
    fn finish(self: Box<Self>, names: &Names) -> AnalysisOutput {
        let mut this = *self;
        // What only the pass needed goes before the report is built: the clocks of the
        // happens-before without lock edges (a set per thread, as large as the pass's own)
        // and the regions still open, which the knowledge base would otherwise sit on top of.
        this.must = None;
        this.open_regions = Vec::new();
        this.joined = FxHashMap::default();
        this.open = Vec::new();
        let unclosed = this.threads.iter().filter(|t| t.active()).count();
        // Threads with views, in id order; `order[k]` is the trace thread of knowledge thread k.
        let mut per_thread: Vec<Vec<(ViewId, u32)>> = vec![Vec::new(); this.threads.len()];
        for (i, s) in this.slots.iter().enumerate() {
            per_thread[s.thread as usize].push((s.view, i as u32));
        }
        let mut order = Vec::new();
        let mut threads = Vec::new();
        for (t, list) in per_thread.iter_mut().enumerate() {
            if list.is_empty() {
                continue;
            }
            list.sort_unstable();
            order.push(t as u32);
            threads.push(ThreadViews {
                name: names.thread(ThreadId(t as u32)).to_owned(),
                views: list.iter().map(|e| e.0).collect(),
            });
        }
        let var_names: Vec<String> = (0..names.vars.len())
            .map(|v| this.var_name(v as u32, names).to_owned())
            .collect();
        let k = Knowledge {
            var_names,
            views: this.views.views.clone(),
            threads,
        };
        // The sensors poll the budget the pass polled: past it, they stop with the warnings
        // found so far, and the report is unknown (the budget says why).
        let go_on = || {
            this.budget.as_ref().is_none_or(|c| {
                c.budget
                    .add_steps(u64::from(hindsight_views::sensors::POLL_EVERY));
                c.budget.check().is_ok()
            })
        };
        let detected = detect_within(&k, &go_on);
        let mut sensors_stopped = detected.stopped;
        let (mut warnings, truncated) = (detected.warnings, detected.truncated);

        let mut removed_by_instances = 0;
        if let Some(level) = &this.class {
            let mut by_thread: FxHashMap<u32, Vec<ViewId>> = FxHashMap::default();
            for &(t, v) in &level.threads {
                by_thread.entry(t).or_default().push(v);
            }
            let mut threads = Vec::new();
            for &t in &order {
                let mut views = by_thread.remove(&t).unwrap_or_default();
                views.sort_unstable();
                threads.push(ThreadViews {
                    name: names.thread(ThreadId(t)).to_owned(),
                    views,
                });
            }
            let kc = Knowledge {
                var_names: this.class_names.clone(),
                views: level.views.views.clone(),
                threads,
            };
            let class_detected = detect_within(&kc, &go_on);
            sensors_stopped |= class_detected.stopped;
            let class_warnings = class_detected.warnings;
            let seen: FxHashSet<(&str, [usize; 2], Vec<u32>)> = warnings
                .iter()
                .map(|w| (w.kind, w.threads, lift(&w.variables, &this.var_class)))
                .collect();
            removed_by_instances = class_warnings
                .iter()
                .filter(|w| !seen.contains(&(w.kind, w.threads, w.variables.clone())))
                .count();
        }

        let mut removed_by_mhp = 0;
        let ctx = Context {
            this: &this,
            order: &order,
            names,
        };
        if this.mhp {
            let (kept, removed) = mhp_filter(warnings, &ctx);
            warnings = kept;
            removed_by_mhp = removed;
        }
        let mut found = findings(&k, &warnings, &ctx);
        if this.granularity == Granularity::Grouped {
            let threads = warnings
                .iter()
                .map(|w| w.threads.map(|t| ThreadId(order[t])));
            found = grouped(found, threads, names);
        }
        let mut out = AnalysisOutput {
            findings: found,
            rules: rules(),
            ..AnalysisOutput::default()
        };
        summary(
            &mut out,
            &this,
            &k,
            &warnings,
            removed_by_instances,
            removed_by_mhp,
            unclosed,
        );
        if truncated {
            out.summary
                .insert("sensor_limit_reached".into(), Value::from(LIMIT));
        }
        if sensors_stopped {
            // The pass went to its end (or its own stop), the sensors did not.
            out.summary
                .insert("sensors_stopped".into(), Value::from(true));
        }
        if this.mhp && this.parallel.len() >= MAX_PARALLEL_PAIRS {
            out.summary
                .insert("mhp_saturated".into(), Value::from(true));
        }
        if let Some(charge) = &this.budget {
            // A deadline that passed while no event came (a pipe that sent nothing for the
            // whole timeout) is spent as well, as it is for every other analysis.
            let _ = charge.budget.check();
            out.unknown = hindsight_report::note_budget(&mut out.summary, &charge.budget);
            if out.unknown {
                out.summary
                    .insert("events_analysed".into(), Value::from(this.events));
            }
        }
        out
    }
}

fn summary(
    out: &mut AnalysisOutput,
    this: &DynamicViews,
    k: &Knowledge,
    warnings: &[Warning],
    removed_by_instances: usize,
    removed_by_mhp: usize,
    unclosed: usize,
) {
    let (races, stale) = hindsight_views::count_kinds(warnings);
    let s = &mut out.summary;
    s.insert("regions".into(), Value::from(this.regions.name()));
    s.insert("atomic_regions".into(), Value::from(this.region_count));
    s.insert("views".into(), Value::from(k.views.len()));
    s.insert("high_level_races".into(), Value::from(races));
    s.insert("stale_values".into(), Value::from(stale));
    s.insert(
        "removed_by_instances".into(),
        Value::from(removed_by_instances),
    );
    if this.mhp {
        s.insert("removed_by_mhp".into(), Value::from(removed_by_mhp));
    } else {
        s.insert("mhp".into(), Value::from("off"));
    }
    if unclosed > 0 {
        s.insert("unclosed_regions".into(), Value::from(unclosed));
    }
}

/// Where an event of a warning stands in the code: its source location, or, for an event with
/// none, what it does and its thread.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Place {
    At(String),
    Unlocated { op: String, thread: String },
}

/// What the warnings of one group share: their kind and the places of their events.
#[derive(Clone, PartialEq, Eq, Hash)]
struct WarningKey {
    kind: String,
    places: Vec<Place>,
}

impl WarningKey {
    fn of(f: &Finding) -> WarningKey {
        let mut places: Vec<Place> = f
            .events
            .iter()
            .map(|e| match &e.location {
                Some(l) => Place::At(l.clone()),
                None => Place::Unlocated {
                    // Reads and writes of different variables at one place are alike: the
                    // operation without its variable.
                    op: e.op.split('(').next().unwrap_or(&e.op).to_owned(),
                    thread: e.thread.clone(),
                },
            })
            .collect();
        places.sort_unstable();
        places.dedup();
        WarningKey {
            kind: f.kind.clone(),
            places,
        }
    }
}

/// The findings of warnings folded into one per kind and set of source locations, as `races`
/// folds racy accesses per pair of locations: the variables of a warning are object instances
/// (`V908`, `Account#3.balance`), so one piece of code running on many objects gives as many
/// warnings, each its own variable set, that a reader takes in as one. A group keeps its first
/// warning's events and variables, counts its warnings, lists the threads of all of them and
/// keeps the last one's events (`last`); `threads` are the two threads of each warning.
/// Most warnings first, ties in the order of the warnings.
fn grouped(
    findings: Vec<Finding>,
    threads: impl Iterator<Item = [ThreadId; 2]>,
    names: &Names,
) -> Vec<Finding> {
    // Keys are interned: `Groups` keys are small copies.
    let mut ids: FxHashMap<WarningKey, u32> = FxHashMap::default();
    let mut groups: Groups<u32, Finding> = Groups::default();
    for (f, pair) in findings.into_iter().zip(threads) {
        let next = ids.len() as u32;
        let id = *ids.entry(WarningKey::of(&f)).or_insert(next);
        groups.add(id, &pair, f);
    }
    groups
        .into_sorted()
        .into_iter()
        .map(|g| {
            let mut f = g.first;
            let threads: Vec<&str> = g.threads.iter().map(|&t| names.thread(t)).collect();
            f.message = format!(
                "{} ({} with these source locations; threads {})",
                f.message,
                count(g.occurrences, "warning", "warnings"),
                threads.join(", ")
            );
            f.fields.insert("threads".into(), Value::from(threads));
            if let Some(last) = g.last {
                f.fields.insert(
                    "last".into(),
                    serde_json::to_value(last.events).expect("event references serialize"),
                );
            }
            f.occurrences = Some(g.occurrences);
            f
        })
        .collect()
}

/// Class-level variables of trace variables, sorted and without repeats.
fn lift(vars: &[u32], var_class: &[u32]) -> Vec<u32> {
    let mut out: Vec<u32> = vars.iter().map(|&v| var_class[v as usize]).collect();
    out.sort_unstable();
    out.dedup();
    out
}

struct Context<'a> {
    this: &'a DynamicViews,
    order: &'a [u32],
    names: &'a Names,
}

impl Context<'_> {
    fn slot(&self, t: usize, v: ViewId) -> &Slot {
        &self.this.slots[self.this.slot_index(self.order[t], v) as usize]
    }
}

impl Schedule for Context<'_> {
    fn may_run_in_parallel(&self, t1: usize, v1: ViewId, t2: usize, v2: ViewId) -> bool {
        let a = self.this.slot_index(self.order[t1], v1);
        let b = self.this.slot_index(self.order[t2], v2);
        t1 != t2
            && (self.this.parallel.len() >= MAX_PARALLEL_PAIRS
                || self.this.parallel.contains(&(a.min(b), a.max(b))))
    }

    fn may_precede(&self, t: usize, a: ViewId, b: ViewId) -> bool {
        self.slot(t, a).first_end < self.slot(t, b).last_begin
    }
}

impl Provenance for Context<'_> {
    fn origin(&self, t: usize, v: ViewId) -> String {
        let s = self.slot(t, v);
        format!("events #{}..#{}", s.first_begin, s.first_end)
    }

    fn events(&self, t: usize, v: ViewId, vars: &[u32]) -> Vec<EventRef> {
        let s = self.slot(t, v);
        let thread = self.names.thread(ThreadId(s.thread)).to_owned();
        let mut out = Vec::new();
        for en in s.first_events.iter().filter(|en| vars.contains(&en.var)) {
            let var = self.this.var_name(en.var, self.names);
            for (at, op) in [(en.read, "r"), (en.write, "w")] {
                if let Some((index, loc)) = at {
                    out.push(EventRef {
                        index,
                        thread: thread.clone(),
                        op: format!("{op}({var})"),
                        location: loc.map(|l| self.names.location(l).to_owned()),
                    });
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{class_name, java_array_of};

    #[test]
    fn instance_variables_have_their_class_level_name() {
        assert_eq!(class_name("Account#3.balance"), "Account.balance");
        assert_eq!(class_name("Account.balance@12"), "Account.balance");
        assert_eq!(class_name("Account.balance"), "Account.balance");
        assert_eq!(class_name("mail.host@example"), "mail.host@example");
        assert_eq!(class_name("boolean[]@2[0]"), "boolean[]@2[0]");
        assert_eq!(class_name("x"), "x");
    }

    #[test]
    fn java_array_elements_name_their_array_and_nothing_else_does() {
        assert_eq!(java_array_of("boolean[]@2[0]"), Some("boolean[]@2"));
        assert_eq!(java_array_of("Cell[][]@17[12]"), Some("Cell[][]@17"));
        for other in [
            "Account.balance@1",
            "AtomicIntegerArray@3[1]",
            "boolean[]@2[]",
            "boolean[]@x[0]",
            "boolean[]@2[i]",
            "a[0]",
            "[0]",
            "]",
        ] {
            assert_eq!(java_array_of(other), None, "{other}");
        }
    }
}
