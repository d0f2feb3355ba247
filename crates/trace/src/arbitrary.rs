//! Small traces built from raw choices, for property tests: a test framework generates and
//! shrinks a list of byte triples, and this module turns any such list into a trace that the
//! validator accepts (with warnings when `odd` is set), so that shrinking keeps traces valid.

use crate::event::{Event, Op};
use crate::names::{LockId, MsgId, NameKind, Names, ThreadId, VarId};
use crate::source::Trace;

/// The size of the name spaces a trace draws from.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub threads: u8,
    pub vars: u8,
    pub locks: u8,
    pub msgs: u8,
    /// Allow what real logs do and the papers' models forbid: events before a thread's fork,
    /// threads never forked, acquiring a lock another thread holds, events after a join.
    pub odd: bool,
}

impl Default for Shape {
    fn default() -> Shape {
        Shape {
            threads: 3,
            vars: 2,
            locks: 2,
            msgs: 2,
            odd: true,
        }
    }
}

/// Builds a trace from `(thread, action, target)` choices. Every choice yields exactly one
/// event; a choice that would make the trace invalid becomes a read instead.
pub fn trace_from_choices(choices: &[(u8, u8, u8)], shape: Shape) -> Trace {
    let n = |x: u8| x.max(1) as usize;
    let (nt, nv, nl, nm) = (
        n(shape.threads),
        n(shape.vars),
        n(shape.locks),
        n(shape.msgs),
    );
    let mut names = Names::default();
    for (kind, prefix, count) in [
        (NameKind::Thread, "T", nt),
        (NameKind::Var, "x", nv),
        (NameKind::Lock, "L", nl),
        (NameKind::Msg, "m", nm),
    ] {
        for i in 0..count {
            names
                .of_mut(kind)
                .intern(format!("{prefix}{i}").as_bytes())
                .expect("ascii");
        }
    }
    // Thread 0 is the root; others start when forked (or at once, for odd traces).
    let mut started = vec![false; nt];
    let mut forked = vec![false; nt];
    let mut joined = vec![false; nt];
    started[0] = true;
    let mut held: Vec<Vec<(usize, u32)>> = vec![Vec::new(); nl]; // lock -> (thread, count)
    let mut sent = vec![false; nm];
    let mut open_blocks = vec![0u32; nt];
    let mut events = Vec::with_capacity(choices.len());
    for (i, &(a, b, c)) in choices.iter().enumerate() {
        let mut t = a as usize % nt;
        if !shape.odd && (!started[t] || joined[t]) {
            t = 0;
        }
        started[t] = true;
        let c = c as usize;
        let read = Op::Read(VarId((c % nv) as u32));
        let op = match b % 16 {
            0 | 1 => read,
            2 | 3 => Op::Write(VarId((c % nv) as u32)),
            4 => {
                let l = c % nl;
                let mine = held[l].iter().position(|&(h, _)| h == t);
                match mine {
                    Some(k) => {
                        held[l][k].1 += 1;
                        Op::Acquire(LockId(l as u32))
                    }
                    None if held[l].is_empty() || shape.odd => {
                        held[l].push((t, 1));
                        Op::Acquire(LockId(l as u32))
                    }
                    None => read,
                }
            }
            5 => {
                let mine: Vec<usize> = (0..nl)
                    .filter(|&l| held[l].iter().any(|&(h, _)| h == t))
                    .collect();
                if mine.is_empty() {
                    read
                } else {
                    let l = mine[c % mine.len()];
                    let k = held[l].iter().position(|&(h, _)| h == t).expect("held");
                    held[l][k].1 -= 1;
                    if held[l][k].1 == 0 {
                        held[l].remove(k);
                    }
                    Op::Release(LockId(l as u32))
                }
            }
            6 => {
                let u = c % nt;
                let fresh = !forked[u] && !started[u] && u != 0;
                if u != t && (fresh || (shape.odd && u != 0)) {
                    forked[u] = true;
                    started[u] = true;
                    Op::Fork(ThreadId(u as u32))
                } else {
                    read
                }
            }
            7 => {
                let u = c % nt;
                let holds = held.iter().any(|hs| hs.iter().any(|&(h, _)| h == u));
                if u != t && started[u] && u != 0 && (shape.odd || (!holds && !joined[u])) {
                    joined[u] = true;
                    Op::Join(ThreadId(u as u32))
                } else {
                    read
                }
            }
            8 => {
                sent[c % nm] = true;
                Op::Send(MsgId((c % nm) as u32))
            }
            9 if sent[c % nm] => Op::Receive(MsgId((c % nm) as u32)),
            10 => {
                open_blocks[t] += 1;
                Op::Begin(None)
            }
            11 if open_blocks[t] > 0 || shape.odd => {
                open_blocks[t] = open_blocks[t].saturating_sub(1);
                Op::End
            }
            12 => Op::Request(LockId((c % nl) as u32)),
            13 => Op::AtomicLoad(VarId((c % nv) as u32)),
            14 => Op::AtomicStore(VarId((c % nv) as u32)),
            15 => Op::AtomicRmw(VarId((c % nv) as u32)),
            _ => read,
        };
        events.push(Event::new(i as u64, ThreadId(t as u32), op));
    }
    Trace { names, events }
}

