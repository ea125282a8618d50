//! Feedback on long work: a line on stderr when a phase (compiling a game, building its binary)
//! starts and when it ends, with its time; on a terminal, the elapsed seconds are shown on the
//! line while the phase runs, so that a command that grounds or builds for minutes is never
//! silent. Off a terminal only the two lines are written, for logs.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A phase under way.
pub struct Phase {
    what: String,
    started: Instant,
    running: Arc<AtomicBool>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

impl Phase {
    /// Announces `what` (`compiling chess.kif`) and, on a terminal, keeps its elapsed time shown.
    pub fn start(what: impl Into<String>) -> Phase {
        let what = what.into();
        let started = Instant::now();
        let running = Arc::new(AtomicBool::new(true));
        let terminal = std::io::stderr().is_terminal();
        if !terminal {
            eprintln!("gdlc: {what}...");
        }
        let ticker = terminal.then(|| {
            let (what, running) = (what.clone(), Arc::clone(&running));
            std::thread::spawn(move || {
                while running.load(Ordering::Relaxed) {
                    eprint!("\rgdlc: {what}... {} s", started.elapsed().as_secs());
                    let _ = std::io::stderr().flush();
                    for _ in 0..10 {
                        if !running.load(Ordering::Relaxed) {
                            return;
                        }
                        std::thread::sleep(Duration::from_millis(100));
                    }
                }
            })
        });
        Phase { what, started, running, ticker }
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
        self.running.store(false, Ordering::Relaxed);
        if let Some(ticker) = self.ticker.take() {
            let _ = ticker.join();
            eprint!("\r\x1b[2K");
        }
        eprintln!("{line}");
    }
}

impl Drop for Phase {
    fn drop(&mut self) {
        self.running.store(false, Ordering::Relaxed);
    }
}
