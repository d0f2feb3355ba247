//! A memoizing `getLock`: a table hands out one lock per key, creating it on first use. The
//! lookup and the insertion are two separate operations on a concurrent map, so two threads
//! asking for a new key can both miss, each create a lock and each use its own: the locks no
//! longer exclude each other. `hindsight commute --builtin map` reports the `get` that found no
//! lock racing with the other thread's `put` of one (they do not commute: the `get`'s result
//! depends on their order), in every recorded run whichever thread came first.
//!
//! ```sh
//! HINDSIGHT_TRACE=getlock.hst cargo run --release -p hindsight-record --example get_lock
//! hindsight commute --builtin map getlock.hst
//! ```

use hindsight_record::sync::{Arc, Mutex};
use hindsight_record::{thread, Map, Named, Shared, ToValue, TraceValue};

/// A lock handed out for a key; the trace shows it by its number.
pub struct KeyLock {
    id: i64,
    count: Mutex<Shared<i64>>,
}

impl ToValue for KeyLock {
    fn to_value(&self) -> TraceValue<'_> {
        TraceValue::Int(self.id)
    }
}

pub struct LockTable {
    locks: Map<String, Arc<KeyLock>>,
}

impl LockTable {
    fn new() -> LockTable {
        LockTable {
            locks: Map::new().named("locks"),
        }
    }

    /// The lock of `key`, created by the caller `me` if there is none yet.
    pub fn get_lock(&self, key: &str, me: i64) -> Arc<KeyLock> {
        if let Some(lock) = self.locks.get(key) {
            return lock;
        }
        let lock = Arc::new(KeyLock {
            id: me,
            count: Mutex::new(Shared::new(0).named("count")),
        });
        self.locks.insert(key.to_owned(), lock.clone());
        lock
    }
}

/// Two threads count under the lock of one key; returns how many distinct locks they used.
pub fn run() -> usize {
    let table = LockTable::new();
    let used: Vec<i64> = thread::scope(|s| {
        let workers: Vec<_> = (1..=2)
            .map(|me| {
                let table = &table;
                s.spawn(move || {
                    let lock = table.get_lock("account", me);
                    lock.count.lock().expect("not poisoned").update(|c| *c += 1);
                    lock.id
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("workers do not panic"))
            .collect()
    });
    let distinct = if used[0] == used[1] { 1 } else { 2 };
    println!("the workers used {distinct} distinct lock(s)");
    distinct
}

#[allow(dead_code)]
fn main() {
    let _trace = hindsight_record::init();
    run();
}
