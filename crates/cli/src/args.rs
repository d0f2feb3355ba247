//! The command line of `hindsight`: every command and the global options, with their help
//! text, and the parsing that shows each global option only under the commands it applies to.
//! The option types the commands share live in [`options`]. Nothing here runs anything.

mod options;

pub use options::*;

use crate::budget::BudgetArgs;
use crate::generators::{GenArgs, GenHistoryArgs, GenPosetArgs};
use crate::{cuts, reach, record};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "hindsight",
    version,
    about = "Predicts the concurrency bugs other schedules of one recorded run could hit",
    after_help = "Exit status: 0 no findings, 1 findings, 2 error (bad input or usage), 3 unknown (a budget ran out: --timeout or --memory-limit)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Read and analyse a trace in one thread (by default, with a second core, text is parsed
    /// on every core, one thread validates while another analyses, and findings are built on
    /// every core; the results are the same).
    #[arg(long, global = true)]
    pub one_thread: bool,
    /// RoadRunner logs: RAPID's exclude file, one pattern per line; an `Enter`/`Exit` line
    /// holding a pattern (a library method, say) is skipped.
    #[arg(long, global = true, value_name = "FILE")]
    pub rr_exclude: Option<PathBuf>,
    /// Also write the report as one self-contained HTML page (findings, swimlane timelines,
    /// histories) to FILE, beside the output `--format` asks for. Commands that print reports.
    #[arg(long, global = true, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Data races: the accesses that race with an earlier one, grouped by variable and pair of
    /// source locations (or every racy access, with a partner). Happens-before by default;
    /// `--model` predicts the races other correct orders of the same run expose.
    Races {
        #[command(flatten)]
        input: InputArgs,
        #[command(flatten)]
        findings: FindingsArgs,
        #[command(flatten)]
        model: ModelArgs,
        #[command(flatten)]
        budget: BudgetArgs,
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
        /// The budget of the pass and of --schedule's searches.
        #[command(flatten)]
        budget: BudgetArgs,
        #[command(flatten)]
        findings: FindingsArgs,
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
        #[command(flatten)]
        findings: FindingsArgs,
        #[command(flatten)]
        budget: BudgetArgs,
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
        /// auto (chosen from the history's operations), register, cas-register, etcd, kv,
        /// list-append, multi-register, set, fifo-queue, unordered-queue, queue, counter or
        /// mutex.
        #[arg(long, default_value = "auto")]
        model: String,
        /// The initial value of the object (e.g. `--init 0`): a 64-bit integer, nil,
        /// true/false, a string in double quotes, or any other word as a string; other numbers
        /// (`1e30`, `2.5`) and maps or lists (`{:x 0}`) are refused.
        #[arg(long)]
        init: Option<String>,
        #[command(flatten)]
        budget: BudgetArgs,
        /// Treat a history without operations as an error (exit status 2), not a warning.
        #[arg(long)]
        strict: bool,
        /// Check every key (every independent part) even once one key is not linearizable,
        /// which decides the history: by default the keys not yet checked then are listed as
        /// not checked (`parts_not_checked`, `keys_not_checked`). Every key is on the budget.
        #[arg(long)]
        all_keys: bool,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: FormatArg,
    },
    /// Linearizability of composed concurrent-map operations (VINE, ISSTA'14): finds the
    /// composed operations of Java files, classifies each as SCM/VCM/FCM or data-dependent
    /// and verifies the data-independent ones for all keys and values.
    Composed {
        /// Java files, directories (searched recursively for `.java` files), or `-` for
        /// standard input. A file may be a snippet: fields and methods without a class.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Also check data-dependent operations on a small domain (can find bugs, proves
        /// nothing).
        #[arg(long)]
        bounded: bool,
        /// Only this operation.
        #[arg(long)]
        operation: Option<String>,
        /// The states the bounded check may explore for one operation, all its parameter
        /// combinations and initial states together; past it the operation is not proved,
        /// and says where it stopped.
        #[arg(long, value_name = "N", default_value_t = hindsight_source::composed::bounded::STATES_PER_OPERATION)]
        states_per_operation: usize,
        /// The seconds one operation's check may take (0: no bound but `--timeout`); past it
        /// the operation is not proved, and says where it stopped.
        #[arg(long, value_name = "SECONDS", value_parser = crate::budget::timeout_seconds, default_value = "10")]
        operation_timeout: std::time::Duration,
        /// The memory one operation's check may account for (`512M`, `1G`; 0: no bound but
        /// `--memory-limit`); past it the operation is not proved, and the next one starts.
        #[arg(long, value_name = "SIZE", value_parser = hindsight_budget::parse_size, default_value = "1G")]
        operation_memory_limit: u64,
        #[command(flatten)]
        budget: BudgetArgs,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: FormatArg,
    },
    /// High-level data races and stale values (MoTH, PADTAD'11) from the views of atomic
    /// regions: of a trace, of a program in the views language (`.mv`), or of Java programs
    /// (`.java` files and directories, analysed together as one program).
    Views {
        /// A trace (text, binary; `-` for standard input), a program (`.mv`), or Java files
        /// and directories.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Which regions of a trace are atomic (default: lock regions, or blocks in a trace
        /// with no lock). On Java: `blocks` (the default) are synchronized and `@Atomic`
        /// methods and blocks; `locks` and `both` add `lock()`..`unlock()` spans.
        #[arg(long, value_enum)]
        regions: Option<RegionsArg>,
        /// Java: every public method of the analysed classes runs concurrently with every
        /// other, even if the program starts threads (library mode; automatic without a
        /// second thread).
        #[arg(long)]
        library: bool,
        /// Java: more JDK collection models (the format of the shipped table, whose lines
        /// they override).
        #[arg(long, value_name = "FILE")]
        models: Option<PathBuf>,
        /// Keep warnings whose regions can never run in parallel (traces).
        #[arg(long)]
        no_mhp: bool,
        /// Treat every warning about the input as an error (exit status 2).
        #[arg(long)]
        strict: bool,
        #[command(flatten)]
        findings: FindingsArgs,
        /// The budget of the views, the relation of views that may run in parallel and the
        /// sensors (traces).
        #[command(flatten)]
        budget: BudgetArgs,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: FormatArg,
    },
    /// Several trace analyses in one pass over the trace (RoadRunner's tool chain): each
    /// analysis reports exactly as its own command would. Exit status: 1 if any has findings.
    Check(CheckArgs),
    /// Predicate detection: enumerates the consistent global states of a trace's poset (or a
    /// poset file) with BFS, Lex, QuickLex or ParaMount and reports those satisfying a predicate.
    Cuts(cuts::CutsArgs),
    /// Generates a random poset like the ParaMount/QuickLex benchmarks (`d-N`, `w-N`) in the
    /// poset file format.
    GenPoset(GenPosetArgs),
    /// Predicate detection under locking constraints (the loset model): reachable, strongly
    /// feasible and valid, over every lock schedule of the run at once.
    Reach(reach::ReachArgs),
    /// Runs a Java program under the recording agent and writes its trace:
    /// `hindsight record [--out FILE] -- java -cp DIR Main` (docs/java.md).
    Record(record::RecordArgs),
    /// Converts a trace (STD text, `.hst`, a RoadRunner log or RapidBin) to the text or binary
    /// format, losslessly where the formats allow (what is left out is said on stderr), or
    /// writes it for RAPID.
    Convert {
        /// Input trace (`-` for standard input).
        input: PathBuf,
        /// Output file (`-` for standard output, except with `--to rapid`); `.hst` means binary
        /// unless --to says otherwise.
        output: PathBuf,
        /// Input format (default: sniffed from the content).
        #[arg(long, value_enum)]
        from: Option<InputFormatArg>,
        /// Output format (default: from the output's extension).
        #[arg(long, value_enum)]
        to: Option<TraceFormatArg>,
        #[command(flatten)]
        budget: BudgetArgs,
    },
    /// Generates a random valid trace (for tests and benchmarks).
    Gen(GenArgs),
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
        #[command(flatten)]
        budget: BudgetArgs,
    },
    /// Prints a completion script for a shell on standard output.
    Completions {
        /// bash, zsh, fish, powershell or elvish.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Prints the manual page (roff, section 1) on standard output.
    Man,
}

