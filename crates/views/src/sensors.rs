//! The HLDR sensors of MoTH (PADTAD'11, Section 2.3) behind one small trait: each reads the
//! same knowledge base (the views of every thread) and returns warnings; sensors are
//! independent, run in parallel, and their warnings are merged without duplicates.
//!
//! - [`ViewConsistency`]: Section 2.3.1, maximal read/write views, overlapping views, chains,
//!   Property 1 (view safety) with the read/write distinction.
//! - [`StaleValue`]: Section 2.3.2, `psv`, `writes`, `pSafe`, Property 2 (single variable
//!   safety).
//!
//! A warning carries *witnesses*: which blocks of which thread would have to interleave for the
//! anomaly to happen. This module does not judge whether they can (that is the trace's business,
//! see `dynamic.rs`), and knows nothing of where the views came from.

use super::view::{holding, intersection, is_subset, maximal, maximal_among, Kind, Mark, View};
use super::{Knowledge, ViewId};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

pub const HIGH_LEVEL_RACE: &str = "high-level-race";

/// How many warnings a sensor reports at most. Traces whose regions touch random sets of
/// variables have so many distinct views that the number of violations grows with their cube;
/// a sensor stops there rather than exhaust memory, and the report says so.
pub const LIMIT: usize = 10_000;
pub const STALE_VALUE: &str = "stale-value";

/// One anomaly between two threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub kind: &'static str,
    /// Indices into `Knowledge::threads`, sorted.
    pub threads: [usize; 2],
    /// Variable ids, sorted.
    pub variables: Vec<u32>,
    /// For a high-level race, the two overlaps with the maximal view that do not form a chain;
    /// empty for a stale value.
    pub overlaps: Vec<Vec<u32>>,
    pub witnesses: Vec<Witness>,
}

impl Warning {
    /// What identifies a warning when sensors' results are merged.
    pub fn key(&self) -> (&'static str, [usize; 2], &[u32], &[Vec<u32>]) {
        (self.kind, self.threads, &self.variables, &self.overlaps)
    }
}

/// One way the anomaly can happen: a block of `intruder` (one of `intruder_views`) runs between
/// a block of `split` with a view in `first` and one with a view in `second`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    pub intruder: usize,
    pub intruder_views: Vec<ViewId>,
    /// What the intruder's views are to the anomaly: `maximal read view`, `writes x`, ...
    pub intruder_role: String,
    /// The variables the intruder accesses together: the maximal view of a high-level race, the
    /// written variable of a stale value.
    pub set: Vec<u32>,
    pub split: usize,
    pub first: Vec<ViewId>,
    pub second: Vec<ViewId>,
    /// Whether `first` must run before `second` in the split thread (a stale value is read in
    /// one block and written back in a *later* one); a high-level race happens in either order.
    pub ordered: bool,
}

/// Whether a sensor may go on: asked every [`POLL_EVERY`] steps (a run's time and memory
/// budget answers it). Once it says no, the sensor stops where it is and returns the warnings
/// found so far.
pub type GoOn<'a> = &'a (dyn Fn() -> bool + Sync);

/// How many steps of a sensor (threads of its outer loop, pairs of threads given warnings)
/// pass between two questions to its [`GoOn`].
pub const POLL_EVERY: u32 = 256;

/// What a sensor found: its warnings, whether it stopped at [`LIMIT`], and whether it was
/// stopped before the end (its [`GoOn`] said no), so that the warnings may be only some.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Detected {
    pub warnings: Vec<Warning>,
    pub truncated: bool,
    pub stopped: bool,
}

/// Counts a sensor's steps and asks its [`GoOn`] every [`POLL_EVERY`] of them; once the answer
/// is no, it stays no.
struct Poll<'a> {
    go_on: GoOn<'a>,
    unpolled: u32,
    stopped: bool,
}

