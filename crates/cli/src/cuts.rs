//! `hindsight cuts`: its arguments, its budget, and one library call
//! (`hindsight_states::cuts::detect`), whose report is printed as it comes back.

use crate::args::FormatArg;
use crate::budget::BudgetArgs;
use crate::input::is_poset_file;
use crate::output::print_warnings;
use crate::session::Session;
use clap::ValueEnum;
use hindsight_report::Report;
use hindsight_states::cuts::cluster::{parse_hostfile, Cluster};
use hindsight_states::cuts::{detect, Detection, Enumerator, Input, Options, PredicateText};
use hindsight_states::Progress;
use hindsight_stream::RunOptions;
use hindsight_syntax::input_name;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum AlgoArg {
    /// A detector when the predicate is recognised (`race`, or conjunctive), QuickLex otherwise.
    Auto,
    /// A detector, or an error when the predicate is not recognised.
    Detect,
    Bfs,
    Lex,
    Quicklex,
    Paramount,
}

#[derive(clap::Args)]
pub struct CutsArgs {
    /// A trace (any format the trace commands read; `-` for standard input) or a poset file
    /// (`PID:(c1,...,cn)` per line; recognised by its first line, or forced with --poset).
    pub input: PathBuf,
    /// The predicate to detect, e.g. `race`, `atleast(3, method == stop)`,
    /// `at(T1, op == w && var == x) && at(T2, op == r)`; `@FILE` reads it from a file. The language:
    /// docs/cuts.md, "Predicates".
    #[arg(long)]
    predicate: Option<String>,
    /// How the predicate is decided: by a detector that does not enumerate (`race` from a racy
    /// pair; a conjunctive predicate by Garg-Waldecker, or with --all by visiting only its
    /// satisfying states), or by an enumeration algorithm. `auto` picks a detector when the
    /// predicate is recognised and QuickLex otherwise; naming an enumerator forces enumeration.
    #[arg(long, value_enum, default_value = "auto")]
    algo: AlgoArg,
    /// Worker threads of ParaMount (default: the number of CPUs; at most 1024).
    #[arg(long, value_parser = crate::args::workers)]
    threads: Option<usize>,
    /// Just count the consistent global states (and, with --predicate, those satisfying it).
    #[arg(long)]
    count: bool,
    /// Report every satisfying state (up to --max-states) instead of the first.
    #[arg(long)]
    all: bool,
    /// The most states --all reports.
    #[arg(long, value_name = "N", default_value_t = 100)]
    max_states: u64,
    /// The old name of --max-states (`--limit` shows finding groups everywhere else).
    #[arg(
        long = "limit",
        value_name = "N",
        hide = true,
        conflicts_with = "max_states"
    )]
    old_limit: Option<u64>,
    /// The input is a poset file, whatever it looks like.
    #[arg(long)]
    poset: bool,
    /// Enumerate while a poset file streams in (ParaMount's online form, thesis Algorithm 6):
    /// each event's interval is enumerated once its line is read, in batches, and the first
    /// satisfying state stops the reading. Needs the lines in an order consistent with the
    /// clocks; poset files only. --algo picks the enumerator of each interval.
    #[arg(long)]
    online: bool,
    /// Every event of the trace enters the poset, not only those the predicate looks at.
    #[arg(long)]
    full_poset: bool,
    /// The old name of --full-poset (`--every-event` reports every occurrence of a finding
    /// everywhere else).
    #[arg(long = "every-event", hide = true)]
    old_every_event: bool,
    /// Run ParaMount across this many processes (timely dataflow), each started with the
    /// same arguments but its own --process, on one machine or several; needs --algo
    /// paramount, --process and --hostfile. Every process prints the same report.
    #[arg(long, value_name = "P", requires_all = ["process", "hostfile"], value_parser = clap::value_parser!(u64).range(1..=4096))]
    processes: Option<u64>,
    /// This process's number among --processes, from 0.
    #[arg(long, value_name = "I", requires = "processes")]
    process: Option<usize>,
    /// The processes' addresses: one `host:port` line per process, in process order (`#`
    /// comments and blank lines ignored). Every process listens on its own line's port.
    #[arg(long, value_name = "FILE", requires = "processes")]
    hostfile: Option<PathBuf>,
    /// How long a process of --processes waits for the others to connect, in seconds; past
    /// it the run is an error (exit status 2) naming the hosts.
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = hindsight_budget::parse_timeout)]
    connect_timeout: std::time::Duration,
    #[command(flatten)]
    budget: BudgetArgs,
    /// Treat every warning about the trace as an error (exit status 2).
    #[arg(long)]
    strict: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: FormatArg,
}

