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
    let hits = Arc::new(Mutex::new(0usize));
    {
        let pool = pool::ThreadPool::new(4);
        for _ in 0..requests {
            let hits = Arc::clone(&hits);
            pool.execute(move || {
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
