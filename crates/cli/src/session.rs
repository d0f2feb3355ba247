//! One run of `hindsight`: what the options that every command shares set (one thread,
//! RoadRunner's excludes, `--html`'s page), when the run started, and the files it reads and
//! writes. Built once from the command line before the command runs, then handed to it; the
//! reading ([`crate::input`]) and printing ([`crate::output`]) that depend on these are its
//! methods, so no command reaches for global state.

use crate::args::{self, Cli, Command};
use crate::files::Files;
use crate::output::HtmlTarget;
use std::path::PathBuf;
use std::time::Instant;

pub struct Session {
    /// When the process started: the run's time on the HTML page.
    pub(crate) started: Instant,
    /// `--one-thread`: no pipelined pass, one rayon worker.
    pub(crate) one_thread: bool,
    /// `--rr-exclude`'s patterns, applied to every RoadRunner log read.
    pub(crate) rr_exclude: Vec<String>,
    /// `--html FILE`: where the page of the reports goes too.
    pub(crate) html: Option<HtmlTarget>,
    /// The run's outputs, and the files it has read, so that no input is written.
    pub(crate) files: Files,
}

impl Session {
    /// The session of `cli`, started at `started`; an error for options that contradict the
    /// command (`--html` on a command that draws no report) or an exclude file that cannot be
    /// read.
    pub fn start(cli: &Cli, started: Instant) -> anyhow::Result<Session> {
        let mut session = Session {
            started,
            one_thread: cli.one_thread,
            rr_exclude: Vec::new(),
            html: None,
            // Before the first file is read: every read is checked against these.
            files: Files::new(outputs(cli)),
        };
        if let Some(path) = &cli.rr_exclude {
            let text = session.read_text(path)?;
            session.rr_exclude = hindsight_trace::RoadRunnerOptions::parse_exclude(&text);
        }
        if let Some(path) = cli.html.clone() {
            let inputs = html_inputs(&cli.command).map_err(|e| anyhow::anyhow!(e))?;
            session.html = Some(HtmlTarget { path, inputs });
        }
        Ok(session)
    }
}

/// The files the run writes: `--html`'s page and the command's own outputs.
fn outputs(cli: &Cli) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = cli.html.iter().cloned().collect();
    match &cli.command {
        Command::Convert { output, to, .. } => {
            out.push(output.clone());
            if matches!(to, Some(args::TraceFormatArg::Rapid)) {
                out.push(hindsight_trace::rapid::locations_path(output));
            }
        }
        Command::Gen(a) => out.extend(a.output.clone()),
        Command::GenPoset(a) => out.extend(a.output.clone()),
        Command::GenHistory(a) => out.extend(a.output.clone()),
        _ => {}
    }
    out
}

/// The inputs of a command that `--html` must not overwrite; an error for a command that
/// prints no report, or prints it as it goes (JSON Lines).
fn html_inputs(command: &Command) -> Result<Vec<PathBuf>, String> {
    use args::FormatArg;
    let refuse = |what: &str| Err(format!("`--html` draws reports: {what}"));
    let streamed = "JSON Lines writes findings as they are found and keeps none for the page; \
                    use another --format";
    Ok(match command {
        Command::Races {
            format: FormatArg::Jsonl,
            ..
        }
        | Command::Atomicity {
            format: FormatArg::Jsonl,
            ..
        }
        | Command::Commute {
            format: FormatArg::Jsonl,
            ..
        } => return refuse(streamed),
        Command::Check(a) if matches!(a.format, FormatArg::Jsonl) => return refuse(streamed),
        Command::Races { input, .. } | Command::Atomicity { input, .. } => {
            vec![input.trace.clone()]
        }
        Command::Check(a) => vec![a.input.trace.clone()],
        Command::Commute { trace, spec, .. } => trace.iter().chain(spec).cloned().collect(),
        Command::Views { inputs, .. } => inputs.clone(),
        Command::Lin { history, .. } => vec![history.clone()],
        Command::Composed { paths, .. } => paths.clone(),
        Command::Cuts(a) => vec![a.input.clone()],
        Command::Reach(a) => vec![a.input.trace.clone()],
        Command::Stats { .. }
        | Command::Convert { .. }
        | Command::Gen(_)
        | Command::GenPoset(_)
        | Command::GenHistory(_)
        | Command::Record(_)
        | Command::Completions { .. }
        | Command::Man => return refuse("this command prints no report"),
    })
}
