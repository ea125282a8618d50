//! Which nodes of a role's block are needed only when a node computed before them holds, and are
//! computed inside a test of it: chess_200's search for a second source of check
//! (`multipleCheckSources`, and the sources by file and rank it reads) is read only by rules of
//! legal moves that hold `(inCheck white)`, rarely true, so white's block makes it inside
//! `if (inCheck white) { }`.
//!
//! A node is skipped only where no node computed reads it: every rule that reads it either has
//! its gate among its positive literals, and is false without the gate, or is the rule of a node
//! skipped with it. So every node the block computes is right, and a skipped node keeps its
//! value from before, which nothing reads. Nodes that the values (`terminal`, the legal moves,
//! `next`, the goals) read themselves are never skipped.

use crate::ground::readers::Readers;
use crate::ground::{Ground, Prop};
use std::collections::{BTreeMap, BTreeSet};

/// The fewest literals the rules of the nodes behind one gate must have for the gate to be
/// tested: chess_200's 40,000 behind `(inCheck white)` are, the 2 to 20 of the gates of
/// linesOfAction's and hitori's lines are not (linesOfAction made 3.6% more instructions a
/// state change with them).
pub(crate) const MIN_GATED_LITERALS: usize = 64;

/// What the gates of a block are found from.
pub(crate) struct Block<'a> {
    pub(crate) ground: &'a Ground,
    pub(crate) readers: &'a Readers,
    /// The block's nodes, in the order they are computed.
    pub(crate) order: &'a [u32],
    /// The nodes that the values read (see [`crate::ground::readers::read_by_values`]).
    pub(crate) read_by_values: &'a [bool],
    /// The nodes computed only in other blocks, before or after this one, each of which
    /// computes again what it reads of this block's nodes: their rules are not this block's
    /// readers.
    pub(crate) elsewhere: &'a dyn Fn(u32) -> bool,
    /// The unit of evaluation of a node (a group of node words, computed whole): its nodes
    /// share their gate.
    pub(crate) unit: &'a dyn Fn(u32) -> Option<u32>,
    /// The nodes that may be skipped: not in a recursive group, nor computed with a twin.
    pub(crate) may_skip: &'a dyn Fn(u32) -> bool,
    /// The fewest literals the rules of the nodes behind one gate must have for the gate to be
    /// tested ([`MIN_GATED_LITERALS`]).
    pub(crate) min_literals: usize,
}

/// The gate of each node of the block that has one: a node of the block, itself never skipped,
/// that every computed reader holds (see the module's documentation).
pub(crate) fn gates(block: &Block) -> BTreeMap<u32, u32> {
    let nodes = block.ground.nodes.len();
    let mut in_block = vec![false; nodes];
    block.order.iter().for_each(|&n| in_block[n as usize] = true);
    let mut gate: Vec<Option<u32>> = vec![None; nodes];
    let mut decided = vec![false; nodes];
    // The nodes some node is gated by: those are never skipped.
    let mut is_gate = vec![false; nodes];
    // Readers come after what they read, and a unit's nodes together: backwards, every reader
    // of a unit is decided before it.
    let mut i = block.order.len();
    while i > 0 {
        let unit = (block.unit)(block.order[i - 1]);
        let mut start = i - 1;
        while unit.is_some() && start > 0 && (block.unit)(block.order[start - 1]) == unit {
            start -= 1;
        }
        let members = &block.order[start..i];
        let candidates = unit_candidates(block, members, &in_block, &gate);
        let usable = |g: u32| {
            in_block[g as usize] && !members.contains(&g) && (!decided[g as usize] || gate[g as usize].is_none())
        };
        let chosen = match members.iter().any(|&m| is_gate[m as usize]) {
            true => None,
            false => candidates.into_iter().find(|&g| usable(g)),
        };
        if let Some(g) = chosen {
            is_gate[g as usize] = true;
        }
        for &m in members {
            gate[m as usize] = chosen;
            decided[m as usize] = true;
        }
        i = start;
    }
    // A gate whose nodes are few costs more, a branch and the nodes cleared at every call,
    // than it saves: its nodes are made whatever holds. Nothing else is gated through them,
    // so the other gates stand.
    let mut literals: BTreeMap<u32, usize> = BTreeMap::new();
    for &n in block.order {
        if let Some(g) = gate[n as usize] {
            *literals.entry(g).or_default() += block.ground.nodes[n as usize].rules.iter().map(Vec::len).sum::<usize>();
        }
    }
    let worth = |g: u32| literals.get(&g).is_some_and(|&l| l >= block.min_literals);
    block.order.iter().filter_map(|&n| gate[n as usize].filter(|&g| worth(g)).map(|g| (n, g))).collect()
}

