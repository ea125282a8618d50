//! Belief states for games of imperfect information (GDL-II): the states a player cannot tell
//! apart, given its own moves and its percepts, each with its probability when the `random`
//! role and the other players move uniformly at random. The set is kept exactly while it is
//! small; past [`MAX_EXACT_STATES`] states (or too much work for one step) it becomes a sample
//! of [`PARTICLES`] states, updated by rejection: a sampled state and a random joint move with
//! the player's own move are kept when they give the percepts the player saw.

use gdl_runtime::rng::Rng;
use gdl_runtime::Game;
use std::collections::HashMap;
use std::time::Instant;

/// The most states kept exactly.
pub const MAX_EXACT_STATES: usize = 4096;

/// The most transitions (state and joint move) one exact update examines before it turns to
/// sampling.
pub const MAX_EXACT_TRANSITIONS: usize = 200_000;

/// The number of sampled states kept once the set is too large to keep exactly.
pub const PARTICLES: usize = 512;

/// How many draws an update by sampling makes per state it keeps, at most.
const DRAWS_PER_PARTICLE: usize = 64;

/// How many joint moves a regeneration from the start tries at each step before it gives up
/// on the path.
const TRIES_PER_STEP: usize = 32;

/// How an update went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Update {
    /// Every consistent state is kept, with its probability.
    Exact,
    /// The set is a sample of the consistent states.
    Sampled,
    /// No state that the player could reach was found consistent with its move and percepts
    /// (the percepts contradict the rules, or sampling found none in time): the percepts were
    /// ignored, and the set holds the states its move leads to.
    PerceptsIgnored,
}

/// The states one role of a GDL-II match considers possible.
pub struct Belief<G: Game> {
    role: usize,
    /// The states with their probabilities (summing to 1), without repeats while exact; the
    /// particles, each of weight 1/n and possibly repeated, while sampled.
    states: Vec<(G::State, f64)>,
    exact: bool,
    /// The role's own move and its percepts at every step so far, to sample the states afresh
    /// when the sample dies out.
    history: Vec<(G::Move, Vec<String>)>,
    rng: Rng,
}

impl<G: Game> Belief<G> {
    /// The belief at the start of a match: the initial state, known for certain.
    pub fn new(game: &G, role: usize, seed: u64) -> Belief<G> {
        Belief {
            role,
            states: vec![(game.initial_state(), 1.0)],
            exact: true,
            history: Vec::new(),
            rng: Rng::seeded(seed),
        }
    }

    /// The states considered possible, with their probabilities.
    pub fn states(&self) -> &[(G::State, f64)] {
        &self.states
    }

    /// Whether [`Belief::states`] holds every consistent state rather than a sample.
    pub fn is_exact(&self) -> bool {
        self.exact
    }

    /// A state drawn by probability.
    pub fn sample(&mut self) -> Option<&G::State> {
        let index = draw(&self.states, &mut self.rng)?;
        Some(&self.states[index].0)
    }

    /// The moves `role` may play: those legal in every state considered possible (in a
    /// well-formed GDL-II game a player always knows its legal moves, so they are the same in
    /// all), else those legal in the most likely state.
    pub fn legal_moves(&self, game: &G) -> Vec<G::Move> {
        let mut moves: Option<Vec<G::Move>> = None;
        let mut legal = Vec::new();
        for (state, _) in &self.states {
            game.legal_moves(state, self.role, &mut legal);
            match &mut moves {
                None => moves = Some(legal.clone()),
                Some(common) => common.retain(|m| legal.contains(m)),
            }
        }
        match moves {
            Some(common) if !common.is_empty() => common,
            _ => {
                let likeliest = self.states.iter().max_by(|a, b| a.1.total_cmp(&b.1));
                likeliest
                    .map(|(state, _)| {
                        game.legal_moves(state, self.role, &mut legal);
                        legal.clone()
                    })
                    .unwrap_or_default()
            }
        }
    }

    /// Takes in a step of the match in which the role played `own_move` and perceived
    /// `percepts` (canonical KIF, sorted, without repeats), working until `deadline` at most.
    pub fn update(&mut self, game: &G, own_move: &G::Move, percepts: &[String], deadline: Instant) -> Update {
        self.history.push((own_move.clone(), percepts.to_vec()));
        if self.exact {
            if let Some(states) = self.exact_update(game, own_move, percepts, deadline) {
                if !states.is_empty() {
                    self.states = states;
                    return Update::Exact;
                }
            } else {
                // Too many states or too much work: sample the set as it was, then go on
                // sampling.
                self.states = self.resample(PARTICLES);
                self.exact = false;
            }
        }
        if !self.exact {
            let particles = self.sampled_update(game, own_move, percepts, deadline);
            if !particles.is_empty() {
                self.states = particles;
                return Update::Sampled;
            }
            let particles = self.regenerate(game, deadline);
            if !particles.is_empty() {
                self.states = particles;
                return Update::Sampled;
            }
        }
        self.states = self.ignore_percepts(game, own_move);
        self.exact = false;
        Update::PerceptsIgnored
    }

