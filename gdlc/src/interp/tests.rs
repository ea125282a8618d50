//! Semantics of the interpreter on small games, including ggp-base's tricky test cases.

use super::Interpreter;
use crate::parse::parse_auto;
use gdl_runtime::Game;
use std::path::Path;

fn load(src: &str) -> Interpreter {
    let parsed = parse_auto(src);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    Interpreter::new(&parsed.description).expect("interpreter")
}

fn edge_case(name: &str) -> Interpreter {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/games-edge-cases").join(name);
    load(&std::fs::read_to_string(path).expect("edge case file"))
}

fn legal_strings(game: &Interpreter, state: &super::State, role: usize) -> Vec<String> {
    let mut moves = Vec::new();
    game.legal_moves(state, role, &mut moves);
    let mut names: Vec<String> = moves.iter().map(|m| game.move_string(m)).collect();
    names.sort();
    names
}

#[test]
fn zero_arity_with_parentheses_means_the_same_relation() {
    // test_case_3a: `open2` is defined as `(open2)`; both propositions hold.
    let game = edge_case("test_case_3a.kif");
    let s = game.initial_state();
    assert_eq!(legal_strings(&game, &s, 0), vec!["(move correct_correct)"]);
}

#[test]
fn recursion_negation_and_distinct() {
    let game = load(
        "(role r) (init (at 1)) (succ 1 2) (succ 2 3) (succ 3 4)
         (<= (reach ?x ?y) (succ ?x ?y)) (<= (reach ?x ?z) (succ ?x ?y) (reach ?y ?z))
         (<= (legal r (go ?y)) (true (at ?x)) (reach ?x ?y) (not (blocked ?y)))
         (<= (blocked ?y) (succ ?y ?z) (not (distinct ?z 4)))
         (<= (next (at ?y)) (does r (go ?y)))
         (<= terminal (true (at 4)))
         (<= (goal r 100) (true (at 4))) (<= (goal r 0) (not (true (at 4))))",
    );
    let s = game.initial_state();
    assert_eq!(legal_strings(&game, &s, 0), vec!["(go 2)", "(go 4)"]);
    let mv = game.parse_move(0, "( GO 4 )").expect("a move of the game");
    let s = game.next_state(&s, &[mv]);
    assert_eq!(game.state_facts(&s), vec!["(at 4)"]);
    assert!(game.is_terminal(&s));
    assert_eq!(game.goals(&s), vec![Some(100)]);
}

#[test]
fn the_largest_goal_value_counts() {
    let game = load(
        "(role r) (init p) (<= (goal r 50) (true p)) (<= (goal r 70) (true p)) (<= terminal (true p)) (legal r a)",
    );
    assert_eq!(game.goals(&game.initial_state()), vec![Some(70)]);
}

#[test]
fn or_and_nested_negation() {
    let game = load(
        "(role r) (init a) (init b)
         (<= (legal r x) (or (true c) (and (true a) (not (true c)))))
         (<= (legal r y) (not (or (true a) (true c))))
         (<= (next a) (true b)) (<= terminal (true c)) (goal r 0)",
    );
    let s = game.initial_state();
    assert_eq!(legal_strings(&game, &s, 0), vec!["x"]);
    let s = game.next_state(&s, &[game.parse_move(0, "x").unwrap()]);
    assert_eq!(game.state_facts(&s), vec!["a"]);
}

#[test]
fn unknown_moves_do_not_parse() {
    let game = load("(role r) (init p) (legal r (go 1)) (<= terminal (true p)) (goal r 0)");
    assert!(game.parse_move(0, "(go 2)").is_none());
    assert!(game.parse_move(0, "(go").is_none());
    assert!(game.parse_move(0, "(go 1)").is_some());
}

#[test]
fn a_free_role_variable_ranges_over_the_roles() {
    let game =
        load("(role a) (role b) (init p) (<= (legal ?r noop) (true p)) (<= terminal (true q)) (goal a 0) (goal b 0)");
    let s = game.initial_state();
    assert_eq!(legal_strings(&game, &s, 0), vec!["noop"]);
    assert_eq!(legal_strings(&game, &s, 1), vec!["noop"]);
}

#[test]
fn infix_games_evaluate_like_prefix_ones() {
    let prefix = load("(role r) (init (c 1)) (<= (legal r (m ?x)) (true (c ?x))) (<= (next (c 2)) (does r (m 1))) (<= terminal (true (c 2))) (goal r 100)");
    let infix = load("role(r)\ninit(c(1))\nlegal(r, m(X)) :- true(c(X))\nnext(c(2)) :- does(r, m(1))\nterminal :- true(c(2))\ngoal(r, 100)");
    for game in [&prefix, &infix] {
        let s = game.initial_state();
        assert_eq!(legal_strings(game, &s, 0), vec!["(m 1)"]);
        let s = game.next_state(&s, &[game.parse_move(0, "(m 1)").unwrap()]);
        assert!(game.is_terminal(&s));
    }
}

