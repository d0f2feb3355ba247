//! The independent check of a witness: does a schedule of events of a trace form a correct
//! reordering of a prefix of it, after which two conflicting accesses are both enabled? It
//! reads only the trace's events and the definition (see the `oracle` module's comment for the
//! words), re-deriving thread order, the writes reads see, lock depths and forks itself, so that
//! a witness is shown only when something that shares no code with its builder agrees.

use crate::recording::Recorded;
use rustc_hash::FxHashMap;

const READ: u8 = 0;
const WRITE: u8 = 1;
const ACQUIRE: u8 = 2;
const RELEASE: u8 = 3;
const FORK: u8 = 5;
const JOIN: u8 = 6;
const SEND: u8 = 9;
const RECEIVE: u8 = 10;
const ALOAD: u8 = 12;
const ASTORE: u8 = 13;
const RMW: u8 = 14;

/// Whether an event of this kind reads a variable (and must see the same write).
fn reads(kind: u8) -> bool {
    matches!(kind, READ | ALOAD | RMW)
}

/// Whether an event of this kind writes a variable.
fn writes(kind: u8) -> bool {
    matches!(kind, WRITE | ASTORE | RMW)
}

/// Checks `schedule` (event indices into `trace`, in the order they run) and that `first` and
/// `second` are conflicting accesses both enabled after it. The error says what is wrong.
pub fn check(trace: &[Recorded], schedule: &[u64], first: u64, second: u64) -> Result<(), String> {
    let n = trace.len() as u64;
    // What σ says: each thread's events in order, each read's write, each thread's forks. A
    // fork orders the child's events after it in σ (a log may show a child's events before
    // its fork, or a thread forked twice: each fork orders what follows it).
    let mut by_thread: FxHashMap<u32, Vec<u64>> = FxHashMap::default();
    let mut sees: FxHashMap<u64, Option<u64>> = FxHashMap::default();
    let mut last: FxHashMap<(u8, u32), u64> = FxHashMap::default();
    let mut forks_of: FxHashMap<u32, Vec<u64>> = FxHashMap::default();
    for (i, e) in trace.iter().enumerate() {
        let i = i as u64;
        by_thread.entry(e.thread.0).or_default().push(i);
        // An RMW reads, then writes, as one event.
        if reads(e.kind) {
            sees.insert(i, last.get(&(WRITE, e.target)).copied());
        }
        if writes(e.kind) {
            last.insert((WRITE, e.target), i);
        }
        match e.kind {
            RECEIVE => {
                sees.insert(i, last.get(&(SEND, e.target)).copied());
            }
            SEND => {
                last.insert((SEND, e.target), i);
            }
            FORK => {
                forks_of.entry(e.target).or_default().push(i);
            }
            _ => {}
        }
    }
    // Whether a fork that orders event `i` of thread `t` has not run.
    let unforked = |t: u32, i: u64, done: &[bool]| {
        forks_of.get(&t).is_some_and(|forks| {
            forks
                .iter()
                .take_while(|&&f| f < i)
                .any(|&f| !done[f as usize])
        })
    };
    let mut done = vec![false; trace.len()];
    let mut next: FxHashMap<u32, usize> = FxHashMap::default();
    let mut last_seen: FxHashMap<(u8, u32), u64> = FxHashMap::default();
    let mut depth: FxHashMap<(u32, u32), u32> = FxHashMap::default();
    let mut holder: FxHashMap<u32, u32> = FxHashMap::default();
    for (step, &i) in schedule.iter().enumerate() {
        let at = |what: String| Err(format!("step {step} (event #{i}): {what}"));
        if i >= n {
            return at("no such event".into());
        }
        let e = trace[i as usize];
        let t = e.thread.0;
        let k = next.entry(t).or_insert(0);
        if by_thread[&t].get(*k) != Some(&i) {
            return at("not the next event of its thread".into());
        }
        *k += 1;
        if unforked(t, i, &done) {
            return at("its thread is not forked yet".into());
        }
        if reads(e.kind) || e.kind == RECEIVE {
            let source = if e.kind == RECEIVE { SEND } else { WRITE };
            let now = last_seen.get(&(source, e.target)).copied();
            if now != sees[&i] {
                return at(format!("sees {} instead of {}", show(now), show(sees[&i])));
            }
        }
        if writes(e.kind) {
            last_seen.insert((WRITE, e.target), i);
        }
        match e.kind {
            SEND => {
                last_seen.insert((SEND, e.target), i);
            }
            ACQUIRE => {
                let d = depth.entry((t, e.target)).or_insert(0);
                *d += 1;
                if *d == 1 {
                    if let Some(&h) = holder.get(&e.target) {
                        return at(format!("the lock is held by thread #{h}"));
                    }
                    holder.insert(e.target, t);
                }
            }
            RELEASE => {
                let d = depth.entry((t, e.target)).or_insert(0);
                if *d == 1 {
                    holder.remove(&e.target);
                }
                *d = d.saturating_sub(1);
            }
            JOIN => {
                let all = by_thread.get(&e.target).map_or(0, Vec::len);
                if next.get(&e.target).copied().unwrap_or(0) < all {
                    return at("the joined thread has not finished".into());
                }
                // Ended, so started: every fork of it before the join has run.
                if unforked(e.target, i, &done) {
                    return at("the joined thread is not forked yet".into());
                }
            }
            _ => {}
        }
        done[i as usize] = true;
    }
    let enabled = |i: u64| -> Result<(), String> {
        if i >= n {
            return Err(format!("event #{i}: no such event"));
        }
        let t = trace[i as usize].thread.0;
        let k = next.get(&t).copied().unwrap_or(0);
        if by_thread[&t].get(k) != Some(&i) {
            return Err(format!("event #{i} is not enabled: not next in its thread"));
        }
        if unforked(t, i, &done) {
            return Err(format!(
                "event #{i} is not enabled: its thread is not forked"
            ));
        }
        Ok(())
    };
    enabled(first)?;
    enabled(second)?;
    let (a, b) = (trace[first as usize], trace[second as usize]);
    let access = |e: Recorded| matches!(e.kind, READ | WRITE);
    if !(access(a)
        && access(b)
        && a.target == b.target
        && a.thread != b.thread
        && (a.kind == WRITE || b.kind == WRITE))
    {
        return Err(format!("events #{first} and #{second} do not conflict"));
    }
    Ok(())
}

fn show(write: Option<u64>) -> String {
    write.map_or_else(|| "no write".to_owned(), |w| format!("#{w}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hindsight_trace::{LockId, MsgId, Op, ThreadId, VarId};

    #[test]
    fn the_kinds_are_the_event_model_s() {
        let x = VarId(0);
        for (op, kind) in [
            (Op::Read(x), READ),
            (Op::Write(x), WRITE),
            (Op::Acquire(LockId(0)), ACQUIRE),
            (Op::Release(LockId(0)), RELEASE),
            (Op::Fork(ThreadId(1)), FORK),
            (Op::Join(ThreadId(1)), JOIN),
            (Op::Send(MsgId(0)), SEND),
            (Op::Receive(MsgId(0)), RECEIVE),
            (Op::AtomicLoad(x), ALOAD),
            (Op::AtomicStore(x), ASTORE),
            (Op::AtomicRmw(x), RMW),
        ] {
            assert_eq!(op.kind() as u8, kind);
        }
    }
}
