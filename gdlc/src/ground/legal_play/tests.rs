//! Tests of what a move's legality lets its rules take for granted.

use super::super::{ground, Ground, Lit, Options, Prop, Value};
use super::{rewritten, Requirement, Rewrite};
use crate::parse::{parse, Syntax};
use rustc_hash::FxHashMap;

/// One role takes an opponent's stone from one of two cells; a cell taken becomes blank.
const TAKE: &str = "(role a) (init (cell 1 o)) (init (cell 2 x)) (init (turn 0))
    (succ 0 1) (succ 1 2) (succ 2 3)
    (<= (legal a (take ?c)) (true (cell ?c o)))
    (legal a wait)
    (<= (next (cell ?c b)) (does a (take ?c)) (true (cell ?c o)))
    (<= (next (cell ?c ?v)) (true (cell ?c ?v)) (does a wait))
    (<= (next (cell ?c ?v)) (true (cell ?c ?v)) (does a (take ?d)) (distinct ?c ?d))
    (<= (next (cell ?c x)) (true (cell ?c ?v)) (does a (take ?c)) (not (true (cell ?c o))))
    (<= (next (turn ?n)) (true (turn ?m)) (succ ?m ?n))
    (<= terminal (true (turn 3)))
    (goal a 100)";

/// The game of `text` grounded, its unreachable facts kept: the rules that make them are what
/// these tests look at.
fn ground_kif(text: &str, assume_legal_play: bool) -> Ground {
    let d = parse(text, Syntax::Kif).description;
    ground(&d, &Options { assume_legal_play, drop_unreachable: false, ..Options::default() }).expect("grounds")
}

/// The rules that make base fact `fact` true in the next state: the rules of its node, or the
/// one literal it is.
fn next_rules(g: &Ground, fact: &str) -> Vec<Vec<String>> {
    let index = g.base.iter().position(|b| b == fact).expect("a base fact");
    let describe = |rule: &Vec<Lit>| rule.iter().map(|&lit| g.describe(lit)).collect();
    match g.next[index] {
        Value::Lit(Lit { prop: Prop::Node(v), positive: true }) => {
            g.nodes[v as usize].rules.iter().map(describe).collect()
        }
        Value::Lit(lit) => vec![vec![g.describe(lit)]],
        Value::Const(c) => vec![vec![c.to_string()]],
    }
}

#[test]
fn a_rule_that_reads_a_move_drops_what_its_legality_requires() {
    let g = ground_kif(TAKE, true);
    // A take is legal only of an `o`: the blank needs nothing else.
    let kept = ["(cell 1 b)", "a plays wait"];
    assert_eq!(next_rules(&g, "(cell 1 b)"), [&kept[..], &["a plays (take 1)"]]);
    let before = ground_kif(TAKE, false);
    assert_eq!(next_rules(&before, "(cell 1 b)"), [&kept[..], &["(cell 1 o)", "a plays (take 1)"]]);
}

#[test]
fn a_rule_that_contradicts_its_moves_legality_is_dropped() {
    // Taking cell 1 when it does not hold an `o` never happens: `x` is never made there.
    let g = ground_kif(TAKE, true);
    assert_eq!(next_rules(&g, "(cell 1 x)"), [["(cell 1 x)", "a plays wait"]]);
    let before = ground_kif(TAKE, false);
    let rules = next_rules(&before, "(cell 1 x)");
    assert!(rules.iter().flatten().any(|lit| lit == "a plays (take 1)"), "{rules:?}");
}

#[test]
fn a_move_that_is_never_legal_makes_nothing() {
    // `(swap 2)` asks for an `x` and for no `x` at once: grounding keeps it among the moves, but
    // it is never legal, so what it would make never comes.
    let text = format!(
        "{TAKE} (<= (legal a (swap ?c)) (true (cell ?c x)) (not (true (cell ?c x))))
         (<= (next (swapped ?c)) (does a (swap ?c)))"
    );
    assert_eq!(next_rules(&ground_kif(&text, true), "(swapped 2)"), [["false"]]);
    assert_eq!(next_rules(&ground_kif(&text, false), "(swapped 2)"), [["a plays (swap 2)"]]);
}

#[test]
fn a_rule_that_still_reads_the_state_keeps_its_tests() {
    // A take on turn 1 marks its cell: the rule reads the turn, so it keeps its test of the
    // `o` that the take's legality also requires.
    let text = format!("{TAKE} (<= (next (mark ?c)) (does a (take ?c)) (true (cell ?c o)) (true (turn 1)))");
    let mut rules = next_rules(&ground_kif(&text, true), "(mark 1)");
    rules.iter_mut().for_each(|rule| rule.sort());
    assert_eq!(rules, [["(cell 1 o)", "(turn 1)", "a plays (take 1)"]]);
}

#[test]
fn a_requirement_is_found_in_the_relation_a_legal_rule_reads() {
    // Legality through a relation of its own: `(takeable ?c)` has two rules, and both read
    // `(true (cell ?c o))`.
    let text = TAKE.replace(
        "(<= (legal a (take ?c)) (true (cell ?c o)))",
        "(<= (legal a (take ?c)) (takeable ?c) (true (turn ?t)))
         (<= (takeable ?c) (true (cell ?c o)) (true (turn 0)))
         (<= (takeable ?c) (true (cell ?c o)) (true (turn 1)))",
    );
    let g = ground_kif(&text, true);
    assert_eq!(next_rules(&g, "(cell 1 b)"), [&["(cell 1 b)", "a plays wait"][..], &["a plays (take 1)"]]);
}

#[test]
fn a_rule_that_still_reads_the_state_is_left_as_it_is() {
    // Move 3 of role 0 is legal only when base fact 2 and node 7 hold.
    let played = Lit::pos(Prop::Does(0, 3));
    let (required_fact, required_node) = (Lit::pos(Prop::Base(2)), Lit::pos(Prop::Node(7)));
    let other_fact = Lit::pos(Prop::Base(5));
    let requirements = FxHashMap::from_iter([((0, 3), Requirement::Holds(vec![required_fact, required_node]))]);
    let rule = [required_fact, other_fact, played, required_node];
    assert_eq!(rewritten(&rule, &requirements), Rewrite::Keep);
    // Left reading the move alone, it drops both.
    assert_eq!(rewritten(&[required_fact, played, required_node], &requirements), Rewrite::MovesAlone(vec![played]));
    assert_eq!(rewritten(&[required_fact.negated(), played], &requirements), Rewrite::Drop);
}
