//! A match that `gdlc serve` plays through the interpreter, within limits: the game is loaded
//! within the start clock and a cap on facts, its initial state must be evaluated within them
//! too, and then every query costs a bounded time and memory. The session's own queries (the
//! moves it applies, its legal moves) share a play clock's budget per PLAY and report a limit
//! they go past; the search's queries each get a slice of it and take a limit for no
//! information. A game whose rules explode in its initial state is thus refused at START (one
//! that only needs more than the start clock is taken, and played once grounded, while its
//! grounding goes on); in a later state it answers with a move it knows, or gets an error
//! naming the limit and the relation; and the process and its other matches live on.

use gdl_player::player::{Kind, Player};
use gdl_player::rename::Spelling;
use gdl_player::server::think_time;
use gdl_player::session::{new_session, next_seed, role_index, MatchSession, Start};
use gdl_runtime::kif::{self, Sx};
use gdl_runtime::Game;
use gdlc::ast::Description;
use gdlc::interp::{Bounded, Exceeded, Interpreter, Limits, Move, State};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How many slices of a play clock's thinking time one query of the search may take.
const SEARCH_SLICES: u32 = 4;

/// Why the interpreter cannot play a match.
#[derive(Debug)]
pub(super) enum Unplayable {
    /// It could not load the game within the start clock and the cap on facts, or evaluate its
    /// initial state within the start clock: limits of START (a loaded machine's, where the
    /// clock ran out), which the game's program engine, once grounded, may well play within.
    NotReady(String),
    /// It loaded the game but cannot play it: its initial state alone derives more facts than
    /// the cap (as many atoms as no ground program of the game would be smaller than), or the
    /// role is not the game's, or a GDL-II match cannot begin.
    Refused(String),
}

impl std::fmt::Display for Unplayable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unplayable::NotReady(why) | Unplayable::Refused(why) => f.write_str(why),
        }
    }
}

/// The session of a match played through the interpreter, loaded by `deadline` with at most
/// `max_facts` facts per evaluation; an error says which limit the game went past.
pub(super) fn interpreter_session(
    description: &Description,
    start: &Start,
    player: Kind,
    deadline: Instant,
    max_facts: usize,
) -> Result<Box<dyn MatchSession>, Unplayable> {
    let limits = Limits { deadline: Some(deadline), max_facts: Some(max_facts) };
    let interpreter = Interpreter::with_limits(description, &limits).map_err(|e| {
        Unplayable::NotReady(format!(
            "the interpreter cannot load this game within the start clock and --max-facts {max_facts}: {e}"
        ))
    })?;
    let initial = interpreter.initial_state();
    let checked =
        interpreter.try_is_terminal(&initial, &limits).and_then(|_| interpreter.try_legal_moves(&initial, &limits));
    if let Err(e) = checked {
        let why =
            format!("the initial state cannot be evaluated within the start clock (--max-facts {max_facts}): {e}");
        return Err(match e {
            Exceeded::Deadline { .. } => Unplayable::NotReady(why),
            Exceeded::Facts { .. } => Unplayable::Refused(why),
        });
    }
    let per_query = (think_time(start.play_clock) / SEARCH_SLICES).max(Duration::from_millis(10));
    let game = Arc::new(Bounded::new(interpreter, per_query, max_facts));
    let spelling = Spelling::of_rules(start.rules);
    if game.is_gdl_ii() {
        return new_session(game, start, spelling, player).map_err(Unplayable::Refused);
    }
    let role = role_index(&*game, start.role, &spelling).map_err(Unplayable::Refused)?;
    let state = game.initial_state();
    let player = player.make::<Bounded>(next_seed());
    // Half of the thinking time, so that an evaluation stopped at its limit has time to be
    // dropped before the reply is due.
    let step_time = think_time(start.play_clock) / 2;
    Ok(Box::new(BoundedSession {
        game,
        role,
        state,
        legal: Legal::NotAsked,
        spelling,
        player,
        step_time,
        broken: None,
        note: String::new(),
    }))
}

/// What the session knows of the legal moves in its state.
enum Legal {
    /// Not asked yet.
    NotAsked,
    /// Every role's legal moves.
    Known(Vec<Vec<Move>>),
    /// Asked, and the query went past its limits: the manager's word is taken for them.
    Unknown,
}

