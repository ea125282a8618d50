//! Bit sets of candidate moves, as generated `random_step`s keep a role's legal moves, and the
//! uniform draw among their set bits.

use crate::rng::Rng;

/// A set bit drawn uniformly from the words `parts`, as (word, bit): `None` when no bit is set;
/// the only one, without drawing, when exactly one is; else the `rng.below(count)`-th of them,
/// counting the words in order and each word from its lowest bit. That is the draw of
/// `gdl_runtime`'s default `Game::random_step` over a list of the set bits in that order.
///
/// Always inlined: the caller's words then stay in registers. Called, it read them back from
/// memory as vectors right after they were stored as words, and the failed store forwarding
/// cost pentago's playouts a third of their time.
#[inline(always)]
pub fn pick<const N: usize>(parts: &[u64; N], rng: &mut Rng) -> Option<(usize, u32)> {
    // One word, as most games' roles have: its count also serves the draw, and LLVM computes
    // it once, where the general loops below made it count the word twice.
    if N == 1 {
        let word = parts[0];
        if word & word.wrapping_sub(1) == 0 {
            return (word != 0).then(|| (0, word.trailing_zeros()));
        }
        let sums = byte_sums(word);
        let k = rng.below((sums >> 56) as usize) as u32;
        return Some((0, select_with_sums(word, sums, k)));
    }
    // A few words are tested one by one: gathering them first made reversi's two 6% slower.
    if (4..=64).contains(&N) {
        return pick_sparse(parts, rng);
    }
    // With the instruction, more words are counted without a branch: a test of each word
    // mispredicted often enough to be a twentieth of shogi_ctk's step (79 words).
    #[cfg(target_feature = "popcnt")]
    {
        pick_counted(parts, rng)
    }
    #[cfg(not(target_feature = "popcnt"))]
    {
        pick_tested(parts, rng)
    }
}

/// [`pick`] over many words without a popcount instruction.
#[cfg(any(not(target_feature = "popcnt"), test))]
#[inline(always)]
fn pick_tested<const N: usize>(parts: &[u64; N], rng: &mut Rng) -> Option<(usize, u32)> {
    // One pass over the words: no bit or one (the mover's opponent's `noop`) needs no draw (a
    // word with a bit adds 1 to `few`, a word with more than one adds 2); the running byte sums
    // that count a word's bits (and, without a popcount instruction, find the drawn bit in it)
    // are computed for the words with bits only, most of a large game's words having none.
    let mut few = 0;
    let mut single = (0, 0);
    let mut sums = [0u64; N];
    let mut total = 0;
    for (i, &word) in parts.iter().enumerate() {
        if word != 0 {
            few += 1 + u32::from(word & (word - 1) != 0);
            single = (i, word.trailing_zeros());
            sums[i] = byte_sums(word);
            total += (sums[i] >> 56) as u32;
        }
    }
    match few {
        0 => return None,
        1 => return Some(single),
        _ => {}
    }
    let mut k = rng.below(total as usize) as u32;
    for (i, (&sum, &word)) in sums.iter().zip(parts).enumerate() {
        let count = (sum >> 56) as u32;
        if k < count {
            return Some((i, select_with_sums(word, sum, k)));
        }
        k -= count;
    }
    unreachable!("the draw is below the number of set bits")
}

/// [`pick`] over 4 to 64 words: a word of which words have bits, gathered without a branch,
/// then a pass over those words only. Most of a large game's words have none, and a test of
/// each word mispredicted often enough to cost ttcc4's playouts a tenth of their time.
#[inline(always)]
fn pick_sparse<const N: usize>(parts: &[u64; N], rng: &mut Rng) -> Option<(usize, u32)> {
    let mut occupied = 0u64;
    for (i, &word) in parts.iter().enumerate() {
        occupied |= u64::from(word != 0) << i;
    }
    let mut sums = [0u64; N];
    let mut total = 0;
    let mut rest = occupied;
    while rest != 0 {
        let i = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        sums[i] = byte_sums(parts[i]);
        total += (sums[i] >> 56) as u32;
    }
    match total {
        0 => return None,
        1 => {
            let i = occupied.trailing_zeros() as usize;
            return Some((i, parts[i].trailing_zeros()));
        }
        _ => {}
    }
    let mut k = rng.below(total as usize) as u32;
    let mut rest = occupied;
    while rest != 0 {
        let i = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let count = (sums[i] >> 56) as u32;
        if k < count {
            return Some((i, select_with_sums(parts[i], sums[i], k)));
        }
        k -= count;
    }
    unreachable!("the draw is below the number of set bits")
}

