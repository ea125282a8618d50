//! Thresholds: the rules of a proposition that say "at least k of these n conditions hold"
//! become a chain of counts, n times k small propositions, in place of one rule per choice of
//! k conditions.
//!
//! chineseCheckers4 lets a player pass when three distinct pieces of its are stuck:
//! `(true (cell ?b1 ?p)) (stuck ?b1 ?p) (true (cell ?b2 ?p)) (stuck ?b2 ?p) ...` with the three
//! cells pairwise distinct. Grounded, that is one rule per set of three cells, 2,300 rules of
//! seven literals for each role, which every evaluation of `legal` reads. Here the rules of a
//! proposition are recognised as every choice of `k` among `n` items (each item a set of
//! literals, the cell's piece and its being stuck), beside literals they all share (whose turn
//! it is), and replaced by one rule of the shared literals and a proposition "at least `k` of
//! the `n` items hold", computed item by item: at least `j` of the first `i` items hold when
//! at least `j` of the first `i - 1` do, or item `i` holds and at least `j - 1` of the first
//! `i - 1` do.

use super::{Ground, Lit, Node, Prop};
use std::collections::BTreeMap;

/// The fewest rules of a family worth rewriting.
const MIN_RULES: usize = 10;

/// A family of rules: every choice of `k` of the `items`, each rule also holding `common`.
#[derive(Debug, PartialEq, Eq)]
struct Family {
    /// Indices of the rules in the proposition's rules.
    rules: Vec<usize>,
    /// The literals of each rule.
    length: usize,
    common: Vec<Lit>,
    items: Vec<Vec<Lit>>,
    k: usize,
}

/// Rewrites every family of rules that choose `k` of `n` items into a chain of counts, in the
/// propositions outside recursive groups and without atoms proved at run time. Returns whether
/// anything changed; the new propositions are appended, and the caller orders them.
pub(super) fn count_thresholds(ground: &mut Ground) -> bool {
    let mut changed = false;
    for (v, recursive) in ground.in_cycle().into_iter().enumerate() {
        let node = &ground.nodes[v];
        if recursive || node.rules.len() < MIN_RULES || node.reads_deferred() {
            continue;
        }
        let families = families(&node.rules);
        if families.is_empty() {
            continue;
        }
        let mut replaced = vec![false; node.rules.len()];
        families.iter().flat_map(|f| &f.rules).for_each(|&r| replaced[r] = true);
        let name = node.name.clone();
        let counted: Vec<Vec<Lit>> =
            families.into_iter().enumerate().map(|(f, family)| chain(ground, &name, f, family)).collect();
        let rules = std::mem::take(&mut ground.nodes[v].rules);
        let mut kept: Vec<Vec<Lit>> =
            rules.into_iter().zip(replaced).filter(|(_, r)| !r).map(|(rule, _)| rule).collect();
        kept.extend(counted);
        kept.sort_unstable();
        ground.nodes[v].rules = kept;
        changed = true;
    }
    changed
}

/// The families among `rules` worth rewriting: rules of one length, all of them a family.
fn families(rules: &[Vec<Lit>]) -> Vec<Family> {
    let mut by_length: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (r, rule) in rules.iter().enumerate() {
        by_length.entry(rule.len()).or_default().push(r);
    }
    by_length
        .into_values()
        .filter(|members| members.len() >= MIN_RULES)
        .filter_map(|members| family(rules, members))
        .filter(pays)
        .collect()
}

/// The family the rules `members` (distinct sets of literals, of one length) form, if they
/// do: the literals with the same rules are one item, and every rule must hold `k` items and
/// there be as many rules as ways of choosing `k` of the items.
fn family(rules: &[Vec<Lit>], members: Vec<usize>) -> Option<Family> {
    let mut occurrences: BTreeMap<Lit, Vec<u32>> = BTreeMap::new();
    for (i, &r) in members.iter().enumerate() {
        for &lit in &rules[r] {
            occurrences.entry(lit).or_default().push(i as u32);
        }
    }
    let mut common = Vec::new();
    let mut items: BTreeMap<Vec<u32>, Vec<Lit>> = BTreeMap::new();
    for (lit, rules_with) in occurrences {
        match rules_with.len() == members.len() {
            true => common.push(lit),
            false => items.entry(rules_with).or_default().push(lit),
        }
    }
    let mut per_rule = vec![0usize; members.len()];
    for rules_with in items.keys() {
        rules_with.iter().for_each(|&i| per_rule[i as usize] += 1);
    }
    let k = per_rule[0];
    let n = items.len();
    if k < 2 || n <= k || per_rule.iter().any(|&c| c != k) || binomial(n, k) != Some(members.len()) {
        return None;
    }
    let mut items: Vec<Vec<Lit>> = items.into_values().collect();
    items.sort_unstable();
    let length = rules[members[0]].len();
    Some(Family { rules: members, length, common, items, k })
}

