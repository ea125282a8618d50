//! `next(state, joint)`, and the statements that compute the next state's words, which
//! `random_step` shares.

use super::{shifted, Body, Emitter, Phase};
use crate::codegen::move_tables::MoveTables;
use crate::codegen::tables::{hex, words};
use crate::ground::{Lit, Prop, Value};
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::collections::BTreeMap;

impl Emitter<'_> {
    /// `next(state, joint)`: the state after every role plays its move of `joint`.
    pub(crate) fn generate_next_fn(&self) -> TokenStream {
        let needed = self.move_phase_cone();
        let (declare, slots) = self.assign_slots(&needed);
        let body = Body::new(self, &slots, Phase::Move);
        let row = self.move_table_row();
        let local = self.arm_only_nodes(&self.next_outside_arms());
        let dependent = self.move_dependent();
        let (after, before): (Vec<u32>, Vec<u32>) =
            needed.iter().copied().filter(|&n| !local[n as usize]).partition(|&n| dependent[n as usize]);
        let before = body.emit_nodes(&before);
        let after = body.emit_move_nodes(&after);
        let words = body.next_words(&local, &vec![false; self.ground.roles.len()]);
        quote! {
            /// The state after every role plays its move of `joint` (one per role, in role order).

            pub fn next(s: &State, joint: &[Move]) -> State {
                let joint: &[Move; ROLES.len()] = joint.try_into().expect("one move per role");
                #declare
                #row
                #before
                #after
                #words
                State(w)
            }
        }
    }

    /// The next-state values that the frame tables do not give.
    pub(crate) fn unframed_next(&self) -> Vec<Value> {
        self.ground
            .next
            .iter()
            .enumerate()
            .map(|(i, &v)| if self.framed(i) { Value::Const(false) } else { v })
            .collect()
    }

    /// The values `next` evaluates outside the arms of the conditional frame rules: the next
    /// values the frame tables do not give, and the conditions that keep framed bits.
    pub(crate) fn next_outside_arms(&self) -> Vec<Value> {
        let mut values = self.unframed_next();
        values.extend(self.tables.iter().flat_map(MoveTables::guard_values));
        values
    }

    /// The nodes `next` needs evaluated, sorted: those of the next values the frame tables do not
    /// give, of the conditions that keep framed bits and of the conditions of the frame arms.
    fn move_phase_cone(&self) -> Vec<u32> {
        let mut values = self.next_outside_arms();
        values.extend(self.tables.iter().flat_map(MoveTables::arm_values));
        self.runtime_cone(&values)
    }
}

/// The next state's bits that are not framed, as they are computed: the words of the bits that
/// always hold, statements that set the others one by one, the bits copied from node words by
/// state word, group and distance, and the bits copied from the state's own facts (or their
/// negations) by state word, word read, distance and sign.
struct NextBits {
    always: Vec<u64>,
    sets: Vec<TokenStream>,
    from_groups: BTreeMap<(usize, u32, i32), u64>,
    from_state: BTreeMap<StateCopy, u64>,
}

/// Next-state bits of word `to` that are the facts of word `from` (negated unless `positive`),
/// each `up` places below its own: a step counter's `(next (step ?y))` from `(true (step ?x))`
/// and `(succ ?x ?y)` is one such copy a word.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct StateCopy {
    to: usize,
    from: usize,
    up: i32,
    positive: bool,
}

