//! The Coordinates test of the MoTH paper (Fig. 6, after Artho et al.): `swap()` exchanges the
//! two coordinates in one critical section, but `reset()` zeroes them in two, so a `swap()`
//! running between them leaves an inconsistent pair. `hindsight views` reports a high-level
//! data race on `coord.x` and `coord.y` (the views of Table 1).
//!
//! ```sh
//! HINDSIGHT_TRACE=coord.hst cargo run --release -p hindsight-record --example coordinates
//! hindsight views coord.hst
//! ```

use hindsight_record::sync::Mutex;
use hindsight_record::{thread, Named, Shared};

pub struct Coord {
    x: Shared<i64>,
    y: Shared<i64>,
}

pub struct Point {
    coord: Mutex<Coord>,
}

impl Point {
    pub fn new(x: i64, y: i64) -> Point {
        Point {
            coord: Mutex::new(Coord {
                x: Shared::new(x).named("coord.x"),
                y: Shared::new(y).named("coord.y"),
            })
            .named("coord"),
        }
    }

    pub fn swap(&self) {
        let mut c = self.coord.lock().expect("not poisoned");
        let old_x = c.x.get();
        let y = c.y.get();
        c.x.set(y);
        c.y.set(old_x);
    }

    pub fn reset(&self) {
        self.coord.lock().expect("not poisoned").x.set(0);
        // Inconsistent state (0, y) visible to other threads here.
        self.coord.lock().expect("not poisoned").y.set(0);
    }

    pub fn get(&self) -> (i64, i64) {
        let c = self.coord.lock().expect("not poisoned");
        (c.x.get(), c.y.get())
    }
}

/// One thread swaps, one resets; returns the final pair ((0, 0) unless a swap interleaved).
pub fn run() -> (i64, i64) {
    let p = Point::new(1, 2);
    thread::scope(|s| {
        s.spawn(|| p.swap());
        s.spawn(|| p.reset());
    });
    let c = p.get();
    println!("coord = {c:?}");
    c
}

#[allow(dead_code)]
fn main() {
    let _trace = hindsight_record::init();
    run();
}
