//! Table 4.2 of Chang's thesis, for our generated `d-300`, `d-500`, `w-4` and `w-8` posets: the
//! number of consistent global states and, per algorithm, seconds and states per second, all
//! measured in one run (counting visitors; nothing stores states but BFS, whose levels are its
//! nature). Also the peak resident memory before and after the Lex/QuickLex/ParaMount runs, to
//! show it does not grow with the number of states, and as a same-run baseline the time to parse
//! and validate the poset file.
//!
//! Rates are given per wall second and per CPU second: on a shared machine the wall rate
//! understates what a free core does.
//!
//! The balance of ParaMount's work: the share of the states in the largest unit of work (an
//! interval unsplit; a part once split for 2 and 16 workers) and the speedup that greedy list
//! scheduling of those units (largest bound first, as the workers take them) allows on 2 and
//! 16 workers, counting each state as one unit of time.
//!
//! `cargo bench -p hindsight-cli --bench cuts` (`CUTS_BENCH_SEED=S` picks another seed;
//! `CUTS_BENCH_BFS_MAX=N` skips BFS on posets with more than N states, default 5e7;
//! `CUTS_BENCH_BALANCE=d-10k,...` adds posets whose balance alone is measured).

use hindsight_states::cuts::generate::{config_by_name, generate_poset};
use hindsight_states::cuts::paramount::{paramount, Plan};
use hindsight_states::cuts::poset::Poset;
use hindsight_states::cuts::poset_file::{parse_poset, write_poset};
use hindsight_states::cuts::{count, count_parallel, Algorithm, Counter};
use std::time::Instant;

fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// User + system CPU seconds of this process so far (Linux; clock ticks of 1/100 s).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

/// The result, wall seconds and CPU seconds of the fastest of `RUNS` runs of `f`: on a shared
/// machine a single short run mostly measures the neighbours.
fn best(mut f: impl FnMut() -> u64) -> (u64, f64, f64) {
    const RUNS: usize = 3;
    (0..RUNS)
        .map(|_| timed(&mut f))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .expect("at least one run")
}

/// The result, wall seconds and CPU seconds (all threads) of `f`.
fn timed(f: impl FnOnce() -> u64) -> (u64, f64, f64) {
    let cpu = cpu_seconds();
    let t = Instant::now();
    let n = f();
    (n, t.elapsed().as_secs_f64(), cpu_seconds() - cpu)
}

/// Wall seconds, states per wall second, states per CPU second (the machine is shared, so the
/// wall rate understates what a free core does; CPU time has a 10 ms resolution).
fn cell(states: u64, wall: f64, cpu: f64) -> String {
    let per_cpu = if cpu > 0.0 {
        format!("{:>6.0}", states as f64 / cpu / 1e6)
    } else {
        "     -".to_owned()
    };
    format!(
        "{wall:>7.3} s {:>6.1} M/s {per_cpu} M/cpu-s",
        states as f64 / wall / 1e6
    )
}

/// The states of each part of `plan`, counted on one thread.
fn part_sizes(poset: &Poset, plan: &Plan) -> Vec<u64> {
    plan.run(poset, 1, Algorithm::QuickLex, |_| Counter(0), |_, c, _| c.0)
}

/// The time to do the units of `sizes` on `workers` workers, each taking the next unit of
/// `schedule` when it is free (one unit of time per state).
fn makespan(sizes: &[u64], schedule: &[usize], workers: usize) -> u64 {
    let mut free = vec![0u64; workers];
    for &i in schedule {
        let w = (0..workers).min_by_key(|&w| free[w]).expect("a worker");
        free[w] += sizes[i];
    }
    free.into_iter().max().unwrap_or(0)
}

/// One line on the balance of `poset`'s work: unsplit intervals, then parts for 2 and 16
/// workers.
fn balance(name: &str, poset: &Poset) {
    let mut line = format!("{name:<6} balance:");
    for workers in [1, 2, 16] {
        let t = std::time::Instant::now();
        let plan = Plan::new(poset, workers);
        let planned = t.elapsed().as_secs_f64();
        let sizes = part_sizes(poset, &plan);
        let total: u64 = sizes.iter().sum();
        let largest = sizes.iter().copied().max().unwrap_or(0);
        let share = 100.0 * largest as f64 / total.max(1) as f64;
        if workers == 1 {
            let speedup =
                |w: usize| total as f64 / makespan(&sizes, &plan.schedule, w).max(1) as f64;
            line += &format!(
                " {} intervals, the largest {share:.2}% of {total} states (allows {:.2}x on 2, {:.2}x on 16 workers);",
                plan.parts.len(),
                speedup(2),
                speedup(16)
            );
        } else {
            let speedup = total as f64 / makespan(&sizes, &plan.schedule, workers).max(1) as f64;
            line += &format!(
                " split for {workers}: {} parts in {:.3} s, the largest {share:.2}% (allows {speedup:.2}x on {workers});",
                plan.parts.len(),
                planned
            );
        }
    }
    println!("{}", line.trim_end_matches(';'));
}

