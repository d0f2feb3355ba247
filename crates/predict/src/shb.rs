//! Schedulable happens-before (Mathur, Kini, Viswanathan, OOPSLA'18). SHB is happens-before
//! with one more edge: from the write each read sees to the read. A pair of conflicting
//! accesses e1 before e2 is an SHB race when e1 is not SHB-ordered before the event preceding
//! e2 in its thread (a read is checked before its own reads-from edge is applied, since the
//! write it sees is not executed-before it when both are merely enabled); every SHB race is a
//! predictable race (the paper's Theorem 4), not only the first, unlike happens-before.
//!
//! The pass is the paper's Algorithm 1, streaming: a clock per thread, per lock (its last
//! release) and per variable (its last write, which a read joins), and each thread's last read
//! and write of each variable. A thread's own component advances after every release, fork,
//! send and write, so that an event after a write is never mistaken for one before it by a
//! thread that joined the write's clock.

use crate::accesses::{Accesses, Nesting};
use crate::found::{Found, Race};
use crate::recording::Recording;
use crate::witness;
use hindsight_order::clock::DENSE;
use hindsight_order::{HappensBefore, VectorClock};
use hindsight_report::Rule;
use hindsight_stream::driver::{Analysis, AnalysisOutput, FindingsJob, LentCall, Observer};
use hindsight_stream::groups::Granularity;
use hindsight_trace::{ErrorKind, Event, Names, Op, ThreadId};
use serde_json::Value;
use std::cell::RefCell;

/// How a model reports.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    pub granularity: Granularity,
    /// Keep the trace and give each race happens-before does not report a checked witness.
    pub witnesses: bool,
    /// Report only the races happens-before does not report (`races --beyond hb`).
    pub beyond_hb: bool,
}

/// The SHB analysis.
pub struct Shb {
    threads: Vec<VectorClock>,
    locks: Vec<VectorClock>,
    messages: Vec<VectorClock>,
    last_write: Vec<VectorClock>,
    accesses: Accesses,
    nesting: Nesting,
    found: Found,
    recording: Option<Recording>,
}

fn at(v: &mut Vec<VectorClock>, i: usize) -> &mut VectorClock {
    if i >= v.len() {
        v.resize_with(i + 1, VectorClock::new);
    }
    &mut v[i]
}

impl Shb {
    pub fn new(options: Options) -> Shb {
        Shb {
            threads: Vec::new(),
            locks: Vec::new(),
            messages: Vec::new(),
            last_write: Vec::new(),
            accesses: Accesses::default(),
            nesting: Nesting::default(),
            found: Found::new("shb", options.granularity, options.witnesses)
                .only_beyond_hb(options.beyond_hb),
            recording: options.witnesses.then(Recording::new),
        }
    }

    /// The races kept so far (see [`Found::races`]).
    pub fn races(&self) -> &[Race] {
        self.found.races()
    }

    fn thread(&mut self, t: ThreadId) {
        while self.threads.len() <= t.index() {
            let id = ThreadId(self.threads.len() as u32);
            self.threads.push(VectorClock::for_new_thread(id));
        }
    }

    fn tick(&mut self, t: ThreadId) {
        self.threads[t.index()].increment(t);
    }

    /// An atomic access: never a race, but the write a load (or an RMW, before it writes)
    /// sees orders it as a plain read's does, and a store (or RMW) is the write later reads
    /// see.
    fn atomic(&mut self, t: ThreadId, x: hindsight_trace::VarId, reads: bool, writes: bool) {
        if reads {
            if let Some(w) = self.last_write.get(x.index()) {
                self.threads[t.index()].join(w);
            }
        }
        if writes {
            at(&mut self.last_write, x.index()).copy_from(&self.threads[t.index()]);
            self.tick(t);
        }
    }

    fn access(&mut self, e: &Event, x: hindsight_trace::VarId, write: bool, hb: &HappensBefore) {
        let t = e.thread;
        let clock = &self.threads[t.index()];
        if let Some(race) = self.accesses.check(x, write, e, hb, |u| clock.get(u)) {
            self.found.found(race);
        }
        if write {
            let time = self.threads[t.index()].get(t);
            self.accesses.record(x, true, e, hb, time);
            at(&mut self.last_write, x.index()).copy_from(&self.threads[t.index()]);
            self.tick(t);
        } else {
            if let Some(w) = self.last_write.get(x.index()) {
                self.threads[t.index()].join(w);
            }
            let time = self.threads[t.index()].get(t);
            self.accesses.record(x, false, e, hb, time);
        }
    }
}

