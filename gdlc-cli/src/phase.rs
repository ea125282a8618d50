//! Feedback on long work: a line on stderr when a phase (compiling a game, building its binary)
//! starts and when it ends, with its time; on a terminal, a spinner (indicatif) shows the elapsed
//! time while the phase runs, so that a command that grounds or builds for minutes is never
//! silent. Off a terminal only the two lines are written, for logs.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// A phase under way.
pub struct Phase {
    what: String,
    started: Instant,
    /// The spinner on a terminal, which shows the elapsed time.
    spinner: Option<ProgressBar>,
}

impl Phase {
    /// Announces `what` (`compiling chess.kif`) and, on a terminal, keeps its elapsed time shown.
    pub fn start(what: impl Into<String>) -> Phase {
        let what = what.into();
        let started = Instant::now();
        if !std::io::stderr().is_terminal() {
            eprintln!("gdlc: {what}...");
            return Phase { what, started, spinner: None };
        }
        let spinner = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} gdlc: {msg}... {elapsed}") {
            spinner.set_style(style);
        }
        spinner.set_message(what.clone());
        spinner.enable_steady_tick(Duration::from_millis(100));
        Phase { what, started, spinner: Some(spinner) }
    }

    /// Ends the phase with a line saying how long it took, and `detail` when there is one.
    pub fn done(self, detail: &str) {
        let seconds = self.started.elapsed().as_secs_f64();
        let separator = if detail.is_empty() { "" } else { ": " };
        let line = format!("gdlc: {} in {seconds:.1} s{separator}{detail}", self.what);
        self.stop(&line);
    }

    /// Ends the phase as failed; the caller says why.
    pub fn failed(self) {
        let seconds = self.started.elapsed().as_secs_f64();
        let line = format!("gdlc: {} failed after {seconds:.1} s", self.what);
        self.stop(&line);
    }

    fn stop(mut self, line: &str) {
        if let Some(spinner) = self.spinner.take() {
            spinner.finish_and_clear();
        }
        eprintln!("{line}");
    }
}

impl Drop for Phase {
    /// A phase dropped without an end (an error returned early) takes its spinner away.
    fn drop(&mut self) {
        if let Some(spinner) = self.spinner.take() {
            spinner.finish_and_clear();
        }
    }
}
