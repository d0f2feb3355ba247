//! The streaming pass of [`crate::driver::run`] split over two threads, so that reading a trace
//! overlaps with analysing it.
//!
//! Stage 1 (a scoped thread) owns the reader and the [`Validator`]: it decodes each event,
//! validates it (and refuses lock-invalid traces for analyses that need them, as the sequential
//! driver does), counts it for the trace statistics and moves it into a batch, with its
//! position and the names the reader defined for it. Stage 2 (the calling thread) owns
//! everything after: the happens-before pass and the analyses, which therefore need not be
//! `Send`. The pass can be at most as fast as its slower stage: reading a binary trace costs
//! about as much as happens-before plus an analysis, so the gain is there (less than twofold:
//! the batches add work, and the stages are not equal; `BENCHMARKS.md` has the figures), while
//! a text trace is bound by parsing and gains nothing. On one core the stages take turns, at a
//! cost.
//!
//! Events travel in batches of thousands so that the cost of crossing threads is paid per
//! batch, not per event. Batches go round in a loop (full ones to stage 2, emptied ones back),
//! so that in steady state nothing is allocated. A batch owns no boxes: a call's object,
//! method and values sit in arrays of their own, so stage 1 only stores into memory stage 2
//! last read, and stage 2 reads it front to back, handing out the other events where they lie
//! and lending each call as a [`LentCall`] whose values stay in the batch. Moving the reader's
//! events themselves (swapping them into the batch) is slower than one thread: every swap
//! loads the slot's previous event, a cache line the other core last wrote, and every call
//! sends stage 2 after a box and two vectors written on the other core.
//! Stage 1 reads through [`EventSource::advance_splitting_calls`], so that the binary reader
//! decodes a call's values straight into the batch rather than into the reader's call, from
//! which stage 1 would then copy every value a second time.
//!
//! Stage 2 keeps a replica of the reader's [`Names`], interning each batch's new names in id
//! order just before the event that defined them, so every analysis sees exactly the names the
//! sequential driver would show it at that event. The outcome, errors included, is the
//! sequential driver's: the first error in trace order wins, and at one event a reading or
//! validation error comes before what the analyses say (stage 1 sends the events before its
//! error, stage 2 analyses them, then returns stage 1's error unless an analysis failed first).
//!
//! Stage 2 is the slower stage for a costly analysis such as `commute`, so the reading thread
//! spends part of the pass waiting for it. So stage 2 hands over what can be done elsewhere:
//! after each batch it asks every analysis for a findings job ([`Analysis::findings_job`]) and
//! sends the jobs back with the emptied batch, and stage 1 builds those findings before
//! refilling it (and, after the last batch, until stage 2 hangs up). Findings built after the
//! pass would lengthen the run by their whole cost; built by stage 1, they take time it would
//! otherwise spend waiting.
//!
//! This module must not know any analysis, file format or command-line option: it moves events
//! between the reader and the chain of [`Analysis`] objects, nothing more.

use crate::driver::{
    finish_pass, lock_invalid, observers, Analysis, FindingSink, FindingsJob, LentCall, Observer,
    OpCounts, Pass, PassBudget, RunOptions, RunOutcome, Stopped,
};
use hindsight_budget::{Budget, Meter, Spent};
use hindsight_order::HappensBefore;
use hindsight_report::Finding;
use hindsight_trace::{
    CallHead, CallRef, ErrorKind, Event, EventSource, LockRepair, NameKind, Names, Op, Position,
    Step, ThreadId, TraceError, Validator, Value, Warning,
};
use std::cell::RefCell;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;

/// Events per batch (about 60 bytes each with positions and call values, so the batches in
/// flight take a few MiB). A stage that waits sleeps, and waking it costs tens of
/// microseconds (an inter-processor interrupt, dearer still in a virtual machine), so a batch
/// is large enough that wake-ups are rare: the smallest of the sizes measured that ran as fast
/// as any larger one (`BENCHMARKS.md`, "Pipeline").
pub const BATCH_EVENTS: usize = 16384;

