//! Tests of node words for moves between two cells: grouped by their distance, and the few
//! moves of a long distance grouped too.

use super::tests::{assert_words_agree, find_any};
use crate::ground::Ground;

/// Stones on a 6x6 board that slide one or two cells up their column onto blank cells, the
/// move naming the cell left and the cell reached.
const SLIDES: &str = "
        (role p)
        (index 1) (index 2) (index 3) (index 4) (index 5) (index 6)
        (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
        (<= (init (cell ?x 1 s)) (index ?x))
        (<= (init (cell ?x ?y b)) (index ?x) (index ?y) (distinct ?y 1))
        (<= (legal p (move ?x ?y ?x ?z)) (true (cell ?x ?y s)) (succ ?y ?z) (true (cell ?x ?z b)))
        (<= (legal p (move ?x ?y ?x ?w))
            (true (cell ?x ?y s)) (succ ?y ?z) (succ ?z ?w) (true (cell ?x ?z b)) (true (cell ?x ?w b)))
        (<= (touched ?x ?y) (does p (move ?x ?y ?u ?v)))
        (<= (touched ?x ?y) (does p (move ?u ?v ?x ?y)))
        (<= (next (cell ?x ?y s)) (does p (move ?u ?v ?x ?y)))
        (<= (next (cell ?x ?y b)) (does p (move ?x ?y ?u ?v)))
        (<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)) (not (touched ?x ?y)))
        (<= terminal (true (cell ?x 6 s)))
        (<= (goal p 100) terminal)
        (<= (goal p 0) (not terminal))";

#[test]
fn moves_between_two_cells_are_grouped_by_their_distance() {
    let ground = crate::compile::ground_source(SLIDES, &Default::default()).expect("grounds");
    let words = find_any(&ground);
    // The moves of one distance are one kind, wherever they start: one step up, two steps up.
    assert_eq!(words.move_kinds.len(), 2);
    // The legal moves of one distance are one group whose place is the cell left.
    let legal = |distance: u32| -> Vec<usize> {
        (0..ground.nodes.len())
            .filter(|&n| {
                let name = &ground.nodes[n].name;
                let atoms: Vec<u32> =
                    name.split(|c: char| !c.is_ascii_digit()).filter_map(|a| a.parse().ok()).collect();
                name.starts_with("(legal") && atoms.len() == 4 && atoms[3] == atoms[1] + distance
            })
            .collect()
    };
    for (distance, count) in [(1, 30), (2, 24)] {
        let members = legal(distance);
        assert_eq!(members.len(), count, "moves of distance {distance}");
        let (g, _) = words.member[members[0]].expect("legal moves are in a group");
        assert!(members.iter().all(|&n| words.member[n].map(|(h, _)| h) == Some(g)), "distance {distance}");
        assert_eq!(words.groups[g as usize].members.len(), count);
    }
    assert_words_agree(&ground, &words);
}

/// `SLIDES` with a long slide from the first row to the last: six moves, one a column, fewer
/// than a group of any other kind needs.
fn long_slides() -> Ground {
    let rules = format!("{SLIDES}\n(<= (legal p (move ?x 1 ?x 6)) (true (cell ?x 1 s)) (true (cell ?x 6 b)))");
    crate::compile::ground_source(&rules, &Default::default()).expect("grounds")
}

#[test]
fn the_few_moves_of_a_long_distance_are_a_group_of_their_own() {
    let ground = long_slides();
    let words = find_any(&ground);
    let long: Vec<usize> = (0..ground.nodes.len())
        .filter(|&n| {
            let name = &ground.nodes[n].name;
            name.starts_with("(legal p (move") && name.ends_with(" 6))") && name.split(' ').nth(4) == Some("1")
        })
        .collect();
    assert_eq!(long.len(), 6, "{long:?}");
    let (g, _) = words.member[long[0]].expect("the long slides are in a group");
    assert!(long.iter().all(|&n| words.member[n].map(|(h, _)| h) == Some(g)));
    assert_eq!(words.groups[g as usize].members.len(), 6);
    assert_words_agree(&ground, &words);
}