impl<'a> Poll<'a> {
    fn new(go_on: GoOn<'a>) -> Poll<'a> {
        Poll {
            go_on,
            // The first step asks: a budget spent before the sensors start stops them at once.
            unpolled: POLL_EVERY,
            stopped: false,
        }
    }

    /// Whether to stop now.
    #[inline]
    fn stop(&mut self) -> bool {
        self.unpolled += 1;
        if self.unpolled >= POLL_EVERY && !self.stopped {
            self.unpolled = 0;
            self.stopped = !(self.go_on)();
        }
        self.stopped
    }

    /// The warnings found, as the sensor's answer.
    fn detected(&self, warnings: Vec<Warning>) -> Detected {
        Detected {
            truncated: warnings.len() >= LIMIT,
            warnings: merge(warnings),
            stopped: self.stopped,
        }
    }
}

/// An anomaly detector over the views of all threads.
pub trait Sensor: Sync {
    fn name(&self) -> &'static str;

    /// The warnings, asking `go_on` as the work goes.
    fn detect_within(&self, k: &Knowledge, go_on: GoOn<'_>) -> Detected;

    /// The warnings, and whether the sensor stopped at [`LIMIT`].
    fn detect(&self, k: &Knowledge) -> (Vec<Warning>, bool) {
        let d = self.detect_within(k, &|| true);
        (d.warnings, d.truncated)
    }
}

/// Runs `sensors` in parallel and merges their warnings: equal keys become one warning with the
/// witnesses of all. The result is sorted by key, so it does not depend on scheduling.
pub fn run_sensors(sensors: &[&dyn Sensor], k: &Knowledge) -> Vec<Warning> {
    run_sensors_counted(sensors, k).0
}

/// [`run_sensors`], and whether some sensor stopped at [`LIMIT`].
pub fn run_sensors_counted(sensors: &[&dyn Sensor], k: &Knowledge) -> (Vec<Warning>, bool) {
    let d = run_sensors_within(sensors, k, &|| true);
    (d.warnings, d.truncated)
}

/// [`run_sensors`] asking `go_on` as they work: the merged warnings, whether some sensor
/// stopped at [`LIMIT`], and whether some sensor was stopped by `go_on`.
pub fn run_sensors_within(sensors: &[&dyn Sensor], k: &Knowledge, go_on: GoOn<'_>) -> Detected {
    let all: Vec<Detected> = sensors
        .par_iter()
        .map(|s| s.detect_within(k, go_on))
        .collect();
    let truncated = all.iter().any(|d| d.truncated);
    let stopped = all.iter().any(|d| d.stopped);
    Detected {
        warnings: merge(all.into_iter().flat_map(|d| d.warnings)),
        truncated,
        stopped,
    }
}

/// A warning's key, owned.
type OwnedKey = (&'static str, [usize; 2], Vec<u32>, Vec<Vec<u32>>);

/// Variable sets of one kind of access, each with the views it comes from.
type Projected = Vec<(Vec<u32>, Vec<ViewId>)>;

/// Per variable: the views reading it without overwriting it, the views writing it.
type ReadsWrites = FxHashMap<u32, (Vec<ViewId>, Vec<ViewId>)>;

/// Merges warnings with equal keys, sorted by key.
pub fn merge(warnings: impl IntoIterator<Item = Warning>) -> Vec<Warning> {
    let mut out: Vec<Warning> = Vec::new();
    let mut index: FxHashMap<OwnedKey, usize> = FxHashMap::default();
    for w in warnings {
        let key = (w.kind, w.threads, w.variables.clone(), w.overlaps.clone());
        match index.get(&key) {
            Some(&i) => {
                for x in w.witnesses {
                    if !out[i].witnesses.contains(&x) {
                        out[i].witnesses.push(x);
                    }
                }
            }
            None => {
                index.insert(key, out.len());
                out.push(w);
            }
        }
    }
    out.sort_by(|a, b| a.key().cmp(&b.key()));
    out
}

/// `V_α(t)` of one thread: the distinct non-empty variable sets of its α-accesses, each with
/// the views it comes from.
fn projected(k: &Knowledge, t: usize, kind: Kind) -> Projected {
    let mut out = Projected::new();
    let mut index: FxHashMap<Vec<u32>, usize> = FxHashMap::default();
    for &v in &k.threads[t].views {
        let vars = k.views[v as usize].vars(kind);
        if vars.is_empty() {
            continue;
        }
        match index.get(&vars) {
            Some(&i) => out[i].1.push(v),
            None => {
                index.insert(vars.clone(), out.len());
                out.push((vars, vec![v]));
            }
        }
    }
    out
}

/// The sets of `projected` that meet `m`, in their order there (the order the literal scan
/// meets them in): those of `m`'s variables' entries in `holding` ([`holding`]).
fn meeting<'p>(
    m: &[u32],
    projected: &'p Projected,
    holding: &FxHashMap<u32, Vec<usize>>,
) -> impl Iterator<Item = &'p (Vec<u32>, Vec<ViewId>)> {
    let mut places: Vec<usize> = m
        .iter()
        .flat_map(|v| holding.get(v).into_iter().flatten().copied())
        .collect();
    places.sort_unstable();
    places.dedup();
    places.into_iter().map(move |i| &projected[i])
}

/// `V_α(t)` and `M_α(t)` of Section 2.3.1 as variable sets (Table 1's rows).
pub fn table(k: &Knowledge, t: usize, kind: Kind) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let views: Vec<Vec<u32>> = projected(k, t, kind).into_iter().map(|e| e.0).collect();
    let max = maximal(&views)
        .into_iter()
        .map(|i| views[i].clone())
        .collect();
    (views, max)
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Read => "read",
        Kind::Write => "write",
    }
}

