//! The recorder itself: each wrapper records what it should, the trace order respects
//! happens-before (a lock-valid, strictly valid trace on which `races` finds nothing where the
//! program synchronizes), nothing is lost when a thread panics, poisoning passes through,
//! thread names are stable, and a 4-thread program of 1 M events records, loads and analyses.

#![cfg(feature = "record")]

mod common;

use common::*;
use hindsight_record::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use hindsight_record::sync::mpsc;
use hindsight_record::sync::{Condvar, Mutex, RwLock, TryLockError};
use hindsight_record::{atomic_begin, thread, Map, Named, Recorder, Set, Shared};
use hindsight_trace::Op;

/// Many threads increment under one lock: if the order of the trace did not respect
/// happens-before, some `acq` would come while another thread holds the lock (the strict
/// validation in `load` refuses that) or an access would come out of its critical section
/// (`races` would report it).
#[test]
fn the_global_order_respects_lock_order() {
    let _one = exclusive();
    let (total, path) = record("lock_order", || {
        let m = Mutex::new(Shared::new(0i64).named("n")).named("m");
        thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..500 {
                        m.lock().unwrap().update(|n| *n += 1);
                    }
                });
            }
        });
        let n = m.lock().unwrap().get();
        n
    });
    assert_eq!(total, 2000);
    let trace = load(&path);
    assert_eq!(count(&trace, |e| matches!(e.op, Op::Acquire(_))), 2001);
    // The guard's write of `m`'s data and the write of `n` inside it.
    assert_eq!(count(&trace, |e| matches!(e.op, Op::Write(_))), 4000);
    assert!(races(&path).is_empty());
}

/// The same without the lock, with atomics: each increment is one `rmw` event, which never
/// races; made plain accesses, the relaxed increments race (so the check above can fail) and
/// the SeqCst ones are ordered by their messages.
#[test]
fn atomic_increments_are_one_event_each_and_never_race() {
    let _one = exclusive();
    for (order, racy) in [(Ordering::Relaxed, true), (Ordering::SeqCst, false)] {
        let (n, path) = record("atomics", || {
            let c = AtomicUsize::new(0).named("c");
            thread::scope(|s| {
                for _ in 0..2 {
                    s.spawn(|| {
                        for _ in 0..100 {
                            c.fetch_add(1, order);
                        }
                    });
                }
            });
            c.into_inner()
        });
        assert_eq!(n, 200);
        let trace = load(&path);
        assert!(races(&path).is_empty(), "{order:?}");
        let lowered = races_atomics_lowered(&path);
        assert_eq!(!lowered.is_empty(), racy, "{order:?}");
        assert_eq!(count(&trace, |e| matches!(e.op, Op::AtomicRmw(_))), 200);
        assert_eq!(
            count(&trace, |e| matches!(e.op, Op::Read(_) | Op::Write(_))),
            0
        );
        if !racy {
            assert_eq!(count(&trace, |e| matches!(e.op, Op::Send(_))), 200);
            // Every increment but the very first reads a released value.
            assert_eq!(count(&trace, |e| matches!(e.op, Op::Receive(_))), 199);
        }
    }
}

#[test]
fn a_relaxed_store_ends_the_release_sequence() {
    let _one = exclusive();
    let (_, path) = record("release_sequence", || {
        let a = AtomicI64::new(0).named("a");
        a.store(1, Ordering::Release);
        a.load(Ordering::Acquire);
        a.store(2, Ordering::Relaxed);
        a.load(Ordering::Acquire);
    });
    let trace = load(&path);
    assert_eq!(
        ops_of(&trace, "main"),
        [
            "astore(a)",
            "snd(a)",
            "rcv(a)",
            "aload(a)",
            "astore(a)",
            "aload(a)"
        ]
    );
}

