//! Generators of random posets shaped like the thesis's benchmarks (Tables 3.1 and 4.2):
//! `d-N`, a distributed computation of 10 processes and N events exchanging random messages,
//! and `w-N`, 480 events over N processes. Deterministic: the same name and seed give the same
//! poset.
//!
//! It owns only the random computation; it knows nothing of enumeration.

use super::poset::Poset;
use super::poset_file::write_poset;
use hindsight_budget::{Account, Budget, Meter, Spent};
use hindsight_rng::SplitMix64;
use hindsight_syntax::Diagnostic;

/// The parameters of a random message-passing computation.
#[derive(Clone, Debug, PartialEq)]
pub struct PosetGenConfig {
    /// Number of processes.
    pub processes: usize,
    /// Number of events, spread evenly over the processes (the first ones take the remainder).
    pub events: usize,
    /// Probability that an event sends a message to another process chosen uniformly.
    pub send: f64,
    /// Probability that an event receives each message waiting for its process, oldest first,
    /// stopping at the first it leaves (independent of `send`).
    pub receive: f64,
    pub seed: u64,
}

/// The thesis's benchmark families by name: `d-N` (10 processes, N events) and `w-N` (N
/// processes, 480 events). The message rates are chosen so that the state counts are of the
/// order of the thesis's (d-300: tens of millions of states).
pub fn config_by_name(name: &str, seed: u64) -> Result<PosetGenConfig, String> {
    let bad = || {
        format!("unknown poset family `{name}`: use d-N (10 processes, N events) or w-N (N processes, 480 events)")
    };
    let (family, number) = name.split_once('-').ok_or_else(bad)?;
    let number: usize = number.parse().map_err(|_| bad())?;
    match family {
        "d" if (1..=D_MAX).contains(&number) => Ok(PosetGenConfig {
            processes: 10,
            events: number,
            send: D_SEND,
            receive: D_RECEIVE,
            seed,
        }),
        "w" if (1..=W_MAX).contains(&number) => Ok(PosetGenConfig {
            processes: number,
            events: 480,
            send: W_SEND,
            receive: W_RECEIVE,
            seed,
        }),
        "d" => Err(format!(
            "poset family `{name}`: d-N takes N from 1 to {D_MAX} events"
        )),
        "w" => Err(format!(
            "poset family `{name}`: w-N takes N from 1 to {W_MAX} processes (480 events in all)"
        )),
        _ => Err(bad()),
    }
}

/// The largest `d-N`: ten million events.
const D_MAX: usize = 10_000_000;
/// The largest `w-N`: as many processes as its 480 events.
const W_MAX: usize = 480;

/// Message rates of `d-N`: d-300 has 1e7 to 3e7 states depending on the seed (the thesis's
/// d-300 has 4.3e7).
pub const D_SEND: f64 = 0.55;
pub const D_RECEIVE: f64 = 1.0;
/// Message rates of `w-N`: w-8 has about 1.2e8 states with seed 1 (the thesis's has 7.4e9,
/// beyond a benchmark run on a shared machine), w-4 about 1e5.
pub const W_SEND: f64 = 0.3;
pub const W_RECEIVE: f64 = 1.0;

/// A random computation: at each step a process with events left takes one step; it receives
/// the waiting messages oldest first, each with probability `receive` (stopping at the first it
/// leaves waiting), then sends one to a random
/// other process with probability `send` (an event may do both, or neither: a local step).
pub fn generate_poset(config: &PosetGenConfig) -> Poset {
    match generate_poset_within(config, &Budget::unlimited()) {
        Ok(poset) => poset,
        Err(spent) => unreachable!("an unlimited budget ran out: {spent:?}"),
    }
}

/// [`generate_poset`] within `budget`: the clock polled every event, the poset's clocks and
/// the messages in flight charged as they grow; once it is spent, no poset.
pub fn generate_poset_within(config: &PosetGenConfig, budget: &Budget) -> Result<Poset, Spent> {
    let n = config.processes;
    let mut poset = Poset::new(n);
    if n == 0 {
        return Ok(poset);
    }
    let mut rng = SplitMix64::new(config.seed ^ 0x005E_ED0F_CAFE);
    let mut left: Vec<usize> = (0..n)
        .map(|p| config.events / n + usize::from(p < config.events % n))
        .collect();
    let mut clocks = vec![vec![0u32; n]; n];
    let mut inbox: Vec<std::collections::VecDeque<Vec<u32>>> = vec![Default::default(); n];
    let mut active: Vec<usize> = (0..n).filter(|&p| left[p] > 0).collect();
    let mut meter = Meter::new(budget);
    let mut account = Account::new(budget);
    // A clock of `n` components, in the poset or in an inbox, and the file's text for it
    // (`write_poset`: up to 11 bytes a component).
    let clock_bytes = (n * 4 + std::mem::size_of::<Vec<u32>>()) as u64;
    let text_bytes = (n * 11 + 8) as u64;
    let (mut clocks_held, mut in_flight) = (0u64, 0u64);
    while !active.is_empty() {
        meter.step()?;
        account.hold((clocks_held + in_flight) * clock_bytes + clocks_held * text_bytes)?;
        clocks_held += 1;
        let a = rng.modulo(active.len() as u64) as usize;
        let p = active[a];
        clocks[p][p] += 1;
        while !inbox[p].is_empty() && rng.unit_at_most(config.receive) {
            let sent = inbox[p].pop_front().expect("non-empty inbox");
            in_flight -= 1;
            for (c, s) in clocks[p].iter_mut().zip(&sent) {
                *c = (*c).max(*s);
            }
        }
        if n > 1 && rng.unit_at_most(config.send) {
            let mut q = rng.modulo(n as u64 - 1) as usize;
            if q >= p {
                q += 1;
            }
            // A message to a process with no events left is never received.
            if left[q] > 0 {
                inbox[q].push_back(clocks[p].clone());
                in_flight += 1;
            }
        }
        poset.push(p, &clocks[p]);
        left[p] -= 1;
        if left[p] == 0 {
            active.swap_remove(a);
        }
    }
    Ok(poset)
}

/// `hindsight gen-poset`: the poset file of a poset of the family `name` (see
/// [`config_by_name`]), with the message rates `send` and `receive` when given (probabilities;
/// default: the family's).
pub fn generate_poset_file(
    name: &str,
    seed: u64,
    send: Option<f64>,
    receive: Option<f64>,
) -> Result<String, Diagnostic> {
    let text = generate_poset_file_within(name, seed, send, receive, &Budget::unlimited())?;
    Ok(text.expect("an unlimited budget never runs out"))
}

/// [`generate_poset_file`] within `budget` (`gen-poset --timeout/--memory-limit`): `Ok(None)`
/// when the budget ran out before the poset was whole (its text is charged before it is
/// written).
pub fn generate_poset_file_within(
    name: &str,
    seed: u64,
    send: Option<f64>,
    receive: Option<f64>,
    budget: &Budget,
) -> Result<Option<String>, Diagnostic> {
    let mut config = config_by_name(name, seed).map_err(Diagnostic::usage)?;
    for (p, option) in [(send, "--send"), (receive, "--receive")] {
        if p.is_some_and(|p| !(0.0..=1.0).contains(&p)) {
            return Err(Diagnostic::usage(format!(
                "{option} is a probability: between 0 and 1"
            )));
        }
    }
    config.send = send.unwrap_or(config.send);
    config.receive = receive.unwrap_or(config.receive);
    Ok(generate_poset_within(&config, budget)
        .ok()
        .map(|poset| write_poset(&poset)))
}
