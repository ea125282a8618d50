//! Lookups of a static relation by arrays rather than hashes, where its arguments take few
//! values: each argument position numbers the terms found there (their ranks), and a fact's or
//! a key's ranks, read as the digits of one number, pick a bit of a set (is this fact there?)
//! or a run of facts (which facts have this key?). A static relation's facts are known once
//! the game is loaded, so these arrays are built then and never change; a join reads them
//! with a few array reads where a hash lookup would mix the key, probe a slot and compare the
//! fact it finds.

use super::store::TermId;

/// The most cells (combinations of ranks) a lookup may have for a relation of `len` facts: a
/// relation whose arguments take many values keeps its hash lookups.
fn most_cells(len: usize) -> usize {
    (16 * len).max(1_024)
}

/// The most terms a position's ranks may cover (the largest term id there, plus one), for
/// `rows` facts: a few facts of large term ids keep their hash lookups rather than make arrays
/// many times their size.
fn most_term_ids(rows: usize) -> usize {
    (64 * rows + 4_096).min(1 << 20)
}

/// What a term that never occurs at a position ranks as.
const UNRANKED: u32 = u32::MAX;

/// The ranks of the terms at one argument position of a relation: for every term id up to the
/// largest found there, its number among the distinct terms of that position, or
/// [`UNRANKED`].
#[derive(Clone, Debug)]
struct Ranks {
    of: Box<[u32]>,
    count: usize,
}

impl Ranks {
    /// The ranks of the terms at `position` of the facts in `data` (`width` terms a fact), in
    /// the order they first occur; `None` when a term id is too large to index.
    fn new(data: &[TermId], width: usize, position: usize) -> Option<Ranks> {
        let column = || data.chunks_exact(width).map(|fact| fact[position] as usize);
        let largest = column().max().unwrap_or(0);
        if largest >= most_term_ids(data.len() / width) {
            return None;
        }
        let mut of = vec![UNRANKED; largest + 1].into_boxed_slice();
        let mut count = 0;
        for id in column() {
            if of[id] == UNRANKED {
                of[id] = count as u32;
                count += 1;
            }
        }
        Some(Ranks { of, count })
    }

    /// The rank of `id`, `None` when it does not occur at this position.
    #[inline]
    fn of(&self, id: TermId) -> Option<usize> {
        match self.of.get(id as usize) {
            Some(&rank) if rank != UNRANKED => Some(rank as usize),
            _ => None,
        }
    }
}

/// The ranks of several positions, read as the digits of a cell number.
#[derive(Clone, Debug)]
pub(super) struct Digits {
    ranks: Box<[Ranks]>,
    /// The number of cells: the product of the positions' numbers of terms.
    pub(super) cells: usize,
}

impl Digits {
    /// The digits of `positions` of the facts in `data`; `None` when a position cannot be
    /// ranked or the cells would be more than `most`.
    pub(super) fn new(data: &[TermId], width: usize, positions: &[usize], most: usize) -> Option<Digits> {
        let ranks = positions.iter().map(|&p| Ranks::new(data, width, p)).collect::<Option<Box<[Ranks]>>>()?;
        let cells = ranks.iter().try_fold(1usize, |cells, r| cells.checked_mul(r.count).filter(|&c| c <= most))?;
        Some(Digits { ranks, cells })
    }

    /// The cell of the terms `key` (one a position), `None` when one does not occur at its
    /// position.
    #[inline]
    pub(super) fn cell(&self, key: impl Iterator<Item = TermId>) -> Option<usize> {
        let mut cell = 0;
        for (ranks, id) in self.ranks.iter().zip(key) {
            cell = cell * ranks.count + ranks.of(id)?;
        }
        Some(cell)
    }
}

/// The facts of a static relation as a bit set over the cells of all their arguments.
#[derive(Clone, Debug)]
pub(super) struct DenseSet {
    digits: Digits,
    bits: Box<[u64]>,
}

impl DenseSet {
    /// The set of the facts in `data` (`width` terms a fact), `None` when they are too spread.
    pub(super) fn new(data: &[TermId], width: usize) -> Option<DenseSet> {
        if width == 0 {
            return None;
        }
        let len = data.len() / width;
        let positions: Vec<usize> = (0..width).collect();
        let digits = Digits::new(data, width, &positions, 64 * most_cells(len))?;
        let mut bits = vec![0u64; digits.cells.div_ceil(64)].into_boxed_slice();
        for fact in data.chunks_exact(width) {
            let cell = digits.cell(fact.iter().copied())?;
            bits[cell / 64] |= 1 << (cell % 64);
        }
        Some(DenseSet { digits, bits })
    }

