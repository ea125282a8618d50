//! The facts of one relation, with hash indexes on the argument positions that rules look
//! facts up by: what the interpreter, the grounder's fixpoint and the lifted form's generated
//! joins all store relations in.
//!
//! Facts lie back to back in one vector (every fact of a relation has its number of
//! arguments), and the set that keeps them unique is a table of their positions, open
//! addressing with linear probing: adding a fact allocates nothing but the growth of those
//! two vectors, and a table cleared for the next state keeps its memory.

use super::hash::FastMap;
use super::store::TermId;

/// The positions of the facts that have each combination of terms at some argument positions.
type Index = FastMap<Box<[TermId]>, Vec<u32>>;

/// Tables with fewer facts than this, complete before the rules that read them run, are not
/// indexed: trying every fact costs less than building an index.
const SMALL_TABLE: usize = 16;

/// An empty slot of the set of positions.
const EMPTY: u32 = u32::MAX;

/// The facts of one relation, with hash indexes on the combinations of argument positions
/// that rules look facts up by.
#[derive(Default, Clone, Debug)]
pub struct Table {
    /// The number of arguments of each fact, set by the first fact added.
    width: usize,
    /// The number of facts.
    len: usize,
    /// The facts' arguments, `width` per fact, in the order the facts were added.
    data: Vec<TermId>,
    /// The set of facts: the position of a fact in each slot its hash leads to, or [`EMPTY`];
    /// a power of two long, at most half full.
    slots: Vec<u32>,
    /// For each indexed combination of positions: the facts having each combination of terms there.
    indexes: Vec<(Box<[usize]>, Index)>,
}

/// The hash of a fact: its words mixed as [`super::hash::WordHasher`] mixes them.
#[inline]
fn hash_fact(fact: &[TermId]) -> u64 {
    let mut hash = fact.len() as u64;
    for &word in fact {
        hash = (hash.rotate_left(5) ^ u64::from(word)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    hash
}

impl Table {
    /// The number of facts.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the table has no fact.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The fact at position `i` (in the order facts were added).
    #[inline]
    pub fn fact(&self, i: usize) -> &[TermId] {
        &self.data[i * self.width..(i + 1) * self.width]
    }

    /// The facts, in the order they were added.
    pub fn facts(&self) -> Facts<'_> {
        self.facts_in(0, self.len)
    }

    /// The facts at positions `from..to`.
    pub fn facts_in(&self, from: usize, to: usize) -> Facts<'_> {
        Facts { table: self, next: from, end: to.min(self.len) }
    }

    /// The slot of `fact` in the set: where it is, or the empty slot where it would go.
    #[inline]
    fn slot_of(&self, fact: &[TermId]) -> usize {
        let mask = self.slots.len() - 1;
        // The product's top bits depend on every bit mixed in; its low bits on the low ones only.
        let shift = 64 - self.slots.len().trailing_zeros();
        let mut slot = (hash_fact(fact) >> shift) as usize & mask;
        loop {
            let at = self.slots[slot];
            if at == EMPTY || self.fact(at as usize) == fact {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Doubles the set when it would be more than half full with one more fact.
    fn grow_set(&mut self) {
        if (self.len + 1) * 2 <= self.slots.len() {
            return;
        }
        let size = (self.slots.len() * 2).max(16);
        self.slots = vec![EMPTY; size];
        for i in 0..self.len {
            let slot = self.slot_of(self.fact(i));
            self.slots[slot] = i as u32;
        }
    }

    /// Adds a fact; returns whether it is new. Every fact of a table has as many arguments.
    pub fn insert(&mut self, fact: &[TermId]) -> bool {
        if self.len == 0 {
            self.width = fact.len();
        }
        debug_assert_eq!(fact.len(), self.width, "a fact of another width");
        self.grow_set();
        let slot = self.slot_of(fact);
        if self.slots[slot] != EMPTY {
            return false;
        }
        let at = self.len as u32;
        self.slots[slot] = at;
        for (positions, index) in &mut self.indexes {
            add_to_index(index, positions, fact, at);
        }
        self.data.extend_from_slice(fact);
        self.len += 1;
        true
    }

    /// Removes every fact, keeping the memory and the indexed positions (their indexes emptied),
    /// for the next evaluation of the same relation.
    pub fn clear(&mut self) {
        if self.len > 0 {
            self.slots.fill(EMPTY);
        }
        self.len = 0;
        self.data.clear();
        for (_, index) in &mut self.indexes {
            index.clear();
        }
    }

    /// Whether the table has `fact`.
    #[inline]
    pub fn contains(&self, fact: &[TermId]) -> bool {
        !self.slots.is_empty() && self.slots[self.slot_of(fact)] != EMPTY
    }

    /// Indexes the facts by their terms at `positions`, unless they are already.
    pub fn ensure_index(&mut self, positions: &[usize]) {
        if self.indexes.iter().any(|(p, _)| **p == *positions) {
            return;
        }
        let mut index = Index::default();
        for (i, f) in self.facts().enumerate() {
            add_to_index(&mut index, positions, f, i as u32);
        }
        self.indexes.push((positions.into(), index));
    }

    /// Indexes the facts by their terms at `positions` for rules about to read the table, unless
    /// it is small and complete: a table that has facts already is complete (a relation gets its
    /// facts from one component), and below [`SMALL_TABLE`] facts trying them all costs less.
    /// An empty table is indexed, as the component that fills it may read it.
    pub fn index_for_reading(&mut self, positions: &[usize]) {
        if !(1..SMALL_TABLE).contains(&self.len) {
            self.ensure_index(positions);
        }
    }

    /// The facts with `key` at `positions`, or `None` when the table has no index on them
    /// (it was too small to need one: every fact is a candidate).
    pub fn lookup(&self, positions: &[usize], key: &[TermId]) -> Option<&[u32]> {
        let (_, index) = self.indexes.iter().find(|(p, _)| **p == *positions)?;
        Some(index.get(key).map_or(&[], Vec::as_slice))
    }

    /// The positions of the facts that may have `key` at `positions`: those the index gives,
    /// or every fact when the table has no index on them.
    pub fn candidates<'t>(&'t self, positions: &[usize], key: &[TermId]) -> Candidates<'t> {
        match self.lookup(positions, key) {
            Some(found) => Candidates::Found(found.iter()),
            None => Candidates::All(0..self.len as u32),
        }
    }
}

/// The most positions of an index whose key is gathered on the stack.
const KEY_ON_STACK: usize = 8;

/// Adds the fact at position `at` to `index` under its terms at `positions`; the key is boxed
/// only when the index does not have it yet.
fn add_to_index(index: &mut Index, positions: &[usize], fact: &[TermId], at: u32) {
    let mut stack = [0; KEY_ON_STACK];
    let heap: Vec<TermId>;
    let key: &[TermId] = if positions.len() <= KEY_ON_STACK {
        for (slot, &p) in stack.iter_mut().zip(positions) {
            *slot = fact[p];
        }
        &stack[..positions.len()]
    } else {
        heap = positions.iter().map(|&p| fact[p]).collect();
        &heap
    };
    match index.get_mut(key) {
        Some(found) => found.push(at),
        None => {
            index.insert(key.into(), vec![at]);
        }
    }
}

/// The facts of a table in a range of positions, each as its arguments.
#[derive(Clone, Debug)]
pub struct Facts<'t> {
    table: &'t Table,
    next: usize,
    end: usize,
}

