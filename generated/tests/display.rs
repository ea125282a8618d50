//! Generated states and moves print as their KIF facts and moves, with `{}` and `{:?}`, in
//! both the straight-line and the table forms.

// A test reports a failure by panicking.
#![allow(clippy::unwrap_used)]

use gdl_runtime::Game;
use generated::games::{connect_four_tables, tic_tac_toe};

#[test]
fn tic_tac_toe_states_and_moves_print_as_kif() {
    let state = tic_tac_toe::INITIAL;
    let text = state.to_string();
    assert!(text.starts_with("(cell 1 1 b) (cell 1 2 b)") && text.ends_with("(control xplayer)"), "{text}");
    assert_eq!(text.split(") (").count(), 10, "nine cells and the control: {text}");
    assert!(format!("{state:?}").starts_with(r#"State(["(cell 1 1 b)", "(cell 1 2 b)""#), "{state:?}");
    let game = tic_tac_toe::Game;
    let mark = game.parse_move(0, "(mark 2 3)").unwrap();
    assert_eq!(
        (mark.to_string(), format!("{mark:?}")),
        ("(mark 2 3)".to_string(), r#"Move("(mark 2 3)")"#.to_string())
    );
    let after = game.next_state(&state, &[mark, game.parse_move(1, "noop").unwrap()]);
    assert!(after.to_string().contains("(cell 2 3 x)") && after.to_string().contains("(control oplayer)"));
    assert_eq!(after.facts(), game.state_facts(&after));
}

#[test]
fn table_form_states_print_as_kif_too() {
    let game = connect_four_tables::Game;
    let state = game.initial_state();
    assert_eq!(state.facts(), game.state_facts(&state));
    assert!(state.to_string().contains("(control red)"), "{state}");
}
