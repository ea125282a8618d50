//! Embedding a game with `gdl!` and playing it through the `Game` trait: the README's example,
//! built by `cargo test` so that it keeps compiling. Run it with
//! `cargo run --release -p generated --example embed`.

mod tic_tac_toe {
    // A path relative to this crate's Cargo.toml; `gdl!(kif = r#"..."#)` takes the text inline.
    gdl_macros::gdl!("../games/ticTacToe.kif");
}

use gdl_runtime::{random_playout, rng::Rng, Game, Playout};

fn main() {
    let game = tic_tac_toe::Game;
    let state = game.initial_state();
    let mut moves = Vec::new();
    game.legal_moves(&state, 0, &mut moves); // role 0: the first `role` fact
    println!("{} may play {}", game.role_name(0), game.move_string(&moves[0]));
    let Some(noop) = game.parse_move(1, "noop") else { return eprintln!("oplayer cannot wait") };
    let next = game.next_state(&state, &[moves[0], noop]);
    assert!(!game.is_terminal(&next));

    let mut goals = [0; 2];
    let (mut rng, mut scratch) = (Rng::seeded(1), Playout::default());
    let steps = random_playout(&game, &state, &mut rng, &mut scratch, &mut goals);
    println!("a random match: {steps} steps, goals {goals:?}");

    // The counts of the whole game tree (see `gdlc perft`).
    let counts = gdl_runtime::perft::perft(&game, 9);
    println!("{} nodes, {} complete games", counts.nodes(), counts.complete_games());
}
