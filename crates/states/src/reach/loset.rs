//! The loset of a run (Chang's thesis, Definition 4): the events of each thread, happened-before
//! *without* release -> acquire edges (program order, fork, join, send -> receive), and the
//! locking intervals `(thread, lock, acq, rel)` with the effective locks of every event
//! (Definition 8).
//!
//! It owns the construction from a trace, as an observer of the streaming pass of
//! `hindsight-stream` ([`LosetBuilder`]), and the static facts every class of global states is
//! computed from. Its order is that of a happens-before pass of `hindsight-order` without lock
//! edges, turned into counts of events ([`EpochCounts`]). It knows nothing of which states are
//! feasible, normalization or enumeration.

use crate::cuts::poset::{EpochCounts, Poset};
use hindsight_order::HappensBefore;
use hindsight_stream::Observer;
use hindsight_trace::{ErrorKind, Event, LockId, Names, Op, ThreadId};

/// An event of the loset: `(process, index)`, index 1-based.
pub type Ev = (usize, u32);

/// A locking interval: thread `process` acquired `lock` at event `acq` and released it at
/// `rel` (`None`: still held when the trace ends). Re-entrant acquisitions are inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub process: usize,
    pub lock: LockId,
    pub acq: u32,
    pub rel: Option<u32>,
}

impl Interval {
    /// Whether event `i` of the interval's thread holds its lock (`acq <= i < rel`).
    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        self.acq <= i && self.rel.is_none_or(|r| i < r)
    }
}

/// A loset over `n` processes (the threads with at least one event).
#[derive(Clone, Debug, Default)]
pub struct Loset {
    /// Happened-before without lock edges, as vector clocks (component = events of that
    /// process that happen before or are the event).
    pub hb: Poset,
    /// The trace thread of each process.
    pub threads: Vec<ThreadId>,
    /// The trace events of each process, in order (event `i` is `events[p][i - 1]`).
    pub events: Vec<Vec<Event>>,
    pub intervals: Vec<Interval>,
    /// Per lock (by id): its intervals, by process then acquisition.
    pub by_lock: Vec<Vec<usize>>,
    /// Per process: its intervals by acquisition, as `(acq, lock)`.
    pub by_process: Vec<Vec<(u32, u32)>>,
    /// Per process: `held_start[p][i]..held_start[p][i + 1]` index into `held[p]` the intervals
    /// that contain event `i` (`i = 0`, no event: none).
    held_start: Vec<Vec<u32>>,
    held: Vec<Vec<u32>>,
    /// Per process and event index: the greatest `j <= i` whose event holds no lock.
    free_below: Vec<Vec<u32>>,
    /// Whether the trace recorded every lock in order (no acquisition of a lock another thread
    /// holds): then the trace order itself is a run to the final state and the loset is valid.
    pub lock_valid: bool,
    pub names: Names,
}

impl Loset {
    /// The loset of a trace held in memory (the events in trace order), not validated.
    pub fn from_events(events: &[Event], names: Names) -> Loset {
        let mut b = LosetBuilder::default();
        for e in events {
            b.add(e);
        }
        b.finish(names)
    }

    #[inline]
    pub fn processes(&self) -> usize {
        self.hb.processes()
    }

    #[inline]
    pub fn len(&self, p: usize) -> u32 {
        self.hb.len(p)
    }

    pub fn is_empty(&self) -> bool {
        self.hb.is_empty()
    }

    /// The number of locks the intervals use (by id, so ids index `by_lock`).
    pub fn locks(&self) -> usize {
        self.by_lock.len()
    }

    /// The final global state `E`.
    pub fn final_state(&self) -> Vec<u32> {
        self.hb.final_state()
    }

    /// The trace event of `(p, i)`.
    pub fn event(&self, (p, i): Ev) -> &Event {
        &self.events[p][i as usize - 1]
    }

    /// The intervals that hold their lock at event `i` of `p`: `EL(e)` is their locks.
    #[inline]
    pub fn held(&self, p: usize, i: u32) -> &[u32] {
        let s = &self.held_start[p];
        &self.held[p][s[i as usize] as usize..s[i as usize + 1] as usize]
    }

