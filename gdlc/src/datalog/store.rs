//! Interned symbols and hash-consed ground terms, with a per-evaluation overlay so that the
//! shared store stays immutable (and the interpreter `Sync`) after loading.

use rustc_hash::FxHashMap;

/// An interned symbol: a constant, function or relation name.
pub(crate) type Sym = u32;

/// A hash-consed ground term. Ids with [`LOCAL_BIT`] set live in an [`Overlay`].
pub(crate) type TermId = u32;

/// Marks term ids that belong to an evaluation's overlay rather than the shared store.
pub(crate) const LOCAL_BIT: u32 = 1 << 31;

/// A ground term node: a symbol applied to argument terms (none for a constant).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Node {
    pub sym: Sym,
    pub args: Box<[TermId]>,
}

/// The symbols of a game, in the order first seen.
#[derive(Default, Debug)]
pub(crate) struct Symbols {
    names: Vec<String>,
    ids: FxHashMap<String, Sym>,
}

impl Symbols {
    pub(crate) fn intern(&mut self, name: &str) -> Sym {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as Sym;
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), id);
        id
    }

    pub(crate) fn get(&self, name: &str) -> Option<Sym> {
        self.ids.get(name).copied()
    }

    /// The symbol spelled `name`, or else the only one spelled like it in another letter case
    /// (`None` when there are several): how a move sent by a manager names a game's symbol.
    pub(crate) fn find_in_any_case(&self, name: &str) -> Option<Sym> {
        if let Some(sym) = self.get(name) {
            return Some(sym);
        }
        let lower = name.to_lowercase();
        let mut found = self.names.iter().enumerate().filter(|(_, n)| n.to_lowercase() == lower);
        match (found.next(), found.next()) {
            (Some((index, _)), None) => Some(index as Sym),
            _ => None,
        }
    }

    pub(crate) fn name(&self, sym: Sym) -> &str {
        &self.names[sym as usize]
    }
}

/// The shared, load-time term store.
#[derive(Default, Debug)]
pub(crate) struct Terms {
    nodes: Vec<Node>,
    ids: FxHashMap<Node, TermId>,
}

impl Terms {
    pub(crate) fn intern(&mut self, node: Node) -> TermId {
        if let Some(&id) = self.ids.get(&node) {
            return id;
        }
        let id = self.nodes.len() as TermId;
        assert!(id < LOCAL_BIT, "more than 2^31 ground terms");
        self.nodes.push(node.clone());
        self.ids.insert(node, id);
        id
    }
}

/// Read access to ground terms, shared by the store and the overlay.
pub(crate) trait TermRead {
    fn node(&self, id: TermId) -> &Node;
    fn find(&self, node: &Node) -> Option<TermId>;
}

impl TermRead for Terms {
    fn node(&self, id: TermId) -> &Node {
        &self.nodes[id as usize]
    }
    fn find(&self, node: &Node) -> Option<TermId> {
        self.ids.get(node).copied()
    }
}

/// New terms made during one evaluation, on top of the shared store.
pub(crate) struct Overlay<'a> {
    pub base: &'a Terms,
    nodes: Vec<Node>,
    ids: FxHashMap<Node, TermId>,
}

impl<'a> Overlay<'a> {
    pub(crate) fn new(base: &'a Terms) -> Overlay<'a> {
        Overlay { base, nodes: Vec::new(), ids: FxHashMap::default() }
    }

    pub(crate) fn intern(&mut self, node: Node) -> TermId {
        if let Some(id) = self.find(&node) {
            return id;
        }
        let id = self.nodes.len() as TermId | LOCAL_BIT;
        self.nodes.push(node.clone());
        self.ids.insert(node, id);
        id
    }

    /// Interns a term given in the flat prefix encoding of [`encode`], returning the rest.
    pub(crate) fn decode<'s>(&mut self, flat: &'s [u32]) -> (TermId, &'s [u32]) {
        let (sym, arity, mut rest) = (flat[0], flat[1] as usize, &flat[2..]);
        let mut args = Vec::with_capacity(arity);
        for _ in 0..arity {
            let (a, r) = self.decode(rest);
            args.push(a);
            rest = r;
        }
        (self.intern(Node { sym, args: args.into() }), rest)
    }
}

impl TermRead for Overlay<'_> {
    fn node(&self, id: TermId) -> &Node {
        if id & LOCAL_BIT != 0 {
            &self.nodes[(id & !LOCAL_BIT) as usize]
        } else {
            self.base.node(id)
        }
    }
    fn find(&self, node: &Node) -> Option<TermId> {
        self.base.find(node).or_else(|| self.ids.get(node).copied())
    }
}

/// Appends the flat prefix encoding of a term (`sym, arity, args...`), which identifies it
/// independently of any store.
pub(crate) fn encode(terms: &impl TermRead, id: TermId, out: &mut Vec<u32>) {
    let node = terms.node(id);
    out.push(node.sym);
    out.push(node.args.len() as u32);
    for &a in node.args.iter() {
        encode(terms, a, out);
    }
}

/// Writes a flat-encoded term in canonical KIF.
pub(crate) fn write_flat<'s>(symbols: &Symbols, flat: &'s [u32], out: &mut String) -> &'s [u32] {
    let (sym, arity, mut rest) = (flat[0], flat[1] as usize, &flat[2..]);
    if arity == 0 {
        out.push_str(symbols.name(sym));
        return rest;
    }
    out.push('(');
    out.push_str(symbols.name(sym));
    for _ in 0..arity {
        out.push(' ');
        rest = write_flat(symbols, rest, out);
    }
    out.push(')');
    rest
}
