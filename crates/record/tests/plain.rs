//! Without the `record` feature every type is the plain std type, or a wrapper of the same
//! size with nothing added: checked here at compile time (a std type is assigned where ours is
//! expected and back) and by `size_of`. Runs with
//! `cargo test -p hindsight-record --no-default-features --test plain`.

#![cfg(not(feature = "record"))]

use hindsight_record::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use hindsight_record::sync::{mpsc, Condvar, Mutex, RwLock};
use hindsight_record::{thread, Map, Named, Recorder, Set, Shared};
use std::collections::{HashMap, HashSet};
use std::mem::size_of;

#[test]
fn synchronization_types_are_the_std_types() {
    let m: std::sync::Mutex<i32> = Mutex::new(1).named("ignored");
    let _: Mutex<i32> = m;
    let l: std::sync::RwLock<i32> = RwLock::new(1);
    let _: RwLock<i32> = l;
    let _: std::sync::Condvar = Condvar::new();
    let a: std::sync::atomic::AtomicI64 = AtomicI64::new(0);
    a.fetch_add(1, Ordering::Relaxed);
    let _: std::sync::atomic::AtomicBool = AtomicBool::new(false);
    let _: std::sync::atomic::AtomicUsize = AtomicUsize::new(0);
    let (tx, rx): (std::sync::mpsc::Sender<i32>, std::sync::mpsc::Receiver<i32>) = mpsc::channel();
    tx.send(1).unwrap();
    assert_eq!(rx.recv(), Ok(1));
    let h: std::thread::JoinHandle<i32> = thread::spawn(|| 7);
    assert_eq!(h.join().unwrap(), 7);
}

#[test]
fn the_other_types_add_nothing() {
    assert_eq!(size_of::<Shared<u8>>(), size_of::<u8>());
    assert_eq!(size_of::<Shared<[u64; 3]>>(), size_of::<[u64; 3]>());
    assert_eq!(
        size_of::<Map<String, i64>>(),
        size_of::<std::sync::Mutex<HashMap<String, i64>>>()
    );
    assert_eq!(
        size_of::<Set<i64>>(),
        size_of::<std::sync::Mutex<HashSet<i64>>>()
    );
    assert_eq!(size_of::<hindsight_record::AtomicBlock>(), 0);
    assert_eq!(size_of::<hindsight_record::TraceGuard>(), 0);
    const { assert!(!hindsight_record::RECORDS) };
}

#[test]
fn nothing_records() {
    assert!(Recorder::start(std::env::temp_dir().join("never.hst")).is_err());
    assert!(hindsight_record::init().finish().is_none());
    let mut x = Shared::new(1);
    x.update(|v| *v += 1);
    assert_eq!(hindsight_record::atomic_block("b", || x.get()), 2);
    let m: Map<&str, i32> = Map::new();
    assert_eq!(m.put_if_absent("a", 1), None);
    assert_eq!(m.put_if_absent("a", 2), Some(1));
}

static COUNTER: Mutex<i32> = Mutex::new(0);
static ZERO: Shared<i32> = Shared::new(0);

/// The recording build's additions compile here too: `const` constructors, `Shared`'s
/// operators and formatting, the one-time initialisations and barriers (std's own).
#[test]
fn the_recording_builds_api_compiles_without_it() {
    *COUNTER.lock().unwrap() += 1;
    let mut x = Shared::new(1);
    x += 2;
    x <<= 1;
    assert!(x == 6 && x > 5 && ZERO < Shared::new(1));
    assert_eq!(format!("{x} {x:?}"), "6 6");
    let _: std::sync::Barrier = hindsight_record::sync::Barrier::new(1);
    let _: std::sync::OnceLock<i32> = hindsight_record::sync::OnceLock::new();
    let _: std::sync::atomic::AtomicPtr<u8> =
        hindsight_record::sync::atomic::AtomicPtr::new(std::ptr::null_mut());
}
