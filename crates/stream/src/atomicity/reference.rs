//! The brute-force reference for `atomicity`, by the definitions: for every pair of threads
//! `(T, T')`, the product search of Section 2.1 over positions `(a, b)` of the two threads (lock
//! ownership is a function of the positions), with the fork/join order as extra precedence, and
//! every triple `(e1, f, e2)` checked against it. Quadratic per pair and cubic overall: for
//! tests on small traces only. It shares no code with the linear algorithm.
//!
//! It is the literal reference the property tests (`tests/atomicity_oracle.rs`) hold the fast
//! code against. Test support, not API: compiled only with the `oracle` feature, which this
//! crate's tests enable through a dev-dependency on the crate itself.
//!
//! Two verdicts per triple:
//! - `reaches`: some inferred run executes `e1`, then `f`, with `e2` not yet executed (the
//!   condition of Lemma 2 and Theorem 1, which the linear algorithm decides);
//! - `completes`: some inferred run executes `e1`, then `f`, then `e2` (Lemma 1 itself).
//!
//! They differ only when inferred runs deadlock; a pair of threads is *deadlock-free* when every
//! reachable product state can be completed to the end of both threads.

use hindsight_trace::{LockId, Op, ThreadId, Trace, VarId};
use std::collections::{BTreeMap, BTreeSet};

/// A violating triple: threads, variable, pattern (writes of `e1`, `f`, `e2`), event indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Triple {
    pub thread: ThreadId,
    pub other: ThreadId,
    pub var: VarId,
    pub pattern: [bool; 3],
    pub e1: u64,
    pub f: u64,
    pub e2: u64,
}

/// What the reference finds.
#[derive(Clone, Debug, Default)]
pub struct Verdicts {
    pub reaches: BTreeSet<Triple>,
    pub completes: BTreeSet<Triple>,
    /// Ordered pairs `(T, T')` every reachable state of which completes.
    pub deadlock_free: BTreeSet<(ThreadId, ThreadId)>,
}

struct Thread {
    /// (event index, op)
    events: Vec<(u64, Op)>,
    /// Transaction of each event; events outside blocks get a transaction of their own.
    txn: Vec<u64>,
    /// Fork/join clock of each event, in positions of each thread.
    clock: Vec<Vec<u32>>,
    /// Re-entrancy count of each lock after each position (index 0: before any event).
    held: Vec<BTreeMap<LockId, u32>>,
}

impl Thread {
    fn count(&self, pos: usize, l: LockId) -> u32 {
        self.held[pos].get(&l).copied().unwrap_or(0)
    }
}

fn threads(trace: &Trace) -> BTreeMap<ThreadId, Thread> {
    let mut out: BTreeMap<ThreadId, Thread> = BTreeMap::new();
    let mut clocks: BTreeMap<ThreadId, Vec<u32>> = BTreeMap::new();
    let mut depth: BTreeMap<ThreadId, u32> = BTreeMap::new();
    let mut current_txn: BTreeMap<ThreadId, u64> = BTreeMap::new();
    let mut next_txn = 0u64;
    let n = trace.names.threads.len().max(1);
    for e in &trace.events {
        let t = e.thread;
        let th = out.entry(t).or_insert_with(|| Thread {
            events: Vec::new(),
            txn: Vec::new(),
            clock: Vec::new(),
            held: vec![BTreeMap::new()],
        });
        th.events.push((e.index, e.op.clone()));
        let pos = th.events.len() as u32;
        let clock = clocks.entry(t).or_insert_with(|| vec![0; n]);
        clock[t.index()] = pos;
        if let Op::Join(u) = e.op {
            let theirs = clocks.get(&u).cloned().unwrap_or_else(|| vec![0; n]);
            let mine = clocks.get_mut(&t).expect("present");
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a = (*a).max(b);
            }
        }
        let mine = clocks[&t].clone();
        let th = out.get_mut(&t).expect("present");
        th.clock.push(mine.clone());
        if let Op::Fork(u) = e.op {
            let child = clocks.entry(u).or_insert_with(|| vec![0; n]);
            for (a, b) in child.iter_mut().zip(&mine) {
                *a = (*a).max(*b);
            }
        }
        let d = depth.entry(t).or_insert(0);
        match e.op {
            Op::Begin(_) => {
                if *d == 0 {
                    next_txn += 1;
                    current_txn.insert(t, next_txn);
                }
                *d += 1;
            }
            Op::End if *d > 0 => *d -= 1,
            _ => {}
        }
        let txn = if *d > 0 || matches!(e.op, Op::End) && current_txn.contains_key(&t) {
            current_txn[&t]
        } else {
            next_txn += 1;
            next_txn
        };
        if *d == 0 {
            current_txn.remove(&t);
        }
        th.txn.push(txn);
        let mut held = th.held.last().expect("initial").clone();
        match e.op {
            Op::Acquire(l) => *held.entry(l).or_insert(0) += 1,
            Op::Release(l) => {
                if let Some(c) = held.get_mut(&l) {
                    *c -= 1;
                    if *c == 0 {
                        held.remove(&l);
                    }
                }
            }
            _ => {}
        }
        th.held.push(held);
    }
    out
}

