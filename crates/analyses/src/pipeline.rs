//! The streaming pass of [`crate::driver::run`] split over two threads, so that reading a trace
//! overlaps with analysing it.
//!
//! Stage 1 (a scoped thread) owns the reader and the [`Validator`]: it decodes each event,
//! validates it (and refuses lock-invalid traces for analyses that need them, as the sequential
//! driver does) and moves it into a batch, with its position and the names the reader defined
//! for it. Stage 2 (the calling thread) owns everything after: the trace statistics, the
//! happens-before pass and the analyses, which therefore need not be `Send`. On one core the
//! two stages take turns; on two, reading a binary trace costs about as much as happens-before
//! plus an analysis, so the pass runs up to twice as fast.
//!
//! Events travel in batches of a few thousand so that the cost of crossing threads is paid per
//! batch, not per event. Batches go round in a loop (full ones to stage 2, emptied ones back)
//! and events are swapped in and out of their slots ([`EventSource::swap_current`]), so that in
//! steady state nothing is allocated: a call's box goes back to the reader's pool when the
//! reader overwrites the event that came back with its batch.
//!
//! Stage 2 keeps a replica of the reader's [`Names`], interning each batch's new names in id
//! order just before the event that defined them, so every analysis sees exactly the names the
//! sequential driver would show it at that event. The outcome, errors included, is the
//! sequential driver's: the first error in trace order wins, and at one event a reading or
//! validation error comes before what the analyses say (stage 1 sends the events before its
//! error, stage 2 analyses them, then returns stage 1's error unless an analysis failed first).
//!
//! This module must not know any analysis, file format or command-line option: it moves events
//! between the reader and the chain of [`Analysis`] objects, nothing more.

use crate::driver::{finish_run, lock_invalid, Analysis, RunOptions, RunOutcome, TraceStats};
use hindsight_order::HappensBefore;
use hindsight_trace::{
    Event, EventSource, NameKind, Names, Op, Position, ThreadId, TraceError, Validator, Warning,
};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Events per batch: large enough that crossing threads costs nothing measurable, small enough
/// that the batches in flight stay in the caches (about 40 bytes an event).
pub const BATCH_EVENTS: usize = 4096;

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

/// Events on their way from stage 1 to stage 2. `events` only grows (its slots are reused);
/// the first `len` are this batch's.
struct Batch {
    events: Vec<Event>,
    positions: Vec<Position>,
    len: usize,
    new_names: Vec<NewName>,
    name_text: String,
    /// No batch follows: stage 1 has ended (at the end of the trace or at an error).
    last: bool,
}

impl Batch {
    fn new(capacity: usize) -> Batch {
        Batch {
            events: Vec::with_capacity(capacity),
            positions: Vec::with_capacity(capacity),
            len: 0,
            new_names: Vec::new(),
            name_text: String::new(),
            last: false,
        }
    }

    fn clear(&mut self) {
        self.positions.clear();
        self.len = 0;
        self.new_names.clear();
        self.name_text.clear();
    }
}

/// How stage 1 ended.
enum ReadEnd {
    /// The whole trace was read and validated.
    Finished {
        names: Box<Names>,
        warnings: Vec<Warning>,
        warning_counts: Vec<(&'static str, u64)>,
    },
    /// Reading or validation failed; the events before the error were sent.
    Failed(TraceError),
    /// Stage 2 stopped listening (an analysis failed).
    Abandoned,
}

/// Runs `analyses` over `source` in one pass, reading in a second thread; batches hold
/// `batch_events` events (at least 1). Returns exactly what [`crate::driver::run`] returns.
pub fn run_pipelined<S: EventSource + Send>(
    source: &mut S,
    analyses: Vec<Box<dyn Analysis>>,
    options: RunOptions,
    batch_events: usize,
) -> Result<RunOutcome, TraceError> {
    let batch_events = batch_events.max(1);
    let needs_lock_valid = analyses
        .iter()
        .find(|a| a.needs_lock_valid())
        .map(|a| a.name());
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
                source,
                validator: Validator::new(options.strict),
                needs_lock_valid,
                known: [0; NameKind::ALL.len()],
                batch_events,
            };
            stage.run(&full_tx, &empty_rx)
        });
        let analysed = analyse(analyses, full_rx, empty_tx);
        let read = match reader.join() {
            Ok(read) => read,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        let (analyses, stats) = analysed?;
        match read {
            ReadEnd::Finished {
                names,
                warnings,
                warning_counts,
            } => Ok(finish_run(
                analyses,
                stats,
                *names,
                warnings,
                warning_counts,
            )),
            ReadEnd::Failed(e) => Err(e),
            // Stage 1 stops early only when stage 2 has returned an error.
            ReadEnd::Abandoned => unreachable!("stage 2 returned without an error"),
        }
    })
}