/// A guard dropped early releases at the drop; a failed `try_lock` records nothing.
#[test]
fn early_drops_and_try_lock() {
    let _one = exclusive();
    let (_, path) = record("try_lock", || {
        let m = Mutex::new(Shared::new(1).named("v")).named("m");
        let other = Shared::new(0).named("other");
        let g = m.lock().unwrap();
        let r = g.get();
        drop(g);
        let _ = other.get();
        let held = m.try_lock().unwrap();
        thread::scope(|s| {
            s.spawn(|| assert!(matches!(m.try_lock(), Err(TryLockError::WouldBlock))));
        });
        drop(held);
        r
    });
    let trace = load(&path);
    assert_eq!(
        ops_of(&trace, "main"),
        [
            "acq(m)",
            "r(m)",
            "r(v)",
            "rel(m)",
            "r(other)",
            "acq(m)",
            "fork(main.1)",
            "join(main.1)",
            "rel(m)"
        ]
    );
    assert!(ops_of(&trace, "main.1").is_empty());
}

/// A thread that panics while holding a lock: its events up to the panic are all in the
/// trace, its guard's release is recorded during unwinding, and the next `lock()` returns the
/// poisoned guard (which records its acquisition and release too).
#[test]
fn nothing_is_lost_when_a_thread_panics_and_poison_passes_through() {
    let _one = exclusive();
    let (poisoned, path) = record("panic", || {
        let m = Mutex::new(Shared::new(0).named("v")).named("m");
        let r = thread::scope(|s| {
            s.spawn(|| {
                let mut g = m.lock().unwrap();
                for i in 0..10_000 {
                    g.set(i);
                }
                panic!("deliberate");
            })
            .join()
        });
        assert!(r.is_err());
        let poisoned = match m.lock() {
            Ok(_) => false,
            Err(p) => {
                p.into_inner().set(-1);
                true
            }
        };
        poisoned
    });
    assert!(poisoned);
    let trace = load(&path);
    let child = ops_of(&trace, "main.1");
    assert_eq!(
        child.len(),
        10_003,
        "acq, the guard's write, 10,000 writes, rel"
    );
    assert_eq!(child.last().map(String::as_str), Some("rel(m)"));
    let main = ops_of(&trace, "main");
    assert_eq!(main[main.len() - 4..], ["acq(m)", "w(m)", "w(v)", "rel(m)"]);
}

/// A detached thread that panics (never joined) still hands its events over before it dies.
#[test]
fn a_detached_panicking_thread_keeps_its_events() {
    let _one = exclusive();
    let (_, path) = record("detached_panic", || {
        let h = thread::spawn(|| {
            let mut x = Shared::new(0).named("x");
            x.set(1);
            panic!("deliberate");
        });
        while !h.is_finished() {
            thread::yield_now();
        }
        // Dropped without join: the fork is recorded, the join is not.
        std::mem::forget(h);
    });
    let trace = load(&path);
    assert_eq!(ops_of(&trace, "main.1"), ["w(x)"]);
}

#[test]
fn condvar_waits_release_and_reacquire() {
    let _one = exclusive();
    let (got, path) = record("condvar", || {
        let state = (Mutex::new(Shared::new(None)).named("m"), Condvar::new());
        thread::scope(|s| {
            s.spawn(|| {
                let mut g = state.0.lock().unwrap();
                g.set(Some(7));
                state.1.notify_one();
            });
            let g = state.0.lock().unwrap();
            let g = state.1.wait_while(g, |v| v.get().is_none()).unwrap();
            g.get()
        })
    });
    assert_eq!(got, Some(7));
    let trace = load(&path);
    assert!(races(&path).is_empty());
    let acquires = count(&trace, |e| matches!(e.op, Op::Acquire(_)));
    let releases = count(&trace, |e| matches!(e.op, Op::Release(_)));
    assert_eq!(acquires, releases);
}

