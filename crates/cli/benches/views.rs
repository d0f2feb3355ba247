//! Throughput of `views` on a generated trace, next to the same-run baseline of reading,
//! validating and happens-before (the driver with no analysis).
//!
//! `cargo bench -p hindsight-cli --bench views` (events: `HINDSIGHT_BENCH_EVENTS`, default 10
//! million). The trace models programs like the examples: 8 worker threads run atomic blocks
//! (swap, reset, read, deposit, audit, ...) on 4 instances each of three classes, with now and
//! then a message from one worker to the next (so that happens-before orders some regions and
//! the may-happen-in-parallel filter has work to do). Distinct views stay in the hundreds
//! whatever the length: the figure printed with them shows that the analysis' state does not
//! grow with the trace.

mod common;

use common::{best_of, validate_hb};

use hindsight_rng::SplitMix64;
use hindsight_stream::views::{DynamicViews, Regions};
use hindsight_stream::{run_any, RunOptions};
use hindsight_trace::{BinaryWriter, Event, NameKind, Names, Op, TextWriter, ThreadId};
use hindsight_trace::{LockId, MsgId, VarId};
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::time::Instant;

/// Atomic blocks: (class, accesses as (is write, field)).
const TEMPLATES: &[(&str, &[(bool, &str)])] = &[
    (
        "Coord",
        &[(false, "x"), (false, "y"), (true, "x"), (true, "y")],
    ),
    ("Coord", &[(true, "x")]),
    ("Coord", &[(true, "y")]),
    ("Account", &[(false, "balance")]),
    ("Account", &[(true, "balance")]),
    ("Account", &[(false, "balance"), (true, "balance")]),
    ("Table", &[(false, "size"), (false, "sum")]),
    (
        "Table",
        &[
            (false, "size"),
            (true, "size"),
            (false, "sum"),
            (true, "sum"),
        ],
    ),
];
const INSTANCES: u64 = 4;
const WORKERS: u32 = 8;

/// Writes `events` events (about) to both sinks.
fn generate(events: u64, mut sink: impl FnMut(&Event, &Names)) {
    let mut names = Names::default();
    let mut rng = SplitMix64::new(0x2545_F491_4F6C_DD1D);
    let thread = |names: &mut Names, i: u32| {
        ThreadId(
            names
                .of_mut(NameKind::Thread)
                .intern(format!("T{i}").as_bytes())
                .unwrap(),
        )
    };
    let var = |names: &mut Names, class: &str, inst: u64, field: &str| {
        VarId(
            names
                .of_mut(NameKind::Var)
                .intern(format!("{class}#{inst}.{field}").as_bytes())
                .unwrap(),
        )
    };
    let main = thread(&mut names, 0);
    let workers: Vec<ThreadId> = (1..=WORKERS).map(|i| thread(&mut names, i)).collect();
    let lock = LockId(names.of_mut(NameKind::Lock).intern(b"L").unwrap());
    let msg = MsgId(names.of_mut(NameKind::Msg).intern(b"m").unwrap());
    let mut index = 0u64;
    let mut emit = |t: ThreadId, op: Op, names: &Names| {
        sink(&Event::new(index, t, op), names);
        index += 1;
    };
    for &w in &workers {
        emit(main, Op::Fork(w), &names);
    }
    // Each worker's pending events of its current block.
    let mut pending: Vec<Vec<Op>> = vec![Vec::new(); workers.len()];
    let body = events.saturating_sub(2 * u64::from(WORKERS));
    let mut done = 0u64;
    let mut sent = false;
    while done < body {
        let w = rng.below(u64::from(WORKERS)) as usize;
        if pending[w].is_empty() {
            let r = rng.below(100);
            if r < 2 {
                pending[w].push(Op::Send(msg));
                sent = true;
            } else if r < 4 && sent {
                pending[w].push(Op::Receive(msg));
            } else if r < 10 {
                // A lock region inside no block: ignored once blocks are seen, but validated
                // and ordered by happens-before like any other.
                pending[w].extend([Op::Acquire(lock), Op::Release(lock)]);
            } else {
                let (class, accesses) = *rng.pick(TEMPLATES);
                let inst = rng.below(INSTANCES);
                pending[w].push(Op::Begin(None));
                for &(write, field) in accesses.iter().rev().collect::<Vec<_>>().into_iter().rev() {
                    let x = var(&mut names, class, inst, field);
                    pending[w].push(if write { Op::Write(x) } else { Op::Read(x) });
                }
                pending[w].push(Op::End);
            }
            pending[w].reverse();
        }
        let op = pending[w].pop().expect("pending");
        emit(workers[w], op, &names);
        done += 1;
    }
    for (w, rest) in pending.iter_mut().enumerate() {
        while let Some(op) = rest.pop() {
            emit(workers[w], op, &names);
        }
    }
    for &w in &workers {
        emit(main, Op::Join(w), &names);
    }
}

fn views(path: &Path, mhp: bool) -> (u64, serde_json::Map<String, serde_json::Value>) {
    let mut r = hindsight_trace::open(path).expect("open");
    let mut out = run_any(
        &mut r,
        vec![Box::new(DynamicViews::new(Regions::Auto, mhp))],
        RunOptions::default(),
    )
    .expect("valid trace");
    let (_, o) = out.outputs.remove(0);
    (out.stats.events, o.summary)
}

fn main() {
    let events: u64 = std::env::var("HINDSIGHT_BENCH_EVENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let dir = std::env::temp_dir().join(format!("hindsight-views-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let text_path = dir.join("views.std");
    let bin_path = dir.join("views.hst");
    let t = Instant::now();
    {
        let mut text = TextWriter::new(BufWriter::with_capacity(
            1 << 20,
            File::create(&text_path).expect("create"),
        ));
        let mut bin = BinaryWriter::new(BufWriter::with_capacity(
            1 << 20,
            File::create(&bin_path).expect("create"),
        ))
        .expect("header");
        generate(events, |e, names| {
            text.write_event(e, names).expect("write");
            bin.write_event(e, names).expect("write");
        });
        text.finish().expect("flush");
        bin.finish().expect("flush");
    }
    println!(
        "generated {events} events ({WORKERS} workers, {} block templates x {INSTANCES} instances) in {:.2}s",
        TEMPLATES.len(),
        t.elapsed().as_secs_f64()
    );
    let runs = 3;
    let rate = |n: u64, secs: f64| n as f64 / secs / 1e6;
    for (label, path) in [("text", &text_path), ("binary", &bin_path)] {
        let (base, n) = best_of(runs, || validate_hb(path));
        let mut summary = serde_json::Map::new();
        let (full, m) = best_of(runs, || {
            let (n, s) = views(path, true);
            summary = s;
            n
        });
        let (off, _) = best_of(runs, || views(path, false).0);
        assert_eq!(n, m);
        println!(
            "{label:>6}: read + validate + happens-before {:>6.1} M events/s",
            rate(n, base)
        );
        println!(
            "{label:>6}: + views (MHP on)                 {:>6.1} M events/s ({:.0}% of baseline)",
            rate(n, full),
            100.0 * base / full
        );
        println!(
            "{label:>6}: + views (--no-mhp)               {:>6.1} M events/s",
            rate(n, off)
        );
        println!(
            "{label:>6}: {} regions, {} distinct views, summary {}",
            summary["atomic_regions"],
            summary["views"],
            serde_json::Value::Object(summary.clone())
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
