//! Recording overhead, measured in one run against its own baseline, in CPU time (time spent
//! on a CPU, summed over the threads; see `CpuClock`):
//! - a lock-heavy workload (4 threads, each iteration locks one of 4 mutexes and increments a
//!   counter: `acq`, `r`, `w`, `rel` when recording, the guard's accesses) with plain std
//!   types, with the recording types while nothing records, and while recording;
//! - a contended thread pool (the Book's design: 4 workers take jobs from one channel behind
//!   one mutex; each job increments one shared counter under another), the same three ways;
//! - a single thread reading a tracked variable (the cheapest event);
//! - the bar's 4-thread, 1 M-event program: recorded, written, then read back and analysed by
//!   `races`.
//!
//! `cargo bench -p hindsight-record --bench overhead` (HINDSIGHT_BENCH_ITERS=N per thread to
//! change the lock workload, default 250,000, i.e. 4 M events; HINDSIGHT_BENCH_PART=lock,
//! pool, reads or million to run one part).

use hindsight_record::sync::Mutex;
use hindsight_record::{thread, Recorder, Shared};
use hindsight_stream::races::Races;
use hindsight_stream::{run_any, RunOptions};
use std::hint::black_box;
use std::time::{Duration, Instant};

const THREADS: usize = 4;
const REPEAT: usize = 50;

/// One lock per cache line in both versions, so that layout does not decide contention.
#[repr(align(128))]
struct Padded<T>(T);

fn iters() -> usize {
    std::env::var("HINDSIGHT_BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(250_000)
}

/// Time this thread has spent on a CPU (`/proc/thread-self/schedstat`, in ns): the machine
/// running the benches is shared, and wall-clock time would count the time spent waiting for
/// a CPU. Falls back to wall-clock time where that file does not exist.
#[derive(Clone, Copy)]
struct CpuClock(Option<u64>, Instant);

impl CpuClock {
    fn now() -> CpuClock {
        // The kernel brings the figure up to date when the thread passes through the
        // scheduler, not on every read.
        std::thread::yield_now();
        let on_cpu = std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok());
        CpuClock(on_cpu, Instant::now())
    }

    fn elapsed(self) -> Duration {
        match (self.0, CpuClock::now().0) {
            (Some(a), Some(b)) => Duration::from_nanos(b - a),
            _ => self.1.elapsed(),
        }
    }
}

/// Runs `body(t)` on `threads` threads; the sum of their CPU times.
fn on_threads<F: Fn(usize) + Sync>(threads: usize, body: F) -> Duration {
    let body = &body;
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    let c = CpuClock::now();
                    body(t);
                    c.elapsed()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).sum()
    })
}

fn std_workload(threads: usize, n: usize) -> Duration {
    let locks: Vec<Padded<std::sync::Mutex<i64>>> =
        (0..4).map(|_| Padded(std::sync::Mutex::new(0))).collect();
    let d = on_threads(threads, |t| {
        for i in 0..n {
            let mut x = locks[(t + i) % 4].0.lock().unwrap();
            let v = *x;
            *x = black_box(v) + 1;
        }
    });
    black_box(locks);
    d
}

/// The same with the recording types, spawned through `hindsight_record::thread` so that the
/// recording has its forks and joins.
fn traced_workload(threads: usize, n: usize) -> Duration {
    let locks: Vec<Padded<Mutex<i64>>> = (0..4).map(|_| Padded(Mutex::new(0))).collect();
    let d = thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                let locks = &locks;
                s.spawn(move || {
                    let c = CpuClock::now();
                    for i in 0..n {
                        let mut x = locks[(t + i) % 4].0.lock().unwrap();
                        let v = *x;
                        *x = black_box(v) + 1;
                    }
                    c.elapsed()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).sum()
    });
    black_box(locks);
    d
}

fn best_of<F: FnMut() -> Duration>(runs: usize, mut f: F) -> Duration {
    (0..runs).map(|_| f()).min().expect("at least one run")
}

fn ns(d: Duration, per: u64) -> f64 {
    d.as_nanos() as f64 / per as f64
}

