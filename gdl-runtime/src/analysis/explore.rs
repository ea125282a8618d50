//! The exhaustive walk: the reachable state graph, breadth first from the initial state, each
//! state kept once by its hash and numbered in the order it was found. Each level's states are
//! expanded in batches on several threads (observed, and their successors computed), and the
//! batches are merged in order on one thread, so the numbering and the findings do not depend
//! on the threads. The first finding of each property is the one nearest the initial state.

use super::observe::Observer;
use super::{Declared, Found, Options, Shows, Stop};
use crate::joints::{choice_of, for_each_joint};
use crate::Game;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A target of an edge that the walk did not keep (past `max_states`).
pub(crate) const NONE: u32 = u32::MAX;

/// States expanded by one thread between two merges, at first and at most: the batch doubles
/// while a batch takes less than [`BATCH_TIME`], so that slow engines still stop in time.
const BATCH: (usize, usize) = (16, 2048);
const BATCH_TIME: Duration = Duration::from_millis(50);

/// The reachable state graph as far as the walk went. Nodes `0..expanded` are expanded: their
/// terminal flag, legal move counts and edges are known; the later ones were found only.
pub(crate) struct Graph {
    roles: usize,
    /// Every node's parent and the number of the joint move that leads from it (the initial
    /// state's parent is [`NONE`]).
    parent: Vec<(u32, u32)>,
    depth: Vec<u32>,
    /// Per expanded node: whether it is terminal.
    pub(crate) terminal: Vec<bool>,
    /// Per expanded node and role (`node * roles + role`): whether the role's goal is 100.
    pub(crate) wins: Vec<bool>,
    /// Per expanded node and role: the role's number of legal moves (0 in terminal states).
    pub(crate) counts: Vec<u32>,
    /// The edges of expanded node `n` are `edges[edge_start[n]..edge_start[n + 1]]`, in the
    /// order of [`for_each_joint`]; an edge is the node it leads to, or [`NONE`].
    pub(crate) edge_start: Vec<usize>,
    pub(crate) edges: Vec<u32>,
    /// The first node that shows each finding.
    pub(crate) found: Found<u32>,
    /// Why the walk stopped.
    pub(crate) stop: Stop,
}

/// One expanded state, as a thread hands it to the merge.
struct Expansion<S> {
    /// Whether the state has more joint moves than the walk may keep states, and was not
    /// expanded.
    wide: bool,
    terminal: bool,
    findings: Vec<Shows>,
    counts: Vec<u32>,
    successors: Vec<S>,
}

/// Walks the reachable graph of `game` until it is complete, it holds `options.max_states`
/// states, or `deadline` passes.
pub(crate) fn explore<G: Game>(game: &G, declared: &Declared, options: &Options, deadline: Instant) -> Graph {
    let roles = game.num_roles();
    let mut graph = Graph {
        roles,
        parent: vec![(NONE, 0)],
        depth: vec![0],
        terminal: Vec::new(),
        wins: Vec::new(),
        counts: Vec::new(),
        edge_start: vec![0],
        edges: Vec::new(),
        found: Found::new(),
        stop: Stop::Complete,
    };
    let root = game.initial_state();
    let mut index: HashMap<G::State, u32> = HashMap::from([(root.clone(), 0)]);
    let threads = options.threads.max(1);
    let mut observers: Vec<Observer<'_, G>> = (0..threads).map(|_| Observer::new(game, declared)).collect();
    let mut frontier = vec![root];
    let mut progress = Progress::new(options.progress);
    let mut batch = BATCH.0;
    while !frontier.is_empty() {
        let mut next = Vec::new();
        let mut done = 0;
        while done < frontier.len() {
            let started = Instant::now();
            if started >= deadline {
                graph.stop = Stop::Time;
                return graph;
            }
            let states = &frontier[done..frontier.len().min(done + batch * threads)];
            done += states.len();
            for expansion in expand(game, states, &mut observers, options.max_states) {
                if expansion.wide {
                    graph.stop = Stop::Wide;
                    return graph;
                }
                if !graph.merge(expansion, &mut index, &mut next, options.max_states) {
                    graph.stop = Stop::MaxStates;
                    return graph;
                }
            }
            if started.elapsed() < BATCH_TIME {
                batch = (batch * 2).min(BATCH.1);
            }
            progress.tick(&graph);
        }
        frontier = next;
    }
    graph
}

