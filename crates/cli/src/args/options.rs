//! The option types of the commands: output and trace formats, the trace-analysis options
//! (model, witnesses, findings, the input trace, `check`'s analyses) and the checks of numeric
//! option values. Nothing here runs anything; [`super`] declares the commands that use them.

use crate::budget::BudgetArgs;
use clap::ValueEnum;
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum)]
pub enum FormatArg {
    Text,
    Json,
    /// One JSON object per line: a finding each (written as found by `--every-event`), then
    /// the rest of the report.
    Jsonl,
    Sarif,
    /// One self-contained HTML page (open it in a browser).
    Html,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum TraceFormatArg {
    /// RAPID's STD format and our superset of it.
    #[value(alias = "text")]
    Std,
    /// hindsight's binary format.
    #[value(alias = "binary")]
    Hst,
    /// RAPID's STD format, exactly as RAPID reads it; the location map goes to OUTPUT.locations.
    Rapid,
}

/// `convert --from`.
#[derive(Clone, Copy, ValueEnum)]
pub enum InputFormatArg {
    /// RoadRunner's printer log, as RAPID's `rr` parser reads it.
    #[value(alias = "roadrunner")]
    Rr,
    /// RAPID's binary format.
    Rapidbin,
    /// RAPID's STD format and our superset of it.
    #[value(alias = "text")]
    Std,
    /// hindsight's binary format.
    #[value(alias = "binary")]
    Hst,
}

/// `races --model`.
#[derive(Clone, Copy, ValueEnum, Default)]
pub enum ModelArg {
    /// Happens-before: the races of the observed order of critical sections.
    #[default]
    Hb,
    /// Schedulable happens-before (OOPSLA'18): happens-before plus reads-from; every race is
    /// predictable.
    Shb,
    /// Weak causal precedence (PLDI'17): orders critical sections only when they conflict;
    /// a race means some race or a deadlock is predictable.
    Wcp,
    /// Sync-preserving races (POPL'21): exactly the races of the correct reorderings that keep
    /// each lock's critical sections in order.
    Syncp,
    /// Optimistic sync-reversal races (ICSE'24): the races of each pair's optimistic
    /// reordering, which may reverse critical sections; every sync-preserving race is one.
    Osr,
}

/// Which race model `races` (and `check`'s races) uses.
#[derive(clap::Args, Clone, Copy, Default)]
pub struct ModelArgs {
    /// The race model.
    #[arg(long, value_enum, default_value = "hb")]
    pub model: ModelArg,
    /// Give each predicted race that happens-before does not report a witness: a correct
    /// reordering of a prefix of the trace after which both accesses are enabled, checked by
    /// an independent replayer before it is shown. Text shows it `short` (the default: where
    /// threads hand over, the rest of each thread's run folded into a count) or, with
    /// `--witness=full`, every event; JSON and SARIF have every event.
    // `=` required so that `--witness TRACE` still reads TRACE as the trace.
    #[arg(
        long,
        value_enum,
        value_name = "FORM",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "short"
    )]
    pub witness: Option<WitnessArg>,
    /// Report only the races the model adds to MODEL (happens-before, `hb`: the races whose
    /// accesses it orders); without it, those are marked `predicted`.
    #[arg(long, value_enum, value_name = "MODEL")]
    pub beyond: Option<BeyondArg>,
}

/// `races --witness`: how text shows a witness.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum WitnessArg {
    /// The first event of each thread's run and its last two, and every fork, join, send and
    /// receive; the events between as one line with their count.
    Short,
    /// Every event.
    Full,
}

/// `races --beyond`: the model whose races are left out.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum BeyondArg {
    /// Happens-before.
    Hb,
}

/// How the trace analyses that count occurrences report them.
#[derive(clap::Args, Clone, Copy, Default)]
pub struct FindingsArgs {
    /// One finding per racy event (per violation for atomicity, per warning for views), as
    /// found, instead of one per distinct pair (views: set) of source locations.
    #[arg(long)]
    pub every_event: bool,
    /// Text output shows the first N groups (most occurrences first), then a line for the rest.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub limit: usize,
}