fn main() {
    let seed: u64 = std::env::var("CUTS_BENCH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let bfs_max: u64 = std::env::var("CUTS_BENCH_BFS_MAX")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .map_or(50_000_000, |x| x as u64);
    let names = ["d-300", "d-500", "w-4", "w-8"];
    let posets: Vec<(&str, Poset)> = names
        .iter()
        .map(|&n| {
            (
                n,
                generate_poset(&config_by_name(n, seed).expect("a family")),
            )
        })
        .collect();
    println!("cuts bench, seed {seed}: counting every consistent global state");
    println!(
        "{:<6} {:>3} {:>6} {:>11} | {:>20} | {:>33} | {:>33} | {:>33} | {:>33} | {:>6} {:>6}",
        "poset",
        "n",
        "events",
        "states",
        "parse+validate (base)",
        "Lex",
        "QuickLex",
        "ParaMount(1)",
        "ParaMount(2)",
        "QL/Lex",
        "PM2/QL"
    );
    let rss_before = peak_rss_kb();
    let mut counts = Vec::new();
    let mut parallel = Vec::new();
    for (name, poset) in &posets {
        let text = write_poset(poset);
        let (_, parse_s, _) = timed(|| parse_poset(&text).expect("valid").events());
        let (quick, quick_s, quick_c) = best(|| count(poset, Algorithm::QuickLex));
        let (lex, lex_s, lex_c) = best(|| count(poset, Algorithm::Lex));
        let (pm1, pm1_s, pm1_c) = best(|| count_parallel(poset, Algorithm::QuickLex, 1));
        let (pm2, pm2_s, pm2_cpu) = best(|| count_parallel(poset, Algorithm::QuickLex, 2));
        // The same 2 threads on the intervals unsplit: the baseline of the split.
        let unsplit = Plan::new(poset, 1);
        let (pmu, pmu_s, _) = best(|| {
            unsplit
                .run(poset, 2, Algorithm::QuickLex, |_| Counter(0), |_, c, _| c.0)
                .into_iter()
                .sum()
        });
        assert_eq!(pmu, quick, "unsplit ParaMount disagrees on {name}");
        let per_interval = paramount(poset, 1, Algorithm::QuickLex, |_| Counter(0), |_, c, _| c.0);
        let largest = per_interval.iter().copied().max().unwrap_or(0);
        parallel.push((
            name,
            pm2_cpu,
            pm2_s,
            quick as f64 / largest.max(1) as f64,
            per_interval.len(),
            pmu_s,
            pm1_s,
        ));
        assert!(
            lex == quick && pm1 == quick && pm2 == quick,
            "algorithms disagree on {name}"
        );
        println!(
            "{name:<6} {:>3} {:>6} {quick:>11} | {:>7.4} s {:>5.2} Mev/s | {} | {} | {} | {} | {:>6.2} {:>6.2}",
            poset.processes(),
            poset.events(),
            parse_s,
            poset.events() as f64 / parse_s / 1e6,
            cell(lex, lex_s, lex_c),
            cell(quick, quick_s, quick_c),
            cell(pm1, pm1_s, pm1_c),
            cell(pm2, pm2_s, pm2_cpu),
            lex_s / quick_s,
            quick_s / pm2_s,
        );
        counts.push(quick);
    }
    let rss_after = peak_rss_kb();
    for (name, cpu, wall, bound, intervals, unsplit, one) in parallel {
        println!(
            "{name:<6} ParaMount(2): {cpu:.2} CPU s in {wall:.3} wall s (the 2 threads ran {:.0}% of the time), {:.2}x ParaMount(1); unsplit intervals on 2 threads {unsplit:.3} s ({:.2}x); {intervals} intervals, the largest 1/{bound:.1} of the states",
            100.0 * cpu / wall / 2.0,
            one / wall,
            one / unsplit,
        );
    }
    for (name, poset) in &posets {
        balance(name, poset);
    }
    if let Ok(extra) = std::env::var("CUTS_BENCH_BALANCE") {
        for name in extra.split(',').filter(|n| !n.is_empty()) {
            let poset = generate_poset(&config_by_name(name, seed).expect("a family"));
            balance(name, &poset);
        }
    }
    if let (Some(a), Some(b)) = (rss_before, rss_after) {
        println!(
            "peak RSS: {:.1} MB with the posets loaded, {:.1} MB after enumerating {} states (Lex, QuickLex, ParaMount(1) and (2) on every poset)",
            a as f64 / 1024.0,
            b as f64 / 1024.0,
            counts.iter().sum::<u64>() * 4
        );
    }
    for ((name, poset), &states) in posets.iter().zip(&counts) {
        if states > bfs_max {
            println!("{name:<6} BFS skipped: {states} states > {bfs_max} (its levels grow with the lattice's width)");
            continue;
        }
        let (bfs, bfs_s, bfs_c) = timed(|| count(poset, Algorithm::Bfs));
        assert_eq!(bfs, states, "BFS disagrees on {name}");
        println!(
            "{name:<6} BFS {} (peak RSS now {:.1} MB)",
            cell(bfs, bfs_s, bfs_c),
            peak_rss_kb().unwrap_or(0) as f64 / 1024.0
        );
    }
}
