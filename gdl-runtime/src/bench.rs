//! Rollout benchmarking: uniformly random playouts for a fixed time on one or more threads,
//! reported with the keys of the gdl-perf framework.

use crate::rng::Rng;
use crate::{random_playout, Game, Playout};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// What a benchmark measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BenchResult {
    pub milliseconds: u128,
    pub state_changes: u64,
    pub rollouts: u64,
    /// The sum of each role's final goal values over all rollouts.
    pub goal_sums: Vec<u64>,
    pub roles: Vec<String>,
}

impl BenchResult {
    pub fn rollouts_per_sec(&self) -> f64 {
        self.rollouts as f64 * 1000.0 / self.milliseconds.max(1) as f64
    }

    /// The gdl-perf report: `version=`, `millisecondsTaken=`, `numStateChanges=`,
    /// `numRollouts=`, `rolloutsPerSec=`, `averageGoals=ROLE:VALUE,...`, one per line.
    pub fn report(&self, version: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "version={version}");
        let _ = writeln!(out, "millisecondsTaken={}", self.milliseconds);
        let _ = writeln!(out, "numStateChanges={}", self.state_changes);
        let _ = writeln!(out, "numRollouts={}", self.rollouts);
        let _ = writeln!(out, "rolloutsPerSec={:.1}", self.rollouts_per_sec());
        let goals: Vec<String> = self
            .roles
            .iter()
            .zip(&self.goal_sums)
            .map(|(r, &g)| format!("{r}:{:.2}", g as f64 / self.rollouts.max(1) as f64))
            .collect();
        let _ = writeln!(out, "averageGoals={}", goals.join(","));
        out
    }
}

/// Runs random playouts from the initial state for `duration` on `threads` threads (each with
/// its own seeded generator) and adds up what they measured.
pub fn run<G: Game>(game: &G, duration: Duration, threads: usize, seed: u64) -> BenchResult {
    run_with_progress(game, duration, threads, seed, false)
}

/// Does what [`run`] does; with `progress`, a progress bar on stderr shows the time measured
/// so far (for a terminal: it redraws one line).
pub fn run_with_progress<G: Game>(
    game: &G,
    duration: Duration,
    threads: usize,
    seed: u64,
    progress: bool,
) -> BenchResult {
    let threads = threads.max(1);
    let start = Instant::now();
    let parts: Vec<BenchResult> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| scope.spawn(move || run_one(game, start + duration, seed.wrapping_add(t as u64 * 0x9e37_79b9))))
            .collect();
        if progress {
            show_progress(start, duration);
        }
        handles.into_iter().map(|h| h.join().expect("a benchmark thread panicked")).collect()
    });
    let mut total = BenchResult {
        milliseconds: start.elapsed().as_millis(),
        goal_sums: vec![0; game.num_roles()],
        roles: (0..game.num_roles()).map(|r| game.role_name(r).to_string()).collect(),
        ..BenchResult::default()
    };
    for p in parts {
        total.state_changes += p.state_changes;
        total.rollouts += p.rollouts;
        for (t, g) in total.goal_sums.iter_mut().zip(&p.goal_sums) {
            *t += g;
        }
    }
    total
}

/// Redraws a progress bar on stderr until `duration` has passed since `start`, then clears it.
fn show_progress(start: Instant, duration: Duration) {
    const WIDTH: usize = 30;
    loop {
        let elapsed = start.elapsed().min(duration);
        let fraction = if duration.is_zero() { 1.0 } else { elapsed.as_secs_f64() / duration.as_secs_f64() };
        let filled = ((fraction * WIDTH as f64) as usize).min(WIDTH);
        eprint!(
            "\r[{}{}] {:.1}/{:.1} s",
            "#".repeat(filled),
            " ".repeat(WIDTH - filled),
            elapsed.as_secs_f64(),
            duration.as_secs_f64()
        );
        if elapsed >= duration {
            eprint!("\r{}\r", " ".repeat(WIDTH + 24));
            return;
        }
        std::thread::sleep((duration - elapsed).min(Duration::from_millis(100)));
    }
}

/// Plays exactly `playouts` random playouts from the initial state on one thread with a
/// generator seeded by `seed`: what [`run`] measures, but deterministic, for tests of the
/// average goals (the `random` role of a GDL-II game draws uniformly like every other role).
pub fn run_playouts<G: Game>(game: &G, playouts: u64, seed: u64) -> BenchResult {
    let start = Instant::now();
    let mut rng = Rng::seeded(seed);
    let mut scratch = Playout::default();
    let initial = game.initial_state();
    let mut goals = vec![0u32; game.num_roles()];
    let mut result = BenchResult {
        goal_sums: vec![0; game.num_roles()],
        roles: (0..game.num_roles()).map(|r| game.role_name(r).to_string()).collect(),
        ..BenchResult::default()
    };
    for _ in 0..playouts {
        result.state_changes += random_playout(game, &initial, &mut rng, &mut scratch, &mut goals) as u64;
        result.rollouts += 1;
        for (s, &g) in result.goal_sums.iter_mut().zip(&goals) {
            *s += u64::from(g);
        }
    }
    result.milliseconds = start.elapsed().as_millis();
    result
}

impl BenchResult {
    /// Every role's average goal over the rollouts, in role order.
    pub fn average_goals(&self) -> Vec<f64> {
        self.goal_sums.iter().map(|&g| g as f64 / self.rollouts.max(1) as f64).collect()
    }
}

fn run_one<G: Game>(game: &G, deadline: Instant, seed: u64) -> BenchResult {
    let mut rng = Rng::seeded(seed);
    let mut scratch = Playout::default();
    let initial = game.initial_state();
    let mut goals = vec![0u32; game.num_roles()];
    let mut result = BenchResult { goal_sums: vec![0; game.num_roles()], ..BenchResult::default() };
    loop {
        result.state_changes += random_playout(game, &initial, &mut rng, &mut scratch, &mut goals) as u64;
        result.rollouts += 1;
        for (s, &g) in result.goal_sums.iter_mut().zip(&goals) {
            *s += u64::from(g);
        }
        if Instant::now() >= deadline {
            return result;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_has_the_gdl_perf_keys_in_order() {
        let r = BenchResult {
            milliseconds: 2000,
            state_changes: 90,
            rollouts: 10,
            goal_sums: vec![500, 250],
            roles: vec!["x".into(), "o".into()],
        };
        assert_eq!(
            r.report("gdlc 0.1.0"),
            "version=gdlc 0.1.0\nmillisecondsTaken=2000\nnumStateChanges=90\nnumRollouts=10\nrolloutsPerSec=5.0\naverageGoals=x:50.00,o:25.00\n"
        );
    }
}