/// Threads with the same views, `V(t)`, answer every sensor alike: the sensors work once per
/// class of such threads and hand the answer to each pair of threads the double loop over
/// threads would meet. A server that starts a thread per request has hundreds of thousands of
/// threads and a handful of classes.
struct Classes {
    /// The class of each thread.
    of: Vec<u32>,
    /// The threads of each class, in increasing order.
    members: Vec<Vec<usize>>,
}

impl Classes {
    fn of(k: &Knowledge) -> Classes {
        let mut ids: FxHashMap<&[ViewId], u32> = FxHashMap::default();
        let mut of = Vec::with_capacity(k.threads.len());
        let mut members: Vec<Vec<usize>> = Vec::new();
        for (t, th) in k.threads.iter().enumerate() {
            let next = members.len() as u32;
            let c = *ids.entry(&th.views[..]).or_insert(next);
            if c == next {
                members.push(Vec::new());
            }
            members[c as usize].push(t);
            of.push(c);
        }
        Classes { of, members }
    }

    /// A thread of class `c`, whose views are the class's.
    fn representative(&self, c: usize) -> usize {
        self.members[c][0]
    }

    /// The threads of `classes`, in increasing order.
    fn threads_of(&self, classes: &[u32]) -> Vec<usize> {
        let mut out: Vec<usize> = classes
            .iter()
            .flat_map(|&c| self.members[c as usize].iter().copied())
            .collect();
        out.sort_unstable();
        out
    }
}

/// A warning made for one pair of classes, given to a pair of their threads: `intruder` is the
/// thread of the first class, `split` of the second.
fn for_threads(template: &Warning, intruder: usize, split: usize) -> Warning {
    let mut w = template.clone();
    w.threads = [intruder.min(split), intruder.max(split)];
    for x in &mut w.witnesses {
        x.intruder = intruder;
        x.split = split;
    }
    w
}

/// Section 2.3.1. Property 1 is read with its quantifiers apart: every maximal read view of a
/// thread must be write-compatible with every other thread, and every maximal write view read-
/// and write-compatible (read literally as one quantifier over pairs `(m_r, m_w)`, a thread
/// without read views would never be checked, and Table 1's reset thread has none).
///
/// The warnings are those of the double loop over threads `t1` (with its maximal views) and
/// `t2`, in its order and cut at [`LIMIT`] where it would be; the overlaps of a maximal view
/// with the views of a class of threads are worked out once, for the classes that share a
/// variable with it.
pub struct ViewConsistency;

