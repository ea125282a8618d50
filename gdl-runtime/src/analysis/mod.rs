//! Whether a game is well formed, in the sense of the specification's section 6.11 (Defs.
//! 21-24: termination, playability, winnability), with its goal relation well defined and its
//! `input` and `base` declarations kept, decided by searching its states through any [`Game`].
//!
//! [`analyze`] walks the reachable state graph breadth first on several threads, each state
//! kept once by its hash, while it fits [`Options::max_states`] and the time budget. A complete
//! walk decides every property exactly. Past its limits the walk is bounded, and random
//! playouts from the initial state look further: they can refute a property (a witness is a
//! proof) or exhibit a winning line, but what they do not find stays [`Verdict::Unknown`].
//! Nothing is ever proved from sampling.
//!
//! Every witness is a line of play from the initial state: one joint move per step, each move
//! in canonical KIF, so that `gdlc replay` plays it again.

mod cycles;
mod explore;
mod observe;
mod playouts;
mod report;
mod winnable;

use crate::Game;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// How much searching [`analyze`] may do.
#[derive(Clone, Debug)]
pub struct Options {
    /// The most states the exhaustive walk keeps; past it the walk stops and playouts go on.
    pub max_states: usize,
    /// The time the whole analysis may take, exhaustive walk and playouts together.
    pub budget: Duration,
    /// How many threads expand states and play playouts.
    pub threads: usize,
    /// Whether to print progress on stderr every few seconds.
    pub progress: bool,
    /// The seed of the playouts' random numbers.
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options { max_states: 1_000_000, budget: Duration::from_secs(60), threads: 1, progress: false, seed: 1 }
    }
}

/// What the game declares of its moves and facts, each term in canonical KIF; `None` where the
/// game has no such declaration.
#[derive(Clone, Debug, Default)]
pub struct Declared {
    /// The moves of `(input ROLE MOVE)`, one set per role in role order.
    pub input: Option<Vec<BTreeSet<String>>>,
    /// The facts of `(base FACT)`.
    pub base: Option<BTreeSet<String>>,
}

/// A property that the analysis decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Property {
    /// Def. 21: every infinite sequence of legal moves reaches a terminal state.
    Termination,
    /// Def. 22, per role: the role has a legal move in every reachable non-terminal state.
    Playability,
    /// Per role: exactly one goal value, in `0..=100`, in every reachable terminal state.
    Goals,
    /// Def. 23, per role: some sequence of joint moves reaches a terminal state where the
    /// role's goal is 100.
    WeakWinnability,
    /// Def. 23, per role: the role has a strategy that reaches a terminal state where its goal
    /// is 100 whatever the other roles play; for the game, some role has one.
    StrongWinnability,
    /// Every legal move of a reachable non-terminal state is declared by `input`.
    Input,
    /// Every fact of every reachable state is declared by `base`.
    Base,
    /// Def. 24: termination, playability and weak winnability (and strong winnability for a
    /// game of one role).
    WellFormed,
}

/// One verdict of the report: a property, of a role or of the whole game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The property.
    pub property: Property,
    /// The role it is about, or `None` for the whole game.
    pub role: Option<usize>,
    /// What the search found.
    pub verdict: Verdict,
}

/// What the search found of one property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The property holds.
    Proved(Proof),
    /// The property fails.
    Refuted(Refutation),
    /// The search decided nothing; [`Report::searched`] says how far it went.
    Unknown(Undecided),
    /// The game makes no declaration to check (no `input` or no `base`).
    NotDeclared,
}

/// Why a property holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proof {
    /// The whole reachable state graph was searched.
    Exhaustive,
    /// The line shows it (a winning line of play, or for a strategy one line it plays).
    Line(Witness),
}

/// Why a property fails.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refutation {
    /// The line ends where the property fails.
    Line(Witness),
    /// The whole reachable state graph was searched and nothing shows the property.
    Exhaustive,
    /// The properties of Def. 24 that fail (for [`Property::WellFormed`]).
    Because(Vec<(Property, Option<usize>)>),
}

/// Why a property is undecided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Undecided {
    /// The search did not cover the whole graph, and found nothing against the property.
    Searched,
    /// The engine gives only the largest goal value, so two values cannot be told apart.
    GoalValuesHidden,
    /// A strategy exists for a player that sees the whole state, but in a GDL-II game the
    /// player sees only its percepts (a strategy that does not exist refutes all the same).
    ImperfectInformation,
}

/// A line of play from the initial state, and what its last state shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    /// The joint moves, one move per role in role order, each in canonical KIF.
    pub joints: Vec<Vec<String>>,
    /// What the line shows.
    pub shows: Shows,
}

/// What a state at the end of a line shows.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Shows {
    /// The state after the whole line is the state after its first `from` joint moves, and no
    /// state of the loop is terminal: the loop can be played forever.
    Cycle {
        /// The step at which the loop starts.
        from: usize,
    },
    /// The role has no legal move in a non-terminal state.
    NoLegalMove {
        /// The role.
        role: usize,
    },
    /// A terminal state gives the role no goal value, several, or one past 100.
    GoalValues {
        /// The role.
        role: usize,
        /// The values it gets, sorted.
        values: Vec<u32>,
    },
    /// A legal move that `input` does not declare.
    MoveNotInInput {
        /// The role that may play it.
        role: usize,
        /// The move.
        mv: String,
    },
    /// A fact of the state that `base` does not declare.
    FactNotInBase {
        /// The fact.
        fact: String,
    },
    /// A terminal state in which the role's goal is 100.
    Win {
        /// The role.
        role: usize,
    },
    /// One line of a strategy that forces the role's goal to 100 (the others playing their
    /// first legal move).
    Strategy {
        /// The role.
        role: usize,
    },
}

