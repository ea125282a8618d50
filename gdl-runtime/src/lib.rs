//! gdl-runtime: the core that gdlc's generated code links, with no dependencies. The [`Game`]
//! interface that both the generated code and the interpreter implement, with random playouts
//! ([`bench`](mod@bench)); what generated code computes with: state words ([`bits`],
//! [`pair`]), the random numbers of playouts ([`rng`]), canonical KIF ([`kif`]), the table form
//! of large games ([`program`]), the lifted form of games too large to ground ([`lifted`]), and
//! the top-down [`prover`] of relations deferred to run time;
//! a game played from its ground program loaded at run time ([`engine`]); and the real-time
//! interface ([`realtime`]). Players, the GGP protocol and the per-game
//! binaries' command line are the gdl-player crate's.

// Every public item is documented, and this keeps it so under `cargo clippy -- -D warnings`.
#![warn(missing_docs)]

pub mod analysis;
pub mod bench;
pub mod bits;
pub mod engine;
mod joints;
pub mod kif;
pub mod lifted;
pub mod pair;
pub mod perft;
pub mod program;
pub mod prover;
pub mod realtime;
pub mod rng;

use std::fmt::Debug;
use std::hash::Hash;

/// A game as a state machine over roles `0..num_roles()`.
///
/// The roles are numbered in the order of the game's `role` facts. A match starts in
/// [`Game::initial_state`]. While the state is not terminal ([`Game::is_terminal`]), every role
/// plays one of its legal moves ([`Game::legal_moves`]) at the same time, and
/// [`Game::next_state`] gives the state after that joint move; in a turn-based game the roles
/// whose turn it is not have a single move such as `noop`. The goal values
/// ([`Game::goal`], [`Game::goals`]) of the terminal state are the outcome.
///
/// Every method is a function of its arguments alone: equal states give equal answers, so a
/// state can be kept, cloned, hashed and asked about again, from any thread. A method that is
/// given a role index must be given one below [`Game::num_roles`], and may panic otherwise.
///
/// Moves and states print as canonical KIF (`(mark 1 1)`, `noop`) through the `*_string`
/// methods, so every implementation can replay traces and talk to game managers.
///
/// The code gdlc generates for a game implements this trait, and so does gdlc's interpreter.
/// The provided methods are written with the required ones; an implementation overrides one
/// when it computes the same result faster.
///
/// # Examples
///
/// A tiny game written by hand, matching pennies over three rounds, and random playouts of it:
///
/// ```
/// use gdl_runtime::rng::Rng;
/// use gdl_runtime::{random_playout, Game, Playout};
///
/// /// Each round both roles show a side of a coin: `even` scores when the sides match, `odd`
/// /// when they differ. After three rounds, whoever scored two or more wins.
/// struct Pennies;
///
/// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// struct State {
///     round: u32,
///     even_points: u32,
/// }
///
/// #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// enum Side {
///     Heads,
///     Tails,
/// }
///
/// impl Game for Pennies {
///     type State = State;
///     type Move = Side;
///
///     fn num_roles(&self) -> usize {
///         2
///     }
///     fn role_name(&self, role: usize) -> &str {
///         ["even", "odd"][role]
///     }
///     fn initial_state(&self) -> State {
///         State { round: 0, even_points: 0 }
///     }
///     fn legal_moves(&self, state: &State, _role: usize, out: &mut Vec<Side>) {
///         out.clear();
///         if !self.is_terminal(state) {
///             out.extend([Side::Heads, Side::Tails]);
///         }
///     }
///     fn next_state(&self, state: &State, joint: &[Side]) -> State {
///         let matched = joint[0] == joint[1];
///         State { round: state.round + 1, even_points: state.even_points + u32::from(matched) }
///     }
///     fn is_terminal(&self, state: &State) -> bool {
///         state.round == 3
///     }
///     fn goal(&self, state: &State, role: usize) -> Option<u32> {
///         let points = if role == 0 { state.even_points } else { state.round - state.even_points };
///         Some(if points >= 2 { 100 } else { 0 })
///     }
///     fn state_facts(&self, state: &State) -> Vec<String> {
///         vec![format!("(points {})", state.even_points), format!("(round {})", state.round)]
///     }
///     fn move_string(&self, side: &Side) -> String {
///         match side {
///             Side::Heads => "(show heads)".to_string(),
///             Side::Tails => "(show tails)".to_string(),
///         }
///     }
///     fn parse_move(&self, _role: usize, text: &str) -> Option<Side> {
///         match gdl_runtime::kif::canonical(text).ok()?.as_str() {
///             "(show heads)" => Some(Side::Heads),
///             "(show tails)" => Some(Side::Tails),
///             _ => None,
///         }
///     }
/// }
///
/// // A random playout by hand: every role's legal moves, one uniform pick per role, the next
/// // state, until the state is terminal.
/// let game = Pennies;
/// let mut rng = Rng::seeded(42);
/// let mut state = game.initial_state();
/// let mut legal = Vec::new();
/// while !game.is_terminal(&state) {
///     game.all_legal_moves(&state, &mut legal);
///     let joint: Vec<Side> = legal.iter().map(|moves| moves[rng.below(moves.len())]).collect();
///     state = game.next_state(&state, &joint);
/// }
/// assert_eq!(state.round, 3);
/// let goals = game.goals(&state);
/// assert_eq!(goals.len(), 2);
/// assert_eq!(goals[0].unwrap() + goals[1].unwrap(), 100, "one role wins");
///
/// // The same through the library, which reuses its buffers from one playout to the next.
/// let mut scratch = Playout::default();
/// let mut final_goals = [0; 2];
/// let steps = random_playout(&game, &game.initial_state(), &mut rng, &mut scratch, &mut final_goals);
/// assert_eq!(steps, 3);
/// assert_eq!(final_goals[0] + final_goals[1], 100);
///
/// // Two generators seeded alike make the same playout, step by step.
/// let (mut a, mut b) = (Rng::seeded(7), Rng::seeded(7));
/// let (mut pa, mut pb) = (Playout::default(), Playout::default());
/// let (mut sa, mut sb) = (game.initial_state(), game.initial_state());
/// while let Some(next) = game.random_step(&sa, &mut a, &mut pa) {
///     sb = game.random_step(&sb, &mut b, &mut pb).unwrap();
///     assert_eq!(next, sb);
///     sa = next;
/// }
///
/// // Moves are read in any case and spacing, and printed in canonical KIF.
/// let heads = game.parse_move(0, "( SHOW  Heads )").unwrap();
/// assert_eq!(game.move_string(&heads), "(show heads)");
/// assert_eq!(game.parse_move(0, "(show edge)"), None);
/// ```
pub trait Game: Send + Sync {
    /// A state of the game: the set of base facts that hold in it, in the implementation's own
    /// form. Equal states are the same state, so players key search trees and belief states by
    /// it; [`Game::state_facts`] prints it.
    type State: Clone + Eq + Hash + Debug + Send + Sync + 'static;

