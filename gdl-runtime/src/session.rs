//! One match as a player plays it, behind an object-safe interface so that a server can hold
//! matches of different games and engines at once: [`MatchSession`] answers PLAY and STOP in
//! the match's own spelling, [`GameSession`] implements it for any [`Game`] and [`Player`], and
//! [`GameFactory`] turns the rules of a START into a session ([`OwnGame`] for a compiled game,
//! which it recognizes up to a renaming of symbols).

use crate::kif::{self, Sx};
use crate::player::{Kind, Player};
use crate::rename::Spelling;
use crate::Game;
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A match in progress, as the player of one role sees it.
pub trait MatchSession: Send {
    /// Applies the joint move the manager reports (`None` for the first PLAY) and returns this
    /// role's move, chosen before `deadline`, in the match's spelling.
    fn play(&mut self, moves: Option<&[Sx]>, deadline: Instant) -> Result<String, String>;

    /// Applies the last joint move, if the manager reports one, at the end of the match.
    fn stop(&mut self, moves: Option<&[Sx]>) -> Result<(), String>;
}

/// What a START message says about a new match.
#[derive(Clone, Copy, Debug)]
pub struct Start<'m> {
    pub id: &'m str,
    /// The role to play, in the match's spelling.
    pub role: &'m Sx,
    pub rules: &'m [Sx],
    pub start_clock: Duration,
    pub play_clock: Duration,
}

/// Makes the session of a new match from its START; an error says why this player cannot
/// play it.
pub trait GameFactory: Send + Sync {
    fn start<'s>(&'s self, start: &Start) -> Result<Box<dyn MatchSession + 's>, String>;
}

/// A fresh seed for each session's player, so that concurrent matches play differently.
pub fn next_seed() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let time = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    time ^ COUNTER.fetch_add(1, Ordering::Relaxed).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// A match of a game `R` points to (a borrowed compiled game or an owned interpreter), played
/// by `player` for `role`.
pub struct GameSession<G: Game, R: Deref<Target = G>> {
    game: R,
    role: usize,
    state: G::State,
    spelling: Spelling,
    player: Box<dyn Player<G>>,
}

impl<G: Game, R: Deref<Target = G> + Send> GameSession<G, R> {
    /// A session at the game's initial state; `role` is spelled as in the match, and
    /// `spelling` maps the game's symbols to the match's.
    pub fn new(game: R, role: &Sx, spelling: Spelling, player: Box<dyn Player<G>>) -> Result<Self, String> {
        let name = spelling.to_game(role).to_string();
        let role = (0..game.num_roles())
            .find(|&r| game.role_name(r).eq_ignore_ascii_case(&name))
            .ok_or_else(|| format!("`{role}` is not a role of this game"))?;
        let state = game.initial_state();
        Ok(GameSession { game, role, state, spelling, player })
    }

    /// Applies a joint move in the match's spelling, after checking it has one legal move per
    /// role.
    fn apply(&mut self, moves: &[Sx]) -> Result<(), String> {
        let game = &*self.game;
        if moves.len() != game.num_roles() {
            return Err(format!("expected {} moves, one per role, but got {}", game.num_roles(), moves.len()));
        }
        if game.is_terminal(&self.state) {
            return Err("the match is already over".to_string());
        }
        let mut legal = Vec::new();
        let mut joint = Vec::with_capacity(moves.len());
        for (role, sent) in moves.iter().enumerate() {
            let text = self.spelling.to_game(sent).to_string();
            game.legal_moves(&self.state, role, &mut legal);
            let mv = game.parse_move(role, &text).filter(|m| legal.contains(m)).ok_or_else(|| {
                format!(
                    "`{sent}` is not a legal move of role `{}`",
                    self.spelling.to_match(&atom(game.role_name(role)))
                )
            })?;
            joint.push(mv);
        }
        self.state = game.next_state(&self.state, &joint);
        Ok(())
    }
}

fn atom(text: &str) -> Sx {
    Sx::Atom(text.to_string())
}

impl<G: Game, R: Deref<Target = G> + Send> MatchSession for GameSession<G, R> {
    fn play(&mut self, moves: Option<&[Sx]>, deadline: Instant) -> Result<String, String> {
        if let Some(moves) = moves {
            self.apply(moves)?;
        }
        let game = &*self.game;
        if game.is_terminal(&self.state) {
            return Err("the match is over: the state is terminal".to_string());
        }
        let mv = self
            .player
            .choose(game, &self.state, self.role, deadline)
            .ok_or_else(|| "this role has no legal move in the current state".to_string())?;
        let text = game.move_string(&mv);
        let term = kif::parse_one(&text).map_err(|e| format!("the game printed a malformed move `{text}`: {e}"))?;
        Ok(self.spelling.to_match(&term).to_string())
    }

    fn stop(&mut self, moves: Option<&[Sx]>) -> Result<(), String> {
        match moves {
            Some(moves) => self.apply(moves),
            None => Ok(()),
        }
    }
}

/// The factory of a per-game binary: plays its own game, recognized in a START up to a
/// renaming of symbols, and refuses any other.
pub struct OwnGame<'g, G> {
    pub game: &'g G,
    pub name: String,
    pub rules: Vec<Sx>,
    pub player: Kind,
}

impl<G: Game> GameFactory for OwnGame<'_, G> {
    fn start<'s>(&'s self, start: &Start) -> Result<Box<dyn MatchSession + 's>, String> {
        let spelling = Spelling::recognize(&self.rules, start.rules).ok_or_else(|| {
            format!(
                "this player only plays {} (up to renaming of symbols), and these rules are another game",
                self.name
            )
        })?;
        let player = self.player.make::<G>(next_seed());
        Ok(Box::new(GameSession::new(self.game, start.role, spelling, player)?))
    }
}
