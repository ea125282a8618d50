//! Relations checked at run time (`gdlc::ground::deferrable`, `gdl_runtime::prover`): games whose
//! checkable relations are all left out of grounding agree with the interpreter, state by state,
//! on random playouts.

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

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
    agree_with(path, &text, &Options { defer_relations: true, ..Options::default() }, playouts)
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
    program.deferred.atoms.len()
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
/// that it is checked at run time along with `good`, the only relation that reads it (and the
/// relations of the state alone, which do not ground within 100 either); past a limit of 250,
/// `good` alone is checked.
#[test]
fn checked_static_relations_agree_with_the_interpreter() {
    let text = include_str!("fixtures/latin_row.kif");
    for max_instances in [100, 250] {
        let options = Options { max_instances, ..Options::default() };
        // Random fillings are won now and then: 24 of the 256 are Latin.
        assert!(agree_with("latin row", text, &options, 300) > 0);
    }
}

/// The game of [`checked_relations_over_lists_agree_with_the_interpreter`].
const LIST_PATHS: &str = "(role p)
    (init (cell 1 1 blank)) (init (cell 1 2 blank)) (init (cell 1 3 blank))
    (init (cell 2 1 blank)) (init (cell 2 2 blank)) (init (cell 2 3 blank))
    (row 1) (row 2) (succ 1 2) (succ 2 3) (mark x) (mark o)
    (id 1 1 a) (id 1 2 b) (id 1 3 c) (id 2 1 d) (id 2 2 e) (id 2 3 f)
    (le a) (le b) (le c) (le d) (le e) (le f)
    (<= (legal p (put ?r ?c ?m)) (true (cell ?r ?c blank)) (mark ?m))
    (<= (next (cell ?r ?c ?m)) (does p (put ?r ?c ?m)))
    (<= (next (cell ?r ?c ?v)) (true (cell ?r ?c ?v)) (not (placed ?r ?c)))
    (<= (placed ?r ?c) (does p (put ?r ?c ?m)))
    (<= (adjacent ?r ?c1 ?r ?c2) (row ?r) (or (succ ?c1 ?c2) (succ ?c2 ?c1)))
    (<= (adjacent ?r1 ?c ?r2 ?c) (succ ?c 2) (or (succ ?r1 ?r2) (succ ?r2 ?r1)))
    (<= (adjacent ?r1 3 ?r2 3) (or (succ ?r1 ?r2) (succ ?r2 ?r1)))
    (<= (xneighbour ?r1 ?c1 ?r2 ?c2) (adjacent ?r1 ?c1 ?r2 ?c2) (true (cell ?r2 ?c2 x)))
    (<= (conn ?r1 ?c1 ?r2 ?c2 ?list) (id ?r1 ?c1 ?id) (append_el ?id ?list ?list2)
        (conn2 ?r1 ?c1 ?r2 ?c2 ?list2))
    (<= (conn2 ?r1 ?c1 ?r2 ?c2 ?list) (xneighbour ?r1 ?c1 ?r2 ?c2) (islist ?list))
    (<= (conn2 ?r1 ?c1 ?r2 ?c2 ?list) (xneighbour ?r1 ?c1 ?r3 ?c3)
        (conn ?r3 ?c3 ?r2 ?c2 ?list) (islist ?list))
    (<= line (true (cell ?r 1 x)) (conn ?r 1 ?r2 3 nil))
    (<= (append_el ?el nil (list ?el nil)) (le ?el))
    (<= (append_el ?el (list ?head ?tail) (list ?head ?newtail)) (le ?head) (le ?el)
        (distinct ?el ?head) (islist ?tail) (append_el ?el ?tail ?newtail) (islist ?newtail))
    (islist nil)
    (<= (islist (list ?a nil)) (le ?a))
    (<= (islist (list ?a (list ?b nil))) (le ?a) (le ?b))
    (<= (islist (list ?a (list ?b (list ?c nil)))) (le ?a) (le ?b) (le ?c))
    (<= (islist (list ?a (list ?b (list ?c (list ?d nil))))) (le ?a) (le ?b) (le ?c) (le ?d))
    (<= open (true (cell ?r ?c blank)))
    (<= terminal line)
    (<= terminal (not open))
    (<= (goal p 100) line)
    (<= (goal p 0) (not line))";