    /// A move of one role, in the implementation's own form; [`Game::move_string`] prints it
    /// and [`Game::parse_move`] reads it back. Legal moves are compared with `==`.
    type Move: Clone + Eq + Hash + Debug + Send + Sync + 'static;

    /// The number of roles, at least one; the roles are `0..num_roles()`.
    fn num_roles(&self) -> usize;

    /// The name of role `role` as the game's `role` fact spells it, in canonical KIF
    /// (`xplayer`, `random`).
    fn role_name(&self, role: usize) -> &str;

    /// The state that the game's `init` facts make, in which every match starts.
    fn initial_state(&self) -> Self::State;

    /// Replaces the contents of `out` with `role`'s legal moves in `state`, each once, in an
    /// order that depends only on the state (the implementation's own order of moves: a trace
    /// sorts their texts to compare implementations). The list is empty when the rules give the
    /// role no legal move; in a terminal state it is whatever the rules give, and players do
    /// not ask.
    fn legal_moves(&self, state: &Self::State, role: usize, out: &mut Vec<Self::Move>);

    /// Fills `out[r]` with role `r`'s legal moves in `state`, as [`Game::legal_moves`] gives
    /// them; `out` is resized to the number of roles, and its vectors are reused. A game that
    /// computes every role's moves at once overrides this.
    fn all_legal_moves(&self, state: &Self::State, out: &mut Vec<Vec<Self::Move>>) {
        out.resize_with(self.num_roles(), Vec::new);
        for (role, moves) in out.iter_mut().enumerate() {
            self.legal_moves(state, role, moves);
        }
    }