impl Observer for Shb {
    fn name(&self) -> &'static str {
        "races"
    }

    fn needs_lock_valid(&self) -> bool {
        true
    }

    fn on_event(&mut self, e: &Event, hb: &HappensBefore, _: &Names) -> Result<(), ErrorKind> {
        let t = e.thread;
        self.thread(t);
        if let Some(r) = &mut self.recording {
            r.record(e);
        }
        match e.op {
            Op::Read(x) => self.access(e, x, false, hb),
            Op::Write(x) => self.access(e, x, true, hb),
            Op::AtomicLoad(x) => self.atomic(t, x, true, false),
            Op::AtomicStore(x) => self.atomic(t, x, false, true),
            Op::AtomicRmw(x) => self.atomic(t, x, true, true),
            Op::Acquire(l) if self.nesting.acquire(t, l) => {
                if let Some(c) = self.locks.get(l.index()) {
                    self.threads[t.index()].join(c);
                }
            }
            Op::Release(l) if self.nesting.release(t, l) => {
                at(&mut self.locks, l.index()).copy_from(&self.threads[t.index()]);
                self.tick(t);
            }
            Op::Fork(u) => {
                self.thread(u);
                let parent = self.threads[t.index()].clone();
                self.threads[u.index()].join(&parent);
                self.tick(t);
            }
            Op::Join(u) => {
                self.thread(u);
                let child = self.threads[u.index()].clone();
                self.threads[t.index()].join(&child);
                self.tick(u);
            }
            Op::Send(m) => {
                at(&mut self.messages, m.index()).copy_from(&self.threads[t.index()]);
                self.tick(t);
            }
            Op::Receive(m) => {
                if let Some(c) = self.messages.get(m.index()) {
                    self.threads[t.index()].join(c);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn on_call(
        &mut self,
        call: &LentCall<'_>,
        _: &HappensBefore,
        _: &Names,
    ) -> Result<(), ErrorKind> {
        if let Some(r) = &mut self.recording {
            r.record(call.at);
        }
        Ok(())
    }

    fn findings_job(&mut self) -> Option<FindingsJob> {
        self.found.job()
    }

    fn held_bytes(&self) -> u64 {
        (self.bytes() + self.found.bytes() + self.recording.as_ref().map_or(0, Recording::bytes))
            as u64
    }
}

/// What a vector clock of a trace of `threads` threads takes, roughly: the components of the
/// first [`DENSE`] threads in an array; those of the others in a tree that clocks share, so
/// not charged to each.
pub(crate) fn clock_bytes(threads: usize) -> usize {
    24 + 4 * threads.min(DENSE)
}

/// The summary entry of a model's memory, and the witnesses of its races.
pub(crate) fn finish_model(
    found: Found,
    recording: Option<Recording>,
    model_bytes: usize,
    names: &Names,
    rule: Rule,
) -> AnalysisOutput {
    finish_with(
        found,
        recording,
        model_bytes,
        names,
        rule,
        witness::reordering,
    )
}

/// [`finish_model`], witnesses built by `reordering` (checked by the replayer all the same).
pub(crate) fn finish_with(
    found: Found,
    recording: Option<Recording>,
    model_bytes: usize,
    names: &Names,
    rule: Rule,
    reordering: witness::Reordering,
) -> AnalysisOutput {
    let kept = recording.as_ref().map_or(0, Recording::bytes);
    let recording = RefCell::new(recording);
    let mut out = found.finish(names, rule, &|r: &Race| {
        let mut rec = recording.borrow_mut();
        witness::find_with(
            rec.as_mut()?,
            names,
            r.partner.index,
            r.racy.index,
            reordering,
        )
    });
    out.summary
        .insert("memory_bytes".into(), Value::from(model_bytes + kept));
    out
}

impl Shb {
    /// What the model holds (its races and the recording for witnesses aside), in bytes:
    /// a few words per thread for each clock, counted without a walk (budgets poll it).
    fn bytes(&self) -> usize {
        let clocks =
            self.threads.len() + self.locks.len() + self.messages.len() + self.last_write.len();
        clocks * clock_bytes(self.threads.len()) + self.accesses.bytes()
    }
}

impl Analysis for Shb {
    fn finish(self: Box<Self>, names: &Names) -> AnalysisOutput {
        let bytes = self.bytes();
        finish_model(
            self.found,
            self.recording,
            bytes,
            names,
            Rule {
                id: "data-race",
                description: "Two conflicting accesses that a correct reordering of the run enables together, unordered by schedulable happens-before (OOPSLA'18)",
            },
        )
    }
}
