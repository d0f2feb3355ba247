//! `atomicity` on deep lock nesting (#38, #39): two threads each nest `n` locks in one
//! transaction and write a variable inside. Each lock event gives the thread a new profile, and
//! a profile that copied the whole held-lock stack and acquisition history would make the
//! memory quadratic in `n`; doubling `n` must at most about double the bytes held. A profile
//! built from a walk of the stack, or a transaction's list of recent profiles kept most recent
//! first by moving each to the front, makes the time quadratic: nesting 30,000 then takes
//! over a minute (10,000 took 9 s), and a fraction of a second when each lock event costs a
//! bounded number of steps.

use hindsight_stream::atomicity::{Atomicity, Options};
use hindsight_stream::driver::Observer;
use hindsight_trace::{Event, LockId, NameKind, Names, Op, ThreadId, VarId};

/// The analysis after the `nesting` shape of `n` locks.
fn after_nesting(n: u32) -> Atomicity {
    let mut names = Names::default();
    for t in 0..3 {
        names
            .of_mut(NameKind::Thread)
            .intern(format!("T{t}").as_bytes())
            .expect("ascii");
    }
    for i in 0..n {
        names
            .of_mut(NameKind::Lock)
            .intern(format!("L{i}").as_bytes())
            .expect("ascii");
    }
    names.of_mut(NameKind::Var).intern(b"x").expect("ascii");
    let mut ops: Vec<(ThreadId, Op)> = Vec::new();
    for t in 1..=2 {
        ops.push((ThreadId(0), Op::Fork(ThreadId(t))));
    }
    for t in (1..=2).map(ThreadId) {
        ops.push((t, Op::Begin(None)));
        ops.extend((0..n).map(|i| (t, Op::Acquire(LockId(i)))));
        ops.push((t, Op::Write(VarId(0))));
        ops.extend((0..n).rev().map(|i| (t, Op::Release(LockId(i)))));
        ops.push((t, Op::End));
    }
    let mut a = Atomicity::new(Options::default());
    for (index, (t, op)) in ops.into_iter().enumerate() {
        a.step(&Event::new(index as u64, t, op), &names)
            .expect("nested by construction");
    }
    assert_eq!(a.profiles().len() as u32, 4 * n, "a profile per lock event");
    a
}

/// The bytes the analysis holds after the `nesting` shape of `n` locks.
fn held_after_nesting(n: u32) -> u64 {
    after_nesting(n).held_bytes()
}

#[test]
fn deep_nesting_is_analysed_in_linear_time() {
    // Each thread's one transaction accesses `x` once: nothing is sandwiched, no violation.
    let a = after_nesting(30_000);
    assert!(a.violations().is_empty());
}

#[test]
fn memory_is_linear_in_the_nesting_depth() {
    let (small, large) = (held_after_nesting(1_500), held_after_nesting(3_000));
    assert!(
        large * 2 < small * 5,
        "nesting 1500: {small} bytes, 3000: {large} bytes ({:.2}x)",
        large as f64 / small as f64
    );
}