    /// The state after every role plays its move of `joint` in `state`: `joint` holds one move
    /// per role, in role order, each legal for its role in `state`, which is not terminal. What
    /// a joint move that breaks this gives is unspecified (an implementation may panic).
    fn next_state(&self, state: &Self::State, joint: &[Self::Move]) -> Self::State;

    /// Whether `state` is terminal, that is whether the `terminal` relation holds in it: the
    /// match is over, and the goal values are its outcome.
    fn is_terminal(&self, state: &Self::State) -> bool;

    /// `role`'s goal value in `state`: the largest value the goal relation gives it (GDL's goal
    /// values lie in `0..=100`), or `None` when it gives none. A well-formed game gives every
    /// role one value in every terminal state; other states may give any.
    fn goal(&self, state: &Self::State, role: usize) -> Option<u32>;

    /// Fills `out[r]` with role `r`'s goal value in `state`, as [`Game::goal`] gives it, for
    /// the first [`Game::num_roles`] entries of `out`; a game that computes all goals at once
    /// overrides this.
    fn goals_into(&self, state: &Self::State, out: &mut [Option<u32>]) {
        for (role, goal) in out.iter_mut().enumerate().take(self.num_roles()) {
            *goal = self.goal(state, role);
        }
    }

    /// Replaces the contents of `out` with every goal value the goal relation gives `role` in
    /// `state`, sorted and each once, and answers whether the list is complete. The provided
    /// method gives [`Game::goal`]'s largest value alone and answers `false`; an implementation
    /// that can tell every value overrides it, which is how [`analysis`] finds a role with two
    /// goal values.
    fn goal_values(&self, state: &Self::State, role: usize, out: &mut Vec<u32>) -> bool {
        out.clear();
        out.extend(self.goal(state, role));
        false
    }

    /// Every role's goal value in `state`, in role order: a vector of [`Game::num_roles`]
    /// entries, as [`Game::goal`] gives them.
    fn goals(&self, state: &Self::State) -> Vec<Option<u32>> {
        let mut goals = vec![None; self.num_roles()];
        self.goals_into(state, &mut goals);
        goals
    }

    /// One step of a uniformly random playout: `None` when `state` is terminal or some role has
    /// no legal move, else the state after every role plays a move drawn uniformly among its
    /// legal moves (in the order of [`Game::legal_moves`], with one `rng.below` per role that
    /// has several moves, in role order). `scratch` holds the buffers it reuses. A game that
    /// computes this faster overrides it, and must draw the same numbers and pick the same
    /// moves, so that a seed gives the same playout through every implementation.
    fn random_step(&self, state: &Self::State, rng: &mut rng::Rng, scratch: &mut Playout<Self>) -> Option<Self::State>
    where
        Self: Sized,
    {
        if self.is_terminal(state) {
            return None;
        }
        self.all_legal_moves(state, &mut scratch.legal);
        draw_joint(&scratch.legal, rng, &mut scratch.joint)?;
        Some(self.next_state(state, &scratch.joint))
    }

    /// [`Game::random_step`] written into `out`: `false` (and `out` as it was) when `state` is
    /// terminal or some role has no legal move, else `true` with the next state in `out`. A
    /// playout alternates two states with it, so that a large state is written once a step
    /// rather than built and then moved; generated games override it, and the default moves
    /// the result of [`Game::random_step`].
    fn random_step_into(
        &self,
        state: &Self::State,
        rng: &mut rng::Rng,
        scratch: &mut Playout<Self>,
        out: &mut Self::State,
    ) -> bool
    where
        Self: Sized,
    {
        match self.random_step(state, rng, scratch) {
            Some(next) => {
                *out = next;
                true
            }
            None => false,
        }
    }

    /// The canonical KIF of every base fact true in `state` (`(cell 1 1 x)`, without the
    /// `true`), each once, sorted by byte order. Two implementations of a game agree on it
    /// state by state, which is how traces compare them.
    fn state_facts(&self, state: &Self::State) -> Vec<String>;

    /// The canonical KIF of a move (`(mark 1 1)`, `noop`): lower case, single spaces, without
    /// the role. [`Game::parse_move`] reads it back to the same move.
    fn move_string(&self, mv: &Self::Move) -> String;