/// What a maximal view of a class meets: per check kind, the classes (`u32`) with warnings and
/// those warnings, and the threads of all those classes in increasing order.
struct Conflicts {
    per_class: [FxHashMap<u32, Vec<Warning>>; 2],
    threads: Vec<usize>,
}

impl Sensor for ViewConsistency {
    fn name(&self) -> &'static str {
        "view-consistency"
    }

    fn detect_within(&self, k: &Knowledge, go_on: GoOn<'_>) -> Detected {
        let mut poll = Poll::new(go_on);
        let classes = Classes::of(k);
        let nc = classes.members.len();
        let proj: Vec<[Projected; 2]> = (0..nc)
            .map(|c| {
                let t = classes.representative(c);
                [projected(k, t, Kind::Read), projected(k, t, Kind::Write)]
            })
            .collect();
        // Per class and kind: where each variable is held, and the maximal sets. Worked out
        // once per class, not once per thread of it.
        let held: Vec<[FxHashMap<u32, Vec<usize>>; 2]> = proj
            .iter()
            .map(|p| {
                p.each_ref()
                    .map(|sets| holding(sets.iter().map(|e| e.0.as_slice())))
            })
            .collect();
        let maxima: Vec<[Vec<usize>; 2]> = proj
            .iter()
            .zip(&held)
            .map(|(p, h)| [0, 1].map(|k| maximal_among(p[k].len(), |i| &p[k][i].0, &h[k])))
            .collect();
        // Per kind and variable, the classes with a view of that kind touching it.
        let mut touching: [FxHashMap<u32, Vec<u32>>; 2] = Default::default();
        for (c, p) in proj.iter().enumerate() {
            for kind in [Kind::Read, Kind::Write] {
                let mut vars: Vec<u32> = p[kind as usize]
                    .iter()
                    .flat_map(|e| e.0.iter().copied())
                    .collect();
                vars.sort_unstable();
                vars.dedup();
                for v in vars {
                    touching[kind as usize].entry(v).or_default().push(c as u32);
                }
            }
        }
        let mut conflicts: FxHashMap<(u32, Kind, usize), Conflicts> = FxHashMap::default();
        let mut seen = vec![false; nc];
        let mut out = Vec::new();
        for t1 in 0..k.threads.len() {
            if poll.stop() {
                return poll.detected(out);
            }
            let a = classes.of[t1];
            for (mk, checks) in [
                (Kind::Read, &[Kind::Write][..]),
                (Kind::Write, &[Kind::Read, Kind::Write][..]),
            ] {
                let mine = &proj[a as usize][mk as usize];
                for &mi in &maxima[a as usize][mk as usize] {
                    let (m, m_views) = &mine[mi];
                    let found = conflicts.entry((a, mk, mi)).or_insert_with(|| {
                        let mut per_class: [FxHashMap<u32, Vec<Warning>>; 2] = Default::default();
                        let mut with: Vec<u32> = Vec::new();
                        for &ck in checks {
                            let mut candidates = Vec::new();
                            for v in m {
                                for &b in touching[ck as usize].get(v).into_iter().flatten() {
                                    if !seen[b as usize] {
                                        seen[b as usize] = true;
                                        candidates.push(b);
                                    }
                                }
                            }
                            for &b in &candidates {
                                seen[b as usize] = false;
                            }
                            for b in candidates {
                                if poll.stop() {
                                    break;
                                }
                                // The thread numbers are set when the warnings are given out.
                                let (bi, ci) = (b as usize, ck as usize);
                                let views2 = meeting(m, &proj[bi][ci], &held[bi][ci]);
                                let ws = incompatible(0, mk, m, m_views, 0, ck, views2, LIMIT);
                                if !ws.is_empty() {
                                    per_class[ck as usize].insert(b, ws);
                                    with.push(b);
                                }
                            }
                        }
                        with.sort_unstable();
                        with.dedup();
                        Conflicts {
                            per_class,
                            threads: classes.threads_of(&with),
                        }
                    });
                    if poll.stopped {
                        // The conflicts of this view may be only some: none of them is given.
                        return poll.detected(out);
                    }
                    for &t2 in &found.threads {
                        if t2 == t1 {
                            continue;
                        }
                        if poll.stop() {
                            return poll.detected(out);
                        }
                        let b = classes.of[t2];
                        for &ck in checks {
                            if out.len() >= LIMIT {
                                return poll.detected(out);
                            }
                            let room = LIMIT - out.len();
                            if let Some(ws) = found.per_class[ck as usize].get(&b) {
                                out.extend(ws.iter().take(room).map(|w| for_threads(w, t1, t2)));
                            }
                        }
                    }
                }
            }
        }
        poll.detected(out)
    }
}

