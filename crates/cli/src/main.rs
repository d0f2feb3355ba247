//! The `hindsight` command: reads a trace (or, for `lin`, a history), runs an analysis, prints
//! findings.
//!
//! This crate owns the command line: argument parsing, choosing input and output formats,
//! printing errors and warnings with their file positions, and exit statuses (0 clean,
//! 1 findings, 2 error, 3 unknown). It holds no analysis logic of its own.

mod atomicity;
mod commute;
mod composed;
mod cuts;
mod lin;
mod reach;
mod views;

use anyhow::{bail, Context};
use clap::{Parser, Subcommand, ValueEnum};
use hindsight_report::{render, OutputFormat, Report};
use hindsight_stream::races::Races;
use hindsight_stream::{run_any, Analysis, RunOptions, RunOutcome};
use hindsight_trace::generate::{generate, GenConfig};
use hindsight_trace::{BinaryWriter, EventSource, Format, Names, Position, TextWriter, TraceError};
use serde_json::Value;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "hindsight",
    version,
    about = "Predicts the concurrency bugs other schedules of one recorded run could hit",
    after_help = "Exit status: 0 no findings, 1 findings, 2 error (bad input or usage), 3 unknown (lin: timeout)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Read and analyse a trace in one thread (by default, with a second core, one thread reads
    /// and validates while the other analyses, and findings are built on every core; the
    /// results are the same).
    #[arg(long, global = true)]
    one_thread: bool,
}

/// Set once from `--one-thread`, before any trace is read.
static ONE_THREAD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Text,
    Json,
    Sarif,
}

#[derive(Clone, Copy, ValueEnum)]
enum TraceFormatArg {
    Text,
    Binary,
}

