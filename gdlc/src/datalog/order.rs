//! The order of a rule body's literals: greedily, the positive literal expected to match the
//! fewest facts next, and every test (negation, `distinct`, equality) as soon as its variables
//! are bound.
//!
//! A literal's rank changes only when one of its variables becomes bound (or when the first
//! variable of the body does), so ranks are kept in a heap and recomputed only for the literals
//! of the variables just bound: the order of a body of `n` literals takes `n log n` steps, where
//! ranking every literal again at every choice took `n²` (a rule of thousands of literals took
//! minutes).

use super::compile::Basic;
use crate::ast::Atom;
use rustc_hash::FxHashMap;
use std::cmp::Ordering;
use std::collections::{BTreeSet, BinaryHeap};

/// How many times its size a positive literal unconnected to the variables bound before it (a
/// cross product) is estimated to cost, when the sizes are guesses: a guess may be far below
/// the truth, and a cross product multiplies the error. Take it last, whatever its size.
pub(crate) const CROSS_PENALTY: f64 = 1e6;

/// The expected number of facts of an atom that match once the variables given are bound.
pub(crate) type Cost<'c> = dyn Fn(&Atom, &BTreeSet<&str>) -> f64 + 'c;

/// A body in evaluation order, with the variables its literals bind.
pub(crate) struct Ordered<'a> {
    pub literals: Vec<Basic<'a>>,
    pub bound: BTreeSet<&'a str>,
    /// Whether every literal found a place: false when some test has a variable that no
    /// positive literal binds.
    pub complete: bool,
}

/// A positive literal's rank when it was computed: the smallest goes next.
struct Rank {
    cost: f64,
    unbound: usize,
    index: usize,
    version: u32,
}

impl Rank {
    fn key(&self) -> (f64, usize, usize) {
        (self.cost, self.unbound, self.index)
    }
}

impl PartialEq for Rank {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Rank {}

impl PartialOrd for Rank {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rank {
    /// Reversed, so that the standard max-heap pops the smallest rank.
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (self.key(), other.key());
        b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(b.2.cmp(&a.2))
    }
}

/// The state of one ordering.
struct Orderer<'a, 'c> {
    body: &'c [Basic<'a>],
    cost: &'c dyn Fn(&Atom, &BTreeSet<&str>) -> f64,
    cross_penalty: f64,
    vars: Vec<Vec<&'a str>>,
    /// For every variable, the literals it occurs in.
    users: FxHashMap<&'a str, Vec<usize>>,
    /// For every literal, how many of its variables are not bound yet.
    missing: Vec<usize>,
    placed: Vec<bool>,
    version: Vec<u32>,
    bound: BTreeSet<&'a str>,
    heap: BinaryHeap<Rank>,
    /// Tests whose variables are all bound, waiting for their place.
    ready: Vec<usize>,
    /// Positive literals whose rank changed.
    stale: Vec<usize>,
    literals: Vec<Basic<'a>>,
}

/// Orders `body` greedily by `cost` (the expected matches of an atom given the bound
/// variables), a cross product's times `cross_penalty`, with literal `first` first when given.
pub(crate) fn order<'a>(
    body: &[Basic<'a>],
    cost: &dyn Fn(&Atom, &BTreeSet<&str>) -> f64,
    cross_penalty: f64,
    first: Option<usize>,
) -> Ordered<'a> {
    let mut orderer = Orderer::new(body, cost, cross_penalty);
    if let Some(j) = first {
        orderer.place(j);
    }
    orderer.stale.clear();
    for i in 0..body.len() {
        if orderer.is_positive(i) && !orderer.placed[i] {
            orderer.rank(i);
        }
    }
    loop {
        orderer.place_ready_tests();
        orderer.rerank_stale();
        let Some(next) = orderer.best() else { break };
        orderer.place(next);
    }
    let complete = orderer.placed.iter().all(|&p| p);
    Ordered { literals: orderer.literals, bound: orderer.bound, complete }
}

impl<'a, 'c> Orderer<'a, 'c> {
    fn new(body: &'c [Basic<'a>], cost: &'c dyn Fn(&Atom, &BTreeSet<&str>) -> f64, cross_penalty: f64) -> Self {
        let vars: Vec<Vec<&'a str>> = body.iter().map(|b| b.vars().into_iter().collect()).collect();
        let mut users: FxHashMap<&'a str, Vec<usize>> = FxHashMap::default();
        for (i, vs) in vars.iter().enumerate() {
            for &v in vs {
                users.entry(v).or_default().push(i);
            }
        }
        let missing: Vec<usize> = vars.iter().map(Vec::len).collect();
        let ready = (0..body.len()).filter(|&i| !matches!(body[i], Basic::Pos(_)) && missing[i] == 0).collect();
        Orderer {
            body,
            cost,
            cross_penalty,
            vars,
            users,
            missing,
            placed: vec![false; body.len()],
            version: vec![0; body.len()],
            bound: BTreeSet::new(),
            heap: BinaryHeap::new(),
            ready,
            stale: Vec::new(),
            literals: Vec::with_capacity(body.len()),
        }
    }

    fn is_positive(&self, i: usize) -> bool {
        matches!(self.body[i], Basic::Pos(_))
    }

    /// Puts literal `i` next and binds its variables.
    fn place(&mut self, i: usize) {
        self.placed[i] = true;
        self.literals.push(self.body[i].copy());
        if self.bound.is_empty() && !self.vars[i].is_empty() {
            // A literal unconnected to what is bound is penalized only once something is.
            let body = self.body;
            self.stale.extend((0..body.len()).filter(|&u| matches!(body[u], Basic::Pos(_))));
        }
        for k in 0..self.vars[i].len() {
            let v = self.vars[i][k];
            if !self.bound.insert(v) {
                continue;
            }
            for &u in &self.users[v] {
                self.missing[u] -= 1;
                if self.placed[u] {
                    continue;
                }
                if self.is_positive(u) {
                    self.stale.push(u);
                } else if self.missing[u] == 0 {
                    self.ready.push(u);
                }
            }
        }
    }

    fn place_ready_tests(&mut self) {
        self.ready.sort_unstable();
        self.ready.dedup();
        for i in std::mem::take(&mut self.ready) {
            if !self.placed[i] {
                self.placed[i] = true;
                self.literals.push(self.body[i].copy());
            }
        }
    }

    fn rerank_stale(&mut self) {
        let mut stale = std::mem::take(&mut self.stale);
        stale.sort_unstable();
        stale.dedup();
        for i in stale {
            if !self.placed[i] {
                self.rank(i);
            }
        }
    }

    /// Computes the rank of positive literal `i` anew; its older ranks in the heap are void.
    fn rank(&mut self, i: usize) {
        let Basic::Pos(atom) = self.body[i] else { return };
        let unbound = self.missing[i];
        // A literal unconnected to what is bound multiplies the matches.
        let cross = unbound > 0 && !self.bound.is_empty() && unbound == self.vars[i].len();
        let penalty = if cross { self.cross_penalty } else { 1.0 };
        self.version[i] += 1;
        let cost = (self.cost)(atom, &self.bound) * penalty;
        self.heap.push(Rank { cost, unbound, index: i, version: self.version[i] });
    }

    /// The unplaced positive literal of the smallest current rank.
    fn best(&mut self) -> Option<usize> {
        while let Some(rank) = self.heap.pop() {
            if !self.placed[rank.index] && rank.version == self.version[rank.index] {
                return Some(rank.index);
            }
        }
        None
    }
}