/// `trace` with each fork moved after the first `late` events of the thread it creates (as
/// many as it has), indices renumbered: the child's events before its fork are what a log's
/// warning reports, and the fork orders only the child's events after it. `late` 0 keeps the
/// trace as it is.
pub fn with_late_forks(mut trace: Trace, late: usize) -> Trace {
    if late == 0 {
        return trace;
    }
    let events = &mut trace.events;
    for u in 1..trace.names.threads.len() as u32 {
        let Some(f) = events
            .iter()
            .position(|e| matches!(e.op, Op::Fork(c) if c.0 == u))
        else {
            continue;
        };
        let fork = events.remove(f);
        let after = events
            .iter()
            .enumerate()
            .filter(|(_, e)| e.thread.0 == u)
            .take(late)
            .last()
            .map_or(f, |(i, _)| (i + 1).max(f));
        events.insert(after, fork);
    }
    for (i, e) in events.iter_mut().enumerate() {
        e.index = i as u64;
    }
    trace
}

/// A lock-valid trace perturbed as a logger that records releases late perturbs it, with the
/// lock-valid trace the perturbation came from, reordered as the repair restores it.
pub struct LateRelease {
    /// The release moved past the next acquire of its lock (and `carried` events of the
    /// acquiring thread after it).
    pub logged: Trace,
    /// The original with the release moved to just before that acquire: it differs from the
    /// original only by moving the release past events of other threads that neither acquire
    /// its lock nor depend on it, so every happens-before relation is the original's.
    pub restored: Trace,
}

/// Delays release number `pick` (modulo the releases that can be delayed) of the lock-valid
/// `trace` to just after the next acquire of its lock by another thread and up to `carry` of
/// that thread's following events, as a late logger would record it. A release can be delayed
/// when its thread logs nothing between it and that acquire (a logger keeps each thread's own
/// order) and no thread joins it in between. Indices are renumbered; `None` if no release can be delayed.
pub fn late_release(trace: &Trace, pick: usize, carry: usize) -> Option<LateRelease> {
    let events = &trace.events;
    let delayable: Vec<(usize, usize)> = (0..events.len())
        .filter_map(|i| {
            let Op::Release(l) = events[i].op else {
                return None;
            };
            let u = events[i].thread;
            let j = (i + 1..events.len()).find(|&j| {
                events[j].thread == u
                    || matches!(events[j].op, Op::Acquire(m) if m == l)
                    || events[j].op == Op::Join(u)
            })?;
            let acquires = matches!(events[j].op, Op::Acquire(_)) && events[j].thread != u;
            acquires.then_some((i, j))
        })
        .collect();
    if delayable.is_empty() {
        return None;
    }
    let (i, j) = delayable[pick % delayable.len()];
    let t = events[j].thread;
    let carried = events[j + 1..]
        .iter()
        .take(carry)
        .take_while(|e| e.thread == t)
        .count();
    let renumbered = |order: Vec<usize>| Trace {
        names: trace.names.clone(),
        events: order
            .into_iter()
            .enumerate()
            .map(|(k, from)| Event {
                index: k as u64,
                ..events[from].clone()
            })
            .collect(),
    };
    let others = |at: usize| (0..events.len()).filter(move |&k| k != i && k < at);
    let mut logged: Vec<usize> = others(j + carried + 1).collect();
    logged.push(i);
    logged.extend(j + carried + 1..events.len());
    let mut restored: Vec<usize> = others(j).collect();
    restored.push(i);
    restored.extend(j..events.len());
    Some(LateRelease {
        logged: renumbered(logged),
        restored: renumbered(restored),
    })
}