#[derive(clap::Args)]
struct InputArgs {
    /// The trace: RAPID's STD text format, our text superset, or binary `.hst` (sniffed);
    /// `-` reads standard input.
    trace: PathBuf,
    /// Treat every warning about the trace as an error (exit status 2).
    #[arg(long)]
    strict: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Happens-before data races: every access that races with an earlier one, with the latest
    /// such partner.
    Races {
        #[command(flatten)]
        input: InputArgs,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: FormatArg,
    },
    /// Atomicity violations under nested locking (CAV'09): two accesses in one transaction
    /// (`begin`..`end`) of a thread and a conflicting access of another thread that some
    /// inferred run executes between them.
    Atomicity {
        #[command(flatten)]
        input: InputArgs,
        /// Every violating triple (e1, f, e2), not one per witness class.
        #[arg(long)]
        all: bool,
        /// Build, replay-check and show an inferred run for each finding.
        #[arg(long)]
        schedule: bool,
        /// Accept releases that break nested locking, with a warning.
        #[arg(long)]
        ignore_non_nested: bool,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: FormatArg,
    },
    /// Commutativity races (PLDI'14): method calls on one object that may run in either order
    /// and that the object's spec does not say commute.
    #[command(group(clap::ArgGroup::new("source").required(true).args(["spec", "builtin"])))]
    Commute {
        /// The trace (not needed with --explain); `-` reads standard input.
        #[arg(required_unless_present = "explain")]
        trace: Option<PathBuf>,
        /// A spec file declaring object types, their methods and when they commute.
        #[arg(long)]
        spec: Option<PathBuf>,
        /// A shipped spec: map, set, register or counter.
        #[arg(long)]
        builtin: Option<String>,
        /// Binds an object of the trace to a type of the spec (needed when it declares several).
        #[arg(long = "bind", value_name = "OBJECT=TYPE")]
        bind: Vec<String>,
        /// Prints the access points each action touches and the conflict relation, then exits.
        #[arg(long)]
        explain: bool,
        /// Checks every pair directly against the formulas (Section 5.1), without access points.
        #[arg(long)]
        direct: bool,
        /// Treat every warning about the trace as an error (exit status 2).
        #[arg(long)]
        strict: bool,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: FormatArg,
    },
    /// Linearizability of a recorded history (client invocations and completions, as JSON
    /// Lines, Jepsen/Knossos EDN or Jepsen's log) against a model. Exit status 3: unknown
    /// (timeout).
    Lin {
        /// The history (`-` for standard input).
        history: PathBuf,
        /// register, kv, set, queue, counter or mutex.
        #[arg(long)]
        model: String,
        /// The initial value of the object (e.g. `--init 0`); integers, nil, true/false, or a
        /// string.
        #[arg(long)]
        init: Option<String>,
        /// Give up after this many seconds and answer "unknown" (exit status 3).
        #[arg(long)]
        timeout: Option<f64>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: FormatArg,
    },
    /// Linearizability of composed concurrent-map operations (VINE, ISSTA'14): classifies each
    /// operation of FILE as SCM/VCM/FCM or data-dependent and verifies the data-independent
    /// ones for all keys and values.
    Composed {
        /// The operations, in a small Java-like language (`-` for standard input).
        file: PathBuf,
        /// Also check data-dependent operations on a small domain (can find bugs, proves
        /// nothing).
        #[arg(long)]
        bounded: bool,
        /// Only this operation.
        #[arg(long)]
        operation: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: FormatArg,
    },
    /// High-level data races and stale values (MoTH, PADTAD'11) from the views of atomic
    /// regions: of a trace, or of a program in the views language (`.mv`).
    Views {
        /// A trace (text, binary; `-` for standard input) or a program (`.mv`).
        input: PathBuf,
        /// Which regions of a trace are atomic (default: blocks if the trace has any, else
        /// lock regions).
        #[arg(long, value_enum)]
        regions: Option<views::RegionsArg>,
        /// Keep warnings whose regions can never run in parallel (traces).
        #[arg(long)]
        no_mhp: bool,
        /// Treat every warning about the input as an error (exit status 2).
        #[arg(long)]
        strict: bool,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: FormatArg,
    },
    /// Predicate detection: enumerates the consistent global states of a trace's poset (or a
    /// poset file) with BFS, Lex, QuickLex or ParaMount and reports those satisfying a predicate.
    Cuts(cuts::CutsArgs),
    /// Generates a random poset like the ParaMount/QuickLex benchmarks (`d-N`, `w-N`) in the
    /// poset file format.
    GenPoset(cuts::GenPosetArgs),
    /// Predicate detection under locking constraints (the loset model): reachable, strongly
    /// feasible and valid, over every lock schedule of the run at once.
    Reach(reach::ReachArgs),
    /// Converts a trace between the text and binary formats, losslessly.
    Convert {
        /// Input trace (`-` for standard input).
        input: PathBuf,
        /// Output file (`-` for standard output); `.hst` means binary unless --to says otherwise.
        output: PathBuf,
        /// Output format (default: from the output's extension).
        #[arg(long, value_enum)]
        to: Option<TraceFormatArg>,
    },
    /// Generates a random valid trace (for tests and benchmarks).
    Gen {
        /// Number of events.
        #[arg(long, default_value_t = 1000)]
        events: u64,
        /// Number of threads (T0 forks and joins the others).
        #[arg(long, default_value_t = 4)]
        threads: u32,
        /// Seed of the pseudo-random generator: the same seed gives the same trace.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Number of shared variables.
        #[arg(long, default_value_t = 16)]
        vars: u32,
        /// Number of locks (variable x_i is guarded by lock L_(i mod locks)).
        #[arg(long, default_value_t = 4)]
        locks: u32,
        /// Maximum lock nesting depth.
        #[arg(long, default_value_t = 2)]
        depth: u32,
        /// Fraction of accesses made without the guard lock (these may race).
        #[arg(long, default_value_t = 0.05)]
        unprotected: f64,
        /// Probability per step of opening an atomic block (begin/end).
        #[arg(long, default_value_t = 0.0)]
        blocks: f64,
        /// Turn every access into an action on a dictionary `m_i` over this many keys
        /// (put/get/size with consistent results), for `commute --builtin map`.
        #[arg(long, default_value_t = 0)]
        map_keys: u32,
        /// Output file (text, or binary if it ends in `.hst`); standard output if omitted.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Generates a client history against a linearizable object (JSON Lines), optionally with
    /// injected anomalies, for `hindsight lin` tests and benchmarks.
    GenHistory(GenHistoryArgs),
    /// Counts the events, threads, variables and locks of a trace and checks it.
    Stats {
        #[command(flatten)]
        input: InputArgs,
        /// Output format (`text` or `json`).
        #[arg(long, value_enum, default_value = "text")]
        format: FormatArg,
    },
}

#[derive(clap::Args)]
struct GenHistoryArgs {
    /// register, kv, set, queue, counter or mutex.
    #[arg(long, default_value = "register")]
    model: String,
    #[arg(long, default_value_t = 5)]
    clients: u32,
    /// Operations invoked.
    #[arg(long, default_value_t = 200)]
    ops: u32,
    /// Keys (kv only).
    #[arg(long, default_value_t = 8)]
    keys: u32,
    /// Size of the value domain.
    #[arg(long, default_value_t = 5)]
    values: u32,
    /// Probability that a read returns an older value (an injected anomaly).
    #[arg(long, default_value_t = 0.0)]
    stale_reads: f64,
    /// Probability that a completed write never takes effect (an injected anomaly).
    #[arg(long, default_value_t = 0.0)]
    lost_writes: f64,
    /// Probability that an operation's outcome is recorded as unknown (`info`).
    #[arg(long, default_value_t = 0.0)]
    info: f64,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Output file; standard output if omitted.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// An error in an input file, already worded compiler-style (`FILE:LINE: error: REASON`):
/// printed as it is, without the `hindsight: error:` prefix of other failures.
#[derive(Debug)]
pub struct Located(pub String);

impl std::fmt::Display for Located {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Located {}

/// A trace error with the file it is in.
fn trace_error(path: &Path, error: TraceError) -> Located {
    Located(format!("{}: error: {}", place(path, error.pos), error.kind))
}

fn display_path(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    }
}

fn place(path: &Path, pos: Position) -> String {
    let p = display_path(path);
    match pos {
        Position::Line(n) => format!("{p}:{n}"),
        Position::Byte(n) => format!("{p}: byte {n}"),
        Position::Event(n) => format!("{p}: event {n}"),
        Position::File => p,
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    ONE_THREAD.store(cli.one_thread, std::sync::atomic::Ordering::Relaxed);
    if cli.one_thread {
        // Analyses build their findings with rayon; one thread means its pool too: this one,
        // as its only worker. This can fail only if the pool exists, and nothing has used it.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .use_current_thread()
            .build_global();
    }
    match dispatch(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            // A closed pipe (`hindsight ... | head`) is not an error worth a message.
            if let Some(io) = e.downcast_ref::<io::Error>() {
                if io.kind() == io::ErrorKind::BrokenPipe {
                    return ExitCode::from(0);
                }
            }
            if let Some(located) = e.downcast_ref::<Located>() {
                eprintln!("{located}");
            } else {
                eprintln!("hindsight: error: {e:#}");
            }
            ExitCode::from(2)
        }
    }
}

fn dispatch(command: Command) -> anyhow::Result<u8> {
    match command {
        Command::Races { input, format } => {
            analyse(&input, format, vec![Box::new(Races::new())], Vec::new())
        }
        Command::Atomicity {
            input,
            all,
            schedule,
            ignore_non_nested,
            format,
        } => atomicity::run(
            &input,
            format,
            hindsight_stream::atomicity::Options {
                all,
                schedule,
                ignore_non_nested,
            },
        ),
        Command::Commute {
            trace,
            spec,
            builtin,
            bind,
            explain,
            direct,
            strict,
            format,
        } => {
            let loaded = commute::load(spec.as_deref(), builtin.as_deref(), direct)?;
            if explain {
                for w in &loaded.warnings {
                    eprintln!("{w}");
                }
                print!("{}", commute::explain(&loaded.specs));
                return Ok(0);
            }
            let binding = commute::binding(&loaded.specs, &bind)?;
            for w in &loaded.warnings {
                eprintln!("{w}");
            }
            let Some(trace) = trace else {
                bail!("give a trace to analyse (or --explain)");
            };
            let input = InputArgs { trace, strict };
            let analysis = commute::analysis(loaded.specs, binding);
            analyse(&input, format, vec![Box::new(analysis)], loaded.warnings)
        }
        Command::Lin {
            history,
            model,
            init,
            timeout,
            format,
        } => {
            let (report, code) = lin::run(&history, &model, init.as_deref(), timeout)?;
            print_report(&report, format)?;
            Ok(code)
        }
        Command::Composed {
            file,
            bounded,
            operation,
            format,
        } => composed::run(&file, bounded, operation.as_deref(), format),
        Command::Cuts(args) => cuts::run(&args),
        Command::GenPoset(args) => cuts::gen_poset(&args),
        Command::Reach(args) => reach::run(args),
        Command::Views {
            input,
            regions,
            no_mhp,
            strict,
            format,
        } => views::run(&input, regions, no_mhp, strict, format),
        Command::Convert { input, output, to } => convert(&input, &output, to).map(|()| 0),
        Command::Gen {
            events,
            threads,
            seed,
            vars,
            locks,
            depth,
            unprotected,
            blocks,
            map_keys,
            output,
        } => {
            let config = GenConfig {
                events,
                threads,
                vars,
                locks,
                max_depth: depth,
                unprotected,
                blocks,
                seed,
                map_keys,
            };
            gen(&config, output.as_deref()).map(|()| 0)
        }
        Command::Stats { input, format } => stats(&input, format),
        Command::GenHistory(a) => {
            use hindsight_history::simulate::{simulate, to_jsonl, SimConfig};
            use hindsight_history::MODELS;
            if !MODELS.contains(&a.model.as_str()) {
                bail!("no model `{}` (there are: {})", a.model, MODELS.join(", "));
            }
            let output = a.output;
            let history = simulate(&SimConfig {
                model: a.model,
                clients: a.clients,
                ops: a.ops,
                keys: a.keys,
                values: a.values,
                stale_reads: a.stale_reads,
                lost_writes: a.lost_writes,
                info: a.info,
                seed: a.seed,
            });
            let text = to_jsonl(&history);
            match output {
                Some(p) if p.as_os_str() != "-" => std::fs::write(&p, text)
                    .with_context(|| format!("cannot write {}", p.display()))?,
                _ => io::stdout().write_all(text.as_bytes())?,
            }
            Ok(0)
        }
    }
}

fn read_trace(
    input: &InputArgs,
    analyses: Vec<Box<dyn Analysis>>,
) -> anyhow::Result<(RunOutcome, Format)> {
    let wrap = |error| trace_error(&input.trace, error);
    let mut reader = hindsight_trace::open(&input.trace).map_err(wrap)?;
    let format = reader.format();
    // With no analysis (`stats`) the second thread would have only happens-before to do,
    // while the first, filling batches, executes about as many instructions as the whole
    // one-thread pass (277 M against 282 M per 1 M events): on 15 M events `stats` took a
    // median 0.77 s pipelined against 0.64 s on one thread.
    let pipeline = !analyses.is_empty()
        && !ONE_THREAD.load(std::sync::atomic::Ordering::Relaxed)
        && hindsight_stream::pipeline::worthwhile();
    let outcome = run_any(
        &mut reader,
        analyses,
        RunOptions {
            strict: input.strict,
            pipeline,
        },
    )
    .map_err(wrap)?;
    Ok((outcome, format))
}

/// Prints the kept warnings to stderr, and how many of each kind were not kept.
fn warnings(path: &Path, outcome: &RunOutcome) -> Vec<String> {
    let mut lines: Vec<String> = outcome
        .warnings
        .iter()
        .map(|w| format!("{}: warning: {}", place(path, w.pos), w.kind))
        .collect();
    for &(code, n) in &outcome.warning_counts {
        let kept = outcome
            .warnings
            .iter()
            .filter(|w| w.kind.code() == code)
            .count() as u64;
        if n > kept {
            lines.push(format!(
                "{}: warning: {} more `{code}` warning(s) not shown",
                display_path(path),
                n - kept
            ));
        }
    }
    for l in &lines {
        eprintln!("{l}");
    }
    lines
}

fn trace_info(path: &Path, format: Format, outcome: &RunOutcome) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert("path".into(), Value::from(display_path(path)));
    m.insert(
        "format".into(),
        Value::from(match format {
            Format::Text => "text",
            Format::Binary => "binary",
        }),
    );
    m.extend(outcome.stats.to_json());
    m
}

/// Runs one analysis over a trace and prints its report; `extra_warnings` (about the analysis'
/// own inputs, already printed) join the report's.
fn analyse(
    input: &InputArgs,
    format: FormatArg,
    analyses: Vec<Box<dyn Analysis>>,
    extra_warnings: Vec<String>,
) -> anyhow::Result<u8> {
    let (mut outcome, trace_format) = read_trace(input, analyses)?;
    let mut warning_lines = extra_warnings;
    warning_lines.extend(warnings(&input.trace, &outcome));
    let info = trace_info(&input.trace, trace_format, &outcome);
    let (name, output) = outcome.outputs.remove(0);
    let mut report = Report::new(name);
    report.trace = info;
    report.findings = output.findings;
    report.summary = output.summary;
    report.rules = output.rules;
    report.warnings = warning_lines;
    print_report(&report, format)?;
    let code = report.exit_code() as u8;
    // A report can hold a hundred thousand findings of a dozen allocations each; freeing them
    // one by one took a twentieth of a run, and the process ends right after this.
    std::mem::forget(report);
    Ok(code)
}

fn print_report(report: &Report, format: FormatArg) -> anyhow::Result<()> {
    let format = match format {
        FormatArg::Text => OutputFormat::Text,
        FormatArg::Json => OutputFormat::Json,
        FormatArg::Sarif => OutputFormat::Sarif,
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    render(report, format, &mut out)?;
    out.flush()?;
    Ok(())
}

fn stats(input: &InputArgs, format: FormatArg) -> anyhow::Result<u8> {
    let (outcome, trace_format) = read_trace(input, Vec::new())?;
    let warning_lines = warnings(&input.trace, &outcome);
    let mut info = trace_info(&input.trace, trace_format, &outcome);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match format {
        FormatArg::Text => {
            for (k, v) in &info {
                match v {
                    Value::String(s) => writeln!(out, "{k}: {s}")?,
                    v => writeln!(out, "{k}: {v}")?,
                }
            }
            writeln!(
                out,
                "warnings: {}",
                outcome.warning_counts.iter().map(|c| c.1).sum::<u64>()
            )?;
        }
        FormatArg::Json => {
            info.insert("warnings".into(), Value::from(warning_lines));
            serde_json::to_writer_pretty(&mut out, &info)?;
            writeln!(out)?;
        }
        FormatArg::Sarif => bail!("`stats` prints text or json"),
    }
    out.flush()?;
    Ok(0)
}

/// A sink for events in either format.
enum TraceSink {
    Text(TextWriter<Box<dyn Write>>),
    Binary(BinaryWriter<Box<dyn Write>>),
}

impl TraceSink {
    fn create(path: Option<&Path>, format: Format) -> anyhow::Result<TraceSink> {
        let out: Box<dyn Write> = match path {
            Some(p) if p.as_os_str() != "-" => Box::new(BufWriter::with_capacity(
                1 << 20,
                File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
            )),
            _ => Box::new(BufWriter::with_capacity(1 << 20, io::stdout())),
        };
        Ok(match format {
            Format::Text => TraceSink::Text(TextWriter::new(out)),
            Format::Binary => TraceSink::Binary(BinaryWriter::new(out)?),
        })
    }

    fn write(&mut self, e: &hindsight_trace::Event, names: &Names) -> io::Result<()> {
        match self {
            TraceSink::Text(w) => w.write_event(e, names),
            TraceSink::Binary(w) => w.write_event(e, names),
        }
    }

    fn finish(self) -> io::Result<()> {
        match self {
            TraceSink::Text(w) => w.finish().map(drop),
            TraceSink::Binary(w) => w.finish().map(drop),
        }
    }
}

fn convert(input: &Path, output: &Path, to: Option<TraceFormatArg>) -> anyhow::Result<()> {
    let format = match to {
        Some(TraceFormatArg::Text) => Format::Text,
        Some(TraceFormatArg::Binary) => Format::Binary,
        None => Format::from_extension(output),
    };
    let wrap = |error| trace_error(input, error);
    let mut reader = hindsight_trace::open(input).map_err(wrap)?;
    let mut sink = TraceSink::create(Some(output), format)?;
    while reader.advance().map_err(wrap)? {
        sink.write(reader.current(), reader.names())
            .with_context(|| format!("cannot write {}", display_path(output)))?;
    }
    sink.finish()?;
    Ok(())
}

fn gen(config: &GenConfig, output: Option<&Path>) -> anyhow::Result<()> {
    let format = output.map_or(Format::Text, Format::from_extension);
    let mut sink = TraceSink::create(output, format)?;
    let mut names = Names::default();
    generate(config, &mut names, |e, names| sink.write(e, names))?;
    sink.finish()?;
    Ok(())
}