/// The warnings of `comp_ck(t2, m)` failing: each pair of overlaps that is not a chain.
#[allow(clippy::too_many_arguments)]
fn incompatible<'p>(
    t1: usize,
    mk: Kind,
    m: &[u32],
    m_views: &[ViewId],
    t2: usize,
    ck: Kind,
    views2: impl IntoIterator<Item = &'p (Vec<u32>, Vec<ViewId>)>,
    room: usize,
) -> Vec<Warning> {
    // overlap_ck(t2, m), each overlap with the views of t2 that produce it.
    let mut overlaps = Projected::new();
    let mut index: FxHashMap<Vec<u32>, usize> = FxHashMap::default();
    for (vars, views) in views2 {
        let o = intersection(m, vars);
        if o.is_empty() {
            continue;
        }
        match index.get(&o) {
            Some(&i) => overlaps[i].1.extend(views),
            None => {
                index.insert(o.clone(), overlaps.len());
                overlaps.push((o, views.clone()));
            }
        }
    }
    let mut out = Vec::new();
    for i in 0..overlaps.len() {
        for j in i + 1..overlaps.len() {
            let (a, b) = (&overlaps[i], &overlaps[j]);
            if is_subset(&a.0, &b.0) || is_subset(&b.0, &a.0) {
                continue;
            }
            if out.len() >= room {
                return out;
            }
            let (a, b) = if a.0 <= b.0 { (a, b) } else { (b, a) };
            let mut variables: Vec<u32> = a.0.iter().chain(&b.0).copied().collect();
            variables.sort_unstable();
            variables.dedup();
            out.push(Warning {
                kind: HIGH_LEVEL_RACE,
                threads: [t1.min(t2), t1.max(t2)],
                variables,
                overlaps: vec![a.0.clone(), b.0.clone()],
                witnesses: vec![Witness {
                    intruder: t1,
                    intruder_views: m_views.to_vec(),
                    intruder_role: format!(
                        "maximal {} view, overlapping {} views",
                        kind_name(mk),
                        kind_name(ck)
                    ),
                    set: m.to_vec(),
                    split: t2,
                    first: a.1.clone(),
                    second: b.1.clone(),
                    ordered: false,
                }],
            });
        }
    }
    out
}

/// Section 2.3.2 (Teixeira's RwW pattern): Property 2 fails for `t1 ≠ t2` and a variable that
/// `t1` writes and that has a possible stale value in `t2`. One warning per variable and pair of
/// threads, whichever way round Property 2 fails.
pub struct StaleValue;

