//! Real-time games (rtGDL, Kowalski and Kisielewicz 2016): the [`RealTimeGame`] interface that
//! the interpreter and the generated code of an rtGDL game implement, a deterministic
//! simulation of matches in game time ([`Simulation`]), random real-time playouts and their
//! benchmark.
//!
//! A state is a set of facts, each with a remaining lifetime ([`Time`], possibly `infinity`),
//! plus the facts that expired at the event that produced it. The state changes only at events:
//! when some roles move (any subset of the roles, at any time) or when a fact's lifetime runs
//! out. [`RealTimeGame::update`] is the paper's update function `u(t, M, S)`.

pub mod compiled;
mod time;

pub use time::Time;

use crate::bench::BenchResult;
use crate::rng::Rng;
use std::fmt::Debug;
use std::hash::Hash;
use std::ops::Deref;
use std::time::{Duration, Instant};

/// A real-time game over roles `0..num_roles()`.
///
/// Semantics (docs/rtgdl.md says why each choice was made):
/// - `update(state, t, moves)` first ages every fact by `t`: a fact whose lifetime is at most
///   `t` expires (it leaves the state and `(expired F)` holds), the others keep `lifetime - t`.
///   The next state is then every `(next T F)` derivable from the aged facts, the expired
///   facts and `(does r m)` for the roles that move; a fact derived with several lifetimes
///   keeps the longest.
/// - `(expired F)` holds in the state an expiry produced, for `legal`, `terminal` and `goal`,
///   until the next event (so `(<= terminal (expired timer))` ends the game when the timer
///   runs out).
/// - Moves and expiries at the same instant are one event.
pub trait RealTimeGame: Send + Sync {
    /// A state of the game: its facts with their remaining lifetimes, and the facts that
    /// expired at the event that produced it, in the implementation's own form.
    type State: Clone + Eq + Hash + Debug + Send + Sync;

    /// A move of one role, in the implementation's own form; [`RealTimeGame::move_string`]
    /// prints it and [`RealTimeGame::parse_move`] reads it back.
    type Move: Clone + Eq + Hash + Debug + Send + Sync;

    /// The number of roles; the roles are `0..num_roles()`, in the order of the game's `role`
    /// facts.
    fn num_roles(&self) -> usize;

    /// The name of role `role` (below [`RealTimeGame::num_roles`]) in canonical KIF.
    fn role_name(&self, role: usize) -> &str;

    /// The facts of the game's `init` with their lifetimes.
    fn initial_state(&self) -> Self::State;

    /// Replaces the contents of `out` with `role`'s legal moves in `state`, in the byte order
    /// of their canonical KIF (so that every implementation lists them alike).
    fn legal_moves(&self, state: &Self::State, role: usize, out: &mut Vec<Self::Move>);

    /// Whether `state` is terminal: the `terminal` relation holds in it, and the match is over.
    fn is_terminal(&self, state: &Self::State) -> bool;

    /// Every role's goal value in `state` (the largest the goal relation gives), in role order.
    fn goals(&self, state: &Self::State) -> Vec<Option<u32>>;

    /// The time until the first fact of `state` expires, `None` when every lifetime is
    /// infinite.
    fn next_expiry(&self, state: &Self::State) -> Option<Time>;

    /// The state `elapsed` after `state`'s event, with `moves[r]` played by the roles that
    /// move. `elapsed` must not pass [`RealTimeGame::next_expiry`]; the facts whose lifetime
    /// is exactly `elapsed` expire in this event.
    fn update(&self, state: &Self::State, elapsed: Time, moves: &[Option<Self::Move>]) -> Self::State;

    /// Every fact of `state` with its remaining lifetime, in the byte order of the facts'
    /// canonical KIF.
    fn timed_facts(&self, state: &Self::State) -> Vec<(String, Time)>;

    /// The facts that expired at the event that produced `state`, sorted.
    fn expired_facts(&self, state: &Self::State) -> Vec<String>;

