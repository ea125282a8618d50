//! De Morgan's law, for the table form's incremental evaluation: a proposition whose every rule
//! is one literal (an "or" of literals), read by one rule alone and negated there, is replaced in
//! that rule by the negation of each of those literals.
//!
//! queens31lg's `(legal robot (place ?r ?c))` reads `(not (attacked ?r ?c))`, and each
//! `attacked` is some 120 one-literal rules: a queen on the cell's row, column or diagonals.
//! Counted as a network, every queen placed changes the support of some 120 `attacked`
//! propositions, the 40 of them that become true are each queued, settled and passed on, and
//! only then does `legal` change. With the negations in `legal`'s own rule, the queen changes
//! the counts of that rule's false literals directly: the same literals, one proposition fewer
//! per cell, and no proposition in between to settle.

use super::readers::{read_by_values, Readers};
use super::{Ground, Lit, Prop};

/// The most literals a rule may have once a negated "or" is spread into it: the runtime counts
/// a rule's false literals in a byte, and watches a longer rule instead, searching its literals
/// for a false one at every wake-up (urmAdd's `(hascode ?n)`, an "or" of 285 facts, spread into
/// one rule of 286 literals, cost its playouts 7%).
const MOST_LITERALS: usize = u8::MAX as usize;

/// Replaces every negated "or" of literals read by one rule alone with the negations of its
/// literals (see the module's documentation), where that rule stays within [`MOST_LITERALS`],
/// then drops the propositions no longer read and numbers the rest in evaluation order again.
/// Returns whether anything changed.
pub fn spread_negated_disjunctions(ground: &mut Ground) -> bool {
    let mut readers = Vec::new();
    for (m, node, rule) in candidates(ground) {
        let negations: Vec<Lit> = ground.nodes[m as usize].rules.iter().map(|r| r[0].negated()).collect();
        let reader = &mut ground.nodes[node as usize].rules[rule as usize];
        if reader.len() - 1 + negations.len() > MOST_LITERALS {
            continue;
        }
        reader.retain(|lit| lit.prop != Prop::Node(m));
        reader.extend(negations);
        reader.sort_unstable();
        reader.dedup();
        ground.nodes[m as usize].rules.clear();
        readers.push(node);
    }
    if readers.is_empty() {
        return false;
    }
    // A rule that now reads a literal and its negation never holds.
    for node in readers {
        ground.nodes[node as usize].rules.retain(|rule| !rule.windows(2).any(|w| w[0].prop == w[1].prop));
    }
    super::simplify::keep_needed_in_order(ground);
    true
}