/// The options declared once for every command, and the commands each applies to: the others
/// neither show nor accept it.
const GLOBAL_OPTIONS: [(&str, &[&str]); 3] = [
    (
        "one_thread",
        &[
            "races",
            "atomicity",
            "commute",
            "views",
            "check",
            "cuts",
            "reach",
            "lin",
            "composed",
            "stats",
            "convert",
        ],
    ),
    (
        "rr_exclude",
        &[
            "races",
            "atomicity",
            "commute",
            "views",
            "check",
            "cuts",
            "reach",
            "stats",
            "convert",
        ],
    ),
    (
        "html",
        &[
            "races",
            "atomicity",
            "commute",
            "views",
            "check",
            "cuts",
            "reach",
            "lin",
            "composed",
        ],
    ),
];

/// The command line as clap builds it, each global option shown only under the commands it
/// applies to (clap's `global` puts it under every one).
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for (option, applies) in GLOBAL_OPTIONS {
        let arg = cmd
            .get_arguments()
            .find(|a| a.get_id() == option)
            .expect("a global option of Cli")
            .clone();
        // A subcommand that declares the option itself is not given the global one: there it
        // is declared hidden (and refused by `parse`).
        for name in names.iter().filter(|n| !applies.contains(&n.as_str())) {
            cmd = cmd.mut_subcommand(name, |s| s.arg(arg.clone().hide(true)));
        }
    }
    cmd
}

/// Parses the command line; an option given to a command it does not apply to is a usage
/// error (exit status 2), as an unknown option is.
pub fn parse() -> Cli {
    use clap::FromArgMatches;
    let mut cmd = command();
    let matches = cmd.clone().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let Some((name, sub)) = matches.subcommand() {
        for (option, applies) in GLOBAL_OPTIONS {
            let given = sub.value_source(option) == Some(clap::parser::ValueSource::CommandLine);
            if given && !applies.contains(&name) {
                let flag = format!("--{}", option.replace('_', "-"));
                cmd.error(
                    clap::error::ErrorKind::ArgumentConflict,
                    format!("`{flag}` does not apply to `hindsight {name}`"),
                )
                .exit();
            }
        }
    }
    cli
}
