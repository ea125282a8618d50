//! A word's templates written with fewer operations: a template whose literals another's
//! include is dropped at the places that other covers, templates whose words are all shifted
//! by one distance are shifted once together, and a literal or mask that many templates share
//! is taken out of them; among templates of several shifts, the literal most of them share is
//! taken out first, so that the rest may have one shift. skirmish's "a piece of this side
//! beside the cell" reads the same two shifted boards in tens of templates.

use super::{Template, WordLit};
use std::collections::BTreeMap;

/// A factor of a term: a literal's word, or a mask of places.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Factor {
    Lit(WordLit),
    Mask(u64),
}

/// An expression over words, as [`factored`] writes a word's templates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum WordExpr {
    /// Every bit set.
    Ones,
    Factor(Factor),
    And(Vec<WordExpr>),
    Or(Vec<WordExpr>),
    /// The expression shifted right by the amount (left when negative).
    Shifted(Box<WordExpr>, i32),
}

/// The most terms of one shift among which shared factors are looked for: each choice counts
/// the factors of every term.
const FACTOR_MAX_TERMS: usize = 4096;

/// The `|` of `templates`, each the `&` of its mask and its literals, with the same value at
/// every bit, in fewer operations.
pub(super) fn factored(templates: &[&Template]) -> WordExpr {
    of_terms(absorbed(templates))
}

/// The `|` of the terms (each a mask and literals): those of one shift shifted once and
/// factored together, the others by the literals they share.
fn of_terms(terms: Vec<(u64, Vec<WordLit>)>) -> WordExpr {
    let mut by_shift: BTreeMap<i32, Vec<Vec<Factor>>> = BTreeMap::new();
    let mut mixed = Vec::new();
    for (mask, lits) in terms {
        match unshifted(mask, &lits) {
            Some((shift, factors)) => by_shift.entry(shift).or_default().push(factors),
            None => mixed.push((mask, lits)),
        }
    }
    let mut parts: Vec<WordExpr> = Vec::new();
    for (shift, terms) in by_shift {
        let inner = match terms.len() > FACTOR_MAX_TERMS {
            true => or(terms.into_iter().map(and_of).collect()),
            false => factor(terms),
        };
        parts.push(match (shift, inner) {
            (_, WordExpr::Or(empty)) if empty.is_empty() => continue,
            (0, inner) => inner,
            (shift, inner) => WordExpr::Shifted(Box::new(inner), shift),
        });
    }
    parts.push(of_mixed(mixed));
    or(parts)
}

/// The `|` of terms of several shifts each: the literal most of them share taken out, so that
/// what is left of them may have one shift (a chess piece's move from its cell, `x >> 10`, to
/// a cell it does not hold, `!own`, unshifted, in every term: `!own & (... >> 10)`).
fn of_mixed(mixed: Vec<(u64, Vec<WordLit>)>) -> WordExpr {
    let shared = match mixed.len() <= FACTOR_MAX_TERMS {
        true => most_shared(mixed.iter().flat_map(|(_, lits)| lits), |lit| !matches!(lit, WordLit::Fixed(_))),
        false => None,
    };
    let Some(shared) = shared else {
        return or(mixed
            .into_iter()
            .map(|(mask, lits)| and_of(with_mask(mask, lits.into_iter().map(Factor::Lit).collect())))
            .collect());
    };
    let (mut with, without): (Vec<_>, Vec<_>) = mixed.into_iter().partition(|(_, lits)| lits.contains(&shared));
    with.iter_mut().for_each(|(_, lits)| lits.retain(|&lit| lit != shared));
    let taken = and(vec![WordExpr::Factor(Factor::Lit(shared)), of_terms(with)]);
    match without.is_empty() {
        true => taken,
        false => or(vec![taken, of_mixed(without)]),
    }
}

