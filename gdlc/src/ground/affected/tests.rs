//! The rewriting of frames on small rules: which are rewritten, into what, and which stay.

use super::rewrite;
use crate::parse::{parse, Syntax};
use crate::print::print;

/// The rules `text` is rewritten to, one a line.
fn rewritten(text: &str) -> String {
    let printed = print(&rewrite(parse(text, Syntax::Kif).description), Syntax::Kif);
    printed
        .split("\n(<=")
        .map(|rule| rule.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n(<= ")
}

fn unchanged(text: &str) -> bool {
    let description = parse(text, Syntax::Kif).description;
    rewrite(description.clone()) == description
}

#[test]
fn a_jump_frame_is_read_through_what_the_jump_affects() {
    let text = "(<= (next (cell ?x ?y ?c))
            (true (cell ?x ?y ?c))
            (does ?p (jump ?fx ?fy ?tx ?ty))
            (true (calm ?x ?y ?p ?tx ?ty))
            (or (distinct ?x ?tx) (distinct ?y ?ty)))";
    // The colour is not read by what the jump does to a cell; the target is a cell itself.
    let expected = "(<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)) (does ?p (jump ?fx_played ?fy_played ?tx_played ?ty_played)) (not ((affected 0) ?x ?y ?p)))
(<= ((affected 0) ?x ?y ?p) (does ?p (jump ?fx ?fy ?tx ?ty)) (true (cell ?x ?y ?c)) (not (true (calm ?x ?y ?p ?tx ?ty))))
(<= ((affected 0) ?x ?y ?p) (does ?p (jump ?fx ?fy ?x ?y)))";
    assert_eq!(rewritten(text), expected);
}

#[test]
fn a_frame_that_only_compares_the_move_stays_as_written() {
    // Grounding reads each mark only in the rules of the cells it leaves alone already.
    let text = "(<= (next (cell ?m ?n ?x)) (does ?w (mark ?j ?k)) (true (cell ?m ?n ?x)) (or (distinct ?m ?j) (distinct ?n ?k)))";
    assert!(unchanged(text));
}

#[test]
fn a_frame_whose_conditions_on_the_move_are_static_stays_as_written() {
    // breakthrough's: `distinctCell` is decided while grounding, as `distinct` is.
    let text = "(<= (distinctCell ?x1 ?y1 ?x2 ?y2) (cell ?x1 ?y1) (cell ?x2 ?y2) (distinct ?x1 ?x2))
        (<= (next (cellHolds ?x3 ?y3 ?state)) (true (cellHolds ?x3 ?y3 ?state)) (role ?player)
            (does ?player (move ?x1 ?y1 ?x2 ?y2)) (distinctCell ?x1 ?y1 ?x3 ?y3) (distinctCell ?x2 ?y2 ?x3 ?y3))";
    assert!(unchanged(text));
}

#[test]
fn rules_with_no_move_two_moves_or_a_denied_move_stay_as_written() {
    assert!(unchanged("(<= (next (at ?x)) (true (at ?y)) (step ?y ?x))"));
    assert!(unchanged("(<= (next (at ?x)) (true (at ?x)) (does a (go ?d)) (does b (go ?e)) (true (open ?x ?d)))"));
    assert!(unchanged("(<= (next (at ?x)) (true (at ?x)) (not (does a (go ?d))) (true (open ?x ?d)))"));
    assert!(unchanged("(<= (legal a (go ?d)) (true (at ?x)) (does a (go ?d)) (true (open ?x ?d)))"));
}

#[test]
fn a_move_whose_variables_the_head_has_stays_as_written() {
    assert!(unchanged("(<= (next (at ?x)) (does ?r (go ?x)) (true (open ?r ?x)))"));
}

#[test]
fn a_condition_with_a_variable_of_its_own_stays_as_written() {
    // "Some piece on the target is light" is not denied literal by literal.
    let text = "(<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)) (does ?p (jump ?tx ?ty)) (true (piece ?tx ?ty ?q)) (light ?q ?ty))";
    assert!(unchanged(text));
}

#[test]
fn a_condition_on_a_variable_of_the_kept_literals_is_denied_for_each_value() {
    let text = "(<= (next (cell ?x ?c)) (true (cell ?x ?c)) (kind ?c ?q) (does ?p (jump ?t)) (true (piece ?t ?q)))";
    let expected = "(<= (next (cell ?x ?c)) (true (cell ?x ?c)) (kind ?c ?q) (does ?p (jump ?t_played)) (not ((affected 0) ?p ?q)))
(<= ((affected 0) ?p ?q) (does ?p (jump ?t)) (kind ?c ?q) (not (true (piece ?t ?q))))";
    assert_eq!(rewritten(text), expected);
}

#[test]
fn denying_an_or_of_conditions_denies_each_of_them() {
    let text = "(<= (next (lit ?x)) (true (lit ?x)) (does r (flip ?y)) (or (far ?x ?y) (true (dark ?y))))";
    let expected = "(<= (next (lit ?x)) (true (lit ?x)) (does r (flip ?y_played)) (not ((affected 0) ?x)))
(<= ((affected 0) ?x) (does r (flip ?y)) (true (lit ?x)) (not (far ?x ?y)) (not (true (dark ?y))))";
    assert_eq!(rewritten(text), expected);
}
