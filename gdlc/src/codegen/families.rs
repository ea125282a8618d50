//! Word-parallel evaluation of rule families. When many rules of a node are one conjunction of
//! base-fact literals placed at different bits of the state (the lines of four of connectFour,
//! a row of cells of a board), the node is evaluated a word at a time: the state's words are
//! shifted so that every literal's fact lines up with the first one's, `&`-ed together, and the
//! rules' first facts (their anchors) are tested all at once.

use crate::ground::{Ground, Lit, Prop};
use std::collections::BTreeMap;

/// The fewest rules of one shape that are evaluated as a family.
pub const FAMILY_MIN: usize = 4;

/// Rules of one shape: the same literals, moved by different numbers of bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Family {
    /// The literals relative to the anchor: how many bits past it the fact is, and whether the
    /// literal is positive. The first is the anchor itself, at 0.
    pub literals: Vec<(u32, bool)>,
    /// The anchors of the rules, as a mask per state word.
    pub anchors: Vec<u64>,
}

/// A rule of a family: its anchor, its literals, and its index among the node's rules.
type Member = (u32, Vec<Lit>, usize);

/// A node's families, whose rules are the first `rules` of the node.
#[derive(Clone, Debug, Default)]
pub struct Families {
    pub families: Vec<Family>,
    pub rules: usize,
}

/// Rewrites the nodes of `ground` that have rule families so that the rules of their families
/// come first and read only base facts (inlining the one-rule nodes that decomposition split
/// them into, so that those are not evaluated for them), and returns every node's families
/// (none for most). A node's rules that are in no family stay as they were.
pub fn vectorize(ground: &mut Ground) -> Vec<Families> {
    let words = super::words(ground.base.len());
    let in_cycle = super::cones::in_cycle(ground);
    let flat = flat_nodes(ground);
    let mut families = vec![Families::default(); ground.nodes.len()];
    for (n, node) in ground.nodes.iter_mut().enumerate() {
        if in_cycle[n] || node.rules.len() < FAMILY_MIN {
            continue;
        }
        // Rules by shape: literals relative to the anchor, the anchors, and the flat rules.
        let mut shapes: BTreeMap<Vec<(u32, bool)>, Vec<Member>> = BTreeMap::new();
        let mut rest = Vec::new();
        for (index, rule) in node.rules.iter().enumerate() {
            match flatten(rule, &flat) {
                Some(lits) if !lits.is_empty() => {
                    let (anchor, shape) = shape_of(&lits);
                    shapes.entry(shape).or_default().push((anchor, lits, index));
                }
                _ => rest.push(rule.clone()),
            }
        }
        let mut rules = Vec::new();
        for (shape, members) in shapes {
            // A fact and its negation in one rule: the rule never holds.
            if !satisfiable(&shape) {
                continue;
            }
            if members.len() < FAMILY_MIN {
                rest.extend(members.iter().map(|&(_, _, index)| node.rules[index].clone()));
                continue;
            }
            let mut anchors = vec![0u64; words];
            for (anchor, lits, _) in members {
                anchors[anchor as usize / 64] |= 1 << (anchor % 64);
                rules.push(lits);
            }
            families[n].families.push(Family { literals: shape, anchors });
        }
        if families[n].families.is_empty() {
            continue;
        }
        families[n].rules = rules.len();
        rules.extend(rest);
        node.rules = rules;
    }
    families
}

/// The base literals each node stands for, when it is one conjunction of them (through other
/// such nodes), sorted.
pub fn flat_nodes(ground: &Ground) -> Vec<Option<Vec<Lit>>> {
    let in_cycle = super::cones::in_cycle(ground);
    // Nodes come in evaluation order, so one pass settles them.
    let mut flat: Vec<Option<Vec<Lit>>> = vec![None; ground.nodes.len()];
    for (n, node) in ground.nodes.iter().enumerate() {
        if let ([rule], false) = (node.rules.as_slice(), in_cycle[n]) {
            flat[n] = flatten(rule, &flat);
        }
    }
    flat
}