/// A match of a game of complete information played through [`Bounded`].
struct BoundedSession {
    game: Arc<Bounded>,
    role: usize,
    state: State,
    /// Every role's legal moves in `state`, as far as they are known.
    legal: Legal,
    spelling: Spelling,
    player: Box<dyn Player<Bounded>>,
    /// How long the session's own queries of one PLAY may take together.
    step_time: Duration,
    /// Why the match cannot go on: a state that could not be computed within the limits.
    broken: Option<String>,
    /// What the last search ran into, for the log.
    note: String,
}

/// A match played through the interpreter may have derived millions of facts: its end gives
/// their memory back.
impl Drop for BoundedSession {
    fn drop(&mut self) {
        super::memory::trim_soon();
    }
}

impl BoundedSession {
    /// The limits of the session's own queries in a PLAY that starts now.
    fn step_limits(&self) -> Limits {
        Limits::within(self.step_time).with_max_facts(self.game.max_facts())
    }

    /// Applies a joint move in the match's spelling, checked against the legal moves when they
    /// can be computed within `limits` (else the manager's word is taken for it). As in
    /// [`BoundedSession::choose`], `terminal` is not asked.
    fn apply(&mut self, moves: &[Sx], limits: &Limits) -> Result<(), String> {
        let interpreter = self.game.interpreter();
        if moves.len() != interpreter.num_roles() {
            return Err(format!("expected {} moves, one per role, but got {}", interpreter.num_roles(), moves.len()));
        }
        let legal = match std::mem::replace(&mut self.legal, Legal::NotAsked) {
            Legal::Known(legal) => Some(legal),
            Legal::Unknown => None,
            // The check may take half of the budget; the next state needs the rest.
            Legal::NotAsked => interpreter.try_legal_moves(&self.state, &halfway(limits)).ok(),
        };
        let mut joint = Vec::with_capacity(moves.len());
        for (role, sent) in moves.iter().enumerate() {
            let text = self.spelling.to_game(sent).to_string();
            let known = |mv: &Move| legal.as_ref().is_none_or(|legal| legal[role].contains(mv));
            let mv = interpreter.parse_move(role, &text).filter(known).ok_or_else(|| {
                let name = Sx::Atom(interpreter.role_name(role).to_string());
                format!("`{sent}` is not a legal move of role `{}`", self.spelling.to_match(&name))
            })?;
            joint.push(mv);
        }
        match interpreter.try_next_state(&self.state, &joint, limits) {
            Ok(next) => {
                self.state = next;
                Ok(())
            }
            Err(e) => {
                let why = format!("the state after these moves cannot be computed within the limits: {e}");
                self.broken = Some(why.clone());
                Err(why)
            }
        }
    }

    /// This role's move in the current state: a search's, when the search finds a legal one
    /// before `deadline`, else the first legal move. Whether the state is terminal is not
    /// asked: a manager sends no PLAY in a terminal state, and `terminal` may be the query
    /// that explodes while the legal moves are known.
    fn choose(&mut self, deadline: Instant, limits: &Limits) -> Result<String, String> {
        let interpreter = self.game.interpreter();
        let legal = match std::mem::replace(&mut self.legal, Legal::Unknown) {
            Legal::Known(legal) => legal,
            Legal::Unknown => {
                return Err("no legal move is known: computing the legal moves went past the limits".into())
            }
            Legal::NotAsked => interpreter.try_legal_moves(&self.state, limits).map_err(|e| no_move_known(&e))?,
        };
        let own = legal.get(self.role).cloned().unwrap_or_default();
        self.legal = Legal::Known(legal);
        let Some(first) = own.first().cloned() else {
            return Err("this role has no legal move in the current state".to_string());
        };
        let mut chosen = first;
        if own.len() > 1 {
            self.game.set_until(Some(deadline));
            let _ = self.game.take_exceeded();
            if let Some(mv) = self.player.choose(&*self.game, &self.state, self.role, deadline) {
                if own.contains(&mv) {
                    chosen = mv;
                }
            }
            self.game.set_until(None);
            self.note =
                self.game.take_exceeded().map_or(String::new(), |e| format!("the search ran into a limit: {e}"));
        }
        let text = self.game.move_string(&chosen);
        let term = kif::parse_one(&text).map_err(|e| format!("the game printed a malformed move `{text}`: {e}"))?;
        Ok(self.spelling.to_match(&term).to_string())
    }
}