    /// Takes in a step whose whole joint move is known (a GDL-I message on a GDL-II game):
    /// the states in which it is legal, moved on by it.
    pub fn observe_joint(&mut self, game: &G, joint: &[G::Move]) {
        let mut legal = Vec::new();
        let mut next: Vec<(G::State, f64)> = Vec::new();
        let mut index: HashMap<G::State, usize> = HashMap::new();
        for (state, weight) in &self.states {
            if game.is_terminal(state) {
                continue;
            }
            game.all_legal_moves(state, &mut legal);
            if legal.len() != joint.len() || !legal.iter().zip(joint).all(|(moves, m)| moves.contains(m)) {
                continue;
            }
            add(&mut next, &mut index, game.next_state(state, joint), *weight, self.exact);
        }
        let mut percepts = Vec::new();
        if let Some((state, _)) = self.states.first() {
            game.percepts(state, joint, self.role, &mut percepts);
        }
        self.history.push((joint[self.role].clone(), percepts));
        if next.is_empty() {
            self.states = self.ignore_percepts(game, &joint[self.role]);
        } else {
            normalize(&mut next);
            self.states = next;
        }
    }

    /// Every successor of every state by a joint move with `own_move` that gives `percepts`,
    /// weighted by the probability of the other roles' moves; `None` when there are more than
    /// [`MAX_EXACT_STATES`] of them or the work goes past [`MAX_EXACT_TRANSITIONS`] or the
    /// deadline.
    fn exact_update(
        &self,
        game: &G,
        own_move: &G::Move,
        percepts: &[String],
        deadline: Instant,
    ) -> Option<Vec<(G::State, f64)>> {
        let mut next: Vec<(G::State, f64)> = Vec::new();
        let mut index: HashMap<G::State, usize> = HashMap::new();
        let (mut legal, mut seen, mut joint) = (Vec::new(), Vec::new(), Vec::new());
        let mut transitions = 0usize;
        for (state, weight) in &self.states {
            if game.is_terminal(state) {
                continue;
            }
            game.all_legal_moves(state, &mut legal);
            if !legal[self.role].contains(own_move) || legal.iter().any(Vec::is_empty) {
                continue;
            }
            legal[self.role] = vec![own_move.clone()];
            let combinations: usize = legal.iter().map(Vec::len).product();
            transitions += combinations;
            if transitions > MAX_EXACT_TRANSITIONS || Instant::now() >= deadline {
                return None;
            }
            let probability = weight / combinations as f64;
            // Every joint move, as an odometer over the roles' move lists.
            let mut digits = vec![0usize; legal.len()];
            loop {
                joint.clear();
                joint.extend(digits.iter().zip(&legal).map(|(&d, moves)| moves[d].clone()));
                game.percepts(state, &joint, self.role, &mut seen);
                if seen == percepts {
                    add(&mut next, &mut index, game.next_state(state, &joint), probability, true);
                    if next.len() > MAX_EXACT_STATES {
                        return None;
                    }
                }
                let Some(role) = (0..digits.len()).find(|&r| digits[r] + 1 < legal[r].len()) else { break };
                digits[role] += 1;
                digits[..role].iter_mut().for_each(|d| *d = 0);
            }
        }
        normalize(&mut next);
        Some(next)
    }

    /// Draws states by probability and a joint move each (the role's own move, the others
    /// uniformly), keeping the successors that give `percepts`, until [`PARTICLES`] are kept,
    /// the draws run out or the deadline passes.
    fn sampled_update(
        &mut self,
        game: &G,
        own_move: &G::Move,
        percepts: &[String],
        deadline: Instant,
    ) -> Vec<(G::State, f64)> {
        let mut kept = Vec::new();
        let (mut legal, mut seen, mut joint) = (Vec::new(), Vec::new(), Vec::new());
        for draws in 0..PARTICLES * DRAWS_PER_PARTICLE {
            if kept.len() >= PARTICLES || (draws % 64 == 0 && Instant::now() >= deadline) {
                break;
            }
            let Some(index) = draw(&self.states, &mut self.rng) else { break };
            let state = &self.states[index].0;
            if !random_joint(game, state, self.role, own_move, &mut self.rng, &mut legal, &mut joint) {
                continue;
            }
            game.percepts(state, &joint, self.role, &mut seen);
            if seen == percepts {
                kept.push(game.next_state(state, &joint));
            }
        }
        let weight = 1.0 / kept.len().max(1) as f64;
        kept.into_iter().map(|s| (s, weight)).collect()
    }

