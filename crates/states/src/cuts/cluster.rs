//! ParaMount across processes, on timely dataflow: `P` processes of `T` workers each enumerate
//! the parts of one [`Plan`] split for all `P * T` workers, worker `w` taking every `P * T`-th
//! part of the plan's schedule from the `w`-th on (the schedule is largest first, so the shares
//! are even). Every process computes the same plan from the same input, so the parts are the
//! same everywhere and each state is enumerated by exactly one worker.
//!
//! Two dataflows streams carry what the workers say: each part's result, broadcast so that
//! every process ends with all of them (and reports the same thing), and, for a first-state
//! search, the earliest part where a state was found, broadcast so that every worker stops the
//! parts after it (between parts; the workers of one process share it at once).
//!
//! It owns the timely workers, the split of the parts among them and the exchange of results;
//! it knows nothing of predicates or reports (the caller's visitors and results carry them) and
//! reads no files: the host list comes as text.

#[cfg(feature = "cluster")]
use super::paramount::Plan;
use super::poset::Poset;
use hindsight_syntax::{Diagnostic, Position};
use serde::{Deserialize, Serialize};
#[cfg(feature = "cluster")]
use std::cell::{Cell, RefCell};
#[cfg(feature = "cluster")]
use std::rc::Rc;
#[cfg(feature = "cluster")]
use std::sync::atomic::{AtomicUsize, Ordering};
#[cfg(feature = "cluster")]
use std::sync::Arc;
#[cfg(feature = "cluster")]
use timely::container::CapacityContainerBuilder;
#[cfg(feature = "cluster")]
use timely::dataflow::operators::vec::Broadcast;
#[cfg(feature = "cluster")]
use timely::dataflow::operators::{Input, Inspect, Probe};
#[cfg(feature = "cluster")]
use timely::dataflow::{InputHandle, ProbeHandle};
#[cfg(feature = "cluster")]
use timely::worker::Worker;
#[cfg(feature = "cluster")]
use timely::{CommunicationConfig, WorkerConfig};

/// Where this process stands among the processes of one enumeration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// `host:port` of every process, in process order.
    pub hosts: Vec<String>,
    /// This process's number, from 0.
    pub process: usize,
    /// Workers in each process (the same in all).
    pub threads: usize,
    /// How long this process waits for the others to connect before it gives up.
    pub connect_timeout: std::time::Duration,
}

impl Cluster {
    /// The workers of all processes.
    pub fn workers(&self) -> usize {
        self.hosts.len() * self.threads
    }
}

/// The hosts of a host file: one `host:port` per line, blank lines and `#` comments
/// ignored, exactly `processes` of them. Errors name the file (`name`) and line.
pub fn parse_hostfile(text: &str, name: &str, processes: usize) -> Result<Vec<String>, Diagnostic> {
    let mut hosts = Vec::new();
    let mut last = 0;
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        last = line_no;
        let entry = line.split('#').next().unwrap_or("").trim();
        if entry.is_empty() {
            continue;
        }
        let at = |message: String| Diagnostic::error(name, Position::Line(line_no as u64), message);
        let Some((host, port)) = entry.rsplit_once(':') else {
            return Err(at(format!(
                "`{entry}` is not `host:port` (one process a line, e.g. `node1:2101`)"
            )));
        };
        if host.is_empty() || host.contains(char::is_whitespace) {
            return Err(at(format!(
                "`{entry}`: the host before `:` is missing or has spaces"
            )));
        }
        if !matches!(port.parse::<u16>(), Ok(p) if p > 0) {
            return Err(at(format!(
                "`{entry}`: the port `{port}` is not a number from 1 to 65535"
            )));
        }
        if hosts.len() == processes {
            return Err(at(format!(
                "more than the {processes} hosts of --processes {processes}"
            )));
        }
        hosts.push(entry.to_owned());
    }
    if hosts.len() < processes {
        return Err(Diagnostic::error(
            name,
            Position::Line(last.max(1) as u64),
            format!(
                "{} host(s) for --processes {processes}: one `host:port` line per process",
                hosts.len()
            ),
        ));
    }
    Ok(hosts)
}

