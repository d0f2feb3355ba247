//! The book's thread pool (`thread_pool.rs`, unchanged) with a realistic bug injected into the
//! jobs: counting a request reads the count in one critical section and writes it back in
//! another, with work in between (here, formatting a log line). Almost every run counts every
//! request; `hindsight views` predicts the lost update from such a run.
//!
//! ```sh
//! HINDSIGHT_TRACE=racy.hst cargo run -p hindsight-record --example thread_pool_racy
//! hindsight views --regions locks racy.hst
//! ```

#[allow(dead_code)]
#[path = "thread_pool.rs"]
pub mod pool;

use hindsight_record::sync::{Arc, Mutex};

/// Serves `requests` requests on a pool of 4 workers; returns the number counted (fewer than
/// `requests` when an update was lost).
pub fn serve(requests: usize) -> usize {
    serve_with(requests, None)
}

/// `serve` on a schedule fixed by synchronisation the recorder does not see (std's, not
/// `hindsight_record::sync`): the first two jobs meet at a barrier, so two workers run jobs,
/// and job bodies run one at a time, so no update is lost. The recorded trace is that of a
/// lucky run of `serve`; the tests use it so that they do not depend on the machine's
/// scheduler (a 2-core machine can run every job on one worker twenty runs in a row).
pub fn serve_in_turn(requests: usize) -> usize {
    serve_with(requests, Some(std::sync::Arc::new(InTurn::default())))
}

#[derive(Default)]
struct InTurn {
    started: std::sync::atomic::AtomicUsize,
    first_two: std::sync::OnceLock<std::sync::Barrier>,
    one_at_a_time: std::sync::Mutex<()>,
}

impl InTurn {
    fn enter(&self) -> std::sync::MutexGuard<'_, ()> {
        use std::sync::atomic::Ordering::SeqCst;
        if self.started.fetch_add(1, SeqCst) < 2 {
            // The job that waits here holds its worker, so the other job runs on another.
            self.first_two
                .get_or_init(|| std::sync::Barrier::new(2))
                .wait();
        }
        self.one_at_a_time.lock().unwrap()
    }
}

fn serve_with(requests: usize, turn: Option<std::sync::Arc<InTurn>>) -> usize {
    let hits = Arc::new(Mutex::new(0usize));
    {
        let pool = pool::ThreadPool::new(4);
        for _ in 0..requests {
            let hits = Arc::clone(&hits);
            let turn = turn.clone();
            pool.execute(move || {
                let _turn = turn.as_deref().map(InTurn::enter);
                let seen = *hits.lock().unwrap();
                let line = format!("request {}", seen + 1);
                std::hint::black_box(line);
                *hits.lock().unwrap() = seen + 1;
            });
        }
    }
    let n = *hits.lock().unwrap();
    n
}

fn main() {
    let _trace = hindsight_record::init();
    println!("{} of 16 requests counted", serve(16));
}