    /// The canonical KIF of a move (`(press red)`, `noop`).
    fn move_string(&self, mv: &Self::Move) -> String;

    /// The move that `text` spells (any case and spacing), if `role` may ever play it.
    fn parse_move(&self, role: usize, text: &str) -> Option<Self::Move>;
}

/// The canonical text of a state: `(true LIFETIME FACT)` for every fact, then `(expired FACT)`
/// for every fact that just expired, separated by spaces.
pub fn state_string<G: RealTimeGame>(game: &G, state: &G::State) -> String {
    let mut parts: Vec<String> = game.timed_facts(state).into_iter().map(|(f, t)| format!("(true {t} {f})")).collect();
    parts.extend(game.expired_facts(state).into_iter().map(|f| format!("(expired {f})")));
    parts.join(" ")
}

/// Every role's legal moves as text, for comparisons and records.
pub fn legal_strings<G: RealTimeGame>(game: &G, state: &G::State) -> Vec<Vec<String>> {
    let mut moves = Vec::new();
    (0..game.num_roles())
        .map(|role| {
            game.legal_moves(state, role, &mut moves);
            moves.iter().map(|m| game.move_string(m)).collect()
        })
        .collect()
}

/// One event of a match: when it happened (game time since the start), what each role
/// played (`None` for the roles that did not move), what expired, and the state it produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// The game time of the event, since the start of the match.
    pub time: Time,
    /// Each role's move in canonical KIF, in role order; `None` for a role that did not move.
    pub moves: Vec<Option<String>>,
    /// The facts that expired at the event, sorted.
    pub expired: Vec<String>,
    /// The state the event produced, as [`state_string`] prints it.
    pub state: String,
}

/// A match in simulated game time: moves are given with the time they are made, expiries
/// fire at the exact time they are due, and nothing depends on a wall clock.
pub struct Simulation<G: RealTimeGame, R: Deref<Target = G>> {
    game: R,
    state: G::State,
    now: Time,
    events: Vec<Event>,
    /// The most events before [`Simulation::finish`] gives up on a game that never ends.
    pub max_events: usize,
}

impl<G: RealTimeGame, R: Deref<Target = G>> Simulation<G, R> {
    /// A match at the game's initial state, game time zero.
    pub fn new(game: R) -> Self {
        let state = game.initial_state();
        Simulation { game, state, now: Time::ZERO, events: Vec::new(), max_events: 100_000 }
    }

    /// The game the match is played in.
    pub fn game(&self) -> &G {
        &self.game
    }

    /// The current state: the one the last event produced, or the initial state.
    pub fn state(&self) -> &G::State {
        &self.state
    }

    /// The game time of the last event (zero before the first).
    pub fn now(&self) -> Time {
        self.now
    }

    /// Every event so far, in time order.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Whether the current state is terminal, which ends the match.
    pub fn is_terminal(&self) -> bool {
        self.game.is_terminal(&self.state)
    }

    /// When the next fact expires, in game time since the start.
    pub fn next_expiry_at(&self) -> Option<Time> {
        self.game.next_expiry(&self.state).map(|t| self.now.plus(t))
    }

    /// Performs the event at `at`: the given moves, and the expiries due exactly then.
    fn fire(&mut self, at: Time, moves: &[Option<G::Move>]) -> Result<(), String> {
        if self.is_terminal() {
            return Err("the match is over: the state is terminal".to_string());
        }
        if at < self.now {
            return Err(format!("an event at {at} comes before the last one, at {}", self.now));
        }
        if self.next_expiry_at().is_some_and(|e| at > e) {
            return Err(format!("an event at {at} skips the expiry due before it"));
        }
        self.state = self.game.update(&self.state, at.minus(self.now), moves);
        self.now = at;
        self.events.push(Event {
            time: at,
            moves: moves.iter().map(|m| m.as_ref().map(|m| self.game.move_string(m))).collect(),
            expired: self.game.expired_facts(&self.state),
            state: state_string(&*self.game, &self.state),
        });
        Ok(())
    }

