//! The events around findings, for pictures ([`hindsight_report::Timeline`]): a second pass over
//! a trace already analysed, which keeps for each finding drawn a bounded window of the events
//! of the threads it involves — a few before its first event, the first and last few between
//! its events, a few after its last — with the locks held at each, the happens-before edges
//! between them and the clocks that say which edges order the finding's pair.
//!
//! The pass streams: what it keeps is a ring of the last few events of each thread and the
//! windows themselves, never the trace, so its memory does not grow with the trace's length.
//! It needs the trace a second time, so standard input (read once) gets no windows.

use crate::driver::{observe, observe_any, Observer, Pass, RunOptions};
use hindsight_order::HappensBefore;
use hindsight_report::{EventRef, Report, Timeline, TimelineEdge, TimelineEvent};
use hindsight_syntax::Diagnostic;
use hindsight_trace::{
    AnyReader, ErrorKind, Event, EventSource, LocId, LockId, Names, Op, ThreadId, TraceError,
};
use std::collections::{BTreeMap, VecDeque};

/// How much a picture of each report shows.
#[derive(Clone, Copy, Debug)]
pub struct TimelineOptions {
    /// The most findings of one report drawn (the first ones: grouped findings come most
    /// occurrences first).
    pub findings: usize,
    /// Events per thread kept before a finding's first event, after its last, and at each end
    /// of the stretch between them.
    pub context: usize,
    /// Number the events as logged, late releases included, not repaired: as the analysis
    /// whose findings are drawn did ([`Observer::keeps_lock_order`]).
    pub keep_lock_order: bool,
}

impl Default for TimelineOptions {
    fn default() -> Self {
        TimelineOptions {
            findings: 50,
            context: 6,
            keep_lock_order: false,
        }
    }
}

/// Reads the trace `reader` reads (the one `reports` were made of, named `input`) again and
/// gives the first findings of each report their timelines; says in the reports' figures
/// what was left undrawn.
pub fn draw_timelines(
    reader: &mut AnyReader,
    input: &str,
    reports: &mut [Report],
    options: TimelineOptions,
) -> Result<(), Diagnostic> {
    draw_with(reports, options, |observers| {
        observe_any(reader, observers, RunOptions::default())
    })
    .map_err(|e| Diagnostic::error(input, e.pos, e.kind.to_string()))
}

/// What the page says of reports whose trace came from standard input: it was read once, so
/// each finding is drawn with its own events only.
pub fn note_trace_read_once(reports: &mut [Report]) {
    for r in reports.iter_mut().filter(|r| !r.findings.is_empty()) {
        r.figures.notes.push(
            "the trace came from standard input, which is read once: each finding is drawn with its own events only (give a file for the events around it)".to_owned(),
        );
    }
}

/// [`draw_timelines`] over any source of events.
pub fn draw_timelines_from<S: EventSource>(
    source: &mut S,
    reports: &mut [Report],
    options: TimelineOptions,
) -> Result<(), TraceError> {
    draw_with(reports, options, |observers| {
        observe(source, observers, RunOptions::default())
    })
}

fn draw_with(
    reports: &mut [Report],
    options: TimelineOptions,
    pass: impl FnOnce(&mut [&mut dyn Observer]) -> Result<Pass, TraceError>,
) -> Result<(), TraceError> {
    let mut collector = Collector::new(reports, options);
    if collector.windows.is_empty() {
        return Ok(());
    }
    let names = pass(&mut [&mut collector])?.names;
    for w in std::mem::take(&mut collector.windows) {
        let (k, i) = (w.report, w.finding);
        let timeline = w.into_timeline(&names);
        reports[k].figures.timelines.push((i, timeline));
    }
    for r in reports.iter_mut() {
        let drawn = r.findings.len().min(options.findings);
        if drawn < r.findings.len() {
            r.figures.notes.push(format!(
                "timelines are drawn for the first {drawn} of {} findings",
                r.findings.len()
            ));
        }
    }
    Ok(())
}

/// What makes a happens-before edge into an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EdgeKind {
    Lock(LockId),
    Fork,
    Join,
}

/// One event as a window keeps it, its names resolved only when the window is drawn.
#[derive(Clone, Debug)]
struct Kept {
    index: u64,
    thread: ThreadId,
    /// The event's place among its thread's events.
    seq: u64,
    op: Op,
    loc: Option<LocId>,
    held: Vec<LockId>,
    /// The event's vector clock, dense.
    clock: Vec<u32>,
    /// The event an edge of happens-before comes from, and what makes it.
    edge_from: Option<(u64, EdgeKind)>,
}

impl Kept {
    /// Whether this event happens before (or is) `other`.
    fn before(&self, other: &Kept) -> bool {
        // A thread's clock advances only at its releases and forks: its events between two of
        // them share a component, which orders them only against other threads.
        if self.thread == other.thread {
            return self.seq <= other.seq;
        }
        let own = self.clock.get(self.thread.index()).copied().unwrap_or(0);
        other.clock.get(self.thread.index()).copied().unwrap_or(0) >= own
    }
}

