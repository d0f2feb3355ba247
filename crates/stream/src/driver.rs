//! One streaming pass: validate each event, advance happens-before, hand the event to every
//! analysis of the chain.

use crate::pipeline::{observe_pipelined_within, BatchCursor, BatchError};
use hindsight_budget::{Account, Budget, Meter, Spent};
use hindsight_order::HappensBefore;
use hindsight_report::{Finding, Rule};
use hindsight_syntax::{Diagnostic, Severity};
use hindsight_trace::{
    AnyReader, CallRef, ErrorKind, Event, EventSource, LockHandling, LockRecordCounts, LockRecords,
    LockRepair, Names, Op, Position, TraceError, Validator, Warning,
};
use serde_json::{Map, Value};
use std::cell::{Cell, Ref, RefCell};
use std::time::Instant;

/// What the streaming pass hands events to. `on_event` sees events in trace order, each with
/// the happens-before state positioned at it (`hb.clock(e.thread)` is the event's vector
/// clock). An observer's product is its own: an [`Analysis`] finishes into findings, while
/// (say) a poset builder is taken back by its owner after the pass ([`observe`] borrows its
/// observers, so nothing needs to be passed out through shared cells).
pub trait Observer {
    /// The analysis' name on the command line, e.g. `races`.
    fn name(&self) -> &'static str;

    /// Whether the theory behind the analysis needs lock-valid traces (no lock acquired while
    /// another thread holds it). Such analyses refuse out-of-order lock logs with an error
    /// instead of giving an answer the theory does not support.
    fn needs_lock_valid(&self) -> bool {
        false
    }

    /// Whether the observer wants lock records in the order they were logged, late releases
    /// included, rather than repaired ([`hindsight_trace::LockRepair`]): for a model that
    /// takes no lock order from the log (the loset of `reach` considers every lock schedule),
    /// where the repair would change nothing but the events' numbering.
    fn keeps_lock_order(&self) -> bool {
        false
    }

    /// An estimate of the bytes the observer holds that grow with the trace (per-variable
    /// state, groups of findings, findings not yet handed over), in constant time: a pass
    /// run within a budget ([`observe_any_within`]) asks every [`hindsight_budget::CHECK_EVERY`]
    /// events and charges the observers' total to the budget's memory limit. The default,
    /// 0, is for observers whose state does not grow (or is accounted otherwise).
    fn held_bytes(&self) -> u64 {
        0
    }

    /// Whether the observer still reads the pass's happens-before (the `hb` that `on_event`
    /// and `on_call` get). Asked between batches of events: once no observer of a pass reads
    /// it, the pass stops advancing it and frees its clocks (a clock per thread: with a thread
    /// per request, most of a pass's memory), and from then on hands out an empty one. An
    /// observer that answers no must never read `hb` again. The default: it does read it.
    fn reads_happens_before(&self) -> bool {
        true
    }

    /// The deadline of the pass's budget, told before the first event: for an observer whose
    /// single event may take long (a check against every thread's accesses), to stop its
    /// work on that event once the deadline has passed, leaving that event unreported; the
    /// pass sees the spent budget at its next poll. The default ignores it.
    fn set_deadline(&mut self, _deadline: Option<Instant>) {}

    /// Sees one event. An error (e.g. a call of a method the analysis' spec does not declare)
    /// stops the run; the driver adds the event's position.
    fn on_event(&mut self, e: &Event, hb: &HappensBefore, names: &Names) -> Result<(), ErrorKind>;

    /// Sees a call event of the pipelined driver, which keeps calls apart from their events
    /// (see [`LentCall`]). The default hands the whole event to `on_event`; an analysis that
    /// reads calls on its hot path reads the parts instead, and must answer exactly as
    /// `on_event` would for the whole event.
    fn on_call(
        &mut self,
        call: &LentCall<'_>,
        hb: &HappensBefore,
        names: &Names,
    ) -> Result<(), ErrorKind> {
        self.on_event(&call.whole(), hb, names)
    }