/// Readers of an `RwLock` are unordered with each other but ordered with writers; the trace
/// stays lock-valid (readers are not `acq`/`rel`), and `races` sees writer/reader accesses as
/// ordered.
#[test]
fn rwlock_orders_writers_with_readers() {
    let _one = exclusive();
    let (_, path) = record("rwlock", || {
        let l = RwLock::new(Shared::new(0)).named("l");
        thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    for i in 0..50 {
                        if i % 10 == 0 {
                            l.write().unwrap().update(|x| *x += 1);
                        } else {
                            let _ = l.read().unwrap().get();
                        }
                    }
                });
            }
        });
    });
    load(&path);
    assert!(races(&path).is_empty());

    // Readers alone do not order anything: a write outside the lock races with them.
    let (_, path) = record("rwlock_readers", || {
        let l = RwLock::new(()).named("l");
        let flag = AtomicI64::new(0).named("flag");
        thread::scope(|s| {
            s.spawn(|| {
                let _r = l.read().unwrap();
                flag.store(1, Ordering::Relaxed);
            });
            s.spawn(|| {
                let _r = l.read().unwrap();
                flag.store(2, Ordering::Relaxed);
            });
        });
    });
    load(&path);
    assert!(races(&path).is_empty(), "atomics never race");
    assert_eq!(
        names_of(&races_atomics_lowered(&path), "variable"),
        ["flag"]
    );
}

/// A value moved through a channel: the send orders the sender's writes before the
/// receiver's, with one message per value.
#[test]
fn channels_record_one_message_per_value() {
    let _one = exclusive();
    let (sum, path) = record("channel", || {
        let (tx, rx) = mpsc::channel::<Shared<i64>>();
        thread::scope(|s| {
            for k in 0..3 {
                let tx = tx.clone();
                s.spawn(move || {
                    let mut v = Shared::new(0).named("v");
                    v.set(k);
                    tx.send(v).unwrap();
                });
            }
            drop(tx);
            rx.iter()
                .map(|mut v| {
                    v.update(|x| *x += 1);
                    v.get()
                })
                .sum::<i64>()
        })
    });
    assert_eq!(sum, 6);
    let trace = load(&path);
    assert_eq!(count(&trace, |e| matches!(e.op, Op::Send(_))), 3);
    assert_eq!(count(&trace, |e| matches!(e.op, Op::Receive(_))), 3);
    assert_eq!(trace.names.msgs.len(), 3);
    assert!(races(&path).is_empty());
}

/// Thread names depend on who spawned whom, in what order, not on the schedule.
#[test]
fn thread_names_are_stable() {
    let _one = exclusive();
    let run = || {
        thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    thread::scope(|s| {
                        s.spawn(|| Shared::new(0).named("leaf").get());
                    })
                });
            }
        })
    };
    let (_, a) = record("names_a", run);
    let (_, b) = record("names_b", run);
    let (a, b) = (load(&a), load(&b));
    let mut na: Vec<&str> = a.names.threads.iter().collect();
    let mut nb: Vec<&str> = b.names.threads.iter().collect();
    na.sort();
    nb.sort();
    assert_eq!(na, nb);
    assert_eq!(
        na,
        ["main", "main.1", "main.1.1", "main.2", "main.2.1", "main.3", "main.3.1"]
    );
}

#[test]
fn map_and_set_record_the_builtin_specs_vocabulary() {
    let _one = exclusive();
    let (_, path) = record("collections", || {
        let m: Map<&str, i64> = Map::new().named("m");
        assert_eq!(m.insert("a", 1), None);
        assert_eq!(m.put_if_absent("a", 2), Some(1));
        assert_eq!(m.put_if_absent("b", 3), None);
        assert!(m.contains_key("b"));
        assert_eq!(m.remove("a"), Some(1));
        assert_eq!(m.get("a"), None);
        assert_eq!(m.len(), 1);
        let s: Set<String> = Set::new().named("s");
        assert!(s.insert("x".to_owned()));
        assert!(!s.insert("x".to_owned()));
        assert!(s.contains("x"));
        assert!(s.remove("x"));
        assert!(s.is_empty());
    });
    let trace = load(&path);
    assert_eq!(
        ops_of(&trace, "main"),
        [
            "call(m.put(\"a\",1)/nil)",
            "call(m.get(\"a\")/1)",
            "call(m.put(\"b\",3)/nil)",
            "call(m.get(\"b\")/3)",
            "call(m.put(\"a\",nil)/1)",
            "call(m.get(\"a\")/nil)",
            "call(m.size()/1)",
            "call(s.add(\"x\")/true)",
            "call(s.add(\"x\")/false)",
            "call(s.contains(\"x\")/true)",
            "call(s.remove(\"x\")/true)",
            "call(s.size()/0)",
        ]
    );
}

