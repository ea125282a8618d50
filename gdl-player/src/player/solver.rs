//! A breadth-first solver for puzzles: games of one role and no chance, where the whole
//! outcome is the end state the player steers to, and a search of the graph of states finds
//! the best one there is, which random playouts may never meet (the eight-puzzle: no random
//! walk of 60 moves orders the tiles, so Monte Carlo search has nothing to learn from).
//!
//! The solver walks the states reachable from the first state it is given, level by level,
//! each state kept once, with every edge that reaches it. It keeps its work from one move to
//! the next: the states reachable from where the match is now were all reachable from where it
//! began. It is done when it meets an end state with the highest goal GDL allows (100), or
//! when no state is left to walk; then the plan is the shortest way from the current state to
//! an end state of the best goal reachable from it, found by walking the edges backwards from
//! those end states. Past its cap on states it gives up, and the caller searches otherwise.

use gdl_runtime::Game;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::time::Instant;

/// The most states the solver keeps before it gives up.
const MAX_STATES: usize = 2_000_000;

/// The most memory the solver's states and edges may take, as [`Solver::bytes`] estimates it,
/// before it gives up: a player runs beside other matches.
const MAX_BYTES: usize = 256 << 20;

/// The memory an edge takes in the list of edges.
const EDGE_BYTES: usize = std::mem::size_of::<(u32, u32, u32)>();

/// The most goal GDL allows: an end state with it ends the walk.
const BEST_GOAL: u32 = 100;

/// How many states the walk expands between two looks at the clock.
const STRIDE: usize = 32;

/// What the solver has found so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Progress {
    /// Still walking: no end state with the best goal met, states left.
    Walking,
    /// An end state with goal 100 was met, or every reachable state was walked.
    Done,
    /// The cap on states was reached first.
    GaveUp,
}

/// The graph of states walked so far, and the plan once the walk is done.
pub(crate) struct Solver<S> {
    states: Vec<S>,
    /// The first state of each hash, and the next state of the same hash after each state.
    heads: HashMap<u64, u32>,
    same_hash: Vec<u32>,
    /// Every edge met: (child, parent, the parent's move index in its legal-move order).
    edges: Vec<(u32, u32, u32)>,
    /// The goal of each end state (a terminal state, or one with no legal move).
    ends: Vec<(u32, u32)>,
    /// The next state to expand: the states before it have been.
    cursor: usize,
    progress: Progress,
    /// The moves still to play, each with the state it is played from, in reverse order.
    plan: Vec<(u32, u32)>,
    /// An estimate of the memory the states and edges take: each state's own size, the bytes
    /// its hash reads (its contents, wherever they are kept), its entries in the hash table and
    /// chain, and each edge.
    bytes: usize,
    /// The most `bytes` before the walk gives up.
    max_bytes: usize,
}

/// Marks the end of a chain of states of one hash.
const END: u32 = u32::MAX;

impl<S: Clone + Eq + Hash> Solver<S> {
    /// A solver whose walk starts at `root`.
    pub(crate) fn new(root: S) -> Solver<S> {
        let mut solver = Solver {
            states: Vec::new(),
            heads: HashMap::new(),
            same_hash: Vec::new(),
            edges: Vec::new(),
            ends: Vec::new(),
            cursor: 0,
            progress: Progress::Walking,
            plan: Vec::new(),
            bytes: 0,
            max_bytes: MAX_BYTES,
        };
        solver.intern(root);
        solver
    }

    /// A solver that gives up past `max_bytes` of estimated memory.
    #[cfg(test)]
    pub(crate) fn with_max_bytes(root: S, max_bytes: usize) -> Solver<S> {
        Solver { max_bytes, ..Solver::new(root) }
    }

    /// What the walk has found.
    pub(crate) fn progress(&self) -> Progress {
        self.progress
    }

    /// The number of states met so far.
    pub(crate) fn states(&self) -> usize {
        self.states.len()
    }

    /// Whether the walk has met `state`.
    pub(crate) fn has(&self, state: &S) -> bool {
        self.find(state).is_some()
    }

    /// The index of `state` among the states met, if it was met.
    fn find(&self, state: &S) -> Option<u32> {
        let mut at = *self.heads.get(&hash_of(state))?;
        while at != END {
            if self.states[at as usize] == *state {
                return Some(at);
            }
            at = self.same_hash[at as usize];
        }
        None
    }

    /// The index of `state`, which is added when it is new.
    fn intern(&mut self, state: S) -> u32 {
        if let Some(at) = self.find(&state) {
            return at;
        }
        let at = self.states.len() as u32;
        let head = self.heads.entry(hash_of(&state)).or_insert(END);
        self.same_hash.push(*head);
        *head = at;
        self.bytes += std::mem::size_of::<S>() + hashed_bytes(&state) + 16;
        self.states.push(state);
        at
    }

    /// Walks until `deadline`, until `stop` says so, or until the walk is done or gives up.
    pub(crate) fn walk<G: Game<State = S>>(&mut self, game: &G, deadline: Instant, stop: impl Fn() -> bool) {
        let mut moves = Vec::new();
        while self.progress == Progress::Walking {
            for _ in 0..STRIDE {
                if self.cursor == self.states.len() {
                    self.progress = Progress::Done;
                    return;
                }
                if self.states.len() >= MAX_STATES || self.bytes >= self.max_bytes {
                    self.progress = Progress::GaveUp;
                    return;
                }
                self.expand(game, &mut moves);
                if self.progress != Progress::Walking {
                    return;
                }
            }
            if Instant::now() >= deadline || stop() {
                return;
            }
        }
    }

