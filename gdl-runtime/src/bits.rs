//! Bit sets of move indices, as generated `random_step`s keep a role's legal moves.

/// The index of the `k`-th set bit (from 0, lowest first) of the bit set `words`. `k` must be
/// less than the number of set bits.
#[inline]
pub fn select(words: &[u64], mut k: u32) -> u32 {
    for (i, &word) in words.iter().enumerate() {
        let ones = word.count_ones();
        if k < ones {
            let mut word = word;
            for _ in 0..k {
                word &= word - 1;
            }
            return i as u32 * 64 + word.trailing_zeros();
        }
        k -= ones;
    }
    panic!("select: fewer set bits than asked for")
}

#[cfg(test)]
mod tests {
    use super::select;

    #[test]
    fn selects_set_bits_in_order_across_words() {
        let words = [0b1010u64, 0, 1 << 63 | 1];
        let found: Vec<u32> = (0..4).map(|k| select(&words, k)).collect();
        assert_eq!(found, vec![1, 3, 128, 191]);
    }
}
