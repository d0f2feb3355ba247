//! Pictures of a report: what a finding looks like on a time line, beyond the events it names.
//! Analyses (or a second, bounded pass over a trace) fill them in; only the HTML renderer draws
//! them, and the text, JSON and SARIF renderers never see them, so adding one changes no other
//! output. Every name here is already rendered from the input (and so is untrusted: a renderer
//! escapes it).

use crate::EventRef;

/// The pictures of one report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    /// The events around a finding, keyed by the finding's place in [`crate::Report::findings`].
    pub timelines: Vec<(usize, Timeline)>,
    /// `lin`: the history of each part the picture shows.
    pub histories: Vec<HistoryFigure>,
    /// What the pictures leave out and why (a cap on their number, an input read only once).
    pub notes: Vec<String>,
}

impl Figures {
    /// The timeline of finding `index`, if one was drawn.
    pub fn timeline(&self, index: usize) -> Option<&Timeline> {
        self.timelines
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, t)| t)
    }
}

/// A window of a trace around one finding: the events of the threads it involves just before,
/// between and just after its own events, in trace order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    /// The threads drawn, one lane each, in the order of their first appearance in the finding.
    pub lanes: Vec<String>,
    /// The events drawn, in trace order.
    pub events: Vec<TimelineEvent>,
    /// Edges of happens-before between events drawn (a release to a later acquire of the lock,
    /// a fork to the child's first event, the child's last event to its join).
    pub edges: Vec<TimelineEdge>,
    /// Whether the finding's first event happens before its last in the observed run (by
    /// program order, fork/join and release -> acquire); `None` where not known.
    pub ordered: Option<bool>,
}

/// One event of a [`Timeline`].
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineEvent {
    pub event: EventRef,
    /// Index into [`Timeline::lanes`].
    pub lane: usize,
    /// The locks the thread holds at this event (after acquiring, for an acquire).
    pub held: Vec<String>,
    /// One of the finding's own events.
    pub highlight: bool,
    /// How many events of the same thread come between the previous event drawn in this lane
    /// (or the thread's start) and this one, not drawn.
    pub skipped_before: u64,
}

/// An edge of happens-before between two events of a [`Timeline`].
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineEdge {
    /// Indices into [`Timeline::events`].
    pub from: usize,
    pub to: usize,
    /// What makes the edge, e.g. `lock L` or `fork`.
    pub label: String,
    /// Whether the edge lies on a happens-before path from the finding's first event to its
    /// last: such an edge orders the pair.
    pub orders_pair: bool,
}

/// `lin`: one part of a history, as a Porcupine-style picture.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HistoryFigure {
    /// The part, e.g. `key x`, or `history` for a history of one part.
    pub title: String,
    /// Whether the part is linearizable (`linearizable`, `not-linearizable`, `unknown`).
    pub verdict: String,
    /// Client names, one row each.
    pub clients: Vec<String>,
    pub ops: Vec<HistoryBar>,
    /// The model state after the longest linearizable prefix.
    pub state: Option<String>,
    /// Operations of the part not drawn (a cap on the picture's size).
    pub left_out: usize,
}

/// One operation of a [`HistoryFigure`]: a bar from its invocation to its completion.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryBar {
    /// Index into [`HistoryFigure::clients`].
    pub client: usize,
    /// Positions in the history (records), the time axis.
    pub invoke: u64,
    /// `None`: the outcome is unknown (`info`, or no completion); the bar is open-ended.
    pub complete: Option<u64>,
    pub label: String,
    pub role: BarRole,
    /// For an operation of the linearizable prefix: its place in the prefix and the model
    /// state after it.
    pub step: Option<(usize, String)>,
}

/// How a [`HistoryBar`] stands to the longest linearizable prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarRole {
    /// In the longest linearizable prefix.
    Prefix,
    /// May come next after the prefix in real time, but the model refuses its output there.
    Stuck,
    /// Neither (or the part is linearizable).
    Other,
}
