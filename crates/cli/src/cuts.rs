//! `hindsight cuts`: its arguments, the progress line on standard error, and one library call
//! (`hindsight_states::cuts::detect`), whose report is printed as it comes back.

use crate::args::FormatArg;
use crate::output::{
    is_poset_file, open_lines, open_trace, pipelined, print_report, print_warnings, read_text,
};
use clap::ValueEnum;
use hindsight_states::cuts::{detect, Detection, Enumerator, Input, Options, PredicateText};
use hindsight_states::Progress;
use hindsight_stream::RunOptions;
use hindsight_syntax::input_name;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

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
    input: PathBuf,
    /// The predicate to detect, e.g. `race`, `atleast(3, method == stop)`,
    /// `at(T1, op == w && var == x) && at(T2, op == r)`; `@FILE` reads it from a file. See the
    /// README section "What `cuts` reports" for the language.
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
    /// Report every satisfying state (up to --limit) instead of the first.
    #[arg(long)]
    all: bool,
    /// The most states --all reports.
    #[arg(long, default_value_t = 100)]
    limit: u64,
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
    every_event: bool,
    /// Show the number of states enumerated so far on standard error (default: when standard
    /// error is a terminal).
    #[arg(long)]
    progress: bool,
    /// Treat every warning about the trace as an error (exit status 2).
    #[arg(long)]
    strict: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: FormatArg,
}

/// The predicate of `--predicate`: its text, or that of the file `@FILE` names.
pub fn read_predicate(arg: &str) -> anyhow::Result<PredicateText> {
    Ok(match arg.strip_prefix('@') {
        Some(file) => PredicateText {
            text: read_text(Path::new(file))?,
            name: file.to_owned(),
        },
        None => PredicateText {
            text: arg.to_owned(),
            name: "<predicate>".to_owned(),
        },
    })
}

/// The trace's warnings, and the number of states enumerated so far on one line redrawn at
/// most twice a second.
struct ProgressLine {
    enabled: bool,
    states: AtomicU64,
    started: Instant,
    last_ms: AtomicU64,
}

impl Progress for ProgressLine {
    fn input_read(&self, warnings: &[String]) {
        print_warnings(warnings);
    }

    fn states(&self, n: u64) {
        if !self.enabled {
            return;
        }
        let total = self.states.fetch_add(n, Ordering::Relaxed) + n;
        let ms = self.started.elapsed().as_millis() as u64;
        let last = self.last_ms.load(Ordering::Relaxed);
        if ms >= last + 500
            && self
                .last_ms
                .compare_exchange(last, ms, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            eprint!("\rcuts: {total} states so far ({:.1} s)", ms as f64 / 1e3);
        }
    }
}

impl ProgressLine {
    /// Ends the line, if one was drawn.
    fn done(&self) {
        if self.enabled && self.last_ms.load(Ordering::Relaxed) > 0 {
            eprintln!();
        }
    }
}

pub fn run(args: &CutsArgs) -> anyhow::Result<u8> {
    let options = Options {
        predicate: args.predicate.as_deref().map(read_predicate).transpose()?,
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
        limit: args.limit,
        every_event: args.every_event,
        online: args.online,
    };
    let poset = args.poset || is_poset_file(&args.input);
    // The options' errors before the input is opened (standard input would wait for it).
    options.check(poset)?;
    let progress = ProgressLine {
        enabled: args.progress || std::io::stderr().is_terminal(),
        states: AtomicU64::new(0),
        started: Instant::now(),
        last_ms: AtomicU64::new(0),
    };
    let name = input_name(&args.input);
    let report = if !poset {
        let mut reader = open_trace(&args.input)?;
        let run = RunOptions {
            strict: args.strict,
            pipeline: pipelined(1),
        };
        detect(Input::Trace(&mut reader, run), &name, &options, &progress)?
    } else if args.online {
        let mut lines = open_lines(&args.input)?;
        detect(Input::PosetLines(&mut *lines), &name, &options, &progress)?
    } else {
        let text = read_text(&args.input)?;
        detect(Input::PosetText(&text), &name, &options, &progress)?
    };
    progress.done();
    print_report(&report, args.format)?;
    Ok(report.exit_code() as u8)
}
