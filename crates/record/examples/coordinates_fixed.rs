//! `coordinates.rs`, fixed: `reset()` zeroes both coordinates in one critical section, so every
//! view that writes the pair holds both. `hindsight views` reports nothing.

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
        let mut c = self.coord.lock().expect("not poisoned");
        c.x.set(0);
        c.y.set(0);
    }

    pub fn get(&self) -> (i64, i64) {
        let c = self.coord.lock().expect("not poisoned");
        (c.x.get(), c.y.get())
    }
}

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
