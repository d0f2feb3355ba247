//! A publication bug in safe Rust: a value published through a flag with `Relaxed` atomics.
//! The reader may see the flag set and still read the old value (relaxed operations order
//! nothing). It is not a data race (atomics are race-free in Rust's memory model), so
//! `hindsight races` reports nothing: the trace shows `astore`/`aload` events with no `snd`
//! or `rcv` between them, and `data_race_fixed` (release/acquire) adds the edge.
//!
//! ```sh
//! HINDSIGHT_TRACE=race.hst cargo run --release -p hindsight-record --example data_race
//! hindsight races race.hst
//! ```

use hindsight_record::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use hindsight_record::{thread, Named};
use std::time::Duration;

/// Publishes 42 from one thread to another; returns what the reader saw.
pub fn run() -> i64 {
    let data = AtomicI64::new(0).named("data");
    let ready = AtomicBool::new(false).named("ready");
    thread::scope(|s| {
        s.spawn(|| {
            data.store(42, Ordering::Relaxed);
            ready.store(true, Ordering::Relaxed);
        });
        let reader = s.spawn(|| {
            while !ready.load(Ordering::Relaxed) {
                thread::sleep(Duration::from_millis(1));
            }
            data.load(Ordering::Relaxed)
        });
        let seen = reader.join().expect("the reader does not panic");
        println!("the reader saw {seen}");
        seen
    })
}

#[allow(dead_code)]
fn main() {
    let _trace = hindsight_record::init();
    run();
}