/// Delays every `every`-th release that can be delayed (as [`late_release`] delays one, with
/// nothing carried) by at most `reach` events: the shape of a real log written by a logger that
/// records releases late, for tests and benchmarks at scale. Returns the trace, renumbered, and
/// how many releases were delayed.
pub fn delay_releases(trace: &Trace, every: usize, reach: usize) -> (Trace, usize) {
    let events = &trace.events;
    // `after[j]`: the releases to write right after event `j`.
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); events.len()];
    let mut delayed = vec![false; events.len()];
    let mut seen = 0usize;
    for i in 0..events.len() {
        let Op::Release(l) = events[i].op else {
            continue;
        };
        let u = events[i].thread;
        let end = events.len().min(i + 1 + reach);
        let Some(j) = (i + 1..end).find(|&j| {
            events[j].thread == u
                || matches!(events[j].op, Op::Acquire(m) if m == l)
                || events[j].op == Op::Join(u)
        }) else {
            continue;
        };
        if !matches!(events[j].op, Op::Acquire(_)) || events[j].thread == u {
            continue;
        }
        seen += 1;
        if seen % every.max(1) == 0 {
            after[j].push(i);
            delayed[i] = true;
        }
    }
    let mut order = Vec::with_capacity(events.len());
    for j in 0..events.len() {
        if !delayed[j] {
            order.push(j);
        }
        order.extend(after[j].iter().copied());
    }
    let count = delayed.iter().filter(|&&d| d).count();
    let trace = Trace {
        names: trace.names.clone(),
        events: order
            .into_iter()
            .enumerate()
            .map(|(k, from)| Event {
                index: k as u64,
                ..events[from].clone()
            })
            .collect(),
    };
    (trace, count)
}

/// The shape of a thread-per-request trace built by [`requests_from_choices`].
#[derive(Clone, Copy, Debug)]
pub struct Requests {
    /// The id of the first request thread (`T0` is the main thread); thread names below it,
    /// other than `T0`, are interned but never used, so that the ids of requests can start past
    /// any threshold a clock representation has.
    pub first: u32,
    /// How far apart the ids of consecutive requests are (at least 1).
    pub stride: u32,
    /// At most this many requests run at once.
    pub in_flight: u8,
    pub vars: u8,
    pub locks: u8,
    pub msgs: u8,
}

