//! Base facts that no reachable state holds, found through groups of facts of which a state
//! holds at most one (a ship's square, a step counter), and dropped.
//!
//! Grounding takes every fact some rule could make from facts that could hold, each on its
//! own: in mineClearingSmall the ship moves north only when the square north of it is on the
//! board, but `legal` and `next` read the ship apart, so any square the moves could reach
//! in any order is taken, 11,025 of them where 25 are on the board. Here, for a group of base
//! facts (those of one relation), the states are abstracted to the group's one fact, every other fact
//! unknown: from each such abstract state, evaluated in three-valued logic, come its possibly
//! legal joint moves, and for each the group's facts that may hold next. When every case gives
//! at most one, induction from the initial state proves that no reachable state holds two, and
//! the group's facts never reached from the initial one are never true: the rules that need
//! them go, and so do their bits of the state.
//!
//! It relies on moves played being legal ([`super::Options::assume_legal_play`]).

use super::cone::cone;
use super::{Ground, Lit, Prop, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The most joint moves whose cases are evaluated apart; with more, the moves possibly legal
/// are unknown together.
const JOINT_CASES: usize = 64;

/// The most literals the pass reads, over all groups (a tenth of a second or two).
const WORK: usize = 30_000_000;

/// A truth value of three-valued logic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tri {
    False,
    True,
    Unknown,
}

impl Tri {
    fn of(value: bool) -> Tri {
        if value {
            Tri::True
        } else {
            Tri::False
        }
    }

    fn not(self) -> Tri {
        match self {
            Tri::False => Tri::True,
            Tri::True => Tri::False,
            Tri::Unknown => Tri::Unknown,
        }
    }
}

/// Drops the base facts of `ground` no reachable state holds; returns whether any went. A game
/// with atoms checked at run time is left as it is: their tables read the state's bits.
pub fn drop_unreachable(ground: &mut Ground) -> bool {
    if !ground.deferred.atoms.is_empty() {
        return false;
    }
    let mut work = Work { left: WORK };
    let mut unreachable = BTreeSet::new();
    for group in groups(&ground.base) {
        unreachable.extend(never_held(ground, &group, &mut work).into_iter().flatten());
    }
    if unreachable.is_empty() {
        return false;
    }
    remove(ground, &unreachable);
    true
}

/// The literals the pass may still evaluate.
struct Work {
    left: usize,
}

/// The groups tried: the base facts of each relation with more than one, each group's fact
/// indices in order. (Within a relation, the facts that differ only in their last argument, a
/// cell's contents, would be groups too; but a board missing a few of its cells' facts, the
/// other colour's stones on squares whose stones never change, is then not the same board for
/// every colour, and [`super::layout`] no longer lays it out a colour to a word.)
fn groups(base: &[String]) -> Vec<Vec<u32>> {
    let mut by_relation: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for (i, fact) in base.iter().enumerate() {
        let (name, args) = super::layout::split(fact);
        if !args.is_empty() {
            by_relation.entry(name).or_default().push(i as u32);
        }
    }
    by_relation.into_values().filter(|g| g.len() > 1).collect()
}

/// The facts of `group` that no reachable state holds, when the group is proved to hold at
/// most one fact in every reachable state; `None` when that is not proved (or the work ran
/// out).
fn never_held(ground: &Ground, group: &[u32], work: &mut Work) -> Option<Vec<u32>> {
    let initial: Vec<u32> = ground.initial.iter().copied().filter(|f| group.binary_search(f).is_ok()).collect();
    if initial.len() > 1 {
        return None;
    }
    let mut abstraction = Abstraction::new(ground, group);
    let mut seen: BTreeSet<Option<u32>> = BTreeSet::new();
    let mut queue = vec![initial.first().copied()];
    while let Some(held) = queue.pop() {
        if !seen.insert(held) {
            continue;
        }
        for next in abstraction.successors(held, work)? {
            if !seen.contains(&next) {
                queue.push(next);
            }
        }
    }
    let reached: BTreeSet<u32> = seen.into_iter().flatten().collect();
    let never: Vec<u32> = group.iter().copied().filter(|f| !reached.contains(f)).collect();
    (!never.is_empty()).then_some(never)
}