/// Two threads adding the same element race under the `set` spec; distinct elements do not.
#[test]
fn set_commutativity_races() {
    let _one = exclusive();
    for (elements, racy) in [(["x", "x"], true), (["x", "y"], false)] {
        let (_, path) = record("set", || {
            let s: Set<&str> = Set::new().named("s");
            thread::scope(|sc| {
                for e in elements {
                    let s = &s;
                    sc.spawn(move || s.insert(e));
                }
            });
        });
        load(&path);
        assert_eq!(!commute(&path, "set").is_empty(), racy, "{elements:?}");
    }
}

#[test]
fn atomic_blocks_end_on_unwind_and_one_recording_at_a_time() {
    let _one = exclusive();
    let (_, path) = record("blocks", || {
        let r = std::panic::catch_unwind(|| {
            let _b = atomic_begin("outer");
            hindsight_record::atomic_block("inner", || panic!("deliberate"));
        });
        assert!(r.is_err());
        let second = Recorder::start(trace_path("second"));
        assert!(second.is_err(), "one recording at a time");
    });
    let trace = load(&path);
    assert_eq!(
        ops_of(&trace, "main"),
        ["begin(outer)", "begin(inner)", "end", "end"]
    );
}

/// The bar: a 4-thread program of 1 M events records, loads and analyses without error.
#[test]
fn four_threads_one_million_events() {
    let _one = exclusive();
    const PER_THREAD: usize = 250_000;
    let (_, path) = record("million", || {
        let locks: Vec<Mutex<i64>> = (0..4).map(|_| Mutex::new(0)).collect();
        thread::scope(|s| {
            for t in 0..4 {
                let locks = &locks;
                s.spawn(move || {
                    // Each iteration records 4 events: acq, r, w, rel (the guard's read
                    // of the right-hand side, then its write).
                    for i in 0..PER_THREAD / 4 {
                        let mut x = locks[(t + i) % 4].lock().unwrap();
                        let v = *x;
                        *x = v + 1;
                    }
                });
            }
        });
    });
    let trace = load(&path);
    // Plus 4 forks and 4 joins.
    assert_eq!(trace.events.len(), 4 * PER_THREAD + 8);
    assert!(races(&path).is_empty());
}

/// A recording whose owner unwinds (e.g. `main` panicking with the guard of `init()` alive)
/// is written by the drop.
#[test]
fn the_trace_is_written_when_the_recording_thread_panics() {
    let _one = exclusive();
    let path = trace_path("main_panic");
    let r = std::panic::catch_unwind(|| {
        let _recorder = Recorder::start(&path).expect("can record");
        let m = Mutex::new(Shared::new(0).named("v")).named("m");
        let mut g = m.lock().unwrap();
        g.set(1);
        panic!("deliberate");
    });
    assert!(r.is_err());
    let trace = load(&path);
    assert_eq!(ops_of(&trace, "main"), ["acq(m)", "w(m)", "w(v)", "rel(m)"]);
}

