//! The textbook happens-before relation, computed the slow way: a full vector clock per event,
//! with every event starting a new epoch of its thread. Nothing here is shared with the
//! streaming pass in [`crate::hb`], so that tests can hold one against the other.
//!
//! It is the literal reference the property tests hold the fast code against (the streaming
//! pass in `tests/hb_reference.rs`, and the analyses built on it in other crates' tests).
//! Test support, not API: compiled only with the `oracle` feature, which those tests enable
//! through their dev-dependencies.

use crate::clock::VectorClock;
use hindsight_trace::{Op, ThreadId, Trace};

/// The vector clock of every event of a trace held in memory.
pub struct EventClocks {
    clocks: Vec<VectorClock>,
    threads: Vec<ThreadId>,
}

impl EventClocks {
    pub fn compute(trace: &Trace) -> EventClocks {
        let n_threads = trace.names.threads.len();
        // The clock a thread's next event starts from.
        let mut current: Vec<VectorClock> = vec![VectorClock::new(); n_threads];
        let mut last_release: Vec<Option<VectorClock>> = vec![None; trace.names.locks.len()];
        let mut last_send: Vec<Option<VectorClock>> = vec![None; trace.names.msgs.len()];
        let mut clocks = Vec::with_capacity(trace.events.len());
        for e in &trace.events {
            let t = e.thread;
            let mut c = current[t.index()].clone();
            c.increment(t);
            match &e.op {
                Op::Acquire(l) => {
                    if let Some(r) = &last_release[l.index()] {
                        c.join(r);
                    }
                }
                Op::Receive(m) => {
                    if let Some(s) = &last_send[m.index()] {
                        c.join(s);
                    }
                }
                Op::Join(u) => c.join(&current[u.index()]),
                _ => {}
            }
            match &e.op {
                Op::Release(l) => last_release[l.index()] = Some(c.clone()),
                Op::Send(m) => last_send[m.index()] = Some(c.clone()),
                Op::Fork(u) => current[u.index()].join(&c),
                _ => {}
            }
            current[t.index()] = c.clone();
            clocks.push(c);
        }
        EventClocks {
            clocks,
            threads: trace.events.iter().map(|e| e.thread).collect(),
        }
    }

    /// Whether event `i` happens before event `j` (`i != j`): `i`'s own component is visible in
    /// `j`'s clock.
    pub fn happens_before(&self, i: usize, j: usize) -> bool {
        i != j && {
            let t = self.threads[i];
            self.clocks[i].get(t) <= self.clocks[j].get(t)
        }
    }

    pub fn clock(&self, i: usize) -> &VectorClock {
        &self.clocks[i]
    }
}
