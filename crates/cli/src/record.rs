//! `hindsight record [--out FILE] [--analyse] -- java ARGS...`: runs a Java program under the
//! recording agent (hindsight-java does the work), then says what to run next.

use crate::session::Session;
use hindsight_java::{record, RecordLimits, RecordOptions};
use std::ffi::OsString;
use std::path::PathBuf;

/// What `--analyse` runs: the analyses that need nothing but the trace.
const ANALYSES: &str = "races,atomicity";

#[derive(clap::Args)]
pub struct RecordArgs {
    /// The trace to write (binary `.hst`); by default `hindsight-<main class>.hst`.
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// An option for the agent (repeatable): `include=PATTERN`, `exclude=PATTERN` (class
    /// names, `*` for any characters, `;` between several), `synchronized-atomic` (every
    /// synchronized method is also an atomic block). See docs/java.md.
    #[arg(long = "agent", value_name = "OPTION")]
    pub agent: Vec<String>,
    /// Run `hindsight check --analyses races,atomicity` on the trace once the program has ended.
    #[arg(long)]
    pub analyse: bool,
    /// Stop the program (as `kill` does, so that the trace is ended) after this many seconds;
    /// the trace then holds the run up to there, and the exit status is 3.
    #[arg(long, value_name = "SECONDS", value_parser = hindsight_budget::parse_timeout)]
    pub timeout: Option<std::time::Duration>,
    /// Stop the program once its trace holds this much (`500M`, `2G`); by default half the
    /// space free on the trace's file system when the recording starts. Exit status 3.
    #[arg(long, value_name = "SIZE", value_parser = hindsight_budget::parse_size)]
    pub max_trace: Option<u64>,
    /// The JVM command: `java` and its arguments.
    #[arg(last = true, required = true, value_name = "JAVA")]
    pub command: Vec<OsString>,
}

/// Exit status: the JVM's (or, with `--analyse`, `check`'s when the JVM exited 0); 3 when a
/// limit stopped the program (`check` still runs on what was recorded); 2 when nothing could
/// be recorded.
pub fn run(session: &Session, args: RecordArgs) -> anyhow::Result<u8> {
    let done = record(&RecordOptions {
        out: args.out,
        agent_options: args.agent,
        command: args.command,
        limits: RecordLimits {
            timeout: args.timeout,
            max_trace_bytes: args.max_trace,
        },
    })?;
    if let Some(w) = &done.warning {
        eprintln!("hindsight: warning: {w}");
    }
    if !done.written {
        eprintln!(
            "hindsight: error: the JVM exited ({}) without writing {}",
            done.exit_code,
            done.out.display()
        );
        return Ok(2);
    }
    let code = match done.stopped {
        Some(why) => {
            eprintln!(
                "hindsight: the recording was stopped: {why}; {} holds the run up to there",
                done.out.display()
            );
            3
        }
        None => u8::try_from(done.exit_code).unwrap_or(1),
    };
    let out = done.out.display();
    if args.analyse {
        let cli = <crate::args::Cli as clap::Parser>::try_parse_from([
            OsString::from("hindsight"),
            "check".into(),
            "--analyses".into(),
            ANALYSES.into(),
            done.out.clone().into_os_string(),
        ])?;
        let checked = crate::dispatch(cli.command, session)?;
        return Ok(if code == 0 { checked } else { code });
    }
    eprintln!(
        "hindsight: next: hindsight check --analyses {ANALYSES} {out}\n\
         hindsight:   or: hindsight races --model wcp {out}; hindsight commute --builtin map {out}; \
         hindsight views --regions both {out}; hindsight --html report.html races {out}"
    );
    Ok(code)
}
