//! Factoring of shared literals, for the table form's incremental evaluation: the rules of a
//! proposition that share a literal become one rule of that literal and a new proposition,
//! which holds when what is left of one of those rules holds. New propositions with the same
//! rules are one, so that propositions whose rules differ only in a literal share the rest.
//!
//! A frame rule such as `(<= (next (cell ?x ?c)) (true (cell ?x ?c)) (does ?p (move ?b ?e))
//! (distinct ?x ?b) (distinct ?x ?e))` grounds to one rule per cell, colour and move: in
//! chineseCheckers6, each of the 250 facts `(true (cell ...))` is read by some 385 rules, and
//! each move by 850. Factored, `(next (cell d3 blank))` is `(true (cell d3 blank))` and a new
//! proposition that some move not touching d3 is played, shared by every colour of d3: a fact
//! is read by one rule, a move by one rule per cell.

use super::order::components;
use super::{Ground, Lit, Node, Prop};
use rustc_hash::{FxHashMap, FxHashSet};

/// The fewest rules of a proposition that a literal must be shared by to be factored out: the
/// literal is then read once rather than that many times, at the price of one proposition more.
const MIN_SHARED: usize = 4;

/// Rules that read an atom read by more rules than this (whose turn it is, in a board game)
/// are left as they are. The runtime watches them, as a SAT solver watches clauses
/// (`gdl_runtime`'s `WATCHED_READERS`): a rule of the player not to move waits on that atom and
/// is not looked at while it is false. Factored, what is left of those rules would be kept up
/// to date for both players; in shogi_ctk that doubled the propositions changed a step.
const MOST_READERS: usize = 1024;

/// Factors the rules of every proposition outside recursive groups and without atoms proved
/// at run time, then numbers the propositions in evaluation order again.
pub fn factor(ground: &mut Ground) {
    let mut skip = vec![false; ground.nodes.len()];
    for component in components(&ground.nodes) {
        if component.cyclic {
            component.nodes.iter().for_each(|&v| skip[v as usize] = true);
        }
    }
    let mut readers: FxHashMap<Prop, usize> = FxHashMap::default();
    for lit in ground.nodes.iter().flat_map(|node| node.rules.iter().flatten()) {
        *readers.entry(lit.prop).or_default() += 1;
    }
    let widely_read = readers.into_iter().filter(|&(_, count)| count > MOST_READERS).map(|(prop, _)| prop).collect();
    let mut factoring = Factoring {
        nodes: std::mem::take(&mut ground.nodes),
        made: FxHashMap::default(),
        queue: Vec::new(),
        widely_read,
    };
    factoring.queue = (0..factoring.nodes.len() as u32)
        .rev()
        .filter(|&v| !skip[v as usize] && worth_factoring(&factoring.nodes[v as usize]))
        .collect();
    while let Some(v) = factoring.queue.pop() {
        factoring.factor_node(v as usize);
    }
    ground.nodes = factoring.nodes;
    super::simplify::keep_needed_in_order(ground);
}

/// Whether a proposition has enough rules to share a literal, and none proved at run time.
fn worth_factoring(node: &Node) -> bool {
    node.rules.len() >= MIN_SHARED && !node.reads_deferred()
}

/// The propositions being factored, the ones made so far by their rules, and those left to do.
struct Factoring {
    nodes: Vec<Node>,
    made: FxHashMap<Vec<Vec<Lit>>, u32>,
    queue: Vec<u32>,
    /// The atoms read by more than [`MOST_READERS`] rules.
    widely_read: FxHashSet<Prop>,
}

impl Factoring {
    /// Takes out of proposition `v`'s rules, as long as one is shared by [`MIN_SHARED`] rules,
    /// the literal most of them share (the least literal among equals).
    fn factor_node(&mut self, v: usize) {
        let all = std::mem::take(&mut self.nodes[v].rules);
        let (watched, mut rules): (Vec<Vec<Lit>>, Vec<Vec<Lit>>) =
            all.into_iter().partition(|rule| rule.iter().any(|lit| self.widely_read.contains(&lit.prop)));
        let mut counts: FxHashMap<Lit, usize> = FxHashMap::default();
        for &lit in rules.iter().flatten() {
            *counts.entry(lit).or_default() += 1;
        }
        let mut factored = Vec::new();
        while let Some(shared) = most_shared(&counts) {
            let (with, without): (Vec<Vec<Lit>>, Vec<Vec<Lit>>) = rules.into_iter().partition(|r| r.contains(&shared));
            rules = without;
            for &lit in with.iter().flatten() {
                if let Some(count) = counts.get_mut(&lit) {
                    *count -= 1;
                }
            }
            let mut rests: Vec<Vec<Lit>> =
                with.into_iter().map(|r| r.into_iter().filter(|&l| l != shared).collect()).collect();
            // A rule of the shared literal alone holds whenever any of the others does.
            if rests.iter().any(Vec::is_empty) {
                factored.push(vec![shared]);
                continue;
            }
            rests.sort_unstable();
            rests.dedup();
            let rest = self.node_of(rests, &self.nodes[v].name.clone());
            let mut rule = vec![shared, Lit::pos(Prop::Node(rest))];
            rule.sort_unstable();
            factored.push(rule);
        }
        rules.extend(factored);
        rules.extend(watched);
        rules.sort_unstable();
        rules.dedup();
        self.nodes[v].rules = rules;
    }