/// Can `me`, after `a` of its events, run its next one while `other` has run `b` of its own?
fn can_step(me: &Thread, other: &Thread, o: ThreadId, a: usize, b: usize) -> bool {
    let Some((_, op)) = me.events.get(a) else {
        return false;
    };
    if me.clock[a][o.index()] as usize > b {
        return false;
    }
    match op {
        Op::Acquire(l) => me.count(a, *l) > 0 || other.count(b, *l) == 0,
        _ => true,
    }
}

/// An access, plain or atomic, and whether it writes: two accesses of one variable depend
/// (Definition 4's `D`) when either writes. An RMW is one event (no `f` can come between its
/// read and its write) that writes.
fn access(op: &Op) -> Option<(VarId, bool)> {
    op.accessed().map(|x| (x, op.writes()))
}

/// The verdicts for every triple of the trace.
pub fn verdicts(trace: &Trace) -> Verdicts {
    let ths = threads(trace);
    let mut out = Verdicts::default();
    for (&t, tt) in &ths {
        for (&u, tu) in &ths {
            if t == u {
                continue;
            }
            let (nt, nu) = (tt.events.len(), tu.events.len());
            // Forward reachability from (0, 0).
            let mut reach = vec![vec![false; nu + 1]; nt + 1];
            reach[0][0] = true;
            for a in 0..=nt {
                for b in 0..=nu {
                    if !reach[a][b] {
                        continue;
                    }
                    if can_step(tt, tu, u, a, b) {
                        reach[a + 1][b] = true;
                    }
                    if can_step(tu, tt, t, b, a) {
                        reach[a][b + 1] = true;
                    }
                }
            }
            // Co-reachability of the end of both threads.
            let mut ends = vec![vec![false; nu + 1]; nt + 1];
            for a in (0..=nt).rev() {
                for b in (0..=nu).rev() {
                    ends[a][b] = (a == nt && b == nu)
                        || (can_step(tt, tu, u, a, b) && ends[a + 1][b])
                        || (can_step(tu, tt, t, b, a) && ends[a][b + 1]);
                }
            }
            let free = (0..=nt).all(|a| (0..=nu).all(|b| !reach[a][b] || ends[a][b]));
            if free {
                out.deadlock_free.insert((t, u));
            }
            // Co-reachability of "T has executed its event at position p2", per p2.
            let mut to_p2: BTreeMap<usize, Vec<Vec<bool>>> = BTreeMap::new();
            for (i2, (_, op2)) in tt.events.iter().enumerate() {
                let Some((x, w2)) = access(op2) else { continue };
                let p2 = i2 + 1;
                for (i1, (e1, op1)) in tt.events[..i2].iter().enumerate() {
                    let Some((y, w1)) = access(op1) else { continue };
                    if y != x || tt.txn[i1] != tt.txn[i2] {
                        continue;
                    }
                    let p1 = i1 + 1;
                    for (jf, (f, opf)) in tu.events.iter().enumerate() {
                        let Some((z, wf)) = access(opf) else { continue };
                        if z != x || !(wf || (w1 && w2)) {
                            continue;
                        }
                        let pf = jf + 1;
                        let g = to_p2.entry(p2).or_insert_with(|| {
                            let mut g = vec![vec![false; nu + 1]; nt + 1];
                            for a in (0..=nt).rev() {
                                for b in (0..=nu).rev() {
                                    g[a][b] = a >= p2
                                        || (can_step(tt, tu, u, a, b) && g[a + 1][b])
                                        || (can_step(tu, tt, t, b, a) && g[a][b + 1]);
                                }
                            }
                            g
                        });
                        let triple = Triple {
                            thread: t,
                            other: u,
                            var: x,
                            pattern: [w1, wf, w2],
                            e1: *e1,
                            f: *f,
                            e2: tt.events[i2].0,
                        };
                        // f runs from (a, pf - 1) with e1 executed and e2 not.
                        let mut reaches = false;
                        let mut completes = false;
                        for a in p1..p2 {
                            if reach[a][pf - 1] && can_step(tu, tt, t, pf - 1, a) {
                                reaches = true;
                                completes |= g[a][pf];
                            }
                        }
                        if reaches {
                            out.reaches.insert(triple);
                        }
                        if completes {
                            out.completes.insert(triple);
                        }
                    }
                }
            }
        }
    }
    out
}
