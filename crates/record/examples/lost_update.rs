//! Fig. 2 of the MoTH paper (PADTAD'11): `read()` and `update()` are each synchronized, but
//! `inc()` reads in one critical section and writes in another, so the value it writes back may
//! be stale and an increment lost. `hindsight views` reports a stale value of `x`.
//!
//! ```sh
//! HINDSIGHT_TRACE=lost.hst cargo run --release -p hindsight-record --example lost_update
//! hindsight views lost.hst
//! ```

use hindsight_record::sync::Mutex;
use hindsight_record::{thread, Named, Shared};

pub struct Counter {
    x: Mutex<Shared<i64>>,
}

impl Counter {
    fn new() -> Counter {
        Counter {
            x: Mutex::new(Shared::new(0).named("x")).named("counter"),
        }
    }

    fn read(&self) -> i64 {
        self.x.lock().expect("not poisoned").get()
    }

    fn update(&self, value: i64) {
        self.x.lock().expect("not poisoned").set(value);
    }

    pub fn inc(&self) {
        let tmp = self.read();
        // tmp can be outdated here.
        self.update(tmp + 1);
    }
}

/// Two threads increment once each; returns the final value (2, or 1 if an update was lost).
pub fn run() -> i64 {
    let counter = Counter::new();
    thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| counter.inc());
        }
    });
    let x = counter.read();
    println!("x = {x}");
    x
}

#[allow(dead_code)]
fn main() {
    let _trace = hindsight_record::init();
    run();
}
