//! Players: strategies that choose a role's move in a state before a deadline, over any
//! [`Game`]. [`random::RandomPlayer`] plays uniformly at random; [`mcts::MctsPlayer`] searches
//! with Monte Carlo tree search until the deadline; [`sampling::SamplingPlayer`] plays games of
//! imperfect information (GDL-II) from a belief of the states it cannot tell apart;
//! [`first::FirstPlayer`] plays its first legal move (the `first` and `idle` kinds, which differ
//! only in real-time games).

pub mod first;
pub mod mcts;
pub mod random;
pub mod sampling;
mod solver;

use gdl_runtime::Game;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// A strategy for one role of a game.
pub trait Player<G: Game>: Send {
    /// One of `role`'s legal moves in `state`, chosen before `deadline`; `None` when the role
    /// has no legal move there (a terminal state or a malformed game).
    fn choose(&mut self, game: &G, state: &G::State, role: usize, deadline: Instant) -> Option<G::Move>;

    /// Thinks about the match before its first move, until `deadline`: the time that the
    /// START message's clock gives. A player that searches only from the state it must move in
    /// does nothing.
    fn prepare(&mut self, game: &G, state: &G::State, role: usize, deadline: Instant) {
        let _ = (game, state, role, deadline);
    }

    /// Whether the last choice is settled: a solved puzzle's plan, which no search betters.
    fn settled(&self) -> bool {
        false
    }

    /// The work behind the last choice, for the log (`1234 iterations`), if the player searches.
    fn work(&self) -> String {
        String::new()
    }

    /// Makes the choices from now on stop searching as soon as `flag` is set (the match was
    /// stopped, or a newer message superseded the one being answered). A player that does not
    /// search answers at once anyway.
    fn set_cancel(&mut self, flag: Arc<AtomicBool>) {
        let _ = flag;
    }
}

/// The kinds of player, as named on command lines (`--player mcts|random|first|idle`).
///
/// In turn-based games `first` and `idle` both play the first legal move. In real-time games
/// (see [`crate::realtime::session`]) `first` plays its first legal move whenever it has one,
/// `idle` never moves, and `mcts` and `random` move at random moments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Searches until the deadline: Monte Carlo tree search ([`mcts::MctsPlayer`]), or in a
    /// GDL-II game a search over sampled states ([`sampling::SamplingPlayer`]).
    Mcts,
    /// Plays a uniformly random legal move ([`random::RandomPlayer`]).
    Random,
    /// Plays its first legal move ([`first::FirstPlayer`]).
    First,
    /// Plays its first legal move in a turn-based game, and never moves in a real-time one.
    Idle,
}

impl Kind {
    /// Reads `mcts`, `random`, `first` or `idle`, in any letter case.
    pub fn parse(text: &str) -> Result<Kind, String> {
        match text.to_ascii_lowercase().as_str() {
            "mcts" => Ok(Kind::Mcts),
            "random" => Ok(Kind::Random),
            "first" => Ok(Kind::First),
            "idle" => Ok(Kind::Idle),
            _ => Err(format!("unknown player `{text}`; expected mcts, random, first or idle")),
        }
    }

    /// The kind's name, as command lines spell it and [`Kind::parse`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Mcts => "mcts",
            Kind::Random => "random",
            Kind::First => "first",
            Kind::Idle => "idle",
        }
    }

    /// A player of this kind whose random choices follow `seed`.
    pub fn make<G: Game>(self, seed: u64) -> Box<dyn Player<G>> {
        match self {
            Kind::Mcts => Box::new(mcts::MctsPlayer::new(seed)),
            Kind::Random => Box::new(random::RandomPlayer::new(seed)),
            Kind::First | Kind::Idle => Box::new(first::FirstPlayer),
        }
    }
}
