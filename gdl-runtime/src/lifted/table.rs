//! The facts of one relation, with hash indexes on the argument positions that rules look
//! facts up by: what the interpreter, the grounder's fixpoint and the lifted form's generated
//! joins all store relations in.

use super::hash::{FastMap, FastSet};
use super::store::TermId;

/// The positions of the facts that have each combination of terms at some argument positions.
type Index = FastMap<Box<[TermId]>, Vec<u32>>;

/// The facts of one relation, with hash indexes on the combinations of argument positions
/// that rules look facts up by.
#[derive(Default, Clone, Debug)]
pub struct Table {
    /// The facts, in the order they were added.
    pub facts: Vec<Box<[TermId]>>,
    set: FastSet<Box<[TermId]>>,
    /// For each indexed combination of positions: the facts having each combination of terms there.
    indexes: Vec<(Box<[usize]>, Index)>,
}

impl Table {
    /// Adds a fact; returns whether it is new.
    pub fn insert(&mut self, fact: Box<[TermId]>) -> bool {
        if self.set.contains(&fact) {
            return false;
        }
        let at = self.facts.len() as u32;
        for (positions, index) in &mut self.indexes {
            let key: Box<[TermId]> = positions.iter().map(|&p| fact[p]).collect();
            index.entry(key).or_default().push(at);
        }
        self.set.insert(fact.clone());
        self.facts.push(fact);
        true
    }

    /// Whether the table has `fact`.
    pub fn contains(&self, fact: &[TermId]) -> bool {
        self.set.contains(fact)
    }

    /// Indexes the facts by their terms at `positions`, unless they are already.
    pub fn ensure_index(&mut self, positions: &[usize]) {
        if self.indexes.iter().any(|(p, _)| **p == *positions) {
            return;
        }
        let mut index = Index::default();
        for (i, f) in self.facts.iter().enumerate() {
            let key: Box<[TermId]> = positions.iter().map(|&p| f[p]).collect();
            index.entry(key).or_default().push(i as u32);
        }
        self.indexes.push((positions.into(), index));
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
            None => Candidates::All(0..self.facts.len() as u32),
        }
    }
}

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
