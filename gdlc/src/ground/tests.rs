//! Tests of grounding on small games.

use super::*;
use crate::parse::{parse, Syntax};

fn ground_with(text: &str, options: &Options) -> Result<Ground, Error> {
    let d = parse(text, Syntax::Kif).description;
    ground(&d, options)
}

fn ground_kif(text: &str) -> Ground {
    ground_with(text, &Options::default()).expect("grounds")
}

const COUNTER: &str = "(role a) (init (count 0)) (init start) (succ 0 1) (succ 1 2) (succ 2 3)
    (legal a tick) (legal a wait)
    (<= (next (count ?y)) (true (count ?x)) (does a tick) (succ ?x ?y))
    (<= (next (count ?x)) (true (count ?x)) (does a wait))
    (<= terminal (true (count 3)))
    (<= (goal a 100) (true (count 3)))
    (<= (goal a 50) (true (count 2)))
    (<= (goal a 0) (not (true (count 3))))";

#[test]
fn a_single_fact_game_has_one_base_proposition() {
    let g = ground_kif("(role a) (init p) (<= (next p) (true p)) (legal a x) (<= terminal (true p)) (goal a 100)");
    assert_eq!(g.base, vec!["p".to_string()]);
    assert_eq!(g.initial, vec![0]);
    assert_eq!(g.moves, vec!["x".to_string()]);
}

#[test]
fn base_facts_are_the_reachable_ones_in_byte_order() {
    let g = ground_kif(COUNTER);
    assert_eq!(g.base, ["(count 0)", "(count 1)", "(count 2)", "(count 3)", "start"]);
    assert_eq!(g.moves, ["tick", "wait"]);
    assert_eq!(g.inputs, vec![vec![0, 1]]);
    assert_eq!(g.initial, vec![0, 4]);
    // Both moves are always legal, so legality folds to constants.
    assert!(g.legal[0].iter().all(|&(_, v)| v == Value::Const(true)), "{:?}", g.legal);
}

#[test]
fn goals_come_largest_value_first() {
    let g = ground_kif(COUNTER);
    let values: Vec<u32> = g.goals[0].iter().map(|&(v, _)| v).collect();
    assert_eq!(values, [100, 50, 0]);
    // `(goal a 100)` holds exactly when `(count 3)` does.
    assert_eq!(g.goals[0][0].1, Value::Lit(Lit::pos(Prop::Base(3))));
    assert_eq!(g.goals[0][2].1, Value::Lit(Lit::pos(Prop::Base(3)).negated()));
}

#[test]
fn next_of_a_fact_depends_on_the_joint_move() {
    let g = ground_kif(COUNTER);
    // `start` holds only initially: nothing makes it next.
    assert_eq!(g.next[4], Value::Const(false));
    // `(count 1)` is next after a tick from 0 or a wait in 1: a derived proposition.
    assert!(matches!(g.next[1], Value::Lit(Lit { prop: Prop::Node(_), positive: true })), "{:?}", g.next[1]);
}

#[test]
fn recursive_relations_become_groups_evaluated_to_a_fixpoint() {
    let g = ground_kif(
        "(role a) (init (edge 1 2)) (init (edge 2 3)) (init (edge 3 1)) (init (on 1))
         (<= (next (edge ?x ?y)) (true (edge ?x ?y)) (does a noop))
         (<= (next (on ?x)) (true (on ?x)) (does a noop))
         (<= (path ?x ?y) (true (edge ?x ?y)))
         (<= (path ?x ?z) (true (edge ?x ?y)) (path ?y ?z))
         (legal a noop)
         (<= terminal (true (on 1)) (path 1 1))
         (goal a 0)",
    );
    assert!(!g.cycles.is_empty(), "path is recursive: {:?}", g.nodes.iter().map(|n| &n.name).collect::<Vec<_>>());
    let Value::Lit(Lit { prop: Prop::Node(_), positive: true }) = g.terminal else {
        panic!("terminal depends on the state: {:?}", g.terminal)
    };
}

#[test]
fn a_game_past_the_limit_is_refused_with_the_relation_and_the_limit() {
    let mut text = String::from("(role a) (init (c 0)) (legal a noop) (<= terminal (true (c 49))) (goal a 0)");
    for i in 0..50 {
        text.push_str(&format!(" (n {i})"));
    }
    text.push_str(" (<= (next (c ?x)) (true (c ?y)) (n ?x) (n ?y))");
    let err = ground_with(&text, &Options { max_instances: 100, ..Options::default() }).unwrap_err();
    assert!(err.is_too_large(), "{err}");
    let message = err.to_string();
    assert!(message.contains("too large to ground") && message.contains("100"), "{message}");
    assert!(message.contains("next") || message.contains("true"), "{message}");
    // The same game grounds under a higher limit.
    let g = ground_with(&text, &Options { max_instances: 100_000, ..Options::default() }).unwrap();
    assert_eq!(g.base.len(), 50);
}

