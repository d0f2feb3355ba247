//! The static analysis of a lowered Java program (`ir.rs`) for views: every thread's body is
//! run abstractly, calls inlined (context-sensitive: a region is a syntactic region in one call
//! context of one thread), loops to a fixed point, objects by allocation site. It yields the
//! views of each thread's regions (MoTH's knowledge base, built access by access with `add` as
//! HEAP READ and HEAP WRITE do; the branches of a region united as CONDITIONAL and LOOP say)
//! and what the precision rules need:
//!
//! 1. **Dependence** (after Burrows and Leino's stale values, MoTH's reference [5]): a value
//!    read in region `A` carries the dependence `(A, x)` through locals, arithmetic, calls and
//!    returns; a region `B` *acts on* it when it writes a value that depends on it, or runs (or
//!    writes) under a branch whose condition does (check-then-act, an early `return` included).
//!    A stale value of `x` in thread `t` is such an `(A, B)` pair in `t` with another thread
//!    writing `x` in a region that may run in parallel with `A` or `B`. This replaces MoTH's
//!    `psv` (a read view and a write view of `x`): a write whose value does not depend on the
//!    read (`closed = true`, `list.clear()`) is not a write-back; a decision is.
//! 2. **Order**: dependence flows forward only, so a write-back region that can only run
//!    before the read region never depends on it (MoTH Section 4.3's second limitation, for
//!    the regions of one thread).
//! 3. **Instances of one region**: two runs of one syntactic region in one context (a loop) or
//!    of one method at two call sites (`i = inc(i); i = inc(i);`) are different regions here;
//!    the dependence of a region on its own earlier run is kept apart from its dependence on
//!    its current run, so the stale value between the two is seen (MoTH's views of equal
//!    contents hide it).
//! 4. **Start and join** (MoTH Section 4.3's may-happen-in-parallel remedy): a thread runs from
//!    its `start()` to its `join()`; a region of the parent runs in parallel with a child only
//!    if the child may have been started and is not surely joined there; two children run in
//!    parallel unless one is surely joined before the other starts. A thread started in a loop
//!    (or by a thread that is) has two copies that run in parallel.
//! 5. **Threads of their own class** (Knight): along a chain of starts at most
//!    [`SPAWN_COPIES`] threads run one method; a deeper one is folded onto the nearest of them
//!    (`Analysis::fold` argues why the warnings stay sound), so the walk ends.
//! 6. **Read-modify-write of one variable** (Buffer's `head = head + 1`): a read of `x` in
//!    region `A` whose value is used in `A` only to compute a value written back to `x`, from
//!    no other read of `A` (not in a branch condition, not returned, not held in a local when
//!    `A` ends, not stored elsewhere), leaves `A`'s read view; `x` stays in `A`'s write view.
//!    MoTH's read view stands for what the region *observes* together (Property 1: a thread
//!    that sees `x` and `y` together must not see them split by another thread's writes).
//!    Such a read observes nothing the region can act on: the only thing it decides is `x`'s
//!    next value, written in the same atomic region, so no other variable's value in the
//!    region is related to it. Its write is still in the write view, so Property 1's check of
//!    a maximal write view against the other threads' read views still covers `x`; and the
//!    stale-value rule (1) is unchanged (the read still carries its dependence). The same
//!    `x = x + 1` with a branch on `x`, a second read returned, or `x = x + y` keeps the read.
//!    The interpreter (`interp.rs`) applies the rule per region instance, so the trace-based
//!    views of a run see the same views.
//!
//! The walk polls the run's budget at every statement: calls are followed as deep as the
//! program's chains go (recursion, a method already on the stack, is not followed), and the
//! budget, not a fixed depth, bounds the work.
//!
//! Library mode (no second thread, or asked for): each public instance method of every class
//! is a client thread (with a copy, for the method run concurrently with itself) on one shared
//! object per class, as MoTH assumes.

use super::ir::*;
use super::models::{Effect, Models};
use hindsight_budget::{Account, Budget, Meter};
use hindsight_report::EventRef;
use hindsight_views::sensors::{merge, Sensor, ViewConsistency, Warning, Witness, STALE_VALUE};
use hindsight_views::view::{Access, Kind, Mark, View};
use hindsight_views::{mhp_filter, Knowledge, Provenance, Schedule, ThreadViews, ViewId};
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet};

/// A region instance: one syntactic region in one call context of one thread.
pub type RegionId = u32;
pub type KeyId = u32;
/// `(region, variable, from an earlier run of that region)`.
type Dep = (RegionId, u32, bool);

const MAX_ROUNDS: usize = 8;
const MAX_LOOP_ROUNDS: usize = 64;
/// How many threads running one method (a `Thread` subclass's or `Runnable`'s `run`, a
/// lambda) one chain of starts gets: a thread started by a thread that already has this many
/// threads of its method above it (itself included) is not walked but folded onto the nearest
/// one (see `Analysis::fold` for why the warnings stay sound).
pub const SPAWN_COPIES: usize = 2;
/// The deepest chain of calls followed: beyond it the call's value is unknown (a note says
/// so). Not a precision bound — the run's budget bounds the work — but the stack the walk
/// runs on ([`STACK_BYTES`]) holds this many nested calls with room to spare.
pub const MAX_CALL_DEPTH: usize = 2000;
/// The stack of the thread the analysis runs on: deep call chains are walked recursively.
pub const STACK_BYTES: usize = 1 << 30;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Val {
    sites: BTreeSet<SiteId>,
    taint: BTreeSet<Dep>,
}

