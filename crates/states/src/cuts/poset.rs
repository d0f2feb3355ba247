//! The poset of a computation (thesis Chapter 2): events partitioned into processes, each event
//! with its vector clock, and global states as frontiers (one index per process).
//!
//! It owns the clock layout every enumerator reads, consistency of a frontier, and the
//! construction of a poset from a trace: which events enter it (Section 3.5.4: only the relevant
//! ones, optionally merged into event collections) with their clocks read off the
//! happens-before pass of `hindsight-order` (program order, fork/join, release -> acquire,
//! send -> receive), not computed a second time. It knows nothing of how states are enumerated
//! or what a predicate asks.

use hindsight_order::HappensBefore;
use hindsight_trace::{Event, EventSource, Names, Op, ThreadId, TraceError};

/// A poset of events over `n` processes. Event `i` (1-based) of process `p` has the vector clock
/// `clock(p, i)`: component `q` is the number of events of process `q` that happen before it or
/// are it, so its own component is `i`. Row 0 of every process is all zeros: a frontier index of
/// 0 ("no event of this process yet") reads a clock like any other index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Poset {
    n: usize,
    /// Per process, `(len + 1) * n` components: row `i` is the clock of event `i`.
    clocks: Vec<Vec<u32>>,
}

impl Poset {
    /// A poset of `n` processes without events.
    pub fn new(n: usize) -> Poset {
        Poset {
            n,
            clocks: vec![vec![0; n]; n],
        }
    }

    /// Appends the next event of process `p` with its clock. The caller vouches that the clock
    /// is one (own component one more than the previous event's, dominating it, and consistent
    /// with the clocks it refers to); [`crate::cuts::poset_file`] checks untrusted input first.
    pub fn push(&mut self, p: usize, clock: &[u32]) {
        debug_assert_eq!(clock.len(), self.n);
        debug_assert_eq!(clock[p], self.len(p) + 1);
        self.clocks[p].extend_from_slice(clock);
    }

    /// The number of processes.
    #[inline]
    pub fn processes(&self) -> usize {
        self.n
    }

    /// The number of events of process `p`.
    #[inline]
    pub fn len(&self, p: usize) -> u32 {
        (self.clocks[p].len() / self.n.max(1)) as u32 - 1
    }

    /// The number of events.
    pub fn events(&self) -> u64 {
        (0..self.n).map(|p| u64::from(self.len(p))).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.events() == 0
    }

    /// The clock of event `i` of process `p` (`i = 0`: all zeros).
    #[inline]
    pub fn clock(&self, p: usize, i: u32) -> &[u32] {
        let s = i as usize * self.n;
        &self.clocks[p][s..s + self.n]
    }

    /// All clocks of process `p`, row after row (row 0 zeros), for enumerators' inner loops.
    #[inline]
    pub fn rows(&self, p: usize) -> &[u32] {
        &self.clocks[p]
    }

    /// The greatest global state: every event.
    pub fn final_state(&self) -> Vec<u32> {
        (0..self.n).map(|p| self.len(p)).collect()
    }

    /// Whether `g` is a consistent global state: in range, and every event it contains has the
    /// events that happen before it contained too (checked on the frontier's clocks).
    pub fn is_consistent(&self, g: &[u32]) -> bool {
        g.len() == self.n
            && (0..self.n).all(|p| {
                g[p] <= self.len(p) && {
                    let c = self.clock(p, g[p]);
                    (0..self.n).all(|q| c[q] <= g[q])
                }
            })
    }

    /// Whether event `(p, i)` happens before (or is) event `(q, j)`; indices are 1-based.
    #[inline]
    pub fn happens_before(&self, p: usize, i: u32, q: usize, j: u32) -> bool {
        i > 0 && self.clock(q, j)[p] >= i
    }

    /// Whether events `(p, i)` and `(q, j)` are concurrent (neither happens before the other).
    pub fn concurrent(&self, p: usize, i: u32, q: usize, j: u32) -> bool {
        !self.happens_before(p, i, q, j) && !self.happens_before(q, j, p, i)
    }

    /// A linear extension of the events of the cut `g`: each event as `(process, index)`, in an
    /// order where every event comes after all events that happen before it. The sum of a clock
    /// grows strictly along happened-before, so sorting by it is a topological order.
    pub fn schedule(&self, g: &[u32]) -> Vec<(usize, u32)> {
        let mut events: Vec<(u64, usize, u32)> = Vec::new();
        for (p, &gp) in g.iter().enumerate() {
            for i in 1..=gp {
                let sum = self.clock(p, i).iter().map(|&c| u64::from(c)).sum();
                events.push((sum, p, i));
            }
        }
        events.sort_unstable();
        events.into_iter().map(|(_, p, i)| (p, i)).collect()
    }

