//! The Monte Carlo tree search player: decoupled UCT, in which every role keeps its own
//! statistics for its own moves at each node and picks its move by UCB1 over them, so that
//! simultaneous moves need no joint-move tables. Each iteration descends the tree, adds one
//! node, plays a random playout from it and credits every role's goal to the moves it chose.
//! The search runs until the deadline, which it checks before every iteration and every few
//! playout steps, or until it is cancelled (checked before every iteration), and answers with
//! the root move it tried most.
//!
//! When playouts are too slow to finish several times in a play clock (a large game, a slow
//! engine), waiting for them would leave the search with nothing: a playout that runs past a
//! quarter of the clock is cut, and from then on (or once any iteration has taken an eighth of
//! the clock) no playout is played: the node an iteration
//! adds is scored by the goals the game gives in its state, as a cut playout is
//! ([`playout`]). The time goes to growing the tree instead, so that the search sees the ends
//! of the game near the root (a mate in chess's next moves) rather than a few random steps of
//! lines it cannot finish.
//!
//! In a puzzle (one role, no chance) the player also walks the graph of states with a
//! [`Solver`], which keeps its work from move to move and takes three quarters of each clock
//! until it is done; then it plays the solver's plan, and Monte Carlo search only where the
//! solver has no plan (it gave up, or no end state is reachable).

mod playout;
#[cfg(test)]
mod tests;

pub(crate) use playout::playout;

use super::solver::{Progress, Solver};
use super::Player;
use gdl_runtime::rng::Rng;
use gdl_runtime::Game;
use playout::{playout_until, rewards, unfinished_rewards, Playout};
use std::any::Any;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// UCB1's exploration constant, for rewards in `0..=1`.
const EXPLORATION: f64 = 1.4;

/// The most nodes one search keeps; past it, iterations only play out from the leaves.
const MAX_NODES: usize = 250_000;

/// The share of the play clock past which a search stops waiting for a playout to finish: a
/// playout that runs longer is cut, and the search turns to scoring nodes by their goals.
const LONG_PLAYOUT_SHARE: u32 = 4;

/// The share of the play clock past which an iteration, its playout finished or not, turns the
/// search to scoring nodes by their goals: a search that would play fewer playouts than this in
/// a clock learns more from growing its tree. In chess, random playouts from some middle-game
/// positions end the game in just under a quarter of the clock: they were never cut, and the
/// search made four iterations a move.
const SLOW_ITERATION_SHARE: u32 = 8;

/// The Monte Carlo tree search player (see the module's documentation). It keeps no tree from
/// one move to the next: every choice searches afresh from the state it is given.
pub struct MctsPlayer {
    rng: Rng,
    /// When set, the search stops at its next iteration.
    cancel: Option<Arc<AtomicBool>>,
    /// The number of completed iterations of the last search, for tests and diagnostics.
    pub last_iterations: u64,
    /// The puzzle solver of the match, a `Solver<G::State>`, once a puzzle has been asked about.
    solver: Option<Box<dyn Any + Send>>,
    /// The states the solver had met at the last choice, 0 when it was not used.
    pub solver_states: usize,
    /// Whether the last choice followed the solver's plan.
    planned: bool,
}

impl MctsPlayer {
    /// A player whose random choices (the order of untried moves, the playouts) follow `seed`.
    pub fn new(seed: u64) -> MctsPlayer {
        MctsPlayer {
            rng: Rng::seeded(seed),
            cancel: None,
            last_iterations: 0,
            solver: None,
            solver_states: 0,
            planned: false,
        }
    }

    /// Iterates until the deadline, with playouts cut at a quarter of the clock, and none at
    /// all once one playout has been cut or an iteration has taken an eighth of the clock.
    fn search<G: Game>(&mut self, game: &G, nodes: &mut Vec<Node<G::State, G::Move>>, deadline: Instant) {
        let clock = deadline.saturating_duration_since(Instant::now());
        let mut playout_time = clock / LONG_PLAYOUT_SHARE;
        while Instant::now() < deadline && !self.cancelled() {
            let started = Instant::now();
            match self.iterate(game, nodes, deadline, playout_time) {
                Iteration::Done { cut } => {
                    self.last_iterations += 1;
                    if cut || started.elapsed() > clock / SLOW_ITERATION_SHARE {
                        playout_time = Duration::ZERO;
                    }
                }
                Iteration::OutOfTime => break,
            }
        }
    }
}

/// The share of the time left that the solver walks while it is not done, in quarters.
const SOLVER_QUARTERS: u32 = 3;