/// `n` choose `k`, if it fits.
fn binomial(n: usize, k: usize) -> Option<usize> {
    let mut result: usize = 1;
    for i in 0..k {
        result = result.checked_mul(n - i)? / (i + 1);
    }
    Some(result)
}

/// Whether the chain of counts has at most half the literals of the rules it replaces, and its
/// items are not all facts of the state. Pairs of facts of the state (guess's "two values are
/// still possible") are tested a word at a time by the straight-line form's word families,
/// which measured faster than the chain (guess ran at 0.88x with it).
fn pays(family: &Family) -> bool {
    let facts = |item: &Vec<Lit>| matches!(item[..], [Lit { prop: Prop::Base(_), positive: true }]);
    if family.items.iter().all(facts) {
        return false;
    }
    let before = family.rules.len() * family.length;
    let item_literals: usize = family.items.iter().map(Vec::len).sum();
    let after = family.common.len() + 1 + family.k * (item_literals + 2 * family.items.len());
    2 * after <= before
}

/// The rule that replaces those of `family` in proposition `name`: the shared literals and a
/// new proposition "at least `k` of the items hold", added with the chain of counts it reads.
/// `(at_least j i f NAME)` holds when at least `j` of the first `i` items of the proposition's
/// family `f` hold.
fn chain(ground: &mut Ground, name: &str, f: usize, family: Family) -> Vec<Lit> {
    let n = family.items.len();
    let k = family.k;
    // count[j - 1]: the proposition "at least j of the items so far hold", for the j still
    // able to lead to k.
    let mut count: Vec<Option<u32>> = vec![None; k];
    for (i, item) in family.items.iter().enumerate() {
        let lowest = k.saturating_sub(n - 1 - i).max(1);
        let highest = k.min(i + 1);
        let mut next: Vec<Option<u32>> = vec![None; k];
        for j in lowest..=highest {
            let mut rules = Vec::new();
            if let Some(fewer) = count[j - 1] {
                rules.push(vec![Lit::pos(Prop::Node(fewer))]);
            }
            // Item i and at least j - 1 of the earlier items. An untracked count is one the
            // earlier items cannot reach (j - 1 > i), as those too low to lead to k are never
            // asked for.
            let earlier = match j {
                1 => Some(None),
                _ => count[j - 2].map(Some),
            };
            if let Some(earlier) = earlier {
                let mut with_item = item.clone();
                with_item.extend(earlier.map(|c| Lit::pos(Prop::Node(c))));
                with_item.sort_unstable();
                rules.push(with_item);
            }
            let node = ground.nodes.len() as u32;
            ground.nodes.push(Node { name: format!("(at_least {j} {} {f} {name})", i + 1), rules });
            next[j - 1] = Some(node);
        }
        count = next;
    }
    let mut rule = family.common;
    // The last item's count of k: tracked, as k <= n.
    rule.extend(count[k - 1].map(|all| Lit::pos(Prop::Node(all))));
    rule.sort_unstable();
    rule
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::Value;

    fn base(i: u32) -> Lit {
        Lit::pos(Prop::Base(i))
    }

    /// The rules "common and any `k` of `items`", one per choice.
    fn choices(common: &[Lit], items: &[Vec<Lit>], k: usize) -> Vec<Vec<Lit>> {
        let mut rules = Vec::new();
        for mask in 0u32..1 << items.len() {
            if mask.count_ones() as usize == k {
                let mut rule = common.to_vec();
                (0..items.len()).filter(|i| mask >> i & 1 == 1).for_each(|i| rule.extend(&items[i]));
                rule.sort_unstable();
                rules.push(rule);
            }
        }
        rules.sort_unstable();
        rules
    }

    /// Evaluates node `v` of `nodes` (in any order, none recursive) in the state `facts`.
    fn holds(nodes: &[Node], v: u32, facts: u32) -> bool {
        nodes[v as usize].rules.iter().any(|rule| {
            rule.iter().all(|lit| {
                let value = match lit.prop {
                    Prop::Base(b) => facts >> b & 1 == 1,
                    Prop::Node(m) => holds(nodes, m, facts),
                    _ => false,
                };
                value == lit.positive
            })
        })
    }

    fn one_node_ground(rules: Vec<Vec<Lit>>) -> Ground {
        let text =
            "(role a) (init c) (<= (legal a x) (true c)) (<= (next c) (true c)) (<= terminal (true c)) (goal a 0)";
        let description = crate::parse::parse(text, crate::parse::Syntax::Kif).description;
        let mut ground = crate::ground::ground(&description, &Default::default()).expect("grounds");
        ground.nodes = vec![Node { name: "(pass)".into(), rules }];
        ground.cycles = Vec::new();
        ground.next = vec![Value::Lit(Lit::pos(Prop::Node(0)))];
        ground
    }

    /// Three of seven items of two literals each (a piece on a cell and the cell stuck), one
    /// literal shared: one rule and a chain, equal to the rules in every state.
    #[test]
    fn three_of_seven_items_become_a_chain_with_the_same_value() {
        let common = vec![base(0)];
        let items: Vec<Vec<Lit>> = (0..7).map(|i| vec![base(1 + 2 * i), base(2 + 2 * i).negated()]).collect();
        let rules = choices(&common, &items, 3);
        assert_eq!(rules.len(), 35);
        let mut ground = one_node_ground(rules.clone());
        assert!(count_thresholds(&mut ground));
        assert_eq!(ground.nodes[0].rules.len(), 1);
        assert!(ground.nodes.iter().map(|n| n.rules.iter().map(Vec::len).sum::<usize>()).sum::<usize>() < 35 * 7 / 2);
        let before = [Node { name: "(pass)".into(), rules }];
        for facts in 0u32..1 << 15 {
            assert_eq!(holds(&ground.nodes, 0, facts), holds(&before, 0, facts), "state {facts:#b}");
        }
    }

    /// Rules beside the family stay; a family missing one choice is not one.
    #[test]
    fn other_rules_stay_and_incomplete_families_are_left_alone() {
        let items: Vec<Vec<Lit>> = (0..8).map(|i| vec![base(2 * i), base(2 * i + 1)]).collect();
        let mut rules = choices(&[], &items, 3);
        rules.push(vec![base(20)]);
        let mut ground = one_node_ground(rules);
        assert!(count_thresholds(&mut ground));
        assert!(ground.nodes[0].rules.contains(&vec![base(20)]));
        assert_eq!(ground.nodes[0].rules.len(), 2);

        let mut incomplete = choices(&[], &items, 3);
        incomplete.remove(3);
        let mut ground = one_node_ground(incomplete.clone());
        assert!(!count_thresholds(&mut ground));
        assert_eq!(ground.nodes[0].rules, incomplete);
    }

    /// Two families in one proposition (chineseCheckers4's pass: two stuck pieces when the
    /// player has moved a piece home, three otherwise), beside a rule of their own: both
    /// rewritten, and the value the same in every state.
    #[test]
    fn two_families_of_one_proposition_are_both_rewritten() {
        let items: Vec<Vec<Lit>> = (0..8).map(|i| vec![base(2 * i), base(2 * i + 1).negated()]).collect();
        let mut rules = choices(&[base(16)], &items, 2);
        rules.extend(choices(&[base(17)], &items, 3));
        rules.push(vec![base(18), base(19)]);
        rules.sort_unstable();
        let mut ground = one_node_ground(rules.clone());
        assert!(count_thresholds(&mut ground));
        assert_eq!(ground.nodes[0].rules.len(), 3);
        let before = [Node { name: "(pass)".into(), rules }];
        for facts in (0u32..1 << 20).step_by(7) {
            assert_eq!(holds(&ground.nodes, 0, facts), holds(&before, 0, facts), "state {facts:#b}");
        }
    }

    /// Items that are each one fact of the state (two of these values still possible) are left
    /// to the straight-line form's word families.
    #[test]
    fn items_of_one_fact_each_are_left_alone() {
        let items: Vec<Vec<Lit>> = (0..20).map(|i| vec![base(i)]).collect();
        let rules = choices(&[], &items, 2);
        let mut ground = one_node_ground(rules.clone());
        assert!(!count_thresholds(&mut ground));
        assert_eq!(ground.nodes[0].rules, rules);
    }

    #[test]
    fn binomials() {
        assert_eq!(binomial(25, 3), Some(2300));
        assert_eq!(binomial(6, 2), Some(15));
        assert_eq!(binomial(10_000_000_000, 4), None);
    }
}