struct ThreadState {
    /// Events seen so far.
    seq: u64,
    held: Vec<LockId>,
    /// The last few events, oldest first.
    ring: VecDeque<Kept>,
    /// The windows with a lane for this thread.
    windows: Vec<usize>,
    /// The fork that started the thread, until its first event.
    forked_by: Option<u64>,
    last_index: Option<u64>,
}

struct Window {
    report: usize,
    finding: usize,
    lanes: Vec<String>,
    /// The finding's event indices, sorted.
    marks: Vec<u64>,
    /// Per lane: events kept after the first mark, and after the last.
    between: Vec<usize>,
    after: Vec<usize>,
    kept: BTreeMap<u64, Kept>,
}

impl Window {
    fn first(&self) -> u64 {
        self.marks[0]
    }
    fn last(&self) -> u64 {
        self.marks[self.marks.len() - 1]
    }

    fn into_timeline(self, names: &Names) -> Timeline {
        let lane_of = |t: ThreadId| {
            let name = names.thread(t);
            self.lanes.iter().position(|l| l == name).unwrap_or(0)
        };
        let events: Vec<&Kept> = self.kept.values().collect();
        let position: BTreeMap<u64, usize> = events
            .iter()
            .enumerate()
            .map(|(i, k)| (k.index, i))
            .collect();
        let first = self.kept.get(&self.first());
        let last = self.kept.get(&self.last());
        let mut previous_seq: Vec<Option<u64>> = vec![None; self.lanes.len()];
        let mut drawn = Vec::with_capacity(events.len());
        let mut edges = Vec::new();
        for (i, k) in events.iter().enumerate() {
            let lane = lane_of(k.thread);
            let skipped_before = match previous_seq[lane] {
                Some(p) => k.seq - p - 1,
                None => k.seq,
            };
            previous_seq[lane] = Some(k.seq);
            drawn.push(TimelineEvent {
                event: EventRef {
                    index: k.index,
                    thread: names.thread(k.thread).to_owned(),
                    op: hindsight_trace::event::DisplayOp::new(&k.op, names).to_string(),
                    location: k.loc.map(|l| names.location(l).to_owned()),
                },
                lane,
                held: k.held.iter().map(|&l| names.lock(l).to_owned()).collect(),
                highlight: self.marks.binary_search(&k.index).is_ok(),
                skipped_before,
            });
            if let Some((from, kind)) = k.edge_from {
                if let Some(&j) = position.get(&from) {
                    let orders_pair = match (first, last) {
                        (Some(a), Some(b)) => a.before(events[j]) && k.before(b),
                        _ => false,
                    };
                    edges.push(TimelineEdge {
                        from: j,
                        to: i,
                        label: match kind {
                            EdgeKind::Lock(l) => format!("lock {}", names.lock(l)),
                            EdgeKind::Fork => "fork".to_owned(),
                            EdgeKind::Join => "join".to_owned(),
                        },
                        orders_pair,
                    });
                }
            }
        }
        Timeline {
            lanes: self.lanes,
            events: drawn,
            edges,
            ordered: match (first, last) {
                (Some(a), Some(b)) if a.index != b.index => Some(a.before(b)),
                _ => None,
            },
        }
    }
}

struct Collector {
    context: usize,
    spare: Option<Kept>,
    keep_lock_order: bool,
    windows: Vec<Window>,
    threads: Vec<ThreadState>,
    last_release: Vec<Option<u64>>,
}

impl Collector {
    fn new(reports: &[Report], options: TimelineOptions) -> Collector {
        let mut windows = Vec::new();
        for (k, r) in reports.iter().enumerate() {
            for (i, f) in r.findings.iter().enumerate().take(options.findings) {
                if f.events.is_empty() {
                    continue;
                }
                let mut lanes: Vec<String> = Vec::new();
                for e in &f.events {
                    if !lanes.contains(&e.thread) {
                        lanes.push(e.thread.clone());
                    }
                }
                let mut marks: Vec<u64> = f.events.iter().map(|e| e.index).collect();
                marks.sort_unstable();
                marks.dedup();
                windows.push(Window {
                    report: k,
                    finding: i,
                    between: vec![0; lanes.len()],
                    after: vec![0; lanes.len()],
                    lanes,
                    marks,
                    kept: BTreeMap::new(),
                });
            }
        }
        Collector {
            context: options.context.max(1),
            spare: None,
            keep_lock_order: options.keep_lock_order,
            windows,
            threads: Vec::new(),
            last_release: Vec::new(),
        }
    }

