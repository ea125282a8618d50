//! gdl-runtime: the core that gdlc's generated code links, with no dependencies. The [`Game`]
//! interface that both the generated code and the interpreter implement, with random playouts
//! ([`bench`]); what generated code computes with: state words ([`bits`], [`pair`]), the
//! random numbers of playouts ([`rng`]), canonical KIF ([`kif`]), the table form of large games
//! ([`program`]) and the top-down [`prover`] of relations deferred to run time; and the
//! real-time interface ([`realtime`]). Players, the GGP protocol and the per-game binaries'
//! command line are the gdl-player crate's.

pub mod bench;
pub mod bits;
pub mod kif;
pub mod pair;
pub mod program;
pub mod prover;
pub mod realtime;
pub mod rng;

use std::fmt::Debug;
use std::hash::Hash;

/// A game as a state machine over roles `0..num_roles()`.
///
/// Moves and states print as canonical KIF (`(mark 1 1)`, `noop`) through the `*_string`
/// methods, so every implementation can replay traces and talk to game managers.
pub trait Game: Send + Sync {
    type State: Clone + Eq + Hash + Debug + Send + Sync;
    type Move: Clone + Eq + Hash + Debug + Send + Sync;

    fn num_roles(&self) -> usize;
    fn role_name(&self, role: usize) -> &str;
    fn initial_state(&self) -> Self::State;

    /// Replaces the contents of `out` with `role`'s legal moves in `state`.
    fn legal_moves(&self, state: &Self::State, role: usize, out: &mut Vec<Self::Move>);

    /// Fills `out[r]` with role `r`'s legal moves; `out` is resized to the number of roles.
    fn all_legal_moves(&self, state: &Self::State, out: &mut Vec<Vec<Self::Move>>) {
        out.resize_with(self.num_roles(), Vec::new);
        for (role, moves) in out.iter_mut().enumerate() {
            self.legal_moves(state, role, moves);
        }
    }

    /// The state after every role plays its move of `joint` (one per role, in role order).
    fn next_state(&self, state: &Self::State, joint: &[Self::Move]) -> Self::State;

    fn is_terminal(&self, state: &Self::State) -> bool;

    /// `role`'s goal value in `state`: the largest value the goal relation gives it, or `None`
    /// when it gives none.
    fn goal(&self, state: &Self::State, role: usize) -> Option<u32>;

    /// Fills `out[r]` with role `r`'s goal value in `state`; a game that computes all goals at
    /// once overrides this.
    fn goals_into(&self, state: &Self::State, out: &mut [Option<u32>]) {
        for (role, goal) in out.iter_mut().enumerate().take(self.num_roles()) {
            *goal = self.goal(state, role);
        }
    }

    /// Every role's goal value in `state`, in role order.
    fn goals(&self, state: &Self::State) -> Vec<Option<u32>> {
        let mut goals = vec![None; self.num_roles()];
        self.goals_into(state, &mut goals);
        goals
    }

    /// One step of a uniformly random playout: `None` when `state` is terminal or some role has
    /// no legal move, else the state after every role plays a move drawn uniformly among its
    /// legal moves (in the order of [`Game::legal_moves`], with one `rng.below` per role that
    /// has several moves, in role order). A game that computes this faster overrides it, and
    /// must draw the same numbers and pick the same moves.
    fn random_step(&self, state: &Self::State, rng: &mut rng::Rng, scratch: &mut Playout<Self>) -> Option<Self::State>
    where
        Self: Sized,
    {
        if self.is_terminal(state) {
            return None;
        }
        self.all_legal_moves(state, &mut scratch.legal);
        scratch.joint.clear();
        for moves in &scratch.legal {
            let pick = match moves.len() {
                0 => return None,
                1 => 0,
                n => rng.below(n),
            };
            scratch.joint.push(moves[pick].clone());
        }
        Some(self.next_state(state, &scratch.joint))
    }

    /// The canonical KIF of every base fact true in `state`, sorted by byte order.
    fn state_facts(&self, state: &Self::State) -> Vec<String>;

    /// The canonical KIF of a move.
    fn move_string(&self, mv: &Self::Move) -> String;

    /// The move that `text` spells (any case and spacing), if the game has such a move term.
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

/// Plays uniformly random moves from `state` until a terminal state; returns the number of
/// state changes and fills `goals` with the final goal values (0 where undefined).
pub fn random_playout<G: Game>(
    game: &G,
    state: &G::State,
    rng: &mut rng::Rng,
    scratch: &mut Playout<G>,
    goals: &mut [u32],
) -> usize {
    let mut state = state.clone();
    let mut steps = 0;
    while let Some(next) = game.random_step(&state, rng, scratch) {
        state = next;
        steps += 1;
    }
    scratch.goals.resize(game.num_roles(), None);
    game.goals_into(&state, &mut scratch.goals);
    for (g, value) in goals.iter_mut().zip(&scratch.goals) {
        *g = value.unwrap_or(0);
    }
    steps
}

/// Buffers reused across playouts so that a playout allocates nothing of its own.
pub struct Playout<G: Game> {
    legal: Vec<Vec<G::Move>>,
    joint: Vec<G::Move>,
    goals: Vec<Option<u32>>,
}

impl<G: Game> Default for Playout<G> {
    fn default() -> Self {
        Playout { legal: Vec::new(), joint: Vec::new(), goals: Vec::new() }
    }
}