fn bundled(name: &str) -> Interpreter {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games").join(name);
    load(&std::fs::read_to_string(path).expect("bundled game file"))
}

fn play(game: &Interpreter, state: &super::State, joint: &[&str]) -> (super::State, Vec<Vec<String>>) {
    let joint: Vec<super::Move> =
        joint.iter().enumerate().map(|(r, m)| game.parse_move(r, m).expect("a move of the game")).collect();
    let mut percepts = Vec::new();
    game.all_percepts(state, &joint, &mut percepts);
    (game.next_state(state, &joint), percepts)
}

#[test]
fn plain_games_have_no_random_role_and_no_percepts() {
    let game = load("(role r) (init p) (legal r a) (<= (next q) (does r a)) (<= terminal (true q)) (goal r 0)");
    assert!(!game.is_gdl_ii());
    assert_eq!(game.random_role(), None);
    let (_, percepts) = play(&game, &game.initial_state(), &["a"]);
    assert_eq!(percepts, vec![Vec::<String>::new()]);
}

#[test]
fn monty_hall_percepts_come_from_the_state_and_the_joint_move() {
    let game = bundled("montyHall.kif");
    assert!(game.is_gdl_ii());
    assert_eq!(game.random_role(), Some(1));
    let s = game.initial_state();
    assert_eq!(legal_strings(&game, &s, 1), vec!["(hide_car 1)", "(hide_car 2)", "(hide_car 3)"]);
    let (s, percepts) = play(&game, &s, &["(choose 1)", "(hide_car 3)"]);
    assert_eq!(percepts, vec![Vec::<String>::new(), vec![]]);
    // The random role may open neither the chosen door nor the car's.
    assert_eq!(legal_strings(&game, &s, 1), vec!["(open_door 2)"]);
    let (s, percepts) = play(&game, &s, &["noop", "(open_door 2)"]);
    assert_eq!(percepts, vec![vec!["2".to_string()], vec![]]);
    let (s, percepts) = play(&game, &s, &["switch", "noop"]);
    assert_eq!(percepts, vec![vec!["3".to_string()], vec![]]);
    assert!(game.is_terminal(&s));
    assert_eq!(game.goals(&s), vec![Some(100), Some(0)]);
}

#[test]
fn dice_duel_players_see_only_their_own_rolls() {
    let game = bundled("diceDuel.kif");
    assert_eq!(game.random_role(), Some(2));
    let s = game.initial_state();
    let (s, percepts) = play(&game, &s, &["noop", "noop", "(roll 3 1)"]);
    assert_eq!(percepts, vec![vec!["(rolled 3)".to_string()], vec!["(rolled 1)".to_string()], vec![]]);
    let (s, percepts) = play(&game, &s, &["keep", "reroll", "noop"]);
    assert_eq!(
        percepts,
        vec![vec!["(other_choice reroll)".to_string()], vec!["(other_choice keep)".to_string()], vec![]]
    );
    let (s, percepts) = play(&game, &s, &["noop", "noop", "(roll 1 2)"]);
    // Alice kept her 3, so she sees no new roll; bob sees his 2.
    assert_eq!(percepts, vec![vec![], vec!["(rolled 2)".to_string()], vec![]]);
    assert!(game.is_terminal(&s));
    assert_eq!(game.goals(&s), vec![Some(100), Some(0), Some(0)]);
}

#[test]
fn games_the_interpreter_cannot_load_are_typed_errors() {
    let no_role = parse_auto("(init p) (legal a noop) (<= terminal (true p)) (goal a 0)");
    assert_eq!(Interpreter::new(&no_role.description).err(), Some(super::Error::NoRole));
    let realtime = parse_auto("(role a) (init 1.0 p) (legal a noop) (<= terminal (true ?t p)) (goal a 0)");
    assert_eq!(Interpreter::new(&realtime.description).err(), Some(super::Error::RealTimeGame));
}

/// `text` with every name that is not a keyword spelled anew, so that the names sort in the
/// reverse of their order and all before the keywords, as a game server's scrambling may sort
/// them; variables, numbers and keywords stay.
fn spelled_in_reverse_order(text: &str) -> String {
    const KEYWORDS: [&str; 16] = [
        "role", "init", "true", "next", "legal", "does", "goal", "terminal", "distinct", "not", "or", "base", "input",
        "sees", "random", "<=",
    ];
    let text: String = text.lines().map(|line| line.split(';').next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let spaced = text.replace('(', " ( ").replace(')', " ) ");
    let is_name = |t: &str| {
        t != "(" && t != ")" && !t.starts_with('?') && !t.chars().all(|c| c.is_ascii_digit()) && !KEYWORDS.contains(&t)
    };
    let names: std::collections::BTreeSet<String> =
        spaced.split_whitespace().map(str::to_lowercase).filter(|t| is_name(t)).collect();
    let count = names.len();
    let renamed: std::collections::HashMap<String, String> =
        names.into_iter().enumerate().map(|(i, name)| (name, format!("a{:05}", count - i))).collect();
    let tokens: Vec<String> = spaced
        .split_whitespace()
        .map(|t| renamed.get(&t.to_lowercase()).cloned().unwrap_or_else(|| t.to_string()))
        .collect();
    tokens.join(" ")
}

/// How the rules are evaluated must not follow how the game spells its names. Under the
/// spelling a GameServer once gave chess, the demand rewrite completed `has_legal_move` and
/// with it every threat, and the first state's legal moves took half a million facts and
/// seconds, where the original spelling takes a few thousand.
#[test]
fn chess_respelled_evaluates_its_legal_moves_as_cheaply() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games/chess.kif");
    let text = std::fs::read_to_string(path).expect("bundled chess");
    let limits = super::Limits::NONE.with_max_facts(50_000);
    for source in [text.clone(), spelled_in_reverse_order(&text)] {
        let game = load(&source);
        let state = game.initial_state();
        let moves = game.try_legal_moves(&state, &limits).expect("legal moves within 50,000 facts");
        assert_eq!(moves.iter().map(Vec::len).collect::<Vec<_>>(), vec![20, 1]);
    }
}