    /// All events in a topological order, as `(process, index)`.
    pub fn topological_order(&self) -> Vec<(usize, u32)> {
        self.schedule(&self.final_state())
    }

    /// A topological order that takes, at each step, the enabled event of the highest-numbered
    /// process (Kahn's algorithm). As ParaMount's `->_p` it makes the interval `I(e)` of an
    /// event of a low-numbered process hold whole runs of the high-numbered (least significant)
    /// processes, which is where a lexical enumerator is fastest.
    pub fn priority_order(&self) -> Vec<(usize, u32)> {
        let n = self.n;
        let mut g = vec![0u32; n];
        let mut out = Vec::with_capacity(self.events() as usize);
        loop {
            let next = (0..n).rev().find(|&p| {
                g[p] < self.len(p) && {
                    let c = self.clock(p, g[p] + 1);
                    (0..n).all(|q| q == p || c[q] <= g[q])
                }
            });
            let Some(p) = next else {
                return out;
            };
            g[p] += 1;
            out.push((p, g[p]));
        }
    }
}

/// Which events of a trace enter the poset, and whether runs of them merge.
pub struct Selection<'a> {
    /// Whether an event is relevant to the predicate (Section 3.5.4).
    pub relevant: &'a dyn Fn(&Event, &Names) -> bool,
    /// Merge consecutive relevant events of a thread with no synchronisation between them into
    /// one event collection (Fig. 3.7). They have the same predecessors and successors in other
    /// threads, so a frontier never needs to tell them apart; predicates that look at any member
    /// of a frontier collection (Algorithm 8) lose nothing.
    pub merge: bool,
}

impl Selection<'_> {
    /// Every event enters the poset, each on its own.
    pub fn every_event() -> Selection<'static> {
        Selection {
            relevant: &|_, _| true,
            merge: false,
        }
    }
}

/// The poset of a trace with, for each of its elements, the trace events it stands for.
#[derive(Clone, Debug, Default)]
pub struct TracePoset {
    pub poset: Poset,
    /// The thread of each process.
    pub threads: Vec<ThreadId>,
    /// Per process, the trace events of its elements, flattened.
    pub members: Vec<Vec<Event>>,
    /// Per process, `starts[i - 1]..starts[i]` are the members of element `i` (`starts[0] = 0`).
    pub starts: Vec<Vec<u32>>,
    pub names: Names,
    /// Events read from the trace (relevant or not).
    pub trace_events: u64,
}

impl TracePoset {
    /// The trace events of element `i` (1-based) of process `p`; empty for `i = 0`.
    #[inline]
    pub fn element(&self, p: usize, i: u32) -> &[Event] {
        if i == 0 {
            return &[];
        }
        let s = &self.starts[p];
        &self.members[p][s[i as usize - 1] as usize..s[i as usize] as usize]
    }

    /// Reads a whole trace (without validating it) and builds its poset.
    pub fn read<S: EventSource>(
        source: &mut S,
        selection: &Selection<'_>,
    ) -> Result<TracePoset, TraceError> {
        let mut builder = PosetBuilder::default();
        let mut hb = HappensBefore::new();
        while source.advance()? {
            let e = source.current();
            hb.before(e);
            builder.add(e, &hb, source.names(), selection);
            hb.after(e);
        }
        Ok(builder.finish(source.take_names()))
    }
}

/// Turns happens-before clocks into poset clocks. In a FastTrack clock, thread `q`'s component
/// is an epoch of `q`: every event of `q` in that epoch or an earlier one happens before the
/// clock's event, and no later one does (an epoch of another thread reaches a clock only
/// through an edge that ends the epoch, so it holds no events yet to come). A poset clock's
/// component `q` is the number of `q`'s elements before the event, so it is the number of
/// elements `q` made in epochs up to that epoch: kept per thread as a running count by epoch.
#[derive(Clone, Debug, Default)]
pub struct EpochCounts {
    /// Per thread: `upto[c]` = its elements made in epochs `<= c`.
    upto: Vec<Vec<u32>>,
}

impl EpochCounts {
    /// Counts a new element of thread `t` made in epoch `epoch` (a thread's epochs never go
    /// back) and returns how many elements `t` has now: the element's own clock component.
    pub fn add(&mut self, t: usize, epoch: u32) -> u32 {
        if t >= self.upto.len() {
            self.upto.resize_with(t + 1, Vec::new);
        }
        let v = &mut self.upto[t];
        let e = epoch as usize;
        debug_assert!(e + 1 >= v.len(), "epochs of a thread never go back");
        if v.len() <= e {
            let total = v.last().copied().unwrap_or(0);
            v.resize(e + 1, total);
        }
        v[e] += 1;
        v[e]
    }

