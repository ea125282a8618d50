//! [`ProgramGame`] over the program module's sample program: one role, facts `p` and `q`,
//! moves `a` (legal when `p` holds) and `b` (always legal).

use super::*;
use crate::program::tests::sample;
use crate::rng::Rng;
use crate::Playout;
use std::sync::Arc;

fn names() -> Names {
    Names {
        roles: vec!["robot".to_string()],
        base: vec!["p".to_string(), "q".to_string()],
        moves: vec!["a".to_string(), "b".to_string()],
        role_moves: vec![vec![0, 1]],
        initial: vec![0],
        ..Names::default()
    }
}

fn game() -> ProgramGame {
    ProgramGame::new(sample(), names()).unwrap()
}

fn move_names(game: &ProgramGame, state: &State) -> Vec<String> {
    let mut moves = Vec::new();
    game.legal_moves(state, 0, &mut moves);
    moves.iter().map(|m| game.move_string(m)).collect()
}

#[test]
fn plays_the_program_from_its_initial_state() {
    let game = game();
    let start = game.initial_state();
    assert_eq!(game.state_facts(&start), ["p"]);
    assert_eq!(move_names(&game, &start), ["a", "b"]);
    assert!(!game.is_terminal(&start));
    assert_eq!(game.goals(&start), [Some(0)]);
    let a = game.parse_move(0, "  A ").unwrap();
    let after = game.next_state(&start, &[a]);
    assert_eq!(game.state_facts(&after), ["p", "q"], "a keeps p, and p reaches q");
    assert!(game.is_terminal(&after));
    assert_eq!(game.goal(&after, 0), Some(100));
    let b = game.parse_move(0, "b").unwrap();
    let empty = game.next_state(&game.next_state(&start, &[b]), &[b]);
    assert_eq!(game.state_facts(&empty), Vec::<String>::new());
    assert_eq!(move_names(&game, &empty), ["b"], "a needs p");
    assert!(!game.is_gdl_ii() && game.random_role().is_none());
}

#[test]
fn parses_only_the_moves_of_the_role() {
    let mut names = names();
    names.role_moves = vec![vec![1]];
    let game = ProgramGame::new(sample(), names).unwrap();
    assert_eq!(game.parse_move(0, "B"), Some(Move(1)));
    assert_eq!(game.parse_move(0, "a"), None, "a is not among the role's moves");
    assert_eq!(game.parse_move(0, "c"), None);
    assert_eq!(game.parse_move(0, "(unbalanced"), None);
    assert_eq!(game.parse_move(1, "b"), None, "no such role");
}

#[test]
fn random_playouts_end_in_the_terminal_state() {
    let game = game();
    let mut rng = Rng::seeded(3);
    let mut scratch = Playout::default();
    let mut goals = [0];
    for _ in 0..20 {
        crate::random_playout(&game, &game.initial_state(), &mut rng, &mut scratch, &mut goals);
        assert_eq!(goals, [100], "q, once reached, ends every playout with 100");
    }
}

#[test]
fn one_game_answers_alike_from_many_threads() {
    let game = Arc::new(game());
    let expected: Vec<String> = {
        let a = game.parse_move(0, "a").unwrap();
        game.state_facts(&game.next_state(&game.initial_state(), &[a]))
    };
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let game = Arc::clone(&game);
            let expected = expected.clone();
            std::thread::spawn(move || {
                let a = game.parse_move(0, "a").unwrap();
                // Each step evaluates a state other than the last one, through the cache.
                (0..100).all(|_| {
                    let next = game.next_state(&game.initial_state(), &[a]);
                    game.is_terminal(&next) && game.state_facts(&next) == expected
                })
            })
        })
        .collect();
    for worker in workers {
        assert!(worker.join().unwrap());
    }
}

#[test]
fn names_that_do_not_fit_the_program_are_refused() {
    let refused = |names: Names| ProgramGame::new(sample(), names).unwrap_err();
    assert_eq!(refused(Names { roles: Vec::new(), ..names() }), EngineError::NoRoles);
    let two_roles = Names { roles: vec!["x".to_string(), "y".to_string()], ..names() };
    assert!(matches!(refused(two_roles), EngineError::RoleCount { table: "legal", len: 1, roles: 2 }));
    let one_fact = Names { base: vec!["p".to_string()], ..names() };
    assert_eq!(refused(one_fact), EngineError::NextCount { next: 2, base: 1 });
    let unsorted = Names { moves: vec!["b".to_string(), "a".to_string()], ..names() };
    assert_eq!(refused(unsorted), EngineError::Unsorted { table: "moves" });
    let one_move = Names { moves: vec!["a".to_string()], role_moves: vec![vec![0]], ..names() };
    assert_eq!(refused(one_move), EngineError::OutOfRange { table: "legal", index: 1, len: 1 });
    let bad_initial = Names { initial: vec![5], ..names() };
    assert_eq!(refused(bad_initial), EngineError::OutOfRange { table: "initial", index: 5, len: 2 });
    let bad_random = Names { random_role: Some(1), ..names() };
    assert!(matches!(refused(bad_random), EngineError::OutOfRange { table: "random role", .. }));
    let mut broken = sample();
    broken.node_rules.clear();
    assert_eq!(ProgramGame::new(broken, names()).unwrap_err(), EngineError::Program("no node table"));
}