/// The propositions to replace, each with the node and rule that reads it: outside recursive
/// groups, every rule one literal that is no proposition proved at run time nor another of
/// these, read once, negated, by a rule and by no output.
fn candidates(ground: &Ground) -> Vec<(u32, u32, u32)> {
    let readers = Readers::new(ground);
    let read_by_outputs = read_by_values(ground.nodes.len(), ground.outputs());
    let in_cycle = ground.in_cycle();
    // The one rule that reads node `m`, when it reads it negated and no output reads it.
    let negated_reader = |m: usize| match readers.rules_reading(m as u32) {
        &[(node, rule)] if !read_by_outputs[m] => {
            let mut reads =
                ground.nodes[node as usize].rules[rule as usize].iter().filter(|l| l.prop == Prop::Node(m as u32));
            reads.all(|l| !l.positive).then_some((node, rule))
        }
        _ => None,
    };
    let disjunction = |m: usize| {
        let rules = &ground.nodes[m].rules;
        !in_cycle[m] && !rules.is_empty() && rules.iter().all(|rule| rule.len() == 1)
    };
    let reader: Vec<Option<(u32, u32)>> =
        (0..ground.nodes.len()).map(|m| negated_reader(m).filter(|_| disjunction(m))).collect();
    let plain = |lit: &Lit| match lit.prop {
        Prop::Node(q) => reader[q as usize].is_none(),
        Prop::Deferred(_) => false,
        Prop::Base(_) | Prop::Does(..) => true,
    };
    (0..ground.nodes.len())
        .filter(|&m| ground.nodes[m].rules.iter().flatten().all(plain))
        .filter_map(|m| reader[m].map(|(node, rule)| (m as u32, node, rule)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::spread_negated_disjunctions;
    use crate::ground::{ground, Ground, Options, Prop, Value};
    use crate::parse::{parse, Syntax};

    fn grounded(text: &str) -> Ground {
        ground(&parse(text, Syntax::Kif).description, &Options::default()).expect("the test game grounds")
    }

    /// A game where a cell of a row of five may be taken when no taken cell is beside it.
    const NEIGHBOURS: &str = "
        (role r) (cell 1) (cell 2) (cell 3) (cell 4) (cell 5)
        (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
        (<= (beside ?c ?d) (succ ?c ?d)) (<= (beside ?c ?d) (succ ?d ?c))
        (<= (base (taken ?c)) (cell ?c))
        (<= (input r (take ?c)) (cell ?c))
        (<= (crowded ?c) (beside ?c ?d) (true (taken ?d)))
        (<= (legal r (take ?c)) (cell ?c) (not (true (taken ?c))) (not (crowded ?c)))
        (<= (next (taken ?c)) (does r (take ?c)))
        (<= (next (taken ?c)) (true (taken ?c)))
        (<= terminal (true (taken 1)) (true (taken 2)))
        (goal r 100)";

    /// `crowded` is an "or" of facts that only `legal` reads, negated: it goes, and each `legal`
    /// reads the negation of every fact of it instead.
    #[test]
    fn a_negated_or_read_once_becomes_the_negations_of_its_literals() {
        let mut g = grounded(NEIGHBOURS);
        let crowded = |g: &Ground| g.nodes.iter().filter(|n| n.name.starts_with("(crowded")).count();
        // The end cells' `crowded` has one rule, and simplification forwarded it already.
        assert_eq!(crowded(&g), 3);
        assert!(spread_negated_disjunctions(&mut g));
        assert_eq!(crowded(&g), 0);
        let Value::Lit(legal_2) = g.legal[0][1].1 else { panic!("legal 2 is a literal") };
        let Prop::Node(v) = legal_2.prop else { panic!("legal 2 is a node") };
        let rules: Vec<Vec<String>> =
            g.nodes[v as usize].rules.iter().map(|rule| rule.iter().map(|&l| g.describe(l)).collect()).collect();
        assert_eq!(rules, vec![vec!["not (taken 1)", "not (taken 2)", "not (taken 3)"]]);
    }

    /// A proposition read twice, or positively, or by an output, stays.
    #[test]
    fn an_or_read_more_than_once_negated_stays() {
        let text =
            NEIGHBOURS.replace("(goal r 100)", "(<= (goal r 100) (not (crowded 2))) (<= (goal r 0) (crowded 2))");
        let mut g = grounded(&text);
        spread_negated_disjunctions(&mut g);
        let names: Vec<&str> = g.nodes.iter().map(|n| n.name.as_str()).filter(|n| n.starts_with("(crowded")).collect();
        assert_eq!(names, vec!["(crowded 2)"]);
    }

    /// An "or" of more facts than a rule's count holds stays where it is.
    #[test]
    fn an_or_too_long_for_a_count_stays() {
        let game = |cells: usize| {
            let cells: String = (1..=cells).map(|c| format!("(cell {c}) ")).collect();
            format!(
                "(role r) {cells} (<= (base (taken ?c)) (cell ?c)) (base go) (init go)
                (<= (input r (take ?c)) (cell ?c)) (input r wait)
                (<= any_taken (true (taken ?c)))
                (<= (legal r (take ?c)) (cell ?c) (not (true (taken ?c))))
                (<= (legal r wait) (true go) (not any_taken))
                (<= (next (taken ?c)) (does r (take ?c))) (<= (next (taken ?c)) (true (taken ?c)))
                (<= terminal (true (taken 1))) (goal r 100)"
            )
        };
        for (cells, spread) in [(254, true), (255, false)] {
            let mut g = grounded(&game(cells));
            assert_eq!(spread_negated_disjunctions(&mut g), spread, "{cells} cells");
            assert_eq!(g.nodes.iter().any(|n| n.name == "any_taken"), !spread, "{cells} cells");
        }
    }
}
