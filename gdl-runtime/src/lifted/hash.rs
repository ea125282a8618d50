//! A fast hash for the lifted form's tables of small integer keys (term ids and facts), where
//! the standard library's keyed hash would cost more than the lookups it serves.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A hash map keyed with [`WordHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// A hash set keyed with [`WordHasher`].
pub type FastSet<K> = HashSet<K, BuildHasherDefault<WordHasher>>;

/// The multiplier of each step: an odd constant with its bits spread evenly.
const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// Hashes word by word: each word is mixed in with a rotation, an exclusive or and a
/// multiplication. Not resistant to chosen keys; the keys here are the game's own terms.
#[derive(Clone, Copy, Debug, Default)]
pub struct WordHasher {
    hash: u64,
}

impl WordHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for WordHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    /// The hash, rotated so that its low bits, which pick a bucket, are the product's high
    /// bits: a product's low bits depend only on the low bits of what was mixed in, so the
    /// terms `(list a ?rest)` for every `?rest` (ids differing in a word's high half) would
    /// otherwise all land in one bucket.
    #[inline]
    fn finish(&self) -> u64 {
        self.hash.rotate_left(26)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash_of(value: &impl Hash) -> u64 {
        BuildHasherDefault::<WordHasher>::default().hash_one(value)
    }

    #[test]
    fn words_differing_only_in_their_high_half_hash_to_different_buckets() {
        // A term (f 3 ?x) for 1,000 values of ?x: the arguments' bytes make one word, ?x its
        // high half; a table of 4,096 buckets picks one by the hash's low 12 bits.
        let buckets: FastSet<u64> = (0..1000u32).map(|x| hash_of(&(5u32, [3u32, x])) & 0xfff).collect();
        // Random hashes would fill about 887; without the rotation every key fills one.
        assert!(buckets.len() > 700, "{} buckets of 1000 keys", buckets.len());
    }

    #[test]
    fn different_facts_hash_apart_and_equal_ones_alike() {
        let facts: Vec<Box<[u32]>> = vec![Box::new([1, 2]), Box::new([2, 1]), Box::new([1, 2, 0]), Box::new([0, 1, 2])];
        let hashes: FastSet<u64> = facts.iter().map(hash_of).collect();
        assert_eq!(hashes.len(), facts.len());
        assert_eq!(hash_of(&facts[0]), hash_of(&Box::<[u32]>::from([1, 2])));
    }
}
