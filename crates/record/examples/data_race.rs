//! A data race in safe Rust: a value published through a flag with `Relaxed` atomics. The
//! reader may see the flag set and still read the old value (relaxed operations order
//! nothing), which `hindsight races` reports as races on `data` and on `ready` (relaxed
//! accesses are recorded as plain reads and writes).
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