    /// Fires every expiry due before `at` (and the one due exactly at `at` when `inclusive`),
    /// stopping at a terminal state.
    pub fn expire_until(&mut self, at: Time, inclusive: bool) -> Result<(), String> {
        let none = vec![None; self.game.num_roles()];
        while !self.is_terminal() {
            match self.next_expiry_at() {
                Some(e) if e < at || (inclusive && e == at) => self.fire(e, &none)?,
                _ => break,
            }
            if self.events.len() >= self.max_events {
                return Err(format!("the match passed {} events", self.max_events));
            }
        }
        Ok(())
    }

    /// Plays `moves` (role and move text) at `at`, after the expiries due before it; an
    /// expiry due exactly at `at` joins the moves' event. A move that is not legal at that
    /// moment is an error naming it.
    pub fn play(&mut self, at: Time, moves: &[(usize, &str)]) -> Result<(), String> {
        self.expire_until(at, false)?;
        if self.is_terminal() {
            return Err(format!("the match ended at {}, before the moves at {at}", self.now));
        }
        let mut joint = vec![None; self.game.num_roles()];
        let mut legal = Vec::new();
        for &(role, text) in moves {
            if role >= joint.len() {
                return Err(format!("role {role} is not a role of the game"));
            }
            self.game.legal_moves(&self.state, role, &mut legal);
            let mv = self.game.parse_move(role, text).filter(|m| legal.contains(m)).ok_or_else(|| {
                format!("`{text}` is not a legal move of role `{}` at {at}", self.game.role_name(role))
            })?;
            joint[role] = Some(mv);
        }
        self.fire(at, &joint)
    }

    /// Fires expiries until the state is terminal or no fact will ever expire; returns
    /// whether the state is terminal.
    pub fn finish(&mut self) -> Result<bool, String> {
        self.expire_until(Time::INFINITY, false)?;
        Ok(self.is_terminal())
    }
}

/// Plays a script of timed moves (game time, role, move text) from the initial state, moves
/// with equal times as one event, then lets the clock run until the game ends or nothing can
/// expire any more.
pub fn run_script<'g, G: RealTimeGame>(
    game: &'g G,
    script: &[(Time, usize, &str)],
) -> Result<Simulation<G, &'g G>, String> {
    let mut sorted = script.to_vec();
    sorted.sort_by_key(|&(t, r, _)| (t, r));
    let mut simulation = Simulation::new(game);
    let mut i = 0;
    while i < sorted.len() {
        let at = sorted[i].0;
        let group: Vec<(usize, &str)> = sorted[i..].iter().take_while(|m| m.0 == at).map(|m| (m.1, m.2)).collect();
        i += group.len();
        simulation.play(at, &group)?;
    }
    simulation.finish()?;
    Ok(simulation)
}

/// How random players pace their moves in game time: after every event, each role that has a
/// legal move picks one uniformly and a delay of `tick` times a uniform number in
/// `1..=max_ticks`; the earliest delays (and expiries) make the next event. Delays on a grid
/// make moves that coincide with each other and with expiries, so playouts exercise
/// simultaneous events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pacing {
    /// The grid of delays: a delay is a whole number of ticks.
    pub tick: Time,
    /// The most ticks a delay takes (a value of 0 counts as 1).
    pub max_ticks: u32,
}

impl Default for Pacing {
    /// A tick of 0.1 s and at most 20 ticks (a mean delay of 1.05 s).
    fn default() -> Self {
        Pacing { tick: Time::from_nanos(100_000_000), max_ticks: 20 }
    }
}

