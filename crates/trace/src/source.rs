//! The streaming interface every trace reader implements.

use crate::error::{Position, TraceError};
use crate::event::{Event, Op, Value};
use crate::names::{Names, ObjId, SymId};

/// A call whose values were appended to the caller's vector by
/// [`EventSource::advance_splitting_calls`]: its arguments, then its results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallHead {
    pub object: ObjId,
    pub method: SymId,
    pub args: u32,
    pub results: u32,
}

/// Where [`EventSource::advance_splitting_calls`] moved to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The end of the trace.
    End,
    /// An event other than a call, which `current` holds.
    Event,
    /// A call: `current` holds its index, thread and location, but what its operation is is
    /// unspecified; the rest of the call is here and in the caller's vector.
    Call(CallHead),
}

/// The step to `e`: a call has its values appended to `values`.
#[inline]
pub fn split_call(e: &Event, values: &mut Vec<Value>) -> Step {
    let Op::Call(c) = &e.op else {
        return Step::Event;
    };
    // A call has a few values: copying them one by one (after one check of the capacity)
    // beats a call to `memcpy` per slice.
    values.extend(c.args.iter().copied());
    values.extend(c.results.iter().copied());
    Step::Call(CallHead {
        object: c.object,
        method: c.method,
        args: c.args.len() as u32,
        results: c.results.len() as u32,
    })
}

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
        Ok(if Self::advance(self)? {
            Some(Self::current(self))
        } else {
            None
        })
    }
    /// Moves to the next event as `advance` does, but hands a call over in two parts: its
    /// values appended to `values`, the rest returned. For a caller that keeps calls' values
    /// in an array of its own; a reader that decodes calls can put their values there directly
    /// rather than into the call it lends and then have them copied.
    fn advance_splitting_calls(&mut self, values: &mut Vec<Value>) -> Result<Step, TraceError> {
        if !Self::advance(self)? {
            return Ok(Step::End);
        }
        Ok(split_call(Self::current(self), values))
    }
    /// Where the event last returned stands in its file.
    fn position(&self) -> Position;
    /// The names seen so far; complete once the stream is exhausted.
    fn names(&self) -> &Names;
    /// How many names `names` holds, of all kinds together: a caller that asks after every
    /// event learns cheaply whether any arrived. A reader that counts the names it defines can
    /// say it without looking at every kind.
    fn names_defined(&self) -> usize {
        self.names().total()
    }
    /// Gives up the names, for a caller that has finished reading.
    fn take_names(&mut self) -> Names;
    /// What the reader holds besides `names`, as a budget charges it: `(copies, bytes)`, so
    /// many more copies of the names' size (readers whose workers keep name tables of their
    /// own) and so many bytes of buffers. Nothing for a reader that reads in its caller's
    /// thread.
    fn held_besides_names(&self) -> (u64, u64) {
        (0, 0)
    }
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

/// A source lent to a wrapper (such as [`crate::LockRepair`]) is still a source.
impl<S: EventSource + ?Sized> EventSource for &mut S {
    #[inline]
    fn advance(&mut self) -> Result<bool, TraceError> {
        (**self).advance()
    }
    #[inline]
    fn current(&self) -> &Event {
        (**self).current()
    }
    #[inline]
    fn advance_splitting_calls(&mut self, values: &mut Vec<Value>) -> Result<Step, TraceError> {
        (**self).advance_splitting_calls(values)
    }
    fn position(&self) -> Position {
        (**self).position()
    }
    fn names(&self) -> &Names {
        (**self).names()
    }
    fn names_defined(&self) -> usize {
        (**self).names_defined()
    }
    fn take_names(&mut self) -> Names {
        (**self).take_names()
    }
}