/// Batches that exist at once: one being filled, one being analysed, the rest waiting so that
/// neither stage stalls on the other's jitter.
const BATCHES: usize = 4;

/// Whether the pipeline can pay off here: it needs a second core.
pub fn worthwhile() -> bool {
    std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2)
}

/// A name the reader defined, to be interned by stage 2 before event `at` of the batch.
struct NewName {
    at: u32,
    kind: NameKind,
    /// Its bytes are `Batch::name_text[previous end..end]`.
    end: u32,
}

/// A call but for its values, which are the batch's next `args + results` values; it is
/// event `at` of the batch.
#[derive(Clone, Copy)]
struct BatchCall {
    at: u32,
    head: CallHead,
}

/// Events on their way from stage 1 to stage 2. Its vectors keep their capacity from one trip
/// to the next.
struct Batch {
    /// The first `len` are this batch's. A call's slot holds `Op::End` in place of the call
    /// (its head and values are in `calls` and `values`), so no slot owns anything and
    /// overwriting one is a plain store, never a look at what the other thread left there.
    events: Box<[ManuallyDrop<Event>]>,
    /// Where each event stands in its file; stage 2 reads it only for an analysis error.
    positions: Box<[Position]>,
    len: usize,
    calls: Vec<BatchCall>,
    /// The calls' values, in order. Past the last call's may lie the values of a call that
    /// failed validation, which no head counts.
    values: Vec<Value>,
    new_names: Vec<NewName>,
    name_text: String,
    /// No batch follows: stage 1 has ended (at the end of the trace or at an error).
    last: bool,
    /// On the way back to stage 1: findings for it to build, with the index of the analysis
    /// whose they are (see [`Analysis::findings_job`]).
    jobs: Vec<(usize, FindingsJob)>,
}

impl Batch {
    fn new(capacity: usize) -> Batch {
        Batch {
            events: vec![ManuallyDrop::new(Event::new(0, ThreadId(0), Op::End)); capacity]
                .into_boxed_slice(),
            positions: vec![Position::File; capacity].into_boxed_slice(),
            len: 0,
            calls: Vec::new(),
            values: Vec::new(),
            new_names: Vec::new(),
            name_text: String::new(),
            last: false,
            jobs: Vec::new(),
        }
    }

    fn clear(&mut self) {
        self.len = 0;
        self.calls.clear();
        self.values.clear();
        self.new_names.clear();
        self.name_text.clear();
    }
}

