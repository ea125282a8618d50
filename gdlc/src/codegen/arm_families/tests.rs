//! Tests of arm families: which moves form families and copy groups, and that their tables
//! set what the rules set.

use super::emit::spread;
use super::*;
use quote::quote;

fn pos(b: u32) -> Lit {
    Lit { prop: Prop::Base(b), positive: true }
}

#[test]
fn marks_at_different_cells_form_one_family() {
    // Three moves, each setting bit 18 + i when bit i holds, and one that sets bit 40
    // when bit 3 holds (another shape).
    let arms: Vec<Vec<ConditionalSet>> = vec![
        vec![(18, vec![pos(0)])],
        vec![(19, vec![pos(1)])],
        vec![(20, vec![pos(2)])],
        vec![(40, vec![pos(3)])],
        vec![],
    ];
    let plan = RoleArms::plan(0, &arms, &[]);
    assert_eq!(plan.families.len(), 1);
    let family = &plan.families[0];
    assert_eq!(family.members, vec![(0, 18), (1, 19), (2, 20)]);
    assert_eq!(family.sets, vec![((0, 0), vec![Term { negated: false, literals: vec![((0, -18), true)] }])]);
    assert!(plan.in_family(1) && !plan.in_family(3) && !plan.in_family(4));
    let code = plan.statements(quote!(ARM_FAMILY_OF_0[joint[0].0 as usize])).to_string();
    assert!(code.contains("s . 0 [0] << 18"), "{code}");
}

#[test]
fn drops_at_every_height_are_one_operation() {
    // A drop into a column of four: the bottom cell (the anchor) is set when empty, and
    // each cell above when it is empty and the one below is not: one condition moved up.
    let empty = |b: i32| Term { negated: false, literals: vec![((0, b), false)] };
    let filled = |b: i32| Term { negated: true, literals: vec![((0, b), false)] };
    let sets: Vec<RelativeSet> = vec![
        ((0, 0), vec![empty(0)]),
        ((0, 1), vec![empty(1), filled(0)]),
        ((0, 2), vec![empty(2), filled(1)]),
        ((0, 3), vec![empty(3), filled(2)]),
    ];
    let merged = merge_translates(&sets);
    assert_eq!(merged.len(), 2, "{merged:?}");
    assert_eq!(merged[0], (0, vec![0], vec![empty(0)]));
    assert_eq!(merged[1], (0, vec![1, 2, 3], vec![empty(0), filled(-1)]));
    assert_eq!(spread(&merged[1].1).to_string(), "((a) << 1) . wrapping_mul (0x7)");
    // Bit 5 copied to bits 6, 7 and 8.
    assert_eq!(((1u64 << 5) << 1).wrapping_mul(0x7), 0b111 << 6);
}

/// The arms of moves that turn a 2x2 block of a 4-wide board a quarter, clockwise or
/// counterclockwise, in both of two words (one per colour): each copies every cell of the
/// block from the cell before it in its direction. The block's cells are `at`, `at + 1`,
/// `at + 5` and `at + 4`, in clockwise order.
fn turns(at: u32, clockwise: bool) -> Vec<ConditionalSet> {
    let ring = [at, at + 1, at + 5, at + 4];
    let mut sets = Vec::new();
    for word in [0, 64] {
        for i in 0..4 {
            let from = if clockwise { ring[(i + 3) % 4] } else { ring[(i + 1) % 4] };
            sets.push((word + ring[i], vec![pos(word + from)]));
        }
    }
    sets
}

#[test]
fn turns_one_way_or_the_other_are_one_group_of_tables() {
    let arms: Vec<Vec<ConditionalSet>> =
        [0, 2, 8, 10].iter().flat_map(|&at| [turns(at, true), turns(at, false)]).chain([vec![]]).collect();
    let mut plans = [RoleArms::plan(0, &arms, &[])];
    RoleArms::share_tables(&mut plans);
    let [plan] = &plans;
    assert_eq!(plan.families.len(), 2, "{:?}", plan.families);
    assert_eq!(plan.copy_groups.len(), 1);
    let group = &plan.copy_groups[0];
    assert_eq!(group.families, 0..2);
    assert_eq!(group.words.len(), 2);
    // Red's and black's cells are copied alike, so black's word reads red's tables.
    assert_eq!((group.words[0].reads, group.words[1].reads), ((0, 0, 0), (0, 0, 0)));
    let code = plan.statements(quote!(ARM_FAMILY_AT_0[drawn_0])).to_string();
    assert!(code.contains("1 ..= 2 =>") && code.contains("ARM_COPIES_0_0_0 [f]"), "{code}");
    assert!(!code.contains("ARM_COPIES_0_0_1"), "{code}");
    // The tables set what the copies set, for every state of the board around each block.
    let mut rng = gdl_runtime::rng::Rng::seeded(3);
    for (mv, sets) in arms.iter().enumerate().filter(|(_, sets)| !sets.is_empty()) {
        let (family, bit) = plan.rows(arms.len())[mv];
        let f = usize::from(family) - 1 - group.families.start;
        for _ in 0..50 {
            let state = [rng.next_u64() & 0xffff, rng.next_u64() & 0xffff];
            let mut expected = [0u64; 2];
            for (target, condition) in sets {
                let Prop::Base(from) = condition[0].prop else { unreachable!() };
                expected[*target as usize / 64] |= (state[from as usize / 64] >> (from % 64) & 1) << (target % 64);
            }
            let mut got = [0u64; 2];
            for word in &group.words {
                let w = word_at(group.word, word.dw);
                let x = state[w] >> (i32::from(bit) + word.source_low);
                let rows = &word.rows[f];
                let targets = word
                    .chunks
                    .iter()
                    .zip(rows)
                    .fold(0, |targets, (&(offset, mask), row)| targets | row[((x >> offset) & mask) as usize]);
                got[w] |= targets << (i32::from(bit) + word.target_low);
            }
            assert_eq!(got, expected, "move {mv}, state {state:x?}");
        }
    }
}

#[test]
fn a_condition_on_a_derived_conjunction_reads_its_literals() {
    // Node 0 is `¬bit 1 ∧ ¬bit 9`. Two moves set bits a word apart when it does not hold,
    // but read it at the same bits: their arms are not one shape moved.
    let flat =
        vec![Some(vec![Lit { prop: Prop::Base(1), positive: false }, Lit { prop: Prop::Base(9), positive: false }])];
    let not_node = Lit { prop: Prop::Node(0), positive: false };
    let arms: Vec<Vec<ConditionalSet>> = vec![vec![(0, vec![not_node])], vec![(64, vec![not_node])]];
    let plan = RoleArms::plan(0, &arms, &flat);
    assert!(plan.families.is_empty());
}