impl Shows {
    /// The property and role that this finding is about.
    fn key(&self) -> (Property, Option<usize>) {
        match *self {
            Shows::Cycle { .. } => (Property::Termination, None),
            Shows::NoLegalMove { role } => (Property::Playability, Some(role)),
            Shows::GoalValues { role, .. } => (Property::Goals, Some(role)),
            Shows::MoveNotInInput { .. } => (Property::Input, None),
            Shows::FactNotInBase { .. } => (Property::Base, None),
            Shows::Win { role } => (Property::WeakWinnability, Some(role)),
            Shows::Strategy { role } => (Property::StrongWinnability, Some(role)),
        }
    }
}

/// Why the exhaustive walk stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// It searched every reachable state.
    Complete,
    /// It kept [`Options::max_states`] states.
    MaxStates,
    /// Its share of the time budget ran out.
    Time,
    /// A state has more joint moves than [`Options::max_states`].
    Wide,
}

/// How far the search went.
#[derive(Clone, Debug, PartialEq)]
pub struct Searched {
    /// The states the walk kept.
    pub states: usize,
    /// Of them, the states it expanded (all of them when complete).
    pub expanded: usize,
    /// The terminal states among the expanded ones.
    pub terminal: usize,
    /// The depth of the deepest state kept (joint moves from the initial state).
    pub depth: usize,
    /// Why the walk stopped.
    pub stop: Stop,
    /// The random playouts played after an incomplete walk.
    pub playouts: u64,
    /// Their joint moves, all together.
    pub playout_steps: u64,
    /// The wall-clock time of the walk.
    pub walk_seconds: f64,
    /// The wall-clock time of the analysis.
    pub seconds: f64,
    /// The threads used.
    pub threads: usize,
}

/// The analysis of a game: every verdict, and how far the search went.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The roles, in role order.
    pub roles: Vec<String>,
    /// GDL-II's `random` role, which plays no part in winnability.
    pub random_role: Option<usize>,
    /// The verdicts, property by property, each property's roles in role order.
    pub entries: Vec<Entry>,
    /// How far the search went.
    pub searched: Searched,
}

impl Report {
    /// The verdict of `property` for `role` (`None`: the whole game), if the report has one.
    pub fn verdict(&self, property: Property, role: Option<usize>) -> Option<&Verdict> {
        self.entries.iter().find(|e| e.property == property && e.role == role).map(|e| &e.verdict)
    }

    /// Every witness of the report with the entry it belongs to.
    pub fn witnesses(&self) -> impl Iterator<Item = (&Entry, &Witness)> {
        self.entries.iter().filter_map(|e| match &e.verdict {
            Verdict::Proved(Proof::Line(w)) | Verdict::Refuted(Refutation::Line(w)) => Some((e, w)),
            _ => None,
        })
    }
}

/// The first finding of each property and role: a line of play, or in the walk the state it
/// ends in (a node of the graph, whose line is rebuilt at the end).
type Found<L> = BTreeMap<(Property, Option<usize>), (L, Shows)>;

/// Decides the properties of `game`, within `options`, checking `declared`'s declarations.
pub fn analyze<G: Game>(game: &G, declared: &Declared, options: &Options) -> Report {
    let start = Instant::now();
    let threads = options.threads.max(1);
    let walk_budget = options.budget.mul_f64(0.75);
    let graph = explore::explore(game, declared, options, start + walk_budget);
    let walk_seconds = start.elapsed().as_secs_f64();
    if options.progress && graph.stop != Stop::Complete {
        eprintln!(
            "analyze: the walk stopped at {} states ({walk_seconds:.1} s); random playouts until the deadline",
            graph.states()
        );
    }
    let mut found: Found<Vec<Vec<String>>> = BTreeMap::new();
    for (key, (node, shows)) in &graph.found {
        found.insert(*key, (graph.line(game, *node), shows.clone()));
    }
    if let Some((line, from)) = cycles::find_cycle(&graph) {
        let joints = graph.joints(game, &line);
        found.insert((Property::Termination, None), (joints, Shows::Cycle { from }));
    }
    let mut playout_counts = (0, 0);
    if graph.stop != Stop::Complete {
        let found_so_far: BTreeSet<_> = found.keys().copied().collect();
        let (more, counts) = playouts::play(game, declared, options, start + options.budget, &found_so_far);
        playout_counts = counts;
        for (key, value) in more {
            found.entry(key).or_insert(value);
        }
    }
    let strategies = winnable::strategies(game, &graph);
    let entries = winnable::entries(game, &graph, declared, found, strategies);
    let searched = Searched {
        states: graph.states(),
        expanded: graph.expanded(),
        terminal: graph.terminal_count(),
        depth: graph.max_depth(),
        stop: graph.stop,
        playouts: playout_counts.0,
        playout_steps: playout_counts.1,
        walk_seconds,
        seconds: start.elapsed().as_secs_f64(),
        threads,
    };
    let roles = (0..game.num_roles()).map(|r| game.role_name(r).to_string()).collect();
    Report { roles, random_role: game.random_role(), entries, searched }
}

#[cfg(test)]
mod tests;
