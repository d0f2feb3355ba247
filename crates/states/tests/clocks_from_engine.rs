//! The clocks of posets and losets, read off the happens-before pass, against the construction
//! they replace: a clock per thread, lock and message whose components count elements directly.
//! Kept while the old construction is retired.

use hindsight_order::HappensBefore;
use hindsight_states::cuts::poset::{Poset, PosetBuilder, Selection, TracePoset};
use hindsight_states::reach::loset::Loset;
use hindsight_trace::arbitrary::{trace_from_choices, Shape};
use hindsight_trace::{Event, Names, Op, ThreadId};
use proptest::prelude::*;

/// Builds the poset of a trace one event at a time (what the online detector of Section 3.5.1
/// does): a clock per thread, lock and message whose components count relevant elements.
#[derive(Default)]
pub struct OldPosetBuilder {
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

impl OldPosetBuilder {
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

/// The old loset clocks: happened-before without lock edges, counted event by event.
fn old_loset_clocks(events: &[Event]) -> Poset {
    let mut clocks: Vec<Vec<u32>> = Vec::new();
    let mut msgs: Vec<Vec<u32>> = Vec::new();
    let mut rows: Vec<Vec<Vec<u32>>> = Vec::new();
    fn ensure(clocks: &mut Vec<Vec<u32>>, rows: &mut Vec<Vec<Vec<u32>>>, t: usize) {
        while clocks.len() <= t {
            clocks.push(Vec::new());
            rows.push(Vec::new());
        }
    }
    for e in events {
        let t = e.thread.index();
        ensure(&mut clocks, &mut rows, t);
        {
            let own = &mut clocks[t];
            if own.len() <= t {
                own.resize(t + 1, 0);
            }
            own[t] += 1;
        }
        match &e.op {
            Op::Receive(m) => {
                if let Some(c) = msgs.get(m.index()) {
                    let c = c.clone();
                    join_into(&mut clocks[t], &c);
                }
            }
            Op::Join(u) => {
                ensure(&mut clocks, &mut rows, u.index());
                let c = clocks[u.index()].clone();
                join_into(&mut clocks[t], &c);
            }
            _ => {}
        }
        rows[t].push(clocks[t].clone());
        match &e.op {
            Op::Send(m) => {
                if m.index() >= msgs.len() {
                    msgs.resize(m.index() + 1, Vec::new());
                }
                msgs[m.index()] = clocks[t].clone();
            }
            Op::Fork(u) => {
                ensure(&mut clocks, &mut rows, u.index());
                let c = clocks[t].clone();
                join_into(&mut clocks[u.index()], &c);
            }
            _ => {}
        }
    }
    let present: Vec<usize> = (0..rows.len()).filter(|&t| !rows[t].is_empty()).collect();
    let mut hb = Poset::new(present.len());
    for (p, &t) in present.iter().enumerate() {
        for c in &rows[t] {
            let row: Vec<u32> = present
                .iter()
                .map(|&u| c.get(u).copied().unwrap_or(0))
                .collect();
            hb.push(p, &row);
        }
    }
    hb
}

/// Which events are relevant, drawn from a mask over operation kinds.
fn relevant_by(mask: u16) -> impl Fn(&Event, &Names) -> bool {
    move |e: &Event, _: &Names| mask & (1 << e.op.kind()) != 0
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn poset_clocks_from_the_engine_are_the_old_ones(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..40),
        threads in 2u8..=4,
        odd in any::<bool>(),
        mask in any::<u16>(),
        every in any::<bool>(),
        merge in any::<bool>(),
    ) {
        let trace = trace_from_choices(&choices, Shape { threads, vars: 2, locks: 2, msgs: 2, odd });
        let relevant = relevant_by(if every { u16::MAX } else { mask });
        let selection = Selection { relevant: &relevant, merge };
        let mut old = OldPosetBuilder::default();
        let mut new = PosetBuilder::default();
        let mut hb = HappensBefore::new();
        for e in &trace.events {
            hb.before(e);
            let a = old.add(e, &trace.names, &selection);
            let b = new.add(e, &hb, &trace.names, &selection);
            prop_assert_eq!(a, b);
            hb.after(e);
        }
        let old = old.finish(trace.names.clone());
        let new = new.finish(trace.names.clone());
        prop_assert_eq!(&old.poset, &new.poset);
        prop_assert_eq!(&old.threads, &new.threads);
        prop_assert_eq!(&old.starts, &new.starts);
        prop_assert_eq!(&old.members, &new.members);
        prop_assert_eq!(old.trace_events, new.trace_events);
        let read = TracePoset::read(&mut trace.source(), &selection).unwrap();
        prop_assert_eq!(&read.poset, &new.poset);
    }

    #[test]
    fn loset_clocks_from_the_engine_are_the_old_ones(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..40),
        threads in 2u8..=4,
        odd in any::<bool>(),
    ) {
        let trace = trace_from_choices(&choices, Shape { threads, vars: 2, locks: 2, msgs: 2, odd });
        let loset = Loset::from_events(&trace.events, trace.names.clone());
        prop_assert_eq!(&loset.hb, &old_loset_clocks(&trace.events));
        let _ = ThreadId(0);
    }
}