/// The templates as terms (a mask and sorted literals): those with the same literals merged,
/// and each one's mask cleared where a term whose literals it includes covers it; terms left
/// with no place are dropped.
fn absorbed(templates: &[&Template]) -> Vec<(u64, Vec<WordLit>)> {
    let mut merged: BTreeMap<Vec<WordLit>, u64> = BTreeMap::new();
    for template in templates {
        let mut lits = template.literals.clone();
        lits.sort();
        lits.dedup();
        *merged.entry(lits).or_default() |= template.mask;
    }
    let mut terms: Vec<(u64, Vec<WordLit>)> = merged.into_iter().map(|(lits, mask)| (mask, lits)).collect();
    terms.sort_by(|a, b| a.1.len().cmp(&b.1.len()).then_with(|| a.1.cmp(&b.1)));
    let mut kept: Vec<(u64, Vec<WordLit>)> = Vec::with_capacity(terms.len());
    for (mut mask, lits) in terms {
        for (covering, fewer) in &kept {
            if fewer.len() < lits.len() && is_subset(fewer, &lits) {
                mask &= !covering;
            }
        }
        if mask != 0 {
            kept.push((mask, lits));
        }
    }
    kept
}

/// Whether every literal of `small` is in `large` (both sorted).
fn is_subset(small: &[WordLit], large: &[WordLit]) -> bool {
    let mut large = large.iter();
    small.iter().all(|s| large.by_ref().any(|l| l == s))
}

/// The shift of a literal's word, when it has one.
fn shift_of(lit: WordLit) -> Option<i32> {
    match lit {
        WordLit::Base { shift, .. }
        | WordLit::Group { shift, .. }
        | WordLit::Does { shift, .. }
        | WordLit::Table { shift, .. } => Some(shift),
        // Its places are its own: never shifted with the others of a term.
        WordLit::Gather { .. } => Some(0),
        WordLit::Fixed(_) => None,
    }
}

/// The literal with its word unshifted.
fn unshift(lit: WordLit) -> WordLit {
    match lit {
        WordLit::Base { word, positive, .. } => WordLit::Base { word, shift: 0, positive },
        WordLit::Group { group, positive, .. } => WordLit::Group { group, shift: 0, positive },
        WordLit::Does { kind, positive, .. } => WordLit::Does { kind, shift: 0, positive },
        WordLit::Table { word, positive, .. } => WordLit::Table { word, shift: 0, positive },
        WordLit::Gather { .. } | WordLit::Fixed(_) => lit,
    }
}

/// A term whose shifted literals all have one shift `k`, as that shift and the factors of a term
/// that, shifted by `k`, has the same value: its literals unshifted and its mask shifted the
/// other way. `mask & (x >> k)` is `((mask << k) & x) >> k`; the mask's bits shifted out are
/// places where a positive literal's shifted word is clear, so a term of negative literals
/// only keeps its shift when none is. `None` for a term of several shifts.
fn unshifted(mask: u64, lits: &[WordLit]) -> Option<(i32, Vec<Factor>)> {
    let mut shifts = lits.iter().filter_map(|&lit| shift_of(lit));
    let shift = shifts.next().unwrap_or(0);
    if shifts.any(|s| s != shift) {
        return None;
    }
    let moved = shift_word(mask, -shift);
    let has_positive = lits.iter().any(|lit| {
        matches!(
            lit,
            WordLit::Base { positive: true, .. }
                | WordLit::Group { positive: true, .. }
                | WordLit::Does { positive: true, .. }
                | WordLit::Table { positive: true, .. }
        )
    });
    if shift_word(moved, shift) != mask && !has_positive {
        return None;
    }
    let mut factors: Vec<Factor> = lits.iter().map(|&lit| Factor::Lit(unshift(lit))).collect();
    if moved != u64::MAX {
        factors.push(Factor::Mask(moved));
    }
    Some((shift, factors))
}

/// `word` shifted right by `by` (left when negative), as the generated code shifts.
pub(super) fn shift_word(word: u64, by: i32) -> u64 {
    match by {
        0 => word,
        by if by >= 64 || by <= -64 => 0,
        by if by > 0 => word >> by,
        by => word << -by,
    }
}

/// A term's factors with its mask among them (none when it is every place).
fn with_mask(mask: u64, mut factors: Vec<Factor>) -> Vec<Factor> {
    if mask != u64::MAX {
        factors.push(Factor::Mask(mask));
    }
    factors
}