impl<'t> Iterator for Facts<'t> {
    type Item = &'t [TermId];

    #[inline]
    fn next(&mut self) -> Option<&'t [TermId]> {
        if self.next >= self.end {
            return None;
        }
        self.next += 1;
        Some(self.table.fact(self.next - 1))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end.saturating_sub(self.next);
        (left, Some(left))
    }
}

impl ExactSizeIterator for Facts<'_> {}

/// The positions of facts that an index lookup gives, or every position of a table.
#[derive(Clone, Debug)]
pub enum Candidates<'t> {
    /// The positions an index gave.
    Found(std::slice::Iter<'t, u32>),
    /// Every position of a table with no index.
    All(std::ops::Range<u32>),
}

impl Iterator for Candidates<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        match self {
            Candidates::Found(found) => found.next().map(|&i| i as usize),
            Candidates::All(range) => range.next().map(|i| i as usize),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_are_kept_once_in_order_and_found_by_index() {
        let mut table = Table::default();
        for fact in [[1, 2], [3, 4], [1, 2], [1, 5]] {
            table.insert(&fact);
        }
        assert_eq!(table.facts().collect::<Vec<_>>(), [&[1, 2][..], &[3, 4], &[1, 5]]);
        assert!(table.contains(&[3, 4]) && !table.contains(&[4, 3]));
        table.ensure_index(&[0]);
        table.insert(&[1, 9]);
        assert_eq!(table.candidates(&[0], &[1]).collect::<Vec<_>>(), [0, 2, 3]);
        assert_eq!(table.facts_in(1, 3).count(), 2);
    }

    #[test]
    fn a_table_of_facts_without_arguments_holds_at_most_one() {
        let mut table = Table::default();
        assert!(!table.contains(&[]));
        assert!(table.insert(&[]) && !table.insert(&[]));
        assert_eq!((table.len(), table.facts().count()), (1, 1));
    }

    #[test]
    fn the_set_grows_past_many_facts() {
        let mut table = Table::default();
        for i in 0..10_000u32 {
            assert!(table.insert(&[i, i / 7]));
        }
        assert!((0..10_000u32).all(|i| table.contains(&[i, i / 7])) && !table.contains(&[3, 3]));
        assert_eq!(table.len(), 10_000);
    }
}
