//! The papers' examples and small hand-made traces, with the answers the papers state.

use hindsight_order::HappensBefore;
use hindsight_predict::found::Race;
use hindsight_predict::shb::{Options, Shb};
use hindsight_predict::wcp::Wcp;
use hindsight_stream::groups::Granularity;
use hindsight_stream::Observer;
use hindsight_trace::{TextReader, Trace};

fn trace(text: &str) -> Trace {
    Trace::collect(&mut TextReader::new(text.as_bytes())).expect("a valid trace")
}

fn every_event() -> Options {
    Options {
        granularity: Granularity::EveryEvent,
        witnesses: false,
    }
}

fn drive(trace: &Trace, o: &mut dyn Observer) {
    let mut hb = HappensBefore::new();
    for e in &trace.events {
        hb.before(e);
        o.on_event(e, &hb, &trace.names).expect("accepted");
        hb.after(e);
    }
}

fn pairs(races: &[Race]) -> Vec<(u64, u64)> {
    races.iter().map(|r| (r.partner.index, r.racy.index)).collect()
}

fn shb(text: &str) -> Vec<(u64, u64)> {
    let mut a = Shb::new(every_event());
    drive(&trace(text), &mut a);
    pairs(a.races())
}

fn wcp(text: &str) -> Vec<(u64, u64)> {
    let mut a = Wcp::new(every_event());
    drive(&trace(text), &mut a);
    pairs(a.races())
}

const SECTIONS_WRITE_X: &str = "T1|acq(l)\nT1|w(x)\nT1|rel(l)\nT2|acq(l)\nT2|w(x)\nT2|rel(l)\n";

#[test]
fn conflicting_sections_are_ordered_by_every_model() {
    assert!(shb(SECTIONS_WRITE_X).is_empty());
    assert!(wcp(SECTIONS_WRITE_X).is_empty());
}
