//! The ids of a store's terms by their symbol and arguments ([`TermIds`]): how a term is found
//! before it is interned again.

use super::dense::Digits;
use super::hash::FastMap;
use super::store::{Node, Sym, TermId};

/// A term as a symbol and the ids of its arguments, borrowed or owned: how the stores are
/// searched without building a [`Node`].
trait NodeKey {
    fn sym(&self) -> Sym;
    fn args(&self) -> &[TermId];
}

impl NodeKey for Node {
    fn sym(&self) -> Sym {
        self.sym
    }
    fn args(&self) -> &[TermId] {
        &self.args
    }
}

impl NodeKey for (Sym, &[TermId]) {
    fn sym(&self) -> Sym {
        self.0
    }
    fn args(&self) -> &[TermId] {
        self.1
    }
}

// As `Node` derives them: the symbol, then the arguments as a slice.
impl std::hash::Hash for dyn NodeKey + '_ {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.sym().hash(state);
        self.args().hash(state);
    }
}

impl PartialEq for dyn NodeKey + '_ {
    fn eq(&self, other: &Self) -> bool {
        self.sym() == other.sym() && self.args() == other.args()
    }
}

impl Eq for dyn NodeKey + '_ {}

impl<'a> std::borrow::Borrow<dyn NodeKey + 'a> for Node {
    fn borrow(&self) -> &(dyn NodeKey + 'a) {
        self
    }
}

/// The ids of a store's terms by their symbol and arguments. A term of at most two arguments
/// (most of a game's: cells, moves, numbers) is keyed by two words that hold its symbol, arity
/// and arguments, so that a lookup hashes and compares those words in place; a longer term is
/// keyed by its node. A store that no longer grows may also find its terms through arrays
/// ([`TermIds::freeze`]).
#[derive(Default, Debug)]
pub(super) struct TermIds {
    short: FastMap<(u64, u64), TermId>,
    long: FastMap<Node, TermId>,
    /// For every symbol, its terms of one arity by the ranks of their arguments, where those
    /// take few values (see [`super::dense`]); empty until the ids are frozen.
    dense: Vec<Option<DenseIds>>,
}

/// The terms of one symbol and arity, each at the cell of its arguments' ranks.
#[derive(Debug)]
struct DenseIds {
    arity: usize,
    digits: Digits,
    /// The id of the term of every cell, or [`NO_ID`].
    ids: Box<[TermId]>,
}

/// What [`DenseIds::ids`] holds for a cell that is no term.
const NO_ID: TermId = TermId::MAX;

impl TermIds {
    /// The id of the term `sym(args)`.
    #[inline]
    pub(super) fn get(&self, sym: Sym, args: &[TermId]) -> Option<TermId> {
        if let Some(Some(dense)) = self.dense.get(sym as usize) {
            if dense.arity == args.len() {
                let id = dense.digits.cell(args.iter().copied()).map(|cell| dense.ids[cell]);
                return id.filter(|&id| id != NO_ID);
            }
        }
        match short_key(sym, args) {
            Some(key) => self.short.get(&key).copied(),
            None => self.long.get(&(sym, args) as &dyn NodeKey).copied(),
        }
    }

    /// Gives the term `node` the id `id`. The arrays of [`TermIds::freeze`], if any, are
    /// dropped.
    pub(super) fn insert(&mut self, node: &Node, id: TermId) {
        if !self.dense.is_empty() {
            self.dense = Vec::new();
        }
        match short_key(node.sym, &node.args) {
            Some(key) => {
                self.short.insert(key, id);
            }
            None => {
                self.long.insert(node.clone(), id);
            }
        }
    }
}

