//! The generators: `gen` (a random valid trace), `gen-poset` (a poset shaped like the
//! ParaMount/QuickLex benchmarks) and `gen-history` (a client history against a linearizable
//! object): their arguments, and writing what the library generates. Each runs on a budget
//! (`--timeout`; `gen-poset` and `gen-history`, which hold what they generate until it is
//! written, `--memory-limit` too): once it is spent nothing more is written, an output file is
//! left as it was (its temporary file removed) and the exit status is 3.

use crate::args::probability;
use crate::budget::{timeout_seconds, BudgetArgs};
use crate::output::{write_output, TraceSink};
use crate::session::Session;
use hindsight_budget::{show_size, Budget, Limits, Meter, Spent};
use hindsight_history::simulate::{simulate_within, to_jsonl, SimConfig, SIM_MODELS};
use hindsight_states::cuts::generate::generate_poset_file_within;
use hindsight_syntax::Diagnostic;
use hindsight_trace::generate::{generate, GenConfig};
use hindsight_trace::{Format, Names};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(clap::Args)]
pub struct GenArgs {
    /// Number of events.
    #[arg(long, default_value_t = 1000)]
    pub events: u64,
    /// Number of threads (T0 forks and joins the others).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: u32,
    /// Seed of the pseudo-random generator: the same seed gives the same trace.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Number of shared variables.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..))]
    pub vars: u32,
    /// Number of locks (variable x_i is guarded by lock L_(i mod locks)).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    pub locks: u32,
    /// Maximum lock nesting depth.
    #[arg(long, default_value_t = 2)]
    pub depth: u32,
    /// Fraction of accesses made without the guard lock (these may race).
    #[arg(long, default_value_t = 0.05, value_parser = probability)]
    pub unprotected: f64,
    /// Probability per step of opening an atomic block (begin/end).
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub blocks: f64,
    /// Turn every access into an action on a dictionary `m_i` over this many keys
    /// (put/get/size with consistent results), for `commute --builtin map`; at most 65,536
    /// (each dictionary keeps a dense table of its keys' values).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1 << 16))]
    pub map_keys: u32,
    /// A thread per request: once a thread has made this many events (and holds no lock),
    /// `T0` joins it and forks a new one in its place, `--threads - 1` requests at a time
    /// (0: the same threads run the whole trace).
    #[arg(long, default_value_t = 0)]
    pub per_request: u32,
    /// Access sites (source lines of accesses or dictionary calls; each variable uses three),
    /// `gen.rs:10` .. `gen.rs:73` for the first 64, then from `gen.rs:136` on.
    #[arg(long, default_value_t = hindsight_trace::generate::DEFAULT_SITES)]
    pub sites: u32,
    /// Output file (text, or binary if it ends in `.hst`); standard output if omitted.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Give up after this many seconds (a number from 0 to 1e9): nothing more is written, an
    /// output file is not created (exit status 3). A trace is written as it is generated, so
    /// it holds nothing that grows: there is no memory limit to set.
    #[arg(long, value_name = "SECONDS", value_parser = timeout_seconds)]
    pub timeout: Option<Duration>,
}

#[derive(clap::Args)]
pub struct GenPosetArgs {
    /// `d-N` (10 processes, N events, random messages) or `w-N` (N processes, 480 events).
    pub family: String,
    /// Seed of the pseudo-random generator: the same seed gives the same poset.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Probability that an event sends a message (default: the family's).
    #[arg(long, value_parser = probability)]
    pub send: Option<f64>,
    /// Probability that an event receives a waiting message (default: the family's).
    #[arg(long, value_parser = probability)]
    pub receive: Option<f64>,
    /// Output file; standard output if omitted.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub budget: BudgetArgs,
}

#[derive(clap::Args)]
pub struct GenHistoryArgs {
    /// register, cas-register, kv, list-append, set, queue, counter or mutex.
    #[arg(long, default_value = "cas-register")]
    pub model: String,
    /// Clients (processes), at most a million.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub clients: u32,
    /// Operations invoked.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
    pub ops: u32,
    /// Keys (kv and list-append only), at most a million.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub keys: u32,
    /// Size of the value domain.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub values: u32,
    /// Probability that a read returns an older value (an injected anomaly).
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub stale_reads: f64,
    /// Probability that a completed write never takes effect (an injected anomaly).
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub lost_writes: f64,
    /// Probability that an operation's outcome is recorded as unknown (`info`).
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub info: f64,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output file; standard output if omitted.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub budget: BudgetArgs,
}

