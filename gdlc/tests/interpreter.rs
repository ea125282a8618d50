//! The interpreter on games that once made it explode, measured by the facts an evaluation
//! derives (a cap it must stay under), and its budgets: the typed errors of an evaluation that
//! goes past its limits.

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

use gdl_runtime::Game;
use gdlc::interp::{Error, Exceeded, Interpreter, Limits};
use gdlc::parse::parse_auto;
use std::time::{Duration, Instant};

fn load(src: &str) -> Interpreter {
    let parsed = parse_auto(src);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    assert!(!gdlc::check::check(&parsed.description).iter().any(|d| d.is_error()));
    Interpreter::new(&parsed.description).expect("the interpreter loads the game")
}

/// Thirty cells, each marked by one of two roles.
fn cells() -> String {
    (0..30).map(|i| format!("(cell c{i}) (init (at c{i} {}))\n", if i % 2 == 0 { "red" } else { "blue" })).collect()
}

/// As in chineseCheckers4: `count` is asked for three given cells, but bottom-up it is computed
/// for every triple of cells, 27,000 facts a state; computed for the triple asked, a few.
#[test]
fn a_relation_asked_for_given_arguments_is_computed_for_those_only() {
    let game = load(&format!(
        "(role red) (role blue) {}
         (<= (count ?a ?b ?c ?p) (true (at ?a ?p)) (true (at ?b ?p)) (true (at ?c ?p)))
         (<= (home ?p) (count c0 c2 c4 ?p))
         (<= (legal ?p noop) (role ?p))
         (<= (next (at ?c ?p)) (true (at ?c ?p)))
         (<= terminal (home red))
         (<= (goal ?p 100) (home ?p)) (<= (goal ?p 0) (role ?p) (not (home ?p)))",
        cells()
    ));
    let limits = Limits::NONE.with_max_facts(2_000);
    let state = game.initial_state();
    assert!(game.try_is_terminal(&state, &limits).unwrap());
    assert_eq!(game.try_goal_values(&state, &limits).unwrap(), vec![vec![100], vec![0]]);
}

/// As in chess: a square is threatened `ignoring` two squares, for every square and every two
/// squares ignored (27,000 facts bottom-up), though a move tests it for its own squares only.
#[test]
fn a_negated_relation_is_computed_for_the_bindings_of_its_reader() {
    let game = load(&format!(
        "(role red) (role blue) {}
         (<= (threatened ?x ?i ?j ?p) (cell ?i) (cell ?j) (true (at ?x ?p)) (distinct ?x ?i))
         (<= (legal ?p (move ?x ?y)) (true (at ?x ?p)) (cell ?y) (distinct ?x ?y) (not (threatened ?y ?x ?x ?p)))
         (<= (next (at ?c ?p)) (true (at ?c ?p)))
         (<= terminal (true (at c0 blue)))
         (<= (goal ?p 50) (role ?p))",
        cells()
    ));
    let legal = game.try_legal_moves(&game.initial_state(), &Limits::NONE.with_max_facts(2_000)).unwrap();
    // Each of 15 cells moves to the 15 of the other colour.
    assert_eq!((legal[0].len(), legal[1].len()), (225, 225));
}

/// `(islist L)` for every list of up to `n` elements of five, as laikLee_hex writes it: one rule
/// per length.
fn lists(n: usize) -> String {
    let mut rules = String::from("(islist nil)\n");
    for len in 1..=n {
        let (mut list, mut body) = (String::from("nil"), String::new());
        for i in (1..=len).rev() {
            list = format!("(list ?e{i} {list})");
            body.push_str(&format!(" (elem ?e{i})"));
        }
        rules.push_str(&format!("(<= (islist {list}){body})\n"));
    }
    rules
}