impl MctsPlayer {
    /// The solver's move in `state` of a puzzle, after it walks until `share` at most; `None`
    /// when the game is not a puzzle or the solver has no plan yet.
    fn solve<G: Game>(&mut self, game: &G, state: &G::State, share: Instant) -> Option<G::Move> {
        self.solver_states = 0;
        if game.num_roles() != 1 || game.is_gdl_ii() {
            return None;
        }
        let cancel = self.cancel.clone();
        let stop = move || cancel.as_ref().is_some_and(|flag| flag.load(AtomicOrdering::Relaxed));
        let fresh = || Box::new(Solver::new(state.clone())) as Box<dyn Any + Send>;
        let boxed = self.solver.get_or_insert_with(fresh);
        // A state the walk never met belongs to another match: the walk starts again there.
        if boxed.downcast_ref::<Solver<G::State>>().is_none_or(|s| !s.has(state)) {
            *boxed = fresh();
        }
        let solver = boxed.downcast_mut::<Solver<G::State>>()?;
        // The walk stops at every end state of goal 100; while those are not reachable from
        // `state`, it walks on within its share.
        loop {
            if solver.progress() == Progress::Walking {
                solver.walk(game, share, &stop);
            }
            self.solver_states = solver.states();
            let planned = solver.planned_move(game, state);
            if planned.is_some() || solver.progress() != Progress::Walking || Instant::now() >= share || stop() {
                return planned;
            }
        }
    }

    /// Whether the search was told to stop.
    fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|flag| flag.load(AtomicOrdering::Relaxed))
    }
}

/// A role's statistics for one of its moves at a node.
#[derive(Clone, Copy, Default)]
struct Stat {
    visits: u32,
    total: f64,
}

struct Node<S, M> {
    state: S,
    /// Every role's goal in `0..=1` when the node ends the game (a terminal state, or one in
    /// which some role has no legal move).
    end: Option<Vec<f64>>,
    moves: Vec<Vec<M>>,
    stats: Vec<Vec<Stat>>,
    visits: u32,
    children: HashMap<Vec<u32>, usize>,
}

fn new_node<G: Game>(game: &G, state: G::State) -> Node<G::State, G::Move> {
    let mut moves = Vec::new();
    let end = if game.is_terminal(&state) {
        Some(rewards(game, &state))
    } else {
        game.all_legal_moves(&state, &mut moves);
        moves.iter().any(Vec::is_empty).then(|| rewards(game, &state))
    };
    let stats = moves.iter().map(|m| vec![Stat::default(); m.len()]).collect();
    Node { state, end, moves, stats, visits: 0, children: HashMap::new() }
}

/// The move index that UCB1 picks among `stats`: every move is tried once first, and moves of
/// equal score are picked among at random.
fn select(stats: &[Stat], parent_visits: u32, rng: &mut Rng) -> u32 {
    let log = f64::from(parent_visits.max(1)).ln();
    let score = |s: &Stat| {
        if s.visits == 0 {
            return f64::INFINITY;
        }
        s.total / f64::from(s.visits) + EXPLORATION * (log / f64::from(s.visits)).sqrt()
    };
    best_index(stats, rng, |a, b| score(a).total_cmp(&score(b))).unwrap_or(0) as u32
}

/// The index of the greatest of `items` by `order`, drawn uniformly among those that tie for it;
/// `None` when there are none. Breaking ties at random matters: when the playouts tell moves
/// apart no better than chance (a game whose goals the playouts rarely reach), taking the last
/// of the best would play the same move every time, and that is worse than random.
pub(crate) fn best_index<T>(items: &[T], rng: &mut Rng, order: impl Fn(&T, &T) -> Ordering) -> Option<usize> {
    let mut best: Option<usize> = None;
    let mut ties = 0;
    for (i, item) in items.iter().enumerate() {
        match best.map(|b| order(item, &items[b])) {
            None | Some(Ordering::Greater) => (best, ties) = (Some(i), 1),
            Some(Ordering::Equal) => {
                ties += 1;
                if rng.below(ties) == 0 {
                    best = Some(i);
                }
            }
            Some(Ordering::Less) => {}
        }
    }
    best
}

/// How an iteration went.
enum Iteration {
    /// It was credited to the tree; `cut` says whether its playout was cut short.
    Done { cut: bool },
    /// The deadline came first.
    OutOfTime,
}

/// The path of an iteration down the tree: every node it went through with the joint move
/// (each role's move index) chosen there; the node it added has no joint move.
type Path = Vec<(usize, Vec<u32>)>;

impl MctsPlayer {
    /// One iteration of the search, whose playout is cut after `playout_time`.
    fn iterate<G: Game>(
        &mut self,
        game: &G,
        nodes: &mut Vec<Node<G::State, G::Move>>,
        deadline: Instant,
        playout_time: Duration,
    ) -> Iteration {
        let mut path: Path = Vec::new();
        let mut node = 0;
        loop {
            if let Some(end) = nodes[node].end.clone() {
                backpropagate(nodes, &path, &end);
                return Iteration::Done { cut: false };
            }
            let n = &nodes[node];
            let joint: Vec<u32> = n.stats.iter().map(|s| select(s, n.visits, &mut self.rng)).collect();
            let child = n.children.get(&joint).copied();
            path.push((node, joint));
            match child {
                Some(child) => node = child,
                None => break,
            }
        }
        let cut_at = (Instant::now() + playout_time).min(deadline);
        let playout = match expand(game, nodes, &mut path) {
            Leaf::End(end) => {
                backpropagate(nodes, &path, &end);
                return Iteration::Done { cut: false };
            }
            Leaf::Added(id) if playout_time.is_zero() => {
                Some(Playout { rewards: unfinished_rewards(game, &nodes[id].state), cut: false })
            }
            Leaf::Added(id) => {
                let node = &nodes[id];
                playout_until(game, &node.state, &node.moves, &mut self.rng, deadline, cut_at)
            }
            Leaf::Unstored(state) => playout_until(game, &state, &[], &mut self.rng, deadline, cut_at),
        };
        match playout {
            Some(playout) => {
                backpropagate(nodes, &path, &playout.rewards);
                Iteration::Done { cut: playout.cut }
            }
            None => Iteration::OutOfTime,
        }
    }
}