/// Expands `batch` on as many threads as there are observers, in order.
fn expand<G: Game>(
    game: &G,
    batch: &[G::State],
    observers: &mut [Observer<'_, G>],
    max_joint: usize,
) -> Vec<Expansion<G::State>> {
    if batch.len() < 32 || observers.len() == 1 {
        return batch.iter().map(|s| expand_one(game, s, &mut observers[0], max_joint)).collect();
    }
    let chunk = batch.len().div_ceil(observers.len());
    std::thread::scope(|scope| {
        let handles: Vec<_> = batch
            .chunks(chunk)
            .zip(observers.iter_mut())
            .map(|(states, observer)| {
                scope.spawn(move || states.iter().map(|s| expand_one(game, s, observer, max_joint)).collect::<Vec<_>>())
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    })
}

/// Observes one state and computes its successors, one per joint move, unless it has more
/// than `max_joint` joint moves.
fn expand_one<G: Game>(
    game: &G,
    state: &G::State,
    observer: &mut Observer<'_, G>,
    max_joint: usize,
) -> Expansion<G::State> {
    let observation = observer.observe(state);
    let joint_moves = observer.legal.iter().try_fold(1usize, |n, moves| n.checked_mul(moves.len()));
    if !observation.terminal && joint_moves.is_none_or(|n| n > max_joint) {
        let counts = Vec::new();
        return Expansion {
            wide: true,
            terminal: false,
            findings: observation.findings,
            counts,
            successors: Vec::new(),
        };
    }
    let mut successors = Vec::new();
    let counts = if observation.terminal {
        vec![0; game.num_roles()]
    } else {
        for_each_joint(&observer.legal, |_, joint| {
            successors.push(game.next_state(state, joint));
            true
        });
        observer.legal.iter().map(|m| m.len() as u32).collect()
    };
    Expansion { wide: false, terminal: observation.terminal, findings: observation.findings, counts, successors }
}

impl Graph {
    /// Adds the next expanded node; `false` when a successor could not be kept.
    fn merge<S: std::hash::Hash + Eq + Clone>(
        &mut self,
        expansion: Expansion<S>,
        index: &mut HashMap<S, u32>,
        next: &mut Vec<S>,
        max_states: usize,
    ) -> bool {
        let node = self.terminal.len() as u32;
        let depth = self.depth[node as usize] + 1;
        self.terminal.push(expansion.terminal);
        let first_win = self.wins.len();
        self.wins.resize(first_win + self.roles, false);
        for shows in expansion.findings {
            if let Shows::Win { role } = shows {
                self.wins[first_win + role] = true;
            }
            self.found.entry(shows.key()).or_insert((node, shows));
        }
        self.counts.extend(&expansion.counts);
        let mut kept_all = true;
        for (number, successor) in expansion.successors.into_iter().enumerate() {
            let target = match index.get(&successor) {
                Some(&t) => t,
                None if index.len() < max_states.min(NONE as usize) => {
                    let t = self.parent.len() as u32;
                    self.parent.push((node, number as u32));
                    self.depth.push(depth);
                    next.push(successor.clone());
                    index.insert(successor, t);
                    t
                }
                None => {
                    kept_all = false;
                    NONE
                }
            };
            self.edges.push(target);
        }
        self.edge_start.push(self.edges.len());
        kept_all
    }

    /// The states kept.
    pub(crate) fn states(&self) -> usize {
        self.parent.len()
    }

    /// The states expanded.
    pub(crate) fn expanded(&self) -> usize {
        self.terminal.len()
    }

    /// The terminal states among the expanded ones.
    pub(crate) fn terminal_count(&self) -> usize {
        self.terminal.iter().filter(|&&t| t).count()
    }

    /// The depth of the deepest state kept.
    pub(crate) fn max_depth(&self) -> usize {
        self.depth.iter().copied().max().unwrap_or(0) as usize
    }

    /// The number of roles.
    pub(crate) fn roles(&self) -> usize {
        self.roles
    }

    /// The edges of expanded node `node`.
    pub(crate) fn edges_of(&self, node: usize) -> &[u32] {
        &self.edges[self.edge_start[node]..self.edge_start[node + 1]]
    }

    /// The legal move counts of expanded node `node`, per role.
    pub(crate) fn counts_of(&self, node: usize) -> &[u32] {
        &self.counts[node * self.roles..(node + 1) * self.roles]
    }

    /// The shortest line (by the walk's parents) from the initial state to `node`, in the
    /// joint moves' numbers, as `(node, number)` per step.
    pub(crate) fn path(&self, node: u32) -> Vec<(u32, u32)> {
        let mut steps = Vec::new();
        let mut at = node;
        while let Some(&(parent, number)) = self.parent.get(at as usize).filter(|(p, _)| *p != NONE) {
            steps.push((parent, number));
            at = parent;
        }
        steps.reverse();
        steps
    }

    /// The joint moves of the shortest line to `node`, in canonical KIF.
    pub(crate) fn line<G: Game>(&self, game: &G, node: u32) -> Vec<Vec<String>> {
        self.joints(game, &self.path(node))
    }

    /// The joint moves of a line given as `(node, number)` steps, in canonical KIF, found by
    /// playing the line again from the initial state.
    pub(crate) fn joints<G: Game>(&self, game: &G, steps: &[(u32, u32)]) -> Vec<Vec<String>> {
        let mut state = game.initial_state();
        let mut legal = Vec::new();
        let mut joints = Vec::with_capacity(steps.len());
        for &(node, number) in steps {
            game.all_legal_moves(&state, &mut legal);
            let counts = self.counts_of(node as usize);
            let joint: Vec<G::Move> =
                (0..self.roles).map(|role| legal[role][choice_of(counts, number as usize, role)].clone()).collect();
            joints.push(joint.iter().map(|m| game.move_string(m)).collect());
            state = game.next_state(&state, &joint);
        }
        joints
    }
}

/// Progress on stderr every few seconds, when asked for.
struct Progress {
    on: bool,
    start: Instant,
    last: Instant,
}

impl Progress {
    fn new(on: bool) -> Self {
        let now = Instant::now();
        Progress { on, start: now, last: now }
    }

    fn tick(&mut self, graph: &Graph) {
        if !self.on || self.last.elapsed() < Duration::from_secs(2) {
            return;
        }
        self.last = Instant::now();
        eprintln!(
            "analyze: {} states kept, {} expanded, depth {}, {:.0} s",
            graph.states(),
            graph.expanded(),
            graph.max_depth(),
            self.start.elapsed().as_secs_f64()
        );
    }
}
