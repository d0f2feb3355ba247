//! Which regions `views` takes by default, and atomic accesses in views.
//!
//! A block means code that *should* be atomic (what `atomicity` checks, what the recorder's
//! `atomic_block` writes): in a trace with a lock the default regions are the lock regions,
//! whether the first block comes before the first acquire or after it; only a trace with no
//! lock takes its blocks.

use hindsight_stream::groups::Granularity;
use hindsight_stream::views::{DynamicViews, Regions};
use hindsight_stream::{run, RunOptions};
use hindsight_trace::TextReader;
use serde_json::Value;

/// The kinds of the findings and the regions the summary says were used.
fn views(text: &str, regions: Regions) -> (Vec<String>, String) {
    let mut r = TextReader::new(text.as_bytes());
    let mut out = run(
        &mut r,
        vec![Box::new(
            DynamicViews::new(regions, true).with_granularity(Granularity::EveryEvent),
        )],
        RunOptions::default(),
    )
    .expect("valid trace");
    let (_, o) = out.outputs.remove(0);
    let kinds = o.findings.iter().map(|f| f.kind.clone()).collect();
    let used = o
        .summary
        .get("regions")
        .and_then(Value::as_str)
        .unwrap_or("?");
    (kinds, used.to_owned())
}

/// A withdrawal that should be atomic (a block) but reads and writes the balance in two
/// critical sections, and another thread's deposit under the lock: a stale value over lock
/// regions, nothing over the block (which would make the withdrawal one region).
const BLOCK_FIRST: &str = "\
T1|begin(withdraw)
T1|acq(l)
T1|r(balance)
T1|rel(l)
T2|acq(l)
T2|w(balance)
T2|rel(l)
T1|acq(l)
T1|w(balance)
T1|rel(l)
T1|end
";

#[test]
fn a_trace_with_locks_takes_lock_regions_even_when_a_block_comes_first() {
    assert_eq!(
        views(BLOCK_FIRST, Regions::Auto),
        (vec!["stale-value".to_owned()], "locks".to_owned())
    );
    assert_eq!(views(BLOCK_FIRST, Regions::Locks).0, ["stale-value"]);
    assert!(views(BLOCK_FIRST, Regions::Blocks).0.is_empty());
    // The same with an acquire before the first block.
    let lock_first = format!("T2|acq(m)\nT2|rel(m)\n{BLOCK_FIRST}");
    assert_eq!(
        views(&lock_first, Regions::Auto),
        (vec!["stale-value".to_owned()], "locks".to_owned())
    );
}

#[test]
fn a_trace_without_locks_takes_its_blocks() {
    // MoTH's read and write-back in two atomic sections, and another section's write.
    let text = "\
T1|begin
T1|r(balance)
T1|end
T2|begin
T2|w(balance)
T2|end
T1|begin
T1|w(balance)
T1|end
";
    assert_eq!(
        views(text, Regions::Auto),
        (vec!["stale-value".to_owned()], "blocks".to_owned())
    );
}

/// An RMW is one access that reads and writes: in one region it cannot leave a stale value,
/// while an atomic load in one region and an atomic store in another can.
#[test]
fn an_rmw_is_a_read_and_a_write_of_one_region() {
    let split = "\
T1|acq(l)
T1|aload(n)
T1|rel(l)
T2|acq(l)
T2|astore(n)
T2|rel(l)
T1|acq(l)
T1|astore(n)
T1|rel(l)
";
    assert_eq!(views(split, Regions::Auto).0, ["stale-value"]);
    let rmw = "\
T1|acq(l)
T1|rmw(n)
T1|rel(l)
T2|acq(l)
T2|astore(n)
T2|rel(l)
T1|acq(l)
T1|rmw(n)
T1|rel(l)
";
    assert!(views(rmw, Regions::Auto).0.is_empty());
}
