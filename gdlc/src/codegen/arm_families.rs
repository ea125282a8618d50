//! Families of move arms: moves whose conditional frame rules are one set of rules moved along
//! the board (ticTacToe's marks, connectFour's drops). `next` evaluates such a family with
//! word operations on the one bit of the played move's anchor, looked up in a table, instead
//! of one `match` arm per move, whose jump a random move mispredicts on every step.

use super::move_tables::ConditionalSet;
use crate::ground::{Lit, Prop};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeMap;

/// The fewest moves that make a family.
const ARM_FAMILY_MIN: usize = 2;

/// The most literals one arm family may test: its word operations test the literals of all
/// its sets, which a `match` arm tests too, but as more instructions (shifts of whole words).
const ARM_FAMILY_LITERALS: usize = 64;

/// A bit relative to a move's anchor: how many words after the anchor's word, and how many
/// bits past the anchor's bit within that word (negative: before it).
type Offset = (i32, i32);

/// A test of the state relative to the anchor: a conjunction of base literals, negated as a
/// whole when `negated` (a negated derived proposition).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Term {
    negated: bool,
    literals: Vec<(Offset, bool)>,
}

/// A conditional set relative to the anchor: the bit it sets, and the terms of its condition.
type RelativeSet = (Offset, Vec<Term>);

/// Moves by the shape of their arms: the anchors' state word and the relative sets, to each
/// move with its anchor's bit.
type Shapes = BTreeMap<(usize, Vec<RelativeSet>), Vec<(u32, u32)>>;

/// Moves of one role whose arms are the same relative sets, each at its own anchor.
#[derive(Debug)]
struct ArmFamily {
    /// The state word of the anchors.
    word: usize,
    sets: Vec<RelativeSet>,
    /// The moves, with their anchor's bit within `word`.
    members: Vec<(u32, u32)>,
}

impl ArmFamily {
    fn literals(&self) -> usize {
        self.sets.iter().flat_map(|(_, terms)| terms).map(|t| t.literals.len()).sum()
    }
}

/// How one role's conditional frame rules are evaluated: the families, and the moves whose
/// arms stay in the `match`.
#[derive(Debug, Default)]
pub struct RoleArms {
    families: Vec<ArmFamily>,
    /// For every move, whether a family evaluates its arm.
    in_family: Vec<bool>,
}

impl RoleArms {
    /// Groups the moves of one role's `arms` (its conditional sets by move) into families.
    /// `flat` gives the base literals of every derived proposition that is one conjunction
    /// of them; a condition that reads any other proposition keeps its move in the `match`.
    pub fn plan(arms: &[Vec<ConditionalSet>], flat: &[Option<Vec<Lit>>]) -> RoleArms {
        let mut groups = Shapes::new();
        for (mv, sets) in arms.iter().enumerate() {
            if let Some((word, bit, relative)) = relative_arm(sets, flat) {
                groups.entry((word, relative)).or_default().push((mv as u32, bit));
            }
        }
        let mut families: Vec<ArmFamily> = groups
            .into_iter()
            .filter(|(_, members)| members.len() >= ARM_FAMILY_MIN)
            .map(|((word, sets), members)| ArmFamily { word, sets, members })
            .collect();
        families.retain(|f| f.literals() <= ARM_FAMILY_LITERALS);
        // The table numbers families in a byte, from 1.
        families.truncate(u8::MAX as usize);
        let mut in_family = vec![false; arms.len()];
        for family in &families {
            for &(mv, _) in &family.members {
                in_family[mv as usize] = true;
            }
        }
        RoleArms { families, in_family }
    }

    /// Whether a family evaluates the arm of `mv`.
    pub fn in_family(&self, mv: usize) -> bool {
        self.in_family.get(mv).copied().unwrap_or(false)
    }

    /// Every move's `(family, anchor bit)`, family 0 for a move in none.
    fn rows(&self, moves: usize) -> Vec<(u8, u8)> {
        let mut rows = vec![(0u8, 0u8); moves];
        for (f, family) in self.families.iter().enumerate() {
            for &(mv, bit) in &family.members {
                rows[mv as usize] = (f as u8 + 1, bit as u8);
            }
        }
        rows
    }

