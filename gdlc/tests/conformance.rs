//! Replays every reference trace of ../shared/conformance/traces through the interpreter and
//! requires exact agreement on every state.

use gdl_player::trace;
use gdlc::interp::Interpreter;
use std::path::{Path, PathBuf};

fn traces_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/traces")
}

fn replay_game(name: &str) {
    let dir = traces_dir();
    let source = std::fs::read_to_string(dir.join(format!("{name}.kif"))).expect("game file");
    let parsed = gdlc::parse::parse_auto(&source);
    assert!(!parsed.has_errors(), "{name}: {:?}", parsed.diagnostics);
    let interp = Interpreter::new(&parsed.description).expect("interpreter");
    let text = std::fs::read_to_string(dir.join(format!("{name}.jsonl"))).expect("trace file");
    let matches = trace::read(&text).expect("trace");
    assert!(!matches.is_empty());
    for (i, m) in matches.iter().enumerate() {
        let replayed = trace::replay(&interp, m).unwrap_or_else(|e| panic!("{name} match {i}: {e}"));
        if let Err(e) = trace::compare(m, &replayed) {
            panic!("{name} match {i}: {e}");
        }
    }
}

macro_rules! conformance {
    ($($test:ident => $game:literal),* $(,)?) => {
        $( #[test] fn $test() { replay_game($game); } )*
    };
}

conformance! {
    blocker => "blocker",
    breakthrough => "breakthrough",
    buttons => "buttons",
    checkers => "checkers",
    chess_200 => "chess_200",
    connect_four => "connectFour",
    dots_and_boxes => "dotsAndBoxes",
    eight_puzzle => "eightPuzzle",
    hanoi => "hanoi",
    maze => "maze",
    reversi => "reversi",
    tic_tac_toe => "ticTacToe",
}
