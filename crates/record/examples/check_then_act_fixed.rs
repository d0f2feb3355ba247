//! `check_then_act.rs`, fixed: the check and the debit happen in one critical section, so the
//! block is serializable whatever the schedule. `hindsight atomicity` reports nothing.

use hindsight_record::sync::Mutex;
use hindsight_record::{atomic_block, thread, Named, Shared};

pub struct Account {
    balance: Mutex<Shared<i64>>,
}

impl Account {
    pub fn new(balance: i64) -> Account {
        Account {
            balance: Mutex::new(Shared::new(balance).named("balance")).named("account"),
        }
    }

    pub fn withdraw(&self, amount: i64) -> bool {
        atomic_block("withdraw", || {
            let mut balance = self.balance.lock().expect("not poisoned");
            let enough = balance.get() >= amount;
            if enough {
                balance.update(|b| *b -= amount);
            }
            enough
        })
    }

    pub fn balance(&self) -> i64 {
        self.balance.lock().expect("not poisoned").get()
    }
}

pub fn run() -> i64 {
    let account = Account::new(100);
    thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| account.withdraw(40));
        }
    });
    let b = account.balance();
    println!("balance = {b}");
    b
}

#[allow(dead_code)]
fn main() {
    let _trace = hindsight_record::init();
    run();
}