/// What one part of the plan found: the part's number, and what the caller's `finish` made of
/// its visitor. `check` is the caller's fingerprint of what it enumerates (the poset and the
/// question), so that processes given different inputs are told apart rather than summed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PartResult {
    pub part: usize,
    pub check: u64,
    pub states: u64,
    pub satisfying: u64,
    pub found: Vec<Vec<u32>>,
    pub complete: bool,
}

/// A fingerprint of a poset, for [`PartResult::check`] (FNV-1a over its clocks).
pub fn fingerprint(poset: &Poset, seed: u64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    let mut eat = |x: u64| {
        for b in x.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(poset.processes() as u64);
    for p in 0..poset.processes() {
        eat(u64::from(poset.len(p)));
        for &c in poset.rows(p) {
            eat(u64::from(c));
        }
    }
    h
}

/// One worker's view of the enumeration: the parts it takes ([`Share::next_part`]), where it hands
/// their results ([`Share::done`]), and the earliest part where a first-state search found a
/// state ([`Share::best`]).
#[cfg(feature = "cluster")]
pub struct Share<'w> {
    worker: &'w mut Worker,
    plan: &'w Plan,
    /// The next place in the plan's schedule this worker takes.
    next: usize,
    results: InputHandle<u64, CapacityContainerBuilder<Vec<PartResult>>>,
    found: InputHandle<u64, CapacityContainerBuilder<Vec<usize>>>,
    best: &'w AtomicUsize,
    /// The least part number other workers announced.
    heard: Rc<Cell<usize>>,
    /// The least part number this worker announced.
    told: usize,
}

#[cfg(feature = "cluster")]
impl Share<'_> {
    /// The plan every worker follows.
    pub fn plan(&self) -> &Plan {
        self.plan
    }

    /// The earliest part where a state was found: visitors stop when it is below their part,
    /// and lower it (`fetch_min`) when they find one. Shared by this process's workers at once,
    /// and by the others' as each worker goes to its next part.
    pub fn best(&self) -> &AtomicUsize {
        self.best
    }

    /// The number of parts this worker takes.
    pub fn len(&self) -> usize {
        let (index, peers) = (self.worker.index(), self.worker.peers());
        (index..self.plan.schedule.len()).step_by(peers).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The next part this worker enumerates, after telling the others what it found and
    /// hearing what they did.
    pub fn next_part(&mut self) -> Option<usize> {
        let b = self.best.load(Ordering::Relaxed);
        if b < self.told {
            self.found.send(b);
            self.told = b;
        }
        self.worker.step();
        self.best.fetch_min(self.heard.get(), Ordering::Relaxed);
        let i = *self.plan.schedule.get(self.next)?;
        self.next += self.worker.peers();
        Some(i)
    }

    /// Hands the result of a part to every process.
    pub fn done(&mut self, result: PartResult) {
        self.results.send(result);
    }
}