/// As in laikLee_hex and sudoku: a static relation too large to compute bottom-up (here five to
/// the ninth lists) is computed in each state for the lists asked for.
#[test]
fn a_static_relation_too_large_to_compute_is_computed_on_demand() {
    let game = load(&format!(
        "(role r) (init (step 0)) (succ 0 1) (succ 1 2) (elem a) (elem b) (elem c) (elem d) (elem e) {}
         (<= (legal r (push ?e)) (elem ?e) (true (step ?n)) (succ ?n ?m))
         (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
         (<= (next (held ?e)) (does r (push ?e)))
         (<= terminal (true (step 2)))
         (<= (goal r 100) (true (held ?e)) (islist (list ?e (list a nil))))
         (<= (goal r 0) (not (true (held a))) (not (true (held b))))",
        lists(9)
    ));
    let limits = Limits::NONE.with_max_facts(10_000);
    let state = game.initial_state();
    let legal = game.try_legal_moves(&state, &limits).unwrap();
    assert_eq!(legal[0].len(), 5);
    let next = game.try_next_state(&state, &legal[0][..1], &limits).unwrap();
    assert_eq!(game.try_goal_values(&next, &limits).unwrap(), vec![vec![100]]);
}

#[test]
fn a_state_read_whole_and_by_function_gives_the_same_facts() {
    let game = load(
        "(role r) (init (cell 1 b)) (init (cell 2 x)) (init flag)
         (<= (legal r (mark ?c)) (true (cell ?c b)))
         (<= (next ?f) (true ?f) (not (marked ?f)))
         (<= (marked (cell ?c b)) (does r (mark ?c)))
         (<= (next (cell ?c x)) (does r (mark ?c)))
         (<= terminal (not (true (cell 1 b))))
         (<= (goal r 100) (true flag) (true (cell 1 x)))",
    );
    let state = game.initial_state();
    let mut moves = Vec::new();
    game.legal_moves(&state, 0, &mut moves);
    assert_eq!(moves.iter().map(|m| game.move_string(m)).collect::<Vec<_>>(), ["(mark 1)"]);
    let next = game.next_state(&state, &moves);
    assert_eq!(game.state_facts(&next), ["(cell 1 x)", "(cell 2 x)", "flag"]);
    assert!(game.is_terminal(&next));
    assert_eq!(game.goals(&next), vec![Some(100)]);
}

#[test]
fn an_evaluation_past_its_cap_on_facts_says_so() {
    let game = load(&format!(
        "(role red) (role blue) {}
         (<= (pair ?a ?b) (true (at ?a ?p)) (true (at ?b ?p)))
         (<= (legal ?p noop) (role ?p)) (<= (next (at ?c ?p)) (true (at ?c ?p)))
         (<= terminal (pair ?a ?b) (distinct ?a ?b)) (<= (goal ?p 0) (role ?p))",
        cells()
    ));
    let state = game.initial_state();
    assert!(game.try_is_terminal(&state, &Limits::NONE.with_max_facts(1_000)).unwrap());
    match game.try_is_terminal(&state, &Limits::NONE.with_max_facts(100)) {
        Err(Exceeded::Facts { relation, limit: 100 }) => assert_eq!(relation, "pair"),
        other => panic!("expected the cap on facts, got {other:?}"),
    }
}

#[test]
fn an_evaluation_past_its_deadline_says_so() {
    let game = load(&format!(
        "(role red) (role blue) {}
         (<= (legal ?p noop) (role ?p)) (<= (next (at ?c ?p)) (true (at ?c ?p)))
         (<= terminal (true (at c0 blue))) (<= (goal ?p 0) (role ?p))",
        cells()
    ));
    let passed = Limits { deadline: Some(Instant::now()), max_facts: None };
    let state = game.initial_state();
    assert!(matches!(game.try_next_state(&state, &[], &passed), Err(Exceeded::Deadline { .. })));
    assert!(!game.try_is_terminal(&state, &Limits::within(Duration::from_secs(60))).unwrap());
}

#[test]
fn loading_past_the_deadline_is_an_error_of_its_own() {
    let parsed = parse_auto(&format!("(role r) {} (<= (legal r noop) (cell ?c)) (<= terminal (cell c3))", cells()));
    let passed = Limits { deadline: Some(Instant::now()), max_facts: None };
    match Interpreter::with_limits(&parsed.description, &passed) {
        Err(Error::Exceeded(Exceeded::Deadline { .. })) => {}
        Err(other) => panic!("expected the deadline, got {other}"),
        Ok(_) => panic!("expected the deadline, the game loaded"),
    }
}
