//! Random playouts and the rewards they bring back. A playout runs to the end of the game
//! unless the clock stops it: past the search's deadline it is lost, and past its own time
//! limit (when playouts are too slow to finish) it is cut and scored as an unfinished game.

use gdl_runtime::rng::Rng;
use gdl_runtime::Game;
use std::time::{Duration, Instant};

/// The longest playout followed, so that a game that never ends cannot stall a search.
const MAX_PLAYOUT_STEPS: usize = 10_000;

/// The most playout steps that pass between two looks at the clock.
const STEPS_PER_CLOCK_CHECK: usize = 32;

/// A clock interval shorter than this lets the playout read the clock half as often, up to
/// every [`STEPS_PER_CLOCK_CHECK`] steps; a longer one has it read after every step.
const FAST_CLOCK_INTERVAL: Duration = Duration::from_micros(200);

/// The reward of a role whose goal a playout cut short does not define: halfway between losing
/// and winning, since the playout says nothing of how the game would have ended.
const UNKNOWN_REWARD: f64 = 0.5;

/// Every role's goal in `state`, which ends the game, as a reward in `0..=1` (an undefined goal
/// counts as 0, as a manager scores it).
pub(super) fn rewards<G: Game>(game: &G, state: &G::State) -> Vec<f64> {
    game.goals(state).iter().map(|g| g.map_or(0.0, reward)).collect()
}

/// Every role's reward in `state`, where a playout stopped before the game ended: its goal
/// where the game defines one in unfinished states (a score kept as the game goes, or a
/// penalty already incurred), else [`UNKNOWN_REWARD`].
pub(super) fn unfinished_rewards<G: Game>(game: &G, state: &G::State) -> Vec<f64> {
    game.goals(state).iter().map(|g| g.map_or(UNKNOWN_REWARD, reward)).collect()
}

/// A goal value as a reward in `0..=1`.
fn reward(goal: u32) -> f64 {
    f64::from(goal.min(100)) / 100.0
}

/// A playout's result.
pub(super) struct Playout {
    /// Every role's reward.
    pub(super) rewards: Vec<f64>,
    /// Whether the playout's own time limit stopped it before the game ended.
    pub(super) cut: bool,
}

/// A random playout from `state`; `None` when the deadline passed first.
pub(crate) fn playout<G: Game>(game: &G, state: &G::State, rng: &mut Rng, deadline: Instant) -> Option<Vec<f64>> {
    playout_until(game, state, &[], rng, deadline, deadline).map(|p| p.rewards)
}

/// A random playout from `state`, cut at `cut_at` and scored as unfinished if it is still
/// running then (and `cut_at` comes before `deadline`); `None` when the deadline passed first.
/// `known`, unless empty, holds every role's legal moves in `state`, which is then known not to
/// end the game (a node of the tree has them), so that a slow engine need not work them out
/// again: the first step draws among them as [`Game::random_step`] draws. Every other step is
/// the game's [`Game::random_step_into`], which generated straight-line code (and the lifted
/// form, where its queries share a step) answers in one evaluation of the state, where asking
/// whether it ends, for its legal moves and for the next state apart takes three.
/// The clock is read after every step while steps are slow (an interpreted game can take
/// milliseconds or more per step, and 32 of them would overrun the play clock) and only every
/// few steps while they are fast, so that a compiled game's playouts do not pay for it.
pub(super) fn playout_until<G: Game>(
    game: &G,
    state: &G::State,
    known: &[Vec<G::Move>],
    rng: &mut Rng,
    deadline: Instant,
    cut_at: Instant,
) -> Option<Playout> {
    let mut checked = Instant::now();
    if checked >= deadline {
        return None;
    }
    let mut scratch = gdl_runtime::Playout::<G>::default();
    let mut state = state.clone();
    let mut next = state.clone();
    let mut known = (!known.is_empty()).then_some(known);
    let (mut stride, mut until_check) = (1, 1);
    for _ in 0..MAX_PLAYOUT_STEPS {
        let stepped = match known.take() {
            Some(moves) => {
                let (_, joint) = scratch.move_buffers();
                gdl_runtime::draw_joint(moves, rng, joint).is_some_and(|()| {
                    next = game.next_state(&state, joint);
                    true
                })
            }
            None => game.random_step_into(&state, rng, &mut scratch, &mut next),
        };
        if !stepped {
            // The state is terminal, or some role has no legal move: the game ends in it.
            return Some(Playout { rewards: rewards(game, &state), cut: false });
        }
        std::mem::swap(&mut state, &mut next);
        until_check -= 1;
        if until_check == 0 {
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            if now >= cut_at {
                return Some(stopped_playout(game, &state, true));
            }
            stride = if now - checked < FAST_CLOCK_INTERVAL { (stride * 2).min(STEPS_PER_CLOCK_CHECK) } else { 1 };
            (until_check, checked) = (stride, now);
        }
    }
    Some(stopped_playout(game, &state, false))
}

/// The result of a playout stopped in `state` (cut by its clock, or past the most steps): the
/// goals if `state` is terminal, else the rewards of an unfinished game. A state that is not
/// terminal but where some role has no legal move, which a well-formed game never reaches, is
/// scored as unfinished here, where a playout that goes on scores it as ended: telling them
/// apart would cost an evaluation of the legal moves on every cut.
fn stopped_playout<G: Game>(game: &G, state: &G::State, cut: bool) -> Playout {
    if game.is_terminal(state) {
        return Playout { rewards: rewards(game, state), cut: false };
    }
    Playout { rewards: unfinished_rewards(game, state), cut }
}