    fn thread(&mut self, t: ThreadId, names: &Names) -> &mut ThreadState {
        while self.threads.len() <= t.index() {
            let u = ThreadId(self.threads.len() as u32);
            // A thread's windows are those naming it; a thread is named before its first event.
            let name = names.thread(u);
            let windows = self
                .windows
                .iter()
                .enumerate()
                .filter(|(_, w)| w.lanes.iter().any(|l| l == name))
                .map(|(i, _)| i)
                .collect();
            self.threads.push(ThreadState {
                seq: 0,
                held: Vec::new(),
                ring: VecDeque::with_capacity(self.context + 1),
                windows,
                forked_by: None,
                last_index: None,
            });
        }
        &mut self.threads[t.index()]
    }

    /// Copies the rings of window `w`'s threads into it: the events since `since`.
    fn take_rings(&mut self, w: usize, since: Option<u64>, names: &Names) {
        let window = &mut self.windows[w];
        for lane in &window.lanes {
            let Some(t) = names.of(hindsight_trace::NameKind::Thread).lookup(lane) else {
                continue;
            };
            let Some(state) = self.threads.get(t as usize) else {
                continue;
            };
            for k in &state.ring {
                if since.is_none_or(|s| k.index > s) {
                    window.kept.entry(k.index).or_insert_with(|| k.clone());
                }
            }
        }
    }
}

impl Observer for Collector {
    fn name(&self) -> &'static str {
        "timelines"
    }

    fn keeps_lock_order(&self) -> bool {
        self.keep_lock_order
    }

    fn on_event(&mut self, e: &Event, hb: &HappensBefore, names: &Names) -> Result<(), ErrorKind> {
        let context = self.context;
        // Threads named by a fork or join get their state (and windows) now.
        if let Op::Fork(u) | Op::Join(u) = e.op {
            self.thread(u, names);
        }
        let edge_from = match e.op {
            Op::Acquire(l) => self
                .last_release
                .get(l.index())
                .copied()
                .flatten()
                .map(|i| (i, EdgeKind::Lock(l))),
            Op::Join(u) => self.threads[u.index()]
                .last_index
                .map(|i| (i, EdgeKind::Join)),
            _ => None,
        };
        let state = self.thread(e.thread, names);
        // The fork reaches the thread's first event, whatever else does.
        let forked_by = state.forked_by.take();
        let edge_from = edge_from.or(forked_by.map(|i| (i, EdgeKind::Fork)));
        if let Op::Acquire(l) = e.op {
            state.held.push(l);
        }
        // The slot the ring let go of last, reused: no allocation per event.
        let mut kept = self.spare.take().unwrap_or_else(|| Kept {
            index: 0,
            thread: e.thread,
            seq: 0,
            op: Op::End,
            loc: None,
            held: Vec::new(),
            clock: Vec::new(),
            edge_from: None,
        });
        let state = &mut self.threads[e.thread.index()];
        kept.index = e.index;
        kept.thread = e.thread;
        kept.seq = state.seq;
        kept.op.clone_from(&e.op);
        kept.loc = e.loc;
        kept.held.clone_from(&state.held);
        hb.clock(e.thread).copy_components_into(&mut kept.clock);
        kept.edge_from = edge_from;
        state.seq += 1;
        state.last_index = Some(e.index);
        if let Op::Release(l) = e.op {
            if let Some(p) = state.held.iter().rposition(|&h| h == l) {
                state.held.remove(p);
            }
        }
        let windows = std::mem::take(&mut state.windows);
        for &w in &windows {
            let (first, last) = (self.windows[w].first(), self.windows[w].last());
            let lane = self.windows[w]
                .lanes
                .iter()
                .position(|l| l == names.thread(e.thread))
                .unwrap_or(0);
            if e.index < first {
                continue;
            }
            if e.index == first {
                self.take_rings(w, None, names);
            }
            if e.index == last && first != last {
                self.take_rings(w, Some(first), names);
            }
            let window = &mut self.windows[w];
            let is_mark = window.marks.binary_search(&e.index).is_ok();
            // Marks between the first and the last count among the events between.
            let keep = if e.index > first && e.index < last {
                window.between[lane] += 1;
                is_mark || window.between[lane] <= context
            } else if e.index > last {
                window.after[lane] += 1;
                window.after[lane] <= context
            } else {
                true
            };
            if keep {
                window.kept.insert(e.index, kept.clone());
            }
        }
        let mut windows = windows;
        // A window with all the events it keeps of this thread stops looking at it.
        windows.retain(|&w| {
            let window = &self.windows[w];
            let lane = window
                .lanes
                .iter()
                .position(|l| l == names.thread(e.thread));
            !(e.index > window.last() && lane.is_some_and(|p| window.after[p] >= context))
        });
        let state = &mut self.threads[e.thread.index()];
        state.windows = windows;
        state.ring.push_back(kept);
        if state.ring.len() > context {
            self.spare = state.ring.pop_front();
        }
        match e.op {
            Op::Release(l) => {
                if self.last_release.len() <= l.index() {
                    self.last_release.resize(l.index() + 1, None);
                }
                self.last_release[l.index()] = Some(e.index);
            }
            Op::Fork(u) => self.threads[u.index()].forked_by = Some(e.index),
            _ => {}
        }
        Ok(())
    }
}
