//! `hindsight reach`: its arguments, its budget and one library call (`hindsight_states::reach::analyse`),
//! whose report is printed as it comes back.

use crate::args::{FormatArg, InputArgs};
use crate::budget::BudgetArgs;
use crate::cuts::PrintWarnings;
use crate::session::Session;
use hindsight_states::reach::{analyse, Options};
use hindsight_stream::RunOptions;
use hindsight_syntax::input_name;

#[derive(clap::Args)]
pub struct ReachArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// A predicate over the frontier events, in the language of `hindsight cuts` (a thread's
    /// frontier event is its latest event the predicate looks at): report the first strongly
    /// feasible state where it holds, proven reachable if possible. `@FILE` reads it from FILE.
    #[arg(long)]
    pub predicate: Option<String>,
    /// Count the strongly feasible states (and, with --exact, the reachable ones).
    #[arg(long)]
    pub count: bool,
    /// Decide by search every state the polynomial classes leave open.
    #[arg(long)]
    pub exact: bool,
    /// Whether the loset is valid (its final state reachable), with the cycle otherwise.
    #[arg(long)]
    pub check_valid: bool,
    /// Decide one global state, given per thread as the number of its events in the state:
    /// `T1=3,T2=2` (threads not named: 0).
    #[arg(long, value_name = "THREAD=N,...")]
    pub state: Option<String>,
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: FormatArg,
}

pub fn run(session: &Session, a: ReachArgs) -> anyhow::Result<u8> {
    let options = Options {
        predicate: a
            .predicate
            .as_deref()
            .map(|p| crate::cuts::read_predicate(session, p))
            .transpose()?,
        count: a.count,
        exact: a.exact,
        check_valid: a.check_valid,
        state: a.state,
    };
    // The options' error before the trace is opened (standard input would wait for it).
    options.check()?;
    let path = &a.input.trace;
    let running = a.budget.start("reach");
    let report = (|| -> anyhow::Result<_> {
        let mut reader = session.open_trace(path, Some(&running.budget))?;
        let run = RunOptions {
            strict: a.input.strict,
            pipeline: session.pipelined(1),
            lock_records: Default::default(),
        };
        let name = input_name(path);
        Ok(analyse(
            &mut reader,
            &name,
            run,
            &options,
            &PrintWarnings,
            &running.budget,
        )?)
    })();
    running.done();
    let mut report = report?;
    if session.wants_html(a.format) {
        // The loset numbers the events as logged, late releases included.
        crate::traces::draw_timelines(session, path, std::slice::from_mut(&mut report), true)?;
    }
    session.print_report(&report, a.format)?;
    Ok(report.exit_code() as u8)
}
