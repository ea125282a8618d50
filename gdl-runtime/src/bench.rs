//! Rollout benchmarking: uniformly random playouts for a fixed time on one or more threads,
//! reported with the keys of the gdl-perf framework.

use crate::rng::Rng;
use crate::{random_playout, Game, Playout};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// What a benchmark measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BenchResult {
    /// The wall-clock time measured, in milliseconds.
    pub milliseconds: u128,
    /// The steps of all playouts (the events, for a real-time game), the steps of a playout cut
    /// off at the deadline included.
    pub state_changes: u64,
    /// The playouts played to their end.
    pub rollouts: u64,
    /// The sum of each role's final goal values over all rollouts.
    pub goal_sums: Vec<u64>,
    /// The roles' names, in role order, as the report prints them.
    pub roles: Vec<String>,
}

impl BenchResult {
    /// Nothing measured yet, for the roles `roles`.
    pub fn for_roles(roles: Vec<String>) -> BenchResult {
        BenchResult { goal_sums: vec![0; roles.len()], roles, ..BenchResult::default() }
    }

    /// Counts one finished rollout with every role's final goal (0 where undefined).
    pub fn add_rollout(&mut self, goals: impl IntoIterator<Item = Option<u32>>) {
        self.rollouts += 1;
        for (sum, goal) in self.goal_sums.iter_mut().zip(goals) {
            *sum += u64::from(goal.unwrap_or(0));
        }
    }

    /// Every role's average goal over the rollouts, in role order.
    pub fn average_goals(&self) -> Vec<f64> {
        self.goal_sums.iter().map(|&g| g as f64 / self.rollouts.max(1) as f64).collect()
    }

    /// Finished rollouts per second of the time measured (a time under a millisecond counts as
    /// one millisecond).
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
        let goals: Vec<String> =
            self.roles.iter().zip(self.average_goals()).map(|(r, g)| format!("{r}:{g:.2}")).collect();
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
/// so far (for a terminal: it redraws one line). One query of the initial state's legal moves
/// comes first, not timed: an engine may build its tables on first use, the setup that
/// gdl-perf leaves out of a propnet's rate.
pub fn run_with_progress<G: Game>(
    game: &G,
    duration: Duration,
    threads: usize,
    seed: u64,
    progress: bool,
) -> BenchResult {
    let mut moves = Vec::new();
    game.all_legal_moves(&game.initial_state(), &mut moves);
    let roles = (0..game.num_roles()).map(|r| game.role_name(r).to_string()).collect();
    run_on_threads(roles, duration, threads, seed, progress, |deadline, seed| run_one(game, deadline, seed))
}

/// Runs `part(deadline, seed)` on `threads` threads, each with its own seed derived from
/// `seed`, and adds up what they measured, with the time from the start to the last thread's
/// end; with `progress`, a progress bar on stderr shows the time measured so far (for a
/// terminal: it redraws one line). Each part measures for the roles `roles`.
pub fn run_on_threads(
    roles: Vec<String>,
    duration: Duration,
    threads: usize,
    seed: u64,
    progress: bool,
    part: impl Fn(Instant, u64) -> BenchResult + Sync,
) -> BenchResult {
    let threads = threads.max(1);
    let start = Instant::now();
    let part = &part;
    let parts: Vec<BenchResult> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| scope.spawn(move || part(start + duration, seed.wrapping_add(t as u64 * 0x9e37_79b9))))
            .collect();
        if progress {
            show_progress(start, duration);
        }
        handles.into_iter().map(|h| h.join().expect("a benchmark thread panicked")).collect()
    });
    let mut total = BenchResult::for_roles(roles);
    total.milliseconds = start.elapsed().as_millis();
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

/// The state changes a second that random playouts from the initial state make through `game`
/// on one thread in `duration`, after one query of the initial state's legal moves that is not
/// timed (an engine may build its tables on first use): what a race of two engines of one game
/// compares.
pub fn state_changes_per_sec<G: Game>(game: &G, duration: Duration, seed: u64) -> f64 {
    let mut moves = Vec::new();
    game.all_legal_moves(&game.initial_state(), &mut moves);
    let start = Instant::now();
    let result = run_one(game, start + duration, seed);
    result.state_changes as f64 / start.elapsed().as_secs_f64().max(1e-3)
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
    let mut result = BenchResult::for_roles((0..game.num_roles()).map(|r| game.role_name(r).to_string()).collect());
    for _ in 0..playouts {
        result.state_changes += random_playout(game, &initial, &mut rng, &mut scratch, &mut goals) as u64;
        result.add_rollout(goals.iter().map(|&g| Some(g)));
    }
    result.milliseconds = start.elapsed().as_millis();
    result
}