/// A path on a 2×3 board of marked cells from the first column to the last, written as
/// laikLee_hex writes its connections: each step carries the list of the cells visited
/// (`append_el` appends a cell not on it yet, `islist` bounds the lists to four cells). Past a
/// limit of 500 the static `islist` is checked at run time, and with it `append_el` and the
/// connections, which build and take apart the lists, and are called with the far end free.
#[test]
fn checked_relations_over_lists_agree_with_the_interpreter() {
    let text = LIST_PATHS;
    let options = Options { max_instances: 500, ..Options::default() };
    assert!(agree_with("list paths", text, &options, 300) > 0);
}

/// `--form auto` compiles a game from its ground program when it checks few atoms at run time
/// (the Latin row's 6), and in the lifted form when it checks many (breakthrough with every
/// checkable relation checked: `gdlc::compile::prefers_lifted`); a ground form asked for stays
/// ground.
#[test]
fn form_auto_lifts_a_game_that_checks_many_atoms_at_run_time() {
    use gdlc::codegen::Form;
    use gdlc::compile::{compile, ground_source, WhyLifted, LIFTED_CHECKED_ATOMS};
    let breakthrough = std::fs::read_to_string("../games/breakthrough.kif").unwrap();
    let games = [
        (include_str!("fixtures/latin_row.kif"), Options { max_instances: 100, ..Options::default() }),
        (breakthrough.as_str(), Options { defer_relations: true, ..Options::default() }),
    ];
    let mut lifted = Vec::new();
    for (text, ground) in games {
        let options = |form| gdlc::codegen::Options { ground: ground.clone(), form };
        let atoms = ground_source(text, &options(Form::Auto)).unwrap().deferred.atoms.len();
        let auto = compile(text, &options(Form::Auto)).unwrap();
        assert_eq!(auto.is_lifted(), atoms >= LIFTED_CHECKED_ATOMS, "{atoms} atoms checked");
        if auto.is_lifted() {
            assert!(matches!(auto.lifted_because, Some(WhyLifted::CheckedAtoms(n)) if n == atoms));
        }
        assert!(!compile(text, &options(Form::Tables)).unwrap().is_lifted());
        lifted.push(auto.is_lifted());
    }
    assert_eq!(lifted, [false, true], "one game of each kind");
}

/// The lifted module of a game lifted for its checks carries the ground program's base facts
/// and moves in its store, so that its evaluations find a state's and a move's terms there
/// rather than make them again; asked for in the lifted form, with no ground program, 4pffa's
/// module has few of them (its rules and a few observed states name the rest).
#[test]
fn a_game_lifted_for_its_checks_keeps_its_states_and_moves_terms() {
    use gdlc::codegen::Form;
    use gdlc::compile::{compile, ground_source, known_terms, WhyLifted};
    let text = std::fs::read_to_string("../games/4pffa.kif").unwrap();
    let ground = ground_source(&text, &checking_every_relation(Form::Auto)).unwrap();
    let known = known_terms(&ground);
    let missing = |form| {
        let compiled = compile(&text, &checking_every_relation(form)).unwrap();
        assert!(compiled.is_lifted());
        assert_eq!(matches!(compiled.lifted_because, Some(WhyLifted::CheckedAtoms(_))), form == Form::Auto);
        missing_from_store(&compiled.tokens.to_string(), &known)
    };
    assert!(known.len() > 500, "{} terms", known.len());
    assert_eq!(missing(Form::Auto), 0);
    assert!(missing(Form::Lifted) > known.len() / 2);
}

/// Under `--form auto`, grounding stops once its first deferring attempt reads
/// `LIFT_AT_CHECKS` atoms to check (chineseCheckers3 with every checkable relation checked
/// reads 24,642): the game is compiled lifted, its store keeping every base fact and move of
/// the ground program it did not finish, and a ground form asked for still grounds it whole.
#[test]
fn form_auto_stops_grounding_a_game_that_checks_very_many_atoms() {
    use gdlc::codegen::Form;
    use gdlc::compile::{compile, ground_source, known_terms, WhyLifted, LIFT_AT_CHECKS};
    let text = std::fs::read_to_string("../games/chineseCheckers3.kif").unwrap();
    let ground = ground_source(&text, &checking_every_relation(Form::Auto)).unwrap();
    assert!(ground.deferred.atoms.len() > 2 * LIFT_AT_CHECKS, "{} atoms", ground.deferred.atoms.len());
    let auto = compile(&text, &checking_every_relation(Form::Auto)).unwrap();
    let Some(WhyLifted::ChecksMany(atoms)) = auto.lifted_because else { panic!("{:?}", auto.lifted_because) };
    assert!((LIFT_AT_CHECKS..ground.deferred.atoms.len()).contains(&atoms), "stopped at {atoms}");
    assert_eq!(missing_from_store(&auto.tokens.to_string(), &known_terms(&ground)), 0);
    assert!(!compile(&text, &checking_every_relation(Form::Tables)).unwrap().is_lifted());
}