/// [`pick`] over many words, with a popcount instruction: every word counted, then a pass
/// to the word of the drawn bit, four words at a time, counting them again rather than
/// keeping the counts (a buffer that had to be cleared and read back for every draw).
#[cfg(any(target_feature = "popcnt", test))]
#[inline(always)]
fn pick_counted<const N: usize>(parts: &[u64; N], rng: &mut Rng) -> Option<(usize, u32)> {
    let total: u32 = parts.iter().map(|word| word.count_ones()).sum();
    match total {
        0 => return None,
        1 => {
            let i = parts.iter().position(|&word| word != 0)?;
            return Some((i, parts[i].trailing_zeros()));
        }
        _ => {}
    }
    let mut k = rng.below(total as usize) as u32;
    let mut i = 0;
    while i + 4 <= N {
        let count = parts[i..i + 4].iter().map(|word| word.count_ones()).sum::<u32>();
        if k < count {
            break;
        }
        k -= count;
        i += 4;
    }
    for (i, &word) in parts.iter().enumerate().skip(i) {
        let count = word.count_ones();
        if k < count {
            return Some((i, select_in_word(word, k)));
        }
        k -= count;
    }
    unreachable!("the draw is below the number of set bits")
}

/// A set bit drawn uniformly from the bits `start..end` of `bits` (bit `i` of word `i / 64`),
/// as its distance from `start`: the draw of [`pick`] over those bits, for a range whose place
/// and length are known only at run time (the table form's legal moves of a role).
pub fn pick_in(bits: &[u64], start: usize, end: usize, rng: &mut Rng) -> Option<usize> {
    let words = start / 64..end.div_ceil(64);
    let in_range = |w: usize| bits[w] & span_mask(w, start, end);
    let total: u32 = words.clone().map(|w| in_range(w).count_ones()).sum();
    let mut k = match total {
        0 => return None,
        1 => 0,
        total => rng.below(total as usize) as u32,
    };
    for w in words {
        let word = in_range(w);
        let count = word.count_ones();
        if k < count {
            return Some(w * 64 + select_in_word(word, k) as usize - start);
        }
        k -= count;
    }
    None
}

/// The bits of word `w` that lie in places `start..end`.
fn span_mask(w: usize, start: usize, end: usize) -> u64 {
    let low = if w == start / 64 { !0u64 << (start % 64) } else { !0 };
    let high = if w == end / 64 { (1u64 << (end % 64)) - 1 } else { !0 };
    low & high
}

/// A set bit drawn uniformly from a word whose set bits `listed` gives, as a generated table's
/// row: their number, then the bits from the lowest. `None` when there is none; the only one,
/// without drawing, when there is one; else the `rng.below(count)`-th: the draw of [`pick`] on
/// that word.
#[inline(always)]
pub fn pick_listed(listed: &[u8], rng: &mut Rng) -> Option<u32> {
    match listed[0] {
        0 => None,
        1 => Some(u32::from(listed[1])),
        count => Some(u32::from(listed[1 + rng.below(usize::from(count))])),
    }
}

/// The table [`pick_listed`] reads for the candidate bits `mask` under the perfect hash
/// `(subset * magic) >> (64 - width)` that gdlc found for it: for every hash of a subset of
/// `mask`, the subset's number of bits and its bits from the lowest (`ROWS` is `1 << width`,
/// `COLS` one more than the bits of `mask`). Evaluated when the generated code is compiled.
pub const fn listed_bits_table<const ROWS: usize, const COLS: usize>(
    mask: u64,
    magic: u64,
    width: u32,
) -> [[u8; COLS]; ROWS] {
    let mut table = [[0u8; COLS]; ROWS];
    let mut subset = 0u64;
    loop {
        let row = (subset.wrapping_mul(magic) >> (64 - width)) as usize;
        table[row][0] = subset.count_ones() as u8;
        let (mut rest, mut k) = (subset, 1);
        while rest != 0 {
            table[row][k] = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            k += 1;
        }
        // The next subset of the mask (the carry-rippler walk), back at zero after the last.
        subset = subset.wrapping_sub(mask) & mask;
        if subset == 0 {
            return table;
        }
    }
}

