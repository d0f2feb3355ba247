//! `get_lock.rs`, fixed: the lookup and the insertion run as one step under the table's own
//! lock, so every pair of map operations is ordered and each key gets exactly one lock.
//! `hindsight commute --builtin map` reports nothing.

use hindsight_record::sync::{Arc, Mutex};
use hindsight_record::{thread, Map, Named, Shared, ToValue, TraceValue};

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
    guard: Mutex<()>,
    locks: Map<String, Arc<KeyLock>>,
}

impl LockTable {
    fn new() -> LockTable {
        LockTable {
            guard: Mutex::new(()).named("table"),
            locks: Map::new().named("locks"),
        }
    }

    pub fn get_lock(&self, key: &str, me: i64) -> Arc<KeyLock> {
        let _table = self.guard.lock().expect("not poisoned");
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