    /// The effective locks of event `i` of `p` (Definition 8).
    pub fn effective_locks(&self, p: usize, i: u32) -> impl Iterator<Item = LockId> + '_ {
        self.held(p, i)
            .iter()
            .map(move |&k| self.intervals[k as usize].lock)
    }

    /// The greatest `j <= i` such that event `j` of `p` holds no lock (0 if none).
    #[inline]
    pub fn free_below(&self, p: usize, i: u32) -> u32 {
        self.free_below[p][i as usize]
    }

    /// Whether `(q, j)` happens before (or is) `(p, i)` in the loset's own order.
    #[inline]
    pub fn hb_leq(&self, (q, j): Ev, (p, i): Ev) -> bool {
        j == 0 || self.hb.clock(p, i)[q] >= j
    }

    /// The trace order of the events as a run: each event as `(process, index)`, in the order
    /// the trace recorded them.
    pub fn trace_order(&self) -> Vec<Ev> {
        let mut all: Vec<(u64, Ev)> = Vec::with_capacity(self.hb.events() as usize);
        for p in 0..self.processes() {
            for (k, e) in self.events[p].iter().enumerate() {
                all.push((e.index, (p, k as u32 + 1)));
            }
        }
        all.sort_unstable();
        all.into_iter().map(|(_, e)| e).collect()
    }

    /// The 0-based trace index of an event, for reports.
    pub fn trace_index(&self, e: Ev) -> u64 {
        self.event(e).index
    }
}

/// The most events a loset holds: event indices are `u32`, and searches add to them.
const MAX_EVENTS: u64 = u32::MAX as u64 / 2;

/// Builds a loset one trace event at a time: lent to the streaming pass as an [`Observer`]
/// (which validates the trace), or fed events held in memory by [`Loset::from_events`].
pub struct LosetBuilder {
    /// Happened-before without lock edges.
    hb: HappensBefore,
    counts: EpochCounts,
    /// Per thread id: its events' clocks (thread-indexed, as long as the happens-before clock
    /// was then).
    rows: Vec<Vec<Vec<u32>>>,
    events: Vec<Vec<Event>>,
    /// Per thread id: open intervals `(lock, depth, interval)`.
    open: Vec<Vec<(LockId, u32, usize)>>,
    /// Per thread id: per event (from index 0), the intervals holding at it.
    held: Vec<Vec<Vec<u32>>>,
    intervals: Vec<(ThreadId, LockId, u32, Option<u32>)>,
    /// Per lock: the thread holding it, for lock validity.
    holder: Vec<Option<ThreadId>>,
    lock_valid: bool,
    events_total: u64,
    /// Entries of `rows` and `held` together: the clocks grow with the threads, the lists of
    /// intervals held with the nesting (quadratic in it: each event inside `d` nested locks
    /// lists `d` intervals).
    entries: u64,
}

impl Default for LosetBuilder {
    fn default() -> LosetBuilder {
        LosetBuilder {
            hb: HappensBefore::without_lock_edges(),
            counts: EpochCounts::default(),
            rows: Vec::new(),
            events: Vec::new(),
            open: Vec::new(),
            held: Vec::new(),
            intervals: Vec::new(),
            holder: Vec::new(),
            lock_valid: true,
            events_total: 0,
            entries: 0,
        }
    }
}

impl Observer for LosetBuilder {
    fn name(&self) -> &'static str {
        "reach"
    }

    /// A loset takes no lock order from the log: out-of-order lock records are what makes a
    /// loset invalid (thesis Fig. 5.3), and stay as logged.
    fn keeps_lock_order(&self) -> bool {
        true
    }

    fn on_event(&mut self, e: &Event, _: &HappensBefore, _: &Names) -> Result<(), ErrorKind> {
        if self.events_total >= MAX_EVENTS {
            return Err(ErrorKind::Unsupported(
                "`reach` handles at most 2^31 events".into(),
            ));
        }
        self.add(e);
        Ok(())
    }
}

impl LosetBuilder {
    /// The number of events added.
    pub fn events(&self) -> u64 {
        self.events_total
    }