    /// The static table of role `role`'s moves, `(family, anchor bit)`, family 0 for a move in
    /// none (nothing when the role has no families).
    pub fn table(&self, role: usize, moves: usize) -> TokenStream {
        if self.families.is_empty() {
            return TokenStream::new();
        }
        let name = Self::table_name(role);
        let rows = self.rows(moves).into_iter().map(|(f, b)| quote!((#f, #b)));
        let moves = Literal::usize_unsuffixed(moves);
        quote! {
            /// For every move of this role, the family of moves whose conditional next-state
            /// rules it shares (from 1; 0 for none) and its anchor's bit in that family's word.
            static #name: [(u8, u8); #moves] = [#(#rows),*];
        }
    }

    /// The same rows as [`RoleArms::table`], by the bit `random_step` draws: `moves_by_bit`
    /// gives the move of every bit (nothing when the role has no families).
    pub fn table_at_bits(&self, role: usize, moves_by_bit: &[u32]) -> TokenStream {
        if self.families.is_empty() {
            return TokenStream::new();
        }
        let by_move = self.rows(self.in_family.len());
        let name = Self::table_at_bit_name(role);
        let rows = moves_by_bit.iter().map(|&m| {
            let (f, b) = by_move.get(m as usize).copied().unwrap_or((0, 0));
            quote!((#f, #b))
        });
        let size = Literal::usize_unsuffixed(moves_by_bit.len());
        quote! {
            /// The family and anchor bit of this role's move of every bit `random_step` may draw.
            static #name: [(u8, u8); #size] = [#(#rows),*];
        }
    }

    pub fn table_name(role: usize) -> Ident {
        format_ident!("ARM_FAMILY_OF_{}", role)
    }

    pub fn table_at_bit_name(role: usize) -> Ident {
        format_ident!("ARM_FAMILY_AT_{}", role)
    }

    /// Statements that set, in the next state's words `w`, the bits that the move whose
    /// `(family, anchor bit)` is `row` sets through its family (nothing when the role has no
    /// families).
    pub fn statements(&self, row: TokenStream) -> TokenStream {
        if self.families.is_empty() {
            return TokenStream::new();
        }
        let cases = self.families.iter().enumerate().map(|(f, family)| {
            let f = Literal::u8_unsuffixed(f as u8 + 1);
            let sets = merge_translates(&family.sets).into_iter().map(|(dw, targets, terms)| {
                let target = Literal::usize_unsuffixed(word_at(family.word, dw));
                let mut factors = vec![spread(&targets)];
                factors.extend(terms.iter().map(|t| term_word(family.word, t)));
                let condition = join_and(&factors);
                quote!(w[#target] |= #condition;)
            });
            quote! {
                #f => {
                    #(#sets)*
                }
            }
        });
        // A step evaluates only the family of the move played (none for a `noop`): a turn-taking
        // game's moves alternate between a family and none, which predicts well, where a jump
        // to one of many arms does not.
        quote! {{
            let (family, bit) = #row;
            let a = 1u64 << bit;
            match family {
                #(#cases)*
                _ => {}
            }
        }}
    }
}

/// A move's conditional sets relative to its anchor (its lowest set bit): the anchor's word
/// and bit, and the sets, sorted; `None` when a condition reads what is not a conjunction of
/// base literals.
fn relative_arm(sets: &[ConditionalSet], flat: &[Option<Vec<Lit>>]) -> Option<(usize, u32, Vec<RelativeSet>)> {
    let anchor = sets.iter().map(|&(i, _)| i).min()?;
    let (word, bit) = (anchor as usize / 64, anchor % 64);
    let offset = |b: u32| -> Offset { ((b / 64) as i32 - word as i32, (b % 64) as i32 - bit as i32) };
    let base = |lit: &Lit| match lit.prop {
        Prop::Base(b) => Some((offset(b), lit.positive)),
        _ => None,
    };
    let mut relative = Vec::new();
    for (target, condition) in sets {
        let mut terms = Vec::new();
        for lit in condition {
            let term = match lit.prop {
                Prop::Base(_) => Term { negated: false, literals: vec![base(lit)?] },
                Prop::Node(n) => {
                    let lits = flat.get(n as usize)?.as_ref()?;
                    Term { negated: !lit.positive, literals: lits.iter().map(base).collect::<Option<_>>()? }
                }
                _ => return None,
            };
            terms.push(term);
        }
        terms.sort();
        terms.dedup();
        relative.push((offset(*target), terms));
    }
    relative.sort();
    Some((word, bit, relative))
}

/// A family's sets with every group of sets that are one condition moved along with their
/// target merged: the target's word (relative to the anchor's), the targets' bits relative to
/// the anchor, and the condition relative to the target, as a term of the anchor's word whose
/// literals are offsets from the target. connectFour's drop sets a cell when it is empty and
/// the one below it is not, at every height: one word operation for the column, not one per
/// height. Groups keep the order of their first set.
fn merge_translates(sets: &[RelativeSet]) -> Vec<(i32, Vec<i32>, Vec<Term>)> {
    let mut merged: Vec<(i32, Vec<i32>, Vec<Term>)> = Vec::new();
    for &((dw, dp), ref terms) in sets {
        let relative: Vec<Term> = terms
            .iter()
            .map(|t| Term {
                negated: t.negated,
                literals: t.literals.iter().map(|&((lw, lp), positive)| ((lw, lp - dp), positive)).collect(),
            })
            .collect();
        match merged.iter_mut().find(|(w, _, r)| *w == dw && *r == relative) {
            Some((_, targets, _)) => targets.push(dp),
            None => merged.push((dw, vec![dp], relative)),
        }
    }
    merged
}

/// The anchor bit `a` copied to every bit `targets` (sorted, each within the word for every
/// member of the family) past it: one shift for one target, else a shift and a multiply.
fn spread(targets: &[i32]) -> TokenStream {
    let low = targets.iter().copied().min().unwrap_or_default();
    let moved = shift_from_anchor(quote!(a), low);
    if targets.len() == 1 {
        return moved;
    }
    let copies = super::tables::hex(targets.iter().fold(0u64, |m, &t| m | 1 << (t - low)));
    if low == 0 {
        quote!(a.wrapping_mul(#copies))
    } else {
        quote!((#moved).wrapping_mul(#copies))
    }
}

fn word_at(word: usize, dw: i32) -> usize {
    (word as i32 + dw) as usize
}

/// A state word moved so that the bit `dp` past the anchor lands on the anchor.
fn state_at_anchor(word: usize, (dw, dp): Offset) -> TokenStream {
    let w = Literal::usize_unsuffixed(word_at(word, dw));
    match dp {
        0 => quote!(s.0[#w]),
        d if d > 0 => {
            let d = Literal::u32_unsuffixed(d as u32);
            quote!((s.0[#w] >> #d))
        }
        d => {
            let d = Literal::u32_unsuffixed((-d) as u32);
            quote!((s.0[#w] << #d))
        }
    }
}

/// A word whose anchor bit is the term's value at the anchor.
fn term_word(word: usize, term: &Term) -> TokenStream {
    let factors: Vec<TokenStream> = term
        .literals
        .iter()
        .map(|&(offset, positive)| {
            let at = state_at_anchor(word, offset);
            if positive {
                at
            } else {
                quote!(!#at)
            }
        })
        .collect();
    let all = join_and(&factors);
    if term.negated {
        quote!(!(#all))
    } else {
        all
    }
}

/// A word with a bit at the anchor moved to the bit `dp` past it.
fn shift_from_anchor(value: TokenStream, dp: i32) -> TokenStream {
    match dp {
        0 => value,
        d if d > 0 => {
            let d = Literal::u32_unsuffixed(d as u32);
            quote!((#value) << #d)
        }
        d => {
            let d = Literal::u32_unsuffixed((-d) as u32);
            quote!((#value) >> #d)
        }
    }
}

fn join_and(factors: &[TokenStream]) -> TokenStream {
    match factors {
        [one] => one.clone(),
        _ => {
            let parts = factors.iter().map(|f| quote!((#f)));
            quote!(#(#parts)&*)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let plan = RoleArms::plan(&arms, &[]);
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

    #[test]
    fn a_condition_on_a_derived_conjunction_reads_its_literals() {
        // Node 0 is `¬bit 1 ∧ ¬bit 9`. Two moves set bits a word apart when it does not hold,
        // but read it at the same bits: their arms are not one shape moved.
        let flat = vec![Some(vec![
            Lit { prop: Prop::Base(1), positive: false },
            Lit { prop: Prop::Base(9), positive: false },
        ])];
        let not_node = Lit { prop: Prop::Node(0), positive: false };
        let arms: Vec<Vec<ConditionalSet>> = vec![vec![(0, vec![not_node])], vec![(64, vec![not_node])]];
        let plan = RoleArms::plan(&arms, &flat);
        assert!(plan.families.is_empty());
    }
}
