//! A table's facts group by group: those that share their terms at some argument positions
//! together. A rule whose head is complete once a loop's fact binds it, and which reads more
//! of that fact than its head takes, derives one head from each group: grouped, the loop goes
//! on to the next group once the head is derived rather than derive it again from each fact of
//! the group.

use super::{Candidates, Chain, DenseIndex, Index, Table, EMPTY};

/// The groups of a table's facts by their terms at some positions, each as the positions of
/// its facts ([`Table::groups`]).
pub struct Groups<'t>(Walk<'t>);

/// How [`Groups`] walks the groups.
enum Walk<'t> {
    /// The groups of a frozen table's array index, by number.
    Runs { index: &'t DenseIndex, next: std::ops::Range<usize> },
    /// The groups of a hash index, by number.
    Chains { index: &'t Index, next: std::ops::Range<usize> },
    /// Every fact apart, for a table with no index on the positions.
    Each(std::ops::Range<u32>),
}

impl<'t> Iterator for Groups<'t> {
    type Item = Candidates<'t>;

    #[inline]
    fn next(&mut self) -> Option<Candidates<'t>> {
        match &mut self.0 {
            Walk::Runs { index, next } => next.next().map(|k| Candidates::Run(index.group(k).iter())),
            Walk::Chains { index, next } => {
                let group = next.next()?;
                let first = index.groups.get(group).map_or(EMPTY, |g| g.0);
                Some(Candidates::Found(Chain { next: &index.next, at: first }))
            }
            Walk::Each(facts) => facts.next().map(|i| Candidates::All(i..i + 1)),
        }
    }
}

impl Table {
    /// The facts grouped by their terms at `positions`, through the index on them; each fact
    /// a group of its own when the table has none.
    pub fn groups(&self, positions: &[usize]) -> Groups<'_> {
        Groups(match self.index_on(positions) {
            Some(Index { dense: Some(index), .. }) => Walk::Runs { index, next: 0..index.groups() },
            Some(index) => Walk::Chains { index, next: 0..index.groups.len() },
            None => Walk::Each(0..self.len as u32),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The facts of each group, as sorted lists of positions, sorted.
    fn grouped(table: &Table, positions: &[usize]) -> Vec<Vec<usize>> {
        let mut groups: Vec<Vec<usize>> = table.groups(positions).map(|group| group.collect()).collect();
        groups.sort();
        groups
    }

    #[test]
    fn every_fact_is_in_the_one_group_of_its_key() {
        let mut table = Table::default();
        for fact in [[1, 7], [2, 7], [3, 8], [4, 7], [5, 9]] {
            table.insert(&fact);
        }
        assert_eq!(grouped(&table, &[1]), [vec![0], vec![1], vec![2], vec![3], vec![4]], "no index: apart");
        table.ensure_index(&[1]);
        let by_second = vec![vec![0, 1, 3], vec![2], vec![4]];
        assert_eq!(grouped(&table, &[1]), by_second, "hash index");
        table.freeze();
        assert_eq!(grouped(&table, &[1]), by_second, "array index");
    }
}