/// The `|` of the terms (each the `&` of its factors), with a factor that two or more terms
/// share taken out of them, the most shared first, again within both the terms that have it
/// and those that do not. A literal the same for every member (a fact, all ones or none) stays
/// in its terms: taken out, hex's words of connected cells ran 15% slower.
fn factor(terms: Vec<Vec<Factor>>) -> WordExpr {
    if terms.iter().any(Vec::is_empty) {
        return WordExpr::Ones;
    }
    let Some(shared) = most_shared(terms.iter().flatten(), |f| !matches!(f, Factor::Lit(WordLit::Fixed(_)))) else {
        return or(terms.into_iter().map(and_of).collect());
    };
    let (mut with, without): (Vec<Vec<Factor>>, Vec<Vec<Factor>>) =
        terms.into_iter().partition(|term| term.contains(&shared));
    with.iter_mut().for_each(|term| term.retain(|&f| f != shared));
    let taken = and(vec![WordExpr::Factor(shared), factor(with)]);
    match without.is_empty() {
        true => taken,
        false => or(vec![taken, factor(without)]),
    }
}

/// The item that most terms share (`items` holds each term's items), among those `takeable`
/// allows and two or more terms have; the least of them on a tie.
fn most_shared<'a, T: Copy + Ord + 'a>(items: impl Iterator<Item = &'a T>, takeable: impl Fn(&T) -> bool) -> Option<T> {
    let mut count: BTreeMap<T, usize> = BTreeMap::new();
    for &item in items {
        *count.entry(item).or_default() += 1;
    }
    (count.into_iter())
        .filter(|(item, n)| *n >= 2 && takeable(item))
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
        .map(|(item, _)| item)
}

/// The `&` of a term's factors.
fn and_of(factors: Vec<Factor>) -> WordExpr {
    and(factors.into_iter().map(WordExpr::Factor).collect())
}

/// The `&` of `parts`, flattened: every bit set when there are none.
fn and(parts: Vec<WordExpr>) -> WordExpr {
    let mut flat = Vec::with_capacity(parts.len());
    for part in parts {
        match part {
            WordExpr::And(inner) => flat.extend(inner),
            WordExpr::Ones => {}
            part => flat.push(part),
        }
    }
    match flat.len() {
        0 => WordExpr::Ones,
        1 => flat.pop().unwrap_or(WordExpr::Ones),
        _ => WordExpr::And(flat),
    }
}