    /// Whether `fact` is in the set.
    #[inline]
    pub(super) fn contains(&self, fact: &[TermId]) -> bool {
        match self.digits.cell(fact.iter().copied()) {
            Some(cell) => self.bits[cell / 64] >> (cell % 64) & 1 != 0,
            None => false,
        }
    }
}

/// The facts of a static relation grouped by their terms at some positions: each cell's facts
/// lie together, in the order they were added.
#[derive(Clone, Debug)]
pub(super) struct DenseIndex {
    digits: Digits,
    /// Where each cell's facts start in `order` (and, one on, where they end).
    starts: Box<[u32]>,
    /// The positions of the facts, cell by cell.
    order: Box<[u32]>,
    /// The cells that have facts, in order: the groups of the facts alike at the positions.
    filled: Box<[u32]>,
}

impl DenseIndex {
    /// The index on `positions` of the facts in `data` (`width` terms a fact), `None` when
    /// their terms there are too spread.
    pub(super) fn new(data: &[TermId], width: usize, positions: &[usize]) -> Option<DenseIndex> {
        if width == 0 {
            return None;
        }
        let len = data.len() / width;
        let digits = Digits::new(data, width, positions, most_cells(len))?;
        let cells = data
            .chunks_exact(width)
            .map(|fact| digits.cell(positions.iter().map(|&p| fact[p])))
            .collect::<Option<Vec<usize>>>()?;
        let mut starts = vec![0u32; digits.cells + 1].into_boxed_slice();
        for &cell in &cells {
            starts[cell + 1] += 1;
        }
        for cell in 0..digits.cells {
            starts[cell + 1] += starts[cell];
        }
        let mut filled = starts.clone();
        let mut order = vec![0u32; len].into_boxed_slice();
        for (at, &cell) in cells.iter().enumerate() {
            order[filled[cell] as usize] = at as u32;
            filled[cell] += 1;
        }
        let filled =
            (0..digits.cells).filter(|&cell| starts[cell + 1] > starts[cell]).map(|cell| cell as u32).collect();
        Some(DenseIndex { digits, starts, order, filled })
    }

    /// The positions of the facts whose terms at the index's positions are `key`, in the order
    /// they were added.
    #[inline]
    pub(super) fn find(&self, key: &[TermId]) -> &[u32] {
        match self.digits.cell(key.iter().copied()) {
            Some(cell) => &self.order[self.starts[cell] as usize..self.starts[cell + 1] as usize],
            None => &[],
        }
    }

    /// The number of groups: cells with facts.
    pub(super) fn groups(&self) -> usize {
        self.filled.len()
    }

    /// The positions of the facts of group `k`, in the order they were added.
    #[inline]
    pub(super) fn group(&self, k: usize) -> &[u32] {
        let cell = self.filled[k] as usize;
        &self.order[self.starts[cell] as usize..self.starts[cell + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dense_set_holds_exactly_the_facts() {
        let data = [3, 7, 3, 9, 5, 7];
        let set = DenseSet::new(&data, 2).expect("few values");
        for (fact, holds) in [([3, 7], true), ([3, 9], true), ([5, 7], true), ([5, 9], false), ([7, 3], false)] {
            assert_eq!(set.contains(&fact), holds, "{fact:?}");
        }
        assert!(!set.contains(&[3, 4_000_000]), "a term past the ranks");
    }

    #[test]
    fn a_dense_index_finds_each_key_s_facts_in_the_order_added() {
        let data = [1, 2, 10, 1, 3, 11, 4, 2, 12, 1, 2, 13];
        let index = DenseIndex::new(&data, 3, &[0, 1]).expect("few values");
        assert_eq!(index.find(&[1, 2]), [0, 3]);
        assert_eq!(index.find(&[4, 2]), [2]);
        assert_eq!(index.find(&[4, 3]), [] as [u32; 0]);
        assert_eq!(index.find(&[9, 9]), [] as [u32; 0]);
        let mut groups: Vec<&[u32]> = (0..index.groups()).map(|k| index.group(k)).collect();
        groups.sort();
        assert_eq!(groups, [&[0, 3][..], &[1], &[2]]);
    }

    #[test]
    fn spread_terms_keep_their_hash_lookups() {
        let data: Vec<TermId> = (0..200u32).flat_map(|i| [i, 1_000 + i, 2_000 + i]).collect();
        assert!(DenseSet::new(&data, 3).is_none(), "200 facts over 200^3 cells");
        assert!(DenseIndex::new(&data, 3, &[0]).is_some(), "200 cells for 200 facts");
        assert!(DenseIndex::new(&data, 3, &[0, 1]).is_none(), "40,000 cells for 200 facts");
    }
}
