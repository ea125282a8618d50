//! Random playouts from the initial state, for a graph too large to walk: every state of a
//! playout is observed as the walk observes it, and a state met twice in one playout closes a
//! cycle (all its states are non-terminal, since the playout went on from them). They can only
//! find things: a refutation or a winning line, never a proof that nothing is there.

use super::observe::Observer;
use super::{Declared, Found, Options, Property, Shows};
use crate::rng::Rng;
use crate::Game;
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The longest playout: past it a playout ends without a verdict.
const MAX_STEPS: usize = 10_000;

/// Plays random playouts on `options.threads` threads until `deadline`, and returns what they
/// found that `known` does not hold, with the shortest line found for each, and the counts of
/// playouts and of their steps.
pub(crate) fn play<G: Game>(
    game: &G,
    declared: &Declared,
    options: &Options,
    deadline: Instant,
    known: &BTreeSet<(Property, Option<usize>)>,
) -> (Found<Vec<Vec<String>>>, (u64, u64)) {
    let shared = Shared { found: Mutex::new(Found::new()), playouts: AtomicU64::new(0), steps: AtomicU64::new(0) };
    std::thread::scope(|scope| {
        for thread in 0..options.threads.max(1) {
            let shared = &shared;
            let seed = options.seed.wrapping_add(thread as u64);
            scope.spawn(move || {
                let mut player =
                    Player { game, observer: Observer::new(game, declared), rng: Rng::seeded(seed), known };
                let mut last = Instant::now();
                while Instant::now() < deadline {
                    player.playout(shared, deadline);
                    if thread == 0 && options.progress && last.elapsed() >= Duration::from_secs(5) {
                        last = Instant::now();
                        let (playouts, found) = (shared.playouts.load(Ordering::Relaxed), shared.found_count());
                        eprintln!("analyze: {playouts} random playouts, {found} new findings");
                    }
                }
            });
        }
    });
    let found = shared.found.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
    (found, (shared.playouts.into_inner(), shared.steps.into_inner()))
}

/// What the threads share: the findings and the counts.
struct Shared {
    found: Mutex<Found<Vec<Vec<String>>>>,
    playouts: AtomicU64,
    steps: AtomicU64,
}

impl Shared {
    fn found_count(&self) -> usize {
        self.found.lock().map_or(0, |found| found.len())
    }
}

/// One thread's playouts.
struct Player<'a, G: Game> {
    game: &'a G,
    observer: Observer<'a, G>,
    rng: Rng,
    known: &'a BTreeSet<(Property, Option<usize>)>,
}

impl<G: Game> Player<'_, G> {
    fn playout(&mut self, shared: &Shared, deadline: Instant) {
        let mut state = self.game.initial_state();
        let mut seen: HashMap<G::State, usize> = HashMap::new();
        let mut line: Vec<Vec<G::Move>> = Vec::new();
        for step in 0..MAX_STEPS {
            let observation = self.observer.observe(&state);
            for shows in observation.findings {
                self.report(shared, &line, shows);
            }
            let legal = &self.observer.legal;
            if observation.terminal || legal.iter().any(Vec::is_empty) || Instant::now() >= deadline {
                break;
            }
            let joint: Vec<G::Move> = legal.iter().map(|m| m[self.rng.below(m.len())].clone()).collect();
            seen.insert(state.clone(), step);
            state = self.game.next_state(&state, &joint);
            line.push(joint);
            if let Some(&from) = seen.get(&state) {
                self.report(shared, &line, Shows::Cycle { from });
                break;
            }
        }
        shared.playouts.fetch_add(1, Ordering::Relaxed);
        shared.steps.fetch_add(line.len() as u64, Ordering::Relaxed);
    }

    /// Keeps `shows` with its line unless the walk found it, or a shorter line shows it.
    fn report(&self, shared: &Shared, line: &[Vec<G::Move>], shows: Shows) {
        let key = shows.key();
        if self.known.contains(&key) {
            return;
        }
        let mut found = shared.found.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if found.get(&key).is_some_and(|(known, _)| known.len() <= line.len()) {
            return;
        }
        let joints = line.iter().map(|joint| joint.iter().map(|m| self.game.move_string(m)).collect()).collect();
        found.insert(key, (joints, shows));
    }
}
