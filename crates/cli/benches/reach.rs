//! A table like Table 6.1 of Chang's thesis: for generated lock traces shaped like its rows
//! (threads, events), the states and seconds of the BFS and DFS simulations (reachable states,
//! memoized) against the modified QuickLex (Lex1: strong feasibility on every feasible state;
//! Lex2: only when the previous state does not imply it), all measured in this run. The bar:
//! Lex2 enumerates exactly the simulation's states, in at most 40% of BFS's time.
//!
//! `cargo bench -p hindsight-cli --bench reach` (`HINDSIGHT_BENCH_SCALE=0.5` shrinks the rows;
//! `HINDSIGHT_BENCH_STATS=1` adds Lex2's counts of checks and normalizations per row,
//! `HINDSIGHT_BENCH_SIZES=1` only prints each row's shape and number of states).

use hindsight_rng::SplitMix64;
use hindsight_states::reach::enumerate::{enumerate, Lex};
use hindsight_states::reach::loset::Loset;
use hindsight_states::reach::search::{simulate, Order};
use hindsight_trace::{Event, LockId, NameKind, Names, Op, ThreadId, VarId};
use std::hash::{BuildHasher, Hasher};
use std::ops::ControlFlow;
use std::time::Instant;

/// A run of `threads` threads (T0 forks the others first), each a sequence of `sections`
/// critical sections on one of `locks` locks (sometimes two nested) with accesses inside and
/// between, recorded by a random scheduler that respects the locks.
fn trace(threads: usize, sections: usize, locks: usize, crossing: bool, seed: u64) -> Loset {
    let mut rng = SplitMix64::new(seed);
    let mut names = Names::default();
    for t in 0..threads {
        names
            .of_mut(NameKind::Thread)
            .intern(format!("T{t}").as_bytes())
            .unwrap();
    }
    for l in 0..locks {
        names
            .of_mut(NameKind::Lock)
            .intern(format!("L{l}").as_bytes())
            .unwrap();
    }
    names.of_mut(NameKind::Var).intern(b"x").unwrap();
    let mut programs: Vec<Vec<Op>> = vec![Vec::new(); threads];
    for u in 1..threads {
        programs[0].push(Op::Fork(ThreadId(u as u32)));
    }
    for p in programs.iter_mut() {
        for _ in 0..sections {
            let l = rng.below(locks as u64) as u32;
            p.push(Op::Acquire(LockId(l)));
            p.push(Op::Write(VarId(0)));
            // Nested sections take a higher lock (a lock order) unless `crossing`, where they
            // take any other lock and release the outer one first: Fig. 5.2's pattern.
            if crossing && locks > 1 && rng.below(3) == 0 {
                let m = (l + 1 + rng.below(locks as u64 - 1) as u32) % locks as u32;
                p.push(Op::Acquire(LockId(m)));
                p.push(Op::Release(LockId(l)));
                p.push(Op::Write(VarId(0)));
                p.push(Op::Release(LockId(m)));
                continue;
            }
            if (l as usize) + 1 < locks && rng.below(4) == 0 {
                let m = l + 1 + rng.below((locks - 1 - l as usize) as u64) as u32;
                p.push(Op::Acquire(LockId(m)));
                p.push(Op::Write(VarId(0)));
                p.push(Op::Release(LockId(m)));
            }
            p.push(Op::Release(LockId(l)));
            if rng.below(2) == 0 {
                p.push(Op::Read(VarId(0)));
            }
        }
    }
    let mut pc = vec![0usize; threads];
    let mut owner: Vec<Option<usize>> = vec![None; locks];
    let mut started = vec![false; threads];
    started[0] = true;
    let mut events = Vec::new();
    loop {
        let ready: Vec<usize> = (0..threads)
            .filter(|&t| {
                started[t]
                    && match programs[t].get(pc[t]) {
                        None => false,
                        Some(Op::Acquire(l)) => owner[l.index()].is_none(),
                        Some(_) => true,
                    }
            })
            .collect();
        if ready.is_empty() {
            // A deadlock of crossing sections: the first blocked thread skips its acquisition
            // and the matching release.
            let Some(t) = (0..threads).find(|&t| started[t] && pc[t] < programs[t].len()) else {
                break;
            };
            if let Op::Acquire(l) = programs[t][pc[t]].clone() {
                let rel = Op::Release(l);
                if let Some(k) = (pc[t] + 1..programs[t].len()).find(|&k| programs[t][k] == rel) {
                    programs[t].remove(k);
                }
            }
            programs[t].remove(pc[t]);
            continue;
        }
        let t = *rng.pick(&ready);
        let op = programs[t][pc[t]].clone();
        pc[t] += 1;
        match &op {
            Op::Acquire(l) => owner[l.index()] = Some(t),
            Op::Release(l) => owner[l.index()] = None,
            Op::Fork(u) => started[u.index()] = true,
            _ => {}
        }
        events.push(Event::new(events.len() as u64, ThreadId(t as u32), op));
    }
    Loset::from_events(&events, names)
}

