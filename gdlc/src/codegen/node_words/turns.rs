//! A `match` on the kind of move played whose arms differ only by a mask and a shift, written
//! without a jump: the mask and the turn looked up by the kind. skirmish's "a rook arrives on
//! this cell" is the rook's board, the bit of the move's place and a mask, shifted by the
//! move's direction and distance: a jump through a table of 52 arms, a new target at every
//! step, for each piece and role.

use super::factor::{Factor, WordExpr};
use super::WordLit;
use crate::codegen::emit::Body;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// The fewest arms for a `match` to be a lookup.
const TURNS_MIN_ARMS: usize = 4;

/// The factors an arm's word has besides its mask and the move's bit, and its mask and its
/// shift (right; left when negative), when it is `(factors & at & mask)` shifted.
fn arm_shape(kind: u32, expr: &WordExpr) -> Option<(Vec<Factor>, u64, i32)> {
    let (inner, shift) = match expr {
        WordExpr::Shifted(inner, shift) => (inner.as_ref(), *shift),
        other => (other, 0),
    };
    let WordExpr::And(parts) = inner else { return None };
    let mut mask = u64::MAX;
    let mut at = false;
    let mut factors = Vec::new();
    for part in parts {
        match *part {
            WordExpr::Factor(Factor::Mask(m)) => mask &= m,
            WordExpr::Factor(Factor::Lit(WordLit::Does { kind: k, shift: 0, positive: true })) if k == kind && !at => {
                at = true
            }
            WordExpr::Factor(factor) => factors.push(factor),
            _ => return None,
        }
    }
    factors.sort();
    at.then_some((factors, mask, shift))
}

impl Body<'_> {
    /// The arms (kind, word) of a `match` on role `role`'s kind of move played as one lookup
    /// of a mask and a turn by the kind, when every arm is the same factors, the move's bit and
    /// a mask, shifted: a shifted word's mask keeps no bit that the shift drops (see
    /// `factor::unshifted`), so the shift is a rotation.
    pub(super) fn turn_lookup(&self, role: u32, arms: &[(u32, WordExpr)]) -> Option<TokenStream> {
        if arms.len() < TURNS_MIN_ARMS {
            return None;
        }
        let shapes: Vec<(Vec<Factor>, u64, i32)> =
            arms.iter().map(|(kind, expr)| arm_shape(*kind, expr)).collect::<Option<_>>()?;
        let common = &shapes[0].0;
        if shapes.iter().any(|(factors, _, _)| factors != common) {
            return None;
        }
        // Rows from the role's first kind read; the last row, none, for every other entry.
        let first = arms.iter().map(|(kind, _)| *kind).min()? as usize;
        let rows = arms.iter().map(|(kind, _)| *kind).max()? as usize + 2 - first;
        let mut table = vec![(0u64, 0u32); rows];
        for ((kind, _), (_, mask, shift)) in arms.iter().zip(&shapes) {
            table[*kind as usize - first] = (*mask, shift.rem_euclid(64) as u32);
        }
        let name = self.emitter.turn_table(table);
        let last = Literal::usize_unsuffixed(rows - 1);
        let first = Literal::usize_unsuffixed(first);
        let kinds = format_ident!("MOVE_KIND_PLACES_{}", role);
        let factors = common.iter().map(|&f| self.word_expr(&WordExpr::Factor(f), None));
        let role = Literal::u32_unsuffixed(role);
        Some(quote! {
            {
                let entry = #kinds[joint[#role].0 as usize];
                let (mask, turn) = #name[((entry >> 6) as usize).wrapping_sub(#first).min(#last)];
                (#(#factors &)* (1u64 << (entry & 63)) & mask).rotate_right(turn)
            }
        })
    }
}

impl crate::codegen::emit::Emitter<'_> {
    /// The name of the table of masks and turns with `rows`, one per content.
    fn turn_table(&self, rows: Vec<(u64, u32)>) -> proc_macro2::Ident {
        format_ident!("KIND_TURNS_{}", self.turn_tables.number(rows))
    }

    /// The tables of masks and turns that lookups of the kind of move played read, in the
    /// order of their numbers.
    pub(crate) fn kind_turn_tables(&self) -> TokenStream {
        self.turn_tables.write_all(|number, rows| {
            let name = format_ident!("KIND_TURNS_{}", number);
            let len = Literal::usize_unsuffixed(rows.len());
            let rows = rows.iter().map(|&(mask, turn)| {
                let (mask, turn) = (crate::codegen::tables::hex(mask), Literal::u32_unsuffixed(turn));
                quote!((#mask, #turn))
            });
            quote! {
                /// For every kind of move from a role's first, the places its word keeps and
                /// the turn to the right that moves them; none for a move of no kind or a kind
                /// not read.
                static #name: [(u64, u32); #len] = [#(#rows),*];
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::node_words::factor::{factored, shift_word};
    use crate::codegen::node_words::Template;

    #[test]
    fn a_shifted_arm_is_a_turn_of_its_unshifted_word() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..500 {
            let shift = (next() % 127) as i32 - 63;
            let mask = next() | next();
            let template = Template {
                literals: vec![
                    WordLit::Base { word: 0, shift, positive: true },
                    WordLit::Does { kind: 7, shift, positive: true },
                ],
                mask,
            };
            let expr = factored(&[&template]);
            let Some((factors, turn_mask, turn_shift)) = arm_shape(7, &expr) else {
                panic!("not a turn: {expr:?}");
            };
            assert_eq!(factors, vec![Factor::Lit(WordLit::Base { word: 0, shift: 0, positive: true })]);
            for _ in 0..16 {
                let (board, place) = (next(), next() % 64);
                let at = 1u64 << place;
                let sum = mask & shift_word(board, shift) & shift_word(at, shift);
                let turned = (board & at & turn_mask).rotate_right(turn_shift.rem_euclid(64) as u32);
                assert_eq!(turned, sum, "mask {mask:#x} shift {shift} place {place}");
            }
        }
    }
}
