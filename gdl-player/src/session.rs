//! One match as a player plays it, behind an object-safe interface so that a server can hold
//! matches of different games and engines at once: [`MatchSession`] answers PLAY and STOP in
//! the match's own spelling, [`GameSession`] implements it for any [`Game`] and [`Player`],
//! [`BeliefSession`] for a GDL-II game, whose state the player does not see, and
//! [`GameFactory`] turns the rules of a START into a session ([`OwnGame`] for a compiled game,
//! which it recognizes up to a renaming of symbols).

use crate::belief::{Belief, Update};
use crate::player::sampling::SamplingPlayer;
use crate::player::{Kind, Player};
use crate::protocol::Seen;
use crate::rename::Spelling;
use gdl_runtime::kif::{self, Sx};
use gdl_runtime::Game;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A match in progress, as the player of one role sees it.
pub trait MatchSession: Send {
    /// Applies the joint move the manager reports (`None` for the first PLAY) and returns this
    /// role's move, chosen before `deadline`, in the match's spelling.
    fn play(&mut self, moves: Option<&[Sx]>, deadline: Instant) -> Result<String, String>;

    /// Applies the last joint move, if the manager reports one, at the end of the match.
    fn stop(&mut self, moves: Option<&[Sx]>) -> Result<(), String>;

    /// GDL-II's PLAY: takes in the role's last move and its percepts and returns its move,
    /// chosen before `deadline`, in the match's spelling. A game of complete information
    /// refuses it.
    fn play_seen(&mut self, seen: &Seen, deadline: Instant) -> Result<String, String> {
        let _ = (seen, deadline);
        Err(GDL_I_ONLY.to_string())
    }

    /// GDL-II's STOP: takes in the role's last move and its percepts at the end of the match.
    fn stop_seen(&mut self, seen: &Seen) -> Result<(), String> {
        let _ = seen;
        Err(GDL_I_ONLY.to_string())
    }

    /// Thinks about the match before its first PLAY, until `deadline` (what the START
    /// message's clock leaves); a session whose player does not think ahead returns at once.
    fn prepare(&mut self, deadline: Instant) {
        let _ = deadline;
    }

    /// Whether the last move chosen is settled: a solved puzzle's plan, which no search of the
    /// time left can better.
    fn settled(&self) -> bool {
        false
    }

    /// Chooses this role's move again in the current state (the one the last PLAY left), before
    /// `deadline`: a session that answered a PLAY at once with a first move can search for a
    /// better one when there is time.
    fn choose_again(&mut self, deadline: Instant) -> Result<String, String> {
        let _ = deadline;
        Err("this session cannot choose again".to_string())
    }

    /// Makes the work of the message being answered from now on stop as soon as `flag` is
    /// set: the server gives every PLAY a flag of its own, which a newer PLAY of the match,
    /// its STOP or ABORT, or its expiry sets.
    fn set_cancel(&mut self, flag: Arc<AtomicBool>) {
        let _ = flag;
    }

    /// What the session plays with, for the log (`program engine`, `interpreter`).
    fn engine(&self) -> String {
        String::new()
    }

    /// The work behind the last choice, for the log (`1234 iterations`).
    fn work(&self) -> String {
        String::new()
    }
}

/// Why a match of a game without `sees` rules or a `random` role refuses GDL-II's PLAY.
const GDL_I_ONLY: &str =
    "this game has neither `sees` rules nor a `random` role, so its matches take (PLAY id moves), \
     not GDL-II's (PLAY id turn lastmove percepts)";

/// What a START message says about a new match.
#[derive(Clone, Copy, Debug)]
pub struct Start<'m> {
    /// The match id.
    pub id: &'m str,
    /// The role to play, in the match's spelling.
    pub role: &'m Sx,
    /// The game's rules and facts, in the match's spelling.
    pub rules: &'m [Sx],
    /// How long the player has to answer START.
    pub start_clock: Duration,
    /// How long the player has to answer each PLAY.
    pub play_clock: Duration,
}

/// Makes the session of a new match from its START; an error says why this player cannot
/// play it.
pub trait GameFactory: Send + Sync {
    /// The session of the match that `start` announces, which may borrow from the factory, or
    /// why this player cannot play it (another game, a role the game does not have).
    fn start<'s>(&'s self, start: &Start) -> Result<Box<dyn MatchSession + 's>, String>;

    /// Whether the factory can take a new match, or why not (its backends are down): INFO
    /// says `busy` meanwhile.
    fn health(&self) -> Result<(), String> {
        Ok(())
    }
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
        let role = role_index(&*game, role, &spelling)?;
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

