//! The history pictures `lin` hands the HTML page: per part, a bar per operation on its
//! client's row, the longest linearizable prefix in order with the model state after each of its
//! operations, the operations that cannot follow it apart.

use hindsight_budget::Budget;
use hindsight_history::analyse;
use hindsight_report::BarRole;

/// A bar as the test reads it: client, label, invocation, completion, role, step and state.
type Bar<'a> = (
    usize,
    &'a str,
    u64,
    Option<u64>,
    BarRole,
    Option<(usize, &'a str)>,
);

/// examples/register.jsonl: write(1) completes; read -> 2 and write(2) overlap; then a read
/// returns 1, which no order allows (2 was written and read after 1); the cas is `info`.
/// By hand: the prefix is write(1) (state 1), write(2) (state 2), read -> 2 (state 2); the
/// read -> 1 is stuck; the cas has an unknown outcome and is drawn open-ended.
#[test]
fn register_example() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/register.jsonl"
    ))
    .unwrap();
    let report = analyse(
        &text,
        "register.jsonl",
        "cas-register",
        None,
        &Budget::unlimited(),
        false,
    )
    .unwrap();
    let [h] = report.figures.histories.as_slice() else {
        panic!("one part: {:?}", report.figures.histories);
    };
    assert_eq!(h.verdict, "not linearizable");
    assert_eq!(h.clients, ["process 0", "process 1", "process 2"]);
    assert_eq!(h.state.as_deref(), Some("2"));
    let shown: Vec<Bar> = h
        .ops
        .iter()
        .map(|b| {
            (
                b.client,
                b.label.as_str(),
                b.invoke,
                b.complete,
                b.role,
                b.step.as_ref().map(|(n, s)| (*n, s.as_str())),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            (
                0,
                "write(1) -> 1",
                0,
                Some(1),
                BarRole::Prefix,
                Some((0, "1"))
            ),
            (
                1,
                "read(nil) -> 2",
                2,
                Some(4),
                BarRole::Prefix,
                Some((2, "2"))
            ),
            (
                2,
                "write(2) -> 2",
                3,
                Some(5),
                BarRole::Prefix,
                Some((1, "2"))
            ),
            (1, "read(nil) -> 1", 6, Some(7), BarRole::Stuck, None),
            (
                0,
                "cas([2 3]) -> ? (unknown outcome)",
                8,
                None,
                BarRole::Other,
                None
            ),
        ]
    );
}

/// A linearizable history is drawn too, with no operation set apart.
#[test]
fn a_linearizable_history_has_no_prefix_or_stuck_bars() {
    let text = "{\"process\":0,\"type\":\"invoke\",\"f\":\"write\",\"value\":1}\n{\"process\":0,\"type\":\"ok\",\"f\":\"write\",\"value\":1}\n{\"process\":1,\"type\":\"invoke\",\"f\":\"read\",\"value\":null}\n{\"process\":1,\"type\":\"ok\",\"f\":\"read\",\"value\":1}\n";
    let report = analyse(text, "h", "register", None, &Budget::unlimited(), false).unwrap();
    let [h] = report.figures.histories.as_slice() else {
        panic!("one part");
    };
    assert_eq!(h.verdict, "linearizable");
    assert!(h.ops.iter().all(|b| b.role == BarRole::Other));
    assert_eq!(h.ops.len(), 2);
}