/// Threads given a name by `thread::Builder` carry it in the trace; unnamed siblings keep
/// their rank.
#[test]
fn builder_names_threads() {
    let _one = exclusive();
    let (_, path) = record("builder", || {
        let h = thread::Builder::new()
            .name("worker".into())
            .spawn(|| Shared::new(0).named("a").get())
            .unwrap();
        h.join().unwrap();
        thread::scope(|s| {
            thread::Builder::new()
                .name("worker".into())
                .spawn_scoped(s, || Shared::new(0).named("b").get())
                .unwrap();
            s.spawn(|| ());
        });
    });
    let trace = load(&path);
    assert_eq!(ops_of(&trace, "worker"), ["r(a)"]);
    assert_eq!(ops_of(&trace, "worker#2"), ["r(b)"]);
    assert_eq!(
        ops_of(&trace, "main"),
        [
            "fork(worker)",
            "join(worker)",
            "fork(worker#2)",
            "fork(main.3)",
            "join(worker#2)",
            "join(main.3)"
        ]
    );
}

/// The Rust Book's counter, unchanged but for the import: the guard's dereferences are the
/// accesses, one `w` per critical section for `*num += 1`, named after the lock.
#[test]
fn guards_record_the_data_they_lend() {
    let _one = exclusive();
    let (n, path) = record("guards", || {
        let counter = Mutex::new(0).named("counter");
        thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    let mut num = counter.lock().unwrap();
                    *num += 1;
                    *num += 1;
                });
            }
        });
        let n = *counter.lock().unwrap();
        n
    });
    assert_eq!(n, 6);
    let trace = load(&path);
    for t in ["main.1", "main.2", "main.3"] {
        assert_eq!(
            ops_of(&trace, t),
            ["acq(counter)", "w(counter)", "rel(counter)"]
        );
    }
    assert_eq!(
        ops_of(&trace, "main")[6..],
        ["acq(counter)", "r(counter)", "rel(counter)"]
    );
    assert!(races(&path).is_empty());
}

/// A read, a write, then a read again after the write: `r w r`, however many dereferences.
#[test]
fn a_guard_records_a_read_again_only_after_a_write() {
    let _one = exclusive();
    let (_, path) = record("guard_rwr", || {
        let m = Mutex::new(vec![1, 2]).named("v");
        let mut g = m.lock().unwrap();
        let a = g.len() + g[0];
        g.push(a);
        g.push(a);
        let b = g.len() + g[1];
        drop(g);
        let l = RwLock::new(5).named("l");
        let x = *l.read().unwrap() + *l.read().unwrap();
        *l.write().unwrap() = x;
        b
    });
    let trace = load(&path);
    assert_eq!(
        ops_of(&trace, "main"),
        [
            "acq(v)",
            "r(v)",
            "w(v)",
            "r(v)",
            "rel(v)",
            // Two read guards, alive to the end of the statement.
            "r(l)",
            "r(l)",
            "snd(l.r/0)",
            "snd(l.r/0)",
            "acq(l)",
            "rcv(l.r/0)",
            "w(l)",
            "snd(l.w/1)",
            "rel(l)"
        ]
    );
}

/// Every event carries the location of its call: a release the location of the call that
/// took the lock (or of the wait that gave it up), an `end` that of its `begin`.
#[test]
fn every_event_has_a_location() {
    let _one = exclusive();
    let (_, path) = record("locations", || {
        let m = Mutex::new(0).named("m");
        let c = Condvar::new();
        let l = RwLock::new(0).named("l");
        thread::scope(|s| {
            s.spawn(|| {
                *m.lock().unwrap() = 1;
                c.notify_all();
                *l.write().unwrap() += 1;
            });
            let g = m.lock().unwrap();
            let _g = c
                .wait_timeout_while(g, std::time::Duration::from_secs(10), |v| *v == 0)
                .unwrap();
            let _ = *l.read().unwrap();
            let _b = atomic_begin("b");
        });
    });
    let trace = load(&path);
    for e in &trace.events {
        let loc = e.loc.map(|l| trace.names.location(l).to_owned());
        assert!(
            loc.as_deref().is_some_and(|l| l.contains("recorder.rs:")),
            "{} has location {loc:?}",
            e.display_op(&trace.names)
        );
    }
}

