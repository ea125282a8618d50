//! The engine over the ground program (`gdlc::compile::load_engine`, `gdl_runtime::engine`)
//! against the interpreter: seeded random playouts compared state by state on facts,
//! terminal, goals, legal moves and percepts, over games of every kind (turn-based and
//! simultaneous, one to four players, GDL-II with a random role, relations checked at run
//! time), the same states visited again in a random order (the evaluator keeps what it
//! computed for the last state), and the conformance suite's recorded matches replayed
//! through it.

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

use gdl_player::trace;
use gdl_runtime::engine::ProgramGame;
use gdl_runtime::Game;
use gdlc::compile::load_engine;
use gdlc::ground::Options;
use gdlc::interp::differential::{random_playouts, scattered_states, Agreement};
use gdlc::interp::Interpreter;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Compares the engine with the interpreter on `playouts` random playouts of `file` (relative
/// to the repository) grounded with `options`; returns what was compared and how many atoms
/// the program checks at run time.
fn agree_with(file: &str, options: &Options, playouts: usize) -> (Agreement, ProgramGame) {
    let loaded = gdlc::load::load_valid(&root().join(file)).unwrap();
    let engine = load_engine(&loaded.source, options).unwrap_or_else(|e| panic!("{file}: {e}"));
    let interp = Interpreter::new(&loaded.description).unwrap();
    let agreement = random_playouts(&engine, &interp, 7, playouts).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(agreement.states > playouts, "{file}: only {} states compared", agreement.states);
    assert_eq!(agreement.percepts > 0, engine.is_gdl_ii(), "{file}: {} percepts compared", agreement.percepts);
    // Every program evaluates incrementally, but for those whose outputs read relations proved
    // at run time themselves (see `deferred_relations_agree` for those that read them through
    // rules).
    if engine.program().deferred.atoms.is_empty() {
        assert!(engine.program().is_incremental(), "{file}: evaluated in full passes");
    }
    let scattered = scattered_states(&engine, &interp, 11, playouts.min(5)).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(scattered.states > playouts.min(5), "{file}: only {} scattered states compared", scattered.states);
    (agreement, engine)
}

fn agree(file: &str, playouts: usize) {
    agree_with(file, &Options::default(), playouts);
}

macro_rules! differential {
    ($($test:ident => $file:literal, $playouts:literal;)*) => {
        $( #[test] fn $test() { agree($file, $playouts); } )*
    };
}

differential! {
    tic_tac_toe => "games/ticTacToe.kif", 100;
    connect_four => "games/connectFour.kif", 30;
    breakthrough => "games/breakthrough.kif", 10;
    reversi => "games/reversi.kif", 5;
    pentago => "games/pentago.kif", 10;
    simultaneous_connect_four => "games/connectFourSimultaneous.kif", 30;
    three_player_connect_four => "games/3pConnectFour.kif", 10;
    four_player_ffa => "games/4pffa.kif", 10;
    monty_hall => "../shared/games-gdl2/montyHall.kif", 100;
    dice_duel => "games/diceDuel.kif", 50;
    kuhn_poker => "games/kuhnPoker.kif", 100;
    hanoi => "games/hanoi.kif", 5;
    bidding_tic_tac_toe => "../shared/games/biddingTicTacToe.kif", 5;
    nim => "../shared/games/nim1.kif", 10;
    six_player_tic_tac_toe => "../shared/games/tictactoe_3d_small_6player.kif", 2;
    // Frames read through what a move affects (`gdlc::ground::affected`): a jump keeps the
    // cells it does not reach, a sowing the pits it does not empty while the hand is not down
    // to its last seed.
    blobwars => "../shared/games/blobwars.kif", 3;
    lamps => "gdlc/tests/fixtures/lamps.kif", 100;
    kalaha => "../shared/games/kalaha5x2x3.kif", 3;
}

/// Every relation that can be checked at run time left out of grounding: the engine asks the
/// run-time prover, as the table form does.
#[test]
fn deferred_relations_agree() {
    let options = Options { defer_relations: true, ..Options::default() };
    let (_, engine) = agree_with("games/ticTacToe.kif", &options, 20);
    assert!(!engine.program().deferred.atoms.is_empty(), "ticTacToe checks no atom at run time");
    // Its rules read the run-time atoms, and it is evaluated incrementally all the same.
    assert!(engine.program().is_incremental());
}

/// othello-comp2007 with every relation that can be checked at run time left out of
/// grounding: some of its legal rules read run-time atoms and the turn, which thousands of
/// rules read, and the sample of playouts finds them cheaper to watch than to count; they are
/// armed while their other literals hold.
#[test]
fn watched_rules_that_read_run_time_atoms_agree() {
    let options = Options { defer_relations: true, ..Options::default() };
    let (agreement, engine) = agree_with("../shared/games/othello-comp2007.kif", &options, 2);
    assert!(engine.program().watched_rules_reading_run_time_atoms() > 100);
    assert!(agreement.states > 100, "only {} states compared", agreement.states);
}

/// A program that proves atoms at run time is worth racing against the interpreter, one
/// evaluated incrementally without them is not, and a race measures both engines.
#[test]
fn programs_that_prove_atoms_at_run_time_race_the_interpreter() {
    let loaded = gdlc::load::load_valid(&root().join("games/ticTacToe.kif")).unwrap();
    let plain = load_engine(&loaded.source, &Options::default()).unwrap();
    assert!(!gdlc::engine::worth_racing(&plain));
    let deferring = Options { defer_relations: true, ..Options::default() };
    let deferred = load_engine(&loaded.source, &deferring).unwrap();
    assert!(gdlc::engine::worth_racing(&deferred));
    let interp = Interpreter::new(&loaded.description).unwrap();
    let race = gdlc::engine::race(&deferred, &interp, std::time::Duration::from_millis(100));
    assert!(race.program > 0.0 && race.interpreter > 0.0, "{race:?}");
}

/// A static relation past the grounding limit checked at run time (the fixture of the
/// grounder's tests).
#[test]
fn deferred_static_relations_agree() {
    let options = Options { max_instances: 100, ..Options::default() };
    let (_, engine) = agree_with("gdlc/tests/fixtures/latin_row.kif", &options, 100);
    assert!(!engine.program().deferred.atoms.is_empty(), "the Latin row checks no atom at run time");
}

/// An rtGDL game is refused with its own error, not played wrong.
#[test]
fn real_time_games_are_refused() {
    let dir = root().join("games/rtgdl");
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "kif"));
    let source = std::fs::read_to_string(file.unwrap()).unwrap();
    let error = load_engine(&source, &Options::default()).unwrap_err();
    assert!(matches!(error, gdlc::Error::Engine(gdlc::engine::Error::RealTime)), "{error}");
}

