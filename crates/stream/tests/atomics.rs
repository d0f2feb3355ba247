//! Atomic accesses in the streaming analyses: they never race, the messages next to them
//! order, and an RMW is one indivisible access for `atomicity`.

use hindsight_stream::atomicity::{Atomicity, Options};
use hindsight_stream::groups::Granularity;
use hindsight_stream::races::Races;
use hindsight_stream::{run, Analysis, RunOptions};
use hindsight_trace::TextReader;

fn findings(text: &str, analysis: Box<dyn Analysis>) -> Vec<String> {
    let mut r = TextReader::new(text.as_bytes());
    let mut out = run(&mut r, vec![analysis], RunOptions::default()).expect("valid trace");
    let (_, o) = out.outputs.remove(0);
    o.findings
        .iter()
        .map(|f| {
            let events: Vec<String> = f.events.iter().map(|e| format!("#{}", e.index)).collect();
            format!("{} {}", f.kind, events.join(" "))
        })
        .collect()
}

fn races(text: &str) -> Vec<String> {
    findings(
        text,
        Box::new(Races::with_granularity(Granularity::EveryEvent)),
    )
}

fn atomicity(text: &str) -> Vec<String> {
    findings(
        text,
        Box::new(Atomicity::new(Options {
            all: true,
            schedule: false,
            ignore_non_nested: false,
            granularity: Granularity::EveryEvent,
        })),
    )
}

#[test]
fn atomics_never_race() {
    let text = "\
T1|astore(x)
T2|aload(x)
T2|rmw(x)
T1|rmw(x)
T1|astore(x)
";
    assert!(races(text).is_empty());
    // The same accesses made plain race: the check can fail.
    let plain = "T1|w(x)\nT2|r(x)\n";
    assert_eq!(races(plain).len(), 1);
}

/// Release/acquire is the messages next to the atomics: with them a plain write before the
/// store is ordered before a plain read after the load; without them (relaxed) it is not.
#[test]
fn the_messages_next_to_atomics_order_plain_data() {
    let released = "\
T1|w(data)
T1|astore(flag)
T1|snd(flag)
T2|rcv(flag)
T2|aload(flag)
T2|r(data)
";
    assert!(races(released).is_empty());
    let relaxed = "\
T1|w(data)
T1|astore(flag)
T2|aload(flag)
T2|r(data)
";
    assert_eq!(races(relaxed), ["data-race #0 #3"]);
}

/// CAV'09's violations need two accesses `e1`, `e2` of one transaction with a conflicting
/// remote access between them. An RMW outside a block is a transaction of one event: nothing
/// can come inside it. A load and a store in one block can be split.
#[test]
fn an_rmw_is_indivisible_for_atomicity() {
    let rmws = "\
T1|rmw(n)
T2|rmw(n)
T1|rmw(n)
T2|astore(n)
";
    assert!(atomicity(rmws).is_empty());
    let block_of_one_rmw = "\
T1|begin
T1|rmw(n)
T1|end
T2|astore(n)
";
    assert!(atomicity(block_of_one_rmw).is_empty());
    let split = "\
T1|begin
T1|aload(n)
T1|astore(n)
T1|end
T2|astore(n)
";
    let found = atomicity(split);
    assert_eq!(found.len(), 1, "{found:?}");
    // The same as one RMW in the block (what `fetch_add` records) is not a violation.
    let fetch_add = "\
T1|begin
T1|rmw(n)
T1|end
T2|begin
T2|rmw(n)
T2|end
";
    assert!(atomicity(fetch_add).is_empty());
}
