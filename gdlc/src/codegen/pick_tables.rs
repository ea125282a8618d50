//! Drawing a legal move from a small word by table: when a role's legal moves fit one word in
//! which few bits can ever be set (ticTacToe's nine cells and `noop`, connectFour's seven
//! columns), a multiplication by a constant found at compile time hashes every set of those
//! bits to its own row of a table that lists the set's bits. A draw is then a multiplication,
//! a shift and a lookup, where counting and selecting bits without a popcount instruction
//! costs some forty operations.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

/// The most candidate bits a table is made for.
const MAX_BITS: u32 = 10;

/// The most bytes a table may take (it should stay in the first-level cache).
const MAX_TABLE_BYTES: usize = 16 * 1024;

/// Multipliers tried for each index width.
const TRIES: usize = 20_000;

/// A perfect hash of the subsets of `mask`: `(subset * magic) >> (64 - width)` differs for
/// every two subsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PickHash {
    pub mask: u64,
    pub magic: u64,
    pub width: u32,
}

impl PickHash {
    /// A hash of the subsets of `mask` with as narrow an index as found, or `None` when
    /// `mask` has too many bits or no multiplier is found. The search is deterministic, so the
    /// generated code is the same on every run.
    pub(super) fn find(mask: u64) -> Option<PickHash> {
        let bits = mask.count_ones();
        if !(2..=MAX_BITS).contains(&bits) {
            return None;
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ mask;
        let mut random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut seen = vec![0u32; 1 << (bits + 2)];
        let mut stamp = 0u32;
        for width in bits..=bits + 2 {
            if (1usize << width) * (bits as usize + 1) > MAX_TABLE_BYTES {
                break;
            }
            for _ in 0..TRIES {
                let magic = random() & random() & random();
                stamp += 1;
                if injective(mask, magic, width, &mut seen, stamp) {
                    return Some(PickHash { mask, magic, width });
                }
            }
        }
        None
    }

    #[cfg(test)]
    fn index(&self, subset: u64) -> usize {
        (subset.wrapping_mul(self.magic) >> (64 - self.width)) as usize
    }

    /// The static table `name`, which `gdl_runtime::bits::listed_bits_table` fills when the
    /// generated code is compiled: for every index, the number of bits of the subset hashed to
    /// it and those bits from the lowest.
    pub(super) fn table(&self, name: &Ident) -> TokenStream {
        let rows = Literal::usize_unsuffixed(1 << self.width);
        let cols = Literal::usize_unsuffixed(self.mask.count_ones() as usize + 1);
        let (mask, magic) = (super::tables::hex(self.mask), super::tables::hex(self.magic));
        let width = Literal::u32_unsuffixed(self.width);
        quote! {
            /// For every hash of a set of the bits this role's legal moves may take, the number
            /// of bits in the set and the bits, from the lowest.
            static #name: [[u8; #cols]; #rows] = ::gdl_runtime::bits::listed_bits_table(#mask, #magic, #width);
        }
    }

    /// The expression of the row of `table` that lists the bits of `word`.
    pub(super) fn row(&self, table: &Ident, word: TokenStream) -> TokenStream {
        let magic = super::tables::hex(self.magic);
        let shift = Literal::u32_unsuffixed(64 - self.width);
        quote!(&#table[((#word).wrapping_mul(#magic) >> #shift) as usize])
    }
}

/// The name of role `role`'s table.
fn table_name(role: usize) -> Ident {
    format_ident!("PICK_{}", role)
}

/// The expression that draws role `role`'s move with `rng`, the index of a set bit of `parts`,
/// whose words have the bits `used` in use (`None` returned when no bit is set), and the static
/// table it reads: by [`PickHash`] when `parts` is one word whose sets hash to a table, else by
/// counting bits.
pub(super) fn draw(role: usize, used: &[u64]) -> (TokenStream, Option<TokenStream>) {
    let hash = match used {
        [used] => PickHash::find(*used),
        _ => None,
    };
    match hash {
        Some(hash) => {
            let table = table_name(role);
            let row = hash.row(&table, quote!(parts[0]));
            let draw = quote! {
                match ::gdl_runtime::bits::pick_listed(#row, rng) {
                    Some(b) => b as usize,
                    None => return false,
                }
            };
            (draw, Some(hash.table(&table)))
        }
        None => {
            let draw = quote! {
                match ::gdl_runtime::bits::pick(&parts, rng) {
                    Some((p, b)) => 64 * p + b as usize,
                    None => return false,
                }
            };
            (draw, None)
        }
    }
}

/// Whether `magic` hashes the subsets of `mask` to different indices of `width` bits.
fn injective(mask: u64, magic: u64, width: u32, seen: &mut [u32], stamp: u32) -> bool {
    let mut subset = 0u64;
    loop {
        let index = (subset.wrapping_mul(magic) >> (64 - width)) as usize;
        if seen[index] == stamp {
            return false;
        }
        seen[index] = stamp;
        subset = subset.wrapping_sub(mask) & mask;
        if subset == 0 {
            return true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_found_and_perfect_for_spread_masks() {
        // ticTacToe's nine cells and `noop`, and connectFour's seven columns (every sixth bit)
        // and `noop`.
        for mask in [0x3ffu64, 0x820820820820 | 1] {
            let hash = PickHash::find(mask).expect("a hash");
            let mut indices = std::collections::BTreeSet::new();
            let mut subset = 0u64;
            loop {
                assert!(indices.insert(hash.index(subset)), "{mask:#x}: two subsets share an index");
                subset = subset.wrapping_sub(mask) & mask;
                if subset == 0 {
                    break;
                }
            }
            assert_eq!(indices.len(), 1 << mask.count_ones());
            assert!(hash.width <= mask.count_ones() + 2);
        }
    }

    #[test]
    fn too_many_bits_or_too_few_get_no_hash() {
        assert_eq!(PickHash::find(0xfff), None);
        assert_eq!(PickHash::find(0x10), None);
    }

    #[test]
    fn the_search_is_deterministic() {
        assert_eq!(PickHash::find(0x1ff), PickHash::find(0x1ff));
    }
}