/// A grounding asked to stop at a number of checked atoms stops there with the terms of its
/// base facts and moves, a superset of those of the finished program (the later passes drop
/// the facts no reachable state holds); one not asked grounds the game whole.
#[test]
fn grounding_stops_at_the_checked_atoms_asked_with_the_base_facts_and_moves() {
    use gdlc::compile::known_terms;
    let text = std::fs::read_to_string("../games/breakthrough.kif").unwrap();
    let description = parse_auto(&text).description;
    let whole = ground(&description, &Options { defer_relations: true, ..Options::default() }).unwrap();
    assert!(whole.deferred.atoms.len() > 20);
    let stopped =
        ground(&description, &Options { defer_relations: true, lift_at_checks: Some(20), ..Options::default() });
    let Err(gdlc::ground::Error::ChecksMany { atoms, known }) = stopped else { panic!("{stopped:?}") };
    assert!(atoms >= 20 && atoms < whole.deferred.atoms.len(), "{atoms}");
    assert!(known_terms(&whole).iter().all(|text| known.contains(text)));
}

/// Under `--form auto`, the first deferring attempt comes before the demand restriction: a game
/// that plain grounding cannot take within its limit and demand would ground (checkersTorus at
/// 30,000 instances) stops at that attempt when it reads the atoms to check that
/// [`Options::lift_at_checks`] allows, without demand's work (chess: 8 s of it); without the
/// stop, demand grounds the game whole.
#[test]
fn a_deferring_attempt_that_stops_at_its_checks_comes_before_demand() {
    let text = std::fs::read_to_string("../games/checkersTorus.kif").unwrap();
    let description = parse_auto(&text).description;
    let limited = Options { max_instances: 30_000, ..Options::default() };
    let demanded = ground(&description, &limited).unwrap();
    assert!(demanded.deferred.atoms.is_empty(), "{} atoms", demanded.deferred.atoms.len());
    let deferring = ground(&description, &Options { defer_relations: true, ..limited.clone() }).unwrap();
    let checks = deferring.deferred.atoms.len();
    assert!(checks > 1, "{checks} atoms");
    let stopped = ground(&description, &Options { lift_at_checks: Some(1), ..limited });
    let Err(gdlc::ground::Error::ChecksMany { atoms, .. }) = stopped else { panic!("{stopped:?}") };
    assert!((1..=checks).contains(&atoms), "stopped at {atoms}");
}

/// Compiler options in `form` with every relation that can be checked at run time checked.
fn checking_every_relation(form: gdlc::codegen::Form) -> gdlc::codegen::Options {
    gdlc::codegen::Options { ground: Options { defer_relations: true, ..Options::default() }, form }
}

/// How many of the ground terms `known` (in KIF) the store of the lifted module `tokens` lacks.
fn missing_from_store(tokens: &str, known: &[String]) -> usize {
    let (symbols, terms) = module_store(tokens);
    let has = |text: &str| {
        let mut flat = Vec::new();
        let sx = gdl_runtime::kif::parse_one(text).unwrap();
        symbols.encode_sx(&sx, &mut flat).and_then(|()| terms.find_flat(&flat)).is_some()
    };
    known.iter().filter(|text| !has(text)).count()
}

/// The symbols and terms a lifted module packs in its `PROGRAM`.
fn module_store(tokens: &str) -> (gdl_runtime::lifted::store::Symbols, gdl_runtime::lifted::store::Terms) {
    let after = |key: &str| &tokens[tokens.find(key).unwrap() + key.len()..];
    let names_text = after("names : & [");
    let names: Vec<&str> = names_text[..names_text.find(']').unwrap()]
        .split(',')
        .map(|n| n.trim().trim_matches('"'))
        .filter(|n| !n.is_empty())
        .collect();
    let terms_text = after("terms : \"");
    let words = gdl_runtime::program::text_to_words(&terms_text[..terms_text.find('"').unwrap()]).unwrap();
    (
        gdl_runtime::lifted::store::Symbols::from_names(&names),
        gdl_runtime::lifted::store::Terms::from_flat(&words).unwrap(),
    )
}