/// How stage 1 ended.
enum ReadEnd {
    /// The whole trace was read and validated.
    Finished {
        by_op: OpCounts,
        names: Box<Names>,
        /// Per analysis, the findings built from its jobs, in the order they came.
        built: Vec<Vec<Finding>>,
        warnings: Vec<Warning>,
        warning_counts: Vec<(&'static str, u64)>,
        /// What was done to lock records ([`LockRepair`]).
        lock_records: hindsight_trace::LockRecordCounts,
        /// The input sent nothing more before the budget's deadline: the trace was read up
        /// to there.
        timed_out: bool,
    },
    /// Reading or validation failed; the events before the error were sent.
    Failed(TraceError),
    /// Stage 2 stopped listening (an analysis failed).
    Abandoned,
}

/// Runs `analyses` over `source` in one pass, reading in a second thread ([`observe_pipelined`]),
/// and finishes them. Returns exactly what [`crate::driver::run`] returns.
pub fn run_pipelined<S: EventSource + Send>(
    source: &mut S,
    mut analyses: Vec<Box<dyn Analysis>>,
    options: RunOptions,
    batch_events: usize,
) -> Result<RunOutcome, TraceError> {
    let pass = observe_pipelined(source, &mut observers(&mut analyses), options, batch_events)?;
    Ok(pass.finish(analyses))
}

/// Hands every event of `source` to `observers` in one pass, reading in a second thread;
/// batches hold `batch_events` events (at least 1). Returns exactly what
/// [`crate::driver::observe`] returns.
pub fn observe_pipelined<S: EventSource + Send>(
    source: &mut S,
    observers: &mut [&mut dyn Observer],
    options: RunOptions,
    batch_events: usize,
) -> Result<Pass, TraceError> {
    observe_pipelined_to(source, observers, options, batch_events, None)
}

/// [`observe_pipelined`], the findings of the observers' jobs built by the reading thread
/// into `sink`, if any, rather than kept for the outputs.
pub fn observe_pipelined_to<S: EventSource + Send>(
    source: &mut S,
    observers: &mut [&mut dyn Observer],
    options: RunOptions,
    batch_events: usize,
    sink: Option<&mut dyn FindingSink>,
) -> Result<Pass, TraceError> {
    observe_pipelined_within(source, observers, options, batch_events, sink, None)
}

/// [`observe_pipelined_to`] within `budget`, if any: stage 2 polls it after each batch (see
/// [`crate::driver::observe_any_within`]); once it is spent, stage 2 analyses no more batches
/// and stage 1 reads no more.
pub fn observe_pipelined_within<S: EventSource + Send>(
    source: &mut S,
    observers: &mut [&mut dyn Observer],
    options: RunOptions,
    batch_events: usize,
    sink: Option<&mut dyn FindingSink>,
    budget: Option<&Budget>,
) -> Result<Pass, TraceError> {
    let batch_events = batch_events.max(1);
    let reader_holds = source.held_besides_names();
    crate::driver::tell_deadline(observers, budget);
    let stop = Arc::new(AtomicBool::new(false));
    let stop_reading = Arc::clone(&stop);
    let needs_lock_valid = observers
        .iter()
        .find(|a| a.needs_lock_valid())
        .map(|a| a.name());
    let handling = crate::driver::lock_handling(observers, options);
    let (full_tx, full_rx) = sync_channel::<Batch>(BATCHES);
    let (empty_tx, empty_rx) = sync_channel::<Batch>(BATCHES);
    for _ in 0..BATCHES {
        empty_tx
            .send(Batch::new(batch_events))
            .expect("the channel holds every batch");
    }
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let mut stage = ReadStage {
                source: LockRepair::with(source, handling),
                validator: Validator::new(options.strict),
                by_op: OpCounts::default(),
                needs_lock_valid,
                known: [0; NameKind::ALL.len()],
                known_total: 0,
                built: Vec::new(),
                sink,
                stop: stop_reading,
            };
            stage.run(&full_tx, &empty_rx)
        });
        let mut within = budget.map(|b| PassBudget::new(b, reader_holds));
        let analysed = analyse(observers, full_rx, empty_tx, within.as_mut(), &stop);
        let read = match reader.join() {
            Ok(read) => read,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        let stopped = analysed?;
        match read {
            ReadEnd::Finished {
                by_op,
                names,
                built,
                warnings,
                warning_counts,
                lock_records,
                timed_out,
            } => {
                let read: u64 = by_op.iter().sum();
                let mut pass = finish_pass(&by_op, *names, built, warnings, warning_counts);
                pass.stats.note_lock_records(lock_records);
                pass.stopped = match stopped {
                    // Stage 2 analysed every batch stage 1 sent: the events read.
                    None if timed_out => Some(crate::driver::timed_out(budget, read)),
                    stopped => stopped,
                };
                Ok(pass)
            }
            ReadEnd::Failed(e) => Err(e),
            // Stage 1 stops early only when stage 2 has returned an error.
            ReadEnd::Abandoned => unreachable!("stage 2 returned without an error"),
        }
    })
}

