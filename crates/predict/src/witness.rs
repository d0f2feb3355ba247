//! Witnesses: for a predicted race (e1, e2), a correct reordering of a prefix of the trace after
//! which both are enabled. The reordering is the sync-preserving ideal of the pair, in trace
//! order (POPL'21, Lemma 4.3: it is a correct reordering whenever neither access is in it), and
//! it is shown only after [`crate::replay::check`] accepts it.

use crate::recording::{Frontier, Recorded, Recording};
use hindsight_report::EventRef;
use hindsight_trace::event::OP_NAMES;
use hindsight_trace::Names;
use serde_json::Value;

/// A checked witness, its events named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    /// The reordering, in the order it runs.
    pub schedule: Vec<EventRef>,
    /// The two accesses it enables together: the earlier in the trace, then the later.
    pub enabled: [EventRef; 2],
}

impl Witness {
    pub fn to_json(&self, _: &Names) -> Value {
        let refs = |v: &[EventRef]| serde_json::to_value(v).expect("event references serialize");
        let mut m = serde_json::Map::new();
        m.insert("schedule".into(), refs(&self.schedule));
        m.insert("enabled".into(), refs(&self.enabled));
        Value::Object(m)
    }
}

/// The sync-preserving ideal of the pair (`first` earlier than `second` in the trace), in trace
/// order, if neither access is in it.
pub fn reordering(rec: &mut Recording, first: u64, second: u64) -> Option<Vec<u64>> {
    let mut f = Frontier::new();
    let (a, b) = (rec.events[first as usize], rec.events[second as usize]);
    let (ra, rb) = (rec.rank(first), rec.rank(second));
    rec.join_predecessors(a.thread, ra, &mut f);
    rec.join_predecessors(b.thread, rb, &mut f);
    rec.close(&mut f);
    (f.get(a.thread) <= ra && f.get(b.thread) <= rb).then(|| rec.schedule(&f))
}

/// How a model builds the reordering of one of its races (trace indices, earlier first).
pub type Reordering = fn(&mut Recording, u64, u64) -> Option<Vec<u64>>;

/// The witness of the race (`first`, `second`), replay-checked, or `None` when the pair is not
/// a sync-preserving race.
pub fn find(rec: &mut Recording, names: &Names, first: u64, second: u64) -> Option<Witness> {
    find_with(rec, names, first, second, reordering)
}

/// The witness `build` makes of the race (`first`, `second`), replay-checked.
pub fn find_with(
    rec: &mut Recording,
    names: &Names,
    first: u64,
    second: u64,
    build: Reordering,
) -> Option<Witness> {
    let schedule = build(rec, first, second)?;
    if let Err(e) = crate::replay::check(&rec.events, &schedule, first, second) {
        // The reordering is correct by construction; a refusal is a bug in the model, and an
        // unchecked witness is never shown.
        debug_assert!(false, "witness of ({first}, {second}) refused: {e}");
        return None;
    }
    let named = |i: u64| name(&rec.events[i as usize], i, names);
    Some(Witness {
        schedule: schedule.iter().map(|&i| named(i)).collect(),
        enabled: [named(first), named(second)],
    })
}

/// An event as a report names it.
pub fn name(e: &Recorded, index: u64, names: &Names) -> EventRef {
    let mnemonic = OP_NAMES[e.kind as usize];
    let id = e.target;
    let op = match e.kind {
        0 | 1 | 12..=14 => format!("{mnemonic}({})", names.var(hindsight_trace::VarId(id))),
        2..=4 => format!("{mnemonic}({})", names.lock(hindsight_trace::LockId(id))),
        5 | 6 => format!(
            "{mnemonic}({})",
            names.thread(hindsight_trace::ThreadId(id))
        ),
        9 | 10 => format!("{mnemonic}({})", names.msg(hindsight_trace::MsgId(id))),
        _ => mnemonic.to_owned(),
    };
    EventRef {
        index,
        thread: names.thread(e.thread).to_owned(),
        op,
        location: e.loc.map(|l| names.location(l).to_owned()),
    }
}
