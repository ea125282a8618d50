//! Tests of the emitter's plans: which nodes the move table gives, and which node words read.

use super::Emitter;

/// The nodes of `text`'s program (vectorized, as the straight-line form plans it) that only
/// say which move is played, each with whether the move table gives it and whether it is a
/// member of a group of templates.
fn moves_played(text: &str) -> Vec<(bool, bool)> {
    let mut ground = crate::compile::ground_source(text, &Default::default()).expect("grounds");
    let families = crate::codegen::families::vectorize(&mut ground);
    let emitter = Emitter::straight_line(&ground, families);
    (0..ground.nodes.len() as u32)
        .filter(|&n| ground.nodes[n as usize].move_played().is_some())
        .map(|n| (emitter.table_bit(n).is_some(), emitter.words.in_template_group(n)))
        .collect()
}

#[test]
fn a_move_played_that_words_read_at_its_place_is_not_looked_up() {
    // battle's "someone defends this cell", the move `(defend x y)` of either role: without
    // the table, a word of the move at the cell's place, which its readers read as the kind of
    // move played.
    let said = moves_played(include_str!("../../../../games/battle.kif"));
    assert!(said.len() >= 64, "{} nodes", said.len());
    assert!(said.iter().all(|&(looked_up, templated)| !looked_up && templated), "{said:?}");
}

#[test]
fn a_move_played_that_the_moves_guard_stays_in_the_table() {
    // dotsAndBoxes' "this line is drawn": without the table, each would be set in the arm of
    // its move, gathered, rather than read with the others from the move's row.
    let said = moves_played(include_str!("../../../../games/dotsAndBoxes.kif"));
    assert!(said.len() >= 60, "{} nodes", said.len());
    assert!(said.iter().all(|&(looked_up, _)| looked_up), "{said:?}");
}
