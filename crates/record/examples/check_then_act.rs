//! An atomicity violation: `withdraw` is meant to be atomic (it is an `atomic_block`), but it
//! checks the balance in one critical section and debits it in another. Three withdrawals of
//! 40 from 100: run one after another, two succeed and the third is refused; if another
//! withdrawal runs between a check and its debit, all three succeed and the balance goes
//! negative. `hindsight atomicity` predicts that interleaving from any recorded run (in every
//! run at least two withdrawals pass their check, so the trace has the read-write-write shape).
//!
//! ```sh
//! HINDSIGHT_TRACE=cta.hst cargo run --release -p hindsight-record --example check_then_act
//! hindsight atomicity cta.hst
//! ```

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

    /// Whether the withdrawal was made.
    pub fn withdraw(&self, amount: i64) -> bool {
        atomic_block("withdraw", || {
            let enough = self.balance.lock().expect("not poisoned").get() >= amount;
            // The balance can change here.
            if enough {
                self.balance
                    .lock()
                    .expect("not poisoned")
                    .update(|b| *b -= amount);
            }
            enough
        })
    }

    pub fn balance(&self) -> i64 {
        self.balance.lock().expect("not poisoned").get()
    }
}

/// Three threads withdraw 40 each from 100; returns the final balance.
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