/// An order-independent digest of a set of states.
#[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
struct Digest {
    count: u64,
    sum: u64,
    xor: u64,
}

impl Digest {
    fn add(&mut self, g: &[u32]) {
        let mut h = rustc_hash::FxBuildHasher.build_hasher();
        for &x in g {
            h.write_u32(x);
        }
        let v = h.finish().wrapping_mul(0x2545_F491_4F6C_DD1D);
        self.count += 1;
        self.sum = self.sum.wrapping_add(v);
        self.xor ^= v.rotate_left(17);
    }
}

fn timed(f: impl FnOnce() -> Digest) -> (Digest, f64) {
    let t = Instant::now();
    let d = f();
    (d, t.elapsed().as_secs_f64())
}

fn main() {
    let scale: f64 = std::env::var("HINDSIGHT_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    // (name, threads, critical sections per thread, locks): shaped like Table 6.1's rows
    // (7-16 threads, 56-189 events).
    let rows: [(&str, usize, usize, usize, bool); 7] = [
        ("bank-like", 7, 2, 2, false),
        ("set-like", 6, 3, 3, false),
        ("arraylist-like", 8, 2, 2, false),
        ("sor-like", 10, 1, 2, false),
        ("tsp-like", 7, 2, 3, false),
        ("hedc-like", 6, 3, 2, false),
        ("crossing", 6, 4, 2, true),
    ];
    println!(
        "{:<15} {:>3} {:>7} {:>10} {:>8} {:>8} {:>8} {:>8} {:>9} {:>6}",
        "trace", "n", "#events", "#GS", "BFS s", "DFS s", "Lex1 s", "Lex2 s", "Lex2/BFS", "same"
    );
    let mut worst: f64 = 0.0;
    let mut all_same = true;
    for (name, threads, sections, locks, crossing) in rows {
        let sections = ((sections as f64 * scale).round() as usize).max(1);
        let seed = threads as u64 * 31 + sections as u64;
        let loset = trace(threads, sections, locks, crossing, seed);
        let zero = vec![0; loset.processes()];
        let end = loset.final_state();
        let sim = |order| {
            let mut d = Digest::default();
            simulate(&loset, &zero, &end, order, |g| {
                d.add(g);
                ControlFlow::Continue(())
            });
            d
        };
        let lex = |which| {
            let mut d = Digest::default();
            enumerate(&loset, which, &mut |g: &[u32]| {
                d.add(g);
                ControlFlow::Continue(())
            });
            d
        };
        if std::env::var("HINDSIGHT_BENCH_SIZES").is_ok() {
            let mut c = hindsight_states::cuts::Counter(0);
            enumerate(&loset, Lex::Lex2, &mut c);
            println!(
                "{name}: n {} events {} states {}",
                loset.processes(),
                loset.hb.events(),
                c.0
            );
            continue;
        }
        let (bfs, t_bfs) = timed(|| sim(Order::Bfs));
        let (dfs, t_dfs) = timed(|| sim(Order::Dfs));
        let (lex1, t_lex1) = timed(|| lex(Lex::Lex1));
        let (lex2, t_lex2) = timed(|| lex(Lex::Lex2));
        if std::env::var("HINDSIGHT_BENCH_STATS").is_ok() {
            let mut c = hindsight_states::cuts::Counter(0);
            let st = enumerate(&loset, Lex::Lex2, &mut c);
            let lf = {
                let mut k = 0u64;
                enumerate(&loset, Lex::Lex2, &mut |g: &[u32]| {
                    k += u64::from(loset.is_lock_free(g));
                    ControlFlow::Continue(())
                });
                k
            };
            eprintln!("{name}: {st:?} lock-free {lf}");
        }
        let same = bfs == dfs && bfs == lex1 && bfs == lex2;
        all_same &= same;
        let ratio = t_lex2 / t_bfs;
        worst = worst.max(ratio);
        println!(
            "{:<15} {:>3} {:>7} {:>10} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.0}% {:>6}",
            name,
            loset.processes(),
            loset.hb.events(),
            bfs.count,
            t_bfs,
            t_dfs,
            t_lex1,
            t_lex2,
            ratio * 100.0,
            if same { "yes" } else { "NO" }
        );
    }
    println!(
        "bar: Lex2 produces the simulation's states: {}; Lex2 <= 40% of BFS's time on every row: {} (worst {:.0}%)",
        if all_same { "yes" } else { "NO" },
        if worst <= 0.4 { "yes" } else { "NO" },
        worst * 100.0
    );
}