impl<G: Game, R: Deref<Target = G> + Send> GameSession<G, R> {
    /// The role's move in the current state, chosen before `deadline`, in the match's spelling.
    fn choose(&mut self, deadline: Instant) -> Result<String, String> {
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
}

impl<G: Game, R: Deref<Target = G> + Send> MatchSession for GameSession<G, R> {
    fn play(&mut self, moves: Option<&[Sx]>, deadline: Instant) -> Result<String, String> {
        if let Some(moves) = moves {
            self.apply(moves)?;
        }
        self.choose(deadline)
    }

    fn stop(&mut self, moves: Option<&[Sx]>) -> Result<(), String> {
        match moves {
            Some(moves) => self.apply(moves),
            None => Ok(()),
        }
    }

    fn prepare(&mut self, deadline: Instant) {
        self.player.prepare(&*self.game, &self.state, self.role, deadline);
    }

    fn settled(&self) -> bool {
        self.player.settled()
    }

    fn choose_again(&mut self, deadline: Instant) -> Result<String, String> {
        self.choose(deadline)
    }

    fn set_cancel(&mut self, flag: Arc<AtomicBool>) {
        self.player.set_cancel(flag);
    }

    fn work(&self) -> String {
        self.player.work()
    }
}

/// The factory of a per-game binary: plays its own game, recognized in a START up to a
/// renaming of symbols, and refuses any other.
pub struct OwnGame<'g, G> {
    /// The game, compiled.
    pub game: &'g G,
    /// The game's name, for the error that refuses another game.
    pub name: String,
    /// The game's own rules, to recognize it in a START.
    pub rules: Vec<Sx>,
    /// The kind of player that plays its matches.
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
        new_session(self.game, start, spelling, self.player)
    }
}

/// The session of a new match of `game`: a [`BeliefSession`] for a GDL-II game, a
/// [`GameSession`] otherwise.
pub fn new_session<'s, G: Game + 's, R: Deref<Target = G> + Send + 's>(
    game: R,
    start: &Start,
    spelling: Spelling,
    player: Kind,
) -> Result<Box<dyn MatchSession + 's>, String> {
    if game.is_gdl_ii() {
        let session = BeliefSession::new(game, start.id, start.role, spelling, player, next_seed())?;
        Ok(Box::new(session))
    } else {
        let player = player.make::<G>(next_seed());
        Ok(Box::new(GameSession::new(game, start.role, spelling, player)?))
    }
}

/// The role a START names, by its index in `game`.
pub fn role_index<G: Game>(game: &G, role: &Sx, spelling: &Spelling) -> Result<usize, String> {
    let name = spelling.to_game(role).to_string();
    (0..game.num_roles())
        .find(|&r| game.role_name(r).eq_ignore_ascii_case(&name))
        .ok_or_else(|| format!("`{role}` is not a role of this game"))
}

/// A match of a GDL-II game as one role plays it: the role learns only its own moves and its
/// percepts, so the session keeps a [`Belief`] of the states consistent with them and chooses
/// moves with a [`SamplingPlayer`] over it.
pub struct BeliefSession<G: Game, R: Deref<Target = G>> {
    game: R,
    id: String,
    role: usize,
    spelling: Spelling,
    belief: Belief<G>,
    player: SamplingPlayer,
    /// The turn the next PLAY or STOP should carry.
    turn: u64,
}

impl<G: Game, R: Deref<Target = G> + Send> BeliefSession<G, R> {
    /// A session at the game's initial state, for the role `role` spells in the match.
    pub fn new(game: R, id: &str, role: &Sx, spelling: Spelling, player: Kind, seed: u64) -> Result<Self, String> {
        let role = role_index(&*game, role, &spelling)?;
        if game.random_role() == Some(role) {
            return Err("the `random` role is played by the game manager, not by a player".to_string());
        }
        let belief = Belief::new(&*game, role, seed);
        let player = SamplingPlayer::new(player, seed.rotate_left(17));
        Ok(BeliefSession { game, id: id.to_string(), role, spelling, belief, player, turn: 0 })
    }