struct ReadStage<'s, 'k, S> {
    source: LockRepair<&'s mut S>,
    validator: Validator,
    /// The trace statistics, counted here rather than in stage 2, the busier one.
    by_op: OpCounts,
    needs_lock_valid: Option<&'static str>,
    /// How many names of each kind stage 2 has been sent.
    known: [usize; NameKind::ALL.len()],
    /// The sum of `known`.
    known_total: usize,
    /// Per analysis, the findings built so far from the jobs stage 2 sent back (without a
    /// sink).
    built: Vec<Vec<Finding>>,
    sink: Option<&'k mut dyn FindingSink>,
    /// Set by stage 2 when the budget is spent: read no more.
    stop: Arc<AtomicBool>,
}

impl<S: EventSource> ReadStage<'_, '_, S> {
    fn run(&mut self, full: &SyncSender<Batch>, empty: &Receiver<Batch>) -> ReadEnd {
        loop {
            let Ok(mut batch) = empty.recv() else {
                return ReadEnd::Abandoned;
            };
            self.build(&mut batch, None);
            batch.clear();
            let mut stopped = self.stop.load(Ordering::Relaxed);
            let mut timed_out = false;
            let more = if stopped {
                Ok(false)
            } else {
                match self.fill(&mut batch) {
                    // The events read until then are analysed, as at a budget's stop.
                    Err(e) if e.kind == ErrorKind::InputTimedOut => {
                        (stopped, timed_out) = (true, true);
                        Ok(false)
                    }
                    more => more,
                }
            };
            match more {
                Ok(true) => {
                    if full.send(batch).is_err() {
                        return ReadEnd::Abandoned;
                    }
                }
                Ok(false) => {
                    let names = self.source.take_names();
                    // A pass stopped by its budget has not reached the trace's end.
                    let finished = match stopped {
                        true => Ok(()),
                        false => self.validator.finish(&names),
                    };
                    if let Err(e) = finished {
                        batch.last = true;
                        let _ = full.send(batch);
                        return ReadEnd::Failed(e);
                    }
                    batch.last = true;
                    if full.send(batch).is_err() {
                        return ReadEnd::Abandoned;
                    }
                    // Stage 2 still sends back the batches in flight, with their jobs, until
                    // it has analysed the last and hangs up.
                    while let Ok(mut batch) = empty.recv() {
                        self.build(&mut batch, Some(&names));
                    }
                    return ReadEnd::Finished {
                        by_op: self.by_op,
                        names: Box::new(names),
                        built: std::mem::take(&mut self.built),
                        warnings: self.validator.warnings().to_vec(),
                        warning_counts: self.validator.warning_counts().to_vec(),
                        lock_records: self.source.counts(),
                        timed_out,
                    };
                }
                Err(e) => {
                    batch.last = true;
                    return match full.send(batch) {
                        Ok(()) => ReadEnd::Failed(e),
                        Err(_) => ReadEnd::Abandoned,
                    };
                }
            }
        }
    }

    /// Builds the findings of the jobs a batch came back with, naming them with `names` or,
    /// before the end, with the reader's names (which already name everything the events
    /// analysed so far name).
    fn build(&mut self, batch: &mut Batch, names: Option<&Names>) {
        for (k, job) in batch.jobs.drain(..) {
            let names = names.unwrap_or_else(|| self.source.names());
            let findings = job(names);
            if let Some(sink) = self.sink.as_deref_mut() {
                sink.findings(k, findings);
                continue;
            }
            if self.built.len() <= k {
                self.built.resize_with(k + 1, Vec::new);
            }
            self.built[k].extend(findings);
        }
    }