    /// Sees a batch of the pipelined driver when this observer runs alone. Not meant to be
    /// overridden: the default, compiled for each observer, walks the batch calling its own
    /// `on_event` and `on_call` directly, which spares one dynamic call per event and lets
    /// them be inlined into the walk.
    fn on_batch(&mut self, batch: &mut BatchCursor<'_, '_>) -> Result<(), BatchError> {
        batch.run(self)
    }

    /// Findings whose every detail is known, handed over as a job that builds them, to be
    /// run on the pipelined driver's reading thread while the pass goes on (stage 1 has time
    /// to spare, and a finding costs as much as thousands of events). Asked after each batch;
    /// the findings a job builds come before those of later jobs and of `finish`. The default
    /// hands over nothing.
    fn findings_job(&mut self) -> Option<FindingsJob> {
        None
    }
}

/// An observer whose product is findings: what the trace commands run, several at once under
/// `hindsight check`.
pub trait Analysis: Observer {
    /// Turns what was gathered into findings, with names resolved: all but those handed over
    /// by `findings_job`, and a summary of everything.
    fn finish(self: Box<Self>, names: &Names) -> AnalysisOutput;
}

/// Where a pass sends the findings its observers' jobs build ([`Observer::findings_job`]), as
/// they are built, rather than keeping them for the observers' outputs: so that findings can
/// be written out during the pass and none are held until its end.
pub trait FindingSink: Send {
    /// Findings of observer `k` (its place in the chain), in the order they were found.
    fn findings(&mut self, k: usize, findings: Vec<Finding>);
}

/// How many events the one-thread pass sees between two rounds of findings jobs, when it has
/// a sink: as many as the pipeline's batches.
const EVENTS_PER_JOB_ROUND: u64 = crate::pipeline::BATCH_EVENTS as u64;

/// Builds findings; the names it gets name at least everything the findings refer to.
pub type FindingsJob = Box<dyn FnOnce(&Names) -> Vec<Finding> + Send>;

/// A call event whose call is kept apart from the event: the pipelined driver keeps calls'
/// values in flat arrays, and building a [`Call`](hindsight_trace::Call) of them for every
/// call would copy every value again, on the busier stage, for analyses that mostly read only
/// the parts. An analysis reads the parts, or asks for the whole event, which is then built
/// once for all the analyses that ask.
pub struct LentCall<'a> {
    /// The event's index, thread and location; its operation is a stand-in, not the call.
    pub at: &'a Event,
    pub call: CallRef<'a>,
    /// Where the whole event is built, and whether it has been for this call.
    whole: &'a RefCell<Event>,
    built: Cell<bool>,
}

impl<'a> LentCall<'a> {
    /// `call` at the index, thread and location of `at`; `whole` is scratch space holding an
    /// `Op::Call`, whose box and vectors are reused from call to call.
    pub(crate) fn new(at: &'a Event, call: CallRef<'a>, whole: &'a RefCell<Event>) -> Self {
        LentCall {
            at,
            call,
            whole,
            built: Cell::new(false),
        }
    }

    /// The whole call event.
    pub fn whole(&self) -> Ref<'a, Event> {
        if !self.built.replace(true) {
            let mut e = self.whole.borrow_mut();
            e.index = self.at.index;
            e.thread = self.at.thread;
            e.loc = self.at.loc;
            let c = &self.call;
            match &mut e.op {
                Op::Call(whole) => {
                    whole.object = c.object;
                    whole.method = c.method;
                    whole.args.clear();
                    whole.args.extend_from_slice(c.args);
                    whole.results.clear();
                    whole.results.extend_from_slice(c.results);
                }
                op => *op = Op::Call(Box::new(c.to_owned())),
            }
        }
        self.whole.borrow()
    }
}

/// The findings and summary of one analysis.
#[derive(Debug, Default)]
pub struct AnalysisOutput {
    pub findings: Vec<Finding>,
    pub summary: Map<String, Value>,
    pub rules: Vec<Rule>,
    /// What the analysis has to say about inputs it accepted: about the trace (`input` unset;
    /// the report names the trace), or about an input of its own such as a spec file.
    pub warnings: Vec<Diagnostic>,
    /// The analysis stopped a search of its own undecided (its budget ran out).
    pub unknown: bool,
}