    /// The number of elements thread `t` made in epochs up to `epoch`.
    #[inline]
    pub fn upto(&self, t: usize, epoch: u32) -> u32 {
        let Some(v) = self.upto.get(t) else {
            return 0;
        };
        v.get(epoch as usize).or(v.last()).copied().unwrap_or(0)
    }

    /// The poset clock of element `own` of thread `t`, whose happens-before clock is `hb`,
    /// into `out` (thread-indexed, as long as `hb`).
    pub fn clock(&self, t: usize, own: u32, hb: &[u32], out: &mut Vec<u32>) {
        out.clear();
        out.extend(
            hb.iter()
                .enumerate()
                .map(|(q, &c)| if q == t { own } else { self.upto(q, c) }),
        );
    }
}

/// Builds the poset of a trace one event at a time (what the online detector of Section 3.5.1
/// does), each event seen with the happens-before pass positioned at it: elements are made of
/// the relevant events, and their clocks read off the pass's ([`EpochCounts`]).
#[derive(Default)]
pub struct PosetBuilder {
    counts: EpochCounts,
    /// Per thread id.
    threads: Vec<Elements>,
    /// Scratch space for one clock.
    row: Vec<u32>,
    /// Scratch space for the happens-before clock of an event, dense.
    hb_row: Vec<u32>,
    trace_events: u64,
}

/// The elements of one thread so far.
struct Elements {
    /// Their clocks, thread-indexed, one after the other; `ends[k]` is where clock `k` ends
    /// (clocks are as long as the happens-before clock was then).
    clocks: Vec<u32>,
    ends: Vec<usize>,
    members: Vec<Event>,
    /// As in [`TracePoset::starts`].
    starts: Vec<u32>,
    /// Whether the last element may still absorb a relevant event.
    open: bool,
}

impl Default for Elements {
    fn default() -> Elements {
        Elements {
            clocks: Vec::new(),
            ends: Vec::new(),
            members: Vec::new(),
            starts: vec![0],
            open: false,
        }
    }
}

impl PosetBuilder {
    /// Adds one trace event; `hb` is the happens-before pass between its `before` and `after`
    /// for this event. Returns the element it joined or created as `(thread, index)`, or `None`
    /// if it is not relevant.
    pub fn add(
        &mut self,
        e: &Event,
        hb: &HappensBefore,
        names: &Names,
        selection: &Selection<'_>,
    ) -> Option<(ThreadId, u32)> {
        self.trace_events += 1;
        let t = e.thread.index();
        if t >= self.threads.len() {
            self.threads.resize_with(t + 1, Elements::default);
        }
        // An edge in or out of the event splits a collection.
        let sync = matches!(
            e.op,
            Op::Acquire(_)
                | Op::Receive(_)
                | Op::Join(_)
                | Op::Release(_)
                | Op::Send(_)
                | Op::Fork(_)
        );
        if !(selection.relevant)(e, names) {
            if sync {
                self.threads[t].open = false;
            }
            return None;
        }
        let th = &mut self.threads[t];
        if selection.merge && th.open && !sync {
            th.members.push(e.clone());
            *th.starts.last_mut().expect("an open element exists") += 1;
        } else {
            hb.clock(e.thread).copy_components_into(&mut self.hb_row);
            let own = self.counts.add(t, self.hb_row[t]);
            self.counts.clock(t, own, &self.hb_row, &mut self.row);
            th.clocks.extend_from_slice(&self.row);
            th.ends.push(th.clocks.len());
            th.members.push(e.clone());
            th.starts.push(th.members.len() as u32);
            th.open = !sync;
        }
        Some((e.thread, th.starts.len() as u32 - 1))
    }

    /// The poset over the threads that have at least one element.
    pub fn finish(self, names: Names) -> TracePoset {
        let present: Vec<usize> = (0..self.threads.len())
            .filter(|&t| !self.threads[t].ends.is_empty())
            .collect();
        let n = present.len();
        let mut poset = Poset::new(n);
        let mut row = vec![0u32; n];
        for (p, &t) in present.iter().enumerate() {
            let th = &self.threads[t];
            let mut start = 0;
            for &end in &th.ends {
                let c = &th.clocks[start..end];
                for (q, &u) in present.iter().enumerate() {
                    row[q] = c.get(u).copied().unwrap_or(0);
                }
                poset.push(p, &row);
                start = end;
            }
        }
        let mut threads = self.threads;
        TracePoset {
            poset,
            threads: present.iter().map(|&t| ThreadId(t as u32)).collect(),
            members: present
                .iter()
                .map(|&t| std::mem::take(&mut threads[t].members))
                .collect(),
            starts: present
                .iter()
                .map(|&t| std::mem::take(&mut threads[t].starts))
                .collect(),
            names,
            trace_events: self.trace_events,
        }
    }
}