#[test]
fn a_game_without_roles_is_an_error() {
    let err = ground_with("(init p) (<= terminal (true p))", &Options::default()).unwrap_err();
    assert_eq!(err, Error::NoRole);
    assert!(err.to_string().contains("no role"), "{err}");
}

#[test]
fn the_instances_of_a_rule_that_reads_one_relation_do_not_count_toward_the_limit() {
    // `pair` has 400 facts, and each of the four aliases copies them, with one instance per
    // fact. Counted, the aliases' instances would add 1,600 and take grounding past 3,500.
    let mut text = String::from("(role a) (legal a noop) (<= (next (at ?x)) (true (at ?x)) (does a noop))");
    for i in 0..20 {
        text.push_str(&format!(" (n {i}) (init (at {i}))"));
    }
    text.push_str(" (<= (pair ?x ?y) (true (at ?x)) (n ?y)) (<= (alias0 ?x ?y) (pair ?x ?y))");
    for k in 1..4 {
        text.push_str(&format!(" (<= (alias{k} ?x ?y) (alias{} ?x ?y))", k - 1));
    }
    // Negated somewhere, `pair` is not inlined into `alias0`; `(does a noop)` keeps `at` a fluent.
    text.push_str(" (<= terminal (alias3 ?x ?y))");
    text.push_str(" (<= (goal a 100) (not (pair 0 0)) (not (alias0 0 0)) (not (alias1 0 0)) (not (alias2 0 0)))");
    let g = ground_with(&text, &Options { max_instances: 3_500, ..Options::default() }).unwrap();
    assert_eq!(g.base.len(), 20);
    // The limit still stops a relation that multiplies: `pair` alone has 400 facts, so it is
    // checked at run time instead (`terminal` asks for `alias3` with its arguments free, which
    // is folded into a check of its own).
    let g = ground_with(&text, &Options { max_instances: 300, ..Options::default() }).unwrap();
    assert!(g.deferred_atoms.iter().any(|a| a.starts_with("(pair ")), "{:?}", g.deferred_atoms);
}

/// A one-row Latin square: four cells take digits 1 to 4, and the player wins when each digit
/// is in exactly one cell. Like sudoku's, `exactlyfirst` is static and multiplies its indices
/// (108 facts), and only `good` reads it, through `exactlyone`.
pub(crate) const LATIN_ROW: &str = include_str!("../../tests/fixtures/latin_row.kif");

#[test]
fn a_static_relation_past_the_limit_that_only_checked_rules_read_is_checked_too() {
    let rows = |g: &Ground| g.deferred.tables.iter().map(|t| t.rows.len() / t.arity.max(1) as usize).max();
    // Under a limit that `exactlyfirst`'s 108 facts fit but `exactlyone`'s do not, `exactlyone`
    // is checked too and reads `exactlyfirst` as a table.
    let g = ground_with(LATIN_ROW, &Options { max_instances: 200, ..Options::default() }).unwrap();
    assert_eq!(rows(&g), Some(108), "{:?}", g.deferred);
    // Under one that they do not fit either, `exactlyfirst` is checked too: no table holds its
    // facts.
    let g = ground_with(LATIN_ROW, &Options { max_instances: 100, ..Options::default() }).unwrap();
    assert_eq!(g.base.len(), 16);
    assert!(g.deferred_atoms.contains(&"(good)".to_string()), "{:?}", g.deferred_atoms);
    assert!(rows(&g) < Some(100), "{:?}", g.deferred);
}

#[test]
fn only_the_relations_that_read_a_forced_static_relation_are_checked_when_the_rest_grounds() {
    // Past a limit of 250, `exactlyone` is forced to be checked. `open` and `filled`, which read
    // the state alone, ground within it, so `terminal` reads them without a search; past a
    // limit of 100 they do not, and are checked too.
    let state_only = |atom: &String| atom.contains("open") || atom.contains("filled");
    let g = ground_with(LATIN_ROW, &Options { max_instances: 250, ..Options::default() }).unwrap();
    assert_eq!(g.deferred_atoms, ["(good)"]);
    let g = ground_with(LATIN_ROW, &Options { max_instances: 100, ..Options::default() }).unwrap();
    assert!(g.deferred_atoms.iter().any(state_only), "{:?}", g.deferred_atoms);
}