/// `wait_timeout_while` returns when the condition turns false (not timed out) or when the
/// time is up (timed out, condition still true), recording each wait's release and
/// reacquisition.
#[test]
fn wait_timeout_while_times_out_or_returns_with_the_condition_false() {
    let _one = exclusive();
    let ((early, late), path) = record("wait_timeout_while", || {
        let m = Mutex::new(false).named("m");
        let c = Condvar::new();
        let (g, late) = c
            .wait_timeout_while(
                m.lock().unwrap(),
                std::time::Duration::from_millis(5),
                |v| !*v,
            )
            .unwrap();
        assert!(!*g);
        drop(g);
        let early = thread::scope(|s| {
            s.spawn(|| {
                *m.lock().unwrap() = true;
                c.notify_all();
            });
            let (g, r) = c
                .wait_timeout_while(m.lock().unwrap(), std::time::Duration::from_secs(10), |v| {
                    !*v
                })
                .unwrap();
            assert!(*g);
            r
        });
        (early.timed_out(), late.timed_out())
    });
    assert!(!early);
    assert!(late);
    let trace = load(&path);
    let acquires = count(&trace, |e| matches!(e.op, Op::Acquire(_)));
    let releases = count(&trace, |e| matches!(e.op, Op::Release(_)));
    assert_eq!(acquires, releases);
    assert!(races(&path).is_empty());
}

static STATIC_LOCK: Mutex<u32> = Mutex::new(0);
static STATIC_RW: RwLock<u32> = RwLock::new(0);
static STATIC_COUNT: AtomicUsize = AtomicUsize::new(0);
static STATIC_SHARED: Mutex<Shared<u32>> = Mutex::new(Shared::new(0));

/// `static`s compile (the constructors are `const`) and are named after their line.
#[test]
fn statics_record_under_their_creation_site() {
    let _one = exclusive();
    let (_, path) = record("statics", || {
        *STATIC_LOCK.lock().unwrap() += 1;
        *STATIC_RW.write().unwrap() += 1;
        STATIC_COUNT.fetch_add(1, Ordering::Relaxed);
        STATIC_SHARED.lock().unwrap().set(1);
    });
    let trace = load(&path);
    let ops = ops_of(&trace, "main");
    assert!(ops[0].starts_with("acq(recorder.rs:"), "{ops:?}");
    assert!(
        ops.iter().any(|o| o.starts_with("rmw(recorder.rs:")),
        "{ops:?}"
    );
}

/// An `AtomicPtr` publishing with release/acquire: one message, and what was written before
/// the store is ordered before what is read after the load.
#[test]
fn atomic_ptr_publishes_with_release_and_acquire() {
    use hindsight_record::sync::atomic::AtomicPtr;
    let _one = exclusive();
    let (got, path) = record("atomic_ptr", || {
        let p: AtomicPtr<u8> = AtomicPtr::default().named("p");
        let data = AtomicI64::new(0).named("data");
        thread::scope(|s| {
            s.spawn(|| {
                data.store(7, Ordering::Relaxed);
                p.store(Box::leak(Box::new(1u8)), Ordering::Release);
            });
            while p.load(Ordering::Acquire).is_null() {
                std::hint::spin_loop();
            }
            data.load(Ordering::Relaxed)
        })
    });
    assert_eq!(got, 7);
    let trace = load(&path);
    assert_eq!(count(&trace, |e| matches!(e.op, Op::Send(_))), 1);
    assert_eq!(count(&trace, |e| matches!(e.op, Op::Receive(_))), 1);
    assert!(races(&path).is_empty());
    // As plain accesses, only the polling of `p` before the store races: the data is ordered.
    let lowered = names_of(&races_atomics_lowered(&path), "variable");
    assert!(lowered.iter().all(|v| v == "p"), "{lowered:?}");
}

