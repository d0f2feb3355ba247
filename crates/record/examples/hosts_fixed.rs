//! The host-connection program of `hosts.rs`, fixed: the list is deduplicated before the
//! threads are forked, so no two threads put the same key and every pair of `put`s commutes.
//! `hindsight commute --builtin map` reports nothing.

use hindsight_record::{thread, Map, Named, ToValue, TraceValue};
use std::collections::HashSet;

pub const HOSTS: [&str; 3] = ["a.com", "b.com", "a.com"];

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

pub fn run(hosts: &[&str]) -> usize {
    let mut seen = HashSet::new();
    let unique: Vec<&str> = hosts.iter().copied().filter(|h| seen.insert(*h)).collect();
    let o: Map<String, Connection> = Map::new().named("o");
    thread::scope(|s| {
        for (i, host) in unique.iter().enumerate() {
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