impl Sensor for StaleValue {
    fn name(&self) -> &'static str {
        "single-variable"
    }

    fn detect_within(&self, k: &Knowledge, go_on: GoOn<'_>) -> Detected {
        let mut poll = Poll::new(go_on);
        let classes = Classes::of(k);
        // Per class and variable: views with (r, var, ∘), views with a write of var.
        let per_class: Vec<ReadsWrites> = (0..classes.members.len())
            .map(|c| reads_writes(k, classes.representative(c)))
            .collect();
        // Per variable, the threads that write it, in increasing order: `writes(var, t1)`.
        let mut writers: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
        for t in 0..k.threads.len() {
            for (&var, (_, writes)) in &per_class[classes.of[t] as usize] {
                if !writes.is_empty() {
                    writers.entry(var).or_default().push(t);
                }
            }
        }
        let mut out = Vec::new();
        for t2 in 0..k.threads.len() {
            if poll.stop() {
                return poll.detected(out);
            }
            for (&var, (open_reads, writes2)) in &per_class[classes.of[t2] as usize] {
                // psv(var, t2): a view reading var without overwriting it, another writing it.
                let psv = open_reads.iter().any(|&a| writes2.iter().any(|&b| a != b));
                if !psv {
                    continue;
                }
                for &t1 in writers.get(&var).into_iter().flatten() {
                    if t1 == t2 {
                        continue;
                    }
                    let writes1 = &per_class[classes.of[t1] as usize][&var].1;
                    if out.len() >= LIMIT {
                        return poll.detected(out);
                    }
                    if poll.stop() {
                        return poll.detected(out);
                    }
                    out.push(stale_value(t1, t2, var, writes1, open_reads, writes2));
                }
            }
        }
        poll.detected(out)
    }
}

/// Per variable, the views of thread `t` with `(r, var, ∘)` and those writing var.
fn reads_writes(k: &Knowledge, t: usize) -> ReadsWrites {
    let mut m = ReadsWrites::default();
    for &v in &k.threads[t].views {
        let view: &View = &k.views[v as usize];
        for a in view.accesses() {
            let e = m.entry(a.var).or_default();
            match (a.kind, a.mark) {
                (Kind::Read, Mark::Open) => e.0.push(v),
                (Kind::Write, _) if e.1.last() != Some(&v) => e.1.push(v),
                _ => {}
            }
        }
    }
    m
}

fn stale_value(
    t1: usize,
    t2: usize,
    var: u32,
    writes1: &[ViewId],
    open_reads: &[ViewId],
    writes2: &[ViewId],
) -> Warning {
    Warning {
        kind: STALE_VALUE,
        threads: [t1.min(t2), t1.max(t2)],
        variables: vec![var],
        overlaps: Vec::new(),
        witnesses: vec![Witness {
            intruder: t1,
            intruder_views: writes1.to_vec(),
            intruder_role: "writes the variable".into(),
            set: vec![var],
            split: t2,
            first: open_reads.to_vec(),
            second: writes2.to_vec(),
            ordered: true,
        }],
    }
}

/// The sensors' double loop over threads, as Section 2.3 states it, which the classes of
/// threads must answer exactly as.
#[cfg(test)]
mod literal {
    use super::*;

    pub(super) fn literal_view_consistency(k: &Knowledge) -> (Vec<Warning>, bool) {
        let n = k.threads.len();
        let proj: Vec<[Projected; 2]> = (0..n)
            .map(|t| [projected(k, t, Kind::Read), projected(k, t, Kind::Write)])
            .collect();
        let mut out = Vec::new();
        for t1 in 0..n {
            for (mk, checks) in [
                (Kind::Read, &[Kind::Write][..]),
                (Kind::Write, &[Kind::Read, Kind::Write][..]),
            ] {
                let mine = &proj[t1][mk as usize];
                let sets: Vec<Vec<u32>> = mine.iter().map(|e| e.0.clone()).collect();
                for mi in maximal(&sets) {
                    let (m, m_views) = &mine[mi];
                    for t2 in (0..n).filter(|&t2| t2 != t1) {
                        for &ck in checks {
                            if out.len() >= LIMIT {
                                return (merge(out), true);
                            }
                            let room = LIMIT - out.len();
                            out.extend(incompatible(
                                t1,
                                mk,
                                m,
                                m_views,
                                t2,
                                ck,
                                &proj[t2][ck as usize],
                                room,
                            ));
                        }
                    }
                }
            }
        }
        let full = out.len() >= LIMIT;
        (merge(out), full)
    }