/// The states of a game seen through one group of base facts: the fact of the group a state
/// holds (or none), every other base fact unknown.
struct Abstraction<'g> {
    eval: Evaluator<'g>,
    /// The nodes that the legal moves and `terminal` read.
    deciding: Nodes,
    /// Whether those read a fact of the group: if not, what they say is the same whatever the
    /// group holds, and is kept in `decided`.
    deciding_reads_group: bool,
    decided: Option<Decided>,
    /// The nodes that the group's `next` reads.
    making: Nodes,
}

/// What a state decides of the moves that follow it: whether it is terminal, and every role's
/// moves possibly legal.
#[derive(Clone)]
struct Decided {
    terminal: Tri,
    possible: Vec<Vec<u32>>,
}

/// The nodes an abstract state evaluates for one purpose, in evaluation order: all of them the
/// first time, then only those that read the group's facts or the moves, directly or not.
struct Nodes {
    all: Vec<u32>,
    varying: Vec<u32>,
    evaluated: bool,
}

impl Nodes {
    fn new(all: Vec<u32>, varies: &[bool]) -> Nodes {
        let varying = all.iter().copied().filter(|&n| varies[n as usize]).collect();
        Nodes { all, varying, evaluated: false }
    }
}

impl<'g> Abstraction<'g> {
    fn new(ground: &'g Ground, group: &'g [u32]) -> Abstraction<'g> {
        let in_cycle = ground.in_cycle();
        let mut in_group = vec![false; ground.base.len()];
        group.iter().for_each(|&f| in_group[f as usize] = true);
        let varies = varies(ground, &in_group, &in_cycle);
        let deciding_values = || {
            let legal = ground.legal.iter().flat_map(|moves| moves.iter().map(|(_, value)| value));
            legal.chain(std::iter::once(&ground.terminal))
        };
        let deciding = Nodes::new(cone(ground, deciding_values()), &varies);
        let making = Nodes::new(cone(ground, group.iter().map(|&f| &ground.next[f as usize])), &varies);
        let reads_group =
            |value: &Value| matches!(value, Value::Lit(Lit { prop: Prop::Base(f), .. }) if in_group[*f as usize]);
        let deciding_reads_group = !deciding.varying.is_empty() || deciding_values().any(reads_group);
        let values = vec![Tri::Unknown; ground.nodes.len()];
        let eval = Evaluator { ground, group, in_group, in_cycle, values };
        Abstraction { eval, deciding, deciding_reads_group, decided: None, making }
    }

    /// The group's facts (or none) that states holding `held` may lead to; `None` when a
    /// joint move may make two of them hold, or the work ran out.
    fn successors(&mut self, held: Option<u32>, work: &mut Work) -> Option<BTreeSet<Option<u32>>> {
        let decided = match &self.decided {
            Some(decided) => decided.clone(),
            None => {
                let decided = self.decide(held, work)?;
                if !self.deciding_reads_group {
                    self.decided = Some(decided.clone());
                }
                decided
            }
        };
        let mut out = BTreeSet::new();
        let possible = &decided.possible;
        let joints = possible.iter().try_fold(1usize, |n, p| n.checked_mul(p.len()));
        if decided.terminal == Tri::True || joints == Some(0) {
            return Some(out);
        }
        match joints {
            Some(count) if count <= JOINT_CASES => {
                let mut choice = vec![0usize; possible.len()];
                for _ in 0..count {
                    let does = self.played(possible, |r| Some(possible[r][choice[r]]));
                    self.next_facts(held, &does, work, &mut out)?;
                    advance(&mut choice, possible);
                }
            }
            _ => {
                let does = self.played(possible, |_| None);
                self.next_facts(held, &does, work, &mut out)?;
            }
        }
        Some(out)
    }

    /// Whether states holding `held` are terminal, and the moves possibly legal in them.
    fn decide(&mut self, held: Option<u32>, work: &mut Work) -> Option<Decided> {
        let ground = self.eval.ground;
        let unknown_moves = vec![vec![Tri::Unknown; ground.moves.len()]; ground.roles.len()];
        self.evaluate(Cone::Deciding, held, &unknown_moves, work)?;
        work.left = work.left.checked_sub(ground.legal.iter().map(Vec::len).sum())?;
        let terminal = self.eval.value(&ground.terminal, held, &unknown_moves);
        let possible = (ground.legal.iter())
            .map(|legal| {
                (legal.iter())
                    .filter(|(_, value)| self.eval.value(value, held, &unknown_moves) != Tri::False)
                    .map(|&(mv, _)| mv)
                    .collect()
            })
            .collect();
        Some(Decided { terminal, possible })
    }

    /// What each role's move literals are: the move `chosen` gives true and the others false,
    /// or, where it gives none, those in `possible` unknown and the others false.
    fn played(&self, possible: &[Vec<u32>], chosen: impl Fn(usize) -> Option<u32>) -> Vec<Vec<Tri>> {
        let ground = self.eval.ground;
        let mut does = vec![vec![Tri::False; ground.moves.len()]; ground.roles.len()];
        for (r, moves) in possible.iter().enumerate() {
            match chosen(r) {
                Some(mv) => does[r][mv as usize] = Tri::True,
                None => moves.iter().for_each(|&mv| does[r][mv as usize] = Tri::Unknown),
            }
        }
        does
    }

    /// Adds to `out` the group's facts (or none) that may hold after the joint move `does` in
    /// states holding `held`; `None` when two may.
    fn next_facts(
        &mut self,
        held: Option<u32>,
        does: &[Vec<Tri>],
        work: &mut Work,
        out: &mut BTreeSet<Option<u32>>,
    ) -> Option<()> {
        self.evaluate(Cone::Making, held, does, work)?;
        work.left = work.left.checked_sub(self.eval.group.len())?;
        let eval = &self.eval;
        let mut may_hold = (eval.group.iter())
            .map(|&f| (f, eval.value(&eval.ground.next[f as usize], held, does)))
            .filter(|&(_, value)| value != Tri::False);
        match (may_hold.next(), may_hold.next()) {
            (None, _) => {
                out.insert(None);
            }
            (Some((fact, value)), None) => {
                out.insert(Some(fact));
                if value == Tri::Unknown {
                    out.insert(None);
                }
            }
            (Some(_), Some(_)) => return None,
        }
        Some(())
    }

    /// Evaluates the nodes of `cone` in states holding `held`, with the moves `does`: all of
    /// them the first time, then those whose values may differ.
    fn evaluate(&mut self, cone: Cone, held: Option<u32>, does: &[Vec<Tri>], work: &mut Work) -> Option<()> {
        let nodes = match cone {
            Cone::Deciding => &mut self.deciding,
            Cone::Making => &mut self.making,
        };
        let first = !std::mem::replace(&mut nodes.evaluated, true);
        let order = if first { &nodes.all } else { &nodes.varying };
        for &n in order {
            let value = self.eval.node(n, held, does, work)?;
            self.eval.values[n as usize] = value;
        }
        Some(())
    }
}