/// The bits of `word` at the places `from`, moved in order to the places `to` (which has as many
/// bits): the `i`-th set bit of `from` (lowest first) goes to the `i`-th set bit of `to`, and the
/// result has no bit outside `to`. Generated node words read another group's word this way when
/// its members sit at other places in the same order (dotsAndBoxes' boxes formed, at the places
/// of their lines, are the next values of its boxes at their own bits).
#[inline(always)]
pub fn gather(word: u64, from: u64, to: u64) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        use core::arch::x86_64::{_pdep_u64, _pext_u64};
        // SAFETY: the target has BMI2, which this block is compiled only for.
        unsafe { _pdep_u64(_pext_u64(word, from), to) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        gather_bit_by_bit(word, from, to)
    }
}

/// [`gather`] without BMI2's instructions: a bit of `from` and of `to` at a time.
#[cfg(any(not(all(target_arch = "x86_64", target_feature = "bmi2")), test))]
#[inline(always)]
fn gather_bit_by_bit(word: u64, mut from: u64, mut to: u64) -> u64 {
    let mut out = 0u64;
    while from != 0 && to != 0 {
        if word & from & from.wrapping_neg() != 0 {
            out |= to & to.wrapping_neg();
        }
        from &= from - 1;
        to &= to - 1;
    }
    out
}

/// The position of the `k`-th set bit (from 0, lowest first) of `word`, which must have more
/// than `k` set bits.
#[inline]
pub fn select_in_word(word: u64, k: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: the target has BMI2, which this block is compiled only for.
        unsafe { core::arch::x86_64::_pdep_u64(1 << k, word).trailing_zeros() }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        select_by_sums(word, running_byte_counts(word), k)
    }
}

// The portable select below is not called on a target with BMI2 (a game built for the machine
// it runs on), where `select_in_word` is one instruction.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), allow(dead_code))]
const ONES: u64 = 0x0101_0101_0101_0101;
#[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), allow(dead_code))]
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The running bit counts of `word`'s bytes: byte `i` is the number of set bits in bytes `0..=i`
/// (at most 64, so no byte carries), and so the top byte is the word's count.
#[inline(always)]
fn byte_sums(word: u64) -> u64 {
    #[cfg(target_feature = "popcnt")]
    {
        // With the instruction, only the count is needed: `select_with_sums` reads no other byte.
        u64::from(word.count_ones()) << 56
    }
    #[cfg(not(target_feature = "popcnt"))]
    {
        running_byte_counts(word)
    }
}

