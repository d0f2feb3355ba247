//! What the predict tests share: reading a text trace, driving an observer over it with
//! happens-before as the driver does, and the race pairs a model reports.
// Each test file uses its own part of this module.
#![allow(dead_code)]

use hindsight_order::HappensBefore;
use hindsight_predict::found::Race;
use hindsight_predict::shb::Options;
use hindsight_stream::groups::Granularity;
use hindsight_stream::Observer;
use hindsight_trace::{TextReader, Trace};

pub fn trace(text: &str) -> Trace {
    Trace::collect(&mut TextReader::new(text.as_bytes())).expect("a valid trace")
}

/// Every racy event reported, without witnesses.
pub fn every_event() -> Options {
    Options {
        granularity: Granularity::EveryEvent,
        witnesses: false,
        beyond_hb: false,
    }
}

/// Runs an observer over the trace with happens-before, as the driver does.
pub fn drive(trace: &Trace, o: &mut dyn Observer) {
    let mut hb = HappensBefore::new();
    for e in &trace.events {
        hb.before(e);
        o.on_event(e, &hb, &trace.names).expect("accepted");
        hb.after(e);
    }
}

/// The races as (partner, racy) event indices.
pub fn pairs(races: &[Race]) -> Vec<(u64, u64)> {
    races
        .iter()
        .map(|r| (r.partner.index, r.racy.index))
        .collect()
}