/// Why a trace being generated stopped before its end.
enum Stop {
    Write(std::io::Error),
    Spent(Spent),
}

pub fn gen(session: &Session, a: &GenArgs) -> anyhow::Result<u8> {
    let config = GenConfig {
        events: a.events,
        threads: a.threads,
        vars: a.vars,
        locks: a.locks,
        max_depth: a.depth,
        unprotected: a.unprotected,
        blocks: a.blocks,
        seed: a.seed,
        map_keys: a.map_keys,
        per_request: a.per_request,
        sites: a.sites,
    };
    let output = a.output.as_deref();
    let format = output.map_or(Format::Text, Format::from_extension);
    let budget = Budget::new(Limits {
        timeout: a.timeout,
        memory: u64::MAX,
    });
    let mut meter = Meter::new(&budget);
    let mut written: u64 = 0;
    let mut sink = TraceSink::create(&session.files, output, &[], format)?;
    let mut names = Names::default();
    let generated = generate(&config, &mut names, |e, names| {
        meter.step().map_err(Stop::Spent)?;
        written += 1;
        sink.write(e, names).map_err(Stop::Write)
    });
    match generated {
        Ok(()) => {
            sink.finish()?;
            Ok(0)
        }
        Err(Stop::Write(e)) => Err(e.into()),
        Err(Stop::Spent(spent)) => {
            // Dropped unfinished: an output file's temporary file is removed.
            drop(sink);
            Ok(stopped(
                "gen",
                spent,
                &budget,
                output,
                &format!("{written} events"),
            ))
        }
    }
}

/// Says that `command` stopped at the limit `spent` of `budget` with `done` generated, and
/// what became of its output; the exit status 3.
fn stopped(command: &str, spent: Spent, budget: &Budget, output: Option<&Path>, done: &str) -> u8 {
    let limits = budget.limits();
    let limit = match (spent, limits.timeout) {
        (Spent::Time, Some(t)) => format!("the timeout ({} s)", t.as_secs_f64()),
        (Spent::Time, None) => "the timeout".to_owned(),
        (Spent::Memory, _) => format!("the memory limit ({})", show_size(limits.memory)),
    };
    let output = match output {
        Some(p) if p.as_os_str() != "-" => format!("{} was not written", p.display()),
        _ => "the output is incomplete".to_owned(),
    };
    crate::output::eprint_line(format_args!(
        "hindsight: {command}: stopped at {limit} after {done}; {output}"
    ));
    3
}

pub fn gen_poset(session: &Session, a: &GenPosetArgs) -> anyhow::Result<u8> {
    let running = a.budget.start("gen-poset");
    let budget = std::sync::Arc::clone(&running.budget);
    let text = generate_poset_file_within(&a.family, a.seed, a.send, a.receive, &budget);
    running.done();
    match text? {
        Some(text) => {
            write_output(&session.files, a.output.as_deref(), &text)?;
            Ok(0)
        }
        None => Ok(stopped(
            "gen-poset",
            budget.spent().unwrap_or(Spent::Time),
            &budget,
            a.output.as_deref(),
            &format!("{} of the poset's events", budget.reading().steps),
        )),
    }
}

pub fn gen_history(session: &Session, a: &GenHistoryArgs) -> anyhow::Result<u8> {
    if !SIM_MODELS.contains(&a.model.as_str()) {
        return Err(Diagnostic::usage(format!(
            "no model `{}` (there are: {})",
            a.model,
            SIM_MODELS.join(", ")
        ))
        .into());
    }
    let running = a.budget.start("gen-history");
    let budget = std::sync::Arc::clone(&running.budget);
    let history = simulate_within(
        &SimConfig {
            model: a.model.clone(),
            clients: a.clients,
            ops: a.ops,
            keys: a.keys,
            values: a.values,
            stale_reads: a.stale_reads,
            lost_writes: a.lost_writes,
            info: a.info,
            seed: a.seed,
        },
        &budget,
    );
    running.done();
    match history {
        Ok(history) => {
            write_output(&session.files, a.output.as_deref(), &to_jsonl(&history))?;
            Ok(0)
        }
        Err(spent) => Ok(stopped(
            "gen-history",
            spent,
            &budget,
            a.output.as_deref(),
            &format!("{} steps of the simulation", budget.reading().steps),
        )),
    }
}
