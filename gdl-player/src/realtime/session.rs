//! A real-time match as one player plays it, and the form of the real-time PLAY and STOP.
//!
//! The protocol keeps GGP's messages and changes what PLAY and STOP carry. The manager polls
//! every player each play clock (the "tick") with `(PLAY id (T E1 E2 ...))`: `T` is the game
//! time of the poll in seconds, and each `Ei = (Ti ROLE MOVE)` is a move the manager accepted
//! since its previous PLAY, with the game time it took effect, in time order. The player
//! replays those moves, lets its own copy of the game's clock run to `T` (the expiries are the
//! player's to compute: the paper's execution model sends only actions), and answers a move,
//! which takes effect when the manager receives it, or `nil` to let time pass. STOP carries the
//! same list, up to the end of the match.

use crate::player::Kind;
use crate::rename::Spelling;
use crate::session::MatchSession;
use gdl_runtime::kif::{self, Sx};
use gdl_runtime::realtime::{RealTimeGame, Simulation, Time};
use gdl_runtime::rng::Rng;
use std::ops::Deref;
use std::time::Instant;

/// The reply to a real-time PLAY that makes no move.
pub const NO_MOVE: &str = "nil";

/// A move the manager accepted: its game time, the role and the move, in the match's spelling.
pub type TimedMove = (Time, Sx, Sx);

/// The list a real-time PLAY or STOP carries: the poll's game time, then the timed moves.
pub fn report(now: Time, moves: &[TimedMove]) -> Vec<Sx> {
    let atom = |t: Time| Sx::Atom(t.to_string());
    std::iter::once(atom(now))
        .chain(moves.iter().map(|(t, role, mv)| Sx::List(vec![atom(*t), role.clone(), mv.clone()])))
        .collect()
}

