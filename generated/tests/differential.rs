//! Differential tests: every compiled game of `generated/` against the reference interpreter
//! on the same game file, over random playouts (states, legal move sets, terminal, goals), and
//! over the conformance suite's recorded matches where the suite has the game.

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

use gdl_player::trace;
use gdl_runtime::rng::Rng;
use gdl_runtime::Game;
use gdlc::interp::{differential, Interpreter};
use std::path::{Path, PathBuf};

/// Random playouts per game; `GDLC_DIFF_PLAYOUTS` raises it for a longer run.
fn playouts() -> usize {
    std::env::var("GDLC_DIFF_PLAYOUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(60)
}

/// Games on which the interpreter takes a tenth of a second or more per state (in a release
/// build), so that the default run compares one playout of them rather than `playouts()`;
/// `GDLC_DIFF_PLAYOUTS` applies to them too.
const SLOW_IN_THE_INTERPRETER: &[&str] = &["games/chineseCheckers3.kif"];

fn playouts_of(file: &str) -> usize {
    match std::env::var("GDLC_DIFF_PLAYOUTS") {
        Err(_) if SLOW_IN_THE_INTERPRETER.contains(&file) => 1,
        _ => playouts(),
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn interpreter(file: &str) -> Interpreter {
    let loaded = gdlc::load::load_valid(&root().join(file)).expect("a valid game");
    Interpreter::new(&loaded.description).expect("the interpreter loads the game")
}

fn random_playouts<C: Game>(compiled: &C, file: &str) {
    let interp = interpreter(file);
    let playouts = playouts_of(file);
    let agreement =
        differential::random_playouts(compiled, &interp, 7, playouts).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(agreement.states > playouts, "{file}: only {} states compared", agreement.states);
    // Every bundled GDL-II game has percepts, so the comparison saw some.
    let percepts = agreement.percepts;
    assert_eq!(percepts > 0, compiled.is_gdl_ii(), "{file}: {percepts} percepts compared");
}

fn recorded_matches<C: Game>(compiled: &C, file: &str) {
    let stem = Path::new(file).file_stem().unwrap().to_string_lossy().into_owned();
    let traces = root().join("../shared/conformance/traces");
    let path = traces.join(format!("{stem}.jsonl"));
    let Ok(text) = std::fs::read_to_string(&path) else { return };
    if std::fs::read(traces.join(format!("{stem}.kif"))).ok() != std::fs::read(root().join(file)).ok() {
        return;
    }
    let matches = trace::read(&text).expect("a readable trace");
    for (k, m) in matches.iter().enumerate() {
        let replayed = trace::replay(compiled, m).unwrap_or_else(|e| panic!("{stem} match {k}: {e}"));
        trace::compare(m, &replayed).unwrap_or_else(|e| panic!("{stem} match {k}: {e}"));
    }
}

/// A game played only through the general interface: every method but `random_step`
/// delegates to the wrapped game, so random playouts take `Game::random_step`'s default path.
struct GeneralOnly<'a, G>(&'a G);

impl<G: Game> Game for GeneralOnly<'_, G> {
    type State = G::State;
    type Move = G::Move;

    fn num_roles(&self) -> usize {
        self.0.num_roles()
    }

    fn role_name(&self, role: usize) -> &str {
        self.0.role_name(role)
    }

    fn initial_state(&self) -> G::State {
        self.0.initial_state()
    }

    fn legal_moves(&self, state: &G::State, role: usize, out: &mut Vec<G::Move>) {
        self.0.legal_moves(state, role, out)
    }

    fn next_state(&self, state: &G::State, joint: &[G::Move]) -> G::State {
        self.0.next_state(state, joint)
    }

    fn is_terminal(&self, state: &G::State) -> bool {
        self.0.is_terminal(state)
    }

    fn goal(&self, state: &G::State, role: usize) -> Option<u32> {
        self.0.goal(state, role)
    }

    fn state_facts(&self, state: &G::State) -> Vec<String> {
        self.0.state_facts(state)
    }

    fn move_string(&self, mv: &G::Move) -> String {
        self.0.move_string(mv)
    }

    fn parse_move(&self, role: usize, text: &str) -> Option<G::Move> {
        self.0.parse_move(role, text)
    }

    fn is_gdl_ii(&self) -> bool {
        self.0.is_gdl_ii()
    }

    fn random_role(&self) -> Option<usize> {
        self.0.random_role()
    }

    fn percepts(&self, state: &G::State, joint: &[G::Move], role: usize, out: &mut Vec<String>) {
        self.0.percepts(state, joint, role, out)
    }
}

/// The game's own `random_step` (the fused one the generated code has) plays exactly the
/// steps that the general interface, checked against the interpreter above, plays with the
/// same random numbers; its `random_step_into` writes the same states in place, and leaves its
/// output as it was when there is no step.
fn fused_steps_match_the_general_interface<G: Game>(game: &G, file: &str) {
    let general = GeneralOnly(game);
    let (mut fast_rng, mut slow_rng, mut into_rng) = (Rng::seeded(11), Rng::seeded(11), Rng::seeded(11));
    let (mut fast_scratch, mut slow_scratch) = (gdl_runtime::Playout::default(), gdl_runtime::Playout::default());
    let mut into_scratch = gdl_runtime::Playout::default();
    let mut steps = 0usize;
    for playout in 0..200 {
        let (mut fast, mut slow) = (game.initial_state(), general.initial_state());
        loop {
            let a = game.random_step(&fast, &mut fast_rng, &mut fast_scratch);
            let b = general.random_step(&slow, &mut slow_rng, &mut slow_scratch);
            assert_eq!(a, b, "{file}: playout {playout}, from {:?}", game.state_facts(&fast));
            // Without a step, the output keeps what it held: the initial state.
            let mut into = game.initial_state();
            let stepped = game.random_step_into(&fast, &mut into_rng, &mut into_scratch, &mut into);
            let expected = a.clone().unwrap_or_else(|| game.initial_state());
            assert_eq!((stepped, &into), (a.is_some(), &expected), "{file}: playout {playout}, in place");
            match (a, b) {
                (Some(a), Some(b)) => (fast, slow) = (a, b),
                _ => break,
            }
            steps += 1;
        }
    }
    assert!(steps > 0, "{file}: no step played");
}

macro_rules! differential_test {
    ($module:ident, $file:literal) => {
        mod $module {
            #[test]
            fn agrees_with_the_interpreter_on_random_playouts() {
                super::random_playouts(&generated::games::$module::Game, $file);
            }

            #[test]
            fn random_steps_match_the_general_interface() {
                super::fused_steps_match_the_general_interface(&generated::games::$module::Game, $file);
            }

            #[test]
            fn replays_the_recorded_matches() {
                super::recorded_matches(&generated::games::$module::Game, $file);
            }
        }
    };
}

generated::for_each_game!(differential_test);

/// Every check of a bundled game above, with the game played by its lifted rules beside its
/// tables rather than by the tables, whichever the race chose: the two engines of one module
/// play alike, and a seed gives the same random playouts through both.
fn lifted_rules_agree<G: Game>(game: &G, has_lifted: bool, file: &str) {
    use gdl_runtime::program::{with_engine, Engine};
    assert!(has_lifted, "{file}: no lifted rules beside the tables");
    with_engine(Engine::Lifted, || {
        random_playouts(game, file);
        fused_steps_match_the_general_interface(game, file);
        recorded_matches(game, file);
    });
    let playouts = |engine| with_engine(engine, || seeded_playouts(game, 50));
    assert_eq!(playouts(Engine::Lifted), playouts(Engine::Tables), "{file}: the engines drew different playouts");
}

/// The states of `count` random playouts from the initial state, drawn with one seed, and the
/// goals of each one's last state, asked right after the step that found no next state (as a
/// playout asks them, and as the lifted rules answer them from the evaluation of that step).
#[allow(clippy::type_complexity)]
fn seeded_playouts<G: Game>(game: &G, count: usize) -> Vec<(Vec<G::State>, Vec<Option<u32>>)> {
    let (mut rng, mut scratch) = (Rng::seeded(5), gdl_runtime::Playout::default());
    let mut playouts = Vec::new();
    for _ in 0..count {
        let mut states = vec![game.initial_state()];
        while let Some(next) = game.random_step(&states[states.len() - 1], &mut rng, &mut scratch) {
            states.push(next);
        }
        let mut goals = vec![None; game.num_roles()];
        game.goals_into(&states[states.len() - 1], &mut goals);
        playouts.push((states, goals));
    }
    playouts
}

#[test]
fn tic_tac_toe_lifted_rules_agree_with_the_interpreter() {
    use generated::games::tic_tac_toe_tables as game;
    lifted_rules_agree(&game::Game, game::engines().has_lifted(), "games/ticTacToe.kif");
}

/// buttons' legal moves are a static relation: the lifted rules answer them from a list made
/// when the game is loaded.
#[test]
fn buttons_lifted_rules_agree_with_the_interpreter() {
    use generated::games::buttons_tables as game;
    lifted_rules_agree(&game::Game, game::engines().has_lifted(), "games/buttons.kif");
}

/// phases reads constants through `true` and `does`: each its own relation of no arguments,
/// loaded from the state's bits as the functions' relations are.
#[test]
fn phases_lifted_rules_agree_with_the_interpreter() {
    use generated::games::phases_tables as game;
    lifted_rules_agree(&game::Game, game::engines().has_lifted(), "games/phases.kif");
}

#[test]
fn connect_four_lifted_rules_agree_with_the_interpreter() {
    use generated::games::connect_four_tables as game;
    lifted_rules_agree(&game::Game, game::engines().has_lifted(), "games/connectFour.kif");
}

#[test]
fn breakthrough_lifted_rules_agree_with_the_interpreter() {
    use generated::games::breakthrough_tables as game;
    lifted_rules_agree(&game::Game, game::engines().has_lifted(), "games/breakthrough.kif");
}

/// The game `gdl!` compiles while this crate builds plays as the interpreter does, like the
/// checked-in module of the same game.
#[test]
fn the_gdl_macro_game_agrees_with_the_interpreter() {
    random_playouts(&generated::tic_tac_toe_embedded::Game, "games/ticTacToe.kif");
}

/// The infix game given inline to `gdl!`: ticking three times ends it with goal 100.
#[test]
fn the_inline_infix_game_plays() {
    let game = generated::counter_embedded::Game;
    let mut state = game.initial_state();
    let mut moves = Vec::new();
    game.legal_moves(&state, 0, &mut moves);
    let names: Vec<String> = moves.iter().map(|m| game.move_string(m)).collect();
    assert_eq!(names, ["tick", "wait"]);
    let tick = game.parse_move(0, "tick").expect("tick is a move");
    for _ in 0..3 {
        assert!(!game.is_terminal(&state));
        assert_eq!(game.goal(&state, 0), Some(0));
        state = game.next_state(&state, &[tick]);
    }
    assert!(game.is_terminal(&state));
    assert_eq!(game.goal(&state, 0), Some(100));
    assert_eq!(game.state_facts(&state), ["(count 3)"]);
}

/// Random playouts of a GDL-II game, in which the `random` role draws uniformly like every
/// other role, averaged over a fixed number of playouts with a fixed seed.
fn average_goals<G: Game>(game: &G, playouts: u64) -> Vec<f64> {
    gdl_runtime::bench::run_playouts(game, playouts, 0x5eed).average_goals()
}

/// Monty Hall with a candidate that chooses and switches at random wins half the time: a
/// third when it stays, two thirds when it switches. Through the interpreter and both forms
/// of the compiled game.
#[test]
fn monty_hall_random_play_averages_fifty_through_every_engine() {
    let interp = interpreter("games/montyHall.kif");
    let averages = [
        ("interp", average_goals(&interp, 20_000)),
        ("straight", average_goals(&generated::games::monty_hall::Game, 20_000)),
        ("tables", average_goals(&generated::games::monty_hall_tables::Game, 20_000)),
    ];
    for (engine, goals) in averages {
        assert!((goals[0] - 50.0).abs() < 2.0, "{engine}: candidate averages {goals:?}");
        assert_eq!(goals[1], 0.0, "{engine}: the random role's goal is 0");
    }
}

/// Dice duel is symmetric between its two players: under random play they average within 2
/// of each other, through the interpreter and both forms of the compiled game.
#[test]
fn dice_duel_players_average_alike_through_every_engine() {
    let interp = interpreter("games/diceDuel.kif");
    let averages = [
        ("interp", average_goals(&interp, 20_000)),
        ("straight", average_goals(&generated::games::dice_duel::Game, 20_000)),
        ("tables", average_goals(&generated::games::dice_duel_tables::Game, 20_000)),
    ];
    for (engine, goals) in averages {
        assert!((goals[0] - goals[1]).abs() < 2.0, "{engine}: alice and bob average {goals:?}");
        assert!(goals[0] > 30.0 && goals[0] < 70.0, "{engine}: {goals:?}");
    }
}
