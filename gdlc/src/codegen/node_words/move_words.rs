//! Templates that read a word of the move played read the move instead. skirmish's `(aux 15)`
//! groups ("the move from here to there is played", one group for each direction and distance)
//! are words of the move alone, and "a rook arrives on this cell" reads each of them beside the
//! rook's board: 104 terms a piece, of which one or two are not empty at a step. Read as moves,
//! those terms fall into the `match` on the kind of move played (`switch.rs`), which computes
//! only the kind played.

use super::factor::shift_word;
use super::{Template, WordGroup, WordLit};

/// The most templates of a word of the move for its readers to read the moves instead: a
/// reader's template becomes one for each.
const MOVE_WORD_MAX_TEMPLATES: usize = 4;

/// Whether group `group` is a word of the move: each of its templates reads one kind of move
/// played at a place, and nothing else.
fn is_move_word(group: &WordGroup) -> bool {
    !group.gathered
        && !group.reads_itself
        && !group.templates.is_empty()
        && group.templates.len() <= MOVE_WORD_MAX_TEMPLATES
        && (group.templates.iter()).all(|t| matches!(t.literals.as_slice(), [WordLit::Does { positive: true, .. }]))
}

/// Every template of `groups` that reads one word of the move, positively, replaced by one
/// template for each of that word's templates, reading its kind of move: the word `W`, the `|`
/// of `m & (D >> d)`, shifted by `s` is the `|` of `(m >> s) & (D >> (d + s))` (shifts to the
/// right; to the left when negative), since the mask keeps only places whose bits both shifts
/// keep.
pub(super) fn read_moves(groups: &mut [WordGroup]) {
    let move_words: Vec<Option<Vec<Template>>> =
        groups.iter().map(|group| is_move_word(group).then(|| group.templates.clone())).collect();
    if move_words.iter().all(Option::is_none) {
        return;
    }
    for group in groups.iter_mut() {
        let templates = std::mem::take(&mut group.templates);
        for template in templates {
            group.templates.extend(as_moves(template, &move_words));
        }
    }
}

/// `template` reading the moves in place of the one word of the move it reads (`move_words`:
/// each group's templates when it is one), or as it is.
fn as_moves(template: Template, move_words: &[Option<Vec<Template>>]) -> Vec<Template> {
    let reads = |lit: &WordLit| match *lit {
        WordLit::Group { group, shift, positive: true } => move_words[group as usize].as_ref().map(|t| (t, shift)),
        _ => None,
    };
    let read: Vec<(usize, (&Vec<Template>, i32))> =
        template.literals.iter().enumerate().filter_map(|(i, lit)| reads(lit).map(|r| (i, r))).collect();
    let [(at, (word, shift))] = read.as_slice() else { return vec![template] };
    word.iter()
        .filter_map(|move_template| {
            let [WordLit::Does { kind, shift: d, positive: true }] = *move_template.literals.as_slice() else {
                return None;
            };
            let mask = template.mask & shift_word(move_template.mask, *shift);
            let total = d + shift;
            if mask == 0 || total.abs() >= 64 {
                return None;
            }
            let mut literals = template.literals.clone();
            literals[*at] = WordLit::Does { kind, shift: total, positive: true };
            Some(Template { literals, mask })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::node_words::factor::shift_word;

    fn does(kind: u32, shift: i32) -> WordLit {
        WordLit::Does { kind, shift, positive: true }
    }

    /// The value of a template when the move played is of kind `kind` at place `place`, over the
    /// state word `s` and the words of the groups `words`.
    fn value(t: &Template, s: u64, words: &[u64], kind: u32, place: u32) -> u64 {
        t.literals.iter().fold(t.mask, |acc, &lit| {
            acc & match lit {
                WordLit::Base { shift, positive: true, .. } => shift_word(s, shift),
                WordLit::Group { group, shift, positive: true } => shift_word(words[group as usize], shift),
                WordLit::Does { kind: k, shift, positive: true } => {
                    shift_word(if k == kind { 1 << place } else { 0 }, shift)
                }
                other => panic!("not in this test: {other:?}"),
            }
        })
    }

    #[test]
    fn a_reader_of_a_word_of_the_move_reads_the_move() {
        let mover = |mask: u64, kind: u32, d: i32| Template { literals: vec![does(kind, d)], mask };
        let word = WordGroup {
            members: Vec::new(),
            templates: vec![mover(0x00ff_ff00_ff00_ff00, 3, 9), mover(0xf0f0_f0f0_f0f0_f0f0, 5, -7)],
            reads_itself: false,
            gathered: false,
            chain: 0,
        };
        let reader = |shift: i32| Template {
            literals: vec![
                WordLit::Base { word: 0, shift: -shift, positive: true },
                WordLit::Group { group: 0, shift, positive: true },
            ],
            mask: 0x7e7e_7e7e_7e7e_7e7e,
        };
        let readers = WordGroup {
            members: Vec::new(),
            templates: [-17, -8, 1, 9, 30, 63].map(reader).to_vec(),
            reads_itself: false,
            gathered: false,
            chain: 0,
        };
        let mut groups = vec![word.clone(), readers.clone()];
        read_moves(&mut groups);
        assert!(groups[1].templates.iter().all(|t| t.literals.iter().all(|l| !matches!(l, WordLit::Group { .. }))));
        let s = 0x1234_5678_9abc_def0u64 ^ 0xffff_0000_ffff_0000;
        for kind in [3, 5, 4] {
            for place in 0..64 {
                let w = word.templates.iter().fold(0, |acc, t| acc | value(t, s, &[], kind, place));
                let before = readers.templates.iter().fold(0, |acc, t| acc | value(t, s, &[w], kind, place));
                let after = groups[1].templates.iter().fold(0, |acc, t| acc | value(t, s, &[w], kind, place));
                assert_eq!(before, after, "kind {kind} at {place}");
            }
        }
    }
}