impl Val {
    fn union(&mut self, o: &Val) {
        self.sites.extend(o.sites.iter().copied());
        self.taint.extend(o.taint.iter().copied());
    }
    fn tainted(taint: BTreeSet<Dep>) -> Val {
        Val {
            sites: BTreeSet::new(),
            taint,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct OpenRegion {
    id: RegionId,
    view: View,
    joined_at_start: BTreeSet<KeyId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
struct St {
    live: bool,
    locals: Vec<Val>,
    pc: BTreeSet<Dep>,
    region: Option<OpenRegion>,
    depth: u32,
    done: BTreeSet<RegionId>,
    started: BTreeSet<KeyId>,
    /// Surely joined.
    joined: BTreeSet<KeyId>,
}

impl St {
    fn dead() -> St {
        St::default()
    }

    fn join(self, o: St) -> St {
        if !self.live {
            return o;
        }
        if !o.live {
            return self;
        }
        let mut a = self;
        for (x, y) in a.locals.iter_mut().zip(&o.locals) {
            x.union(y);
        }
        a.pc.extend(o.pc);
        a.region = match (a.region.take(), o.region) {
            (Some(mut r), Some(s)) => {
                if r.id == s.id {
                    r.view.union(&s.view);
                    r.joined_at_start = r
                        .joined_at_start
                        .intersection(&s.joined_at_start)
                        .copied()
                        .collect();
                }
                Some(r)
            }
            (r, s) => r.or(s),
        };
        a.depth = a.depth.max(o.depth);
        a.done.extend(o.done);
        a.started.extend(o.started);
        a.joined = a.joined.intersection(&o.joined).copied().collect();
        a
    }
}

#[derive(Default)]
struct Out {
    next: St,
    brk: St,
    cont: St,
    ret: St,
    retval: Val,
}

impl Out {
    fn normal(next: St) -> Out {
        Out {
            next,
            ..Out::default()
        }
    }
}

/// One region instance.
#[derive(Clone, Debug)]
pub struct RegionInfo {
    pub thread: u32,
    pub src: RegionSrcId,
    pub view: View,
    /// Regions of the thread that may have ended before it starts.
    pub preceded: BTreeSet<RegionId>,
    /// Children that may run while it runs.
    pub alive: BTreeSet<KeyId>,
}

/// What runs when a thread starts: a method and the values of its first locals.
#[derive(Clone, Debug)]
struct Entry {
    method: MethodId,
    locals: Vec<Val>,
}

#[derive(Clone, Debug)]
struct KeyInfo {
    parent: u32,
    /// The object `join()` is called on (a thread) or the executor.
    handle: SiteId,
    executor: bool,
    entry: Entry,
    multi: bool,
    /// Surely ended before it starts: joined, or (`serial`) earlier tasks of its executor.
    joined_at_spawn: BTreeSet<KeyId>,
    /// A task of a single-thread executor.
    serial: bool,
    line: u32,
    file: u32,
    label: String,
}

/// How a thread is started: on what `join()` waits for, and how many may run.
#[derive(Clone, Copy, Debug)]
struct Spawn {
    /// The object `join()` is called on (a thread) or the executor.
    handle: SiteId,
    executor: bool,
    /// A task of one single-thread executor: it runs after the tasks submitted before it.
    serial: bool,
    /// May run more than once for other reasons than the start being repeated (a task in a
    /// collection more than once).
    many: bool,
}

impl Spawn {
    fn thread(handle: SiteId) -> Spawn {
        Spawn {
            handle,
            executor: false,
            serial: false,
            many: false,
        }
    }
}

#[derive(Clone, Debug)]
pub struct ThreadInfo {
    pub name: String,
    /// The thread whose walk this one shares (a copy of a thread started in a loop).
    pub origin: u32,
    key: Option<KeyId>,
    /// Threads of its creation site started below it were folded onto it (it spawns its
    /// own kind past [`SPAWN_COPIES`]).
    pub folded: bool,
    walked: bool,
    fully_joined: bool,
}

/// Options of the analysis.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Library mode even if the program starts threads.
    pub library: bool,
}

/// The size an entry of the growing structures is accounted at (a region with its view and
/// sets, a fact, a heap edge): a rough upper bound, enough for `--memory-limit` to stop a
/// walk that keeps growing.
const REGION_BYTES: u64 = 512;
const FACT_BYTES: u64 = 48;
const HEAP_BYTES: u64 = 96;

/// What the analysis found.
pub struct Analysed {
    pub knowledge: Knowledge,
    pub threads: Vec<ThreadInfo>,
    pub regions: Vec<RegionInfo>,
    pub srcs: Vec<RegionSrc>,
    /// Per thread (origin), per view: its regions.
    by_view: Vec<FxHashMap<ViewId, Vec<RegionId>>>,
    pub region_view: Vec<ViewId>,
    /// High-level races and stale values, after the filters, copies merged.
    pub warnings: Vec<Warning>,
    /// For stale values: (split thread, read view, write view, variable) → (A, B).
    pub stale_regions: FxHashMap<(usize, ViewId, ViewId, u32), (RegionId, RegionId)>,
    pub library: bool,
    pub removed_by_mhp: usize,
    pub notes: Vec<String>,
    /// The threads that spawn threads of their own creation site past [`SPAWN_COPIES`]: the
    /// deeper ones are folded onto them.
    pub spawn_bounded: Vec<String>,
    /// The threads that may run more than once at the same time (started in a loop, by a
    /// thread that is, or a task more than once in what `invokeAll` runs), folded ones aside:
    /// each is walked once and has one copy (` [2]`) that stands for every other run of it.
    pub copied: Vec<String>,
    /// The tasks of single-thread executors: they run one at a time, in the order submitted.
    pub serial_tasks: Vec<String>,
    /// The walk stopped because the budget was spent: what was found so far.
    pub stopped: bool,
    lines: Vec<(String, String)>,
    keys: Vec<KeyInfo>,
}

struct Analysis<'p> {
    p: &'p Program,
    models: &'p Models,
    sites: Vec<Site>,
    srcs: Vec<RegionSrc>,
    model_srcs: FxHashMap<CallId, RegionSrcId>,
    heap: BTreeMap<(SiteId, String), BTreeSet<SiteId>>,
    /// What the values a thread stored in a heap variable outside any atomic region depend
    /// on, per (thread, site, field): an index found in one region, kept in an array
    /// (`resultBuf[i] = find()`) and read back outside regions to be passed to a later region
    /// of the same thread, is a value flowing between them. Only outside regions: a variable
    /// stored and read there holds what the thread put in it (data it keeps for itself),
    /// while a read inside a region is a read of the variable itself, which the views and
    /// the region's own dependence judge. Per thread, since a dependence names regions of one
    /// thread; rebuilt every round with the regions.
    heap_taint: FxHashMap<(u32, SiteId, String), BTreeSet<Dep>>,
    heap_changed: bool,
    statics: FxHashMap<ClassId, SiteId>,
    var_ids: FxHashMap<(SiteId, String), u32>,
    var_names: Vec<String>,
    regions: Vec<RegionInfo>,
    region_ids: FxHashMap<(u32, Vec<CallId>, RegionSrcId), RegionId>,
    /// `(thread, A, B, variable)`: B acts on the value of the variable read in A.
    facts: BTreeSet<(u32, RegionId, RegionId, u32)>,
    /// `(A, x)`: a value read from `x` in region `A` was used inside `A` for something other
    /// than computing the value written back to `x` alone, or was still held when `A` ended
    /// (rule 6 of the module doc keeps only the other reads out of the read view).
    escaped: BTreeSet<(RegionId, u32)>,
    keys: Vec<KeyInfo>,
    key_ids: FxHashMap<(u32, Vec<CallId>, SiteId), KeyId>,
    threads: Vec<ThreadInfo>,
    cur: u32,
    ctx: Vec<CallId>,
    stack: Vec<MethodId>,
    loop_depth: u32,
    recording: bool,
    notes: Vec<String>,
    /// Per method, the entry values of the threads folded (kept across rounds).
    folded_entries: FxHashMap<MethodId, Vec<Val>>,
    /// The (collection, element) pairs stored at most once this round, and those that may be
    /// stored more than once (in a loop, by a thread that runs more than once, or by two
    /// calls): `invokeAll` runs a task once per time it is in the collection.
    stored_once: BTreeSet<(SiteId, SiteId)>,
    stored_again: BTreeSet<(SiteId, SiteId)>,
    /// The executors allocated this round, and those that may be allocated more than once:
    /// one object of a single-thread executor runs its tasks one at a time, two objects do
    /// not.
    made_once: BTreeSet<SiteId>,
    made_again: BTreeSet<SiteId>,
    meter: Meter<'p>,
    account: Account<'p>,
    /// The budget was spent: every statement left is skipped.
    stopped: bool,
}

/// Runs the analysis of `p` within `budget`: once it is spent the walk stops (every statement
/// left is skipped) and the threads and regions seen so far are analysed.
pub fn analyse(p: &Program, models: &Models, options: Options, budget: &Budget) -> Analysed {
    let mut a = Analysis {
        p,
        models,
        sites: p.sites.clone(),
        srcs: p.regions.clone(),
        model_srcs: FxHashMap::default(),
        heap: BTreeMap::new(),
        heap_taint: FxHashMap::default(),
        heap_changed: false,
        statics: FxHashMap::default(),
        var_ids: FxHashMap::default(),
        var_names: Vec::new(),
        regions: Vec::new(),
        region_ids: FxHashMap::default(),
        facts: BTreeSet::new(),
        escaped: BTreeSet::new(),
        keys: Vec::new(),
        key_ids: FxHashMap::default(),
        threads: Vec::new(),
        cur: 0,
        ctx: Vec::new(),
        stack: Vec::new(),
        loop_depth: 0,
        stored_once: BTreeSet::new(),
        stored_again: BTreeSet::new(),
        made_once: BTreeSet::new(),
        made_again: BTreeSet::new(),
        recording: true,
        notes: Vec::new(),
        folded_entries: FxHashMap::default(),
        meter: Meter::new(budget),
        account: Account::new(budget),
        stopped: false,
    };
    for c in 0..p.classes.len() {
        let s = a.sites.len() as SiteId;
        a.sites.push(Site {
            kind: SiteKind::Object(c as ClassId),
            name: format!("{}.<static>", p.classes[c].name),
            file: 0,
            line: 0,
            state: false,
            elem: None,
        });
        a.statics.insert(c as ClassId, s);
    }
    let mut library = options.library || p.main.is_none();
    for _ in 0..MAX_ROUNDS {
        a.reset();
        a.heap_changed = false;
        if !library {
            a.run_main();
            if a.threads.len() < 2 {
                library = true;
                a.reset();
            }
        }
        if library {
            a.run_library();
        }
        if !a.heap_changed || a.stopped {
            break;
        }
    }
    a.finish(library)
}

impl<'p> Analysis<'p> {
    fn reset(&mut self) {
        self.regions.clear();
        self.region_ids.clear();
        self.facts.clear();
        self.escaped.clear();
        self.keys.clear();
        self.key_ids.clear();
        self.threads.clear();
        self.notes.clear();
        self.heap_taint.clear();
        self.stored_once.clear();
        self.stored_again.clear();
        self.made_once.clear();
        self.made_again.clear();
    }

    /// Whether the statement being walked may run more than once in the program: in a loop,
    /// or in a thread with copies (started in a loop, or by such a thread).
    fn repeated(&self) -> bool {
        let cur = self.cur as usize;
        self.loop_depth > 0
            || self.threads[cur].origin as usize != cur
            || self
                .threads
                .iter()
                .enumerate()
                .any(|(i, t)| t.origin as usize == cur && i != cur)
    }

    /// Counts one allocation of an executor (see `made_again`).
    fn made(&mut self, site: SiteId) {
        if self.repeated() || !self.made_once.insert(site) {
            self.made_again.insert(site);
        }
    }

    /// Counts one step of the walk and, at each poll, says how much the walk holds; false
    /// once the budget is spent.
    fn step(&mut self) -> bool {
        if self.stopped {
            return false;
        }
        let mut ok = self.meter.step().is_ok();
        if ok && self.meter.polled() {
            let held = self.regions.len() as u64 * REGION_BYTES
                + self.facts.len() as u64 * FACT_BYTES
                + self.heap.values().map(|v| v.len() as u64 + 1).sum::<u64>() * HEAP_BYTES
                + self
                    .heap_taint
                    .values()
                    .map(|t| t.len() as u64 + 1)
                    .sum::<u64>()
                    * FACT_BYTES;
            ok = self.account.hold(held).is_ok();
        }
        self.stopped = !ok;
        ok
    }

    fn note(&mut self, n: String) {
        if !self.notes.contains(&n) {
            self.notes.push(n);
        }
    }

    fn var(&mut self, site: SiteId, field: &str) -> u32 {
        let key = (site, field.to_owned());
        if let Some(&v) = self.var_ids.get(&key) {
            return v;
        }
        let name = match &self.sites[site as usize].kind {
            SiteKind::Object(c) | SiteKind::Library(c) => {
                format!("{}.{field}", self.p.field_owner(*c, field))
            }
            _ => self.sites[site as usize].contents_var(),
        };
        let id = self.var_names.len() as u32;
        self.var_names.push(name);
        self.var_ids.insert(key, id);
        id
    }

    fn heap_add(&mut self, site: SiteId, field: &str, v: &BTreeSet<SiteId>) {
        if v.is_empty() {
            return;
        }
        let e = self.heap.entry((site, field.to_owned())).or_default();
        let before = e.len();
        e.extend(v.iter().copied());
        if e.len() != before {
            self.heap_changed = true;
        }
    }

    fn heap_get(&self, site: SiteId, field: &str) -> BTreeSet<SiteId> {
        self.heap
            .get(&(site, field.to_owned()))
            .cloned()
            .unwrap_or_default()
    }

    fn new_thread(&mut self, name: String, key: Option<KeyId>, copy_of: Option<u32>) -> u32 {
        let id = self.threads.len() as u32;
        self.threads.push(ThreadInfo {
            name,
            origin: copy_of.unwrap_or(id),
            key,
            folded: false,
            walked: copy_of.is_some(),
            fully_joined: true,
        });
        id
    }

    fn fresh_state(&self, locals: Vec<Val>) -> St {
        St {
            live: true,
            locals,
            ..St::default()
        }
    }

    fn run_main(&mut self) {
        let Some(main) = self.p.main else { return };
        let t = self.new_thread("main".into(), None, None);
        self.cur = t;
        let mut st = self.fresh_state(Vec::new());
        for c in 0..self.p.classes.len() {
            if let Some(m) = self.p.classes[c].clinit {
                st = self.invoke(m, None, Vec::new(), st, 0).0;
            }
        }
        let (end, _) = self.invoke(main, None, vec![Val::default()], st, 0);
        self.end_thread(t, &end);
        let mut i = 1;
        while i < self.threads.len() {
            if !self.threads[i].walked {
                self.walk_thread(i as u32);
            }
            i += 1;
        }
    }

    fn end_thread(&mut self, t: u32, end: &St) {
        self.threads[t as usize].walked = true;
        self.threads[t as usize].fully_joined = end.started.is_subset(&end.joined);
    }

    fn walk_thread(&mut self, t: u32) {
        let key = self.threads[t as usize]
            .key
            .expect("a started thread has a key");
        let entry = self.keys[key as usize].entry.clone();
        self.cur = t;
        self.ctx.clear();
        self.loop_depth = 0;
        let st = self.fresh_state(Vec::new());
        let m = &self.p.methods[entry.method as usize];
        let (this, args) = if m.is_static {
            (None, entry.locals.clone())
        } else {
            let mut l = entry.locals.clone();
            let this = if l.is_empty() {
                Val::default()
            } else {
                l.remove(0)
            };
            (Some(this), l)
        };
        let (end, _) = self.invoke(entry.method, this, args, st, 0);
        self.end_thread(t, &end);
    }

    fn run_library(&mut self) {
        // One shared object per class, initialised outside any thread.
        let mut objects: FxHashMap<ClassId, SiteId> = FxHashMap::default();
        for c in 0..self.p.classes.len() {
            let s = self.sites.len() as SiteId;
            self.sites.push(Site {
                kind: SiteKind::Library(c as ClassId),
                name: self.p.classes[c].name.clone(),
                file: 0,
                line: 0,
                state: false,
                elem: None,
            });
            objects.insert(c as ClassId, s);
        }
        // Re-running rounds adds sites again: keep the first ones.
        let objects: FxHashMap<ClassId, SiteId> = objects
            .into_iter()
            .map(|(c, s)| {
                let first = self
                    .sites
                    .iter()
                    .position(|x| x.kind == SiteKind::Library(c))
                    .map_or(s, |i| i as SiteId);
                (c, first)
            })
            .collect();
        self.sites.truncate(
            objects
                .values()
                .copied()
                .max()
                .map_or(self.sites.len(), |m| m as usize + 1),
        );
        self.recording = false;
        self.cur = u32::MAX;
        let mut st = self.fresh_state(Vec::new());
        for c in 0..self.p.classes.len() {
            if let Some(m) = self.p.classes[c].clinit {
                st = self.invoke(m, None, Vec::new(), st, 0).0;
            }
        }
        for c in 0..self.p.classes.len() as ClassId {
            let this = Val {
                sites: BTreeSet::from([objects[&c]]),
                taint: BTreeSet::new(),
            };
            if let Some(m) = self.p.classes[c as usize].init {
                st = self.invoke(m, Some(this.clone()), Vec::new(), st, 0).0;
            }
            let ctor = self
                .p
                .methods
                .iter()
                .position(|m| m.class == Some(c) && m.is_constructor);
            if let Some(m) = ctor {
                let args = self.library_args(m as MethodId, &objects);
                st = self.invoke(m as MethodId, Some(this), args, st, 0).0;
            }
        }
        self.recording = true;
        let mut clients = Vec::new();
        for (i, m) in self.p.methods.iter().enumerate() {
            let Some(c) = m.class else { continue };
            if m.is_public && !m.is_static && !m.is_constructor {
                clients.push((i as MethodId, c));
            }
        }
        for (m, c) in clients {
            let name = format!(
                "{}.{}()",
                self.p.classes[c as usize].name, self.p.methods[m as usize].name
            );
            let t = self.new_thread(name.clone(), None, None);
            self.cur = t;
            self.ctx.clear();
            self.loop_depth = 0;
            let this = Val {
                sites: BTreeSet::from([objects[&c]]),
                taint: BTreeSet::new(),
            };
            let args = self.library_args(m, &objects);
            let st = self.fresh_state(Vec::new());
            let (end, _) = self.invoke(m, Some(this), args, st, 0);
            self.end_thread(t, &end);
            self.new_thread(format!("{name} [2]"), None, Some(t));
        }
        let mut i = 0;
        while i < self.threads.len() {
            if !self.threads[i].walked {
                self.walk_thread(i as u32);
            }
            i += 1;
        }
    }

    fn library_args(&self, m: MethodId, objects: &FxHashMap<ClassId, SiteId>) -> Vec<Val> {
        self.p.methods[m as usize]
            .param_types
            .iter()
            .map(|ty| {
                let mut v = Val::default();
                if let Some(c) = self.p.class_named(crate::java::base_type(ty)) {
                    v.sites.insert(objects[&c]);
                }
                v
            })
            .collect()
    }

    fn region_id(&mut self, src: RegionSrcId) -> RegionId {
        let key = (self.cur, self.ctx.clone(), src);
        if let Some(&r) = self.region_ids.get(&key) {
            return r;
        }
        let id = self.regions.len() as RegionId;
        self.regions.push(RegionInfo {
            thread: self.cur,
            src,
            view: View::new(),
            preceded: BTreeSet::new(),
            alive: BTreeSet::new(),
        });
        self.region_ids.insert(key, id);
        id
    }

    fn open(&mut self, src: RegionSrcId, mut st: St) -> St {
        if st.depth == 0 && self.recording {
            let id = self.region_id(src);
            let info = &mut self.regions[id as usize];
            info.preceded.extend(st.done.iter().copied());
            info.alive
                .extend(st.started.difference(&st.joined).copied());
            // What an earlier run of this region read is now an earlier run's value.
            let age = |s: &mut BTreeSet<Dep>| {
                if s.iter().any(|d| d.0 == id && !d.2) {
                    *s = s.iter().map(|&(r, v, p)| (r, v, p || r == id)).collect();
                }
            };
            for l in &mut st.locals {
                age(&mut l.taint);
            }
            age(&mut st.pc);
            let cur = self.cur;
            for (_, t) in self.heap_taint.iter_mut().filter(|(k, _)| k.0 == cur) {
                age(t);
            }
            st.region = Some(OpenRegion {
                id,
                view: View::new(),
                joined_at_start: st.joined.clone(),
            });
        }
        st.depth += 1;
        st
    }

    fn close(&mut self, mut st: St) -> St {
        if !st.live || st.depth == 0 {
            return st;
        }
        st.depth -= 1;
        if st.depth == 0 {
            if let Some(r) = &st.region {
                // What the region read and still holds when it ends leaves it.
                let id = r.id;
                let held: Vec<Dep> = st
                    .locals
                    .iter()
                    .flat_map(|l| l.taint.iter())
                    .chain(st.pc.iter())
                    .filter(|d| d.0 == id)
                    .copied()
                    .collect();
                self.escaped.extend(held.into_iter().map(|d| (d.0, d.1)));
            }
            if let Some(r) = st.region.take() {
                let info = &mut self.regions[r.id as usize];
                info.view.union(&r.view);
                info.alive
                    .extend(st.started.difference(&r.joined_at_start).copied());
                st.done.insert(r.id);
            }
        }
        st
    }

    fn access(&mut self, st: &mut St, kind: Kind, var: u32) {
        if let Some(r) = &mut st.region {
            r.view.add(Access::new(kind, var, Mark::Open));
            // An access under a branch on a value the region read: that value decides more
            // than what is written back to its own variable.
            let id = r.id;
            self.escape(id, &st.pc);
        }
    }

    /// The values the region `id` read that `deps` holds are used for more than writing their
    /// own variable back.
    fn escape(&mut self, id: RegionId, deps: &BTreeSet<Dep>) {
        for d in deps.iter().filter(|d| d.0 == id) {
            self.escaped.insert((d.0, d.1));
        }
    }

    /// The region's reads that `v` (a value leaving the region: returned, or passed to a
    /// thread it starts) holds leave it.
    fn escape_value(&mut self, st: &St, v: &Val) {
        if let Some(r) = &st.region {
            let id = r.id;
            self.escape(id, &v.taint);
        }
    }

    /// A write inside a region: the dependences it acts on become facts. The value written
    /// (and the object or element it is written to) acts on what it depends on; the branches
    /// it runs under act on what they depend on, unless the write also runs under a branch on
    /// the region's own read of that variable (it re-checks: the double check of DoubleCheck
    /// and Buffer).
    fn write_deps(&mut self, st: &St, var: u32, value: &BTreeSet<Dep>) {
        let Some(r) = &st.region else { return };
        // `x = x + 1`: the region's reads the value depends on are of `x` alone (this run's),
        // so they only write `x` back; any other read it depends on leaves the read view's
        // rule (6) behind.
        let own_only = value
            .iter()
            .filter(|d| d.0 == r.id)
            .all(|&(_, x, earlier)| x == var && !earlier);
        if !own_only {
            let id = r.id;
            self.escape(id, value);
        }
        for &(a, x, earlier) in value {
            if a != r.id || earlier {
                self.facts.insert((self.cur, a, r.id, x));
            }
        }
        for &(a, x, earlier) in &st.pc {
            if (a != r.id || earlier) && !st.pc.contains(&(r.id, x, false)) {
                self.facts.insert((self.cur, a, r.id, x));
            }
        }
    }

    fn block(&mut self, stmts: &[Stmt], st: St) -> Out {
        let mut out = Out::normal(st);
        for s in stmts {
            if !out.next.live {
                break;
            }
            let next = std::mem::take(&mut out.next);
            let o = self.stmt(s, next);
            out.next = o.next;
            out.brk = std::mem::take(&mut out.brk).join(o.brk);
            out.cont = std::mem::take(&mut out.cont).join(o.cont);
            out.ret = std::mem::take(&mut out.ret).join(o.ret);
            out.retval.union(&o.retval);
        }
        out
    }

    fn stmt(&mut self, s: &Stmt, st: St) -> Out {
        if !self.step() {
            // The budget is spent: the rest of the walk is skipped, what was seen is kept.
            return Out::normal(st);
        }
        match s {
            Stmt::Set(l, e) => {
                let (v, mut st) = self.eval(e, st);
                // A local set under a branch on a value the region read carries that value
                // (the local's value says which way the branch went).
                if let Some(r) = &st.region {
                    let id = r.id;
                    self.escape(id, &st.pc);
                }
                if let Some(slot) = st.locals.get_mut(*l as usize) {
                    *slot = v;
                }
                Out::normal(st)
            }
            Stmt::Store(o, f, e) => {
                let (ov, st) = self.eval(o, st);
                let (mut v, mut st) = self.eval(e, st);
                v.taint.extend(ov.taint.iter().copied());
                for &s in &ov.sites {
                    self.store(&mut st, s, f, &v);
                }
                Out::normal(st)
            }
            Stmt::StoreStatic(c, f, e) => {
                let (v, mut st) = self.eval(e, st);
                let s = self.statics[c];
                self.store(&mut st, s, f, &v);
                Out::normal(st)
            }
            Stmt::StoreElem(a, i, e) => {
                let (av, st) = self.eval(a, st);
                let (iv, st) = self.eval(i, st);
                let (mut v, mut st) = self.eval(e, st);
                v.taint.extend(av.taint.iter().copied());
                v.taint.extend(iv.taint.iter().copied());
                for &s in &av.sites {
                    self.store(&mut st, s, "[]", &v);
                }
                Out::normal(st)
            }
            Stmt::Eval(e) => Out::normal(self.eval(e, st).1),
            Stmt::If(c, then, other) => {
                let (cv, st) = self.eval(c, st);
                let before = st.pc.clone();
                let mut inner = st;
                inner.pc.extend(cv.taint.iter().copied());
                let a = self.block(then, inner.clone());
                let b = self.block(other, inner);
                let both = a.next.live && b.next.live;
                let mut out = Out {
                    next: a.next.join(b.next),
                    brk: a.brk.join(b.brk),
                    cont: a.cont.join(b.cont),
                    ret: a.ret.join(b.ret),
                    retval: a.retval,
                };
                out.retval.union(&b.retval);
                if both {
                    // Both branches reach the join: what follows does not depend on the
                    // condition (unless it did before).
                    out.next
                        .pc
                        .retain(|d| !cv.taint.contains(d) || before.contains(d));
                }
                out
            }
            Stmt::Loop(body, update) => {
                self.loop_depth += 1;
                let mut head = st;
                let mut result = Out::default();
                for _ in 0..MAX_LOOP_ROUNDS {
                    let o = self.block(body, head.clone());
                    let cont = if o.cont.live {
                        self.block(update, o.cont).next
                    } else {
                        St::dead()
                    };
                    let back = o.next.join(cont);
                    let new_head = head.clone().join(back);
                    result = Out {
                        next: o.brk,
                        brk: St::dead(),
                        cont: St::dead(),
                        ret: o.ret,
                        retval: o.retval,
                    };
                    if new_head == head {
                        break;
                    }
                    head = new_head;
                }
                self.loop_depth -= 1;
                result
            }
            Stmt::Break => Out {
                brk: st,
                ..Out::default()
            },
            Stmt::Continue => Out {
                cont: st,
                ..Out::default()
            },
            Stmt::Return(e) => {
                let (mut v, st) = match e {
                    Some(e) => self.eval(e, st),
                    None => (Val::default(), st),
                };
                v.taint.extend(st.pc.iter().copied());
                Out {
                    ret: st,
                    retval: v,
                    ..Out::default()
                }
            }
            Stmt::Atomic(src, body) => {
                let st = self.open(*src, st);
                let o = self.block(body, st);
                if o.ret.live {
                    self.escape_value(&o.ret, &o.retval);
                }
                Out {
                    next: self.close(o.next),
                    brk: self.close(o.brk),
                    cont: self.close(o.cont),
                    ret: self.close(o.ret),
                    retval: o.retval,
                }
            }
            Stmt::Lock(src) => Out::normal(self.open(*src, st)),
            Stmt::Unlock => Out::normal(self.close(st)),
            Stmt::JoinedAll(starts) => {
                let mut st = st;
                if st.live {
                    for &id in starts {
                        let mut ctx = self.ctx.clone();
                        ctx.push(id);
                        for (k, &key) in &self.key_ids {
                            if k.0 == self.cur && k.1 == ctx && st.started.contains(&key) {
                                st.joined.insert(key);
                            }
                        }
                    }
                }
                Out::normal(st)
            }
        }
    }

    fn store(&mut self, st: &mut St, site: SiteId, field: &str, v: &Val) {
        let var = self.var(site, field);
        self.access(st, Kind::Write, var);
        self.write_deps(st, var, &v.taint);
        self.heap_add(site, field, &v.sites);
        if !v.taint.is_empty() && st.region.is_none() {
            self.heap_taint
                .entry((self.cur, site, field.to_owned()))
                .or_default()
                .extend(v.taint.iter().copied());
        }
    }

    fn load(&mut self, st: &mut St, site: SiteId, field: &str, out: &mut Val) {
        let var = self.var(site, field);
        self.access(st, Kind::Read, var);
        if let Some(r) = &st.region {
            out.taint.insert((r.id, var, false));
        }
        out.sites.extend(self.heap_get(site, field));
        if st.region.is_none() {
            if let Some(t) = self.heap_taint.get(&(self.cur, site, field.to_owned())) {
                out.taint.extend(t.iter().copied());
            }
        }
    }

    fn eval(&mut self, e: &Expr, st: St) -> (Val, St) {
        match e {
            Expr::Int(_) | Expr::Null => (Val::default(), st),
            Expr::Local(l) => (st.locals.get(*l as usize).cloned().unwrap_or_default(), st),
            Expr::Field(o, f) => {
                let (ov, mut st) = self.eval(o, st);
                let mut v = Val::tainted(ov.taint.clone());
                for &s in &ov.sites {
                    self.load(&mut st, s, f, &mut v);
                }
                (v, st)
            }
            Expr::Static(c, f) => {
                let mut st = st;
                let mut v = Val::default();
                let s = self.statics[c];
                self.load(&mut st, s, f, &mut v);
                (v, st)
            }
            Expr::Elem(a, i) => {
                let (av, st) = self.eval(a, st);
                let (iv, mut st) = self.eval(i, st);
                let mut v = Val::tainted(av.taint.clone());
                v.taint.extend(iv.taint);
                for &s in &av.sites {
                    self.load(&mut st, s, "[]", &mut v);
                    // An array the program stores no element into: its elements are the
                    // object of its element class (or the inner array) that stands for them
                    // (`Site::elem`). Once a store is seen (the walk reruns until the heap
                    // is stable) the stored elements are its elements.
                    if let Some(e) = self.sites[s as usize].elem {
                        if self.heap_get(s, "[]").is_empty() {
                            v.sites.insert(e);
                        }
                    }
                }
                (v, st)
            }
            Expr::Bin(_, a, b) => {
                let (mut x, st) = self.eval(a, st);
                let (y, st) = self.eval(b, st);
                x.union(&y);
                x.sites.clear();
                (x, st)
            }
            Expr::Not(a) | Expr::Neg(a) => {
                let (mut x, st) = self.eval(a, st);
                x.sites.clear();
                (x, st)
            }
            Expr::Cond(c, a, b) => {
                let (cv, st) = self.eval(c, st);
                let (mut x, st) = self.eval(a, st);
                let (y, st) = self.eval(b, st);
                x.union(&y);
                x.taint.extend(cv.taint);
                (x, st)
            }
            Expr::New(site, args) => {
                let (vals, st) = self.eval_all(args, st);
                self.new_object(*site, vals, st)
            }
            Expr::NewArray(site, items) => {
                let (vals, st) = self.eval_all(items, st);
                let mut all = BTreeSet::new();
                for v in &vals {
                    all.extend(v.sites.iter().copied());
                }
                self.heap_add(*site, "[]", &all);
                (
                    Val {
                        sites: BTreeSet::from([*site]),
                        taint: BTreeSet::new(),
                    },
                    st,
                )
            }
            Expr::Lambda(site, outer) => {
                let vals: Vec<Val> = outer
                    .iter()
                    .map(|l| st.locals.get(*l as usize).cloned().unwrap_or_default())
                    .collect();
                for (i, v) in vals.iter().enumerate() {
                    self.heap_add(*site, &format!("<cap{i}>"), &v.sites);
                }
                (
                    Val {
                        sites: BTreeSet::from([*site]),
                        taint: BTreeSet::new(),
                    },
                    st,
                )
            }
            Expr::Unknown(args) => {
                let (vals, st) = self.eval_all(args, st);
                let mut v = Val::default();
                for x in vals {
                    v.taint.extend(x.taint);
                }
                (v, st)
            }
            Expr::StaticCall {
                id,
                class,
                name,
                args,
                ..
            } => {
                let (vals, st) = self.eval_all(args, st);
                match self.p.find_method(*class, name, vals.len()) {
                    Some(m) if self.p.methods[m as usize].is_static => {
                        let (st, v) = self.invoke(m, None, vals, st, *id);
                        (v, st)
                    }
                    _ => (unknown_value(&vals), st),
                }
            }
            Expr::Call {
                id,
                recv,
                name,
                args,
                line,
            } => {
                let (rv, st) = match recv {
                    Some(r) => {
                        let (v, st) = self.eval(r, st);
                        (Some(v), st)
                    }
                    None => (None, st),
                };
                let (vals, st) = self.eval_all(args, st);
                self.call(*id, rv, name, vals, *line, st)
            }
        }
    }

    fn eval_all(&mut self, es: &[Expr], mut st: St) -> (Vec<Val>, St) {
        let mut out = Vec::with_capacity(es.len());
        for e in es {
            let (v, s) = self.eval(e, st);
            out.push(v);
            st = s;
        }
        (out, st)
    }

    fn new_object(&mut self, site: SiteId, vals: Vec<Val>, st: St) -> (Val, St) {
        let me = Val {
            sites: BTreeSet::from([site]),
            taint: BTreeSet::new(),
        };
        let mut st = st;
        match self.sites[site as usize].kind.clone() {
            SiteKind::Object(c) => {
                if let Some(init) = self.p.classes[c as usize].init {
                    st = self
                        .invoke(init, Some(me.clone()), Vec::new(), st, site + 1_000_000)
                        .0;
                }
                if let Some(ctor) = self.p.constructor(c, vals.len()) {
                    st = self
                        .invoke(ctor, Some(me.clone()), vals, st, site + 2_000_000)
                        .0;
                }
            }
            SiteKind::Thread => {
                if let Some(t) = vals.first() {
                    self.heap_add(site, "<target>", &t.sites);
                }
            }
            SiteKind::Executor { .. } => self.made(site),
            _ => {}
        }
        (me, st)
    }

    /// The value of a call the analysis does not follow: it depends on what it is given.
    fn call(
        &mut self,
        id: CallId,
        recv: Option<Val>,
        name: &str,
        args: Vec<Val>,
        line: u32,
        st: St,
    ) -> (Val, St) {
        let current = *self.stack.last().expect("a call runs inside a method");
        let cm = &self.p.methods[current as usize];
        let recv = match recv {
            Some(r) => r,
            None => {
                let class = cm.class.expect("methods belong to classes");
                match self.p.find_method(class, name, args.len()) {
                    Some(m) if self.p.methods[m as usize].is_static || cm.is_static => {
                        let (st, v) = self.invoke(m, None, args, st, id);
                        return (v, st);
                    }
                    _ => st.locals.first().cloned().unwrap_or_default(),
                }
            }
        };
        if recv.sites.is_empty() {
            let mut v = unknown_value(&args);
            v.taint.extend(recv.taint.iter().copied());
            return (v, st);
        }
        let mut result = Val::default();
        let mut joined: Option<St> = None;
        for &s in &recv.sites {
            let this = Val {
                sites: BTreeSet::from([s]),
                taint: recv.taint.clone(),
            };
            let (v, out) = self.call_on(id, s, this, name, args.clone(), line, st.clone());
            result.union(&v);
            joined = Some(match joined {
                None => out,
                Some(j) => j.join(out),
            });
        }
        (result, joined.unwrap_or(st))
    }

    #[allow(clippy::too_many_arguments)]
    fn call_on(
        &mut self,
        id: CallId,
        site: SiteId,
        this: Val,
        name: &str,
        args: Vec<Val>,
        line: u32,
        mut st: St,
    ) -> (Val, St) {
        let kind = self.sites[site as usize].kind.clone();
        match kind {
            SiteKind::Object(c) | SiteKind::Library(c) => {
                let cl = &self.p.classes[c as usize];
                let found = self.p.find_method(c, name, args.len());
                if found.is_none() && cl.is_thread && args.is_empty() {
                    match name {
                        "start" => {
                            let run = self.p.find_method(c, "run", 0);
                            if let Some(run) = run {
                                let entry = Entry {
                                    method: run,
                                    locals: vec![this],
                                };
                                self.spawn(id, site, Spawn::thread(site), entry, line, &mut st);
                            }
                            return (Val::default(), st);
                        }
                        "join" => {
                            self.join_thread(site, &mut st);
                            return (Val::default(), st);
                        }
                        _ => {}
                    }
                }
                if found.is_none() && matches!(name, "<size>" | "<at>") {
                    // `for (x : obj)` over an `Iterable` of the program: its `iterator()`
                    // runs, and what that reads (a collection's contents, its elements) is
                    // what the loop reads and gets.
                    if let Some(it) = self.p.find_method(c, "iterator", 0) {
                        let (st, mut v) = self.invoke(it, Some(this), Vec::new(), st, id);
                        if name == "<size>" {
                            v.sites.clear();
                        }
                        for a in &args {
                            v.taint.extend(a.taint.iter().copied());
                        }
                        return (v, st);
                    }
                }
                match found {
                    Some(m) => {
                        let (st, v) = self.invoke(m, Some(this), args, st, id);
                        (v, st)
                    }
                    None => (unknown_value(&args), st),
                }
            }
            SiteKind::Thread => {
                match name {
                    "start" => {
                        for t in self.heap_get(site, "<target>") {
                            if let Some(entry) = self.entry_of(t) {
                                self.spawn(id, t, Spawn::thread(site), entry, line, &mut st);
                            }
                        }
                    }
                    "join" => self.join_thread(site, &mut st),
                    _ => {}
                }
                (unknown_value(&args), st)
            }
            SiteKind::Executor { serial } => {
                // One object of a single-thread executor: its tasks run one at a time, in
                // the order submitted.
                let serial = serial && !self.made_again.contains(&site);
                match name {
                    "submit" | "execute" => {
                        if let Some(a) = args.first() {
                            for t in a.sites.clone() {
                                if let Some(entry) = self.entry_of(t) {
                                    let spawn = Spawn {
                                        handle: site,
                                        executor: true,
                                        serial,
                                        many: false,
                                    };
                                    self.spawn(id, t, spawn, entry, line, &mut st);
                                }
                            }
                        }
                    }
                    "invokeAll" => {
                        // Runs every task of the collection (once per time it is in it) and
                        // returns when all are done: they are joined right away.
                        let mut started = Vec::new();
                        for c in args.first().map(|a| a.sites.clone()).unwrap_or_default() {
                            for t in self.heap_get(c, "[]") {
                                let Some(entry) = self.entry_of(t) else {
                                    continue;
                                };
                                let spawn = Spawn {
                                    handle: site,
                                    executor: true,
                                    serial,
                                    many: self.stored_again.contains(&(c, t)),
                                };
                                started.extend(self.spawn(id, t, spawn, entry, line, &mut st));
                            }
                        }
                        st.joined.extend(started);
                    }
                    "awaitTermination" | "close" => {
                        for (k, key) in self.keys.iter().enumerate() {
                            if key.executor
                                && key.handle == site
                                && st.started.contains(&(k as KeyId))
                            {
                                st.joined.insert(k as KeyId);
                            }
                        }
                    }
                    _ => {}
                }
                (unknown_value(&args), st)
            }
            SiteKind::Lambda(m) => {
                if matches!(name, "run" | "call" | "get" | "accept" | "apply" | "test") {
                    let n = self.p.methods[m as usize].params as usize - args.len();
                    let mut locals: Vec<Val> = (0..n)
                        .map(|i| Val {
                            sites: self.heap_get(site, &format!("<cap{i}>")),
                            taint: BTreeSet::new(),
                        })
                        .collect();
                    locals.extend(args);
                    let (st, v) = self.invoke_locals(m, locals, st, id);
                    return (v, st);
                }
                (unknown_value(&args), st)
            }
            SiteKind::Array => match name {
                "<at>" => {
                    let mut v = Val::tainted(this.taint.clone());
                    for a in &args {
                        v.taint.extend(a.taint.iter().copied());
                    }
                    self.load(&mut st, site, "[]", &mut v);
                    (v, st)
                }
                _ => (unknown_value(&args), st),
            },
            SiteKind::Collection(ty) => {
                let effect = match name {
                    "<size>" | "<at>" => Effect::Read,
                    _ => self.models.effect(&ty, name),
                };
                let own = st.depth == 0 && self.models.is_synchronized(&ty);
                if own {
                    let src = match self.model_srcs.get(&id) {
                        Some(&s) => s,
                        None => {
                            let at = self
                                .srcs
                                .iter()
                                .find(|r| r.start == line)
                                .map_or(0, |r| r.file);
                            let file = self.sites[site as usize].file.max(at);
                            self.srcs.push(RegionSrc {
                                file,
                                start: line,
                                end: line,
                                what: format!("synchronized `{ty}.{name}`"),
                            });
                            let s = (self.srcs.len() - 1) as RegionSrcId;
                            self.model_srcs.insert(id, s);
                            s
                        }
                    };
                    st = self.open(src, st);
                }
                let mut v = Val::tainted(this.taint.clone());
                let mut arg = Val::default();
                for a in &args {
                    arg.union(a);
                }
                if matches!(effect, Effect::Read | Effect::Update) {
                    self.load(&mut st, site, "[]", &mut v);
                }
                if matches!(effect, Effect::Write | Effect::Update) {
                    for e in arg.sites.clone() {
                        if self.repeated() || !self.stored_once.insert((site, e)) {
                            self.stored_again.insert((site, e));
                        }
                    }
                    let mut w = arg.clone();
                    if effect == Effect::Update {
                        // The new contents are the old ones changed.
                        w.taint.extend(v.taint.iter().copied());
                    }
                    self.store(&mut st, site, "[]", &w);
                }
                v.taint.extend(arg.taint);
                if let Some(n) = self.models.fills(&ty, name) {
                    // `getChars(.., dst, ..)`: the array passed fills with what the call read
                    // and was given, a write of a value that depends on both.
                    let filled = Val::tainted(v.taint.clone());
                    for s in args.get(n).map(|a| a.sites.clone()).unwrap_or_default() {
                        self.store(&mut st, s, "[]", &filled);
                    }
                }
                if own {
                    // The call's value leaves the region it ran in.
                    self.escape_value(&st, &v);
                    st = self.close(st);
                }
                (v, st)
            }
        }
    }

    /// What runs when a `Runnable` (or lambda, or thread) made at `t` is started.
    fn entry_of(&self, t: SiteId) -> Option<Entry> {
        match &self.sites[t as usize].kind {
            SiteKind::Object(c) | SiteKind::Library(c) => {
                let m = self
                    .p
                    .find_method(*c, "run", 0)
                    .or_else(|| self.p.find_method(*c, "call", 0))?;
                Some(Entry {
                    method: m,
                    locals: vec![Val {
                        sites: BTreeSet::from([t]),
                        taint: BTreeSet::new(),
                    }],
                })
            }
            SiteKind::Lambda(m) => {
                let n = self.p.methods[*m as usize].params as usize;
                Some(Entry {
                    method: *m,
                    locals: (0..n)
                        .map(|i| Val {
                            sites: self.heap_get(t, &format!("<cap{i}>")),
                            taint: BTreeSet::new(),
                        })
                        .collect(),
                })
            }
            _ => None,
        }
    }

    /// Starts (walks later) a thread running `entry`, or finds the thread this start was
    /// already given; its key, or `None` when not recording or when it was folded.
    fn spawn(
        &mut self,
        id: CallId,
        target: SiteId,
        how: Spawn,
        entry: Entry,
        line: u32,
        st: &mut St,
    ) -> Option<KeyId> {
        if !self.recording {
            return None;
        }
        let Spawn {
            handle,
            executor,
            serial,
            many,
        } = how;
        let mut ctx = self.ctx.clone();
        ctx.push(id);
        let k = (self.cur, ctx, target);
        let cur = self.cur as usize;
        let copies = self.threads[cur].origin as usize != cur
            || self
                .threads
                .iter()
                .enumerate()
                .any(|(i, t)| t.origin as usize == cur && i != cur);
        // A task of a single-thread executor submitted in a loop runs once per submission,
        // never two at once: no copy.
        let multi = many || copies || (self.loop_depth > 0 && !serial);
        // What surely ended before it starts: the threads joined, and for a task of a
        // single-thread executor every task submitted to it before.
        let mut before = st.joined.clone();
        if serial {
            before.extend(
                self.keys
                    .iter()
                    .enumerate()
                    .filter(|(k, key)| {
                        key.executor && key.handle == handle && st.started.contains(&(*k as KeyId))
                    })
                    .map(|(k, _)| k as KeyId),
            );
        }
        let key = match self.key_ids.get(&k) {
            Some(&key) => {
                let info = &mut self.keys[key as usize];
                info.joined_at_spawn = info
                    .joined_at_spawn
                    .intersection(&before)
                    .copied()
                    .collect();
                for (a, b) in info.entry.locals.iter_mut().zip(&entry.locals) {
                    a.union(b);
                }
                if multi && !info.multi {
                    info.multi = true;
                    self.add_copy(key);
                }
                key
            }
            None => {
                if let Some(onto) = self.fold_onto(entry.method) {
                    self.fold(onto, entry);
                    return None;
                }
                let mut entry = entry;
                if let Some(extra) = self.folded_entries.get(&entry.method) {
                    for (a, b) in entry.locals.iter_mut().zip(extra) {
                        a.union(b);
                    }
                }
                let key = self.keys.len() as KeyId;
                let label = match &self.sites[target as usize].kind {
                    SiteKind::Object(c) | SiteKind::Library(c) => {
                        self.p.classes[*c as usize].name.clone()
                    }
                    _ => "lambda".to_owned(),
                };
                let file = self.p.methods[*self.stack.last().expect("in a method") as usize].file;
                self.keys.push(KeyInfo {
                    parent: self.cur,
                    handle,
                    executor,
                    entry,
                    multi,
                    joined_at_spawn: before,
                    serial,
                    line,
                    file,
                    label,
                });
                self.key_ids.insert(k, key);
                let name = self.thread_name(key);
                self.new_thread(name, Some(key), None);
                if multi {
                    self.add_copy(key);
                }
                key
            }
        };
        st.started.insert(key);
        Some(key)
    }

    /// The thread a new thread running `method` is folded onto: the nearest on the current
    /// chain of starts (the current thread, its parent, ...) that runs `method`, if the chain
    /// already holds [`SPAWN_COPIES`] of them.
    fn fold_onto(&self, method: MethodId) -> Option<u32> {
        let mut nearest = None;
        let mut count = 0;
        let mut t = self.cur;
        // Each hop goes to an earlier thread, so the walk ends; the bound is a guard.
        for _ in 0..=self.threads.len() {
            let Some(k) = self.threads.get(t as usize).and_then(|th| th.key) else {
                break;
            };
            let key = &self.keys[k as usize];
            if key.entry.method == method {
                count += 1;
                nearest.get_or_insert(t);
            }
            t = key.parent;
        }
        (count >= SPAWN_COPIES).then_some(nearest).flatten()
    }

    /// Folds a thread about to be started onto `onto`, a thread running the same method above
    /// it. Soundness for the warnings given: the folded thread runs the same method on the
    /// same abstract objects (allocation sites; its entry values are added to those of every
    /// thread of that method, from the next round on), so its regions have the views and
    /// dependences of `onto`'s regions, and so do the threads it would start (those of `onto`,
    /// or folded likewise). `onto` gets a copy (`[2]`), a
    /// thread with its views that runs in parallel with it, and every thread at or below
    /// `onto` is taken to run in parallel with every other thread ([`Analysed::parallel`]):
    /// any pair of regions the folded threads could form with any thread is then a pair of
    /// `onto`'s copy (or of a thread below `onto`) with that thread, and view consistency and
    /// stale values are pairwise. What it gives up is precision: the start/join order inside
    /// and around that subtree is not used.
    fn fold(&mut self, onto: u32, entry: Entry) {
        let Some(key) = self.threads[onto as usize].key else {
            return;
        };
        self.threads[onto as usize].folded = true;
        let extra = self
            .folded_entries
            .entry(entry.method)
            .or_insert_with(|| vec![Val::default(); entry.locals.len()]);
        for (a, b) in extra.iter_mut().zip(&entry.locals) {
            let before = a.sites.len();
            a.union(b);
            if a.sites.len() != before {
                // The threads of this method were walked without these objects: again.
                self.heap_changed = true;
            }
        }
        let info = &mut self.keys[key as usize];
        if !info.multi {
            info.multi = true;
            self.add_copy(key);
        }
    }

    fn add_copy(&mut self, key: KeyId) {
        let Some(orig) = self.threads.iter().position(|t| t.key == Some(key)) else {
            return;
        };
        let name = format!("{} [2]", self.threads[orig].name);
        self.new_thread(name, Some(key), Some(orig as u32));
    }

    fn thread_name(&self, key: KeyId) -> String {
        let k = &self.keys[key as usize];
        let file = &self.p.files[k.file as usize].name;
        let file = file.rsplit(['/', '\\']).next().unwrap_or(file);
        let base = format!("{}@{file}:{}", k.label, k.line);
        let taken = self
            .threads
            .iter()
            .filter(|t| t.name == base || t.name.starts_with(&format!("{base}#")))
            .count();
        if taken == 0 {
            base
        } else {
            format!("{base}#{}", taken + 1)
        }
    }

    fn join_thread(&mut self, handle: SiteId, st: &mut St) {
        for (k, key) in self.keys.iter().enumerate() {
            if !key.executor
                && key.handle == handle
                && !key.multi
                && st.started.contains(&(k as KeyId))
            {
                st.joined.insert(k as KeyId);
            }
        }
    }

    fn invoke(
        &mut self,
        m: MethodId,
        this: Option<Val>,
        args: Vec<Val>,
        st: St,
        id: CallId,
    ) -> (St, Val) {
        let mut locals = Vec::new();
        if !self.p.methods[m as usize].is_static {
            locals.push(this.unwrap_or_default());
        }
        locals.extend(args);
        self.invoke_locals(m, locals, st, id)
    }

    fn invoke_locals(
        &mut self,
        m: MethodId,
        mut locals: Vec<Val>,
        mut st: St,
        id: CallId,
    ) -> (St, Val) {
        let method = &self.p.methods[m as usize];
        let recursive = self.stack.contains(&m);
        if recursive || self.stack.len() >= MAX_CALL_DEPTH {
            let at = format!(
                "{}:{}",
                self.p.files[method.file as usize].name, method.line
            );
            self.note(if recursive {
                format!("{at}: recursive call of `{}` not followed", method.name)
            } else {
                format!(
                    "{at}: call of `{}` {MAX_CALL_DEPTH} calls deep not followed",
                    method.name
                )
            });
            let mut v = Val::default();
            for l in &locals {
                v.taint.extend(l.taint.iter().copied());
            }
            return (st, v);
        }
        locals.resize(
            method.locals.max(locals.len() as u32) as usize,
            Val::default(),
        );
        let caller_locals = std::mem::replace(&mut st.locals, locals);
        let caller_pc = st.pc.clone();
        self.stack.push(m);
        self.ctx.push(id);
        let region = method.region;
        let st = match region {
            Some(r) => self.open(r, st),
            None => st,
        };
        let o = self.block(&method.body, st);
        if region.is_some() && o.ret.live {
            self.escape_value(&o.ret, &o.retval);
        }
        let (next, ret) = match region {
            Some(_) => (self.close(o.next), self.close(o.ret)),
            None => (o.next, o.ret),
        };
        self.ctx.pop();
        self.stack.pop();
        let mut end = next.join(ret);
        let mut v = o.retval;
        if !end.live {
            // Every path throws or loops forever: the caller goes on from here anyway.
            end.live = true;
        }
        v.taint.extend(end.pc.difference(&caller_pc).copied());
        end.pc = caller_pc;
        end.locals = caller_locals;
        (end, v)
    }
}

fn unknown_value(args: &[Val]) -> Val {
    let mut v = Val::default();
    for a in args {
        v.taint.extend(a.taint.iter().copied());
    }
    v
}

impl Analysis<'_> {
    fn finish(mut self, library: bool) -> Analysed {
        let n = self.threads.len();
        // Rule 6: a read of `x` whose value only writes `x` back in the same region leaves
        // the read view; `x` stays in the write view.
        for (i, r) in self.regions.iter_mut().enumerate() {
            let i = i as RegionId;
            let kept = |a: &Access| {
                a.kind == Kind::Write
                    || self.escaped.contains(&(i, a.var))
                    || r.view.bits(a.var) & Access::new(Kind::Write, a.var, Mark::Open).bit() == 0
                        && r.view.bits(a.var) & Access::new(Kind::Write, a.var, Mark::Closed).bit()
                            == 0
            };
            let view = View::from_accesses(r.view.accesses().filter(|a| kept(a)));
            r.view = view;
        }
        let mut ids: FxHashMap<View, ViewId> = FxHashMap::default();
        let mut views: Vec<View> = Vec::new();
        let mut region_view = Vec::with_capacity(self.regions.len());
        let mut by_view: Vec<FxHashMap<ViewId, Vec<RegionId>>> = vec![FxHashMap::default(); n];
        for (i, r) in self.regions.iter().enumerate() {
            if r.view.is_empty() {
                region_view.push(ViewId::MAX);
                continue;
            }
            let id = *ids.entry(r.view.clone()).or_insert_with(|| {
                views.push(r.view.clone());
                (views.len() - 1) as ViewId
            });
            region_view.push(id);
            by_view[r.thread as usize]
                .entry(id)
                .or_default()
                .push(i as RegionId);
        }
        let threads: Vec<ThreadViews> = self
            .threads
            .iter()
            .map(|t| {
                let mut v: Vec<ViewId> = by_view[t.origin as usize].keys().copied().collect();
                v.sort_unstable();
                ThreadViews {
                    name: t.name.clone(),
                    views: v,
                }
            })
            .collect();
        let knowledge = Knowledge {
            var_names: self.var_names.clone(),
            views,
            threads,
        };
        let mut a = Analysed {
            knowledge,
            threads: self.threads.clone(),
            regions: self.regions.clone(),
            srcs: self.srcs.clone(),
            by_view,
            region_view,
            warnings: Vec::new(),
            stale_regions: FxHashMap::default(),
            library,
            removed_by_mhp: 0,
            notes: self.notes.clone(),
            spawn_bounded: self
                .threads
                .iter()
                .filter(|t| t.folded)
                .map(|t| t.name.clone())
                .collect(),
            copied: self
                .threads
                .iter()
                .enumerate()
                .filter(|(i, t)| {
                    t.origin as usize == *i
                        && !t.folded
                        && t.key.is_some_and(|k| self.keys[k as usize].multi)
                })
                .map(|(_, t)| t.name.clone())
                .collect(),
            serial_tasks: self
                .threads
                .iter()
                .filter(|t| t.key.is_some_and(|k| self.keys[k as usize].serial))
                .map(|t| t.name.clone())
                .collect(),
            stopped: self.stopped,
            lines: Vec::new(),
            keys: self.keys.clone(),
        };
        let (races, _) = ViewConsistency.detect(&a.knowledge);
        let (races, removed) = mhp_filter(races, &a);
        a.removed_by_mhp = removed;
        let (stale, lookup) = a.stale_values(&self.facts);
        a.stale_regions = lookup;
        let all = merge(races.into_iter().chain(stale));
        a.warnings = a.merge_copies(all);
        a
    }
}

impl Analysed {
    fn regions_of(&self, t: usize, v: ViewId) -> &[RegionId] {
        let o = self.threads[t].origin as usize;
        self.by_view[o].get(&v).map_or(&[], |x| x.as_slice())
    }

