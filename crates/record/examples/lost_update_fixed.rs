//! `lost_update.rs`, fixed: `inc()` reads and writes in one critical section, so the value it
//! writes is never stale. `hindsight views` reports nothing.

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

    pub fn inc(&self) {
        let mut x = self.x.lock().expect("not poisoned");
        let tmp = x.get();
        x.set(tmp + 1);
    }
}

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
