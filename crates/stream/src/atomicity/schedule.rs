//! Witness schedules: for a violation `(e1, f, e2)` of threads `T`, `T'`, a concrete inferred
//! run (prefixes of the two threads, interleaved, lock-valid, fork/join order respected) in
//! which `e1`, `f` and `e2` occur in that order, checked by replaying it before it is shown.
//!
//! The paper (end of Section 4) notes such a run can be recovered from locksets and acquisition
//! histories (Kahlon et al.) but did not implement it. Here the run is found by a depth-first
//! search over the product of the two threads' positions (Section 2.1's automaton), restricted
//! to the region where `f` runs after `e1` and `e2` after `f`, trying moves in the order of the
//! recorded trace first. Phase II has already established that the state `(e, f)` is reachable
//! (Theorem 1), so the search usually goes straight there; a cap on its states, and the run's
//! budget (a deadline and a memory limit shared with everything else the run does), bound it
//! on huge traces.
//! If no run reaches `e2` (every continuation deadlocks, which the paper rules out by
//! assumption), the schedule stops right after `f` and says `e2` is not reached.
//!
//! Other threads are not part of the run: as in the paper's Lemma 1 only `T` and `T'` move, and
//! the fork/join order between them (through any threads) is respected.
//!
//! This module needs the kept trace (`--schedule`); it knows nothing of output formats.

use super::pairing::Violation;
use super::{Kept, KeptOp};
use hindsight_budget::{Account, Budget, Meter, Spent};
use hindsight_order::join_into;
use hindsight_trace::{LockId, Names, ThreadId};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

/// How many product states one search may visit.
const MAX_STATES: usize = 4_000_000;

/// The local run of one thread: its events, and per lock the position intervals during which
/// it is held (`(acquired at, released at)`, 1-based positions, outermost acquisitions only).
struct Local<'k> {
    events: Vec<&'k Kept>,
    held: FxHashMap<LockId, Vec<(u32, u32)>>,
    /// Fork/join clock changes: from this position on, this clock (in positions).
    clocks: Vec<(u32, Vec<u32>)>,
}

impl Local<'_> {
    fn holds(&self, l: LockId, pos: u32) -> bool {
        self.held.get(&l).is_some_and(|iv| {
            let i = iv.partition_point(|&(a, _)| a <= pos);
            i > 0 && pos < iv[i - 1].1
        })
    }

    /// How many events of `u` must precede the event at `pos` (1-based).
    fn needs(&self, pos: u32, u: ThreadId) -> u32 {
        let i = self.clocks.partition_point(|&(from, _)| from <= pos);
        if i == 0 {
            return 0;
        }
        self.clocks[i - 1].1.get(u.index()).copied().unwrap_or(0)
    }
}

/// Builds schedules over a kept trace, within a budget.
pub struct Scheduler<'k> {
    budget: &'k Budget,
    /// The limit that stopped the building of the threads' clocks (charged as they grow: they
    /// hold a component per thread at each fork and join, the square of the threads): no
    /// schedule is searched then.
    stopped: Option<Spent>,
    locals: FxHashMap<ThreadId, Local<'k>>,
    /// Event index -> (thread, 1-based position).
    position: FxHashMap<u64, (ThreadId, u32)>,
}

/// One stretch of a schedule: `thread` runs its events `from..=to` (event indices).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stretch {
    pub thread: ThreadId,
    pub from: u64,
    pub to: u64,
}

/// A checked inferred run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub stretches: Vec<Stretch>,
    /// Whether the run reaches `e2` (otherwise it stops after `f`).
    pub reaches_e2: bool,
}

impl Run {
    pub fn describe(&self, names: &Names) -> String {
        let parts: Vec<String> = self
            .stretches
            .iter()
            .map(|s| {
                if s.from == s.to {
                    format!("{} #{}", names.thread(s.thread), s.from)
                } else {
                    format!("{} #{}..#{}", names.thread(s.thread), s.from, s.to)
                }
            })
            .collect();
        let mut d = parts.join(", ");
        if !self.reaches_e2 {
            d.push_str(" (then every continuation deadlocks before e2)");
        }
        d
    }