    /// The chain of threads from `t`'s origin up to the root (itself first).
    fn ancestors(&self, t: usize) -> Vec<usize> {
        let mut out = vec![self.threads[t].origin as usize];
        let mut at = self.threads[t].key;
        let mut hops = 0;
        while let Some(k) = at {
            let p = self.keys[k as usize].parent as usize;
            let p = self.threads[p].origin as usize;
            out.push(p);
            at = self.threads[p].key;
            hops += 1;
            if hops > self.threads.len() {
                break;
            }
        }
        out
    }

    /// Whether region `r1` of thread `t1` and region `r2` of thread `t2` may overlap.
    pub fn parallel(&self, t1: usize, r1: RegionId, t2: usize, r2: RegionId) -> bool {
        if t1 == t2 {
            return false;
        }
        if self.library {
            return true;
        }
        let (o1, o2) = (
            self.threads[t1].origin as usize,
            self.threads[t2].origin as usize,
        );
        if o1 == o2 {
            return true;
        }
        let a1 = self.ancestors(t1);
        let a2 = self.ancestors(t2);
        // Threads folded onto a thread at or above either one stand for it: no order is known.
        let folded = |chain: &[usize]| chain.iter().any(|&x| self.threads[x].folded);
        if folded(&a1) || folded(&a2) {
            return true;
        }
        let below = |chain: &[usize], top: usize| -> Option<usize> {
            let i = chain.iter().position(|&x| x == top)?;
            (i > 0).then(|| chain[i - 1])
        };
        // Whether every thread from `c` down to (not including) the thread at chain[0]
        // surely joins what it started.
        let joins_down = |chain: &[usize], c: usize| -> bool {
            let i = chain.iter().position(|&x| x == c).unwrap_or(0);
            chain[1..=i.max(1).min(chain.len() - 1)]
                .iter()
                .filter(|&&x| x != chain[0])
                .all(|&x| self.threads[x].fully_joined)
        };
        if let Some(c) = below(&a2, o1) {
            // t1 is an ancestor of t2: does the child on the way run during r1?
            let key = self.threads[c].key.expect("a child has a key");
            return self.regions[r1 as usize].alive.contains(&key) || !joins_down(&a2, c);
        }
        if let Some(c) = below(&a1, o2) {
            let key = self.threads[c].key.expect("a child has a key");
            return self.regions[r2 as usize].alive.contains(&key) || !joins_down(&a1, c);
        }
        let common = a1.iter().find(|x| a2.contains(x)).copied();
        let Some(l) = common else { return true };
        let (Some(c1), Some(c2)) = (below(&a1, l), below(&a2, l)) else {
            return true;
        };
        let (k1, k2) = (
            self.threads[c1].key.expect("a child has a key"),
            self.threads[c2].key.expect("a child has a key"),
        );
        if k1 == k2 {
            return true;
        }
        let ordered = (self.keys[k2 as usize].joined_at_spawn.contains(&k1) && joins_down(&a1, c1))
            || (self.keys[k1 as usize].joined_at_spawn.contains(&k2) && joins_down(&a2, c2));
        !ordered
    }