/// Builds a valid trace of a server that starts a thread per request: `T0` forks each request
/// thread and later joins it; the requests in flight read and write shared variables, take and
/// drop locks (properly, never one another holds), and send and receive messages. Each choice
/// `(action, who, target)` gives one event.
pub fn requests_from_choices(choices: &[(u8, u8, u8)], shape: Requests) -> Trace {
    let n = |x: u8| x.max(1) as usize;
    let (nv, nl, nm) = (n(shape.vars), n(shape.locks), n(shape.msgs));
    let stride = shape.stride.max(1) as usize;
    let first = shape.first.max(1) as usize;
    let forks = choices.len();
    let mut names = Names::default();
    for i in 0..first + stride * forks {
        names
            .of_mut(NameKind::Thread)
            .intern(format!("T{i}").as_bytes())
            .expect("ascii");
    }
    for (kind, prefix, count) in [
        (NameKind::Var, "x", nv),
        (NameKind::Lock, "L", nl),
        (NameKind::Msg, "m", nm),
    ] {
        for i in 0..count {
            names
                .of_mut(kind)
                .intern(format!("{prefix}{i}").as_bytes())
                .expect("ascii");
        }
    }
    let mut next = first;
    // The requests in flight, and per lock its holder and depth.
    let mut live: Vec<usize> = Vec::new();
    let mut holder: Vec<Option<(usize, u32)>> = vec![None; nl];
    let mut sent = vec![false; nm];
    let mut events = Vec::with_capacity(choices.len());
    for (i, &(a, b, c)) in choices.iter().enumerate() {
        let c = c as usize;
        let holds = |holder: &[Option<(usize, u32)>], t: usize| {
            holder.iter().any(|h| matches!(h, Some((u, _)) if *u == t))
        };
        let (t, op) = match a % 8 {
            0 if live.len() < shape.in_flight.max(1) as usize => {
                let u = next;
                next += stride;
                live.push(u);
                (0, Op::Fork(ThreadId(u as u32)))
            }
            1 if !live.is_empty() && !holds(&holder, live[b as usize % live.len()]) => {
                let u = live.remove(b as usize % live.len());
                (0, Op::Join(ThreadId(u as u32)))
            }
            _ => {
                // A request in flight, or the main thread when none is.
                let t = if live.is_empty() {
                    0
                } else {
                    live[b as usize % live.len()]
                };
                let op = match (a / 8) % 6 {
                    0 => Op::Write(VarId((c % nv) as u32)),
                    1 => {
                        let l = c % nl;
                        match holder[l] {
                            None => {
                                holder[l] = Some((t, 1));
                                Op::Acquire(LockId(l as u32))
                            }
                            Some((u, d)) if u == t => {
                                holder[l] = Some((t, d + 1));
                                Op::Acquire(LockId(l as u32))
                            }
                            Some(_) => Op::Read(VarId((c % nv) as u32)),
                        }
                    }
                    2 => match (0..nl).find(|&l| matches!(holder[l], Some((u, _)) if u == t)) {
                        Some(l) => {
                            let (_, d) = holder[l].expect("held");
                            holder[l] = if d > 1 { Some((t, d - 1)) } else { None };
                            Op::Release(LockId(l as u32))
                        }
                        None => Op::Read(VarId((c % nv) as u32)),
                    },
                    3 => {
                        sent[c % nm] = true;
                        Op::Send(MsgId((c % nm) as u32))
                    }
                    4 if sent[c % nm] => Op::Receive(MsgId((c % nm) as u32)),
                    _ => Op::Read(VarId((c % nv) as u32)),
                };
                (t, op)
            }
        };
        events.push(Event::new(i as u64, ThreadId(t as u32), op));
    }
    Trace { names, events }
}

/// `t` written as STD text, as a file of it would hold.
pub fn text_of(t: &Trace) -> Vec<u8> {
    let mut w = crate::TextWriter::new(Vec::new());
    for e in &t.events {
        w.write_event(e, &t.names).expect("writes to memory");
    }
    w.finish().expect("finishes in memory")
}

/// `t` with a location of its own for every event, `e{k}` after its place in `t`, so that
/// answers on a changed trace can be told apart by where their events came from.
pub fn located(mut t: Trace) -> Trace {
    for (k, e) in t.events.iter_mut().enumerate() {
        let id = t
            .names
            .of_mut(NameKind::Location)
            .intern(format!("e{k}").as_bytes())
            .expect("ascii");
        e.loc = Some(crate::LocId(id));
    }
    t
}