    /// The proposition made with `rules`: an earlier one, or a new one, queued to be factored
    /// in turn.
    fn node_of(&mut self, rules: Vec<Vec<Lit>>, origin: &str) -> u32 {
        if let Some(&n) = self.made.get(&rules) {
            return n;
        }
        let n = self.nodes.len() as u32;
        let node = Node { name: format!("(factor {} {origin})", self.made.len()), rules: rules.clone() };
        if worth_factoring(&node) {
            self.queue.push(n);
        }
        self.nodes.push(node);
        self.made.insert(rules, n);
        n
    }
}

/// The literal shared by the most rules, if at least [`MIN_SHARED`] share it; the least
/// literal among equals, so that the result does not depend on the map's order.
fn most_shared(counts: &FxHashMap<Lit, usize>) -> Option<Lit> {
    let best = counts.iter().filter(|&(_, &c)| c >= MIN_SHARED).max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)));
    best.map(|(&lit, _)| lit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::Value;

    /// A one-role game of one base fact, whose nodes and next facts each test replaces.
    fn empty_ground() -> Ground {
        let text =
            "(role a) (init c) (<= (legal a x) (true c)) (<= (next c) (true c)) (<= terminal (true c)) (goal a 0)";
        let description = crate::parse::parse(text, crate::parse::Syntax::Kif).description;
        crate::ground::ground(&description, &Default::default()).expect("grounds")
    }

    fn base(i: u32) -> Lit {
        Lit::pos(Prop::Base(i))
    }

    fn does(m: u32) -> Lit {
        Lit::pos(Prop::Does(0, m))
    }

    /// A frame of two cells over six moves: each cell's next value reads its fact once, and
    /// both read one proposition of the moves not touching them.
    #[test]
    fn frame_rules_share_the_moves_that_do_not_touch_a_cell() {
        let frame = |cell: u32| Node {
            name: format!("(next {cell})"),
            rules: (2..8).map(|m| vec![base(cell), does(m)]).collect(),
        };
        let mut ground = empty_ground();
        ground.nodes = vec![frame(0), frame(1)];
        ground.next = vec![Value::Lit(Lit::pos(Prop::Node(0))), Value::Lit(Lit::pos(Prop::Node(1)))];
        factor(&mut ground);
        assert_eq!(ground.nodes.len(), 3, "{:?}", ground.nodes);
        let moves = &ground.nodes[0];
        assert_eq!(moves.rules, (2..8).map(|m| vec![does(m)]).collect::<Vec<_>>());
        for (cell, node) in ground.nodes[1..].iter().enumerate() {
            assert_eq!(node.rules, vec![vec![base(cell as u32), Lit::pos(Prop::Node(0))]]);
        }
    }

    /// Rules that read an atom read by more than [`MOST_READERS`] rules are left as they are.
    #[test]
    fn rules_of_a_widely_read_atom_stay_as_they_are() {
        let mut ground = empty_ground();
        let turn = base(9);
        let readers =
            (0..=MOST_READERS as u32).map(|m| Node { name: format!("(reader {m})"), rules: vec![vec![turn, does(m)]] });
        ground.nodes = readers.collect();
        let rules: Vec<Vec<Lit>> = (1..9).map(|m| vec![base(0), turn, does(m)]).collect();
        ground.nodes.push(Node { name: "(turn)".into(), rules: rules.clone() });
        let outputs = (0..ground.nodes.len() as u32).map(|n| Value::Lit(Lit::pos(Prop::Node(n))));
        ground.next = outputs.collect();
        factor(&mut ground);
        assert_eq!(ground.nodes.iter().find(|n| n.name == "(turn)").map(|n| &n.rules), Some(&rules));
    }

    /// Rules that share a literal with fewer than [`MIN_SHARED`] others stay as they are, and a
    /// rule of the shared literal alone absorbs the others.
    #[test]
    fn few_shared_literals_stay_and_a_lone_literal_absorbs_the_rest() {
        let mut ground = empty_ground();
        let mut rules: Vec<Vec<Lit>> = (1..4).map(|m| vec![base(0), does(m)]).collect();
        rules.push(vec![base(1), does(1)]);
        ground.nodes = vec![Node { name: "(few)".into(), rules: rules.clone() }];
        let mut absorbing: Vec<Vec<Lit>> = (1..5).map(|m| vec![base(2), does(m)]).collect();
        absorbing.push(vec![base(2)]);
        ground.nodes.push(Node { name: "(absorbing)".into(), rules: absorbing });
        ground.next = vec![Value::Lit(Lit::pos(Prop::Node(0))), Value::Lit(Lit::pos(Prop::Node(1)))];
        factor(&mut ground);
        assert_eq!(ground.nodes[0].rules, rules);
        assert_eq!(ground.nodes[1].rules, vec![vec![base(2)]]);
    }
}
