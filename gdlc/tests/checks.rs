//! Relations checked at run time (`gdlc::ground::checks`, `gdl_runtime::checks`): games whose
//! checkable relations are all left out of grounding agree with the interpreter, state by state,
//! on random playouts.

use gdl_runtime::rng::Rng;
use gdl_runtime::Game;
use gdlc::ground::{ground, Options};
use gdlc::interp::Interpreter;
use gdlc::parse::parse_auto;

/// Plays seeded random playouts through the interpreter and checks the table form of the game
/// grounded with every checkable relation checked at run time against it in every state: legal
/// moves per role, terminal, goals, and the next state of the joint move played. Returns how
/// many check atoms the program reads, so tests can tell that checks were made.
fn agree(path: &str, playouts: usize) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    agree_with(path, &text, &Options { check_relations: true, ..Options::default() }, playouts)
}

/// Like [`agree`], for game `text` grounded with `options`.
fn agree_with(path: &str, text: &str, options: &Options, playouts: usize) -> usize {
    let description = parse_auto(text).description;
    let g = ground(&description, options).unwrap();
    let program = gdlc::codegen::program::program(&g);
    let interp = Interpreter::new(&description).unwrap();
    let bits = |facts: &[String]| {
        let mut words = vec![0u64; g.base.len().div_ceil(64).max(1)];
        for f in facts {
            let i = g.base.binary_search(f).unwrap_or_else(|_| panic!("{f} is not a base fact"));
            words[i / 64] |= 1 << (i % 64);
        }
        words
    };
    let mut rng = Rng::seeded(7);
    for _ in 0..playouts {
        let mut state = interp.initial_state();
        for _step in 0..300 {
            let words = bits(&interp.state_facts(&state));
            let terminal = interp.is_terminal(&state);
            assert_eq!(program.terminal(&words), terminal, "{path}: terminal");
            let mut goals = vec![None; interp.num_roles()];
            program.goals(&words, &mut goals);
            let expected: Vec<Option<u32>> = (0..interp.num_roles()).map(|r| interp.goal(&state, r)).collect();
            assert_eq!(goals, expected, "{path}: goals");
            if terminal {
                break;
            }
            let mut joint = Vec::new();
            let mut joint_indices = Vec::new();
            for role in 0..interp.num_roles() {
                let mut moves = Vec::new();
                interp.legal_moves(&state, role, &mut moves);
                let mut expected: Vec<String> = moves.iter().map(|m| interp.move_string(m)).collect();
                expected.sort();
                let mut got = Vec::new();
                program.legal(&words, role, |m| got.push(g.moves[m as usize].clone()));
                got.sort();
                assert_eq!(got, expected, "{path}: legal moves of role {role}");
                let pick = rng.below(moves.len());
                joint_indices.push(g.moves.binary_search(&expected[pick]).unwrap() as u32);
                joint.push(interp.parse_move(role, &expected[pick]).unwrap());
            }
            let next = interp.next_state(&state, &joint);
            let mut got = vec![0u64; words.len()];
            program.next(&words, &joint_indices, &mut got);
            assert_eq!(got, bits(&interp.state_facts(&next)), "{path}: next state");
            state = next;
        }
    }
    program.checks.atoms.len()
}

#[test]
fn checked_relations_agree_with_the_interpreter() {
    for (game, playouts) in [
        ("../games/ticTacToe.kif", 30),
        ("../games/connectFour.kif", 10),
        ("../games/breakthrough.kif", 3),
        ("../games/pentago.kif", 3),
        ("../games/checkers.kif", 2),
    ] {
        let atoms = agree(game, playouts);
        eprintln!("{game}: {atoms} check atoms");
    }
}

/// A one-row Latin square whose static `exactlyfirst` (108 facts) goes past a limit of 100, so
/// that it is checked at run time along with `good`, the only relation that reads it.
#[test]
fn checked_static_relations_agree_with_the_interpreter() {
    let text = "(role p)
        (index 1) (index 2) (index 3) (index 4) (eq 1 1) (eq 2 2) (eq 3 3) (eq 4 4)
        (<= (filled ?i) (true (mark ?i ?m)))
        (<= (legal p (play ?i ?m)) (index ?i) (index ?m) (not (filled ?i)))
        (<= (next (mark ?i ?m)) (does p (play ?i ?m)))
        (<= (next (mark ?i ?m)) (true (mark ?i ?m)))
        (<= open (index ?i) (not (filled ?i)))
        (<= terminal (not open))
        (<= (exactlyfirst ?z ?x1 ?x2 ?x3 ?x4) (eq ?z ?x1) (index ?x2) (index ?x3) (index ?x4)
            (not (eq ?z ?x2)) (not (eq ?z ?x3)) (not (eq ?z ?x4)))
        (<= (exactlyone ?z ?a ?b ?c ?d) (exactlyfirst ?z ?a ?b ?c ?d))
        (<= (exactlyone ?z ?a ?b ?c ?d) (exactlyfirst ?z ?b ?a ?c ?d))
        (<= (exactlyone ?z ?a ?b ?c ?d) (exactlyfirst ?z ?c ?a ?b ?d))
        (<= (exactlyone ?z ?a ?b ?c ?d) (exactlyfirst ?z ?d ?a ?b ?c))
        (<= good (true (mark 1 ?m1)) (true (mark 2 ?m2)) (true (mark 3 ?m3)) (true (mark 4 ?m4))
            (exactlyone 1 ?m1 ?m2 ?m3 ?m4) (exactlyone 2 ?m1 ?m2 ?m3 ?m4)
            (exactlyone 3 ?m1 ?m2 ?m3 ?m4) (exactlyone 4 ?m1 ?m2 ?m3 ?m4))
        (<= (goal p 100) good)
        (<= (goal p 0) (not good))";
    let options = Options { max_instances: 100, ..Options::default() };
    // Random fillings are won now and then: 24 of the 256 are Latin.
    assert!(agree_with("latin row", text, &options, 300) > 0);
}