/// A warning of an analysis about the trace it accepted, at `position` (the report names the
/// trace).
pub fn trace_warning(position: Position, message: String) -> Diagnostic {
    Diagnostic {
        input: None,
        position,
        severity: Severity::Warning,
        message,
    }
}

/// Counts that describe a trace, for reports and `hindsight stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceStats {
    pub events: u64,
    pub threads: usize,
    pub variables: usize,
    pub locks: usize,
    pub messages: usize,
    pub objects: usize,
    pub reads: u64,
    pub writes: u64,
    pub acquires: u64,
    pub releases: u64,
    pub requests: u64,
    pub forks: u64,
    pub joins: u64,
    pub begins: u64,
    pub ends: u64,
    pub sends: u64,
    pub receives: u64,
    pub calls: u64,
    pub atomic_loads: u64,
    pub atomic_stores: u64,
    pub atomic_rmws: u64,
    /// What the pass did to lock records ([`LockRepair`]). The counts of operations above
    /// are the log's: a tolerated record counts as the acquire or release it was logged as.
    pub lock_records: LockRecordCounts,
}

/// Events counted by operation kind ([`Op::kind`]), to be turned into [`TraceStats`] at the
/// end of a pass.
pub(crate) type OpCounts = [u64; hindsight_trace::event::OP_NAMES.len()];

impl TraceStats {
    /// The counts of `by_op`, the names not yet counted.
    fn from_op_counts(by_op: &OpCounts) -> TraceStats {
        let [reads, writes, acquires, releases, requests, forks, joins, begins, ends, sends, receives, calls, atomic_loads, atomic_stores, atomic_rmws] =
            *by_op;
        TraceStats {
            events: by_op.iter().sum(),
            reads,
            writes,
            acquires,
            releases,
            requests,
            forks,
            joins,
            begins,
            ends,
            sends,
            receives,
            calls,
            atomic_loads,
            atomic_stores,
            atomic_rmws,
            ..TraceStats::default()
        }
    }

    /// Notes what the pass did to lock records, counting tolerated records (handed to the
    /// analyses as requests) as what they were logged as.
    pub(crate) fn note_lock_records(&mut self, counts: LockRecordCounts) {
        self.lock_records = counts;
        self.acquires += counts.tolerated_acquires;
        self.releases += counts.tolerated_releases;
        self.requests -= counts.tolerated();
    }

    /// The counts as a JSON object, in a fixed order. The lock records repaired and tolerated
    /// are each report's summary's to say ([`crate::reports::analyse_trace_within`]): they
    /// tell how the analyses read the trace, not what it holds.
    pub fn to_json(&self) -> Map<String, Value> {
        let mut m = Map::new();
        let mut put = |k: &str, v: u64| {
            m.insert(k.to_owned(), Value::from(v));
        };
        put("events", self.events);
        put("threads", self.threads as u64);
        put("variables", self.variables as u64);
        put("locks", self.locks as u64);
        put("messages", self.messages as u64);
        put("objects", self.objects as u64);
        for (k, v) in [
            ("reads", self.reads),
            ("writes", self.writes),
            ("acquires", self.acquires),
            ("releases", self.releases),
            ("requests", self.requests),
            ("forks", self.forks),
            ("joins", self.joins),
            ("begins", self.begins),
            ("ends", self.ends),
            ("sends", self.sends),
            ("receives", self.receives),
            ("calls", self.calls),
            ("atomic_loads", self.atomic_loads),
            ("atomic_stores", self.atomic_stores),
            ("atomic_rmws", self.atomic_rmws),
        ] {
            if v > 0 {
                put(k, v);
            }
        }
        m
    }
}

