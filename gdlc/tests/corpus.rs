//! Every game of ../shared/games through every pass: printing round-trips in both syntaxes, and
//! every game the checks accept starts in the interpreter and plays random moves consistently.

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

use gdl_runtime::rng::Rng;
use gdl_runtime::Game;
use gdlc::interp::Interpreter;
use gdlc::parse::{parse, parse_auto, Syntax};
use gdlc::print::print;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn games() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/games");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir).expect("shared games").map(|e| e.unwrap().path()).collect();
    paths.sort();
    assert!(paths.len() >= 300, "expected the 314 games in {}", dir.display());
    paths
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&p).unwrap();
            (name, String::from_utf8(bytes).expect("games are UTF-8"))
        })
        .collect()
}

#[test]
#[ignore = "corpus-wide; run by `cargo xtask test-long`"]
fn printing_and_reparsing_gives_the_same_ast_in_both_syntaxes() {
    for (name, source) in games() {
        let mut original = parse_auto(&source);
        assert!(!original.has_errors(), "{name} does not parse: {:?}", original.diagnostics);
        original.description.clear_spans();
        for syntax in [Syntax::Kif, Syntax::Infix] {
            let printed = print(&original.description, syntax);
            let mut again = parse(&printed, syntax);
            assert!(!again.has_errors(), "{name} printed as {syntax:?} does not parse: {:?}", again.diagnostics);
            again.description.clear_spans();
            assert!(again.description == original.description, "{name}: printing as {syntax:?} changed the AST");
        }
    }
}

#[test]
#[ignore = "corpus-wide; run by `cargo xtask test-long`"]
fn every_valid_game_plays_random_moves_in_the_interpreter() {
    let mut failures = Vec::new();
    let mut played = 0;
    for (name, source) in games() {
        let parsed = parse_auto(&source);
        let diagnostics = gdlc::check::check(&parsed.description);
        if diagnostics.iter().any(|d| d.is_error()) {
            continue;
        }
        if std::env::var_os("GDLC_CORPUS_VERBOSE").is_some() {
            eprintln!("{name}");
        }
        let game = match Interpreter::new(&parsed.description) {
            Ok(g) => g,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        if let Err(e) = random_walk(&game, 10, Duration::from_secs(5)) {
            failures.push(format!("{name}: {e}"));
        }
        played += 1;
    }
    // Every game loads, the three whose static relations are far too large to compute bottom-up
    // (lists of up to 25 elements in laikLee_hex, all paths of a maze in mummymaze1p, sudoku's
    // exactly-one tables) included: the demand engine computes them for the values asked for.
    assert!(failures.is_empty(), "{} games failed:\n{}", failures.len(), failures.join("\n"));
    assert!(played >= 300, "only {played} games played");
}

/// How many states of a random walk both engines are asked every query in.
const CROSS_CHECKED: usize = 3;

/// Plays up to `steps` random joint moves, checking that every move prints and parses back.
fn random_walk(game: &Interpreter, steps: usize, budget: Duration) -> Result<(), String> {
    let start = Instant::now();
    let mut rng = Rng::seeded(1);
    let mut state = game.initial_state();
    let mut legal = Vec::new();
    for step in 0..steps {
        if game.is_terminal(&state) || start.elapsed() > budget {
            break;
        }
        game.all_legal_moves(&state, &mut legal);
        let mut joint = Vec::new();
        for (role, moves) in legal.iter().enumerate() {
            if moves.is_empty() {
                return Err(format!(
                    "step {step}: role {} has no legal move in a non-terminal state",
                    game.role_name(role)
                ));
            }
            let mv = &moves[rng.below(moves.len())];
            let text = game.move_string(mv);
            if game.parse_move(role, &text).as_ref() != Some(mv) {
                return Err(format!("step {step}: move {text} does not parse back"));
            }
            joint.push(mv.clone());
        }
        if step < CROSS_CHECKED {
            game.cross_check(&state, &joint).map_err(|e| format!("step {step}: {e}"))?;
        }
        state = game.next_state(&state, &joint);
    }
    Ok(())
}