    /// Bytes held, in constant time: per event, the event, its clock and its list of the
    /// intervals held (their headers and entries), and the intervals.
    pub fn held_bytes(&self) -> u64 {
        use std::mem::size_of;
        let per_event = size_of::<Event>() + 2 * size_of::<Vec<u32>>();
        self.events_total * per_event as u64
            + self.entries * size_of::<u32>() as u64
            + (self.intervals.capacity() * size_of::<(ThreadId, LockId, u32, Option<u32>)>()) as u64
    }

    /// Bytes the loset [`LosetBuilder::finish`] makes will hold beside the builder while it is
    /// made (the clocks of every event over the processes, the intervals held end to end, the
    /// events): what to charge before finishing.
    pub fn finished_bytes(&self) -> u64 {
        use std::mem::size_of;
        let processes = self.rows.iter().filter(|r| !r.is_empty()).count() as u64;
        let per_event = (size_of::<Event>() + 3 * size_of::<u32>()) as u64;
        self.events_total * (per_event + processes * size_of::<u32>() as u64)
            + self.entries * size_of::<u32>() as u64
    }

    fn ensure(&mut self, t: usize) {
        while self.rows.len() <= t {
            self.rows.push(Vec::new());
            self.events.push(Vec::new());
            self.open.push(Vec::new());
            self.held.push(vec![Vec::new()]);
        }
    }

    /// Adds the next event of the trace.
    pub fn add(&mut self, e: &Event) {
        self.events_total += 1;
        let t = e.thread.index();
        self.ensure(t);
        self.hb.before(e);
        let clock = self.hb.clock(e.thread).components();
        let index = self.counts.add(t, clock[t]);
        let mut row = Vec::with_capacity(clock.len());
        self.counts.clock(t, index, &clock, &mut row);
        match &e.op {
            Op::Acquire(l) => {
                if let Some(k) = self.open[t].iter().position(|o| o.0 == *l) {
                    self.open[t][k].1 += 1;
                } else {
                    let id = self.intervals.len();
                    self.intervals.push((e.thread, *l, index, None));
                    self.open[t].push((*l, 1, id));
                    if l.index() >= self.holder.len() {
                        self.holder.resize(l.index() + 1, None);
                    }
                    if self.holder[l.index()].is_some() {
                        self.lock_valid = false;
                    }
                    self.holder[l.index()] = Some(e.thread);
                }
            }
            Op::Release(l) => {
                if let Some(k) = self.open[t].iter().position(|o| o.0 == *l) {
                    self.open[t][k].1 -= 1;
                    if self.open[t][k].1 == 0 {
                        let (_, _, id) = self.open[t].remove(k);
                        self.intervals[id].3 = Some(index);
                        if self.holder[l.index()] == Some(e.thread) {
                            self.holder[l.index()] = None;
                        }
                    }
                }
            }
            _ => {}
        }
        self.entries += (row.len() + self.open[t].len()) as u64;
        self.rows[t].push(row);
        self.events[t].push(e.clone());
        self.held[t].push(self.open[t].iter().map(|o| o.2 as u32).collect());
        self.hb.after(e);
    }