    pub fn to_json(&self, names: &Names) -> Value {
        let stretches: Vec<Value> = self
            .stretches
            .iter()
            .map(|s| {
                serde_json::json!({"thread": names.thread(s.thread), "from": s.from, "to": s.to})
            })
            .collect();
        serde_json::json!({"stretches": stretches, "reaches_e2": self.reaches_e2})
    }
}

impl<'k> Scheduler<'k> {
    pub fn new(kept: &'k [Kept], budget: &'k Budget) -> Scheduler<'k> {
        let mut locals: FxHashMap<ThreadId, Local<'k>> = FxHashMap::default();
        let mut position = FxHashMap::default();
        // Fork/join clocks in positions: a thread's current clock, and a forked thread's
        // inherited one.
        let mut current: FxHashMap<ThreadId, Vec<u32>> = FxHashMap::default();
        let mut open: FxHashMap<(ThreadId, LockId), (u32, u32)> = FxHashMap::default();
        // What the clocks, the threads' events and the positions hold, charged as they grow.
        let mut account = Account::new(budget);
        let mut held: u64 = 0;
        let mut stopped = None;
        let clock_bytes = |c: &Vec<u32>| 4 * c.len() as u64 + 32;
        for k in kept {
            if let Err(spent) = account.hold(held) {
                stopped = Some(spent);
                break;
            }
            // The event in its thread's list and its position.
            held += 40;
            let t = k.thread;
            let local = locals.entry(t).or_insert_with(|| Local {
                events: Vec::new(),
                held: FxHashMap::default(),
                clocks: Vec::new(),
            });
            local.events.push(k);
            let pos = local.events.len() as u32;
            position.insert(k.index, (t, pos));
            let mut changed = local.clocks.is_empty();
            let clock = current.entry(t).or_default();
            if clock.len() <= t.index() {
                held += 4 * (t.index() + 1 - clock.len()) as u64;
                clock.resize(t.index() + 1, 0);
            }
            clock[t.index()] = pos;
            match k.op {
                KeptOp::Acquire(l) => {
                    let e = open.entry((t, l)).or_insert((pos, 0));
                    e.1 += 1;
                }
                KeptOp::Release(l) => {
                    if let Some(e) = open.get_mut(&(t, l)) {
                        e.1 -= 1;
                        if e.1 == 0 {
                            let from = e.0;
                            open.remove(&(t, l));
                            local.held.entry(l).or_default().push((from, pos));
                        }
                    }
                }
                KeptOp::Fork(u) => {
                    let mine = clock.clone();
                    let child = current.entry(u).or_default();
                    let before = child.len();
                    join_into(child, &mine);
                    held += 4 * (child.len() - before) as u64;
                    let c = child.clone();
                    if let Some(cl) = locals.get_mut(&u) {
                        // A child already running: the fork orders only its later events.
                        held += clock_bytes(&c);
                        cl.clocks.push((cl.events.len() as u32 + 1, c));
                    }
                }
                KeptOp::Join(u) => {
                    let theirs = current.get(&u).cloned().unwrap_or_default();
                    let clock = current.get_mut(&t).expect("present");
                    let before = clock.len();
                    join_into(clock, &theirs);
                    held += 4 * (clock.len() - before) as u64;
                    changed = true;
                }
                _ => {}
            }
            if changed {
                let c = current[&t].clone();
                held += clock_bytes(&c);
                locals.get_mut(&t).expect("present").clocks.push((pos, c));
            }
        }
        // Locks still held at the end are held forever.
        for ((t, l), (from, _)) in open {
            locals
                .get_mut(&t)
                .expect("present")
                .held
                .entry(l)
                .or_default()
                .push((from, u32::MAX));
        }
        for local in locals.values_mut() {
            for iv in local.held.values_mut() {
                iv.sort_unstable();
            }
        }
        Scheduler {
            budget,
            stopped,
            locals,
            position,
        }
    }

    /// The (thread, 1-based position) of an event.
    pub fn position(&self, index: u64) -> Option<(ThreadId, u32)> {
        self.position.get(&index).copied()
    }

    /// Finds, checks and returns an inferred run for `v`.
    pub fn build(&self, v: &Violation) -> Result<Run, String> {
        let spent = |s: Spent| format!("the budget ran out (--{})", s.name());
        // The clocks were not all built: the threads' lists may lack the events.
        if let Some(s) = self.stopped {
            return Err(spent(s));
        }
        let (t, u) = (v.thread, v.other);
        let pos = |i: u64| self.position(i).map(|p| p.1).ok_or("event not kept");
        let (p1, pf, p2) = (pos(v.e1.index)?, pos(v.f.index)?, pos(v.e2.index)?);
        let (lt, lu) = (&self.locals[&t], &self.locals[&u]);
        // First a run in which `f` runs exactly at the witness `e` that Phase II found, then
        // anywhere in [e1, e2), then a run that stops after `f`.
        let pe = self
            .position(v.e)
            .map(|p| p.1)
            .filter(|&pe| p1 <= pe && pe < p2);
        let budget = self.budget;
        let at_witness = match pe {
            Some(pe) => search(lt, lu, t, u, (pe, pe + 1, pf, p2), true, budget).map_err(spent)?,
            None => None,
        };
        let full = match at_witness {
            Some(m) => Some(m),
            None => search(lt, lu, t, u, (p1, p2, pf, p2), true, budget).map_err(spent)?,
        };
        let (moves, reaches_e2) = match full {
            Some(m) => (m, true),
            None => (
                search(lt, lu, t, u, (p1, p2, pf, p2), false, budget)
                    .map_err(spent)?
                    .ok_or("no inferred run reaches e1 and f (search budget exhausted)")?,
                false,
            ),
        };
        let run = Run {
            stretches: stretches(&moves, lt, lu, t, u),
            reaches_e2,
        };
        self.replay(&run, v)?;
        Ok(run)
    }

    /// Replays `run` and checks it is an inferred run in which `e1`, `f`, `e2` occur in order
    /// (`e2` only if the run claims to reach it): each thread runs a prefix of its events in
    /// order, no lock is acquired while the other thread holds it, no event runs before the
    /// events of the other thread that precede it in the fork/join order.
    pub fn replay(&self, run: &Run, v: &Violation) -> Result<(), String> {
        let (t, u) = (v.thread, v.other);
        let mut next: FxHashMap<ThreadId, u32> = [(t, 0), (u, 0)].into_iter().collect();
        let mut owner: FxHashMap<LockId, (ThreadId, u32)> = FxHashMap::default();
        let mut seen: Vec<u64> = Vec::new();
        for s in &run.stretches {
            let local = self.locals.get(&s.thread).ok_or("unknown thread")?;
            let other = if s.thread == t { u } else { t };
            let (_, from) = self.position(s.from).ok_or("unknown event")?;
            let (_, to) = self.position(s.to).ok_or("unknown event")?;
            for p in from..=to {
                let n = next.get_mut(&s.thread).ok_or("a third thread")?;
                if p != *n + 1 {
                    return Err(format!("event at position {p} out of program order"));
                }
                *n = p;
                let k = local.events[p as usize - 1];
                if local.needs(p, other) > next[&other] {
                    return Err(format!(
                        "#{} runs before the fork/join order allows",
                        k.index
                    ));
                }
                match k.op {
                    KeptOp::Acquire(l) => match owner.get_mut(&l) {
                        Some((h, c)) if *h == s.thread => *c += 1,
                        Some(_) => return Err(format!("#{} acquires a held lock", k.index)),
                        None => {
                            owner.insert(l, (s.thread, 1));
                        }
                    },
                    KeptOp::Release(l) => match owner.get_mut(&l) {
                        Some((h, c)) if *h == s.thread => {
                            *c -= 1;
                            if *c == 0 {
                                owner.remove(&l);
                            }
                        }
                        _ => return Err(format!("#{} releases a lock it does not hold", k.index)),
                    },
                    _ => {}
                }
                seen.push(k.index);
            }
        }
        let at = |i: u64| seen.iter().position(|&x| x == i);
        let (a, b) = (at(v.e1.index), at(v.f.index));
        match (a, b, at(v.e2.index)) {
            (Some(a), Some(b), Some(c)) if run.reaches_e2 && a < b && b < c => Ok(()),
            (Some(a), Some(b), None) if !run.reaches_e2 && a < b => Ok(()),
            _ => Err("e1, f, e2 are not in order".into()),
        }
    }
}