    /// Samples the states afresh from the initial state, replaying the role's moves and
    /// percepts step by step with random moves of the other roles (a few tries per step), for
    /// when no sampled state survives an update.
    fn regenerate(&mut self, game: &G, deadline: Instant) -> Vec<(G::State, f64)> {
        let mut kept = Vec::new();
        let (mut legal, mut seen, mut joint) = (Vec::new(), Vec::new(), Vec::new());
        let history = std::mem::take(&mut self.history);
        'paths: for _ in 0..PARTICLES * 4 {
            if kept.len() >= PARTICLES || Instant::now() >= deadline {
                break;
            }
            let mut state = game.initial_state();
            for (own_move, percepts) in &history {
                let mut found = false;
                for _ in 0..TRIES_PER_STEP {
                    if !random_joint(game, &state, self.role, own_move, &mut self.rng, &mut legal, &mut joint) {
                        continue 'paths;
                    }
                    game.percepts(&state, &joint, self.role, &mut seen);
                    if seen == *percepts {
                        found = true;
                        break;
                    }
                }
                if !found {
                    continue 'paths;
                }
                state = game.next_state(&state, &joint);
            }
            kept.push(state);
        }
        self.history = history;
        let weight = 1.0 / kept.len().max(1) as f64;
        kept.into_iter().map(|s| (s, weight)).collect()
    }

    /// The successors of the states by `own_move` and random moves of the other roles,
    /// whatever they give to perceive; the initial state moved on when even that finds none.
    fn ignore_percepts(&mut self, game: &G, own_move: &G::Move) -> Vec<(G::State, f64)> {
        let (mut legal, mut joint) = (Vec::new(), Vec::new());
        let mut next = Vec::new();
        let states = std::mem::take(&mut self.states);
        for (state, _) in states.iter().take(PARTICLES) {
            if random_joint(game, state, self.role, own_move, &mut self.rng, &mut legal, &mut joint) {
                next.push(game.next_state(state, &joint));
            }
        }
        if next.is_empty() {
            // Not even the role's own move is legal in a state believed possible: keep the
            // states as they were, so that the player still has legal moves to choose from.
            return states;
        }
        let weight = 1.0 / next.len() as f64;
        next.into_iter().map(|s| (s, weight)).collect()
    }

    /// `n` states drawn by probability, each of weight 1/n.
    fn resample(&mut self, n: usize) -> Vec<(G::State, f64)> {
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let Some(index) = draw(&self.states, &mut self.rng) else { break };
            out.push((self.states[index].0.clone(), 1.0 / n as f64));
        }
        out
    }
}

/// Fills `joint` with `own_move` for `role` and a uniformly random legal move for every other
/// role in `state`; `false` when `state` is terminal, `own_move` is not legal in it or a role
/// has no legal move.
fn random_joint<G: Game>(
    game: &G,
    state: &G::State,
    role: usize,
    own_move: &G::Move,
    rng: &mut Rng,
    legal: &mut Vec<Vec<G::Move>>,
    joint: &mut Vec<G::Move>,
) -> bool {
    if game.is_terminal(state) {
        return false;
    }
    game.all_legal_moves(state, legal);
    if !legal[role].contains(own_move) || legal.iter().any(Vec::is_empty) {
        return false;
    }
    joint.clear();
    for (r, moves) in legal.iter().enumerate() {
        joint.push(if r == role { own_move.clone() } else { moves[rng.below(moves.len())].clone() });
    }
    true
}

/// Adds `weight` to `state` in `states` (merging repeats when `merge`).
fn add<S: Clone + Eq + std::hash::Hash>(
    states: &mut Vec<(S, f64)>,
    index: &mut HashMap<S, usize>,
    state: S,
    weight: f64,
    merge: bool,
) {
    if !merge {
        states.push((state, weight));
        return;
    }
    match index.get(&state) {
        Some(&at) => states[at].1 += weight,
        None => {
            index.insert(state.clone(), states.len());
            states.push((state, weight));
        }
    }
}

/// Scales the weights to sum to 1.
fn normalize<S>(states: &mut [(S, f64)]) {
    let total: f64 = states.iter().map(|(_, w)| w).sum();
    if total > 0.0 {
        states.iter_mut().for_each(|(_, w)| *w /= total);
    }
}

/// The index of a state drawn by weight; `None` for an empty set.
fn draw<S>(states: &[(S, f64)], rng: &mut Rng) -> Option<usize> {
    if states.is_empty() {
        return None;
    }
    let total: f64 = states.iter().map(|(_, w)| w).sum();
    let mut point = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
    for (i, (_, w)) in states.iter().enumerate() {
        if point < *w {
            return Some(i);
        }
        point -= w;
    }
    Some(states.len() - 1)
}