    pub(super) fn literal_stale_value(k: &Knowledge) -> (Vec<Warning>, bool) {
        let n = k.threads.len();
        // Per thread and variable: views with (r, var, ∘), views with a write of var.
        let per_thread: Vec<ReadsWrites> = (0..n)
            .map(|t| {
                let mut m = ReadsWrites::default();
                for &v in &k.threads[t].views {
                    let view: &View = &k.views[v as usize];
                    for a in view.accesses() {
                        let e = m.entry(a.var).or_default();
                        match (a.kind, a.mark) {
                            (Kind::Read, Mark::Open) => e.0.push(v),
                            (Kind::Write, _) if e.1.last() != Some(&v) => e.1.push(v),
                            _ => {}
                        }
                    }
                }
                m
            })
            .collect();
        let mut out = Vec::new();
        for t2 in 0..n {
            for (&var, (open_reads, writes2)) in &per_thread[t2] {
                // psv(var, t2): a view reading var without overwriting it, another writing it.
                let psv = open_reads.iter().any(|&a| writes2.iter().any(|&b| a != b));
                if !psv {
                    continue;
                }
                for t1 in (0..n).filter(|&t1| t1 != t2) {
                    // writes(var, t1)
                    let Some((_, writes1)) = per_thread[t1].get(&var) else {
                        continue;
                    };
                    if writes1.is_empty() {
                        continue;
                    }
                    if out.len() >= LIMIT {
                        return (merge(out), true);
                    }
                    out.push(Warning {
                        kind: STALE_VALUE,
                        threads: [t1.min(t2), t1.max(t2)],
                        variables: vec![var],
                        overlaps: Vec::new(),
                        witnesses: vec![Witness {
                            intruder: t1,
                            intruder_views: writes1.clone(),
                            intruder_role: "writes the variable".into(),
                            set: vec![var],
                            split: t2,
                            first: open_reads.clone(),
                            second: writes2.clone(),
                            ordered: true,
                        }],
                    });
                }
            }
        }
        let full = out.len() >= LIMIT;
        (merge(out), full)
    }
}

#[cfg(test)]
mod tests {
    use super::literal::{literal_stale_value, literal_view_consistency};
    use super::*;
    use crate::view::add_bits;
    use crate::ThreadViews;
    use proptest::prelude::*;

    /// A knowledge base of `views` (each a list of (variable, access) pairs) and threads that
    /// each take a set of them: threads with equal sets are one class.
    fn knowledge(views: &[Vec<(u32, bool, bool)>], threads: &[Vec<usize>]) -> Knowledge {
        let views: Vec<View> = views
            .iter()
            .map(|accesses| {
                let mut entries: Vec<(u32, u8)> = Vec::new();
                for &(var, write, open) in accesses {
                    let kind = if write { Kind::Write } else { Kind::Read };
                    let mark = if open { Mark::Open } else { Mark::Closed };
                    match entries.iter_mut().find(|e| e.0 == var) {
                        Some(e) => e.1 = add_bits(e.1, kind, mark),
                        None => entries.push((var, add_bits(0, kind, mark))),
                    }
                }
                View::from_entries(entries)
            })
            .collect();
        let threads = threads
            .iter()
            .enumerate()
            .map(|(t, vs)| {
                let mut views: Vec<ViewId> = vs.iter().map(|&v| v as ViewId).collect();
                views.sort_unstable();
                views.dedup();
                ThreadViews {
                    name: format!("T{t}"),
                    views,
                }
            })
            .collect();
        Knowledge {
            var_names: (0..4).map(|v| format!("x{v}")).collect(),
            views,
            threads,
        }
    }