/// The three-valued evaluation of a ground program's nodes in an abstract state.
struct Evaluator<'g> {
    ground: &'g Ground,
    group: &'g [u32],
    /// For every base fact, whether it is in the group.
    in_group: Vec<bool>,
    /// Whether a node is in a recursive group: its value is taken as unknown.
    in_cycle: Vec<bool>,
    /// The nodes' values as last evaluated.
    values: Vec<Tri>,
}

impl Evaluator<'_> {
    /// The value of node `n`, from the values of the nodes it reads.
    fn node(&self, n: u32, held: Option<u32>, does: &[Vec<Tri>], work: &mut Work) -> Option<Tri> {
        if self.in_cycle[n as usize] {
            return Some(Tri::Unknown);
        }
        let rules = &self.ground.nodes[n as usize].rules;
        let mut visited = 1;
        let mut value = Tri::False;
        for rule in rules {
            let mut all = Tri::True;
            for lit in rule {
                visited += 1;
                match self.lit(*lit, held, does) {
                    Tri::False => {
                        all = Tri::False;
                        break;
                    }
                    Tri::Unknown => all = Tri::Unknown,
                    Tri::True => {}
                }
            }
            match all {
                Tri::True => {
                    value = Tri::True;
                    break;
                }
                Tri::Unknown => value = Tri::Unknown,
                Tri::False => {}
            }
        }
        work.left = work.left.checked_sub(visited)?;
        Some(value)
    }

    fn value(&self, value: &Value, held: Option<u32>, does: &[Vec<Tri>]) -> Tri {
        match value {
            Value::Const(c) => Tri::of(*c),
            Value::Lit(lit) => self.lit(*lit, held, does),
        }
    }

    fn lit(&self, lit: Lit, held: Option<u32>, does: &[Vec<Tri>]) -> Tri {
        let value = match lit.prop {
            Prop::Base(f) if self.in_group[f as usize] => Tri::of(held == Some(f)),
            Prop::Base(_) | Prop::Deferred(_) => Tri::Unknown,
            Prop::Does(r, mv) => does[r as usize][mv as usize],
            Prop::Node(n) => self.values[n as usize],
        };
        if lit.positive {
            value
        } else {
            value.not()
        }
    }
}