/// Plays random playouts until `deadline`. The clock is read within playouts too, so that a
/// slow game (a large game through the interpreter, seconds per step) stops near the deadline:
/// the steps of a playout cut off there count as state changes, the playout not as a rollout.
fn run_one<G: Game>(game: &G, deadline: Instant, seed: u64) -> BenchResult {
    let mut rng = Rng::seeded(seed);
    let mut scratch = Playout::default();
    let initial = game.initial_state();
    let mut clock = Clock::new(deadline);
    let mut result = BenchResult::for_roles(vec![String::new(); game.num_roles()]);
    scratch.goals.resize(game.num_roles(), None);
    // Two states that the steps write in turn: a step writes the next state in place.
    let (mut first, mut second) = (initial.clone(), initial.clone());
    loop {
        let (mut state, mut next) = (&mut first, &mut second);
        state.clone_from(&initial);
        while game.random_step_into(state, &mut rng, &mut scratch, next) {
            std::mem::swap(&mut state, &mut next);
            result.state_changes += 1;
            if clock.passed() {
                return result;
            }
        }
        game.goals_into(state, &mut scratch.goals);
        result.add_rollout(scratch.goals.iter().copied());
        if clock.passed() {
            return result;
        }
    }
}

/// A deadline read every `stride` calls: the stride doubles while that many calls take under a
/// tenth of a millisecond (up to 1,024) and halves while they take over a millisecond, so a fast
/// game reads the clock rarely and a slow one after every step.
struct Clock {
    deadline: Instant,
    stride: u32,
    countdown: u32,
    last: Instant,
}

impl Clock {
    const MAX_STRIDE: u32 = 1024;

    fn new(deadline: Instant) -> Clock {
        Clock { deadline, stride: 1, countdown: 1, last: Instant::now() }
    }

    /// Whether the deadline has passed, as of the last reading of the clock. Inlined into the
    /// playout loop of the game's crate, which calls it after every step.
    #[inline]
    fn passed(&mut self) -> bool {
        self.countdown -= 1;
        if self.countdown > 0 {
            return false;
        }
        self.read()
    }

    /// Reads the clock: whether the deadline has passed, and the stride to the next reading.
    #[cold]
    fn read(&mut self) -> bool {
        let now = Instant::now();
        if now >= self.deadline {
            self.countdown = 1;
            return true;
        }
        let took = now - self.last;
        if took < Duration::from_micros(100) {
            self.stride = (self.stride * 2).min(Self::MAX_STRIDE);
        } else if took > Duration::from_millis(1) {
            self.stride = (self.stride / 2).max(1);
        }
        self.countdown = self.stride;
        self.last = now;
        false
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

    /// A game whose every step takes 50 ms and whose playouts never end.
    struct Slow;

    impl Game for Slow {
        type State = u32;
        type Move = u32;
        fn num_roles(&self) -> usize {
            1
        }
        fn role_name(&self, _: usize) -> &str {
            "only"
        }
        fn initial_state(&self) -> u32 {
            0
        }
        fn legal_moves(&self, _: &u32, _: usize, out: &mut Vec<u32>) {
            out.clear();
            out.push(0);
        }
        fn next_state(&self, state: &u32, _: &[u32]) -> u32 {
            std::thread::sleep(Duration::from_millis(50));
            state + 1
        }
        fn is_terminal(&self, _: &u32) -> bool {
            false
        }
        fn goal(&self, _: &u32, _: usize) -> Option<u32> {
            None
        }
        fn state_facts(&self, _: &u32) -> Vec<String> {
            Vec::new()
        }
        fn move_string(&self, _: &u32) -> String {
            "noop".into()
        }
        fn parse_move(&self, _: usize, _: &str) -> Option<u32> {
            Some(0)
        }
    }

    #[test]
    fn a_playout_longer_than_the_benchmark_is_cut_off_at_the_deadline() {
        let r = run(&Slow, Duration::from_millis(300), 1, 1);
        assert_eq!(r.rollouts, 0);
        assert!((3..=8).contains(&r.state_changes), "{} state changes", r.state_changes);
        assert!(r.milliseconds < 2000, "took {} ms", r.milliseconds);
    }
}