impl TermIds {
    /// Adds arrays that find the terms `nodes` (each at its id) without hashing: for every
    /// symbol, its terms of the arity of its first term, where their arguments take few values.
    pub(super) fn freeze(&mut self, nodes: &[Node]) {
        let mut by_symbol: Vec<Vec<TermId>> = Vec::new();
        for (id, node) in nodes.iter().enumerate() {
            let sym = node.sym as usize;
            if by_symbol.len() <= sym {
                by_symbol.resize_with(sym + 1, Vec::new);
            }
            by_symbol[sym].push(id as TermId);
        }
        self.dense = by_symbol.iter().map(|ids| DenseIds::new(nodes, ids)).collect();
    }
}

impl DenseIds {
    /// The terms `ids` of `nodes` that have the arity of the first, `None` when there are none
    /// or their arguments take too many values.
    fn new(nodes: &[Node], ids: &[TermId]) -> Option<DenseIds> {
        let arity = nodes[*ids.first()? as usize].args.len();
        let of_arity = || ids.iter().map(|&id| (id, &nodes[id as usize].args)).filter(|(_, args)| args.len() == arity);
        let data: Vec<TermId> = of_arity().flat_map(|(_, args)| args.iter().copied()).collect();
        let positions: Vec<usize> = (0..arity).collect();
        // Terms fill most of their cells (a board's every cell is a term), so the arrays may
        // be at most about twice as many as the terms.
        let count = of_arity().count();
        let digits = Digits::new(&data, arity, &positions, 2 * count + 1_024)?;
        let mut cells = vec![NO_ID; digits.cells].into_boxed_slice();
        for (id, args) in of_arity() {
            cells[digits.cell(args.iter().copied())?] = id;
        }
        Some(DenseIds { arity, digits, ids: cells })
    }
}

/// The key of a term of at most two arguments in [`TermIds`]: its symbol and arity, then its
/// arguments.
#[inline]
fn short_key(sym: Sym, args: &[TermId]) -> Option<(u64, u64)> {
    let head = u64::from(sym) << 2;
    match *args {
        [] => Some((head, 0)),
        [a] => Some((head | 1, u64::from(a))),
        [a, b] => Some((head | 2, u64::from(a) << 32 | u64::from(b))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frozen_ids_find_every_term_and_no_other_until_a_term_is_added() {
        let mut nodes = Vec::new();
        let mut ids = TermIds::default();
        let add = |ids: &mut TermIds, nodes: &mut Vec<Node>, sym: Sym, args: &[TermId]| {
            let node = Node { sym, args: args.into() };
            ids.insert(&node, nodes.len() as TermId);
            nodes.push(node);
        };
        for constant in 0..5 {
            add(&mut ids, &mut nodes, constant, &[]);
        }
        for (x, y, piece) in (0..5).flat_map(|x| (0..5).map(move |y| (x, y, (x + y) % 3))).filter(|t| t.0 != 2) {
            add(&mut ids, &mut nodes, 5, &[x, y, piece]);
        }
        add(&mut ids, &mut nodes, 5, &[1]);
        let probes: Vec<(Sym, Vec<TermId>)> = (0..7)
            .flat_map(|sym| (0..6).flat_map(move |x| (0..6).map(move |y| (sym, vec![x, y, (x + y) % 3]))))
            .chain((0..5).map(|constant| (constant, vec![])))
            .chain([(5, vec![1]), (5, vec![4]), (9, vec![])])
            .collect();
        let hashed: Vec<Option<TermId>> = probes.iter().map(|(sym, args)| ids.get(*sym, args)).collect();
        assert_eq!(hashed.iter().filter(|id| id.is_some()).count(), nodes.len());
        ids.freeze(&nodes);
        assert!(ids.dense[5].is_some());
        assert_eq!(probes.iter().map(|(sym, args)| ids.get(*sym, args)).collect::<Vec<_>>(), hashed);
        add(&mut ids, &mut nodes, 5, &[2, 2, 1]);
        assert!(ids.dense.is_empty(), "a new term drops the arrays");
        assert_eq!(ids.get(5, &[2, 2, 1]), Some(nodes.len() as TermId - 1));
    }
}