/// The running bit counts of `word`'s bytes, computed a byte at a time in parallel.
#[inline(always)]
#[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), allow(dead_code))]
fn running_byte_counts(word: u64) -> u64 {
    let mut bytes = word - ((word >> 1) & 0x5555_5555_5555_5555);
    bytes = (bytes & 0x3333_3333_3333_3333) + ((bytes >> 2) & 0x3333_3333_3333_3333);
    bytes = (bytes + (bytes >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    bytes.wrapping_mul(ONES)
}

/// `select_in_word(word, k)`, given `byte_sums(word)`.
#[inline(always)]
fn select_with_sums(word: u64, sums: u64, k: u32) -> u32 {
    #[cfg(any(target_feature = "popcnt", all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let _ = sums;
        select_in_word(word, k)
    }
    #[cfg(not(any(target_feature = "popcnt", all(target_arch = "x86_64", target_feature = "bmi2"))))]
    {
        select_by_sums(word, sums, k)
    }
}

/// The `k`-th set bit of `word` without a data-dependent branch, from its running byte sums:
/// the byte it is in (the bytes whose running sum is at most `k`, counted with a
/// multiplication), then a table for the bit within that byte.
#[inline(always)]
#[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), allow(dead_code))]
fn select_by_sums(word: u64, sums: u64, k: u32) -> u32 {
    // The high bit of byte i is set when sums[i] <= k: (0x80 + k) - sums[i] never borrows.
    let at_most_k = (((u64::from(k) * ONES) | HIGHS) - sums) & HIGHS;
    let byte = ((at_most_k >> 7).wrapping_mul(ONES) >> 56) as u32;
    let before = ((sums << 8) >> (8 * byte)) as u8 as u32;
    let bits = (word >> (8 * byte)) as u8;
    8 * byte + u32::from(SELECT_IN_BYTE[bits as usize][(k - before) as usize])
}

/// `SELECT_IN_BYTE[b][j]`: the position of the `j`-th set bit of the byte `b`.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), allow(dead_code))]
static SELECT_IN_BYTE: [[u8; 8]; 256] = {
    let mut table = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let (mut j, mut i) = (0, 0);
        while i < 8 {
            if b >> i & 1 == 1 {
                table[b][j] = i as u8;
                j += 1;
            }
            i += 1;
        }
        b += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    fn full_sums(word: u64) -> u64 {
        (0..8).map(|i| u64::from((word & (u64::MAX >> (56 - 8 * i))).count_ones()) << (8 * i)).sum()
    }

    fn naive_select(word: u64, k: u32) -> u32 {
        (0..64).filter(|i| word >> i & 1 == 1).nth(k as usize).expect("enough set bits")
    }

    #[test]
    fn select_in_word_finds_every_set_bit_of_random_words() {
        let mut rng = Rng::seeded(5);
        let mut words = vec![u64::MAX, 1, 1 << 63, 0x8000_0000_0000_0001, 0x00ff_0000_0000_ff00];
        words.extend((0..2_000).map(|i| {
            // Sparse and dense words alike.
            let (a, b) = (rng.next_u64(), rng.next_u64());
            if i % 2 == 0 {
                a & b
            } else {
                a | b
            }
        }));
        for word in words.into_iter().filter(|&w| w != 0) {
            assert_eq!(running_byte_counts(word), full_sums(word), "{word:#x}");
            for k in 0..word.count_ones() {
                assert_eq!(select_by_sums(word, running_byte_counts(word), k), naive_select(word, k), "{word:#x} {k}");
                assert_eq!(select_in_word(word, k), naive_select(word, k), "{word:#x} {k}");
            }
        }
    }

    #[test]
    fn pick_listed_draws_what_pick_draws_from_a_hashed_table() {
        // connectFour's seven columns and `noop`, with a multiplier gdlc found for them.
        let (mask, magic, width) = (0x820820820821u64, 0x210002030100208u64, 10);
        static TABLE: [[u8; 10]; 1024] = listed_bits_table(0x820820820821, 0x210002030100208, 10);
        let mut subset = 0u64;
        loop {
            let row = &TABLE[(subset.wrapping_mul(magic) >> (64 - width)) as usize];
            let (mut a, mut b) = (Rng::seeded(subset), Rng::seeded(subset));
            for _ in 0..4 {
                let listed = pick_listed(row, &mut a);
                assert_eq!(listed.map(|bit| (0, bit)), pick(&[subset], &mut b), "{subset:#x}");
            }
            subset = subset.wrapping_sub(mask) & mask;
            if subset == 0 {
                break;
            }
        }
    }

    #[test]
    fn pick_draws_like_an_index_into_the_list_of_set_bits() {
        let parts = [0b1010u64, 0, 1 << 63 | 1];
        let listed: Vec<(usize, u32)> = vec![(0, 1), (0, 3), (2, 0), (2, 63)];
        let (mut a, mut b) = (Rng::seeded(9), Rng::seeded(9));
        for _ in 0..200 {
            let drawn = pick(&parts, &mut a);
            assert_eq!(drawn, Some(listed[b.below(listed.len())]));
        }
    }

    #[test]
    fn pick_in_draws_like_an_index_into_the_list_of_the_set_bits_of_its_range() {
        let mut rng = Rng::seeded(3);
        let mut bits: Vec<u64> = (0..5).map(|_| rng.next_u64() & rng.next_u64()).collect();
        // Bit 133 alone in 133..134: one move, drawn without a draw.
        bits[2] |= 1 << 5;
        for (start, end) in [(0, 320), (3, 64), (64, 128), (70, 200), (127, 129), (5, 5), (133, 134), (250, 320)] {
            let listed: Vec<usize> =
                (start..end).filter(|&i| bits[i / 64] >> (i % 64) & 1 == 1).map(|i| i - start).collect();
            let (mut a, mut b) = (Rng::seeded(11), Rng::seeded(11));
            for _ in 0..50 {
                let expected = match listed.len() {
                    0 => None,
                    1 => Some(listed[0]),
                    n => Some(listed[b.below(n)]),
                };
                assert_eq!(pick_in(&bits, start, end, &mut a), expected, "bits {start}..{end}");
            }
            assert_eq!(a.next_u64(), b.next_u64(), "bits {start}..{end}: as many draws as the list's");
        }
    }

    #[test]
    fn pick_over_more_than_64_words_draws_as_over_fewer() {
        // Past 64 words (and below 4) `pick` tests each word; between, it gathers the words
        // with bits first.
        let mut wide = [0u64; 70];
        let mut narrow = [0u64; 64];
        for (i, bits) in [(3, 0b1010u64), (40, 1 << 63), (63, 0b111)] {
            wide[i] = bits;
            narrow[i] = bits;
        }
        let (mut a, mut b) = (Rng::seeded(5), Rng::seeded(5));
        for _ in 0..200 {
            assert_eq!(pick(&wide, &mut a), pick(&narrow, &mut b));
        }
        let mut one = [0u64; 70];
        one[66] = 1 << 7;
        assert_eq!(pick(&one, &mut a), Some((66, 7)));
    }

    /// `pick_counted` against `pick_tested` on `N` words: from no bit to many, in a few of the
    /// words or in all of them, and now and then a single bit.
    fn pick_counted_draws_as_pick_tested_on<const N: usize>() {
        let mut rng = Rng::seeded(11);
        for round in 0..500 {
            let mut parts = [0u64; N];
            for word in parts.iter_mut() {
                if rng.below(8) < round % 9 {
                    *word = rng.next_u64() & rng.next_u64();
                }
            }
            if round % 50 == 1 {
                parts = [0; N];
                parts[(round * 7) % N] = 1 << (round % 64);
            }
            let (mut a, mut b) = (Rng::seeded(round as u64), Rng::seeded(round as u64));
            assert_eq!(pick_counted(&parts, &mut a), pick_tested(&parts, &mut b), "{N} words, round {round}");
            assert_eq!(a.next_u64(), b.next_u64(), "{N} words, round {round}: as many draws");
        }
    }

    #[test]
    fn pick_counted_draws_as_pick_tested() {
        // 79 words (shogi_ctk's first count), 117 (its role's now), more than 256.
        pick_counted_draws_as_pick_tested_on::<79>();
        pick_counted_draws_as_pick_tested_on::<117>();
        pick_counted_draws_as_pick_tested_on::<300>();
        pick_counted_draws_as_pick_tested_on::<600>();
    }

    /// `gather`'s instructions, for a test on a machine that has them whatever the build's target.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi2")]
    // SAFETY: callers make sure the machine has BMI2.
    unsafe fn gather_with_bmi2(word: u64, from: u64, to: u64) -> u64 {
        use core::arch::x86_64::{_pdep_u64, _pext_u64};
        _pdep_u64(_pext_u64(word, from), to)
    }

    #[test]
    fn gather_moves_the_bits_at_from_in_order_to_the_places_of_to() {
        let mut rng = Rng::seeded(17);
        for _ in 0..2_000 {
            let (word, from) = (rng.next_u64(), rng.next_u64() & rng.next_u64());
            // As many places in `to`, anywhere.
            let mut to = 0u64;
            while to.count_ones() < from.count_ones() {
                to |= 1 << rng.below(64);
            }
            let mut expected = 0u64;
            let places_to: Vec<u32> = (0..64).filter(|i| to >> i & 1 == 1).collect();
            for (i, place) in (0..64).filter(|i| from >> i & 1 == 1).enumerate() {
                expected |= (word >> place & 1) << places_to[i];
            }
            assert_eq!(gather(word, from, to), expected, "{word:#x} {from:#x} {to:#x}");
            assert_eq!(gather_bit_by_bit(word, from, to), expected, "{word:#x} {from:#x} {to:#x}");
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("bmi2") {
                // SAFETY: the machine has BMI2.
                assert_eq!(unsafe { gather_with_bmi2(word, from, to) }, expected, "{word:#x} {from:#x} {to:#x}");
            }
        }
        assert_eq!(gather(0b1010, 0b1110, 0b111 << 60), 0b101 << 60);
    }

    #[test]
    fn pick_does_not_draw_for_one_or_no_bit() {
        let mut rng = Rng::seeded(3);
        let before = rng.clone().next_u64();
        assert_eq!(pick(&[0u64, 1 << 40], &mut rng), Some((1, 40)));
        assert_eq!(pick(&[0u64; 3], &mut rng), None);
        assert_eq!(rng.next_u64(), before);
    }
}
