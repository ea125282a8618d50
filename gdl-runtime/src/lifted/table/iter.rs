//! The iterators over a table's facts: a chain of an index, a range of positions, and the
//! candidates of a lookup.

use super::{Table, EMPTY};
use crate::lifted::store::TermId;

/// The positions of the facts of one group of an index, in the order they were added.
#[derive(Clone, Debug)]
pub struct Chain<'t> {
    pub(super) next: &'t [u32],
    pub(super) at: u32,
}

impl Iterator for Chain<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.at == EMPTY {
            return None;
        }
        let at = self.at as usize;
        self.at = self.next[at];
        Some(at)
    }
}

/// The facts of a table in a range of positions, each as its arguments.
#[derive(Clone, Debug)]
pub struct Facts<'t> {
    pub(super) table: &'t Table,
    pub(super) next: usize,
    pub(super) end: usize,
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
    Found(Chain<'t>),
    /// Every position of a table with no index.
    All(std::ops::Range<u32>),
    /// The positions an index of a frozen table gave (see [`Table::freeze`]).
    Run(std::slice::Iter<'t, u32>),
}

impl Iterator for Candidates<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        match self {
            Candidates::Found(found) => found.next(),
            Candidates::All(range) => range.next().map(|i| i as usize),
            Candidates::Run(run) => run.next().map(|&i| i as usize),
        }
    }
}