    /// The states the role considers possible, with their probabilities.
    pub fn belief(&self) -> &Belief<G> {
        &self.belief
    }

    /// Takes in what the manager reports after a step: the role's own move and its percepts.
    fn observe(&mut self, seen: &Seen, deadline: Instant) -> Result<(), String> {
        if seen.turn != self.turn {
            return Err(format!("expected turn {}, but the message says turn {}", self.turn, seen.turn));
        }
        let Some(sent) = &seen.last_move else {
            self.turn += 1;
            return Ok(());
        };
        let game = &*self.game;
        let text = self.spelling.to_game(sent).to_string();
        let own_move = game
            .parse_move(self.role, &text)
            .ok_or_else(|| format!("`{sent}` is not a move of role `{}`", self.role_name()))?;
        let mut percepts: Vec<String> = Vec::with_capacity(seen.percepts.len());
        for p in &seen.percepts {
            let text = self.spelling.to_game(p).to_string();
            // The game's spelling with single spaces: a game whose names keep their letter case
            // (as the player reads every game) perceives `(ROLLED 3)`, not `(rolled 3)`.
            let term = kif::parse_one(&text).map_err(|e| format!("the percept `{p}` is malformed: {e}"))?;
            percepts.push(term.to_string());
        }
        percepts.sort();
        percepts.dedup();
        self.turn += 1;
        if self.belief.update(game, &own_move, &percepts, deadline) == Update::PerceptsIgnored {
            eprintln!(
                "gdlc: match {}: no state the rules allow gives role {} the percepts {:?} after its move {}; \
                 they are ignored",
                self.id,
                self.role_name(),
                percepts,
                game.move_string(&own_move)
            );
        }
        Ok(())
    }

    fn role_name(&self) -> Sx {
        self.spelling.to_match(&atom(self.game.role_name(self.role)))
    }

    /// The role's move, chosen before `deadline`, in the match's spelling.
    fn choose(&mut self, deadline: Instant) -> Result<String, String> {
        let game = &*self.game;
        let mv = self
            .player
            .choose(game, &mut self.belief, self.role, deadline)
            .ok_or_else(|| "this role has no legal move in any state it considers possible".to_string())?;
        let text = game.move_string(&mv);
        let term = kif::parse_one(&text).map_err(|e| format!("the game printed a malformed move `{text}`: {e}"))?;
        Ok(self.spelling.to_match(&term).to_string())
    }

    /// Takes in a whole joint move (a GDL-I PLAY or STOP on a GDL-II game).
    fn observe_joint(&mut self, moves: &[Sx]) -> Result<(), String> {
        let game = &*self.game;
        if moves.len() != game.num_roles() {
            return Err(format!("expected {} moves, one per role, but got {}", game.num_roles(), moves.len()));
        }
        let mut joint = Vec::with_capacity(moves.len());
        for (role, sent) in moves.iter().enumerate() {
            let text = self.spelling.to_game(sent).to_string();
            joint.push(game.parse_move(role, &text).ok_or_else(|| format!("`{sent}` is not a move of this game"))?);
        }
        self.belief.observe_joint(game, &joint);
        self.turn += 1;
        Ok(())
    }
}

impl<G: Game, R: Deref<Target = G> + Send> MatchSession for BeliefSession<G, R> {
    fn play(&mut self, moves: Option<&[Sx]>, deadline: Instant) -> Result<String, String> {
        if let Some(moves) = moves {
            self.observe_joint(moves)?;
        }
        self.choose(deadline)
    }

    fn stop(&mut self, moves: Option<&[Sx]>) -> Result<(), String> {
        match moves {
            Some(moves) => self.observe_joint(moves),
            None => Ok(()),
        }
    }

    fn play_seen(&mut self, seen: &Seen, deadline: Instant) -> Result<String, String> {
        // Half of the time to the deadline at most goes to the belief, the rest to the search.
        let now = Instant::now();
        let update_deadline = now + deadline.saturating_duration_since(now) / 2;
        self.observe(seen, update_deadline)?;
        self.choose(deadline)
    }

    fn stop_seen(&mut self, seen: &Seen) -> Result<(), String> {
        self.observe(seen, Instant::now() + std::time::Duration::from_millis(100))
    }

    fn choose_again(&mut self, deadline: Instant) -> Result<String, String> {
        self.choose(deadline)
    }
}
