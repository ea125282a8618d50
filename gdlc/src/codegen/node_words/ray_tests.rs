//! Tests of node words for rays: a group whose one template reads its own word at one
//! distance, computed by doubling.

use super::tests::{assert_words_agree, find_any, ground_of, nodes_named};

/// `(toward x y)` on the tests' 6x6 board: the cells from `(x, y)` along its row up to `(x, 4)`
/// are blank. A ray of three nodes in each row (the fourth, a cell's test, is folded into its
/// reader), too short to pay if its word were iterated round by round.
const TOWARD: &str = "
        (before 1) (before 2) (before 3)
        (<= (toward ?x 4) (index ?x) (true (cell ?x 4 b)))
        (<= (toward ?x ?y) (before ?y) (true (cell ?x ?y b)) (succ ?y ?z) (toward ?x ?z))
        (<= (open ?x ?y) (true (cell ?x ?y x)) (succ ?y ?z) (toward ?x ?z))
        (<= terminal (toward ?x 1))
        (<= (goal p 100) (open ?x ?y))
        (<= (goal p 0) (not terminal))";

#[test]
fn a_short_ray_is_one_word_by_doubling() {
    let ground = ground_of(TOWARD);
    let words = find_any(&ground);
    let toward = nodes_named(&ground, "(toward");
    assert_eq!(toward.len(), 18);
    let (g, _) = words.member[toward[0]].expect("toward nodes are in a group");
    assert!(toward.iter().all(|&n| words.member[n].map(|(h, _)| h) == Some(g)));
    let group = &words.groups[g as usize];
    // Two steps of doubling cover its chains of three cells, at one cell's distance.
    assert_eq!(group.ray(g).map(|(_, shift)| shift), Some(1));
    assert_eq!(group.doubling_steps(), 2);
    assert_words_agree(&ground, &words);
}