/// Reads what [`report`] writes.
pub fn read_report(items: &[Sx]) -> Result<(Time, Vec<TimedMove>), String> {
    let time = |sx: &Sx| match sx {
        Sx::Atom(a) => Time::parse(a).map_err(|e| format!("malformed real-time report: {e}")),
        Sx::List(_) => Err(format!("malformed real-time report: expected a time, not `{sx}`")),
    };
    let (first, rest) = items.split_first().ok_or("malformed real-time report: expected (TIME (TIME ROLE MOVE)...)")?;
    let now = time(first)?;
    let moves = rest
        .iter()
        .map(|item| match item {
            Sx::List(parts) if parts.len() == 3 => Ok((time(&parts[0])?, parts[1].clone(), parts[2].clone())),
            _ => Err(format!("malformed real-time report: expected (TIME ROLE MOVE), not `{item}`")),
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok((now, moves))
}

/// How a real-time player decides at each poll.
pub enum Strategy {
    /// With chance one in [`RANDOM_MOVE_ODDS`], a uniformly random legal move; else no move.
    Random(Rng),
    /// Its first legal move, whenever it has one.
    First,
    /// Never moves.
    Idle,
}

/// A random real-time player moves at a poll with chance one in this many.
pub const RANDOM_MOVE_ODDS: usize = 4;

impl Strategy {
    /// The strategy of a player kind: `mcts` has no real-time search and plays as `random`.
    pub fn of(kind: Kind, seed: u64) -> Strategy {
        match kind {
            Kind::Mcts | Kind::Random => Strategy::Random(Rng::seeded(seed)),
            Kind::First => Strategy::First,
            Kind::Idle => Strategy::Idle,
        }
    }

    fn choose<M: Clone>(&mut self, legal: &[M]) -> Option<M> {
        match self {
            _ if legal.is_empty() => None,
            Strategy::Random(rng) => (rng.below(RANDOM_MOVE_ODDS) == 0).then(|| legal[rng.below(legal.len())].clone()),
            Strategy::First => Some(legal[0].clone()),
            Strategy::Idle => None,
        }
    }
}

/// A real-time match of a game `R` points to, played for `role`.
pub struct RealTimeSession<G: RealTimeGame, R: Deref<Target = G>> {
    simulation: Simulation<G, R>,
    role: usize,
    spelling: Spelling,
    strategy: Strategy,
}

impl<G: RealTimeGame, R: Deref<Target = G>> RealTimeSession<G, R> {
    /// A session at the game's initial state, game time zero, for the role `role` spells in
    /// the match; `spelling` maps the game's symbols to the match's and `strategy` chooses the
    /// moves. An error says that the game has no such role.
    pub fn new(game: R, role: &Sx, spelling: Spelling, strategy: Strategy) -> Result<Self, String> {
        let name = spelling.to_game(role).to_string();
        let role = (0..game.num_roles())
            .find(|&r| game.role_name(r).eq_ignore_ascii_case(&name))
            .ok_or_else(|| format!("`{role}` is not a role of this game"))?;
        Ok(RealTimeSession { simulation: Simulation::new(game), role, spelling, strategy })
    }

    /// Replays the manager's report: its moves at their times, then the clock up to its time.
    fn catch_up(&mut self, report: Option<&[Sx]>) -> Result<(), String> {
        let Some(items) = report else { return Ok(()) };
        let (now, moves) = read_report(items)?;
        let game = self.simulation.game();
        let mut timed = Vec::new();
        for (at, role, mv) in &moves {
            let name = self.spelling.to_game(role).to_string();
            let role = (0..game.num_roles())
                .find(|&r| game.role_name(r).eq_ignore_ascii_case(&name))
                .ok_or_else(|| format!("`{role}` is not a role of this game"))?;
            timed.push((*at, role, self.spelling.to_game(mv).to_string()));
        }
        let mut i = 0;
        while i < timed.len() {
            let at = timed[i].0;
            let group: Vec<(usize, &str)> =
                timed[i..].iter().take_while(|m| m.0 == at).map(|m| (m.1, m.2.as_str())).collect();
            i += group.len();
            self.simulation.play(at, &group).map_err(|e| format!("the reported moves do not replay: {e}"))?;
        }
        self.simulation.expire_until(now, true)
    }
}

impl<G: RealTimeGame, R: Deref<Target = G> + Send> MatchSession for RealTimeSession<G, R> {
    fn play(&mut self, report: Option<&[Sx]>, _deadline: Instant) -> Result<String, String> {
        self.catch_up(report)?;
        if self.simulation.is_terminal() {
            return Err("the match is over: the state is terminal".to_string());
        }
        let game = self.simulation.game();
        let mut legal = Vec::new();
        game.legal_moves(self.simulation.state(), self.role, &mut legal);
        let Some(mv) = self.strategy.choose(&legal) else { return Ok(NO_MOVE.to_string()) };
        let text = game.move_string(&mv);
        let term = kif::parse_one(&text).map_err(|e| format!("the game printed a malformed move `{text}`: {e}"))?;
        Ok(self.spelling.to_match(&term).to_string())
    }

    fn stop(&mut self, report: Option<&[Sx]>) -> Result<(), String> {
        self.catch_up(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_print_and_read_back() {
        let at = |s: &str| Time::parse(s).unwrap();
        let atom = |s: &str| Sx::Atom(s.to_string());
        let moves = vec![(at("0.25"), atom("white"), atom("swerve")), (at("0.5"), atom("black"), atom("swerve"))];
        let items = report(at("0.75"), &moves);
        assert_eq!(Sx::List(items.clone()).to_string(), "(0.75 (0.25 white swerve) (0.5 black swerve))");
        assert_eq!(read_report(&items).unwrap(), (at("0.75"), moves));
        for bad in ["()", "(soon)", "(1.0 (0.5 white))", "(1.0 white)", "(-1 (0.5 white swerve))"] {
            let Sx::List(items) = kif::parse_one(bad).unwrap() else { panic!() };
            assert!(read_report(&items).unwrap_err().contains("malformed real-time report"), "{bad}");
        }
    }
}