/// Enumerates the parts of `plan` (split for `cluster.workers()` workers; the same plan in
/// every process) across the cluster: `body` runs on each of this process's workers, taking
/// parts with [`Share::next_part`] until there are none and handing each result to
/// [`Share::done`]. `check` is this process's fingerprint (see [`PartResult`]). Every process
/// gets the results of all parts, in part order; an error if the cluster cannot be set up, a
/// worker gives up, or the processes disagree.
#[cfg(feature = "cluster")]
pub fn run<B>(
    cluster: &Cluster,
    plan: Arc<Plan>,
    check: u64,
    body: B,
) -> Result<Vec<PartResult>, Diagnostic>
where
    B: Fn(&mut Share<'_>) + Send + Sync + 'static,
{
    // One process needs no network: its workers talk through memory.
    let config = if cluster.hosts.len() == 1 {
        CommunicationConfig::Process(cluster.threads)
    } else {
        CommunicationConfig::Cluster {
            threads: cluster.threads,
            process: cluster.process,
            addresses: cluster.hosts.clone(),
            report: false,
            zerocopy: false,
        }
    };
    let failed = |e: String| {
        Diagnostic::usage(format!(
            "process {} of {} could not join the cluster at {}: {e}",
            cluster.process,
            cluster.hosts.len(),
            cluster.hosts[cluster.process]
        ))
    };
    let (builders, others) = connect(config, cluster).map_err(failed)?;
    let threads = cluster.threads;
    let parts = plan.parts.len();
    let best = Arc::new(AtomicUsize::new(usize::MAX));
    let guards =
        timely::execute::execute_from(builders, others, WorkerConfig::default(), move |worker| {
            work(worker, threads, &plan, &best, &body)
        })
        .map_err(failed)?;
    let mut results = Vec::new();
    for joined in guards.join() {
        match joined {
            Ok(Some(r)) => results = r,
            Ok(None) => {}
            Err(e) => return Err(Diagnostic::usage(format!("a worker failed: {e}"))),
        }
    }
    results.sort_by_key(|r| r.part);
    let whole = results.len() == parts && results.iter().enumerate().all(|(i, r)| r.part == i);
    if !whole {
        return Err(Diagnostic::usage(format!(
            "the cluster returned {} results for {parts} parts: a worker gave up",
            results.len()
        )));
    }
    if let Some(other) = results.iter().find(|r| r.check != check) {
        return Err(Diagnostic::usage(format!(
            "part {} was enumerated by a process with another input or other options: every process must be given the same input, predicate and options, --threads included",
            other.part
        )));
    }
    Ok(results)
}

/// The processes of `config` connected, or an error naming the hosts that did not connect
/// within the cluster's `connect_timeout` (timely itself retries for ever: a peer that never
/// starts would hold this process for ever).
#[cfg(feature = "cluster")]
#[allow(clippy::type_complexity)]
fn connect(
    config: CommunicationConfig,
    cluster: &Cluster,
) -> Result<
    (
        Vec<timely::communication::AllocatorBuilder>,
        Box<dyn std::any::Any + Send>,
    ),
    String,
> {
    if cluster.hosts.len() == 1 {
        return config.try_build();
    }
    let (send, receive) = std::sync::mpsc::channel();
    // Left behind, still trying, when the time is up: the process ends with the error.
    std::thread::spawn(move || {
        let _ = send.send(config.try_build());
    });
    match receive.recv_timeout(cluster.connect_timeout) {
        Ok(built) => built,
        Err(_) => {
            let others: Vec<&str> = cluster
                .hosts
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != cluster.process)
                .map(|(_, h)| h.as_str())
                .collect();
            Err(format!(
                "no connection with {} {} within --connect-timeout {} s",
                if others.len() == 1 {
                    "the process at"
                } else {
                    "all of the processes at"
                },
                others.join(", "),
                cluster.connect_timeout.as_secs_f64()
            ))
        }
    }
}

/// One worker: builds the dataflow, lets `body` enumerate its share of the parts, and steps
/// the dataflow until every worker is done. The first worker of each process returns every
/// part's result (each worker heard them all).
#[cfg(feature = "cluster")]
fn work<B>(
    worker: &mut Worker,
    threads: usize,
    plan: &Plan,
    best: &AtomicUsize,
    body: &B,
) -> Option<Vec<PartResult>>
where
    B: Fn(&mut Share<'_>),
{
    let index = worker.index();
    let mut results = InputHandle::new();
    let mut found = InputHandle::new();
    let probe = ProbeHandle::new();
    let gathered: Rc<RefCell<Vec<PartResult>>> = Rc::default();
    let heard = Rc::new(Cell::new(usize::MAX));
    worker.dataflow::<u64, _, _>(|scope| {
        let keep = Rc::clone(&gathered);
        scope
            .input_from(&mut results)
            .container::<Vec<PartResult>>()
            .broadcast()
            .inspect(move |r: &PartResult| keep.borrow_mut().push(r.clone()))
            .probe_with(&probe);
        let heard = Rc::clone(&heard);
        scope
            .input_from(&mut found)
            .container::<Vec<usize>>()
            .broadcast()
            .inspect(move |&i: &usize| heard.set(heard.get().min(i)))
            .probe_with(&probe);
    });
    let mut share = Share {
        worker,
        plan,
        next: index,
        results,
        found,
        best,
        heard,
        told: usize::MAX,
    };
    body(&mut share);
    let Share {
        worker,
        results,
        found,
        ..
    } = share;
    drop(results);
    drop(found);
    while !probe.done() {
        worker.step_or_park(None);
    }
    (index % threads == 0).then(|| gathered.take())
}