/// A move of the search: `true` for `T`.
type Moves = Vec<bool>;

/// Depth-first search from `(0, 0)` for a monotone path in which `f` (at `pf` of `u`) runs
/// while `T` is in `[lo, hi)`; to `T` executing `e2` (at `p2`) if `full`, else to `f` executed.
/// An error once `budget` is spent (its visited set accounted to the memory limit).
fn search(
    lt: &Local,
    lu: &Local,
    t: ThreadId,
    u: ThreadId,
    (lo, hi, pf, p2): (u32, u32, u32, u32),
    full: bool,
    budget: &Budget,
) -> Result<Option<Moves>, Spent> {
    let mut meter = Meter::new(budget);
    let mut account = Account::new(budget);
    // Short searches never reach a poll of the meter: once spent, the budget stops them here.
    budget.check()?;
    let allowed = |a: u32, b: u32| !((b >= pf && a < lo) || (a >= hi && b < pf));
    let done = |a: u32, b: u32| {
        if full {
            a >= p2
        } else {
            b >= pf
        }
    };
    // Can thread `me` (at `a`) run its next event with the other at `b`?
    let step = |me: &Local, other: &Local, o: ThreadId, a: u32, b: u32| -> bool {
        let Some(k) = me.events.get(a as usize) else {
            return false;
        };
        if me.needs(a + 1, o) > b {
            return false;
        }
        match k.op {
            KeptOp::Acquire(l) => me.holds(l, a) || !other.holds(l, b),
            _ => true,
        }
    };
    let mut visited: FxHashSet<(u32, u32)> = FxHashSet::default();
    let mut stack: Vec<((u32, u32), u8)> = vec![((0, 0), 0)];
    visited.insert((0, 0));
    let mut path: Moves = Vec::new();
    while let Some(&((a, b), tried)) = stack.last() {
        if done(a, b) {
            return Ok(Some(path));
        }
        if visited.len() > MAX_STATES {
            return Ok(None);
        }
        meter.step()?;
        if meter.polled() {
            let held = visited.capacity() * 9 + stack.capacity() * 12 + path.capacity();
            account.hold(held as u64)?;
        }
        // Order the two moves as the recorded trace does.
        let t_next = lt.events.get(a as usize).map(|k| k.index);
        let u_next = lu.events.get(b as usize).map(|k| k.index);
        let t_first = match (t_next, u_next) {
            (Some(x), Some(y)) => x < y,
            (Some(_), None) => true,
            _ => false,
        };
        let order = if t_first {
            [true, false]
        } else {
            [false, true]
        };
        let mut moved = false;
        let mut tried = tried;
        while tried < 2 {
            let mv = order[tried as usize];
            tried += 1;
            let (na, nb) = if mv { (a + 1, b) } else { (a, b + 1) };
            let ok = if mv {
                step(lt, lu, u, a, b)
            } else {
                step(lu, lt, t, b, a)
            };
            if ok && allowed(na, nb) && visited.insert((na, nb)) {
                stack.last_mut().expect("non-empty").1 = tried;
                path.push(mv);
                stack.push(((na, nb), 0));
                moved = true;
                break;
            }
        }
        if !moved {
            stack.pop();
            path.pop();
        }
    }
    Ok(None)
}

fn stretches(moves: &[bool], lt: &Local, lu: &Local, t: ThreadId, u: ThreadId) -> Vec<Stretch> {
    let mut out: Vec<Stretch> = Vec::new();
    let (mut a, mut b) = (0usize, 0usize);
    for &mv in moves {
        let (thread, k) = if mv {
            a += 1;
            (t, lt.events[a - 1])
        } else {
            b += 1;
            (u, lu.events[b - 1])
        };
        match out.last_mut() {
            Some(s) if s.thread == thread => s.to = k.index,
            _ => out.push(Stretch {
                thread,
                from: k.index,
                to: k.index,
            }),
        }
    }
    out
}
