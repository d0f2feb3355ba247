//! `data_race.rs`, fixed: the flag is stored with `Release` and loaded with `Acquire`, so the
//! store of `data` happens before its load. The flag operations are recorded as `snd`/`rcv`
//! (synchronization, not accesses) and `hindsight races` reports nothing.

use hindsight_record::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use hindsight_record::{thread, Named};
use std::time::Duration;

pub fn run() -> i64 {
    let data = AtomicI64::new(0).named("data");
    let ready = AtomicBool::new(false).named("ready");
    thread::scope(|s| {
        s.spawn(|| {
            data.store(42, Ordering::Relaxed);
            ready.store(true, Ordering::Release);
        });
        let reader = s.spawn(|| {
            while !ready.load(Ordering::Acquire) {
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
