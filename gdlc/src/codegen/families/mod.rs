//! Word-parallel evaluation of rule families. When many rules of a node are one conjunction of
//! base-fact literals placed at different bits of the state (the lines of four of connectFour,
//! a row of cells of a board), the node is evaluated a word at a time: the state's words are
//! shifted so that every literal's fact lines up with the first one's, `&`-ed together, and the
//! rules' first facts (their anchors) are tested all at once.
//!
//! The analysis is here: [`vectorize`] finds every node's families; `emit.rs` writes a
//! family's test, and `runs.rs` the families that are runs of equally spaced facts (a line of
//! four), with twin nodes of runs tested two words at once.

mod emit;
mod runs;

pub(crate) use emit::{family_expr, family_word};

use crate::ground::{Ground, Lit, Prop};
use std::collections::BTreeMap;

/// The fewest rules of one shape that are evaluated as a family.
pub(super) const FAMILY_MIN: usize = 4;

/// The most base literals a node's rules may expand to (see [`dnf_nodes`]) for the expansion
/// to be used: enough for every line of five of a 6x6 board, few enough that a node's expansion
/// stays small in memory and in the code that evaluates it.
pub(super) const DNF_MAX_LITERALS: usize = 256;

/// Rules of one shape: the same literals, moved by different numbers of bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Family {
    /// The literals relative to the anchor: how many bits past it the fact is, and whether the
    /// literal is positive. The first is the anchor itself, at 0.
    pub literals: Vec<(u32, bool)>,
    /// The anchors of the rules, as a mask per state word.
    pub anchors: Vec<u64>,
}

impl Family {
    /// About the operations that evaluate the family: a shift and an `&` per literal and word
    /// that has anchors, and a test.
    pub(super) fn cost(&self) -> usize {
        let words = self.anchors.iter().filter(|&&a| a != 0).count();
        2 * self.literals.len() * words + 2
    }
}

/// A rule of a family: its anchor, its literals, and its index among the node's rules.
type Member = (u32, Vec<Lit>, usize);

/// A node's families, whose rules are the first `rules` of the node.
#[derive(Clone, Debug, Default)]
pub(super) struct Families {
    pub families: Vec<Family>,
    pub rules: usize,
}

impl Families {
    /// About the operations that evaluate a node with these families by itself, given its
    /// `rules` (the families' first): the families', and its other rules'.
    pub(super) fn cost(&self, rules: &[Vec<Lit>]) -> usize {
        let rest = &rules[self.rules..];
        self.families.iter().map(Family::cost).sum::<usize>() + rest.iter().map(|rule| rule.len() + 1).sum::<usize>()
    }
}