/// What a random playout reached.
#[derive(Clone, Debug)]
pub struct Playout<S> {
    /// The state the playout ended in.
    pub state: S,
    /// The number of events it played.
    pub events: usize,
    /// Game time of the last event.
    pub time: Time,
    /// Whether the state it ended in is terminal (rather than one in which nothing can happen
    /// any more, or the last of `max_events`).
    pub terminal: bool,
}

/// What [`random_playout`] calls after each event: the event's game time, moves and state.
pub type Observer<'a, G> = dyn FnMut(Time, &[Option<<G as RealTimeGame>::Move>], &<G as RealTimeGame>::State) + 'a;

/// Plays randomly from `state` until a terminal state, a state where nothing can ever happen
/// (no legal move and no finite lifetime), or `max_events` events; `observe` sees each event's
/// game time, moves and resulting state. The random numbers drawn depend only on the legal
/// move counts and the state's lifetimes, so two implementations of a game replay alike.
pub fn random_playout<G: RealTimeGame>(
    game: &G,
    state: &G::State,
    rng: &mut Rng,
    pacing: Pacing,
    max_events: usize,
    observe: &mut Observer<'_, G>,
) -> Playout<G::State> {
    let roles = game.num_roles();
    let mut state = state.clone();
    let mut now = Time::ZERO;
    let mut events = 0;
    let mut legal = Vec::new();
    let mut planned: Vec<Option<(Time, G::Move)>> = vec![None; roles];
    let mut joint: Vec<Option<G::Move>> = vec![None; roles];
    while events < max_events && !game.is_terminal(&state) {
        for (role, plan) in planned.iter_mut().enumerate() {
            game.legal_moves(&state, role, &mut legal);
            *plan = match legal.len() {
                0 => None,
                n => {
                    let mv = legal[if n == 1 { 0 } else { rng.below(n) }].clone();
                    let ticks = 1 + rng.below(pacing.max_ticks.max(1) as usize) as u64;
                    let delay = Time::from_nanos(pacing.tick.nanos().saturating_mul(ticks));
                    Some((delay, mv))
                }
            };
        }
        let first_move = planned.iter().flatten().map(|(t, _)| *t).min();
        let expiry = game.next_expiry(&state);
        let elapsed = match (first_move, expiry) {
            (None, None) => break,
            (Some(m), Some(e)) => m.min(e),
            (Some(t), None) | (None, Some(t)) => t,
        };
        for (slot, plan) in joint.iter_mut().zip(&planned) {
            *slot = plan.as_ref().filter(|(t, _)| *t == elapsed).map(|(_, m)| m.clone());
        }
        state = game.update(&state, elapsed, &joint);
        now = now.plus(elapsed);
        events += 1;
        observe(now, &joint, &state);
    }
    let terminal = game.is_terminal(&state);
    Playout { state, events, time: now, terminal }
}

/// The most events of one benchmark playout, so that a game that never ends is still measured.
pub const BENCH_MAX_EVENTS: usize = 10_000;

/// Random real-time playouts ([`random_playout`] with the default [`Pacing`]) for `duration`
/// on `threads` threads; state changes count events. A playout that reaches no terminal state
/// (nothing can happen any more, or [`BENCH_MAX_EVENTS`]) counts with the goals of its last
/// state.
pub fn bench<G: RealTimeGame>(game: &G, duration: Duration, threads: usize, seed: u64) -> BenchResult {
    let roles = (0..game.num_roles()).map(|r| game.role_name(r).to_string()).collect();
    crate::bench::run_on_threads(roles, duration, threads, seed, false, |deadline, seed| {
        let mut rng = Rng::seeded(seed);
        let initial = game.initial_state();
        let mut part = BenchResult::for_roles(vec![String::new(); game.num_roles()]);
        loop {
            let playout =
                random_playout(game, &initial, &mut rng, Pacing::default(), BENCH_MAX_EVENTS, &mut |_, _, _| {});
            part.state_changes += playout.events as u64;
            part.add_rollout(game.goals(&playout.state));
            if Instant::now() >= deadline {
                return part;
            }
        }
    })
}
