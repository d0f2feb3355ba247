//! The streaming interface every trace reader implements.

use crate::error::{Position, TraceError};
use crate::event::Event;
use crate::names::Names;

/// A stream of events. Readers lend each event until the next call, so that a streaming pass
/// allocates nothing per event.
///
/// The loop is `while source.advance()? { let e = source.current(); ... }`: `current`,
/// `position` and `names` borrow the source immutably, so all three can be used together.
pub trait EventSource {
    /// Moves to the next event; `false` at the end of the trace.
    fn advance(&mut self) -> Result<bool, TraceError>;
    /// The event `advance` moved to. Before the first `advance`, or after it returned `false`,
    /// what it returns is unspecified.
    fn current(&self) -> &Event;
    /// The next event, or `None` at the end of the trace.
    fn next_event(&mut self) -> Result<Option<&Event>, TraceError> {
        Ok(if self.advance()? {
            Some(self.current())
        } else {
            None
        })
    }
    /// Where the event last returned stands in its file.
    fn position(&self) -> Position;
    /// The names seen so far; complete once the stream is exhausted.
    fn names(&self) -> &Names;
    /// Gives up the names, for a caller that has finished reading.
    fn take_names(&mut self) -> Names;
}

/// A trace held in memory (tests, generators, oracles).
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub names: Names,
    pub events: Vec<Event>,
}

impl Trace {
    /// Streams the events of this trace; positions are event indices.
    pub fn source(&self) -> MemorySource<'_> {
        MemorySource {
            trace: self,
            next: 0,
            names: self.names.clone(),
        }
    }

    /// Reads a whole stream into memory.
    pub fn collect<S: EventSource>(source: &mut S) -> Result<Trace, TraceError> {
        let mut events = Vec::new();
        while let Some(e) = source.next_event()? {
            events.push(e.clone());
        }
        Ok(Trace {
            names: source.take_names(),
            events,
        })
    }
}

/// Streams a [`Trace`] held in memory.
pub struct MemorySource<'a> {
    trace: &'a Trace,
    next: usize,
    names: Names,
}

impl EventSource for MemorySource<'_> {
    fn advance(&mut self) -> Result<bool, TraceError> {
        let more = self.next < self.trace.events.len();
        self.next += more as usize;
        Ok(more)
    }

    fn current(&self) -> &Event {
        &self.trace.events[self
            .next
            .saturating_sub(1)
            .min(self.trace.events.len().saturating_sub(1))]
    }

    fn position(&self) -> Position {
        Position::Event(self.next.saturating_sub(1) as u64)
    }

    fn names(&self) -> &Names {
        &self.names
    }

    fn take_names(&mut self) -> Names {
        std::mem::take(&mut self.names)
    }
}
