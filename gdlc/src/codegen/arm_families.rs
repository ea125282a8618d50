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
    /// Runs of consecutive `families` that copy bits between the same places, evaluated by
    /// tables (see [`CopyGroup`]).
    copy_groups: Vec<CopyGroup>,
    /// For every move, whether a family evaluates its arm.
    in_family: Vec<bool>,
}

impl RoleArms {
    /// Groups the moves of one role's `arms` (its conditional sets by move) into families.
    /// `flat` gives the base literals of every derived proposition that is one conjunction
    /// of them; a condition that reads any other proposition keeps its move in the `match`.
    pub fn plan(role: usize, arms: &[Vec<ConditionalSet>], flat: &[Option<Vec<Lit>>]) -> RoleArms {
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
        let (families, copy_groups) = CopyGroup::gather(role, families);
        let mut in_family = vec![false; arms.len()];
        for family in &families {
            for &(mv, _) in &family.members {
                in_family[mv as usize] = true;
            }
        }
        RoleArms { families, copy_groups, in_family }
    }

    /// Points every word of the roles' copy groups at the first table, over all roles, with the
    /// same rows, which it then reads (pentago's two roles rotate alike, red's cells and black's
    /// alike): one table where there were four.
    pub fn share_tables(roles: &mut [RoleArms]) {
        let mut tables: Vec<(&Rows, Owner)> = Vec::new();
        let words = roles.iter().flat_map(|arms| &arms.copy_groups).flat_map(|group| &group.words);
        let reads: Vec<Owner> = words
            .map(|word| match tables.iter().find(|(rows, _)| **rows == word.rows) {
                Some(&(_, owner)) => owner,
                None => {
                    tables.push((&word.rows, word.owner));
                    word.owner
                }
            })
            .collect();
        let words = roles.iter_mut().flat_map(|arms| &mut arms.copy_groups).flat_map(|group| &mut group.words);
        for (word, reads) in words.zip(reads) {
            word.reads = reads;
        }
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

/// A family whose every set copies one bit of a word to another bit of the same word (a
/// rotation of pentago's quadrant): per word relative to the anchor's, its copies as (source,
/// target) bits relative to the anchor, sorted.
type Copies = BTreeMap<i32, Vec<(i32, i32)>>;

fn copies(family: &ArmFamily) -> Option<Copies> {
    let mut by_word = Copies::new();
    for ((dw, dp), terms) in &family.sets {
        let [Term { negated: false, literals }] = terms.as_slice() else { return None };
        let [((lw, lp), true)] = literals.as_slice() else { return None };
        if lw != dw {
            return None;
        }
        by_word.entry(*dw).or_default().push((*lp, *dp));
    }
    by_word.values_mut().for_each(|copies| copies.sort_unstable());
    Some(by_word)
}

/// The places a copy family copies between: its anchors' word, and per word relative to it,
/// its source bits and its target bits relative to the anchor, sorted.
type Places = (usize, Vec<(i32, Vec<i32>, Vec<i32>)>);

fn places(family: &ArmFamily, copies: &Copies) -> Places {
    let per_word = copies
        .iter()
        .map(|(&dw, pairs)| {
            let mut sources: Vec<i32> = pairs.iter().map(|&(from, _)| from).collect();
            let mut targets: Vec<i32> = pairs.iter().map(|&(_, to)| to).collect();
            sources.sort_unstable();
            sources.dedup();
            targets.sort_unstable();
            targets.dedup();
            (dw, sources, targets)
        })
        .collect();
    (family.word, per_word)
}

/// The widest chunk of source bits one table row is indexed by.
const COPY_CHUNK_BITS: i32 = 8;

/// Families of one role that copy bits from the same sources to the same targets, each in its
/// own way (pentago's clockwise and counterclockwise rotations of a quadrant). A `match` arm per
/// family would branch on which one was played, which a random move mispredicts half the time.
/// One arm serves them all: the sources, in chunks of at most [`COPY_CHUNK_BITS`] bits, index
/// tables of the targets they set, one table per family, chunk and word.
#[derive(Debug)]
struct CopyGroup {
    /// The families' indices in the role's families.
    families: std::ops::Range<usize>,
    /// The state word of the families' anchors.
    word: usize,
    words: Vec<CopyWord>,
}

/// One state word of a [`CopyGroup`], relative to the anchor's.
#[derive(Debug)]
struct CopyWord {
    dw: i32,
    /// The lowest source and target bit, relative to the anchor.
    source_low: i32,
    target_low: i32,
    /// Each chunk's lowest source bit (relative to `source_low`) and its sources' mask from there.
    chunks: Vec<(i32, u64)>,
    /// For each family and chunk, the targets (relative to `target_low`) set by each value of
    /// the chunk's bits.
    rows: Rows,
    /// Whose table this is: its role, group and word.
    owner: Owner,
    /// The table the word reads: its own, or the first with the same rows (see
    /// [`RoleArms::share_tables`]).
    reads: Owner,
}

/// The rows of a [`CopyWord`]'s table.
type Rows = Vec<Vec<Vec<u64>>>;

/// A copy table's role, group and word.
type Owner = (usize, usize, usize);

impl CopyGroup {
    /// Orders `families` so that families that copy between the same places come together where
    /// the first of them was, and makes a group of each two or more such.
    fn gather(role: usize, families: Vec<ArmFamily>) -> (Vec<ArmFamily>, Vec<CopyGroup>) {
        let copied: Vec<Option<Copies>> = families.iter().map(copies).collect();
        let places: Vec<Option<Places>> =
            families.iter().zip(&copied).map(|(family, copies)| Some(places(family, copies.as_ref()?))).collect();
        // Each family's group, by its first family, when two or more copy between its places.
        let first: Vec<Option<usize>> = places
            .iter()
            .map(|key| {
                let same: Vec<usize> = (0..places.len()).filter(|&j| key.is_some() && places[j] == *key).collect();
                (same.len() >= ARM_FAMILY_MIN).then(|| same[0])
            })
            .collect();
        let mut slots: Vec<Option<(ArmFamily, Option<Copies>)>> = families.into_iter().zip(copied).map(Some).collect();
        let (mut ordered, mut groups) = (Vec::new(), Vec::new());
        for i in 0..slots.len() {
            match first[i] {
                None => ordered.extend(slots[i].take().map(|(family, _)| family)),
                Some(f) if f == i => {
                    let (members, copies): (Vec<ArmFamily>, Vec<Option<Copies>>) =
                        (i..slots.len()).filter(|&j| first[j] == Some(i)).filter_map(|j| slots[j].take()).unzip();
                    // A family has a group only when it copies bits.
                    let copies: Vec<Copies> = copies.into_iter().flatten().collect();
                    let start = ordered.len();
                    let owner = (role, groups.len());
                    groups.push(CopyGroup::new(owner, start..start + members.len(), &members[0], &copies));
                    ordered.extend(members);
                }
                // Taken with the group's first family.
                Some(_) => {}
            }
        }
        (ordered, groups)
    }

    /// The group of the families numbered `families`, whose copies are `copies` and whose
    /// places are `first`'s; group `group` of role `role`.
    fn new(
        (role, group): (usize, usize),
        families: std::ops::Range<usize>,
        first: &ArmFamily,
        copies: &[Copies],
    ) -> CopyGroup {
        let (word, per_word) = places(first, &copies[0]);
        let words = per_word
            .iter()
            .enumerate()
            .map(|(k, (dw, sources, targets))| {
                let each: Vec<&[(i32, i32)]> = copies.iter().map(|copies| copies[dw].as_slice()).collect();
                CopyWord::new(*dw, sources, targets, &each, (role, group, k))
            })
            .collect();
        CopyGroup { families, word, words }
    }

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
                let mask = super::tables::hex(mask);
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

/// The bits a chunk's table row is indexed by: the widest chunk's.
fn chunk_bits(chunks: &[(i32, u64)]) -> u32 {
    chunks.iter().map(|&(_, mask)| 64 - mask.leading_zeros()).max().unwrap_or(0)
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
    /// The bits that index a chunk's table row.
    fn chunk_bits(&self) -> u32 {
        chunk_bits(&self.chunks)
    }

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

    fn new(dw: i32, sources: &[i32], targets: &[i32], each: &[&[(i32, i32)]], owner: Owner) -> CopyWord {
        let source_low = sources[0];
        let target_low = targets[0];
        let mut chunks: Vec<(i32, u64)> = Vec::new();
        for &source in sources {
            let at = source - source_low;
            match chunks.last_mut() {
                Some((start, mask)) if at - *start < COPY_CHUNK_BITS => *mask |= 1 << (at - *start),
                _ => chunks.push((at, 1)),
            }
        }
        let rows = each
            .iter()
            .map(|copies| {
                chunks
                    .iter()
                    .map(|&(start, mask)| {
                        (0..1u64 << chunk_bits(&chunks))
                            .map(|value| {
                                copies
                                    .iter()
                                    .filter(|&&(from, _)| {
                                        let at = from - source_low - start;
                                        (0..COPY_CHUNK_BITS).contains(&at)
                                            && mask >> at & 1 == 1
                                            && value >> at & 1 == 1
                                    })
                                    .fold(0u64, |targets, &(_, to)| targets | 1 << (to - target_low))
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        CopyWord { dw, source_low, target_low, chunks, rows, owner, reads: owner }
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
        let flat = vec![Some(vec![
            Lit { prop: Prop::Base(1), positive: false },
            Lit { prop: Prop::Base(9), positive: false },
        ])];
        let not_node = Lit { prop: Prop::Node(0), positive: false };
        let arms: Vec<Vec<ConditionalSet>> = vec![vec![(0, vec![not_node])], vec![(64, vec![not_node])]];
        let plan = RoleArms::plan(0, &arms, &flat);
        assert!(plan.families.is_empty());
    }
}