/// For every node of `ground`, whether its value may differ between abstract states of a group
/// (whose facts `in_group` marks) or between joint moves: whether it reads a fact of the group
/// or a move, directly or through other nodes. Nodes in recursive groups are always unknown, so
/// never vary.
fn varies(ground: &Ground, in_group: &[bool], in_cycle: &[bool]) -> Vec<bool> {
    let mut varies = vec![false; ground.nodes.len()];
    for (n, node) in ground.nodes.iter().enumerate() {
        varies[n] = !in_cycle[n]
            && node.rules.iter().flatten().any(|lit| match lit.prop {
                Prop::Base(f) => in_group[f as usize],
                Prop::Does(..) => true,
                Prop::Node(m) => varies[m as usize],
                Prop::Deferred(_) => false,
            });
    }
    varies
}

/// The two sets of nodes an abstract state evaluates.
#[derive(Clone, Copy)]
enum Cone {
    /// What decides the moves: `legal` and `terminal`.
    Deciding,
    /// What makes the group's facts: their `next`.
    Making,
}

/// Steps `choice` to the next joint move of `possible`, as an odometer.
fn advance(choice: &mut [usize], possible: &[Vec<u32>]) {
    for (r, slot) in choice.iter_mut().enumerate() {
        *slot += 1;
        if *slot < possible[r].len() {
            return;
        }
        *slot = 0;
    }
}

/// Removes the base facts `never` (never true) from `ground`: rules that need one go, negations
/// of one are dropped from their rules, outputs that are one become constants, and the other
/// facts are numbered anew in the same order ([`super::layout::renumber`], the facts `never`
/// moved past them and cut off; no initial fact is among them, since the pass starts there).
fn remove(ground: &mut Ground, never: &BTreeSet<u32>) {
    let is_never = |lit: &Lit| matches!(lit.prop, Prop::Base(f) if never.contains(&f));
    for node in &mut ground.nodes {
        node.rules.retain(|rule| !rule.iter().any(|lit| lit.positive && is_never(lit)));
        for rule in &mut node.rules {
            rule.retain(|lit| !is_never(lit));
        }
    }
    for output in ground.outputs_mut() {
        if let Value::Lit(lit) = *output {
            if is_never(&lit) {
                *output = Value::Const(!lit.positive);
            }
        }
    }
    let kept = ground.base.len() - never.len();
    let (mut next_kept, mut next_never) = (0u32, kept as u32);
    let bit_of: Vec<u32> = (0..ground.base.len() as u32)
        .map(|f| {
            let slot = if never.contains(&f) { &mut next_never } else { &mut next_kept };
            *slot += 1;
            *slot - 1
        })
        .collect();
    super::layout::renumber(ground, &bit_of);
    ground.base.truncate(kept);
    ground.next.truncate(kept);
}

#[cfg(test)]
mod tests;