    #[allow(clippy::type_complexity)]
    fn stale_values(
        &self,
        facts: &BTreeSet<(u32, RegionId, RegionId, u32)>,
    ) -> (
        Vec<Warning>,
        FxHashMap<(usize, ViewId, ViewId, u32), (RegionId, RegionId)>,
    ) {
        let mut out = Vec::new();
        let mut lookup = FxHashMap::default();
        for &(t0, ra, rb, x) in facts {
            let (va, vb) = (self.region_view[ra as usize], self.region_view[rb as usize]);
            if va == ViewId::MAX || vb == ViewId::MAX {
                continue;
            }
            for t in (0..self.threads.len()).filter(|&t| self.threads[t].origin == t0) {
                for u in (0..self.threads.len()).filter(|&u| u != t) {
                    let o = self.threads[u].origin as usize;
                    let mut writers: Vec<ViewId> = self.by_view[o]
                        .iter()
                        .filter(|(v, rs)| {
                            self.knowledge.views[**v as usize].bits(x)
                                & (hindsight_views::view::WRITE_FRESH
                                    | hindsight_views::view::WRITE_AFTER_READ)
                                != 0
                                && rs.iter().any(|&w| {
                                    self.parallel(u, w, t, ra) || self.parallel(u, w, t, rb)
                                })
                        })
                        .map(|(v, _)| *v)
                        .collect();
                    if writers.is_empty() {
                        continue;
                    }
                    writers.sort_unstable();
                    lookup.entry((t, va, vb, x)).or_insert((ra, rb));
                    out.push(Warning {
                        kind: STALE_VALUE,
                        threads: [t.min(u), t.max(u)],
                        variables: vec![x],
                        overlaps: Vec::new(),
                        witnesses: vec![Witness {
                            intruder: u,
                            intruder_views: writers,
                            intruder_role: "writes the variable".into(),
                            set: vec![x],
                            split: t,
                            first: vec![va],
                            second: vec![vb],
                            ordered: true,
                        }],
                    });
                }
            }
        }
        (out, lookup)
    }

