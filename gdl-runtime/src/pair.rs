//! Two state words tested as one: the generated line tests of a relation whose facts fill two
//! words (pentago's red and black boards) shift and mask both in one SSE2 register, as the
//! baseline x86-64 target always has, and as two plain words elsewhere.

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_movemask_epi8, _mm_or_si128, _mm_set_epi64x, _mm_setzero_si128,
    _mm_srli_epi64,
};

/// Two words, lane 0 and lane 1, under the same shifts and masks.
#[derive(Clone, Copy, Debug)]
pub struct Pair(#[cfg(target_arch = "x86_64")] __m128i, #[cfg(not(target_arch = "x86_64"))] [u64; 2]);

impl Pair {
    /// The pair of `low` (lane 0) and `high` (lane 1).
    #[inline(always)]
    pub fn new(low: u64, high: u64) -> Pair {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: SSE2 is part of every x86-64 target.
            Pair(unsafe { _mm_set_epi64x(high as i64, low as i64) })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Pair([low, high])
        }
    }

    /// Each lane shifted right by `BY` bits (below 64).
    #[inline(always)]
    pub fn shr<const BY: i32>(self) -> Pair {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: SSE2 is part of every x86-64 target.
            Pair(unsafe { _mm_srli_epi64::<BY>(self.0) })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Pair(self.0.map(|word| word >> BY))
        }
    }

    /// Each lane `&` the same lane of `other`.
    #[inline(always)]
    pub fn and(self, other: Pair) -> Pair {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: SSE2 is part of every x86-64 target.
            Pair(unsafe { _mm_and_si128(self.0, other.0) })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Pair([self.0[0] & other.0[0], self.0[1] & other.0[1]])
        }
    }

    /// Each lane `|` the same lane of `other`.
    #[inline(always)]
    pub fn or(self, other: Pair) -> Pair {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: SSE2 is part of every x86-64 target.
            Pair(unsafe { _mm_or_si128(self.0, other.0) })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Pair([self.0[0] | other.0[0], self.0[1] | other.0[1]])
        }
    }

    /// Whether a bit is set in either lane.
    #[inline(always)]
    pub fn any(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(self.0, _mm_setzero_si128())) != 0xffff }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.0[0] | self.0[1] != 0
        }
    }

    /// The two lanes, low first.
    #[inline(always)]
    pub fn lanes(self) -> [u64; 2] {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `__m128i` and `[u64; 2]` are both 16 plain bytes, and lane 0 is the low one.
            unsafe { core::mem::transmute::<__m128i, [u64; 2]>(self.0) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn lanes_shift_and_mask_like_two_words() {
        let mut rng = Rng::seeded(11);
        for _ in 0..1_000 {
            let (a, b, m, n) = (rng.next_u64(), rng.next_u64(), rng.next_u64(), rng.next_u64());
            let pair = Pair::new(a, b);
            assert_eq!(pair.lanes(), [a, b]);
            assert_eq!(pair.shr::<7>().lanes(), [a >> 7, b >> 7]);
            assert_eq!(pair.shr::<63>().lanes(), [a >> 63, b >> 63]);
            assert_eq!(pair.and(Pair::new(m, n)).lanes(), [a & m, b & n]);
            assert_eq!(pair.or(Pair::new(m, n)).lanes(), [a | m, b | n]);
        }
    }

    #[test]
    fn any_sees_a_bit_in_either_lane() {
        assert!(!Pair::new(0, 0).any());
        for bit in 0..64 {
            assert!(Pair::new(1 << bit, 0).any());
            assert!(Pair::new(0, 1 << bit).any());
        }
    }
}