/// Where an iteration leaves the tree.
enum Leaf<S> {
    /// At the node it added, which does not end the game.
    Added(usize),
    /// At a state the full tree has no room for.
    Unstored(S),
    /// At a state that ends the game, with every role's reward.
    End(Vec<f64>),
}

/// Plays the joint move that ends `path` from its last node and adds the node it leads to,
/// unless the tree is full.
fn expand<G: Game>(game: &G, nodes: &mut Vec<Node<G::State, G::Move>>, path: &mut Path) -> Leaf<G::State> {
    let Some((parent, joint)) = path.last() else { return Leaf::Unstored(nodes[0].state.clone()) };
    let (parent, joint) = (*parent, joint.clone());
    let n = &nodes[parent];
    let moves: Vec<G::Move> = joint.iter().zip(&n.moves).map(|(&i, m)| m[i as usize].clone()).collect();
    let next = game.next_state(&n.state, &moves);
    if nodes.len() >= MAX_NODES {
        return Leaf::Unstored(next);
    }
    let child = new_node(game, next);
    let end = child.end.clone();
    nodes.push(child);
    let id = nodes.len() - 1;
    nodes[parent].children.insert(joint, id);
    path.push((id, Vec::new()));
    match end {
        Some(end) => Leaf::End(end),
        None => Leaf::Added(id),
    }
}

/// Credits `rewards` to every node of `path` and to the moves chosen there.
fn backpropagate<S, M>(nodes: &mut [Node<S, M>], path: &Path, rewards: &[f64]) {
    for (node, joint) in path {
        let n = &mut nodes[*node];
        n.visits += 1;
        for (role, &index) in joint.iter().enumerate() {
            let stat = &mut n.stats[role][index as usize];
            stat.visits += 1;
            stat.total += rewards.get(role).copied().unwrap_or(0.0);
        }
    }
}

impl<G: Game> Player<G> for MctsPlayer {
    fn choose(&mut self, game: &G, state: &G::State, role: usize, deadline: Instant) -> Option<G::Move> {
        (self.last_iterations, self.planned) = (0, false);
        let mut moves = Vec::new();
        game.legal_moves(state, role, &mut moves);
        if moves.len() <= 1 {
            return moves.pop();
        }
        let now = Instant::now();
        let share = now + deadline.saturating_duration_since(now) / 4 * SOLVER_QUARTERS;
        if let Some(planned) = self.solve(game, state, share) {
            self.planned = true;
            return Some(planned);
        }
        let mut nodes = vec![new_node(game, state.clone())];
        if nodes[0].end.is_some() {
            // Another role has no legal move: nothing to search, any legal move will do.
            return Some(moves.swap_remove(self.rng.below(moves.len())));
        }
        self.search(game, &mut nodes, deadline);
        let root = &nodes[0];
        let best = best_index(&root.stats[role], &mut self.rng, |a, b| {
            let mean = |s: &Stat| if s.visits == 0 { 0.0 } else { s.total / f64::from(s.visits) };
            a.visits.cmp(&b.visits).then(mean(a).total_cmp(&mean(b)))
        });
        let best = best.map(|i| root.moves[role][i].clone());
        dispose_of(nodes);
        best
    }

    fn prepare(&mut self, game: &G, state: &G::State, role: usize, deadline: Instant) {
        let _ = role;
        // Only a puzzle's solver can use the time before the first move: the tree search
        // starts afresh at every move.
        self.solve(game, state, deadline);
    }

    fn settled(&self) -> bool {
        self.planned
    }

    fn work(&self) -> String {
        match self.solver_states {
            0 => format!("{} iterations", self.last_iterations),
            states => format!("{} iterations, {states} states walked", self.last_iterations),
        }
    }

    fn set_cancel(&mut self, flag: Arc<AtomicBool>) {
        self.cancel = Some(flag);
    }
}

/// Frees a search tree on another thread, so that the reply does not wait for it (a tree of
/// a quarter of a million nodes takes tens of milliseconds to free).
fn dispose_of<T: Send + 'static>(tree: T) {
    let kept = std::thread::Builder::new().name("tree-free".to_string()).spawn(move || drop(tree));
    // Without a thread to spare the tree is freed here, late rather than never.
    drop(kept);
}
