// The thread pool of The Rust Programming Language's final project (a multithreaded web
// server): workers share one `mpsc::Receiver` behind an `Arc<Mutex<..>>`, take jobs from it
// in a loop, and `Drop` closes the channel and joins them. Written here after the book's
// design, with jobs that count requests instead of serving TCP connections; the port is the
// three lines marked `hindsight:`.
//
//     HINDSIGHT_TRACE=pool.hst cargo run -p hindsight-record --example thread_pool
//     hindsight check --analyses races,atomicity,views --regions locks pool.hst
//
// Expected: no finding. Every job increments the hit counter in one critical section.

use hindsight_record::sync::{mpsc, Arc, Mutex}; // hindsight: was std::sync
use hindsight_record::thread; // hindsight: was std::thread

type Job = Box<dyn FnOnce() + Send + 'static>;

pub struct ThreadPool {
    workers: Vec<Worker>,
    sender: Option<mpsc::Sender<Job>>,
}

impl ThreadPool {
    /// A pool of `size` workers; panics if `size` is zero.
    pub fn new(size: usize) -> ThreadPool {
        assert!(size > 0);
        let (sender, receiver) = mpsc::channel();
        let receiver = Arc::new(Mutex::new(receiver));
        let workers = (0..size)
            .map(|id| Worker::new(id, Arc::clone(&receiver)))
            .collect();
        ThreadPool {
            workers,
            sender: Some(sender),
        }
    }

    pub fn execute<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        let job = Box::new(f);
        self.sender.as_ref().unwrap().send(job).unwrap();
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        drop(self.sender.take());
        for worker in &mut self.workers {
            if let Some(thread) = worker.thread.take() {
                thread.join().unwrap();
            }
        }
    }
}

struct Worker {
    thread: Option<thread::JoinHandle<()>>,
}

impl Worker {
    fn new(_id: usize, receiver: Arc<Mutex<mpsc::Receiver<Job>>>) -> Worker {
        let thread = thread::spawn(move || loop {
            let message = receiver.lock().unwrap().recv();
            match message {
                Ok(job) => job(),
                Err(_) => break,
            }
        });
        Worker {
            thread: Some(thread),
        }
    }
}

/// Serves `requests` requests on a pool of 4 workers; returns the number counted.
pub fn serve(requests: usize) -> usize {
    let hits = Arc::new(Mutex::new(0usize));
    {
        let pool = ThreadPool::new(4);
        for _ in 0..requests {
            let hits = Arc::clone(&hits);
            pool.execute(move || {
                *hits.lock().unwrap() += 1;
            });
        }
    }
    let n = *hits.lock().unwrap();
    n
}

fn main() {
    let _trace = hindsight_record::init(); // hindsight: starts recording
    println!("{} requests served", serve(16));
}
