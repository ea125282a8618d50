//! The generated code of arm families: each role's table of `(family, anchor bit)` by move
//! or by drawn bit, the copy groups' tables, and the `match` on the played move's family
//! whose arms set the next state's bits with word operations.

use super::copy_groups::{CopyGroup, CopyWord, Owner};
use super::{merge_translates, word_at, Offset, RoleArms, Term};
use crate::codegen::tables::hex;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

impl RoleArms {
    /// The static table of role `role`'s moves, `(family, anchor bit)`, family 0 for a move in
    /// none (nothing when the role has no families).
    pub(crate) fn table(&self, role: usize, moves: usize) -> TokenStream {
        if self.families.is_empty() {
            return TokenStream::new();
        }
        let name = Self::table_name(role);
        let rows = self.rows(moves).into_iter().map(|(f, b)| quote!((#f, #b)));
        let moves = Literal::usize_unsuffixed(moves);
        let copies = self.copy_groups.iter().map(CopyGroup::tables);
        quote! {
            /// For every move of this role, the family of moves whose conditional next-state
            /// rules it shares (from 1; 0 for none) and its anchor's bit in that family's word.
            static #name: [(u8, u8); #moves] = [#(#rows),*];
            #(#copies)*
        }
    }

    /// The same rows as [`RoleArms::table`], by the bit `random_step` draws: `moves_by_bit`
    /// gives the move of every bit (nothing when the role has no families).
    pub(crate) fn table_at_bits(&self, role: usize, moves_by_bit: &[u32]) -> TokenStream {
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

    pub(crate) fn table_name(role: usize) -> Ident {
        format_ident!("ARM_FAMILY_OF_{}", role)
    }

    pub(crate) fn table_at_bit_name(role: usize) -> Ident {
        format_ident!("ARM_FAMILY_AT_{}", role)
    }

    /// Statements that set, in the next state's words `w`, the bits that the move whose
    /// `(family, anchor bit)` is `row` sets through its family (nothing when the role has no
    /// families).
    pub(crate) fn statements(&self, row: TokenStream) -> TokenStream {
        if self.families.is_empty() {
            return TokenStream::new();
        }
        let copied = self.copy_groups.iter().map(CopyGroup::statements);
        let grouped = |f: usize| self.copy_groups.iter().any(|group| group.families.contains(&f));
        let cases = self.families.iter().enumerate().filter(|&(f, _)| !grouped(f)).map(|(f, family)| {
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
        // to one of many arms does not. The anchor bit `a` is for the families outside copy
        // groups, which read their tables by `bit`.
        let cases: Vec<TokenStream> = cases.collect();
        let anchor = (!cases.is_empty()).then(|| quote!(let a = 1u64 << bit;));
        quote! {{
            let (family, bit) = #row;
            #anchor
            match family {
                #(#copied)*
                #(#cases)*
                _ => {}
            }
        }}
    }
}

impl CopyGroup {
    fn table_name((role, group, word): Owner) -> Ident {
        format_ident!("ARM_COPIES_{}_{}_{}", role, group, word)
    }

    /// The static tables of the group's words that read their own.
    fn tables(&self) -> TokenStream {
        let tables = self.words.iter().filter(|word| word.reads == word.owner).map(|word| {
            let name = Self::table_name(word.owner);
            let ty = word.row_type();
            let width = Literal::usize_unsuffixed(1 << word.chunk_bits());
            let chunks = Literal::usize_unsuffixed(word.chunks.len());
            let families = Literal::usize_unsuffixed(word.rows.len());
            let rows = word.rows.iter().map(|chunks| {
                let chunks = chunks.iter().map(|row| {
                    let row = row.iter().map(|&targets| Literal::u64_unsuffixed(targets));
                    quote!([#(#row),*])
                });
                quote!([#(#chunks),*])
            });
            quote! {
                /// For each family of a group that copies bits between the same places, each
                /// chunk of the sources and each value of its bits, the targets it sets.
                static #name: [[[#ty; #width]; #chunks]; #families] = [#(#rows),*];
            }
        });
        quote!(#(#tables)*)
    }

    /// The `match` arm of the group's families in [`RoleArms::statements`], where `family` and
    /// `bit` are the played move's row.
    fn statements(&self) -> TokenStream {
        let low = Literal::u8_unsuffixed(self.families.start as u8 + 1);
        let high = Literal::u8_unsuffixed(self.families.end as u8);
        let words = self.words.iter().map(|word| {
            let name = Self::table_name(word.reads);
            let w = Literal::usize_unsuffixed(word_at(self.word, word.dw));
            let from = from_anchor(word.source_low);
            let to = from_anchor(word.target_low);
            let lookups = word.chunks.iter().enumerate().map(|(c, &(offset, mask))| {
                let c = Literal::usize_unsuffixed(c);
                let mask = hex(mask);
                let bits = match offset {
                    0 => quote!(x & #mask),
                    _ => {
                        let offset = Literal::u32_unsuffixed(offset as u32);
                        quote!((x >> #offset) & #mask)
                    }
                };
                quote!(#name[f][#c][(#bits) as usize])
            });
            quote! {
                let x = s.0[#w] >> #from;
                w[#w] |= u64::from(#(#lookups)|*) << #to;
            }
        });
        quote! {
            #low..=#high => {
                let f = usize::from(family - #low);
                #(#words)*
            }
        }
    }
}

/// The shift that moves the anchor bit `bit` (of the played move's row) by `by` bits, as a `u32`
/// expression.
fn from_anchor(by: i32) -> TokenStream {
    let amount = Literal::u32_unsuffixed(by.unsigned_abs());
    match by {
        0 => quote!(u32::from(bit)),
        by if by > 0 => quote!((u32::from(bit) + #amount)),
        _ => quote!((u32::from(bit) - #amount)),
    }
}

impl CopyWord {
    /// The smallest unsigned type that holds every row.
    fn row_type(&self) -> TokenStream {
        let all = self.rows.iter().flatten().flatten().fold(0u64, |all, &row| all | row);
        match 64 - all.leading_zeros() {
            0..=8 => quote!(u8),
            9..=16 => quote!(u16),
            17..=32 => quote!(u32),
            _ => quote!(u64),
        }
    }
}

/// The anchor bit `a` copied to every bit `targets` (sorted, each within the word for every
/// member of the family) past it: one shift for one target, else a shift and a multiply.
pub(super) fn spread(targets: &[i32]) -> TokenStream {
    let low = targets.iter().copied().min().unwrap_or_default();
    let moved = shift_from_anchor(quote!(a), low);
    if targets.len() == 1 {
        return moved;
    }
    let copies = hex(targets.iter().fold(0u64, |m, &t| m | 1 << (t - low)));
    if low == 0 {
        quote!(a.wrapping_mul(#copies))
    } else {
        quote!((#moved).wrapping_mul(#copies))
    }
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
