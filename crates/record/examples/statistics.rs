// Progress statistics with relaxed atomics, after "Rust Atomics and Locks" (Mara Bos, O'Reilly
// 2023), chapter 2, "Example: Statistics": worker threads process items and publish how many
// are done, their total and their maximum time with relaxed `fetch_add`/`fetch_max`; the main
// thread reports progress until all are done. Written here after the book's program; the port
// is the three lines marked `hindsight:`.
//
//     HINDSIGHT_TRACE=stats.hst cargo run -p hindsight-record --example statistics
//     hindsight races stats.hst
//
// Expected: nothing. Each `fetch_add`/`fetch_max` is one indivisible `rmw` event and each
// load an `aload`; atomics never race (Rust's memory model makes them race-free) and an RMW
// cannot be split by another thread's access, so `races`, `atomicity` and `views` are silent.
// (Before atomic events, relaxed atomics were plain reads and writes and `races` reported the
// three counters: false positives.)

use hindsight_record::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed}; // hindsight: was std::sync::atomic
use hindsight_record::thread; // hindsight: was std::thread
use std::time::{Duration, Instant};

const WORKERS: usize = 4;
const ITEMS: usize = 25;

fn process_item(i: usize) -> usize {
    std::hint::black_box((0..i).sum())
}

fn main() {
    let _trace = hindsight_record::init(); // hindsight: starts recording
    let num_done = &AtomicUsize::new(0);
    let total_time = &AtomicU64::new(0);
    let max_time = &AtomicU64::new(0);

    thread::scope(|s| {
        for t in 0..WORKERS {
            s.spawn(move || {
                for i in 0..ITEMS {
                    let start = Instant::now();
                    process_item(t * ITEMS + i);
                    let time_taken = start.elapsed().as_micros() as u64;
                    num_done.fetch_add(1, Relaxed);
                    total_time.fetch_add(time_taken, Relaxed);
                    max_time.fetch_max(time_taken, Relaxed);
                }
            });
        }

        loop {
            let total_time = Duration::from_micros(total_time.load(Relaxed));
            let max_time = Duration::from_micros(max_time.load(Relaxed));
            let n = num_done.load(Relaxed);
            if n == WORKERS * ITEMS {
                break;
            }
            if n == 0 {
                println!("Working.. nothing done yet.");
            } else {
                println!(
                    "Working.. {n}/{} done, {:?} average, {:?} peak",
                    WORKERS * ITEMS,
                    total_time / n as u32,
                    max_time,
                );
            }
            thread::sleep(Duration::from_millis(1));
        }
    });

    println!("Done!");
}
