//! Summaries report durations as milliseconds to the microsecond.

use std::time::Duration;

#[test]
fn milliseconds_are_rounded_to_the_microsecond() {
    // 3.255781 ms is what `secs * 1e3` prints as 3.2557810000000003.
    let ms = hindsight_report::milliseconds(Duration::from_nanos(3_255_781));
    assert_eq!(ms.to_string(), "3.256");
    assert_eq!(
        hindsight_report::milliseconds(Duration::from_nanos(499)),
        0.0
    );
    assert_eq!(
        hindsight_report::milliseconds(Duration::from_secs(2)),
        2000.0
    );
}