struct ReadStage<'s, S> {
    source: &'s mut S,
    validator: Validator,
    needs_lock_valid: Option<&'static str>,
    /// How many names of each kind stage 2 has been sent.
    known: [usize; NameKind::ALL.len()],
    batch_events: usize,
}

impl<S: EventSource> ReadStage<'_, S> {
    fn run(&mut self, full: &SyncSender<Batch>, empty: &Receiver<Batch>) -> ReadEnd {
        loop {
            let Ok(mut batch) = empty.recv() else {
                return ReadEnd::Abandoned;
            };
            batch.clear();
            match self.fill(&mut batch) {
                Ok(true) => {
                    if full.send(batch).is_err() {
                        return ReadEnd::Abandoned;
                    }
                }
                Ok(false) => {
                    let names = self.source.take_names();
                    let end = match self.validator.finish(&names) {
                        Ok(()) => ReadEnd::Finished {
                            names: Box::new(names),
                            warnings: self.validator.warnings().to_vec(),
                            warning_counts: self.validator.warning_counts().to_vec(),
                        },
                        Err(e) => ReadEnd::Failed(e),
                    };
                    batch.last = true;
                    return match full.send(batch) {
                        Ok(()) => end,
                        Err(_) => ReadEnd::Abandoned,
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

    /// Reads and validates events into `batch` until it is full (`true`) or the trace ends
    /// (`false`); an error leaves the events before it in the batch.
    fn fill(&mut self, batch: &mut Batch) -> Result<bool, TraceError> {
        while batch.len < self.batch_events {
            if !self.source.advance()? {
                return Ok(false);
            }
            let i = batch.len;
            self.note_new_names(batch, i as u32);
            if i == batch.events.len() {
                batch.events.push(Event::new(0, ThreadId(0), Op::End));
            }
            let e = &mut batch.events[i];
            self.source.swap_current(e);
            let pos = self.source.position();
            self.validator.check(e, pos, self.source.names())?;
            if let (Some(name), Some(w)) = (self.needs_lock_valid, self.validator.lock_violation())
            {
                return Err(lock_invalid(name, w));
            }
            batch.positions.push(pos);
            batch.len += 1;
        }
        Ok(true)
    }

    /// Copies the names the reader defined since the last event into the batch, to be interned
    /// before event `at`.
    #[inline]
    fn note_new_names(&mut self, batch: &mut Batch, at: u32) {
        let names = self.source.names();
        for kind in NameKind::ALL {
            let interner = names.of(kind);
            let known = &mut self.known[kind as usize];
            while *known < interner.len() {
                batch.name_text.push_str(interner.name(*known as u32));
                batch.new_names.push(NewName {
                    at,
                    kind,
                    end: batch.name_text.len() as u32,
                });
                *known += 1;
            }
        }
    }
}

type Analysed = (Vec<Box<dyn Analysis>>, TraceStats);

/// Stage 2: counts, orders and analyses the events of each batch, then hands the batch back.
/// Returning drops both channel ends, which stops stage 1 when an analysis fails.
fn analyse(
    mut analyses: Vec<Box<dyn Analysis>>,
    full: Receiver<Batch>,
    empty: SyncSender<Batch>,
) -> Result<Analysed, TraceError> {
    let mut names = Names::default();
    let mut hb = HappensBefore::new();
    let mut stats = TraceStats::default();
    // Without a last batch stage 1 has panicked; joining it passes the panic on.
    while let Ok(batch) = full.recv() {
        let mut next_name = 0;
        let mut name_start = 0;
        let mut next_name_at = batch.new_names.first().map_or(u32::MAX, |n| n.at);
        for (i, (e, &pos)) in batch.events[..batch.len]
            .iter()
            .zip(&batch.positions)
            .enumerate()
        {
            if i as u32 == next_name_at {
                while let Some(n) = batch.new_names.get(next_name).filter(|n| n.at == i as u32) {
                    let text = &batch.name_text[name_start..n.end as usize];
                    let interner = names.of_mut(n.kind);
                    let _id = interner.intern(text.as_bytes());
                    debug_assert_eq!(_id, Ok(interner.len() as u32 - 1), "names arrive once");
                    name_start = n.end as usize;
                    next_name += 1;
                }
                next_name_at = batch.new_names.get(next_name).map_or(u32::MAX, |n| n.at);
            }
            stats.count(&e.op);
            hb.before(e);
            for a in analyses.iter_mut() {
                a.on_event(e, &hb, &names)
                    .map_err(|kind| TraceError::new(pos, kind))?;
            }
            hb.after(e);
        }
        let last = batch.last;
        // Stage 1 may have ended already; the batch is then simply dropped.
        let _ = empty.send(batch);
        if last {
            break;
        }
    }
    Ok((analyses, stats))
}
