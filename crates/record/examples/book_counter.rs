// The shared counter of The Rust Programming Language, chapter 16.3 ("Shared-State
// Concurrency", the `Arc<Mutex<i32>>` listing): ten threads each lock the mutex and add one.
// Written here after the book's program; the port to hindsight is the three lines marked
// `hindsight:`, and everything else is the plain std program.
//
//     HINDSIGHT_TRACE=counter.hst cargo run -p hindsight-record --example book_counter
//     hindsight check --analyses races,atomicity,views counter.hst
//
// Expected: no finding. Each thread's critical section is `acq w rel` of the lock's data
// (`*num += 1` dereferences the guard mutably once); `main` reads it once at the end.

use hindsight_record::sync::{Arc, Mutex}; // hindsight: was std::sync
use hindsight_record::thread; // hindsight: was std::thread

fn main() {
    let _trace = hindsight_record::init(); // hindsight: starts recording
    let counter = Arc::new(Mutex::new(0));
    let mut handles = vec![];

    for _ in 0..10 {
        let counter = Arc::clone(&counter);
        let handle = thread::spawn(move || {
            let mut num = counter.lock().unwrap();
            *num += 1;
        });
        handles.push(handle);
    }

    for handle in handles {
        handle.join().unwrap();
    }

    println!("Result: {}", *counter.lock().unwrap());
}