/// Rewrites the nodes of `ground` that have rule families so that the rules of their families
/// come first and read only base facts (inlining the one-rule nodes that decomposition split
/// them into, so that those are not evaluated for them), and returns every node's families
/// (none for most). A node's rules that are in no family stay as they were.
///
/// A rule is read through the rules of the nodes it reads ([`dnf_nodes`]): a line of five that
/// decomposition split into a chain of nodes shared by several lines (a run of two, a run of
/// three, ...) is one conjunction of five facts again, of the same shape as the other lines.
pub(super) fn vectorize(ground: &mut Ground) -> Vec<Families> {
    let words = super::words(ground.base.len());
    let in_cycle = ground.in_cycle();
    let dnf = dnf_nodes(ground);
    let original: Vec<Vec<Vec<Lit>>> = ground.nodes.iter().map(|node| node.rules.clone()).collect();
    let mut families = vec![Families::default(); ground.nodes.len()];
    for (n, node) in ground.nodes.iter_mut().enumerate() {
        if in_cycle[n] {
            continue;
        }
        // Rules by shape: literals relative to the anchor, the anchors, and the flat rules.
        let mut shapes: BTreeMap<Vec<(u32, bool)>, Vec<Member>> = BTreeMap::new();
        let mut rest = Vec::new();
        let expansions: Vec<Option<Vec<Vec<Lit>>>> = node.rules.iter().map(|rule| expand(rule, &dnf)).collect();
        // How many conjunctions each rule expanded to (one when it did not).
        let sizes: Vec<usize> = expansions.iter().map(|e| e.as_ref().map_or(1, Vec::len)).collect();
        if sizes.iter().sum::<usize>() < FAMILY_MIN {
            continue;
        }
        for (index, expansion) in expansions.into_iter().enumerate() {
            match expansion {
                // A rule that always holds stays as it is.
                Some(conjunctions) if conjunctions.iter().all(|lits| !lits.is_empty()) => {
                    for lits in conjunctions {
                        let (anchor, shape) = shape_of(&lits);
                        shapes.entry(shape).or_default().push((anchor, lits, index));
                    }
                }
                _ => rest.push(node.rules[index].clone()),
            }
        }
        let mut rules = Vec::new();
        // Rules of which some conjunction is in no family: the others in no family, flat.
        let mut left: BTreeMap<usize, Vec<Vec<Lit>>> = BTreeMap::new();
        for (shape, members) in shapes {
            // A fact and its negation in one rule: the rule never holds.
            if !satisfiable(&shape) {
                continue;
            }
            if members.len() < FAMILY_MIN {
                for (_, lits, index) in members {
                    left.entry(index).or_default().push(lits);
                }
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
        // Rules read through nodes of several rules become more conjunctions than they were
        // rules: worth it only when the families cost less than the rules and those nodes.
        if sizes.iter().any(|&size| size > 1) {
            let left_cost: usize = left.values().flatten().map(Vec::len).sum();
            let family_cost: usize = families[n].families.iter().map(Family::cost).sum();
            if family_cost + left_cost >= plain_cost(n, &original, &dnf) {
                families[n] = Families::default();
                continue;
            }
        }
        for (index, lits) in left {
            // A rule that is one conjunction stays as written (it may read a node that other
            // nodes need anyway); one that expanded to several keeps only those left over.
            if sizes[index] > 1 {
                rest.extend(lits);
            } else {
                rest.push(node.rules[index].clone());
            }
        }
        families[n].rules = rules.len();
        rules.extend(rest);
        node.rules = rules;
    }
    families
}

/// The literals that evaluating node `n` rule by rule tests: its own, and those of the nodes
/// its rules read through (see [`expand`]), each once.
fn plain_cost(n: usize, rules: &[Vec<Vec<Lit>>], dnf: &[Option<Vec<Vec<Lit>>>]) -> usize {
    let mut seen = std::collections::BTreeSet::new();
    let mut stack = vec![n];
    let mut cost = 0;
    while let Some(m) = stack.pop() {
        if !seen.insert(m) {
            continue;
        }
        for rule in &rules[m] {
            cost += rule.len();
            for lit in rule {
                if let (Prop::Node(k), true) = (lit.prop, lit.positive) {
                    if dnf[k as usize].is_some() {
                        stack.push(k as usize);
                    }
                }
            }
        }
    }
    cost
}

/// Every node's rules as conjunctions of base literals, read through the positive literals of
/// the nodes they read (a disjunctive normal form), sorted, without conjunctions that never
/// hold; `None` for a node that reads anything else, is recursive, whose form has more than
/// [`DNF_MAX_LITERALS`] literals, or is a truth table.
pub(super) fn dnf_nodes(ground: &Ground) -> Vec<Option<Vec<Vec<Lit>>>> {
    let in_cycle = ground.in_cycle();
    // Nodes come in evaluation order, so one pass settles them.
    let mut dnf: Vec<Option<Vec<Vec<Lit>>>> = vec![None; ground.nodes.len()];
    for (n, node) in ground.nodes.iter().enumerate() {
        if in_cycle[n] {
            continue;
        }
        let mut all: Option<Vec<Vec<Lit>>> = Some(Vec::new());
        for rule in &node.rules {
            let (Some(conjunctions), Some(so_far)) = (expand(rule, &dnf), all.as_mut()) else {
                all = None;
                break;
            };
            so_far.extend(conjunctions);
            if so_far.iter().map(Vec::len).sum::<usize>() > DNF_MAX_LITERALS {
                all = None;
            }
        }
        if let Some(all) = all.as_mut() {
            all.sort_unstable();
            all.dedup();
        }
        // A node that is one small truth table (ticTacToe's lines of one mark) is looked up,
        // which is cheaper than its rules spread over the nodes that read it.
        dnf[n] = all.filter(|all| super::truth_tables::TruthTable::of(all).is_none());
    }
    dnf
}

/// A rule's conjunctions of base literals: its positive node literals replaced by their
/// nodes' forms of [`dnf_nodes`]; `None` when it reads anything else or has more than
/// [`DNF_MAX_LITERALS`] literals.
pub(super) fn expand(rule: &[Lit], dnf: &[Option<Vec<Vec<Lit>>>]) -> Option<Vec<Vec<Lit>>> {
    let mut conjunctions: Vec<Vec<Lit>> = vec![Vec::new()];
    for &lit in rule {
        match lit.prop {
            Prop::Base(_) => conjunctions.iter_mut().for_each(|c| c.push(lit)),
            Prop::Node(m) if lit.positive => {
                let forms = dnf[m as usize].as_ref()?;
                let mut product = Vec::with_capacity(conjunctions.len() * forms.len());
                let mut literals = 0;
                for c in &conjunctions {
                    for form in forms {
                        literals += c.len() + form.len();
                        if literals > DNF_MAX_LITERALS {
                            return None;
                        }
                        product.push(c.iter().chain(form).copied().collect::<Vec<Lit>>());
                    }
                }
                conjunctions = product;
            }
            _ => return None,
        }
    }
    for c in &mut conjunctions {
        c.sort_unstable();
        c.dedup();
    }
    // A fact and its negation in one conjunction: it never holds.
    conjunctions.retain(|c| !c.windows(2).any(|w| w[0].prop == w[1].prop));
    Some(conjunctions)
}

/// The base literals each node stands for, when it is one conjunction of them (through other
/// such nodes), sorted.
pub(super) fn flat_nodes(ground: &Ground) -> Vec<Option<Vec<Lit>>> {
    let in_cycle = ground.in_cycle();
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
pub(super) fn shape_of(lits: &[Lit]) -> (u32, Vec<(u32, bool)>) {
    let anchor = lits.iter().map(base_of).min().unwrap_or_default();
    let mut shape: Vec<(u32, bool)> = lits.iter().map(|l| (base_of(l) - anchor, l.positive)).collect();
    shape.sort_unstable();
    shape.dedup();
    (anchor, shape)
}

/// Whether a shape holds somewhere: it has no fact both positive and negative.
pub(super) fn satisfiable(shape: &[(u32, bool)]) -> bool {
    !shape.windows(2).any(|w| w[0].0 == w[1].0)
}

/// A rule's literals with every positive literal of a flat node replaced by its base
/// literals, when all of them are base literals then.
pub(super) fn flatten(rule: &[Lit], flat: &[Option<Vec<Lit>>]) -> Option<Vec<Lit>> {
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
    use crate::ground::Node;

    #[test]
    fn rules_read_through_nodes_of_several_rules_form_families() {
        // `line` reads `(run2 i)`, a node of two rules for each row i (decomposition makes such
        // nodes of a long rule): spread out, it is two shapes of four rows each.
        let text = "(role a) (i 1) (i 2) (i 3) (i 4) (j 1) (j 2) (j 3)
            (<= (legal a (set ?i ?j)) (i ?i) (j ?j))
            (<= (next (x ?i ?j)) (does a (set ?i ?j)))
            (<= (next (y ?i ?j)) (does a (set ?i ?j)))
            (<= terminal (true (x 1 1))) (goal a 0)";
        let description = crate::parse::parse(text, crate::parse::Syntax::Kif).description;
        let mut ground = crate::ground::ground(&description, &Default::default()).expect("grounds");
        let base = |name: String| Lit::pos(Prop::Base(ground.base.iter().position(|b| *b == name).unwrap() as u32));
        let mut nodes = Vec::new();
        for i in 1..=4 {
            let run2 = vec![
                vec![base(format!("(x {i} 1)")), base(format!("(x {i} 2)"))],
                vec![base(format!("(y {i} 1)")), base(format!("(y {i} 2)"))],
            ];
            nodes.push(Node { name: format!("(run2 {i})"), rules: run2 });
        }
        let line = nodes.len();
        let rules = (1..=4).map(|i| vec![Lit::pos(Prop::Node(i - 1)), base(format!("(x {i} 3)"))]).collect();
        nodes.push(Node { name: "line".to_string(), rules });
        ground.nodes = nodes;
        let families = vectorize(&mut ground);
        assert_eq!(families[line].families.len(), 2, "{:?}", families[line]);
        assert_eq!(families[line].rules, 8);
        for family in &families[line].families {
            let anchors: u32 = family.anchors.iter().map(|a| a.count_ones()).sum();
            assert_eq!((anchors, family.literals.len()), (4, 3));
        }
        // Every rule of `line` now reads base facts only.
        assert!(ground.nodes[line].rules.iter().flatten().all(|l| matches!(l.prop, Prop::Base(_))));
    }

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
