//! The real-time half of an rtGDL game compiled by gdlc: the generated module keeps a plain
//! bit-packed state and straight-line `next`, plus an array of remaining lifetimes, one per
//! timed fact, beside the bits; [`Tables`] says which bits are the timed facts, which bit says
//! that a fact just expired, and which bits of `next`'s result are lifetime markers (a rule
//! that derived a fact, with the lifetime it gives: a constant, or the remaining lifetime of
//! another fact). These functions age a state, turn `next`'s markers into lifetimes, and read
//! states back as text.

use super::Time;

/// Where a derived fact's lifetime comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A lifetime written in the rule: a positive number or `infinity`.
    Const(Time),
    /// The remaining lifetime of timed fact `k` (the `?t` of a `(true ?t G)` in the rule).
    Copy(u32),
}

/// The bit layout of a compiled rtGDL game.
#[derive(Debug)]
pub struct Tables {
    /// For every timed fact `k`, its bit in the state.
    pub facts: &'static [u32],
    /// For every timed fact `k`, the bit of `(expired F)`.
    pub expired: &'static [u32],
    /// Every lifetime marker: its bit in `next`'s result, the timed fact it gives a lifetime
    /// to, and where the lifetime comes from.
    pub markers: &'static [(u32, u32, Source)],
}

fn has(bits: &[u64], i: u32) -> bool {
    bits[i as usize / 64] >> (i % 64) & 1 != 0
}

fn set(bits: &mut [u64], i: u32, value: bool) {
    let mask = 1u64 << (i % 64);
    if value {
        bits[i as usize / 64] |= mask;
    } else {
        bits[i as usize / 64] &= !mask;
    }
}

impl Tables {
    /// Ages a state by `elapsed`: the expired-bits of the previous event are cleared, a fact
    /// whose lifetime is at most `elapsed` leaves the state and sets its expired-bit, and every
    /// other fact's lifetime shrinks by `elapsed` (infinity stays).
    pub fn elapse(&self, bits: &mut [u64], life: &mut [Time], elapsed: Time) {
        for (k, (&fact, &expired)) in self.facts.iter().zip(self.expired).enumerate() {
            set(bits, expired, false);
            if !has(bits, fact) {
                continue;
            }
            if life[k] <= elapsed {
                set(bits, fact, false);
                set(bits, expired, true);
                life[k] = Time::ZERO;
            } else {
                life[k] = life[k].minus(elapsed);
            }
        }
    }

    /// Turns the lifetime markers of `next`'s result into lifetimes (the longest when a fact
    /// is derived several ways) and clears them; the expired-bits become those of the aged
    /// state `aged_bits`, the facts that expired in this event.
    pub fn settle(&self, aged_bits: &[u64], aged_life: &[Time], next_bits: &mut [u64], next_life: &mut [Time]) {
        next_life.iter_mut().for_each(|l| *l = Time::ZERO);
        for &(marker, k, source) in self.markers {
            if has(next_bits, marker) {
                let lifetime = match source {
                    Source::Const(t) => t,
                    Source::Copy(j) => aged_life[j as usize],
                };
                next_life[k as usize] = next_life[k as usize].max(lifetime);
                set(next_bits, marker, false);
            }
        }
        for (k, (&fact, &expired)) in self.facts.iter().zip(self.expired).enumerate() {
            if !has(next_bits, fact) {
                next_life[k] = Time::ZERO;
            }
            set(next_bits, expired, has(aged_bits, expired));
        }
    }

    /// The initial state's lifetimes from the markers of `init` (all constants), which it clears.
    pub fn initial(&self, bits: &mut [u64], life: &mut [Time]) {
        let aged = bits.to_vec();
        let aged_life = vec![Time::ZERO; life.len()];
        self.settle(&aged, &aged_life, bits, life);
    }

    /// The smallest finite lifetime of the facts of a state.
    pub fn next_expiry(&self, bits: &[u64], life: &[Time]) -> Option<Time> {
        self.facts
            .iter()
            .enumerate()
            .filter(|&(k, &fact)| has(bits, fact) && !life[k].is_infinite())
            .map(|(k, _)| life[k])
            .min()
    }

    /// The timed facts of a state with their lifetimes; `names` are the state bits' texts.
    pub fn timed_facts(&self, names: &[&str], bits: &[u64], life: &[Time]) -> Vec<(String, Time)> {
        let mut facts: Vec<(String, Time)> = self
            .facts
            .iter()
            .enumerate()
            .filter(|&(_, &fact)| has(bits, fact))
            .map(|(k, &fact)| (names[fact as usize].to_string(), life[k]))
            .collect();
        facts.sort();
        facts
    }

    /// The facts whose expired-bit is set.
    pub fn expired_facts(&self, names: &[&str], bits: &[u64]) -> Vec<String> {
        let mut facts: Vec<String> = self
            .facts
            .iter()
            .zip(self.expired)
            .filter(|&(_, &expired)| has(bits, expired))
            .map(|(&fact, _)| names[fact as usize].to_string())
            .collect();
        facts.sort();
        facts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bits: 0 timer, 1 (expired timer), 2 marker (timer, copy of timer), 3 marker (timer, 1.0).
    static TABLES: Tables = Tables {
        facts: &[0],
        expired: &[1],
        markers: &[(2, 0, Source::Copy(0)), (3, 0, Source::Const(Time::from_nanos(1_000_000_000)))],
    };

    #[test]
    fn aging_expires_exactly_at_the_lifetime_and_markers_give_the_longest() {
        let mut bits = [0b1001u64];
        let mut life = [Time::ZERO];
        TABLES.initial(&mut bits, &mut life);
        assert_eq!((bits, life), ([0b1], [Time::parse("1.0").unwrap()]));
        assert_eq!(TABLES.next_expiry(&bits, &life), Some(Time::parse("1.0").unwrap()));

        TABLES.elapse(&mut bits, &mut life, Time::parse("0.4").unwrap());
        assert_eq!((bits, life), ([0b1], [Time::parse("0.6").unwrap()]));
        // Both markers fired: the copy (0.6) and the constant (1.0); the longest counts.
        let mut next = [0b1101u64];
        let mut next_life = [Time::ZERO];
        TABLES.settle(&bits, &life, &mut next, &mut next_life);
        assert_eq!((next, next_life), ([0b1], [Time::parse("1.0").unwrap()]));

        TABLES.elapse(&mut next, &mut next_life, Time::parse("1.0").unwrap());
        assert_eq!(next, [0b10], "the timer left and its expired-bit is set");
        assert_eq!(TABLES.expired_facts(&["timer", "(expired timer)"], &next), vec!["timer".to_string()]);
        assert_eq!(TABLES.next_expiry(&next, &next_life), None);
    }
}