#[derive(clap::Args)]
pub struct InputArgs {
    /// The trace: RAPID's STD text format, our text superset, binary `.hst`, a RoadRunner log
    /// or RapidBin (sniffed); `-` reads standard input.
    pub trace: PathBuf,
    /// Treat every warning about the trace as an error (exit status 2).
    #[arg(long)]
    pub strict: bool,
    /// How lock records are read: `repair` puts late releases back and tolerates what cannot
    /// be put back (each tolerated record a warning); `as-logged` reads them in logged order,
    /// as RAPID does, for side-by-side comparisons.
    #[arg(long, value_enum, default_value_t = LockRecordsArg::Repair)]
    pub lock_records: LockRecordsArg,
}

/// `--lock-records`.
#[derive(Clone, Copy, ValueEnum, Default, PartialEq, Eq)]
pub enum LockRecordsArg {
    #[default]
    Repair,
    AsLogged,
}

impl From<LockRecordsArg> for hindsight_trace::LockRecords {
    fn from(a: LockRecordsArg) -> Self {
        match a {
            LockRecordsArg::Repair => hindsight_trace::LockRecords::Repair,
            LockRecordsArg::AsLogged => hindsight_trace::LockRecords::AsLogged,
        }
    }
}

/// `--regions`.
#[derive(Clone, Copy, ValueEnum)]
pub enum RegionsArg {
    /// `begin`/`end` blocks.
    Blocks,
    /// Outermost lock regions (from the first acquire to the release of the last lock held).
    Locks,
    /// Either: a region lasts while the thread is in a block or holds a lock.
    Both,
}

/// The analyses `check` chains.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum AnalysisArg {
    Races,
    Commute,
    Atomicity,
    Views,
}

#[derive(clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The analyses to run, in the order their reports are printed (default: races,
    /// atomicity, views, and commute when --builtin or --spec gives it a spec).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub analyses: Vec<AnalysisArg>,
    /// races: the race model, and witnesses.
    #[command(flatten)]
    pub model: ModelArgs,
    /// commute: a spec file declaring object types, their methods and when they commute.
    #[arg(long)]
    pub spec: Option<PathBuf>,
    /// commute: a shipped spec (map, set, register or counter).
    #[arg(long)]
    pub builtin: Option<String>,
    /// commute: binds an object of the trace to a type of the spec.
    #[arg(long = "bind", value_name = "OBJECT=TYPE")]
    pub bind: Vec<String>,
    /// commute: checks every pair directly against the formulas (Section 5.1).
    #[arg(long)]
    pub direct: bool,
    /// atomicity: every violating triple, not one per witness class.
    #[arg(long)]
    pub all: bool,
    /// atomicity: build, replay-check and show an inferred run for each finding.
    #[arg(long)]
    pub schedule: bool,
    /// atomicity: accept releases that break nested locking, with a warning.
    #[arg(long)]
    pub ignore_non_nested: bool,
    /// views: which regions are atomic (default: lock regions, or blocks in a trace with no lock).
    #[arg(long, value_enum)]
    pub regions: Option<RegionsArg>,
    /// views: keep warnings whose regions can never run in parallel.
    #[arg(long)]
    pub no_mhp: bool,
    #[command(flatten)]
    pub findings: FindingsArgs,
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// Output format: text (each report in turn), json (`{"analysis":"check","reports":[...]}`)
    /// or sarif (one run per analysis).
    #[arg(long, value_enum, default_value = "text")]
    pub format: FormatArg,
}

impl CheckArgs {
    /// `--analyses`, or every trace analysis that applies to any trace: commutativity needs a
    /// spec, so it runs only when one is given.
    pub fn chosen_analyses(&self) -> Vec<AnalysisArg> {
        if !self.analyses.is_empty() {
            return self.analyses.clone();
        }
        let mut all = vec![
            AnalysisArg::Races,
            AnalysisArg::Atomicity,
            AnalysisArg::Views,
        ];
        if self.spec.is_some() || self.builtin.is_some() {
            all.push(AnalysisArg::Commute);
        }
        all
    }
}

/// The most worker threads an option may ask for: far more than any machine's cores, and few
/// enough that starting them cannot exhaust the process's threads or memory.
pub const MAX_WORKERS: usize = 1024;

/// A probability: a finite number from 0 to 1.
pub fn probability(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        Ok(p) => Err(format!("a probability is from 0 to 1, not {p}")),
        Err(_) => Err(format!("a probability is a number from 0 to 1, not `{s}`")),
    }
}

/// A number of worker threads: 1 to [`MAX_WORKERS`].
pub fn workers(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_WORKERS).contains(&n) => Ok(n),
        _ => Err(format!(
            "a number of threads is from 1 to {MAX_WORKERS}, not `{s}`"
        )),
    }
}