#[test]
fn a_game_past_the_limit_is_located_at_a_rule_of_the_relation() {
    let mut text = String::from("(role a) (init (c 0)) (legal a noop) (<= terminal (true (c 0))) (goal a 0)\n");
    for i in 0..50 {
        text.push_str(&format!(" (n {i})"));
    }
    let rule = "(<= (next (c ?x)) (true (c ?y)) (n ?x) (n ?y))";
    text.push_str(&format!("\n{rule}"));
    let err = ground_with(&text, &Options { max_instances: 100, ..Options::default() }).unwrap_err();
    let Error::TooLarge { what, limit, span } = &err else { panic!("{err}") };
    assert_eq!(*limit, Limit::Instances(100), "{err}");
    assert_eq!(*what, Part::Relation("next".to_string()), "{err}");
    assert_eq!(span.start, text.find(rule).expect("the rule is in the text"), "{err}");
    assert_eq!(err.span(), *span);
}

#[test]
fn an_unsafe_rule_is_a_typed_error_with_its_span() {
    let text = "(role a) (init p) (legal a noop) (<= terminal (true p)) (goal a 0) (<= (next (q ?x)) (true p))";
    let err = ground_with(text, &Options::default()).unwrap_err();
    let Error::Rules(crate::datalog::Error::UnsafeHead { relation, variable, span }) = &err else { panic!("{err}") };
    assert_eq!((relation.as_str(), variable.as_str()), ("next", "x"));
    assert_eq!(span.start, text.find("(<= (next").expect("the rule is in the text"));
    assert!(!err.is_too_large());
}

/// Pieces on a board of 8 by 8 cells attack the cells a step away, and `apart` (static) relates
/// every two different cells: with two of its arguments bound a lookup finds 63 rows. Negated
/// in `terminal`, `attacks` is not inlined into `threatened`.
const APART: &str = "(role a) (legal a noop) (legal a shift) (init (piece 2 2)) (init (piece 5 7))
    (n 1) (n 2) (n 3) (n 4) (n 5) (n 6) (n 7) (n 8)
    (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
    (<= (apart ?x1 ?y1 ?x2 ?y2) (n ?x1) (n ?y1) (n ?x2) (n ?y2) (distinct ?x1 ?x2))
    (<= (apart ?x1 ?y1 ?x2 ?y2) (n ?x1) (n ?y1) (n ?x2) (n ?y2) (distinct ?y1 ?y2))
    (<= (attacks ?x ?y ?u ?v) (true (piece ?u ?v)) (succ ?u ?x) (succ ?v ?y))
    (<= (threatened ?x ?y) (apart ?x ?y ?u ?v) (attacks ?x ?y ?u ?v))
    (<= (next (piece ?x ?y)) (true (piece ?x ?y)) (does a noop))
    (<= (next (piece ?x ?y)) (true (piece ?u ?v)) (does a shift) (succ ?u ?x) (succ ?v ?y))
    (<= terminal (true (piece 8 8)))
    (<= terminal (not (attacks 8 8 7 7)))
    (<= (goal a 100) (not (threatened 3 3)))
    (<= (goal a 0) (threatened 3 3))";

#[test]
fn a_checked_rule_looks_up_a_static_relation_of_many_rows_after_the_call_that_binds_it() {
    let g = ground_with(APART, &Options { defer_relations: true, ..Options::default() }).unwrap();
    assert!(g.deferred_atoms.contains(&"(threatened 3 3)".to_string()), "{:?}", g.deferred_atoms);
    let apart = g.deferred.tables.iter().position(|t| !t.state && t.arity == 4).expect("apart is a table") as u32;
    let threatened = g.deferred.relations.iter().find(|r| r.arity == 2).expect("threatened is checked");
    let goals = &threatened.variants[0].rules[0].goals;
    let at = |f: &dyn Fn(&gdl_runtime::prover::Goal) -> bool| goals.iter().position(f);
    let call = at(&|g| matches!(g, gdl_runtime::prover::Goal::Call { .. }));
    let table = at(&|g| matches!(g, gdl_runtime::prover::Goal::Table { table, .. } if *table == apart));
    assert!(call.is_some() && call < table, "{goals:?}");
    // The search finds the piece at (2 2), a step from (3 3), in the initial state.
    let mut state = vec![0u64; g.base.len().div_ceil(64)];
    g.initial.iter().for_each(|&b| state[b as usize / 64] |= 1 << (b % 64));
    let atom = g.deferred_atoms.iter().position(|a| a == "(threatened 3 3)").expect("asked for") as u32;
    assert!(g.deferred.holds(&state, atom));
}