/// The anchor (the first fact) of a non-empty conjunction of base literals, and its shape:
/// its literals relative to the anchor, sorted.
pub fn shape_of(lits: &[Lit]) -> (u32, Vec<(u32, bool)>) {
    let anchor = lits.iter().map(base_of).min().unwrap_or_default();
    let mut shape: Vec<(u32, bool)> = lits.iter().map(|l| (base_of(l) - anchor, l.positive)).collect();
    shape.sort_unstable();
    shape.dedup();
    (anchor, shape)
}

/// Whether a shape holds somewhere: it has no fact both positive and negative.
pub fn satisfiable(shape: &[(u32, bool)]) -> bool {
    !shape.windows(2).any(|w| w[0].0 == w[1].0)
}

/// A rule's literals with every positive literal of a flat node replaced by its base
/// literals, when all of them are base literals then.
pub fn flatten(rule: &[Lit], flat: &[Option<Vec<Lit>>]) -> Option<Vec<Lit>> {
    let mut out = Vec::new();
    for &lit in rule {
        match lit.prop {
            Prop::Base(_) => out.push(lit),
            Prop::Node(m) if lit.positive => out.extend(flat[m as usize].as_ref()?.iter().copied()),
            _ => return None,
        }
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

fn base_of(lit: &Lit) -> u32 {
    match lit.prop {
        Prop::Base(b) => b,
        _ => unreachable!("flat rules have base literals only"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_a_board_form_one_family() {
        // Four rows of a 4x4 board, one bit per cell, rows 4 bits apart, plus a rule of
        // another shape.
        let text = "(role a) (i 1) (i 2) (i 3) (i 4) (init c)
            (<= (legal a (set ?i ?j)) (i ?i) (i ?j))
            (<= (next (x ?i ?j)) (does a (set ?i ?j)))
            (<= (next (x ?i ?j)) (true (x ?i ?j)))
            (<= (next c) (true c))
            (<= line (true (x 1 1)) (true (x 2 1)) (true (x 3 1)))
            (<= line (true (x 1 2)) (true (x 2 2)) (true (x 3 2)))
            (<= line (true (x 1 3)) (true (x 2 3)) (true (x 3 3)))
            (<= line (true (x 1 4)) (true (x 2 4)) (true (x 3 4)))
            (<= line (true (x 4 1)) (true (x 4 4)))
            (<= terminal line) (goal a 0)";
        let description = crate::parse::parse(text, crate::parse::Syntax::Kif).description;
        let mut ground = crate::ground::ground(&description, &Default::default()).expect("grounds");
        // The node that `line` (or `terminal`, into which simplification may fold it) became.
        let line = ground.nodes.iter().position(|n| n.rules.len() == 5).expect("a node of five rules");
        let rules_before = ground.nodes[line].rules.len();
        let families = vectorize(&mut ground);
        assert_eq!(families.iter().filter(|f| !f.families.is_empty()).count(), 1);
        let base = |name: &str| ground.base.iter().position(|b| b == name).unwrap() as u32;
        assert_eq!(families[line].families.len(), 1, "{:?}", families[line]);
        assert_eq!(families[line].rules, 4);
        let family = &families[line].families[0];
        let offsets: Vec<u32> = family.literals.iter().map(|&(d, _)| d).collect();
        let first = base("(x 1 1)");
        assert_eq!(offsets, vec![0, base("(x 2 1)") - first, base("(x 3 1)") - first]);
        let anchors: Vec<u32> = (0..64).filter(|b| family.anchors[0] >> b & 1 == 1).collect();
        assert_eq!(anchors, vec![base("(x 1 1)"), base("(x 1 2)"), base("(x 1 3)"), base("(x 1 4)")]);
        // The rule of another shape stays.
        assert_eq!(ground.nodes[line].rules.len(), rules_before);
    }
}
