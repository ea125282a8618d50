//! The player for games of imperfect information (GDL-II): it does not know the state, only a
//! [`Belief`] of the states consistent with its own moves and percepts, so it searches over
//! states sampled from it. Each iteration draws a state by its probability, picks one of the
//! role's moves by UCB1 over statistics kept for the role's moves across all draws (the choice
//! cannot depend on the hidden state), plays the other roles' moves at random and a random
//! playout to the end, and credits the role's goal to its move. It answers with the move it
//! tried most when the deadline comes.

use super::mcts::{best_index, playout};
use super::Kind;
use crate::belief::Belief;
use gdl_runtime::rng::Rng;
use gdl_runtime::Game;
use std::time::Instant;

/// UCB1's exploration constant, for rewards in `0..=1`.
const EXPLORATION: f64 = 1.4;

/// The player of GDL-II games (see the module's documentation). It chooses from a [`Belief`]
/// rather than from a state, so it is not a [`Player`](super::Player).
pub struct SamplingPlayer {
    kind: Kind,
    rng: Rng,
    /// The number of completed iterations of the last search, for tests and diagnostics.
    pub last_iterations: u64,
}

/// The role's statistics for one of its moves.
#[derive(Clone, Copy, Default)]
struct Stat {
    visits: u32,
    total: f64,
}

impl SamplingPlayer {
    /// A player that searches (`Kind::Mcts`) or picks uniformly among the moves it knows to be
    /// legal (`Kind::Random`).
    pub fn new(kind: Kind, seed: u64) -> SamplingPlayer {
        SamplingPlayer { kind, rng: Rng::seeded(seed), last_iterations: 0 }
    }

    /// One of `role`'s moves that are legal in the states `belief` holds, chosen before
    /// `deadline`; `None` when it has none.
    pub fn choose<G: Game>(
        &mut self,
        game: &G,
        belief: &mut Belief<G>,
        role: usize,
        deadline: Instant,
    ) -> Option<G::Move> {
        self.last_iterations = 0;
        let mut moves = belief.legal_moves(game);
        if moves.len() <= 1 || self.kind == Kind::Random {
            return (!moves.is_empty()).then(|| moves.swap_remove(self.rng.below(moves.len())));
        }
        let mut stats = vec![Stat::default(); moves.len()];
        let (mut legal, mut joint) = (Vec::new(), Vec::new());
        while Instant::now() < deadline {
            let Some(state) = belief.sample().cloned() else { break };
            let pick = select(&stats, &mut self.rng);
            if game.is_terminal(&state) {
                break;
            }
            game.all_legal_moves(&state, &mut legal);
            if legal.iter().any(Vec::is_empty) || !legal[role].contains(&moves[pick]) {
                // A state in which the move is not legal (an ill-formed game): no information.
                self.last_iterations += 1;
                continue;
            }
            joint.clear();
            for (r, options) in legal.iter().enumerate() {
                joint.push(if r == role {
                    moves[pick].clone()
                } else {
                    options[self.rng.below(options.len())].clone()
                });
            }
            let next = game.next_state(&state, &joint);
            let Some(rewards) = playout(game, &next, &mut self.rng, deadline) else { break };
            stats[pick].visits += 1;
            stats[pick].total += rewards.get(role).copied().unwrap_or(0.0);
            self.last_iterations += 1;
        }
        let best = best_index(&stats, &mut self.rng, |a, b| {
            let mean = |s: &Stat| if s.visits == 0 { 0.0 } else { s.total / f64::from(s.visits) };
            a.visits.cmp(&b.visits).then(mean(a).total_cmp(&mean(b)))
        });
        best.map(|i| moves.swap_remove(i))
    }
}

/// The move index that UCB1 picks, trying every move once first; ties are broken at random.
fn select(stats: &[Stat], rng: &mut Rng) -> usize {
    let visits: u32 = stats.iter().map(|s| s.visits).sum();
    let log = f64::from(visits.max(1)).ln();
    let score = |s: &Stat| {
        if s.visits == 0 {
            return f64::INFINITY;
        }
        s.total / f64::from(s.visits) + EXPLORATION * (log / f64::from(s.visits)).sqrt()
    };
    best_index(stats, rng, |a, b| score(a).total_cmp(&score(b))).unwrap_or(0)
}
