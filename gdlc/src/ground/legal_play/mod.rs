//! Moves played are legal: the specification defines the next state only for a joint move of
//! legal moves, so a rule that reads `(does r m)` may take for granted whatever `(legal r m)`
//! requires of the current state. A rule whose other literals are all so required reads the
//! moves alone; one that reads the negation of one can never hold and is dropped, and so is a
//! rule that reads a move that is never legal. A rule that still reads the state is left as it
//! is, the shape of its neighbours.
//!
//! In checkers, a jump is legal only over an opponent's piece, so the rules that ask again
//! whether the jumped cell holds one reduce to the jump alone. Every node keeps its value in
//! every state and legal joint move, which is all [`gdl_runtime::Game::next_state`] promises.

use super::{Ground, Lit, Node, Prop, Value};
use rustc_hash::FxHashMap;

/// How many levels of a legal proposition's rules are searched for what it requires: the
/// proposition's own rules and the rules of the nodes they read.
const DEPTH: u32 = 2;

/// A node with more rules than this is not searched below its own literal: what it requires
/// is rarely more than what its many rules happen to share, and the search would cost more.
const MAX_RULES_SEARCHED: usize = 32;

/// What a role's playing a move tells of the current state.
#[derive(Debug, PartialEq)]
enum Requirement {
    /// The move is never legal: no legal joint move has it.
    Never,
    /// Literals that hold whenever the move is legal, sorted.
    Holds(Vec<Lit>),
}

/// Reduces to its moves every rule whose other literals its moves' legality requires, and
/// drops the rules that contradict it. Returns whether anything changed.
pub fn assume_legal_play(ground: &mut Ground) -> bool {
    let requirements = requirements(ground);
    let mut changed = false;
    for node in &mut ground.nodes {
        changed |= rewrite(node, &requirements);
    }
    // An output that is a move played never legal never holds.
    for output in ground.outputs_mut() {
        if let Value::Lit(Lit { prop: Prop::Does(role, mv), positive }) = *output {
            if requirements.get(&(role, mv)) == Some(&Requirement::Never) {
                *output = Value::Const(!positive);
                changed = true;
            }
        }
    }
    changed
}

/// For every role and move it may play, what the move's being legal requires.
fn requirements(ground: &Ground) -> FxHashMap<(u32, u32), Requirement> {
    let mut requirements = FxHashMap::default();
    for (role, legal) in ground.legal.iter().enumerate() {
        for &(mv, value) in legal {
            let requirement = match value {
                Value::Const(false) => Requirement::Never,
                Value::Const(true) => Requirement::Holds(Vec::new()),
                Value::Lit(lit) => Requirement::Holds(required_by(&ground.nodes, lit, DEPTH)),
            };
            requirements.insert((role as u32, mv), requirement);
        }
    }
    requirements
}

/// The literals that hold whenever `lit` does, `lit` among them, sorted: for a node, what every
/// one of its rules reads, searched `depth` levels down.
fn required_by(nodes: &[Node], lit: Lit, depth: u32) -> Vec<Lit> {
    let mut required = vec![lit];
    if let (true, Prop::Node(v), true) = (lit.positive, lit.prop, depth > 0) {
        required.extend(shared_by_rules(nodes, &nodes[v as usize], depth - 1));
    }
    required.sort_unstable();
    required.dedup();
    required
}

/// The literals that hold whenever one of `node`'s rules does: those every rule reads or
/// requires, searched `depth` levels below the rules.
fn shared_by_rules(nodes: &[Node], node: &Node, depth: u32) -> Vec<Lit> {
    let mut shared: Option<Vec<Lit>> = None;
    for rule in &node.rules {
        let mut lits: Vec<Lit> = Vec::with_capacity(rule.len());
        for &lit in rule {
            let searched = matches!(lit.prop, Prop::Node(v) if nodes[v as usize].rules.len() <= MAX_RULES_SEARCHED);
            if searched {
                lits.extend(required_by(nodes, lit, depth));
            } else {
                lits.push(lit);
            }
        }
        lits.sort_unstable();
        lits.dedup();
        let common = match shared {
            None => lits,
            Some(so_far) => so_far.into_iter().filter(|lit| lits.binary_search(lit).is_ok()).collect(),
        };
        if common.is_empty() {
            return common;
        }
        shared = Some(common);
    }
    shared.unwrap_or_default()
}

/// What a rule that reads moves as played becomes.
#[derive(Debug, PartialEq)]
enum Rewrite {
    /// It stays as it is.
    Keep,
    /// It can never hold in a legal joint move.
    Drop,
    /// Its moves' legality requires all its other literals: it reads these moves alone.
    MovesAlone(Vec<Lit>),
}

/// Rewrites the rules of `node` that read moves as played; returns whether one changed.
fn rewrite(node: &mut Node, requirements: &FxHashMap<(u32, u32), Requirement>) -> bool {
    let mut changed = false;
    node.rules.retain_mut(|rule| match rewritten(rule, requirements) {
        Rewrite::Keep => true,
        Rewrite::Drop => {
            changed = true;
            false
        }
        Rewrite::MovesAlone(moves) => {
            changed |= moves.len() != rule.len();
            *rule = moves;
            true
        }
    });
    changed
}

/// What `rule` becomes when its moves are legal.
fn rewritten(rule: &[Lit], requirements: &FxHashMap<(u32, u32), Requirement>) -> Rewrite {
    let mut required: Vec<&[Lit]> = Vec::new();
    for lit in rule {
        if let Prop::Does(role, mv) = lit.prop {
            match requirements.get(&(role, mv)) {
                Some(Requirement::Never) if lit.positive => return Rewrite::Drop,
                Some(Requirement::Holds(lits)) if lit.positive => required.push(lits),
                _ => {}
            }
        }
    }
    if required.is_empty() {
        return Rewrite::Keep;
    }
    let holds = |lit: &Lit| required.iter().any(|lits| lits.binary_search(lit).is_ok());
    if rule.iter().any(|lit| holds(&lit.negated())) {
        return Rewrite::Drop;
    }
    // A rule that still reads the state keeps what it reads: the code generator finds runs
    // and boards of rules of one shape, which a rule with fewer literals than its neighbours
    // would leave (connectFour's drop to the top row, whose cell is tested open as the rows
    // below are, though the drop's legality already says it is).
    let reads_moves_alone = rule.iter().all(|lit| matches!(lit.prop, Prop::Does(..)) || holds(lit));
    match reads_moves_alone {
        true => Rewrite::MovesAlone(rule.iter().copied().filter(|lit| !holds(lit)).collect()),
        false => Rewrite::Keep,
    }
}

#[cfg(test)]
mod tests;
