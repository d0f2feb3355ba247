//! The poset of a computation (thesis Chapter 2): events partitioned into processes, each event
//! with its vector clock, and global states as frontiers (one index per process).
//!
//! It owns the clock layout every enumerator reads, consistency of a frontier, and the
//! construction of a poset from a trace: which events enter it (Section 3.5.4: only the relevant
//! ones, optionally merged into event collections) and their happened-before order (program
//! order, fork/join, release -> acquire, send -> receive). It knows nothing of how states are
//! enumerated or what a predicate asks.

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

    /// Reads a whole trace and builds its poset.
    pub fn read<S: EventSource>(
        source: &mut S,
        selection: &Selection<'_>,
    ) -> Result<TracePoset, TraceError> {
        let mut builder = PosetBuilder::default();
        while source.advance()? {
            builder.add(source.current(), source.names(), selection);
        }
        Ok(builder.finish(source.take_names()))
    }
}

/// Builds the poset of a trace one event at a time (what the online detector of Section 3.5.1
/// does): a clock per thread, lock and message whose components count relevant elements.
#[derive(Default)]
pub struct PosetBuilder {
    threads: Vec<Vec<u32>>,
    locks: Vec<Vec<u32>>,
    messages: Vec<Vec<u32>>,
    /// Per thread: its elements' clocks (thread-indexed, length = threads known then).
    clocks: Vec<Vec<Vec<u32>>>,
    members: Vec<Vec<Event>>,
    starts: Vec<Vec<u32>>,
    /// Per thread: whether its last element may still absorb a relevant event.
    open: Vec<bool>,
    trace_events: u64,
}

fn join_into(a: &mut Vec<u32>, b: &[u32]) {
    if b.len() > a.len() {
        a.resize(b.len(), 0);
    }
    for (x, &y) in a.iter_mut().zip(b) {
        *x = (*x).max(y);
    }
}

fn slot(v: &mut Vec<Vec<u32>>, i: usize) -> &mut Vec<u32> {
    if i >= v.len() {
        v.resize_with(i + 1, Vec::new);
    }
    &mut v[i]
}

impl PosetBuilder {
    fn ensure(&mut self, t: usize) {
        while self.threads.len() <= t {
            self.threads.push(Vec::new());
            self.clocks.push(Vec::new());
            self.members.push(Vec::new());
            self.starts.push(vec![0]);
            self.open.push(false);
        }
    }

    /// Adds one trace event. Returns the element it joined or created as `(thread, index)`, or
    /// `None` if it is not relevant.
    pub fn add(
        &mut self,
        e: &Event,
        names: &Names,
        selection: &Selection<'_>,
    ) -> Option<(ThreadId, u32)> {
        self.trace_events += 1;
        let t = e.thread.index();
        self.ensure(t);
        let sync = match &e.op {
            Op::Acquire(l) => {
                if let Some(c) = self.locks.get(l.index()) {
                    let c = c.clone();
                    join_into(&mut self.threads[t], &c);
                }
                true
            }
            Op::Receive(m) => {
                if let Some(c) = self.messages.get(m.index()) {
                    let c = c.clone();
                    join_into(&mut self.threads[t], &c);
                }
                true
            }
            Op::Join(u) => {
                self.ensure(u.index());
                let c = self.threads[u.index()].clone();
                join_into(&mut self.threads[t], &c);
                true
            }
            Op::Release(_) | Op::Send(_) | Op::Fork(_) => true,
            _ => false,
        };
        if sync {
            // An incoming edge splits a collection; so does an outgoing one, below.
            self.open[t] = false;
        }
        let element = if (selection.relevant)(e, names) {
            if selection.merge && self.open[t] {
                self.members[t].push(e.clone());
                *self.starts[t].last_mut().expect("an open element exists") += 1;
            } else {
                let own = slot(&mut self.threads, t);
                if own.len() <= t {
                    own.resize(t + 1, 0);
                }
                own[t] += 1;
                let clock = own.clone();
                self.clocks[t].push(clock);
                self.members[t].push(e.clone());
                let end = self.members[t].len() as u32;
                self.starts[t].push(end);
                self.open[t] = !sync;
            }
            Some((e.thread, self.starts[t].len() as u32 - 1))
        } else {
            None
        };
        match &e.op {
            Op::Release(l) => {
                let c = self.threads[t].clone();
                *slot(&mut self.locks, l.index()) = c;
            }
            Op::Send(m) => {
                let c = self.threads[t].clone();
                *slot(&mut self.messages, m.index()) = c;
            }
            Op::Fork(u) => {
                self.ensure(u.index());
                let c = self.threads[t].clone();
                join_into(&mut self.threads[u.index()], &c);
            }
            _ => {}
        }
        if sync {
            self.open[t] = false;
        }
        element
    }

    /// The number of elements of each thread so far (indexed by thread id): the snapshot of
    /// maximal events that the online ParaMount (Algorithm 6) bounds an interval with.
    pub fn maximal_events(&self) -> Vec<u32> {
        self.clocks.iter().map(|c| c.len() as u32).collect()
    }

    /// The clock of element `i` (1-based) of thread `t`, thread-indexed, zero-padded to `width`.
    pub fn element_clock(&self, t: usize, i: u32, width: usize) -> Vec<u32> {
        let mut c = self.clocks[t][i as usize - 1].clone();
        c.resize(width.max(c.len()), 0);
        c
    }

    /// The number of threads seen so far.
    pub fn thread_count(&self) -> usize {
        self.threads.len()
    }

    /// The poset over the threads that have at least one element.
    pub fn finish(self, names: Names) -> TracePoset {
        let present: Vec<usize> = (0..self.clocks.len())
            .filter(|&t| !self.clocks[t].is_empty())
            .collect();
        let n = present.len();
        let mut poset = Poset::new(n);
        let mut row = vec![0u32; n];
        for (p, &t) in present.iter().enumerate() {
            for c in &self.clocks[t] {
                for (q, &u) in present.iter().enumerate() {
                    row[q] = c.get(u).copied().unwrap_or(0);
                }
                poset.push(p, &row);
            }
        }
        let mut members = self.members;
        let mut starts = self.starts;
        TracePoset {
            poset,
            threads: present.iter().map(|&t| ThreadId(t as u32)).collect(),
            members: present
                .iter()
                .map(|&t| std::mem::take(&mut members[t]))
                .collect(),
            starts: present
                .iter()
                .map(|&t| std::mem::take(&mut starts[t]))
                .collect(),
            names,
            trace_events: self.trace_events,
        }
    }
}