    /// The move that `text` spells (any case and spacing), if the game has such a move term;
    /// an implementation may also answer `None` for a term that `role` never plays. The move
    /// need not be legal in any particular state: callers check it against
    /// [`Game::legal_moves`].
    fn parse_move(&self, role: usize, text: &str) -> Option<Self::Move>;

    /// Whether the game is written in GDL-II: it has `sees` rules or a `random` role, so that
    /// each player learns only its own move and its percepts after every step (the GDL-II form
    /// of PLAY and STOP) rather than the whole joint move.
    fn is_gdl_ii(&self) -> bool {
        false
    }

    /// The GDL-II `random` role, if the game has one: the game manager plays it, drawing its
    /// move uniformly among its legal moves, and no player is ever given it.
    fn random_role(&self) -> Option<usize> {
        None
    }

    /// Replaces the contents of `out` with what `role` perceives on the step from `state` by
    /// `joint` (the `sees` relation, computed from the current state and the joint move as
    /// `next` is): each percept in canonical KIF (`(rolled 2)`), sorted by byte order, without
    /// repeats. A game without `sees` rules gives no percepts.
    fn percepts(&self, state: &Self::State, joint: &[Self::Move], role: usize, out: &mut Vec<String>) {
        let _ = (state, joint, role);
        out.clear();
    }

    /// Fills `out[r]` with role `r`'s percepts on the step from `state` by `joint`, as
    /// [`Game::percepts`] gives them; `out` is resized to the number of roles. A game that
    /// computes every role's percepts at once overrides this.
    fn all_percepts(&self, state: &Self::State, joint: &[Self::Move], out: &mut Vec<Vec<String>>) {
        out.resize_with(self.num_roles(), Vec::new);
        for (role, percepts) in out.iter_mut().enumerate() {
            self.percepts(state, joint, role, percepts);
        }
    }
}

/// Plays uniformly random moves from `state`, step by step with [`Game::random_step_into`], until a
/// terminal state (or one in which some role has no legal move); returns the number of steps
/// and fills `goals` (one entry per role, in role order) with the goal values of the state it
/// reached, 0 where the game defines none.
pub fn random_playout<G: Game>(
    game: &G,
    state: &G::State,
    rng: &mut rng::Rng,
    scratch: &mut Playout<G>,
    goals: &mut [u32],
) -> usize {
    let (mut first, mut second) = (state.clone(), state.clone());
    let (mut state, mut next) = (&mut first, &mut second);
    let mut steps = 0;
    while game.random_step_into(state, rng, scratch, next) {
        std::mem::swap(&mut state, &mut next);
        steps += 1;
    }
    scratch.goals.resize(game.num_roles(), None);
    game.goals_into(state, &mut scratch.goals);
    for (g, value) in goals.iter_mut().zip(&scratch.goals) {
        *g = value.unwrap_or(0);
    }
    steps
}

/// Buffers reused across playouts so that a playout allocates nothing of its own: make one with
/// `Playout::default()` and hand it to every [`Game::random_step`] and [`random_playout`] of a
/// thread.
pub struct Playout<G: Game> {
    legal: Vec<Vec<G::Move>>,
    joint: Vec<G::Move>,
    goals: Vec<Option<u32>>,
}

/// Draws every role's move among its legal moves `legal` into `joint`, as
/// [`Game::random_step`] draws them (one `rng.below` per role with several, in role order);
/// `None` when a role has none.
pub fn draw_joint<M: Clone>(legal: &[Vec<M>], rng: &mut rng::Rng, joint: &mut Vec<M>) -> Option<()> {
    joint.clear();
    for moves in legal {
        let pick = match moves.len() {
            0 => return None,
            1 => 0,
            n => rng.below(n),
        };
        joint.push(moves[pick].clone());
    }
    Some(())
}

impl<G: Game> Playout<G> {
    /// The buffers of every role's legal moves and of the joint move, for a game whose own
    /// `random_step` fills them (a lifted game's module delegates to its runtime's step).
    pub fn move_buffers(&mut self) -> (&mut Vec<Vec<G::Move>>, &mut Vec<G::Move>) {
        (&mut self.legal, &mut self.joint)
    }
}

impl<G: Game> Default for Playout<G> {
    fn default() -> Self {
        Playout { legal: Vec::new(), joint: Vec::new(), goals: Vec::new() }
    }
}