impl Body<'_> {
    /// Statements that compute the next state's words into `w`, from the state `s`, the joint
    /// move and the nodes next needs, already computed but for those `local` marks, which the
    /// arms of the conditional frame rules evaluate.
    /// `by_draw[r]`: role `r`'s frame and arm-family rows are looked up by its drawn bit
    /// `drawn_r` (in `random_step`) rather than by its move.
    pub(crate) fn next_words(&self, local: &[bool], by_draw: &[bool]) -> TokenStream {
        let NextBits { always, mut sets, from_groups, from_state } = self.next_bits();
        let always = always.into_iter().map(hex);
        let frames = self.emitter.frame_rows(by_draw, &self.frame_guards());
        sets.extend(from_state.into_iter().map(|(copy, mask)| self.copy_state(copy, mask)));
        sets.extend(from_groups.into_iter().map(|((w, g, up), mask)| {
            let (w, k, mask) = (Literal::usize_unsuffixed(w), self.slots.word(g), hex(mask));
            let word = shifted(quote!(g[#k]), -up);
            quote!(w[#w] |= #word & #mask;)
        }));
        let arms = self.frame_arms(local, by_draw);
        quote! {
            let mut w: [u64; WORDS] = [#(#always),*];
            #frames
            #arms
            #(#sets)*
        }
    }

    /// The next state's bits that the frame tables do not give.
    fn next_bits(&self) -> NextBits {
        let emitter = self.emitter;
        let mut bits = NextBits {
            always: vec![0u64; words(emitter.ground.base.len())],
            sets: Vec::new(),
            from_groups: BTreeMap::new(),
            from_state: BTreeMap::new(),
        };
        for (i, v) in emitter.ground.next.iter().enumerate() {
            let (w, bit) = (i / 64, i % 64);
            if emitter.framed(i) {
                continue;
            }
            match *v {
                Value::Lit(Lit { prop: Prop::Node(n), positive: true })
                    if emitter.words.member[n as usize].is_some() =>
                {
                    let (g, place) = emitter.words.member[n as usize].unwrap_or_default();
                    *bits.from_groups.entry((w, g, bit as i32 - place as i32)).or_default() |= 1 << bit;
                }
                Value::Const(false) => {}
                Value::Const(true) => bits.always[w] |= 1 << bit,
                // A fact of the state, or its negation: copied with the others of its word
                // read at the same distance.
                Value::Lit(Lit { prop: Prop::Base(b), positive }) => {
                    let (from, up) = (b as usize / 64, bit as i32 - (b % 64) as i32);
                    *bits.from_state.entry(StateCopy { to: w, from, up, positive }).or_default() |= 1 << bit;
                }
                Value::Lit(lit) => bits.sets.push(self.set_next_bit(i, lit)),
            }
        }
        bits
    }

    /// `copy`'s bits of `mask` set in `w` from the state's word, with a comment naming the
    /// first of them and how many more. A single bit read elsewhere is tested and set as the
    /// other single next values are: its shifted word would give LLVM one more constant to keep
    /// in a register, and in connectFour's loop, where the turn passes thus, that cost 7%.
    fn copy_state(&self, copy: StateCopy, mask: u64) -> TokenStream {
        let StateCopy { to, from, up, positive } = copy;
        let bit = mask.trailing_zeros();
        let first = 64 * to + bit as usize;
        let more = mask.count_ones() - 1;
        if more == 0 && (from, up, positive) != (to, 0, true) {
            let place = bit as i32 - up;
            return self.set_next_bit(first, Lit { prop: Prop::Base(64 * from as u32 + place as u32), positive });
        }
        let note = match more {
            0 => self.note_next(first),
            _ => self.emitter.note(|notes| {
                let atom = notes.atom(&format!("(next {})", self.emitter.ground.base[first]));
                format!("BASE[{first}] and {more} more of w[{to}]: {atom}")
            }),
        };
        let from = Literal::usize_unsuffixed(from);
        let read = if positive { quote!(s.0[#from]) } else { quote!((!s.0[#from])) };
        let (to, word, mask) = (Literal::usize_unsuffixed(to), shifted(read, -up), hex(mask));
        quote!(#note w[#to] |= #word & #mask;)
    }

    /// Next-state bit `i` set where `lit` holds, with a comment naming its atom.
    fn set_next_bit(&self, i: usize, lit: Lit) -> TokenStream {
        let (w, bit) = (Literal::usize_unsuffixed(i / 64), Literal::usize_unsuffixed(i % 64));
        let (cond, note) = (self.lit(lit), self.note_next(i));
        quote!(#note w[#w] |= u64::from(#cond) << #bit;)
    }

    /// A comment naming the next atom of base fact `i`.
    fn note_next(&self, i: usize) -> TokenStream {
        self.emitter
            .note(|notes| format!("BASE[{i}]: {}", notes.atom(&format!("(next {})", self.emitter.ground.base[i]))))
    }
}