/// The `|` of `parts`, flattened: no bit when there are none.
fn or(parts: Vec<WordExpr>) -> WordExpr {
    let mut flat = Vec::with_capacity(parts.len());
    for part in parts {
        match part {
            WordExpr::Or(inner) => flat.extend(inner),
            WordExpr::Ones => return WordExpr::Ones,
            part => flat.push(part),
        }
    }
    match flat.len() {
        1 => flat.pop().unwrap_or(WordExpr::Or(Vec::new())),
        _ => WordExpr::Or(flat),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::{Lit, Prop};

    /// A small random generator, so that the test needs no crate and is the same every run.
    struct Xorshift(u64);

    impl Xorshift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A literal's word at `lit`'s shift, from the unshifted words `words` (by kind and index)
    /// and the facts `facts`.
    fn value(lit: WordLit, words: &[u64; 8], facts: u64) -> u64 {
        let (word, shift, positive) = match lit {
            WordLit::Base { word, shift, positive } => (words[word as usize], shift, positive),
            WordLit::Group { group, shift, positive } => (words[4 + group as usize], shift, positive),
            WordLit::Does { kind, shift, positive } => (words[6 + kind as usize], shift, positive),
            WordLit::Table { shift, positive, .. } => (words[7], shift, positive),
            WordLit::Gather { group, from, to, positive } => {
                let word = super::super::tests::gathered(words[4 + group as usize], from, to);
                return if positive { word } else { !word };
            }
            WordLit::Fixed(lit) => {
                let Prop::Base(b) = lit.prop else { return 0 };
                return 0u64.wrapping_sub(u64::from((facts >> b & 1 == 1) == lit.positive));
            }
        };
        let shifted = shift_word(word, shift);
        match positive {
            true => shifted,
            false => !shifted,
        }
    }

    fn eval(expr: &WordExpr, words: &[u64; 8], facts: u64) -> u64 {
        match expr {
            WordExpr::Ones => u64::MAX,
            WordExpr::Factor(Factor::Mask(m)) => *m,
            WordExpr::Factor(Factor::Lit(lit)) => value(*lit, words, facts),
            WordExpr::And(parts) => parts.iter().fold(u64::MAX, |a, p| a & eval(p, words, facts)),
            WordExpr::Or(parts) => parts.iter().fold(0, |a, p| a | eval(p, words, facts)),
            WordExpr::Shifted(inner, by) => shift_word(eval(inner, words, facts), *by),
        }
    }

    fn random_lit(rng: &mut Xorshift, shift: i32) -> WordLit {
        let positive = rng.below(3) != 0;
        match rng.below(7) {
            0 | 1 => WordLit::Base { word: rng.below(4) as u32, shift, positive },
            2 => WordLit::Group { group: rng.below(2) as u32, shift, positive },
            3 => WordLit::Does { kind: 0, shift, positive },
            4 => WordLit::Table { word: 0, shift, positive },
            5 => {
                // A group's bits moved to other places, whatever the term's shift.
                let from = rng.next() & rng.next();
                WordLit::Gather { group: rng.below(2) as u32, from, to: from.rotate_left(5), positive }
            }
            _ => WordLit::Fixed(Lit { prop: Prop::Base(rng.below(4) as u32), positive }),
        }
    }

    fn random_templates(rng: &mut Xorshift) -> Vec<Template> {
        let shifts = [0, 1, -1, 8, -8, 9, 63, -63];
        (0..1 + rng.below(40))
            .map(|_| {
                let common = shifts[rng.below(shifts.len() as u64) as usize];
                let literals = (0..rng.below(4))
                    .map(|_| {
                        let shift = match rng.below(5) {
                            0 => shifts[rng.below(shifts.len() as u64) as usize],
                            _ => common,
                        };
                        random_lit(rng, shift)
                    })
                    .collect();
                let mask = match rng.below(4) {
                    0 => u64::MAX,
                    1 => rng.next() & rng.next(),
                    _ => rng.next(),
                };
                Template { literals, mask }
            })
            .collect()
    }

    #[test]
    fn factored_templates_have_the_value_of_their_sum() {
        let mut rng = Xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..2000 {
            let templates = random_templates(&mut rng);
            let refs: Vec<&Template> = templates.iter().collect();
            let expr = factored(&refs);
            for _ in 0..8 {
                let words: [u64; 8] = std::array::from_fn(|_| rng.next());
                let facts = rng.next();
                let sum = templates
                    .iter()
                    .fold(0, |acc, t| acc | t.literals.iter().fold(t.mask, |a, &lit| a & value(lit, &words, facts)));
                assert_eq!(eval(&expr, &words, facts), sum, "{templates:?} as {expr:?}");
            }
        }
    }

    #[test]
    fn a_literal_of_another_shift_that_terms_share_is_taken_out_and_the_rest_shifted_once() {
        // A piece's move from its cell ten places on (`>> 10`) to a cell it does not hold
        // (`!own`, unshifted), for four kinds of piece: each term reads both shifts.
        let own = WordLit::Base { word: 0, shift: 0, positive: false };
        let reach = WordLit::Group { group: 0, shift: 10, positive: true };
        let templates: Vec<Template> = (1..5)
            .map(|w| Template {
                literals: vec![own, reach, WordLit::Base { word: w, shift: 10, positive: true }],
                mask: 0x003f_ffff_ffff_ffff,
            })
            .collect();
        let refs: Vec<&Template> = templates.iter().collect();
        let expr = factored(&refs);
        let WordExpr::And(parts) = &expr else { panic!("not factored: {expr:?}") };
        assert_eq!(parts[0], WordExpr::Factor(Factor::Lit(own)), "{expr:?}");
        assert!(matches!(parts[1], WordExpr::Shifted(_, 10)), "not shifted once: {expr:?}");
    }

    #[test]
    fn shared_shifted_literals_are_read_once() {
        let a = WordLit::Base { word: 0, shift: -8, positive: true };
        let templates: Vec<Template> = (0..6)
            .map(|w| Template {
                literals: vec![a, WordLit::Base { word: 1 + w, shift: -8, positive: true }],
                mask: !0xff,
            })
            .collect();
        let refs: Vec<&Template> = templates.iter().collect();
        let expr = factored(&refs);
        let WordExpr::Shifted(inner, -8) = &expr else { panic!("not shifted once: {expr:?}") };
        let WordExpr::And(parts) = inner.as_ref() else { panic!("not factored: {inner:?}") };
        assert_eq!(parts[0], WordExpr::Factor(Factor::Lit(WordLit::Base { word: 0, shift: 0, positive: true })));
    }
}