    /// Reads and validates events into `batch` until it is full (`true`) or the trace ends
    /// (`false`); an error leaves the events before it in the batch.
    fn fill(&mut self, batch: &mut Batch) -> Result<bool, TraceError> {
        let Batch {
            events,
            positions,
            len,
            calls,
            values,
            new_names,
            name_text,
            ..
        } = batch;
        let mut n = 0;
        let mut more = Ok(true);
        // Zipped, the slots need no bounds checks.
        for (slot, place) in events.iter_mut().zip(positions.iter_mut()) {
            // A call's values go straight to the batch, its head to `calls` at once: kept
            // for later, the head would have to be saved across the validator. A call that
            // then fails validation gives its head back (its values, past the last head's,
            // are never read).
            let is_call = match self.source.advance_splitting_calls(values) {
                Ok(Step::End) => {
                    more = Ok(false);
                    break;
                }
                Ok(Step::Event) => false,
                Ok(Step::Call(head)) => {
                    calls.push(BatchCall { at: n as u32, head });
                    true
                }
                Err(e) => {
                    more = Err(e);
                    break;
                }
            };
            self.note_new_names(new_names, name_text, n as u32);
            if let Some(e) = self.note_repairs() {
                if is_call {
                    calls.pop();
                }
                more = Err(e);
                break;
            }
            let e = self.source.current();
            let pos = self.source.position();
            let names = self.source.names();
            let checked = if is_call {
                self.validator.check_call(e.thread, pos, names)
            } else {
                self.validator.check(e, pos, names)
            };
            let refused = match (checked, self.needs_lock_valid) {
                (Err(e), _) => Some(e),
                (Ok(()), Some(name)) => self
                    .validator
                    .lock_violation()
                    .map(|w| lock_invalid(name, w)),
                (Ok(()), None) => None,
            };
            if let Some(e) = refused {
                if is_call {
                    calls.pop();
                }
                more = Err(e);
                break;
            }
            // A call's slot holds `Op::End`: its head and values are in arrays of their own.
            let op = if is_call {
                self.by_op[Op::CALL_KIND] += 1;
                Op::End
            } else {
                self.by_op[e.op.kind()] += 1;
                // Owns nothing: a copy.
                e.op.clone()
            };
            *slot = ManuallyDrop::new(Event {
                index: e.index,
                thread: e.thread,
                op,
                loc: e.loc,
            });
            *place = pos;
            n += 1;
        }
        *len = n;
        more
    }

    /// Hands the repairs of lock records made since the last event to the validator: an
    /// error under `--strict`.
    #[inline]
    fn note_repairs(&mut self) -> Option<TraceError> {
        if !self.source.has_repairs() {
            return None;
        }
        for w in self.source.take_repairs() {
            if let Err(e) = self.validator.warn(w.pos, w.kind) {
                return Some(e);
            }
        }
        None
    }

    /// Copies the names the reader defined since the last event into the batch, to be interned
    /// before event `at`.
    #[inline]
    fn note_new_names(&mut self, new_names: &mut Vec<NewName>, name_text: &mut String, at: u32) {
        // Names are rare: their count tells whether any kind has grown.
        let total = self.source.names_defined();
        if total != self.known_total {
            self.known_total = total;
            self.copy_new_names(new_names, name_text, at);
        }
    }

    #[cold]
    #[inline(never)]
    fn copy_new_names(&mut self, new_names: &mut Vec<NewName>, name_text: &mut String, at: u32) {
        let names = self.source.names();
        for kind in NameKind::ALL {
            let interner = names.of(kind);
            let known = &mut self.known[kind as usize];
            while *known < interner.len() {
                name_text.push_str(interner.name(*known as u32));
                new_names.push(NewName {
                    at,
                    kind,
                    end: name_text.len() as u32,
                });
                *known += 1;
            }
        }
    }
}

