//! The rows that the prover's goals look up: static relations and the state's facts as sorted
//! tables, the rows of the state tables that hold in one state, and indexes of static tables
//! by the columns a search binds.

use super::rules::Deferred;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// For a static table and a set of its columns (a mask) that a search has bound, the table's
/// row numbers sorted by those columns, built the first time a search looks rows up that way:
/// chess's searches look `(pawn_capture ?u ?v ?x ?y ?p)` up by `?x ?y`, which a table sorted
/// by its first column can only scan. Derived from the tables alone, so checks that differ only
/// in it are equal.
#[derive(Default)]
pub struct Indexes(pub(super) RwLock<HashMap<IndexKey, Arc<[u32]>>>);

/// A static table and the mask of its columns an index orders rows by.
type IndexKey = (u32, u64);

impl Clone for Indexes {
    fn clone(&self) -> Indexes {
        Indexes::default()
    }
}

impl PartialEq for Indexes {
    fn eq(&self, _: &Indexes) -> bool {
        true
    }
}

impl Eq for Indexes {}

impl std::fmt::Debug for Indexes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Indexes")
    }
}

/// The fewest rows a table needs for a lookup by other columns to go through an index.
pub(super) const INDEXED_ROWS: usize = 16;

impl Deferred {
    /// The row numbers of static table `t` sorted by the columns of `mask` (then by row).
    pub(super) fn index(&self, t: u32, mask: u64) -> Arc<[u32]> {
        if let Some(index) = self.indexes.0.read().ok().and_then(|m| m.get(&(t, mask)).cloned()) {
            return index;
        }
        let table = &self.tables[t as usize];
        let index = order_by_columns(&table.rows, table.width(), table.arity as usize, mask);
        if let Ok(mut map) = self.indexes.0.write() {
            map.insert((t, mask), index.clone());
        }
        index
    }
}

/// The numbers of `rows` (each `width` long) sorted by the columns of `mask` among their first
/// `arity`, then by number.
fn order_by_columns(rows: &[u32], width: usize, arity: usize, mask: u64) -> Arc<[u32]> {
    let columns: Vec<usize> = (0..arity).filter(|&c| mask >> c & 1 != 0).collect();
    let mut order: Vec<u32> = (0..(rows.len() / width.max(1)) as u32).collect();
    let key = |r: u32| columns.iter().map(move |&c| rows[r as usize * width + c]);
    order.sort_by(|&a, &b| key(a).cmp(key(b)).then(a.cmp(&b)));
    order.into()
}

/// Rows of symbols, sorted. A table of the state's facts ends every row with the index of the
/// base fact it stands for, and a row holds only while that fact is true.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table {
    /// The number of arguments of a row.
    pub arity: u32,
    /// Whether the table holds the state's facts of one shape (its rows then end with the index
    /// of their base fact) rather than a static relation.
    pub state: bool,
    /// The rows one after another, `arity` symbols each (one more in a state table), sorted.
    pub rows: Vec<u32>,
}

impl Table {
    pub(super) fn width(&self) -> usize {
        self.arity as usize + usize::from(self.state)
    }

    pub(super) fn row_holds(&self, row: &[u32], state: &[u64]) -> bool {
        !self.state || {
            let bit = row[self.arity as usize] as usize;
            state.get(bit / 64).is_some_and(|w| w >> (bit % 64) & 1 != 0)
        }
    }

    /// All its rows, each `width` long, whether or not they hold.
    pub(super) fn all_rows(&self) -> Rows<'_> {
        Rows { rows: &self.rows, width: self.width(), arity: self.arity as usize }
    }
}

/// The rows of the state's tables that hold in one state. A table of the state's facts lists
/// every fact of its shape that can ever hold (chess's 832 `(cell x y piece)`), few of which
/// hold at a time (64): a search reads these instead, built once for all the atoms a state's
/// evaluation asks for.
#[derive(Clone, Debug, Default)]
pub struct StateRows {
    /// For every table of the state's facts with arguments, the arguments of its rows that
    /// hold, in the table's order; `None` for the other tables.
    pub(super) rows: Vec<Option<Vec<u32>>>,
    /// Orders of those rows by the columns searches bind (a table and a mask of its columns,
    /// as [`Indexes`]), built when first needed: chess's searches look `(cell ?u ?v ?piece)`
    /// up with the piece bound.
    indexes: RefCell<Vec<(IndexKey, Arc<[u32]>)>>,
}

impl StateRows {
    /// The rows of `checks`'s state tables that hold in `state`.
    pub fn new(checks: &Deferred, state: &[u64]) -> StateRows {
        let rows = checks
            .tables
            .iter()
            .map(|table| {
                (table.state && table.arity > 0).then(|| {
                    let arity = table.arity as usize;
                    let holding = table.rows.chunks_exact(table.width()).filter(|row| table.row_holds(row, state));
                    holding.flat_map(|row| &row[..arity]).copied().collect()
                })
            })
            .collect();
        StateRows { rows, indexes: RefCell::default() }
    }

    /// The numbers of `rows`, the holding rows of state table `t`, sorted by the columns of
    /// `mask` (then by number).
    pub(super) fn index(&self, t: u32, mask: u64, rows: Rows<'_>) -> Arc<[u32]> {
        if let Some((_, index)) = self.indexes.borrow().iter().find(|(key, _)| *key == (t, mask)) {
            return index.clone();
        }
        let index = order_by_columns(rows.rows, rows.width, rows.arity, mask);
        self.indexes.borrow_mut().push(((t, mask), index.clone()));
        index
    }
}

/// Rows of `width` symbols sorted by their first `arity`: a table's (a state table's end with
/// the index of their fact), or the holding rows of a state table (just their arguments).
#[derive(Clone, Copy)]
pub(super) struct Rows<'a> {
    pub(super) rows: &'a [u32],
    pub(super) width: usize,
    pub(super) arity: usize,
}

impl<'a> Rows<'a> {
    /// The rows whose first column is `first` (every row when it is unbound).
    pub(super) fn candidates(self, first: Option<u32>) -> &'a [u32] {
        let width = self.width;
        match first {
            _ if width == 0 => &[],
            Some(value) if self.arity > 0 => {
                let rows = self.rows.len() / width;
                let start = partition_rows(rows, |i| self.rows[i * width] < value);
                let end = partition_rows(rows, |i| self.rows[i * width] <= value);
                &self.rows[start * width..end * width]
            }
            _ => self.rows,
        }
    }

    /// The row whose arguments are `key` (every column bound), if there is one.
    pub(super) fn find(self, key: &[u32]) -> Option<&'a [u32]> {
        let width = self.width;
        if width == 0 {
            return None;
        }
        let rows = self.rows.len() / width;
        let row = |i: usize| &self.rows[i * width..(i + 1) * width];
        let at = partition_rows(rows, |i| &row(i)[..self.arity] < key);
        (at < rows && &row(at)[..self.arity] == key).then(|| row(at))
    }
}

/// The first of `n` rows for which `before` is false (`before` is true then false).
fn partition_rows(n: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}