/// The recorded matches of the conformance suite replay through the engine as ggp-base
/// played them.
#[test]
fn replays_the_conformance_traces() {
    let dir = root().join("../shared/conformance/traces");
    for name in ["ticTacToe", "connectFour", "breakthrough", "buttons", "maze", "hanoi"] {
        let source = std::fs::read_to_string(dir.join(format!("{name}.kif"))).unwrap();
        let engine = load_engine(&source, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = std::fs::read_to_string(dir.join(format!("{name}.jsonl"))).unwrap();
        for (i, m) in trace::read(&text).unwrap().iter().enumerate() {
            let replayed = trace::replay(&engine, m).unwrap_or_else(|e| panic!("{name} match {i}: {e}"));
            trace::compare(m, &replayed).unwrap_or_else(|e| panic!("{name} match {i}: {e}"));
        }
    }
}

/// Perft through the program engine gives the counts known for tic-tac-toe's game tree, and
/// the interpreter agrees with it depth by depth on connectFour.
#[test]
fn perft_counts_the_known_tic_tac_toe_tree_and_engines_agree() {
    let game = |file: &str| {
        let loaded = gdlc::load::load_valid(&root().join(file)).unwrap();
        (load_engine(&loaded.source, &Options::default()).unwrap(), Interpreter::new(&loaded.description).unwrap())
    };
    let (tic_tac_toe, _) = game("games/ticTacToe.kif");
    let counts = gdl_runtime::perft::perft(&tic_tac_toe, 9);
    assert_eq!((counts.nodes(), counts.complete_games()), (549_946, 255_168));
    let paths: Vec<u64> = counts.levels.iter().map(|l| l.paths).collect();
    assert_eq!(paths, [1, 9, 72, 504, 3024, 15120, 54720, 148_176, 200_448, 127_872]);
    let (engine, interp) = game("games/connectFour.kif");
    assert_eq!(gdl_runtime::perft::perft(&engine, 4), gdl_runtime::perft::perft(&interp, 4));
}