/// Stage 2: orders and analyses the events of each batch, then hands the batch back.
/// Returning drops both channel ends, which stops stage 1 when an analysis fails.
fn analyse(
    observers: &mut [&mut dyn Observer],
    full: Receiver<Batch>,
    empty: SyncSender<Batch>,
    mut within: Option<&mut PassBudget<'_>>,
    stop: &AtomicBool,
) -> Result<Option<Stopped>, TraceError> {
    let mut stopped = None;
    let mut names = Names::default();
    let mut hb = HappensBefore::new();
    let mut hb_read = true;
    // Where a call is built whole for the analyses that ask (see `LentCall`).
    let whole_call = RefCell::new(Event::new(0, ThreadId(0), Op::End));
    // Without a last batch stage 1 has panicked; joining it passes the panic on.
    while let Ok(mut batch) = full.recv() {
        if stopped.is_some() {
            // The budget is spent: the batches read meanwhile go back unanalysed.
            let last = batch.last;
            let _ = empty.send(batch);
            if last {
                break;
            }
            continue;
        }
        let mut cursor = BatchCursor {
            batch: &batch,
            hb: &mut hb,
            hb_read,
            names: &mut names,
            whole_call: &whole_call,
            meter: within.as_deref_mut().map(|w| &mut w.meter),
            seen: 0,
            spent: None,
        };
        let done = match &mut *observers {
            [one] => one.on_batch(&mut cursor),
            several => cursor.run(&mut Several(several)),
        };
        let (seen, spent_in_batch) = (cursor.seen, cursor.spent);
        if let Err((i, kind)) = done {
            return Err(TraceError::new(batch.positions[i], kind));
        }
        for (k, a) in observers.iter_mut().enumerate() {
            if let Some(job) = a.findings_job() {
                batch.jobs.push((k, job));
            }
        }
        if hb_read {
            hb_read = crate::driver::still_read(observers, &mut hb);
        }
        if let Some(w) = within.as_deref_mut() {
            if let Err(spent) = w.seen_batch(seen as u64, spent_in_batch, observers, &names) {
                stop.store(true, Ordering::Relaxed);
                stopped = Some(Stopped {
                    spent,
                    events: w.events,
                });
            }
        }
        let last = batch.last;
        // Stage 1 may have ended already; the batch is then simply dropped.
        let _ = empty.send(batch);
        if last {
            break;
        }
    }
    Ok(stopped)
}

/// A batch as stage 2 walks it, with the state it advances: the happens-before pass and the
/// replica of the reader's names. With a single analysis, stage 2 hands it the whole batch
/// ([`Analysis::on_batch`]), so that the per-event calls are static and inlined rather than
/// one dynamic call per event and analysis.
pub struct BatchCursor<'b, 'm> {
    batch: &'b Batch,
    hb: &'b mut HappensBefore,
    /// Whether an observer still reads `hb` (see `Observer::reads_happens_before`); if none
    /// does, it is not advanced.
    hb_read: bool,
    names: &'b mut Names,
    whole_call: &'b RefCell<Event>,
    /// The pass's meter, when it runs within a budget: stepped at every event, so that a batch
    /// of slow events stops at the deadline rather than at the batch's end.
    meter: Option<&'b mut Meter<'m>>,
    /// Where the walk stopped: the events of the batch the analyses saw, and the limit reached
    /// if that stopped it.
    seen: usize,
    spent: Option<Spent>,
}

/// An event the analysis refused: its place in the batch, and why.
pub type BatchError = (usize, ErrorKind);

/// Where stage 2 stands in a batch's new names: the next to intern, where its text starts,
/// and the event it comes before (`u32::MAX`: none).
struct NameFeed {
    next: usize,
    text_start: usize,
    next_at: u32,
}

impl NameFeed {
    fn new(batch: &Batch) -> NameFeed {
        NameFeed {
            next: 0,
            text_start: 0,
            next_at: batch.new_names.first().map_or(u32::MAX, |n| n.at),
        }
    }

    /// Interns the names defined before event `i`.
    #[inline(always)]
    fn before(&mut self, i: usize, batch: &Batch, names: &mut Names) {
        if i as u32 == self.next_at {
            self.intern(i as u32, batch, names);
        }
    }

    #[cold]
    fn intern(&mut self, at: u32, batch: &Batch, names: &mut Names) {
        while let Some(n) = batch.new_names.get(self.next).filter(|n| n.at == at) {
            let text = &batch.name_text[self.text_start..n.end as usize];
            let interner = names.of_mut(n.kind);
            let _id = interner.intern(text.as_bytes());
            debug_assert_eq!(_id, Ok(interner.len() as u32 - 1), "names arrive once");
            self.text_start = n.end as usize;
            self.next += 1;
        }
        self.next_at = batch.new_names.get(self.next).map_or(u32::MAX, |n| n.at);
    }
}