/// Whether to run `part` (`HINDSIGHT_BENCH_PART=lock|reads|million`; all by default).
fn wanted(part: &str) -> bool {
    std::env::var("HINDSIGHT_BENCH_PART").map_or(true, |p| p == part)
}

fn main() {
    let dir = std::env::temp_dir();
    if wanted("lock") {
        lock_heavy(&dir, 1);
        lock_heavy(&dir, THREADS);
    }
    if wanted("pool") {
        pool(&dir);
    }
    if wanted("reads") {
        single_thread_reads(&dir);
    }
    if wanted("million") {
        million(&dir);
    }
}

fn lock_heavy(dir: &std::path::Path, threads: usize) {
    let n = iters() * THREADS / threads;
    let ops = (threads * n) as u64;
    let events = 4 * ops;

    println!("lock-heavy workload: {threads} thread(s) x {n} lock/increment/unlock ({ops} critical sections), CPU time");
    let plain = best_of(5, || std_workload(threads, n));
    println!(
        "  plain std                     {:>8.1} ns/section",
        ns(plain, ops)
    );
    let idle = best_of(5, || traced_workload(threads, n));
    println!(
        "  hindsight types, not recording {:>7.1} ns/section   ({:.2}x plain)",
        ns(idle, ops),
        idle.as_secs_f64() / plain.as_secs_f64()
    );
    let path = dir.join("hindsight-bench-overhead.hst");
    let mut recording = Duration::MAX;
    let mut written = Duration::MAX;
    let mut recorded = 0;
    for _ in 0..3 {
        let rec = Recorder::start(&path).expect("can record");
        let d = traced_workload(threads, n);
        let w = CpuClock::now();
        let summary = rec.finish().expect("written");
        recording = recording.min(d);
        written = written.min(w.elapsed());
        recorded = summary.events;
    }
    assert_eq!(
        recorded,
        events + 2 * threads as u64,
        "4 events per section, fork and join"
    );
    println!(
        "  recording                     {:>8.1} ns/section   ({:.2}x plain)",
        ns(recording, ops),
        recording.as_secs_f64() / plain.as_secs_f64()
    );
    println!(
        "  => {:.1} ns per recorded event while running ({:.1} ns over plain std), plus {:.1} ns per event to merge and write the file ({} events, {:.1} MB)",
        ns(recording, events),
        ns(recording.saturating_sub(plain), events),
        ns(written, events),
        recorded,
        std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) as f64 / 1e6
    );

    let _ = std::fs::remove_file(&path);
}

/// The types a pool is made of: std's, or the recording ones.
mod plain {
    pub use std::sync::{mpsc, Arc, Mutex};
    pub use std::thread;
}
mod traced {
    pub use hindsight_record::sync::{mpsc, Arc, Mutex};
    pub use hindsight_record::thread;
}

/// The Book's thread pool, written once for both sets of types: `$name(jobs)` runs `jobs`
/// jobs on 4 workers and returns the CPU time of the submitting thread and the workers.
macro_rules! pool_workload {
    ($name:ident, $types:ident) => {
        fn $name(jobs: usize) -> Duration {
            use $types::{mpsc, thread, Arc, Mutex};
            type Job = Box<dyn FnOnce() + Send + 'static>;
            let hits = Arc::new(Mutex::new(0u64));
            let (tx, rx) = mpsc::channel::<Job>();
            let rx = Arc::new(Mutex::new(rx));
            let workers: Vec<_> = (0..4)
                .map(|_| {
                    let rx = Arc::clone(&rx);
                    thread::spawn(move || {
                        let c = CpuClock::now();
                        loop {
                            let job = rx.lock().unwrap().recv();
                            match job {
                                Ok(job) => job(),
                                Err(_) => break,
                            }
                        }
                        c.elapsed()
                    })
                })
                .collect();
            let c = CpuClock::now();
            for _ in 0..jobs {
                let hits = Arc::clone(&hits);
                tx.send(Box::new(move || {
                    *hits.lock().unwrap() += 1;
                }))
                .unwrap();
            }
            drop(tx);
            let main = c.elapsed();
            let d = main
                + workers
                    .into_iter()
                    .map(|w| w.join().unwrap())
                    .sum::<Duration>();
            assert_eq!(*hits.lock().unwrap(), jobs as u64);
            d
        }
    };
}