    /// The loset of the events added; `names` names them.
    pub fn finish(self, names: Names) -> Loset {
        let present: Vec<usize> = (0..self.rows.len())
            .filter(|&t| !self.rows[t].is_empty())
            .collect();
        let n = present.len();
        let mut process_of = vec![usize::MAX; self.rows.len()];
        for (p, &t) in present.iter().enumerate() {
            process_of[t] = p;
        }
        let mut hb = Poset::new(n);
        let mut row = vec![0u32; n];
        for (p, &t) in present.iter().enumerate() {
            for c in &self.rows[t] {
                for (q, &u) in present.iter().enumerate() {
                    row[q] = c.get(u).copied().unwrap_or(0);
                }
                hb.push(p, &row);
            }
        }
        let intervals: Vec<Interval> = self
            .intervals
            .iter()
            .map(|&(t, lock, acq, rel)| Interval {
                process: process_of[t.index()],
                lock,
                acq,
                rel,
            })
            .collect();
        let locks = intervals
            .iter()
            .map(|i| i.lock.index() + 1)
            .max()
            .unwrap_or(0);
        let mut by_lock = vec![Vec::new(); locks];
        let mut order: Vec<usize> = (0..intervals.len()).collect();
        order.sort_by_key(|&k| (intervals[k].process, intervals[k].acq));
        for k in order {
            by_lock[intervals[k].lock.index()].push(k);
        }
        let mut by_process: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
        for iv in &intervals {
            by_process[iv.process].push((iv.acq, iv.lock.0));
        }
        for v in &mut by_process {
            v.sort_unstable();
        }
        let mut held_start = Vec::with_capacity(n);
        let mut held = Vec::with_capacity(n);
        let mut free_below = Vec::with_capacity(n);
        let mut events = Vec::with_capacity(n);
        let mut held_lists = self.held;
        let mut all_events = self.events;
        for &t in &present {
            let lists = std::mem::take(&mut held_lists[t]);
            let mut s = Vec::with_capacity(lists.len() + 1);
            let mut h = Vec::new();
            let mut f = Vec::with_capacity(lists.len());
            s.push(0);
            for (i, l) in lists.iter().enumerate() {
                h.extend_from_slice(l);
                s.push(h.len() as u32);
                let below = if l.is_empty() {
                    i as u32
                } else {
                    f.last().copied().unwrap_or(0)
                };
                f.push(below);
            }
            held_start.push(s);
            held.push(h);
            free_below.push(f);
            events.push(std::mem::take(&mut all_events[t]));
        }
        Loset {
            hb,
            threads: present.iter().map(|&t| ThreadId(t as u32)).collect(),
            events,
            intervals,
            by_lock,
            by_process,
            held_start,
            held,
            free_below,
            lock_valid: self.lock_valid,
            names,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hindsight_trace::{MemorySource, TextReader, Trace};

    fn loset(text: &str) -> Loset {
        let mut r = TextReader::new(text.as_bytes());
        let t = Trace::collect(&mut r).expect("trace");
        let _: Option<MemorySource> = None;
        Loset::from_events(&t.events, t.names)
    }

    #[test]
    fn lock_edges_are_not_happened_before() {
        let l = loset("T0|acq(L)\nT0|w(x)\nT0|rel(L)\nT1|acq(L)\nT1|w(x)\nT1|rel(L)\n");
        assert_eq!(l.processes(), 2);
        assert!(!l.hb_leq((0, 3), (1, 1)));
        assert_eq!(l.intervals.len(), 2);
        assert_eq!(l.intervals[0].acq, 1);
        assert_eq!(l.intervals[0].rel, Some(3));
        assert_eq!(l.held(0, 1).len(), 1);
        assert_eq!(l.held(0, 2).len(), 1);
        assert!(l.held(0, 3).is_empty());
        assert!(l.lock_valid);
        assert_eq!(l.free_below(0, 2), 0);
        assert_eq!(l.free_below(0, 3), 3);
    }

    #[test]
    fn messages_fork_and_join_order_events() {
        let l = loset("T0|fork(T1)\nT1|snd(m)\nT0|rcv(m)\nT0|join(T1)\n");
        assert!(l.hb_leq((0, 1), (1, 1)));
        assert!(l.hb_leq((1, 1), (0, 2)));
        assert!(l.hb_leq((1, 1), (0, 3)));
    }

    #[test]
    fn reentrant_and_unreleased_intervals() {
        let l = loset("T0|acq(L)\nT0|acq(L)\nT0|rel(L)\nT0|w(x)\nT1|acq(M)\nT0|rel(L)\n");
        assert_eq!(l.intervals.len(), 2);
        assert_eq!(l.intervals[0].rel, Some(5));
        assert_eq!(l.intervals[1].rel, None);
        assert_eq!(l.held(0, 4).len(), 1);
        assert_eq!(l.held(1, 1).len(), 1);
    }

    #[test]
    fn out_of_order_lock_records_make_the_trace_lock_invalid() {
        let l = loset("T0|acq(L)\nT1|acq(L)\nT0|rel(L)\nT1|rel(L)\n");
        assert!(!l.lock_valid);
    }
}