/// How a pass runs. `Default` is a sequential, non-strict pass: a library caller gets no
/// second thread unless it asks for one; the CLI asks when there is a second core
/// ([`crate::pipeline::worthwhile`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// Every warning is an error.
    pub strict: bool,
    /// How lock records are read: repaired and tolerated (the default), or as logged.
    pub lock_records: LockRecords,
    /// [`run_any`] reads and validates in a second thread while this one runs happens-before
    /// and the analyses ([`crate::pipeline`]); the outcome is the same either way.
    pub pipeline: bool,
}

/// What a pass over a whole trace produced, besides what its observers gathered.
pub struct Pass {
    pub stats: TraceStats,
    pub warnings: Vec<Warning>,
    pub warning_counts: Vec<(&'static str, u64)>,
    pub names: Names,
    /// Per observer, the findings its jobs built during the pass ([`Observer::findings_job`]).
    pub built: Vec<Vec<Finding>>,
    /// The pass was run within a budget that ran out: it stopped after this many events,
    /// and the observers saw only those.
    pub stopped: Option<Stopped>,
}

/// Where a pass within a budget stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped {
    pub spent: Spent,
    /// The events every observer saw.
    pub events: u64,
}

/// Where a pass stopped whose input sent nothing more before the deadline of `budget`
/// ([`hindsight_budget::ReadUntil`]), after `events` events.
pub(crate) fn timed_out(budget: Option<&Budget>, events: u64) -> Stopped {
    Stopped {
        // The input's deadline is the budget's: checking records the timeout for the report.
        spent: budget.and_then(|b| b.check().err()).unwrap_or(Spent::Time),
        events,
    }
}

/// Tells every observer the deadline of `budget`, if there is one.
pub(crate) fn tell_deadline(observers: &mut [&mut dyn Observer], budget: Option<&Budget>) {
    if let Some(deadline) = budget.and_then(Budget::deadline) {
        for o in observers.iter_mut() {
            o.set_deadline(Some(deadline));
        }
    }
}

/// The budget of a pass ([`observe_any_within`]): its clock is polled and the observers'
/// memory charged every [`hindsight_budget::CHECK_EVERY`] events.
pub(crate) struct PassBudget<'b> {
    pub(crate) meter: Meter<'b>,
    account: Account<'b>,
    pub(crate) events: u64,
    /// What the reader holds besides its names ([`EventSource::held_besides_names`]).
    reader: (u64, u64),
}