    fn same_as_literal(k: &Knowledge) {
        assert_eq!(ViewConsistency.detect(k), literal_view_consistency(k));
        assert_eq!(StaleValue.detect(k), literal_stale_value(k));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]
        /// A few kinds of threads, many threads of each: the warnings, their witnesses and
        /// their order are those of the double loop.
        #[test]
        fn classes_answer_as_the_double_loop(
            views in prop::collection::vec(
                prop::collection::vec((0u32..4, any::<bool>(), any::<bool>()), 1..4),
                1..6,
            ),
            kinds in prop::collection::vec(prop::collection::vec(0usize..6, 0..4), 1..5),
            picks in prop::collection::vec(0usize..5, 1..40),
        ) {
            let nv = views.len();
            let threads: Vec<Vec<usize>> = picks
                .iter()
                .map(|&p| kinds[p % kinds.len()].iter().map(|&v| v % nv).collect())
                .collect();
            same_as_literal(&knowledge(&views, &threads));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// A sensor told to stop after `polls` questions: if it says it was stopped, every
        /// warning it gives is one the full run gives (same key, witnesses among its); if not,
        /// it gives exactly the full run's answer.
        #[test]
        fn a_stopped_sensor_gives_some_of_the_warnings(
            views in prop::collection::vec(
                prop::collection::vec((0u32..4, any::<bool>(), any::<bool>()), 1..4),
                1..6,
            ),
            kinds in prop::collection::vec(prop::collection::vec(0usize..6, 0..4), 1..5),
            picks in prop::collection::vec(0usize..5, 1..600),
            polls in 0usize..4,
        ) {
            let nv = views.len();
            let threads: Vec<Vec<usize>> = picks
                .iter()
                .map(|&p| kinds[p % kinds.len()].iter().map(|&v| v % nv).collect())
                .collect();
            let k = knowledge(&views, &threads);
            for sensor in [&ViewConsistency as &dyn Sensor, &StaleValue] {
                let full = sensor.detect_within(&k, &|| true);
                prop_assert!(!full.stopped);
                let asked = std::sync::atomic::AtomicUsize::new(0);
                let go_on = || asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < polls;
                let cut = sensor.detect_within(&k, &go_on);
                if cut.stopped {
                    for w in &cut.warnings {
                        let f = full.warnings.iter().find(|f| f.key() == w.key());
                        prop_assert!(f.is_some(), "{:?} is not among the full run's", w.key());
                        let f = f.expect("found");
                        prop_assert!(w.witnesses.iter().all(|x| f.witnesses.contains(x)));
                    }
                } else {
                    prop_assert_eq!(&cut, &full);
                }
            }
        }
    }

    /// Enough threads of two kinds that both sensors stop at the limit: the same warnings
    /// are kept, and both say they stopped.
    #[test]
    fn the_limit_cuts_where_the_double_loop_does() {
        // v0 = {r(x0), w(x0), r(x1), w(x1)}; v1 = {r(x0)∘}; v2 = {w(x0), r(x1)}; v3 = {w(x1)}.
        let views = vec![
            vec![
                (0, false, true),
                (0, true, true),
                (1, false, true),
                (1, true, true),
            ],
            vec![(0, false, true)],
            vec![(0, true, true), (1, false, true)],
            vec![(1, true, true)],
        ];
        let threads: Vec<Vec<usize>> = (0..260)
            .map(|t| if t % 3 == 0 { vec![0] } else { vec![1, 2, 3] })
            .collect();
        let k = knowledge(&views, &threads);
        let (vc, vc_full) = ViewConsistency.detect(&k);
        let (sv, sv_full) = StaleValue.detect(&k);
        assert!(vc_full && sv_full, "both sensors reach the limit");
        assert_eq!((vc, vc_full), literal_view_consistency(&k));
        assert_eq!((sv, sv_full), literal_stale_value(&k));
    }

    /// Two hundred thousand threads of one class that conflict with nothing: no pass over
    /// pairs of threads (the double loop would take minutes even in a release build).
    #[test]
    fn many_threads_of_one_class_cost_one_class() {
        let views = vec![vec![(0, false, true), (0, true, false)]];
        let threads: Vec<Vec<usize>> = (0..200_000).map(|_| vec![0]).collect();
        let k = knowledge(&views, &threads);
        assert_eq!(ViewConsistency.detect(&k), (Vec::new(), false));
        assert_eq!(StaleValue.detect(&k), (Vec::new(), false));
    }
}