/// `limits` with half of the time to their deadline.
fn halfway(limits: &Limits) -> Limits {
    let now = Instant::now();
    let deadline = limits.deadline.map(|d| now + d.saturating_duration_since(now) / 2);
    Limits { deadline, ..*limits }
}

/// The error of a PLAY whose legal moves could not be computed.
fn no_move_known(e: &Exceeded) -> String {
    format!("no legal move is known: computing the legal moves went past the limits: {e}")
}

impl MatchSession for BoundedSession {
    fn play(&mut self, moves: Option<&[Sx]>, deadline: Instant) -> Result<String, String> {
        if let Some(why) = &self.broken {
            return Err(why.clone());
        }
        let limits = self.step_limits();
        if let Some(moves) = moves {
            self.apply(moves, &limits)?;
        }
        self.choose(deadline, &limits)
    }

    fn stop(&mut self, moves: Option<&[Sx]>) -> Result<(), String> {
        match moves {
            Some(moves) if self.broken.is_none() => self.apply(moves, &self.step_limits()),
            _ => Ok(()),
        }
    }

    fn choose_again(&mut self, deadline: Instant) -> Result<String, String> {
        if let Some(why) = &self.broken {
            return Err(why.clone());
        }
        self.choose(deadline, &self.step_limits())
    }

    fn set_cancel(&mut self, flag: Arc<AtomicBool>) {
        self.game.set_cancel(Some(Arc::clone(&flag)));
        self.player.set_cancel(flag);
    }

    fn work(&self) -> String {
        let work = self.player.work();
        match (work.is_empty(), self.note.is_empty()) {
            (_, true) => work,
            (true, false) => self.note.clone(),
            (false, false) => format!("{work}; {}", self.note),
        }
    }
}

#[cfg(test)]
mod tests {
    // A test reports a failure by panicking, so it unwraps too.
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A game of twenty cells whose one legal move is justified by any `arity` of them: its
    /// initial state derives 20 to the `arity` tuples, its loading no fact of the state.
    fn tuples(arity: usize) -> String {
        let cells: String = (1..=20).map(|n| format!("(init (cell {n})) ")).collect();
        let vars: Vec<String> = (0..arity).map(|k| format!("?v{k}")).collect();
        let body: String = vars.iter().map(|v| format!("(true (cell {v})) ")).collect();
        format!(
            "(role player) {cells}
             (<= (tuple {}) {body})
             (<= (legal player go) (tuple {}))
             (<= (next (cell ?x)) (true (cell ?x)) (true (cell 1)))
             (<= terminal (not (true (cell 1))))
             (goal player 100)",
            vars.join(" "),
            vars.join(" ")
        )
    }

    fn session_within(game: &str, clock: Duration, max_facts: usize) -> Result<Box<dyn MatchSession>, Unplayable> {
        let rules = kif::parse_all(game).unwrap();
        let description = crate::play::description_of(&rules).unwrap();
        let role = Sx::Atom("player".into());
        let start = Start { id: "m", role: &role, rules: &rules, start_clock: clock, play_clock: clock };
        interpreter_session(&description, &start, Kind::First, Instant::now() + clock, max_facts)
    }

    #[test]
    fn an_initial_state_past_the_start_clock_is_not_ready_rather_than_refused() {
        // 20^6 tuples are not derived in a tenth of a second: the match is taken while the game
        // is grounded, not refused at START.
        match session_within(&tuples(6), Duration::from_millis(100), usize::MAX) {
            Err(Unplayable::NotReady(why)) => assert!(why.contains("initial state"), "{why}"),
            Err(Unplayable::Refused(why)) => panic!("refused: {why}"),
            Ok(_) => panic!("20^6 tuples were derived within a tenth of a second"),
        }
    }

    #[test]
    fn an_initial_state_past_the_cap_on_facts_is_refused() {
        let clock = Duration::from_secs(10);
        match session_within(&tuples(3), clock, 1000) {
            Err(Unplayable::Refused(why)) => assert!(why.contains("initial state"), "{why}"),
            Err(Unplayable::NotReady(why)) => panic!("not ready: {why}"),
            Ok(_) => panic!("the initial state was evaluated within 1,000 facts"),
        }
        assert!(session_within(&tuples(3), clock, 100_000).is_ok());
    }
}
