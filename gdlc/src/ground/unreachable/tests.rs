//! Tests of the base facts dropped as never reachable.

use super::super::{ground, Ground, Options};
use crate::parse::{parse, Syntax};

fn ground_kif(text: &str, drop_unreachable: bool) -> Ground {
    let d = parse(text, Syntax::Kif).description;
    ground(&d, &Options { drop_unreachable, ..Options::default() }).expect("grounds")
}

/// A ship on a line of three squares, numbered along a longer line: it moves left or right
/// only onto the board, but `next` moves it along `succ` wherever it is.
const SHIP: &str = "(role a) (init (ship 2)) (init (step 0))
    (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
    (square 1) (square 2) (square 3)
    (<= (legal a left) (true (ship ?x)) (succ ?y ?x) (square ?y))
    (<= (legal a right) (true (ship ?x)) (succ ?x ?y) (square ?y))
    (<= (next (ship ?y)) (true (ship ?x)) (does a left) (succ ?y ?x))
    (<= (next (ship ?y)) (true (ship ?x)) (does a right) (succ ?x ?y))
    (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
    (<= terminal (true (step 8)))
    (<= (goal a 100) (true (ship 3)))
    (<= (goal a 0) (not (true (ship 3))))";

fn ships(g: &Ground) -> Vec<&str> {
    g.base.iter().map(String::as_str).filter(|b| b.starts_with("(ship")).collect()
}

#[test]
fn a_ship_that_moves_only_onto_the_board_has_only_the_boards_squares() {
    // Grounding alone takes every square `succ` reaches.
    assert_eq!(ships(&ground_kif(SHIP, false)).len(), 9);
    let g = ground_kif(SHIP, true);
    assert_eq!(ships(&g), ["(ship 1)", "(ship 2)", "(ship 3)"]);
    // The steps count on to the end: every one of them is reached.
    assert_eq!(g.base.iter().filter(|b| b.starts_with("(step")).count(), 9);
}

#[test]
fn a_group_that_can_hold_two_facts_keeps_them_all() {
    // A second ship rule lets both neighbours hold at once: nothing is proved of the group.
    let text = format!("{SHIP} (<= (next (ship ?y)) (true (ship ?x)) (does a left) (succ ?x ?y))");
    assert_eq!(ships(&ground_kif(&text, true)).len(), 9);
}

#[test]
fn a_fact_reached_only_through_other_groups_is_kept() {
    // A jump takes the ship to square 7 when the step count is 5: only the steps tell when,
    // and they are unknown to the ship's group, so the jump may land; no move leads on from 7
    // (6 and 8 are not squares).
    let text = format!("{SHIP} (legal a jump) (<= (next (ship 7)) (true (step 5)) (does a jump))");
    assert_eq!(ships(&ground_kif(&text, true)), ["(ship 1)", "(ship 2)", "(ship 3)", "(ship 7)"]);
    // Without the jump's own move, a step left on the same turn would make two ships.
    let text = format!("{SHIP} (<= (next (ship 7)) (true (step 5)))");
    assert_eq!(ships(&ground_kif(&text, true)).len(), 9);
}

#[test]
fn nothing_follows_a_terminal_state() {
    // The game ends at once: the ship never leaves its square.
    let text = SHIP.replace("(<= terminal (true (step 8)))", "(<= terminal (true (ship 2)))");
    assert_eq!(ships(&ground_kif(&text, true)), ["(ship 2)"]);
}
