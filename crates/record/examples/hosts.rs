//! Fig. 1 of Dimitrov et al., "Commutativity Race Detection" (PLDI'14): one thread per host
//! connects and stores the connection in a shared dictionary; then the main thread prints how
//! many connections were established. With a duplicate host in the list, two threads `put` the
//! same key: one put adds the key, the other overwrites it, and which connection survives
//! depends on the schedule. `hindsight commute --builtin map` reports the commutativity race.
//!
//! ```sh
//! HINDSIGHT_TRACE=hosts.hst cargo run --release -p hindsight-record --example hosts
//! hindsight commute --builtin map hosts.hst
//! ```

use hindsight_record::{thread, Map, Named, ToValue, TraceValue};

/// The hosts to connect to; `a.com` is listed twice.
pub const HOSTS: [&str; 3] = ["a.com", "b.com", "a.com"];

/// A connection, shown in the trace by its number.
#[derive(Clone, Debug)]
pub struct Connection {
    pub id: i64,
    pub host: String,
}

impl ToValue for Connection {
    fn to_value(&self) -> TraceValue<'_> {
        TraceValue::Int(self.id)
    }
}

fn create_connection(id: usize, host: &str) -> Connection {
    Connection {
        id: id as i64 + 1,
        host: host.to_owned(),
    }
}

/// Connects to every host in parallel; returns how many connections the map holds.
pub fn run(hosts: &[&str]) -> usize {
    let o: Map<String, Connection> = Map::new().named("o");
    thread::scope(|s| {
        for (i, host) in hosts.iter().enumerate() {
            let o = &o;
            s.spawn(move || {
                o.insert(host.to_string(), create_connection(i, host));
            });
        }
    });
    let n = o.len();
    println!("{n} connections established");
    n
}

#[allow(dead_code)]
fn main() {
    let _trace = hindsight_record::init();
    run(&HOSTS);
}