#[test]
fn a_random_step_in_one_evaluation_draws_and_moves_as_the_queries_one_by_one() {
    // The fused step evaluates terminal, legal and next from one set of tables per engine;
    // asked one by one, each query evaluates the state anew. At every step of a few random playouts the
    // moves it drew from must be the legal moves, and its next state that of the moves drawn.
    // connectFour's queries are answered by two engines, the others' by one.
    for name in
        ["ticTacToe.kif", "connectFour.kif", "breakthrough.kif", "buttons.kif", "eightPuzzle.kif", "blocker.kif"]
    {
        let game = bundled(name);
        let mut scratch = gdl_runtime::Playout::default();
        let mut rng = gdl_runtime::rng::Rng::seeded(7);
        for _ in 0..3 {
            let mut state = game.initial_state();
            let mut steps = 0;
            while let Some(next) = game.random_step(&state, &mut rng, &mut scratch) {
                let (legal, joint) = scratch.move_buffers();
                let mut asked = Vec::new();
                game.all_legal_moves(&state, &mut asked);
                let sorted = |moves: &[Vec<super::Move>]| -> Vec<Vec<String>> {
                    let spelled = moves.iter().map(|m| m.iter().map(|mv| game.move_string(mv)).collect::<Vec<_>>());
                    spelled
                        .map(|mut m| {
                            m.sort();
                            m
                        })
                        .collect()
                };
                assert_eq!(sorted(legal), sorted(&asked), "{name}: legal moves at step {steps}");
                assert_eq!(next, game.next_state(&state, joint), "{name}: next state at step {steps}");
                assert!(!game.is_terminal(&state), "{name}: a step from a terminal state");
                state = next;
                steps += 1;
            }
            assert!(game.is_terminal(&state) || steps > 0, "{name}: a playout stopped short");
        }
    }
}

/// The relation each rule of `head` reads first, over every engine.
fn first_reads(game: &Interpreter, head: &str, arity: usize) -> Vec<String> {
    use crate::datalog::compile::CLit;
    let Some(rel) = game.relations.get(head, arity) else { return Vec::new() };
    let rules = game.engines.iter().flat_map(|engine| engine.rules.iter()).filter(|rule| rule.head.rel == rel);
    rules
        .filter_map(|rule| rule.body.iter().find_map(|lit| if let CLit::Pos(p) = lit { Some(p.rel) } else { None }))
        .map(|first| game.relations.keys[first].0.clone())
        .collect()
}

#[test]
fn bodies_are_ordered_by_the_sizes_observed_in_a_match() {
    // Before a match, the guesses and `avg` are guessed at a thousand facts each, and `close`
    // would start from all of `same`; in the match each has one or two facts.
    let numbers: String = (0..10).map(|n| format!("(n {n}) ")).collect();
    let game = load(&format!(
        "(role a) (role b) {numbers}
         (<= (same ?x ?x 100) (n ?x)) (<= (same ?x ?y 0) (n ?x) (n ?y) (distinct ?x ?y))
         (<= (legal ?p (guess ?x)) (role ?p) (n ?x))
         (<= (next (guessed ?p ?x)) (does ?p (guess ?x)))
         (<= (avg ?x) (true (guessed a ?x)))
         (<= (close ?p ?s) (true (guessed ?p ?g)) (avg ?r) (same ?r ?g ?s))
         (<= terminal (true (guessed a ?x)))
         (<= (goal ?p ?s) (close ?p ?s))"
    ));
    let firsts = first_reads(&game, "close", 2);
    assert!(!firsts.is_empty());
    assert!(firsts.iter().all(|first| first != "same"), "close reads first: {firsts:?}");
    let state = game.initial_state();
    let moves = [game.parse_move(0, "(guess 3)").expect("a move"), game.parse_move(1, "(guess 3)").expect("a move")];
    let state = game.next_state(&state, &moves);
    assert!(game.is_terminal(&state));
    assert_eq!(game.goals(&state), vec![Some(100), Some(100)]);
}
