//! A small, fast, seedable random number generator (xoshiro256++ seeded by SplitMix64).

/// A xoshiro256++ generator: 256 bits of state, fast, statistically sound and not
/// cryptographic. Random playouts draw their moves from it. It computes the same numbers on every
/// platform, so that a seed reproduces a playout. A clone goes on with the same numbers as the
/// original.
///
/// # Examples
///
/// ```
/// use gdl_runtime::rng::Rng;
///
/// let mut rng = Rng::seeded(2024);
/// // A die: `below(6)` is uniform in 0..6.
/// let roll = 1 + rng.below(6);
/// assert!((1..=6).contains(&roll));
///
/// // A seed gives the same numbers every time, and a clone continues the sequence.
/// let (mut a, mut b) = (Rng::seeded(9), Rng::seeded(9));
/// assert!((0..100).all(|_| a.next_u64() == b.next_u64()));
/// let mut c = a.clone();
/// assert_eq!(a.below(1000), c.below(1000));
///
/// // Nearby seeds, zero included, start on unrelated numbers.
/// assert_ne!(Rng::seeded(0).next_u64(), Rng::seeded(1).next_u64());
/// ```
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator whose state SplitMix64 derives from `seed`; every seed, zero included,
    /// gives a well-mixed state.
    pub fn seeded(seed: u64) -> Rng {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Rng { s: [next(), next(), next(), next()] }
    }

    /// The next 64 uniformly random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A uniform number in `0..n` (`n > 0`), by Lemire's multiply-shift of the top 32 bits of
    /// one [`Rng::next_u64`] (bias below 2^-32 for the move counts of games). It draws one
    /// number whatever `n` is; `n` of 0 gives 0.
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() >> 32).wrapping_mul(n as u64) >> 32) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = Rng::seeded(7);
        let mut seen = [0usize; 5];
        for _ in 0..10_000 {
            seen[rng.below(5)] += 1;
        }
        assert!(seen.iter().all(|&c| c > 1_500), "{seen:?}");
    }

    #[test]
    fn same_seed_same_sequence() {
        let (mut a, mut b) = (Rng::seeded(1), Rng::seeded(1));
        assert!((0..100).all(|_| a.next_u64() == b.next_u64()));
    }
}
