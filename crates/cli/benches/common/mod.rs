//! What the trace benches share: the best-of-N timer and the same-run baseline every trace
//! analysis is measured against (reading, validating and happens-before, no analysis).

#![allow(dead_code)]

use hindsight_stream::{run_any, RunOptions};
use std::path::Path;
use std::time::Instant;

/// Seconds of the fastest of `runs` runs of `f`, and what the last run returned.
pub fn best_of<F: FnMut() -> u64>(runs: usize, mut f: F) -> (f64, u64) {
    let mut best = f64::INFINITY;
    let mut out = 0;
    for _ in 0..runs {
        let t = Instant::now();
        out = f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    (best, out)
}

/// Reads, validates and runs happens-before over the trace at `path`; its event count.
pub fn validate_hb(path: &Path) -> u64 {
    let mut r = hindsight_trace::open(path).expect("open");
    run_any(&mut r, Vec::new(), RunOptions::default())
        .expect("valid trace")
        .stats
        .events
}
