//! A trace stream that ends where a budget runs out, for commands that pass events through
//! without analysing them (`convert`): what they write is then a whole trace of the events
//! before the limit, and they can say the limit was reached.

use hindsight_budget::{Budget, Meter, Spent};
use hindsight_trace::{ErrorKind, Event, EventSource, Names, Position, TraceError};

/// `source` until `budget` is spent: its clock looked at as a [`Meter`] does (every few
/// thousand events, sooner when events come slowly), then the end of the stream.
pub struct UntilSpent<'a, S> {
    source: S,
    meter: Meter<'a>,
    spent: Option<Spent>,
}

impl<'a, S: EventSource> UntilSpent<'a, S> {
    pub fn new(source: S, budget: &'a Budget) -> Self {
        UntilSpent {
            source,
            meter: Meter::new(budget),
            spent: None,
        }
    }

    /// The limit that ended the stream early, if one did.
    pub fn spent(&self) -> Option<Spent> {
        self.spent
    }

    pub fn inner(&self) -> &S {
        &self.source
    }
}

impl<S: EventSource> EventSource for UntilSpent<'_, S> {
    fn advance(&mut self) -> Result<bool, TraceError> {
        if self.spent.is_some() {
            return Ok(false);
        }
        if let Err(spent) = self.meter.step() {
            self.spent = Some(spent);
            return Ok(false);
        }
        match self.source.advance() {
            // An input that sent nothing more before the deadline ends here too.
            Err(e) if e.kind == ErrorKind::InputTimedOut => {
                self.spent = Some(self.meter.budget().check().err().unwrap_or(Spent::Time));
                Ok(false)
            }
            more => more,
        }
    }

    fn current(&self) -> &Event {
        self.source.current()
    }

    fn position(&self) -> Position {
        self.source.position()
    }

    fn names(&self) -> &Names {
        self.source.names()
    }

    fn names_defined(&self) -> usize {
        self.source.names_defined()
    }

    fn take_names(&mut self) -> Names {
        self.source.take_names()
    }
}
