//! Truth tables of small nodes: a derived proposition whose rules read only base facts of a few
//! neighbouring bits of one state word (ticTacToe's "x has a line": eight rules over nine
//! bits) is looked up in a constant table indexed by those bits, a shift, a mask and a load,
//! rather than tested rule by rule.

use super::emit::Emitter;
use crate::ground::{Lit, Prop};
use proc_macro2::TokenStream;
use quote::quote;

/// The widest window of bits a table covers: 2^10 bits, 16 words.
pub(super) const MAX_WINDOW: u32 = 10;

/// The fewest literals (over all rules) that make a table worth its load.
const MIN_LITERALS: usize = 6;

/// A node's rules as a table: the state word, the window's lowest bit and width, and the
/// table's bits (bit `i` is the node's value when the window holds `i`).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct TruthTable {
    pub word: u32,
    pub low: u32,
    pub width: u32,
    pub bits: Vec<u64>,
}

impl TruthTable {
    /// The table of the disjunction of `rules`, each a conjunction of base literals, when they
    /// read at least [`MIN_LITERALS`] literals, all within [`MAX_WINDOW`] bits of one word.
    pub(super) fn of(rules: &[Vec<Lit>]) -> Option<TruthTable> {
        if rules.len() < 2 || rules.iter().map(Vec::len).sum::<usize>() < MIN_LITERALS {
            return None;
        }
        let mut facts = Vec::new();
        for lit in rules.iter().flatten() {
            match lit.prop {
                Prop::Base(b) => facts.push(b),
                _ => return None,
            }
        }
        let (low, high) = (*facts.iter().min()?, *facts.iter().max()?);
        let width = high - low + 1;
        if low / 64 != high / 64 || width > MAX_WINDOW {
            return None;
        }
        // Every rule as a mask of its window bits and the values they must have.
        let tests: Vec<(u64, u64)> = rules
            .iter()
            .map(|rule| {
                rule.iter().fold((0u64, 0u64), |(mask, set), lit| {
                    let Prop::Base(b) = lit.prop else { unreachable!("base literals only") };
                    let bit = 1u64 << (b - low);
                    (mask | bit, if lit.positive { set | bit } else { set })
                })
            })
            .collect();
        let entries = 1u64 << width;
        let mut bits = vec![0u64; entries.div_ceil(64) as usize];
        for i in 0..entries {
            if tests.iter().any(|&(mask, set)| i & mask == set) {
                bits[(i / 64) as usize] |= 1 << (i % 64);
            }
        }
        Some(TruthTable { word: low / 64, low: low % 64, width, bits })
    }

    /// The node's value: one constant shifted by the window when the table is one word, else
    /// a word of a constant array.
    pub(super) fn expr(&self, notes: Option<&super::Notes>) -> TokenStream {
        let word = proc_macro2::Literal::u32_unsuffixed(self.word);
        let window = super::tables::hex((1u64 << self.width) - 1);
        let index = if self.low == 0 {
            quote!(s.0[#word] & #window)
        } else {
            let low = proc_macro2::Literal::u32_unsuffixed(self.low);
            quote!((s.0[#word] >> #low) & #window)
        };
        if let [one] = self.bits.as_slice() {
            let one: TokenStream = format!("0x{one:x}u64").parse().expect("a hexadecimal literal");
            return quote!(#one >> (#index) & 1 != 0);
        }
        let len = proc_macro2::Literal::usize_unsuffixed(self.bits.len());
        let bits = self.bits.iter().map(|&b| super::tables::hex(b));
        let note = super::notes::note(notes, |_| {
            format!(
                "The truth table of the node over the {} state bits from bit {} of word {}: bit i says whether \
                 it holds when they read i.",
                self.width, self.low, self.word
            )
        });
        quote!({
            #note
            const TABLE: [u64; #len] = [#(#bits),*];
            let i = #index;
            TABLE[(i >> 6) as usize] >> (i & 63) & 1 != 0
        })
    }
}

impl Emitter<'_> {
    /// The truth table of a node with no families whose rules read only base facts (through
    /// nodes that are conjunctions of them), when they fit one (see [`TruthTable::of`]).
    pub(crate) fn truth_table(&self, n: u32) -> Option<TruthTable> {
        if self.families.get(n as usize).is_some_and(|f| !f.families.is_empty()) || self.cycle_of[n as usize].is_some()
        {
            return None;
        }
        let rules = &self.ground.nodes[n as usize].rules;
        let flat: Vec<Vec<Lit>> =
            rules.iter().map(|rule| super::families::flatten(rule, &self.flat)).collect::<Option<_>>()?;
        TruthTable::of(&flat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(b: u32, positive: bool) -> Lit {
        Lit { prop: Prop::Base(b), positive }
    }

    #[test]
    fn the_table_holds_exactly_where_some_rule_does() {
        // Bits 70..73 of word 1: (70 ∧ 71 ∧ ¬72) ∨ (72 ∧ 73 ∧ 71).
        let rules =
            vec![vec![lit(70, true), lit(71, true), lit(72, false)], vec![lit(72, true), lit(73, true), lit(71, true)]];
        let table = TruthTable::of(&rules).expect("a table");
        assert_eq!((table.word, table.low, table.width), (1, 6, 4));
        for i in 0..16u64 {
            let bit = |k: u32| i >> (k - 70) & 1 == 1;
            let expected = (bit(70) && bit(71) && !bit(72)) || (bit(72) && bit(73) && bit(71));
            assert_eq!(table.bits[0] >> i & 1 == 1, expected, "window {i:04b}");
        }
    }

    #[test]
    fn wide_split_or_small_nodes_keep_their_rules() {
        let wide =
            vec![vec![lit(0, true), lit(5, true), lit(6, true)], vec![lit(10, true), lit(1, true), lit(2, true)]];
        assert_eq!(TruthTable::of(&wide), None, "eleven bits");
        let split =
            vec![vec![lit(62, true), lit(63, true), lit(61, true)], vec![lit(64, true), lit(63, true), lit(62, true)]];
        assert_eq!(TruthTable::of(&split), None, "two words");
        let small = vec![vec![lit(0, true), lit(1, true)], vec![lit(2, true)]];
        assert_eq!(TruthTable::of(&small), None, "three literals");
    }
}