/// The predicate of `--predicate`: its text, or that of the file `@FILE` names.
pub fn read_predicate(session: &Session, arg: &str) -> anyhow::Result<PredicateText> {
    Ok(match arg.strip_prefix('@') {
        Some(file) => PredicateText {
            text: session.read_text(Path::new(file))?,
            name: file.to_owned(),
        },
        None => PredicateText {
            text: arg.to_owned(),
            name: "<predicate>".to_owned(),
        },
    })
}

/// Prints the trace's warnings as soon as it has been read.
pub struct PrintWarnings;

impl Progress for PrintWarnings {
    fn input_read(&self, warnings: &[String]) {
        print_warnings(warnings);
    }
}

/// The cluster of `--processes`, its host file read and checked.
fn cluster(session: &Session, args: &CutsArgs) -> anyhow::Result<Option<Cluster>> {
    let (Some(processes), Some(process), Some(file)) =
        (args.processes, args.process, &args.hostfile)
    else {
        return Ok(None);
    };
    let text = session.read_text(file)?;
    let hosts = parse_hostfile(&text, &input_name(file), processes as usize)?;
    Ok(Some(Cluster {
        hosts,
        process,
        // Set by the library to the --threads it runs with.
        threads: 0,
        connect_timeout: args.connect_timeout,
    }))
}

pub fn run(session: &Session, args: &CutsArgs) -> anyhow::Result<u8> {
    // Scripts written before the renames keep working, and are told.
    if args.old_limit.is_some() {
        eprintln!("hindsight: warning: `cuts --limit` is now `--max-states`; the old name will go");
    }
    if args.old_every_event {
        eprintln!(
            "hindsight: warning: `cuts --every-event` is now `--full-poset`; the old name will go"
        );
    }
    let options = Options {
        predicate: args
            .predicate
            .as_deref()
            .map(|p| read_predicate(session, p))
            .transpose()?,
        enumerator: match args.algo {
            AlgoArg::Auto | AlgoArg::Detect | AlgoArg::Quicklex => Enumerator::QuickLex,
            AlgoArg::Bfs => Enumerator::Bfs,
            AlgoArg::Lex => Enumerator::Lex,
            AlgoArg::Paramount => Enumerator::ParaMount,
        },
        detection: match args.algo {
            AlgoArg::Auto => Detection::Auto,
            AlgoArg::Detect => Detection::Detector,
            _ => Detection::Enumerate,
        },
        threads: args.threads,
        count: args.count,
        all: args.all,
        limit: args.old_limit.unwrap_or(args.max_states),
        every_event: args.full_poset || args.old_every_event,
        online: args.online,
        cluster: cluster(session, args)?,
    };
    let poset = args.poset || is_poset_file(&args.input);
    // The options' errors before the input is opened (standard input would wait for it).
    options.check(poset)?;
    let name = input_name(&args.input);
    // Each process of a cluster draws the line of its own workers.
    let running = match (&options.cluster, args.process) {
        (Some(c), Some(i)) => args
            .budget
            .start(&format!("cuts (process {i} of {})", c.hosts.len())),
        _ => args.budget.start("cuts"),
    };
    let budget = &running.budget;
    let report = (|| -> anyhow::Result<Report> {
        Ok(if !poset {
            let mut reader = session.open_trace(&args.input, Some(budget))?;
            let run = RunOptions {
                strict: args.strict,
                pipeline: session.pipelined(1),
                lock_records: Default::default(),
            };
            let input = Input::Trace(&mut reader, run);
            let mut report = detect(input, &name, &options, &PrintWarnings, budget)?;
            if session.wants_html(args.format) {
                crate::traces::draw_timelines(
                    session,
                    &args.input,
                    std::slice::from_mut(&mut report),
                    false,
                )?;
            }
            report
        } else if args.online {
            let mut lines = session.open_lines(&args.input)?;
            let input = Input::PosetLines(&mut *lines);
            detect(input, &name, &options, &PrintWarnings, budget)?
        } else {
            let text = session.read_text(&args.input)?;
            detect(
                Input::PosetText(&text),
                &name,
                &options,
                &PrintWarnings,
                budget,
            )?
        })
    })();
    running.done();
    let report = report?;
    session.print_report(&report, args.format)?;
    Ok(report.exit_code() as u8)
}
