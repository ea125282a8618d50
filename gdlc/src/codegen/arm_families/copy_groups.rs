//! Copy groups: arm families that only copy bits between the same places (pentago's two
//! rotations of a quadrant), evaluated by lookups in tables of the targets each chunk of the
//! sources sets, rather than by a `match` arm per family.

use super::{ArmFamily, Term, ARM_FAMILY_MIN};
use std::collections::BTreeMap;

/// A family whose every set copies one bit of a word to another bit of the same word (a
/// rotation of pentago's quadrant): per word relative to the anchor's, its copies as (source,
/// target) bits relative to the anchor, sorted.
type Copies = BTreeMap<i32, Vec<(i32, i32)>>;

fn copies(family: &ArmFamily) -> Option<Copies> {
    let mut by_word = Copies::new();
    for ((dw, dp), terms) in &family.sets {
        let [Term { negated: false, literals }] = terms.as_slice() else { return None };
        let [((lw, lp), true)] = literals.as_slice() else { return None };
        if lw != dw {
            return None;
        }
        by_word.entry(*dw).or_default().push((*lp, *dp));
    }
    by_word.values_mut().for_each(|copies| copies.sort_unstable());
    Some(by_word)
}

/// The places a copy family copies between: its anchors' word, and per word relative to it,
/// its source bits and its target bits relative to the anchor, sorted.
type Places = (usize, Vec<(i32, Vec<i32>, Vec<i32>)>);

fn places(family: &ArmFamily, copies: &Copies) -> Places {
    let per_word = copies
        .iter()
        .map(|(&dw, pairs)| {
            let mut sources: Vec<i32> = pairs.iter().map(|&(from, _)| from).collect();
            let mut targets: Vec<i32> = pairs.iter().map(|&(_, to)| to).collect();
            sources.sort_unstable();
            sources.dedup();
            targets.sort_unstable();
            targets.dedup();
            (dw, sources, targets)
        })
        .collect();
    (family.word, per_word)
}

/// The widest chunk of source bits one table row is indexed by.
const COPY_CHUNK_BITS: i32 = 8;

/// Families of one role that copy bits from the same sources to the same targets, each in its
/// own way (pentago's clockwise and counterclockwise rotations of a quadrant). A `match` arm per
/// family would branch on which one was played, which a random move mispredicts half the time.
/// One arm serves them all: the sources, in chunks of at most [`COPY_CHUNK_BITS`] bits, index
/// tables of the targets they set, one table per family, chunk and word.
#[derive(Debug)]
pub(super) struct CopyGroup {
    /// The families' indices in the role's families.
    pub(super) families: std::ops::Range<usize>,
    /// The state word of the families' anchors.
    pub(super) word: usize,
    pub(super) words: Vec<CopyWord>,
}

/// One state word of a [`CopyGroup`], relative to the anchor's.
#[derive(Debug)]
pub(super) struct CopyWord {
    pub(super) dw: i32,
    /// The lowest source and target bit, relative to the anchor.
    pub(super) source_low: i32,
    pub(super) target_low: i32,
    /// Each chunk's lowest source bit (relative to `source_low`) and its sources' mask from there.
    pub(super) chunks: Vec<(i32, u64)>,
    /// For each family and chunk, the targets (relative to `target_low`) set by each value of
    /// the chunk's bits.
    pub(super) rows: Rows,
    /// Whose table this is: its role, group and word.
    pub(super) owner: Owner,
    /// The table the word reads: its own, or the first with the same rows (see
    /// [`RoleArms::share_tables`]).
    pub(super) reads: Owner,
}

/// The rows of a [`CopyWord`]'s table.
pub(super) type Rows = Vec<Vec<Vec<u64>>>;

/// A copy table's role, group and word.
pub(super) type Owner = (usize, usize, usize);

