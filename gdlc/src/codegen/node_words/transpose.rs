//! Groups read only through the place of a move: hex's `((aux 3) k x y)`, "a stone of group
//! `k` is beside cell `(x, y)`", is read only by `((aux 4) k r)`, "role `r` placed a stone beside
//! group `k`", one rule per cell: the cell's move and the cell's member. Its word is the group's
//! board shifted six ways, computed for every group at every step, to be tested against one bit,
//! the cell played. The same test reads the board once: the cells beside the cell played are a
//! constant of the move, so "some cell of the group is beside the move" is the board `&` a
//! word looked up by the move (each template's mask and shift turned around), and the group's
//! word is not computed at all.

use super::{NodeWords, WordLit};
use crate::ground::{Ground, Lit, Prop, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The most moves of a game for its groups to be read through tables of the moves: each table
/// has a word per move.
const MAX_MOVES: usize = 4096;

/// The fewest rules of a reader that read the group through one kind of move, for the reader
/// to test them as one word (see `emit::WORD_FAMILY_MIN`, which this mirrors).
const FAMILY_MIN: usize = 4;

/// For every group of `words`, whether it is read only through the places of moves: its
/// templates each read one state word, positively (the group is that word shifted and masked,
/// a few ways); nothing but nodes evaluated rule by rule (`rule_by_rule`) read its members, and
/// every rule of theirs that does reads just the member and a move of a kind at the member's
/// own place, at least [`FAMILY_MIN`] such rules for every kind; no value of the game (legal
/// moves, next state, goals, terminal, percepts) and no group reads a member directly.
pub(crate) fn transposed(ground: &Ground, words: &NodeWords, rule_by_rule: &dyn Fn(u32) -> bool) -> Vec<bool> {
    let groups = words.groups.len();
    if groups == 0 || ground.moves.len() > MAX_MOVES {
        return vec![false; groups];
    }
    let mut ok: Vec<bool> = (words.groups.iter().enumerate())
        .map(|(g, group)| {
            !group.gathered
                && !group.reads_itself
                && words.loop_of.get(g).is_none_or(Option::is_none)
                && !group.templates.is_empty()
                && group
                    .templates
                    .iter()
                    .all(|t| matches!(t.literals.as_slice(), [WordLit::Base { positive: true, .. }]))
        })
        .collect();
    // Groups that other groups read.
    for literal in words.groups.iter().flat_map(|group| &group.templates).flat_map(|t| &t.literals) {
        if let Some(group) = literal.group() {
            ok[group as usize] = false;
        }
    }
    // Groups whose members the game's values read.
    let values = (ground.legal.iter().chain(&ground.goals).chain(&ground.sees).flatten().map(|(_, v)| v))
        .chain(&ground.next)
        .chain([&ground.terminal]);
    for value in values {
        if let Value::Lit(Lit { prop: Prop::Node(m), .. }) = *value {
            if let Some((g, _)) = words.member[m as usize] {
                ok[g as usize] = false;
            }
        }
    }
    // Groups read by rules of any other shape; the places each reader reads a group at through
    // each kind of move, each once (a second rule at a place would be left out of the family
    // and read the group's word).
    let mut places_by_kind: BTreeMap<(u32, u32, u32), BTreeSet<u32>> = BTreeMap::new();
    for (r, node) in ground.nodes.iter().enumerate() {
        for rule in &node.rules {
            for lit in rule {
                let Prop::Node(m) = lit.prop else { continue };
                let Some((g, place)) = words.member[m as usize] else { continue };
                match read_at_move(words, rule, place) {
                    Some(kind) if lit.positive && words.member[r].is_none() && rule_by_rule(r as u32) => {
                        if !places_by_kind.entry((g, r as u32, kind)).or_default().insert(place) {
                            ok[g as usize] = false;
                        }
                    }
                    _ => ok[g as usize] = false,
                }
            }
        }
    }
    for ((g, _, _), places) in places_by_kind {
        if places.len() < FAMILY_MIN {
            ok[g as usize] = false;
        }
    }
    ok
}

/// The kind of the move that `rule` reads beside one group member at `place`, when it reads
/// exactly those two literals, both positive, the move at the member's place.
fn read_at_move(words: &NodeWords, rule: &[Lit], place: u32) -> Option<u32> {
    let [a, b] = rule else { return None };
    let does = if matches!(a.prop, Prop::Does(..)) { a } else { b };
    let Prop::Does(role, m) = does.prop else { return None };
    let &(kind, at) = words.move_places.get(&(role, m))?;
    (does.positive && at == place).then_some(kind)
}

/// The word of moves table of a family of rules `(member at p) ∧ (move of kind at p)` over the
/// places `anchors`, for a transposed group's templates that read state word `word`: for every
/// move, the bits of that state word whose template puts them on an anchor where the move is.
/// `move_place[m]` is move `m`'s bit of the kind (none for moves of other kinds).
pub(crate) fn table(words: &NodeWords, g: u32, word: u32, anchors: u64, move_place: &[u64]) -> Vec<u64> {
    let templates = &words.groups[g as usize].templates;
    move_place
        .iter()
        .map(|&at| {
            templates
                .iter()
                .filter_map(|t| match t.literals.as_slice() {
                    // The literal's bit p is the word's bit p + shift.
                    [WordLit::Base { word: w, shift, .. }] if *w == word => {
                        let on = anchors & t.mask & at;
                        Some(if *shift >= 0 { on << shift } else { on >> -shift })
                    }
                    _ => None,
                })
                .fold(0, |a, b| a | b)
        })
        .collect()
}

/// The state words that a transposed group's templates read, sorted.
pub(crate) fn source_words(words: &NodeWords, g: u32) -> Vec<u32> {
    let mut read: Vec<u32> = (words.groups[g as usize].templates.iter())
        .filter_map(|t| match t.literals.as_slice() {
            [WordLit::Base { word, .. }] => Some(*word),
            _ => None,
        })
        .collect();
    read.sort_unstable();
    read.dedup();
    read
}