/// `Shared` compares, formats and compound-assigns like its value; the operators record
/// their reads and writes.
#[test]
fn shared_forwards_operators() {
    let _one = exclusive();
    let (text, path) = record("shared_ops", || {
        let mut x = Shared::new(3).named("x");
        let y = Shared::new(4).named("y");
        x += 2;
        x *= 2;
        let less = x < y;
        let equal = x == 10;
        format!("{x} {y:?} {less} {equal}")
    });
    assert_eq!(text, "10 4 false true");
    let trace = load(&path);
    assert_eq!(
        ops_of(&trace, "main"),
        ["r(x)", "w(x)", "r(x)", "w(x)", "r(x)", "r(y)", "r(x)"]
    );
}

/// `unpark` happens before the `park` that consumes its token: a value published with relaxed
/// stores before `unpark` is read after `park` without a race. Two `unpark`s before one `park`
/// are both received.
#[test]
fn park_is_ordered_after_the_unparks_whose_token_it_consumes() {
    let _one = exclusive();
    let (got, path) = record("park", || {
        let data = AtomicI64::new(0).named("data");
        let flag = AtomicI64::new(0).named("flag");
        thread::scope(|s| {
            let h = s.spawn(|| {
                while flag.load(Ordering::Relaxed) == 0 {
                    thread::park();
                }
                data.load(Ordering::Relaxed)
            });
            std::thread::sleep(std::time::Duration::from_millis(20));
            data.store(7, Ordering::Relaxed);
            flag.store(1, Ordering::Relaxed);
            h.thread().unpark();
            h.join().unwrap()
        })
    });
    assert_eq!(got, 7);
    let trace = load(&path);
    let child = ops_of(&trace, "main.1");
    let n = child.len();
    if child.contains(&"rcv(unpark/0)".to_owned()) {
        assert_eq!(
            child[n - 3..],
            ["rcv(unpark/0)", "aload(flag)", "aload(data)"]
        );
        // The flag's first (relaxed) read, before the park, is unordered with its store;
        // the data is read only after the park.
        assert_eq!(
            names_of(&races_atomics_lowered(&path), "variable"),
            ["flag"]
        );
    } else {
        // The child started after the store (a loaded machine): it never parked, and
        // nothing orders its reads.
        assert_eq!(child, ["aload(flag)", "aload(data)"]);
        assert_eq!(
            names_of(&races_atomics_lowered(&path), "variable"),
            ["data", "flag"]
        );
    }

    let (_, path) = record("park_twice", || {
        let me = thread::current();
        me.unpark();
        me.unpark();
        thread::park();
    });
    let trace = load(&path);
    assert_eq!(
        ops_of(&trace, "main"),
        [
            "snd(unpark/0)",
            "snd(unpark/1)",
            "rcv(unpark/0)",
            "rcv(unpark/1)"
        ]
    );
}

/// `atomic_block` says the code *should* be atomic; it does not make it so. A read-and-write-
/// back in two critical sections inside a block is a stale value for `views` by default (lock
/// regions, as in every trace with a lock), which taking the block as a region would hide.
#[test]
fn views_takes_lock_regions_of_a_recorded_trace_with_blocks() {
    let _one = exclusive();
    let (n, path) = record("views_blocks", || {
        let m = Mutex::new(Shared::new(0i64).named("n")).named("m");
        thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    hindsight_record::atomic_block("increment", || {
                        let v = m.lock().unwrap().get();
                        m.lock().unwrap().set(v + 1);
                    })
                });
            }
        });
        m.into_inner().unwrap().into_inner()
    });
    assert!(n == 1 || n == 2);
    let trace = load(&path);
    assert_eq!(count(&trace, |e| matches!(e.op, Op::Begin(_))), 2);
    let found = views(&path);
    assert!(found.iter().any(|f| f.kind == "stale-value"), "{found:#?}");
    let over_blocks = analyse(
        &path,
        Box::new(hindsight_stream::views::DynamicViews::new(
            hindsight_stream::views::Regions::Blocks,
            true,
        )),
    );
    assert!(over_blocks.is_empty(), "{over_blocks:#?}");
}