impl CopyGroup {
    /// Orders `families` so that families that copy between the same places come together where
    /// the first of them was, and makes a group of each two or more such.
    pub(super) fn gather(role: usize, families: Vec<ArmFamily>) -> (Vec<ArmFamily>, Vec<CopyGroup>) {
        let copied: Vec<Option<Copies>> = families.iter().map(copies).collect();
        let places: Vec<Option<Places>> =
            families.iter().zip(&copied).map(|(family, copies)| Some(places(family, copies.as_ref()?))).collect();
        // Each family's group, by its first family, when two or more copy between its places.
        let first: Vec<Option<usize>> = places
            .iter()
            .map(|key| {
                let same: Vec<usize> = (0..places.len()).filter(|&j| key.is_some() && places[j] == *key).collect();
                (same.len() >= ARM_FAMILY_MIN).then(|| same[0])
            })
            .collect();
        let mut slots: Vec<Option<(ArmFamily, Option<Copies>)>> = families.into_iter().zip(copied).map(Some).collect();
        let (mut ordered, mut groups) = (Vec::new(), Vec::new());
        for i in 0..slots.len() {
            match first[i] {
                None => ordered.extend(slots[i].take().map(|(family, _)| family)),
                Some(f) if f == i => {
                    let (members, copies): (Vec<ArmFamily>, Vec<Option<Copies>>) =
                        (i..slots.len()).filter(|&j| first[j] == Some(i)).filter_map(|j| slots[j].take()).unzip();
                    // A family has a group only when it copies bits.
                    let copies: Vec<Copies> = copies.into_iter().flatten().collect();
                    let start = ordered.len();
                    let owner = (role, groups.len());
                    groups.push(CopyGroup::new(owner, start..start + members.len(), &members[0], &copies));
                    ordered.extend(members);
                }
                // Taken with the group's first family.
                Some(_) => {}
            }
        }
        (ordered, groups)
    }

    /// The group of the families numbered `families`, whose copies are `copies` and whose
    /// places are `first`'s; group `group` of role `role`.
    fn new(
        (role, group): (usize, usize),
        families: std::ops::Range<usize>,
        first: &ArmFamily,
        copies: &[Copies],
    ) -> CopyGroup {
        let (word, per_word) = places(first, &copies[0]);
        let words = per_word
            .iter()
            .enumerate()
            .map(|(k, (dw, sources, targets))| {
                let each: Vec<&[(i32, i32)]> = copies.iter().map(|copies| copies[dw].as_slice()).collect();
                CopyWord::new(*dw, sources, targets, &each, (role, group, k))
            })
            .collect();
        CopyGroup { families, word, words }
    }
}

/// The bits a chunk's table row is indexed by: the widest chunk's.
fn chunk_bits(chunks: &[(i32, u64)]) -> u32 {
    chunks.iter().map(|&(_, mask)| 64 - mask.leading_zeros()).max().unwrap_or(0)
}

impl CopyWord {
    /// The bits that index a chunk's table row.
    pub(super) fn chunk_bits(&self) -> u32 {
        chunk_bits(&self.chunks)
    }

    fn new(dw: i32, sources: &[i32], targets: &[i32], each: &[&[(i32, i32)]], owner: Owner) -> CopyWord {
        let source_low = sources[0];
        let target_low = targets[0];
        let mut chunks: Vec<(i32, u64)> = Vec::new();
        for &source in sources {
            let at = source - source_low;
            match chunks.last_mut() {
                Some((start, mask)) if at - *start < COPY_CHUNK_BITS => *mask |= 1 << (at - *start),
                _ => chunks.push((at, 1)),
            }
        }
        let rows = each
            .iter()
            .map(|copies| {
                chunks
                    .iter()
                    .map(|&(start, mask)| {
                        (0..1u64 << chunk_bits(&chunks))
                            .map(|value| {
                                copies
                                    .iter()
                                    .filter(|&&(from, _)| {
                                        let at = from - source_low - start;
                                        (0..COPY_CHUNK_BITS).contains(&at)
                                            && mask >> at & 1 == 1
                                            && value >> at & 1 == 1
                                    })
                                    .fold(0u64, |targets, &(_, to)| targets | 1 << (to - target_low))
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        CopyWord { dw, source_low, target_low, chunks, rows, owner, reads: owner }
    }
}