/// The nodes every reader of the unit `members` holds, or is gated by: empty when a value
/// reads one of them, when one may not be skipped, or when nothing reads them.
fn unit_candidates(block: &Block, members: &[u32], in_block: &[bool], gate: &[Option<u32>]) -> BTreeSet<u32> {
    let mut common: Option<BTreeSet<u32>> = None;
    for &m in members {
        if block.read_by_values[m as usize] || !(block.may_skip)(m) {
            return BTreeSet::new();
        }
        for &(head, r) in block.readers.rules_reading(m) {
            if !in_block[head as usize] && (block.elsewhere)(head) {
                continue;
            }
            let rule = &block.ground.nodes[head as usize].rules[r as usize];
            let mut held: BTreeSet<u32> = rule
                .iter()
                .filter_map(|lit| match lit.prop {
                    Prop::Node(g) if lit.positive && g != m => Some(g),
                    _ => None,
                })
                .collect();
            if in_block[head as usize] {
                held.extend(gate[head as usize]);
            }
            common = Some(match common {
                None => held,
                Some(had) => had.intersection(&held).copied().collect(),
            });
            if common.as_ref().is_some_and(BTreeSet::is_empty) {
                return BTreeSet::new();
            }
        }
    }
    common.unwrap_or_default()
}

/// The block's nodes in an order that computes each gated node after its gate: a gated node
/// whose gate comes later waits for it, with the nodes gated alike, and follows it.
pub(crate) fn order(order: &[u32], gates: &BTreeMap<u32, u32>) -> Vec<u32> {
    let mut out = Vec::with_capacity(order.len());
    let mut done = BTreeSet::new();
    let mut waiting: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for &n in order {
        match gates.get(&n) {
            Some(&g) if !done.contains(&g) => waiting.entry(g).or_default().push(n),
            _ => {
                out.push(n);
                done.insert(n);
                if let Some(after) = waiting.remove(&n) {
                    done.extend(after.iter().copied());
                    out.extend(after);
                }
            }
        }
    }
    // A gate is a node of the block, so nothing is left waiting.
    out.extend(waiting.into_values().flatten());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One role takes cells; in check (a cell threatened), it may take one only when there are
    /// not several sources of threat, found from the pairs of sources, or block a source of a
    /// pair.
    const CHECKS: &str = "
        (role a)
        (cell 1) (cell 2) (cell 3)
        (<= (check a) (true (threat ?c)))
        (<= (pair ?s ?t) (true (source ?s)) (true (source ?t)) (distinct ?s ?t))
        (<= several (pair ?s ?t) (true (taken ?s)))
        (<= (legal a (block ?s)) (check a) (pair ?s ?t))
        (<= (legal a (take ?c)) (not (check a)) (cell ?c) (not (true (taken ?c))))
        (<= (legal a (take ?c)) (check a) (not several) (cell ?c) (not (true (taken ?c))))
        (<= (next (taken ?c)) (does a (take ?c)))
        (<= (next (taken ?c)) (true (taken ?c)))
        (<= (next (source ?c)) (does a (take ?c)))
        (<= (next (source ?c)) (true (source ?c)))
        (<= (next (threat ?c)) (does a (take ?c)))
        (<= terminal (true (taken 1)) (true (taken 2)) (true (taken 3)))
        (<= (goal a 50))";

    fn block_gates(source: &str, read_directly: &[&str]) -> (Ground, BTreeMap<u32, u32>, Vec<u32>) {
        let ground = crate::compile::ground_source(source, &Default::default()).expect("grounds");
        let readers = Readers::new(&ground);
        let order: Vec<u32> = (0..ground.nodes.len() as u32).collect();
        let index = |name: &str| ground.nodes.iter().position(|n| n.name == name).expect(name);
        let mut read = vec![false; ground.nodes.len()];
        read_directly.iter().for_each(|name| read[index(name)] = true);
        let block = Block {
            ground: &ground,
            readers: &readers,
            order: &order,
            read_by_values: &read,
            elsewhere: &|_| false,
            unit: &|_| None,
            may_skip: &|_| true,
            min_literals: 1,
        };
        let gates = gates(&block);
        let ordered = super::order(&order, &gates);
        (ground, gates, ordered)
    }

    #[test]
    fn a_node_read_only_by_rules_that_hold_a_node_is_gated_by_it() {
        let ground = crate::compile::ground_source(CHECKS, &Default::default()).expect("grounds");
        let legal: Vec<&str> =
            (ground.nodes.iter().map(|n| n.name.as_str())).filter(|n| n.starts_with("(legal")).collect();
        let (ground, gates, ordered) = block_gates(CHECKS, &legal);
        let index = |name: &str| ground.nodes.iter().position(|n| n.name == name).expect(name) as u32;
        let (check, several) = (index("(check a)"), index("several"));
        assert_eq!(gates.get(&several), Some(&check));
        // The gate itself, and the legal moves that the values read, are made whatever holds.
        assert_eq!(gates.len(), 1, "{gates:?}");
        let at = |n: u32| ordered.iter().position(|&m| m == n).expect("ordered");
        assert!(at(check) < at(several));
        // Read by a value, a node is made whatever holds.
        let (_, gates, _) = block_gates(CHECKS, &[&legal[..], &["several"]].concat());
        assert!(gates.is_empty(), "{gates:?}");
    }

    #[test]
    fn a_node_gated_by_a_later_node_follows_it_with_the_nodes_gated_alike() {
        let gates = BTreeMap::from([(1, 4), (3, 4), (5, 2)]);
        assert_eq!(order(&[1, 2, 3, 4, 5, 6], &gates), [2, 4, 1, 3, 5, 6]);
    }
}