    /// Expands the state at the cursor: records it as an end state, or adds its children.
    fn expand<G: Game<State = S>>(&mut self, game: &G, moves: &mut Vec<G::Move>) {
        let at = self.cursor as u32;
        self.cursor += 1;
        let state = self.states[at as usize].clone();
        let terminal = game.is_terminal(&state);
        if !terminal {
            game.legal_moves(&state, 0, moves);
        }
        if terminal || moves.is_empty() {
            let goal = game.goal(&state, 0).unwrap_or(0);
            self.ends.push((at, goal));
            if goal >= BEST_GOAL {
                self.progress = Progress::Done;
            }
            return;
        }
        for (k, mv) in moves.iter().enumerate() {
            let child = game.next_state(&state, std::slice::from_ref(mv));
            let child = self.intern(child);
            self.edges.push((child, at, k as u32));
            self.bytes += EDGE_BYTES;
        }
    }

    /// The move to play in `state` by the plan, making the plan when there is none for it.
    /// `None` when the walk is not done, or no end state is known to be reachable from `state`.
    pub(crate) fn planned_move<G: Game<State = S>>(&mut self, game: &G, state: &S) -> Option<G::Move> {
        if self.progress != Progress::Done {
            return None;
        }
        let here = self.find(state)?;
        if self.plan.last().is_none_or(|&(from, _)| from != here) {
            self.plan = self.plan_from(here);
        }
        let Some((_, k)) = self.plan.pop() else {
            // The end state of goal 100 that stopped the walk is not reachable from here, and
            // states are left: walk on, to find one that is or to walk them all.
            if self.cursor < self.states.len() {
                self.progress = Progress::Walking;
            }
            return None;
        };
        let mut moves = Vec::new();
        game.legal_moves(state, 0, &mut moves);
        moves.into_iter().nth(k as usize)
    }

    /// The shortest way from state `here` to an end state of the best goal reachable from it,
    /// as (state, move index) pairs in reverse order; empty when no end state is reachable.
    /// While states are left to walk, only an end state of goal 100 will do: a lower goal is
    /// the best reachable only once every state has been walked.
    fn plan_from(&self, here: u32) -> Vec<(u32, u32)> {
        let mut parents: Vec<Vec<(u32, u32)>> = vec![Vec::new(); self.states.len()];
        for &(child, parent, k) in &self.edges {
            parents[child as usize].push((parent, k));
        }
        let mut goals: Vec<u32> = self.ends.iter().map(|&(_, goal)| goal).collect();
        goals.sort_unstable_by(|a, b| b.cmp(a));
        goals.dedup();
        if self.cursor < self.states.len() {
            goals.retain(|&goal| goal >= BEST_GOAL);
        }
        for goal in goals {
            let targets = self.ends.iter().filter(|&&(_, g)| g == goal).map(|&(at, _)| at);
            if let Some(plan) = backward_path(&parents, targets, here) {
                return plan;
            }
        }
        Vec::new()
    }
}

/// Walks `parents` backwards from `targets` at once until it meets `here`; the path from
/// `here` to the nearest target as (state, move index) pairs, the last pair first to play.
fn backward_path(
    parents: &[Vec<(u32, u32)>],
    targets: impl Iterator<Item = u32>,
    here: u32,
) -> Option<Vec<(u32, u32)>> {
    // For every state met, the state one step nearer a target and the move that goes there.
    let mut toward: Vec<Option<(u32, u32)>> = vec![None; parents.len()];
    let mut met = vec![false; parents.len()];
    let mut queue: Vec<u32> = Vec::new();
    for target in targets {
        if !met[target as usize] {
            met[target as usize] = true;
            queue.push(target);
        }
    }
    let mut head = 0;
    while head < queue.len() && !met[here as usize] {
        let at = queue[head];
        head += 1;
        for &(parent, k) in &parents[at as usize] {
            if !met[parent as usize] {
                met[parent as usize] = true;
                toward[parent as usize] = Some((at, k));
                queue.push(parent);
            }
        }
    }
    if !met[here as usize] {
        return None;
    }
    let mut plan = Vec::new();
    let mut at = here;
    while let Some((next, k)) = toward[at as usize] {
        plan.push((at, k));
        at = next;
    }
    plan.reverse();
    Some(plan)
}

/// How many bytes hashing `state` reads: its contents, for an estimate of its size.
fn hashed_bytes<S: Hash>(state: &S) -> usize {
    struct Counter(usize);
    impl Hasher for Counter {
        fn finish(&self) -> u64 {
            self.0 as u64
        }
        fn write(&mut self, bytes: &[u8]) {
            self.0 += bytes.len();
        }
    }
    let mut counter = Counter(0);
    state.hash(&mut counter);
    counter.0
}

fn hash_of<S: Hash>(state: &S) -> u64 {
    let mut hasher = DefaultHasher::new();
    state.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests;
