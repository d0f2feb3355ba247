//! Time of `composed` per operation: classification (Section 4) plus verification
//! (Definition 3.1 over every interleaving, Theorem 4.1's domain), on every operation of
//! `examples/composed/*.java` and on generated operations (`composed::generate`, nested three
//! deep). The bar is 50 ms per operation. Baseline measured in the same run: parsing and
//! lowering the same operations.
//!
//! `cargo bench -p hindsight-cli --bench composed`

use hindsight_budget::Budget;
use hindsight_source::composed::{analyse_one, generate, ir, parse, Verdict};
use std::path::Path;
use std::time::Instant;

/// Median seconds of `runs` runs of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn ms(s: f64) -> String {
    format!("{:.3} ms", s * 1e3)
}

/// Times every operation of `source`; returns the slowest time and the verdict counts.
fn bench_file(label: &str, source: &str, runs: usize, print_each: bool) -> (f64, [usize; 3]) {
    let programs = parse(source).expect("the source parses");
    let program = &programs[0];
    let baseline = median(runs, || {
        for p in parse(source).expect("parses") {
            for op in &p.operations {
                std::hint::black_box(ir::lower(&p, op));
            }
        }
    }) / program.operations.len() as f64;
    let mut worst: f64 = 0.0;
    let mut total = 0.0;
    let mut counts = [0usize; 3];
    for op in &program.operations {
        let mut verdict = Verdict::NotProved;
        let mut class = "";
        let mut states = 0;
        let t = median(runs, || {
            let a = analyse_one(program, op, false, &Budget::unlimited());
            verdict = a.verdict;
            class = a.classification.class.as_str();
            states = a.states;
        });
        counts[match verdict {
            Verdict::Linearizable => 0,
            Verdict::NotLinearizable => 1,
            Verdict::NotProved | Verdict::Unsupported | Verdict::NotReached => 2,
        }] += 1;
        worst = worst.max(t);
        total += t;
        if print_each {
            // The bounded check of a data-dependent operation, for information (not the bar).
            let bounded = if class == "data-dependent" {
                let mut b = Verdict::NotProved;
                let t = median(5, || {
                    b = analyse_one(program, op, true, &Budget::unlimited()).verdict
                });
                format!("  --bounded: {} in {}", b.as_str(), ms(t))
            } else {
                String::new()
            };
            println!(
                "  {:<18} {:<15} {:<17} {:>7} states {:>11}{bounded}",
                op.name,
                class,
                verdict.as_str(),
                states,
                ms(t)
            );
        }
    }
    println!(
        "{label}: {} operations, mean {} and max {} per operation (classify + verify); baseline parse + lower {} per operation; bar 50 ms: {}",
        program.operations.len(),
        ms(total / program.operations.len() as f64),
        ms(worst),
        ms(baseline),
        if worst < 0.050 { "met" } else { "MISSED" }
    );
    (worst, counts)
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/composed");
    for file in ["paper.java", "applications.java"] {
        let source = std::fs::read_to_string(root.join(file)).expect("example");
        println!("{file}:");
        bench_file(file, &source, 21, true);
    }
    let source = generate::file(7, 200, 3);
    let (_, counts) = bench_file("200 generated operations (depth 3)", &source, 5, false);
    println!(
        "  verdicts: {} linearizable, {} not linearizable, {} not proved",
        counts[0], counts[1], counts[2]
    );
}