    /// One warning per pair of threads up to copies: a copy's warning is its original's.
    fn merge_copies(&mut self, warnings: Vec<Warning>) -> Vec<Warning> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for w in warnings {
            let mut base = [self.base(w.threads[0]), self.base(w.threads[1])];
            base.sort_unstable();
            let key = (w.kind, base, w.variables.clone(), w.overlaps.clone());
            if seen.insert(key) {
                out.push(w);
            }
        }
        out
    }

    /// The thread a copy was made of (threads that are copies of each other share a base).
    fn base(&self, t: usize) -> usize {
        self.threads[t].origin as usize
    }

    /// The first region of thread `t` with view `v`.
    pub fn region_of(&self, t: usize, v: ViewId) -> Option<RegionId> {
        self.regions_of(t, v).first().copied()
    }

    pub fn src_of(&self, r: RegionId) -> &RegionSrc {
        &self.srcs[self.regions[r as usize].src as usize]
    }

    pub fn set_lines(&mut self, files: Vec<(String, String)>) {
        self.lines = files;
    }
}

impl Schedule for Analysed {
    fn may_run_in_parallel(&self, t1: usize, v1: ViewId, t2: usize, v2: ViewId) -> bool {
        self.regions_of(t1, v1).iter().any(|&r1| {
            self.regions_of(t2, v2)
                .iter()
                .any(|&r2| self.parallel(t1, r1, t2, r2))
        })
    }

