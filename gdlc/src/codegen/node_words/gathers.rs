//! Templates that read another group's members at distances that differ member by member, but
//! in the order of the members' own places, merged into one template that moves that group's
//! bits to the members' places (`gdl_runtime::bits::gather`, BMI2's `pext` and `pdep`).
//! dotsAndBoxes' next values of its boxes, at their own bits, read the boxes formed by the line
//! drawn, which sit at the places of the lines: one template a box, 51 for 50 members, and the
//! group did not pay; merged, its word is a few operations and the next state copies it whole.

use super::{Template, WordGroup, WordLit};
use std::collections::BTreeMap;

/// The fewest templates merged into one: below, their shifts cost about what moving the bits
/// does.
const GATHER_MIN: usize = 4;

/// What templates that merge share: their other literals, the group they read and the sign of
/// that literal. Each merges with its members' places and the distance of the place read.
type Rest = (Vec<WordLit>, u32, bool);

/// Group `g`, `group`, with its templates merged where they differ only in the distance at
/// which one literal reads another group's word, at least [`GATHER_MIN`] of them, and the
/// places they read keep the order of the members' places; `None` when none merge.
pub(super) fn with_gathers(group: &WordGroup, g: u32) -> Option<WordGroup> {
    let mut by_rest: BTreeMap<Rest, Vec<(u64, i32)>> = BTreeMap::new();
    let mut templates = Vec::new();
    for template in &group.templates {
        let mut reads = template.literals.iter().enumerate().filter_map(|(i, lit)| match *lit {
            WordLit::Group { group: read, shift, positive } if read != g => Some((i, read, shift, positive)),
            _ => None,
        });
        match (reads.next(), reads.next()) {
            (Some((i, read, shift, positive)), None) => {
                let mut rest = template.literals.clone();
                rest.remove(i);
                by_rest.entry((rest, read, positive)).or_default().push((template.mask, shift));
            }
            _ => templates.push(template.clone()),
        }
    }
    let mut merged = false;
    for ((rest, read, positive), entries) in by_rest {
        match (entries.len() >= GATHER_MIN).then(|| in_order(&entries)).flatten() {
            Some((from, to)) => {
                let mut literals = rest;
                literals.push(WordLit::Gather { group: read, from, to, positive });
                literals.sort();
                templates.push(Template { literals, mask: to });
                merged = true;
            }
            None => templates.extend(entries.into_iter().map(|(mask, shift)| {
                let mut literals = rest.clone();
                literals.push(WordLit::Group { group: read, shift, positive });
                literals.sort();
                Template { literals, mask }
            })),
        }
    }
    merged.then(|| WordGroup { templates, ..group.clone() })
}

/// The places read (`from`) and the members' places (`to`) of templates that each read, for
/// the members in their mask, the place `shift` past the member's: `None` unless every place
/// read is in the word, no member is in two templates, and the places read rise with the
/// members' places, so that the `i`-th place read is the `i`-th member's.
fn in_order(entries: &[(u64, i32)]) -> Option<(u64, u64)> {
    let mut pairs: Vec<(i64, i64)> = Vec::new();
    for &(mask, shift) in entries {
        let places = (0..64).filter(|p| mask >> p & 1 == 1);
        pairs.extend(places.map(|p| (p, p + i64::from(shift))));
    }
    pairs.sort_unstable();
    let rises = pairs.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1);
    let inside = pairs.iter().all(|&(_, read)| (0..64).contains(&read));
    (rises && inside)
        .then(|| pairs.iter().fold((0, 0), |(from, to), &(member, read)| (from | 1 << read, to | 1 << member)))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{assert_words_agree, find_any, nodes_named};
    use super::*;

    fn reading(group: u32, shift: i32, mask: u64) -> Template {
        Template { literals: vec![WordLit::Group { group, shift, positive: true }], mask }
    }

    #[test]
    fn members_reading_another_group_in_order_read_it_once_gathered() {
        // Four members at places 0..4 reading group 1 at places 0, 2, 11, 13: one template each.
        let templates = vec![reading(1, 0, 1), reading(1, 1, 2), reading(1, 9, 4), reading(1, 10, 8)];
        let group = WordGroup { members: vec![], templates, reads_itself: false, gathered: false, chain: 0 };
        let gathered = with_gathers(&group, 0).expect("the four templates merge");
        let expected = WordLit::Gather { group: 1, from: 1 | 1 << 2 | 1 << 11 | 1 << 13, to: 0xf, positive: true };
        assert_eq!(gathered.templates, vec![Template { literals: vec![expected], mask: 0xf }]);
    }

    #[test]
    fn places_read_out_of_the_members_order_are_not_gathered() {
        // The third member reads a place below the second's.
        let templates = vec![reading(1, 0, 1), reading(1, 5, 2), reading(1, 1, 4), reading(1, 10, 8)];
        let group = WordGroup { members: vec![], templates, reads_itself: false, gathered: false, chain: 0 };
        assert_eq!(with_gathers(&group, 0), None);
        // Nor are three templates, nor a group's reads of itself.
        let three = vec![reading(1, 0, 1), reading(1, 1, 2), reading(1, 9, 4)];
        let group = WordGroup { templates: three, ..group };
        assert_eq!(with_gathers(&group, 0), None);
        let four = vec![reading(1, 0, 1), reading(1, 1, 2), reading(1, 9, 4), reading(1, 10, 8)];
        let group = WordGroup { templates: four, ..group };
        assert_eq!(with_gathers(&group, 1), None);
    }

    #[test]
    fn the_next_values_of_the_boxes_read_the_boxes_formed_gathered() {
        // `(next (box ?x ?y x))` sits at the bit of `(box ?x ?y x)`; the boxes formed it reads sit
        // at the places of their lines, a distance of their own for every box.
        let text = include_str!("../../../../games/dotsAndBoxes.kif");
        let ground = crate::compile::ground_source(text, &Default::default()).expect("grounds");
        let words = find_any(&ground);
        let next_boxes = nodes_named(&ground, "(next (box ");
        assert_eq!(next_boxes.len(), 50);
        let (g, _) = words.member[next_boxes[0]].expect("the next values of the boxes are a group");
        assert!(next_boxes.iter().all(|&n| words.member[n].is_some_and(|(h, _)| h == g)));
        let templates = &words.groups[g as usize].templates;
        let gathers = templates.iter().flat_map(|t| &t.literals).filter(|l| matches!(l, WordLit::Gather { .. }));
        assert!(gathers.count() >= 2, "{templates:?}");
        assert!(templates.len() <= 16, "{} templates", templates.len());
        assert_words_agree(&ground, &words);
    }
}