impl<'b> PassBudget<'b> {
    pub(crate) fn new(budget: &'b Budget, reader: (u64, u64)) -> PassBudget<'b> {
        PassBudget {
            meter: Meter::new(budget),
            account: Account::new(budget),
            events: 0,
            reader,
        }
    }

    /// One more event was seen, the reader holding `names`: the limit reached, if it was.
    #[inline]
    pub(crate) fn seen(
        &mut self,
        observers: &[&mut dyn Observer],
        names: &Names,
    ) -> Result<(), Spent> {
        self.events += 1;
        self.meter.step()?;
        if !self.meter.polled() {
            return Ok(());
        }
        let (copies, bytes) = self.reader;
        self.account
            .hold(held_bytes(observers, names, 1 + copies) + bytes)
    }

    /// The pipelined pass saw `events` more, the meter stepped at each of them (and `spent`
    /// the limit that stopped the batch, if one did): the limit reached, if it was.
    pub(crate) fn seen_batch(
        &mut self,
        events: u64,
        spent: Option<Spent>,
        observers: &[&mut dyn Observer],
        names: &Names,
    ) -> Result<(), Spent> {
        self.events += events;
        if let Some(spent) = spent {
            return Err(spent);
        }
        self.meter.poll()?;
        // The reader's names and stage 2's replica of them, and what the reader holds besides.
        let (copies, bytes) = self.reader;
        self.account
            .hold(held_bytes(observers, names, 2 + copies) + bytes)
    }
}

/// What a pass holds that grows with the trace: its observers' tables, and `copies` of the
/// names read (a million variables are a million names).
fn held_bytes(observers: &[&mut dyn Observer], names: &Names, copies: u64) -> u64 {
    observers.iter().map(|o| o.held_bytes()).sum::<u64>() + copies * names.held_bytes()
}

impl Pass {
    /// Finishes `analyses`, the observers of this pass, into their outputs.
    pub fn finish(mut self, analyses: Vec<Box<dyn Analysis>>) -> RunOutcome {
        let mut built = std::mem::take(&mut self.built).into_iter();
        let outputs = analyses
            .into_iter()
            .map(|a| {
                let name = a.name();
                let mut out = a.finish(&self.names);
                if let Some(mut findings) = built.next() {
                    findings.append(&mut out.findings);
                    out.findings = findings;
                }
                (name, out)
            })
            .collect();
        RunOutcome {
            outputs,
            stats: self.stats,
            warnings: self.warnings,
            warning_counts: self.warning_counts,
            names: self.names,
        }
    }
}

/// What a pass of analyses produced: one output per analysis, in the order given, plus facts
/// about the trace.
pub struct RunOutcome {
    pub outputs: Vec<(&'static str, AnalysisOutput)>,
    pub stats: TraceStats,
    pub warnings: Vec<Warning>,
    pub warning_counts: Vec<(&'static str, u64)>,
    pub names: Names,
}

/// [`observe`] over a file opened with `hindsight_trace::open`, dispatching on the format once
/// rather than at every event; pipelined over two threads when `options.pipeline` is set.
pub fn observe_any(
    source: &mut AnyReader,
    observers: &mut [&mut dyn Observer],
    options: RunOptions,
) -> Result<Pass, TraceError> {
    observe_any_to(source, observers, options, None)
}

/// [`observe_any`], sending the findings the observers' jobs build to `sink`, if any, as they
/// are built.
pub fn observe_any_to(
    source: &mut AnyReader,
    observers: &mut [&mut dyn Observer],
    options: RunOptions,
    sink: Option<&mut dyn FindingSink>,
) -> Result<Pass, TraceError> {
    observe_any_within(source, observers, options, sink, None)
}

/// [`observe_any_to`] within `budget`, if any: its clock is polled and what the observers hold
/// ([`Observer::held_bytes`]) charged to its memory limit every so many events; once it is
/// spent the pass stops reading, and [`Pass::stopped`] says after how many events (the
/// observers saw those, and finish with what they gathered; the trace's end is not checked).
pub fn observe_any_within(
    source: &mut AnyReader,
    observers: &mut [&mut dyn Observer],
    options: RunOptions,
    sink: Option<&mut dyn FindingSink>,
    budget: Option<&Budget>,
) -> Result<Pass, TraceError> {
    if options.pipeline {
        let b = crate::pipeline::BATCH_EVENTS;
        return match source {
            AnyReader::Text(r) => observe_pipelined_within(r, observers, options, b, sink, budget),
            AnyReader::Binary(r) => {
                observe_pipelined_within(r, observers, options, b, sink, budget)
            }
            AnyReader::RoadRunner(r) => {
                observe_pipelined_within(r, observers, options, b, sink, budget)
            }
            AnyReader::RapidBin(r) => {
                observe_pipelined_within(r, observers, options, b, sink, budget)
            }
            AnyReader::Chunked(r) => {
                observe_pipelined_within(&mut **r, observers, options, b, sink, budget)
            }
        };
    }
    match source {
        AnyReader::Text(r) => observe_within(r, observers, options, sink, budget),
        AnyReader::Binary(r) => observe_within(r, observers, options, sink, budget),
        AnyReader::RoadRunner(r) => observe_within(r, observers, options, sink, budget),
        AnyReader::RapidBin(r) => observe_within(r, observers, options, sink, budget),
        AnyReader::Chunked(r) => observe_within(&mut **r, observers, options, sink, budget),
    }
}

/// Runs `analyses` over a file opened with `hindsight_trace::open` ([`observe_any`]) and
/// finishes them.
pub fn run_any(
    source: &mut AnyReader,
    mut analyses: Vec<Box<dyn Analysis>>,
    options: RunOptions,
) -> Result<RunOutcome, TraceError> {
    let pass = observe_any(source, &mut observers(&mut analyses), options)?;
    Ok(pass.finish(analyses))
}

/// Runs `analyses` over `source` in one pass ([`observe`]) and finishes them.
pub fn run<S: EventSource>(
    source: &mut S,
    mut analyses: Vec<Box<dyn Analysis>>,
    options: RunOptions,
) -> Result<RunOutcome, TraceError> {
    let pass = observe(source, &mut observers(&mut analyses), options)?;
    Ok(pass.finish(analyses))
}

/// The analyses, lent as the observers of a pass.
pub(crate) fn observers(analyses: &mut [Box<dyn Analysis>]) -> Vec<&mut dyn Observer> {
    analyses
        .iter_mut()
        .map(|a| &mut **a as &mut dyn Observer)
        .collect()
}

/// Hands every event of `source` to `observers`, in one pass and one thread. Errors carry the
/// position of the offending event.
pub fn observe<S: EventSource>(
    source: &mut S,
    observers: &mut [&mut dyn Observer],
    options: RunOptions,
) -> Result<Pass, TraceError> {
    observe_to(source, observers, options, None)
}

/// [`observe`], sending the findings the observers' jobs build to `sink`, if any: the jobs are
/// asked for every so many events, as the pipelined pass asks after each batch.
pub fn observe_to<S: EventSource>(
    source: &mut S,
    observers: &mut [&mut dyn Observer],
    options: RunOptions,
    sink: Option<&mut dyn FindingSink>,
) -> Result<Pass, TraceError> {
    observe_within(source, observers, options, sink, None)
}

/// [`observe_to`] within `budget`, if any (see [`observe_any_within`]).
pub fn observe_within<S: EventSource>(
    source: &mut S,
    observers: &mut [&mut dyn Observer],
    options: RunOptions,
    mut sink: Option<&mut dyn FindingSink>,
    budget: Option<&Budget>,
) -> Result<Pass, TraceError> {
    let reader = source.held_besides_names();
    let mut within = budget.map(|b| PassBudget::new(b, reader));
    tell_deadline(observers, budget);
    let mut stopped = None;
    let needs_lock_valid = observers
        .iter()
        .find(|a| a.needs_lock_valid())
        .map(|a| a.name());
    let mut validator = Validator::new(options.strict);
    let mut hb = HappensBefore::new();
    let mut hb_read = true;
    let mut since_asked = 0;
    let mut by_op = OpCounts::default();
    let mut source = LockRepair::with(source, lock_handling(observers, options));
    loop {
        let more = match source.advance() {
            Ok(more) => more,
            // Only a reader given a deadline times out: the command's, which an analysis that
            // keeps its own account of the budget (views) polls itself.
            Err(e) if e.kind == ErrorKind::InputTimedOut => {
                stopped = Some(timed_out(budget, by_op.iter().sum()));
                break;
            }
            Err(e) => return Err(e),
        };
        if !more {
            break;
        }
        if source.has_repairs() {
            for w in source.take_repairs() {
                validator.warn(w.pos, w.kind)?;
            }
        }
        let e = source.current();
        let pos = source.position();
        validator.check(e, pos, source.names())?;
        if let (Some(name), Some(w)) = (needs_lock_valid, validator.lock_violation()) {
            return Err(lock_invalid(name, w));
        }
        by_op[e.op.kind()] += 1;
        if hb_read {
            hb.before(e);
        }
        for a in observers.iter_mut() {
            a.on_event(e, &hb, source.names())
                .map_err(|kind| TraceError::new(pos, kind))?;
        }
        if hb_read {
            hb.after(e);
            since_asked += 1;
            if since_asked == EVENTS_PER_JOB_ROUND {
                since_asked = 0;
                hb_read = still_read(observers, &mut hb);
            }
        }
        if let Some(sink) = sink.as_deref_mut() {
            if e.index % EVENTS_PER_JOB_ROUND == EVENTS_PER_JOB_ROUND - 1 {
                run_jobs(observers, source.names(), sink);
            }
        }
        if let Some(w) = within.as_mut() {
            if let Err(spent) = w.seen(observers, source.names()) {
                stopped = Some(Stopped {
                    spent,
                    events: w.events,
                });
                break;
            }
        }
    }
    if let Some(sink) = sink {
        run_jobs(observers, source.names(), sink);
    }
    let names = source.take_names();
    if stopped.is_none() {
        validator.finish(&names)?;
    }
    let mut pass = finish_pass(
        &by_op,
        names,
        Vec::new(),
        validator.warnings().to_vec(),
        validator.warning_counts().to_vec(),
    );
    pass.stats.note_lock_records(source.counts());
    pass.stopped = stopped;
    Ok(pass)
}

/// Whether some observer still reads the pass's happens-before; if none does, `hb` is freed
/// (see [`Observer::reads_happens_before`]).
pub(crate) fn still_read(observers: &[&mut dyn Observer], hb: &mut HappensBefore) -> bool {
    let read = observers.iter().any(|a| a.reads_happens_before());
    if !read {
        *hb = HappensBefore::new();
    }
    read
}

/// What a pass does with lock records ([`LockRecords::handling`]): nothing under `--strict`
/// (which makes every oddity an error) or when an observer keeps the logged lock order.
pub(crate) fn lock_handling(observers: &[&mut dyn Observer], options: RunOptions) -> LockHandling {
    options.lock_records.handling(
        options.strict,
        observers.iter().any(|a| a.keeps_lock_order()),
        observers.iter().any(|a| a.needs_lock_valid()),
    )
}

/// Builds the findings every observer hands over, into `sink`.
fn run_jobs(observers: &mut [&mut dyn Observer], names: &Names, sink: &mut dyn FindingSink) {
    for (k, a) in observers.iter_mut().enumerate() {
        if let Some(job) = a.findings_job() {
            sink.findings(k, job(names));
        }
    }
}

/// The pass whose every event has been seen and validated.
pub(crate) fn finish_pass(
    by_op: &OpCounts,
    names: Names,
    built: Vec<Vec<Finding>>,
    warnings: Vec<Warning>,
    warning_counts: Vec<(&'static str, u64)>,
) -> Pass {
    let mut stats = TraceStats::from_op_counts(by_op);
    stats.threads = names.threads.len();
    stats.variables = names.vars.len();
    stats.locks = names.locks.len();
    stats.messages = names.msgs.len();
    stats.objects = names.objects.len();
    Pass {
        stats,
        warnings,
        warning_counts,
        names,
        built,
        stopped: None,
    }
}

pub(crate) fn lock_invalid(analysis: &str, w: &Warning) -> TraceError {
    TraceError::new(
        w.pos,
        ErrorKind::Unsupported(format!("`{analysis}` needs a lock-valid trace: {}", w.kind)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use hindsight_trace::Position;
    use hindsight_trace::TextReader;

    /// Counts events; declares that its theory needs lock-valid traces.
    struct NeedsLocks(u64);

    impl Observer for NeedsLocks {
        fn name(&self) -> &'static str {
            "needs-locks"
        }
        fn needs_lock_valid(&self) -> bool {
            true
        }
        fn on_event(&mut self, _: &Event, _: &HappensBefore, _: &Names) -> Result<(), ErrorKind> {
            self.0 += 1;
            Ok(())
        }
    }

    impl Analysis for NeedsLocks {
        fn finish(self: Box<Self>, _: &Names) -> AnalysisOutput {
            let mut out = AnalysisOutput::default();
            out.summary.insert("seen".into(), Value::from(self.0));
            out
        }
    }

    /// T0 never gives `L` back: no order of these records is lock-valid.
    const OUT_OF_ORDER: &str = "T0|fork(T2)\nT0|acq(L)\nT2|acq(L)\nT2|rel(L)\n";

    /// T0's release is logged after T2's acquire: the pass repairs it.
    const LATE_RELEASE: &str = "T0|fork(T2)\nT0|acq(L)\nT2|acq(L)\nT0|rel(L)\nT2|rel(L)\n";

    #[test]
    fn lock_invalid_traces_are_tolerated_for_every_analysis() {
        for pipeline in [false, true] {
            let mut r = TextReader::new(OUT_OF_ORDER.as_bytes());
            let options = RunOptions {
                pipeline,
                ..RunOptions::default()
            };
            let out = if pipeline {
                crate::pipeline::run_pipelined(&mut r, vec![Box::new(NeedsLocks(0))], options, 2)
            } else {
                run(&mut r, vec![Box::new(NeedsLocks(0))], options)
            }
            .expect("tolerated");
            assert_eq!(out.outputs[0].1.summary["seen"], 4);
            assert_eq!(out.warning_counts, [("unprotected-section", 1)]);
            // T2's section is read as requests.
            // Counted as logged, and as tolerated.
            assert_eq!((out.stats.acquires, out.stats.requests), (2, 0));
            assert_eq!(out.stats.lock_records.tolerated(), 2);
        }
    }

    #[test]
    fn as_logged_they_are_read_literally_unless_an_analysis_needs_lock_validity() {
        let as_logged = RunOptions {
            lock_records: LockRecords::AsLogged,
            ..RunOptions::default()
        };
        let mut r = TextReader::new(OUT_OF_ORDER.as_bytes());
        let out = run(&mut r, Vec::new(), as_logged).expect("accepted");
        assert_eq!(out.warning_counts, [("acquire-held-lock", 1)]);
        assert_eq!(
            (out.stats.acquires, out.stats.lock_records.tolerated()),
            (2, 0)
        );
        let mut r = TextReader::new(OUT_OF_ORDER.as_bytes());
        let out = run(&mut r, vec![Box::new(NeedsLocks(0))], as_logged).expect("tolerated");
        assert_eq!(out.warning_counts, [("unprotected-section", 1)]);
    }

    #[test]
    fn under_strict_they_are_an_error() {
        let mut r = TextReader::new(OUT_OF_ORDER.as_bytes());
        let strict = RunOptions {
            strict: true,
            ..RunOptions::default()
        };
        let err = run(&mut r, vec![Box::new(NeedsLocks(0))], strict)
            .err()
            .expect("refused");
        assert_eq!(err.pos, Position::Line(3));
    }

    #[test]
    fn late_releases_are_repaired_for_analyses_that_need_lock_valid_traces() {
        for pipeline in [false, true] {
            let mut r = TextReader::new(LATE_RELEASE.as_bytes());
            let options = RunOptions {
                strict: false,
                pipeline,
                lock_records: Default::default(),
            };
            let out = if pipeline {
                crate::pipeline::run_pipelined(&mut r, vec![Box::new(NeedsLocks(0))], options, 2)
            } else {
                run(&mut r, vec![Box::new(NeedsLocks(0))], options)
            }
            .expect("repaired");
            assert_eq!(out.outputs[0].1.summary["seen"], 5);
            assert_eq!(out.warning_counts, [("late-release", 1)]);
            assert_eq!(out.warnings[0].pos, Position::Line(3));
        }
        let mut r = TextReader::new(LATE_RELEASE.as_bytes());
        let strict = RunOptions {
            strict: true,
            pipeline: false,
            lock_records: Default::default(),
        };
        let err = run(&mut r, vec![Box::new(NeedsLocks(0))], strict)
            .err()
            .expect("an error under --strict");
        assert_eq!(err.pos, Position::Line(3));
    }

    #[test]
    fn lock_valid_traces_reach_the_analysis() {
        let mut r = TextReader::new("T0|acq(L)\nT0|acq(L)\nT0|rel(L)\nT0|rel(L)\n".as_bytes());
        let out = run(&mut r, vec![Box::new(NeedsLocks(0))], RunOptions::default()).expect("valid");
        assert_eq!(out.outputs[0].1.summary["seen"], 4);
        assert!(out.warnings.is_empty());
    }
}