pool_workload!(std_pool, plain);
pool_workload!(traced_pool, traced);

fn pool(dir: &std::path::Path) {
    let jobs = iters() / 2;
    println!("contended thread pool: 4 workers, {jobs} jobs through one channel behind one mutex, each incrementing one shared counter, CPU time");
    let plain = best_of(5, || std_pool(jobs));
    println!(
        "  plain std                     {:>8.1} ns/job",
        ns(plain, jobs as u64)
    );
    let idle = best_of(5, || traced_pool(jobs));
    println!(
        "  hindsight types, not recording {:>7.1} ns/job   ({:.2}x plain)",
        ns(idle, jobs as u64),
        idle.as_secs_f64() / plain.as_secs_f64()
    );
    let path = dir.join("hindsight-bench-pool.hst");
    let mut recording = Duration::MAX;
    let mut events = 0;
    for _ in 0..3 {
        let rec = Recorder::start(&path).expect("can record");
        recording = recording.min(traced_pool(jobs));
        events = rec.finish().expect("written").events;
    }
    println!(
        "  recording                     {:>8.1} ns/job   ({:.2}x plain)",
        ns(recording, jobs as u64),
        recording.as_secs_f64() / plain.as_secs_f64()
    );
    println!(
        "  => {:.1} events per job, {:.1} ns per recorded event while running ({:.1} ns over plain std)",
        events as f64 / jobs as f64,
        ns(recording, events),
        ns(recording.saturating_sub(plain), events)
    );
    let _ = std::fs::remove_file(&path);
}

/// The cheapest event: one thread reading a tracked variable.
fn single_thread_reads(dir: &std::path::Path) {
    let path = dir.join("hindsight-bench-reads.hst");
    let reads = 4_000_000u64;
    let x = Shared::new(1u64);
    let base = best_of(3, || {
        let v = 1u64;
        let start = CpuClock::now();
        let mut sum = 0u64;
        for _ in 0..reads * REPEAT as u64 {
            sum = sum.wrapping_add(*black_box(&v));
        }
        black_box(sum);
        start.elapsed()
    }) / REPEAT as u32;
    let read_time = best_of(3, || {
        let rec = Recorder::start(&path).expect("can record");
        let start = CpuClock::now();
        let mut sum = 0u64;
        for _ in 0..reads {
            sum = sum.wrapping_add(*black_box(&x).read());
        }
        black_box(sum);
        let d = start.elapsed();
        rec.finish().expect("written");
        d
    });
    println!(
        "single thread, {reads} recorded reads of a Shared<u64>: {:.1} ns/event (plain read {:.2} ns)",
        ns(read_time, reads),
        ns(base, reads)
    );

    let _ = std::fs::remove_file(&path);
}

/// The bar: a 4-thread, 1 M-event program records, loads and analyses.
fn million(dir: &std::path::Path) {
    let million = dir.join("hindsight-bench-million.hst");
    let rec = Recorder::start(&million).expect("can record");
    let start = Instant::now();
    traced_workload(THREADS, 1_000_000 / 4 / THREADS);
    let summary = rec.finish().expect("written");
    let t_record = start.elapsed();
    let start = Instant::now();
    let mut src = hindsight_trace::open(&million).expect("opens");
    let outcome = run_any(
        &mut src,
        vec![Box::new(Races::new())],
        RunOptions {
            strict: true,
            ..RunOptions::default()
        },
    )
    .expect("the trace loads and validates strictly");
    let findings = outcome.outputs[0].1.findings.len();
    println!(
        "4 threads, {} events: recorded and written in {:.0} ms, loaded and analysed by races in {:.0} ms, {findings} finding(s)",
        summary.events,
        t_record.as_secs_f64() * 1e3,
        start.elapsed().as_secs_f64() * 1e3
    );
    assert_eq!(findings, 0);
    let _ = std::fs::remove_file(&million);
}
