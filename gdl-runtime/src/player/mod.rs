//! Players: strategies that choose a role's move in a state before a deadline, over any
//! [`Game`]. [`random::RandomPlayer`] plays uniformly at random; [`mcts::MctsPlayer`] searches
//! with Monte Carlo tree search until the deadline; [`sampling::SamplingPlayer`] plays games of
//! imperfect information (GDL-II) from a belief of the states it cannot tell apart.

pub mod mcts;
pub mod random;
pub mod sampling;

use crate::Game;
use std::time::Instant;

/// A strategy for one role of a game.
pub trait Player<G: Game>: Send {
    /// One of `role`'s legal moves in `state`, chosen before `deadline`; `None` when the role
    /// has no legal move there (a terminal state or a malformed game).
    fn choose(&mut self, game: &G, state: &G::State, role: usize, deadline: Instant) -> Option<G::Move>;
}

/// The kinds of player, as named on command lines (`--player mcts|random`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Mcts,
    Random,
}

impl Kind {
    /// Reads `mcts` or `random`, in any letter case.
    pub fn parse(text: &str) -> Result<Kind, String> {
        match text.to_ascii_lowercase().as_str() {
            "mcts" => Ok(Kind::Mcts),
            "random" => Ok(Kind::Random),
            _ => Err(format!("unknown player `{text}`; expected mcts or random")),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Mcts => "mcts",
            Kind::Random => "random",
        }
    }

    /// A player of this kind whose random choices follow `seed`.
    pub fn make<G: Game>(self, seed: u64) -> Box<dyn Player<G>> {
        match self {
            Kind::Mcts => Box::new(mcts::MctsPlayer::new(seed)),
            Kind::Random => Box::new(random::RandomPlayer::new(seed)),
        }
    }
}
