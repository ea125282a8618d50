//! The random player: a uniformly random legal move, at once.

use super::Player;
use gdl_runtime::rng::Rng;
use gdl_runtime::Game;
use std::time::Instant;

/// The player of a uniformly random legal move, drawn from its own generator.
pub struct RandomPlayer {
    rng: Rng,
}

impl RandomPlayer {
    /// A player whose draws follow `seed`.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer { rng: Rng::seeded(seed) }
    }
}

impl<G: Game> Player<G> for RandomPlayer {
    fn choose(&mut self, game: &G, state: &G::State, role: usize, _deadline: Instant) -> Option<G::Move> {
        let mut moves = Vec::new();
        game.legal_moves(state, role, &mut moves);
        if moves.is_empty() {
            return None;
        }
        let pick = self.rng.below(moves.len());
        Some(moves.swap_remove(pick))
    }
}
