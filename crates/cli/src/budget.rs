//! The options every search shares (`--timeout`, `--memory-limit`, `--progress`), the budget
//! they make, and the progress line drawn from its meters on standard error.

use hindsight_budget::{parse_size, parse_timeout, show_size, Budget, Limits};
use std::io::{IsTerminal, Write};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct BudgetArgs {
    /// Give up after this many seconds (a number from 0 to 1e9) and answer "unknown" (exit
    /// status 3) with what is known so far.
    #[arg(long, value_name = "SECONDS", value_parser = timeout_seconds)]
    pub timeout: Option<Duration>,
    /// The memory the search's growing structures may hold together (`512M`, `4G`, or bytes);
    /// past it the run stops with "unknown" (exit status 3). Default: half the machine's memory.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory_limit: Option<u64>,
    /// Show the states searched per second and the share done on standard error (default:
    /// when standard error is a terminal).
    #[arg(long)]
    pub progress: bool,
}

pub fn timeout_seconds(s: &str) -> Result<Duration, String> {
    parse_timeout(s)
}

/// How often the progress line is redrawn.
const REDRAW: Duration = Duration::from_millis(500);

/// A budget started for one command, with its progress line drawn while it runs.
pub struct Running {
    pub budget: Arc<Budget>,
    line: Option<(mpsc::Sender<()>, JoinHandle<bool>)>,
}

impl BudgetArgs {
    /// Starts the budget of `command` (its clock runs from now) and, if asked or when standard
    /// error is a terminal, the thread that draws its progress line.
    pub fn start(&self, command: &str) -> Running {
        self.start_counting(command, "states")
    }

    /// [`BudgetArgs::start`] for a command whose steps are `unit` (`events` for a pass over a
    /// trace), as its progress line calls them.
    pub fn start_counting(&self, command: &str, unit: &'static str) -> Running {
        let budget = Arc::new(Budget::new(Limits::new(self.timeout, self.memory_limit)));
        let line = (self.progress || std::io::stderr().is_terminal()).then(|| {
            let (stop, stopped) = mpsc::channel::<()>();
            let meters = Arc::clone(&budget);
            let command = command.to_owned();
            let drawer = std::thread::spawn(move || draw(&command, unit, &meters, &stopped));
            (stop, drawer)
        });
        Running { budget, line }
    }
}

impl Running {
    /// Stops drawing and ends the line, if one was drawn.
    pub fn done(self) {
        if let Some((stop, drawer)) = self.line {
            let _ = stop.send(());
            if drawer.join().unwrap_or(false) {
                eprintln!();
            }
        }
    }
}

/// Redraws `command`'s line every [`REDRAW`] until told to stop; whether it drew any.
fn draw(command: &str, unit: &str, budget: &Budget, stopped: &mpsc::Receiver<()>) -> bool {
    let mut drawn = 0usize;
    loop {
        match stopped.recv_timeout(REDRAW) {
            Err(RecvTimeoutError::Timeout) => {}
            _ => return drawn > 0,
        }
        let r = budget.reading();
        let seconds = r.elapsed.as_secs_f64();
        let mut line = format!(
            "{command}: {} {unit} ({:.0}/s)",
            r.steps,
            r.steps as f64 / seconds.max(1e-9)
        );
        if let Some(share) = r.share_done() {
            line.push_str(&format!(", {:.1}% done", share * 100.0));
        }
        if r.held > 0 {
            line.push_str(&format!(", {} held", show_size(r.held)));
        }
        line.push_str(&format!(", {seconds:.1} s"));
        // Spaces over what a longer line before left, rather than a terminal's escape: the
        // line may go to a file.
        let width = drawn.max(line.len());
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{line:width$}");
        let _ = err.flush();
        drawn = line.len();
    }
}
