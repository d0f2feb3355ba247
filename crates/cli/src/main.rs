//! The `hindsight` command: reads a trace (or a history, a poset, a program), runs an analysis,
//! prints what it finds.
//!
//! This crate owns the command line: argument parsing ([`args`]), reading inputs ([`input`]),
//! printing reports, errors and warnings ([`output`]), and exit statuses (0 clean, 1 findings, 2 error,
//! 3 unknown). Each command parses its options, calls one library entry point and renders the
//! reports it gets back; no analysis, search or finding construction lives here.

mod args;
mod budget;
mod convert;
mod cuts;
mod files;
mod generators;
mod input;
mod output;
mod reach;
mod record;
mod session;
mod traces;
mod views;

use args::Command;
use hindsight_syntax::{input_name, Diagnostic};
use output::print_warnings;
use session::Session;
use std::io;
use std::process::ExitCode;

fn main() -> ExitCode {
    let started = std::time::Instant::now();
    let cli = args::parse();
    remove_temporaries_on_signals();
    if cli.one_thread {
        // Analyses build their findings with rayon; one thread means its pool too: this one,
        // as its only worker. This can fail only if the pool exists, and nothing has used it.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .use_current_thread()
            .build_global();
    }
    let outcome = Session::start(&cli, started).and_then(|session| dispatch(cli.command, &session));
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            // A closed pipe (`hindsight ... | head`) is not an error worth a message.
            if let Some(io) = e.downcast_ref::<io::Error>() {
                if io.kind() == io::ErrorKind::BrokenPipe {
                    return ExitCode::from(0);
                }
            }
            match e.downcast_ref::<Diagnostic>() {
                Some(d) if d.input.is_some() => output::eprint_line(d),
                Some(d) => output::eprint_line(format_args!("hindsight: error: {}", d.message)),
                None => output::eprint_line(format_args!("hindsight: error: {e:#}")),
            }
            ExitCode::from(2)
        }
    }
}

/// Ends the process on SIGINT, SIGTERM or SIGHUP as the signal would, but first removes the
/// temporary files of outputs being written (a signal would leave them beside their targets).
/// signal-hook's handler only writes to a pipe; the removal runs on an ordinary thread that
/// reads it, so nothing but that write happens in the handler.
fn remove_temporaries_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    // Without the handler (no pipe to be had) a signal ends the run as it always did.
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            // Held until the process ends: no new temporary file is started meanwhile.
            let _held = hindsight_trace::remove_unfinished();
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            // Only if the signal could not be raised again: the status a shell gives it.
            std::process::exit(128 + signal);
        }
    });
}

fn dispatch(command: Command, session: &Session) -> anyhow::Result<u8> {
    match command {
        Command::Races {
            input,
            findings,
            model,
            budget,
            format,
        } => traces::races(session, &input, &findings, model, format, &budget),
        Command::Atomicity {
            input,
            all,
            schedule,
            ignore_non_nested,
            budget,
            findings,
            format,
        } => traces::atomicity(
            session,
            &input,
            &findings,
            format,
            hindsight_stream::atomicity::Options {
                all,
                schedule,
                ignore_non_nested,
                granularity: Default::default(),
            },
            &budget,
        ),
        Command::Commute {
            trace,
            spec,
            builtin,
            bind,
            explain,
            direct,
            strict,
            findings,
            budget,
            format,
        } => traces::commute(
            session,
            traces::CommuteArgs {
                trace: trace.as_deref(),
                spec: spec.as_deref(),
                builtin: builtin.as_deref(),
                bind: &bind,
                explain,
                direct,
                strict,
                findings,
                format,
                budget: &budget,
            },
        ),
        Command::Views {
            inputs,
            regions,
            library,
            models,
            no_mhp,
            strict,
            findings,
            budget,
            format,
        } => views::views(
            session,
            &inputs,
            strict,
            &views::ViewsOptions {
                regions,
                library,
                models,
                no_mhp,
                findings,
            },
            &budget,
            format,
        ),
        Command::Check(a) => traces::check(session, &a),
        Command::Stats {
            input,
            format,
            budget,
        } => convert::stats(session, &input, format, budget.start("stats")),
        Command::Completions { shell } => {
            let mut out = io::stdout().lock();
            clap_complete::generate(shell, &mut args::command(), "hindsight", &mut out);
            io::Write::flush(&mut out)?;
            Ok(0)
        }
        Command::Man => {
            clap_mangen::Man::new(args::command()).render(&mut io::stdout().lock())?;
            Ok(0)
        }
        Command::Convert {
            input,
            output,
            from,
            to,
            budget,
        } => convert::convert(session, &input, &output, from, to, budget.start("convert")),
        Command::Gen(a) => generators::gen(session, &a),
        Command::Lin {
            history,
            model,
            init,
            budget,
            strict,
            all_keys,
            format,
        } => {
            let running = budget.start("lin");
            // Standard input may never end: it is read on the budget.
            let text = if history.as_os_str() == "-" {
                let read = hindsight_history::read_within(std::io::stdin(), &running.budget)
                    .map_err(|e| anyhow::anyhow!("cannot read standard input: {e}"))?;
                match read {
                    Some(bytes) => input::decode_text("<stdin>", bytes)?,
                    None => {
                        let report = hindsight_history::unread_report(&running.budget);
                        running.done();
                        session.print_report(&report, format)?;
                        return Ok(report.exit_code() as u8);
                    }
                }
            } else {
                session.read_text(&history)?
            };
            let options = hindsight_history::CheckOptions {
                all_parts: all_keys,
                parallel: !session.one_thread,
                ..Default::default()
            };
            let report = hindsight_history::analyse_with(
                &text,
                &input_name(&history),
                &model,
                init.as_deref(),
                &running.budget,
                strict,
                &options,
            );
            running.done();
            let report = report?;
            print_warnings(&report.warnings);
            if report.summary.get("model_chosen").is_some() {
                if let Some(name) = report.summary.get("model").and_then(|m| m.as_str()) {
                    eprintln!(
                        "lin: --model auto chose the {name} model from the history's operations"
                    );
                }
            }
            session.print_report(&report, format)?;
            Ok(report.exit_code() as u8)
        }
        Command::Composed {
            paths,
            bounded,
            operation,
            states_per_operation,
            operation_timeout,
            operation_memory_limit,
            budget,
            format,
        } => {
            let java = session.read_java_sources(&paths)?;
            output::print_warnings(&java.skipped);
            let sources = java.sources;
            let shown = match paths.as_slice() {
                [one] => input_name(one),
                many => format!("{} inputs", many.len()),
            };
            let running = budget.start("composed");
            let checks = hindsight_source::composed::Checks {
                bounded,
                states_per_operation,
                // 0: no bound of its own.
                time_per_operation: Some(operation_timeout).filter(|t| !t.is_zero()),
                memory_per_operation: Some(operation_memory_limit).filter(|m| *m > 0),
            };
            let report = hindsight_source::composed::analyse_sources(
                &sources,
                &shown,
                &checks,
                operation.as_deref(),
                &running.budget,
            );
            running.done();
            let report = report?;
            output::print_warnings(&report.warnings);
            session.print_report(&report, format)?;
            Ok(report.exit_code() as u8)
        }
        Command::Cuts(args) => cuts::run(session, &args),
        Command::GenPoset(a) => generators::gen_poset(session, &a),
        Command::Reach(args) => reach::run(session, args),
        Command::GenHistory(a) => generators::gen_history(session, &a),
        Command::Record(a) => record::run(session, a),
    }
}