    fn may_precede(&self, t: usize, a: ViewId, b: ViewId) -> bool {
        self.regions_of(t, b).iter().any(|&rb| {
            self.regions_of(t, a)
                .iter()
                .any(|ra| self.regions[rb as usize].preceded.contains(ra))
        })
    }
}

impl Provenance for Analysed {
    fn origin(&self, thread: usize, view: ViewId) -> String {
        match self.region_of(thread, view) {
            Some(r) => {
                let s = self.src_of(r);
                format!("{} at {}", s.what, self.lines_of(s))
            }
            None => String::new(),
        }
    }
    fn events(&self, _: usize, _: ViewId, _: &[u32]) -> Vec<EventRef> {
        Vec::new()
    }
}

impl Analysed {
    /// `File.java:12-14`.
    pub fn lines_of(&self, s: &RegionSrc) -> String {
        let file = self.lines.get(s.file as usize).map_or("", |f| f.0.as_str());
        if s.start == s.end {
            format!("{file}:{}", s.start)
        } else {
            format!("{file}:{}-{}", s.start, s.end)
        }
    }

    /// The source lines of a region.
    pub fn body_of(&self, s: &RegionSrc) -> Vec<String> {
        let Some((_, text)) = self.lines.get(s.file as usize) else {
            return Vec::new();
        };
        text.lines()
            .skip(s.start as usize - 1)
            .take((s.end - s.start + 1) as usize)
            .map(str::to_owned)
            .collect()
    }
}
