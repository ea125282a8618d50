//! The ids of a store's terms by their symbol and arguments ([`TermIds`]): how a term is found
//! before it is interned again.

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
/// keyed by its node.
#[derive(Default, Debug)]
pub(super) struct TermIds {
    short: FastMap<(u64, u64), TermId>,
    long: FastMap<Node, TermId>,
}

impl TermIds {
    /// The id of the term `sym(args)`.
    #[inline]
    pub(super) fn get(&self, sym: Sym, args: &[TermId]) -> Option<TermId> {
        match short_key(sym, args) {
            Some(key) => self.short.get(&key).copied(),
            None => self.long.get(&(sym, args) as &dyn NodeKey).copied(),
        }
    }

    /// Gives the term `node` the id `id`.
    pub(super) fn insert(&mut self, node: &Node, id: TermId) {
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