/// What a batch's events are handed to: one analysis, or several in turn.
pub(crate) trait EventSink {
    fn event(&mut self, e: &Event, hb: &HappensBefore, names: &Names) -> Result<(), ErrorKind>;
    fn call(
        &mut self,
        c: &LentCall<'_>,
        hb: &HappensBefore,
        names: &Names,
    ) -> Result<(), ErrorKind>;
}

impl<A: Observer + ?Sized> EventSink for A {
    #[inline(always)]
    fn event(&mut self, e: &Event, hb: &HappensBefore, names: &Names) -> Result<(), ErrorKind> {
        self.on_event(e, hb, names)
    }

    #[inline(always)]
    fn call(
        &mut self,
        c: &LentCall<'_>,
        hb: &HappensBefore,
        names: &Names,
    ) -> Result<(), ErrorKind> {
        self.on_call(c, hb, names)
    }
}

struct Several<'a, 'b>(&'a mut [&'b mut dyn Observer]);

impl EventSink for Several<'_, '_> {
    fn event(&mut self, e: &Event, hb: &HappensBefore, names: &Names) -> Result<(), ErrorKind> {
        self.0.iter_mut().try_for_each(|a| a.on_event(e, hb, names))
    }

    fn call(
        &mut self,
        c: &LentCall<'_>,
        hb: &HappensBefore,
        names: &Names,
    ) -> Result<(), ErrorKind> {
        self.0.iter_mut().try_for_each(|a| a.on_call(c, hb, names))
    }
}

impl BatchCursor<'_, '_> {
    /// Orders every event of the batch and hands it to `sink`, interning each new name just
    /// before the event that defined it.
    #[inline(always)]
    pub(crate) fn run<S: EventSink + ?Sized>(&mut self, sink: &mut S) -> Result<(), BatchError> {
        let BatchCursor {
            batch,
            hb,
            hb_read,
            names,
            whole_call,
            meter,
            seen,
            spent,
        } = self;
        let hb_read = *hb_read;
        let mut step = |i: usize| match meter.as_deref_mut().map(Meter::step) {
            Some(Err(limit)) => {
                *seen = i;
                *spent = Some(limit);
                true
            }
            _ => false,
        };
        let events = &batch.events[..batch.len];
        let mut feed = NameFeed::new(batch);
        let mut values = &batch.values[..];
        let mut i = 0;
        // The events up to each call, then the call: the events between calls are looked at
        // only for happens-before, not for being a call.
        let mut calls = batch.calls.iter();
        loop {
            let call = calls.next();
            let end = call.map_or(events.len(), |c| c.at as usize);
            for place in &events[i..end] {
                feed.before(i, batch, names);
                if hb_read {
                    hb.before(place);
                }
                let done = sink.event(place, hb, names);
                if hb_read {
                    hb.after(place);
                }
                done.map_err(|kind| (i, kind))?;
                i += 1;
                if step(i) {
                    return Ok(());
                }
            }
            let Some(&BatchCall { head, .. }) = call else {
                break;
            };
            feed.before(i, batch, names);
            let (args, rest) = values.split_at(head.args as usize);
            let (results, rest) = rest.split_at(head.results as usize);
            values = rest;
            let call = CallRef {
                object: head.object,
                method: head.method,
                args,
                results,
            };
            let place = &events[i];
            if hb_read {
                hb.plain(place.thread);
            }
            sink.call(&LentCall::new(place, call, whole_call), hb, names)
                .map_err(|kind| (i, kind))?;
            i += 1;
            if step(i) {
                return Ok(());
            }
        }
        *seen = i;
        Ok(())
    }
}
