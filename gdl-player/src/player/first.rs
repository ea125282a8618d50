//! The first-move player: the first of its legal moves in the game's order, at once. It makes
//! matches reproducible without a seed, and in real-time games it is the player that moves as
//! soon as it can.

use super::Player;
use gdl_runtime::Game;
use std::time::Instant;

/// The player of the first of its legal moves, in the order of [`Game::legal_moves`].
pub struct FirstPlayer;

impl<G: Game> Player<G> for FirstPlayer {
    fn choose(&mut self, game: &G, state: &G::State, role: usize, _deadline: Instant) -> Option<G::Move> {
        let mut moves = Vec::new();
        game.legal_moves(state, role, &mut moves);
        moves.into_iter().next()
    }
}
