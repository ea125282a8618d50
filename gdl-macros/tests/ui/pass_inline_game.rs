//! An inline game compiles to a `Game` that plays.

mod coin {
    gdl_macros::gdl!(
        kif = r#"
        (role flipper)
        (init (side heads))
        (legal flipper flip)
        (<= (next (side tails)) (true (side heads)))
        (<= (next (side heads)) (true (side tails)))
        (<= (next done) (true (side tails)))
        (<= terminal (true done))
        (<= (goal flipper 100) (true done))
        (<= (goal flipper 0) (not (true done)))
    "#
    );
}

use gdl_runtime::Game;

fn main() {
    let game = coin::Game;
    let mut state = game.initial_state();
    let mut moves = Vec::new();
    let mut steps = 0;
    while !game.is_terminal(&state) {
        game.legal_moves(&state, 0, &mut moves);
        assert_eq!(game.move_string(&moves[0]), "flip");
        state = game.next_state(&state, &[moves[0]]);
        steps += 1;
    }
    assert_eq!(steps, 2);
    assert_eq!(game.goal(&state, 0), Some(100));
}
