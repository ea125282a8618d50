//! Interned symbols and hash-consed ground terms, with a per-evaluation overlay so that the
//! shared store stays immutable (and the interpreter or a lifted game `Sync`) after loading.

use super::hash::FastMap;

/// An interned symbol: a constant, function or relation name.
pub type Sym = u32;

/// A hash-consed ground term. Ids with [`LOCAL_BIT`] set live in an [`Overlay`].
pub type TermId = u32;

/// Marks term ids that belong to an evaluation's overlay rather than the shared store.
pub const LOCAL_BIT: u32 = 1 << 31;

/// A ground term node: a symbol applied to argument terms (none for a constant).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    /// The symbol.
    pub sym: Sym,
    /// The arguments, none for a constant.
    pub args: Box<[TermId]>,
}

/// The symbols of a game, in the order first seen.
#[derive(Default, Debug)]
pub struct Symbols {
    names: Vec<String>,
    ids: FastMap<String, Sym>,
}

impl Symbols {
    /// The symbols spelled `names`, numbered in their order (each should be spelled once).
    pub fn from_names(names: &[&str]) -> Symbols {
        let mut symbols = Symbols::default();
        for name in names {
            symbols.intern(name);
        }
        symbols
    }

    /// Every symbol's name, in the order of the symbols.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Numbers a symbol; returns its number, the existing one when it has one already.
    pub fn intern(&mut self, name: &str) -> Sym {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as Sym;
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), id);
        id
    }

    /// The symbol spelled `name`, if there is one.
    pub fn get(&self, name: &str) -> Option<Sym> {
        self.ids.get(name).copied()
    }

    /// The symbol spelled `name`, or else the only one spelled like it in another letter case
    /// (`None` when there are several): how a move sent by a manager names a game's symbol.
    pub fn find_in_any_case(&self, name: &str) -> Option<Sym> {
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

    /// How symbol `sym` is spelled.
    pub fn name(&self, sym: Sym) -> &str {
        &self.names[sym as usize]
    }

    /// A flat-encoded term in canonical KIF.
    pub fn kif(&self, flat: &[u32]) -> String {
        let mut text = String::new();
        write_flat(self, flat, &mut text);
        text
    }

    /// Appends the flat encoding of an s-expression over these symbols, if they have them all:
    /// each atom is the symbol spelled so, or else the only one spelled so in another letter
    /// case (how a move sent by a manager names a game's symbol).
    pub fn encode_sx(&self, sx: &crate::kif::Sx, out: &mut Vec<u32>) -> Option<()> {
        match sx {
            crate::kif::Sx::Atom(a) => out.extend([self.find_in_any_case(a)?, 0]),
            crate::kif::Sx::List(items) => {
                let (crate::kif::Sx::Atom(f), args) = items.split_first()? else { return None };
                out.extend([self.find_in_any_case(f)?, args.len() as u32]);
                for a in args {
                    self.encode_sx(a, out)?;
                }
            }
        }
        Some(())
    }

    /// The number a constant term spells, when it is a natural number (a goal value).
    pub fn natural(&self, node: &Node) -> Option<u32> {
        node.args.is_empty().then(|| self.name(node.sym).parse().ok()).flatten()
    }
}

/// The shared, load-time term store.
#[derive(Default, Debug)]
pub struct Terms {
    nodes: Vec<Node>,
    ids: FastMap<Node, TermId>,
}

impl Terms {
    /// The number of terms.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the store has no term.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The store of the terms given in `flat`, each in the order of its id as `sym, arity, args`
    /// (the ids of its arguments, all smaller than its own): how generated code embeds the terms
    /// that gdlc interned. `None` when `flat` is not such a list.
    pub fn from_flat(mut flat: &[u32]) -> Option<Terms> {
        let mut terms = Terms::default();
        while let [sym, arity, rest @ ..] = flat {
            let arity = *arity as usize;
            let args: Box<[TermId]> = rest.get(..arity)?.into();
            if args.iter().any(|&a| a as usize >= terms.len()) || terms.len() >= LOCAL_BIT as usize {
                return None;
            }
            let id = terms.len() as TermId;
            if terms.intern(Node { sym: *sym, args }) != id {
                return None;
            }
            flat = &rest[arity..];
        }
        Some(terms)
    }

    /// Appends every term to `out` as [`Terms::from_flat`] reads them.
    pub fn write_flat_nodes(&self, out: &mut Vec<u32>) {
        for node in &self.nodes {
            out.push(node.sym);
            out.push(node.args.len() as u32);
            out.extend(node.args.iter());
        }
    }

    /// Adds a term; returns its id, the existing one when the store has it already.
    pub fn intern(&mut self, node: Node) -> TermId {
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
pub trait TermRead {
    /// The term `id`.
    fn node(&self, id: TermId) -> &Node;
    /// The id of the term `node`, if it has one.
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
pub struct Overlay<'a> {
    /// The shared store.
    pub base: &'a Terms,
    nodes: Vec<Node>,
    ids: FastMap<Node, TermId>,
}

impl<'a> Overlay<'a> {
    /// An overlay with no term of its own.
    pub fn new(base: &'a Terms) -> Overlay<'a> {
        Overlay { base, nodes: Vec::new(), ids: FastMap::default() }
    }

    /// Adds a term; returns its id, the existing one when either store has it.
    pub fn intern(&mut self, node: Node) -> TermId {
        if let Some(id) = self.find(&node) {
            return id;
        }
        let id = self.nodes.len() as TermId | LOCAL_BIT;
        self.nodes.push(node.clone());
        self.ids.insert(node, id);
        id
    }

    /// Interns a term given in the flat prefix encoding of [`encode`], returning the rest.
    pub fn decode<'s>(&mut self, flat: &'s [u32]) -> (TermId, &'s [u32]) {
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
pub fn encode(terms: &impl TermRead, id: TermId, out: &mut Vec<u32>) {
    let node = terms.node(id);
    out.push(node.sym);
    out.push(node.args.len() as u32);
    for &a in node.args.iter() {
        encode(terms, a, out);
    }
}

/// The flat prefix encoding of a term, as [`encode`] appends it.
pub fn encoded(terms: &impl TermRead, id: TermId) -> Box<[u32]> {
    let mut out = Vec::new();
    encode(terms, id, &mut out);
    out.into_boxed_slice()
}

/// Writes a flat-encoded term in canonical KIF.
pub fn write_flat<'s>(symbols: &Symbols, flat: &'s [u32], out: &mut String) -> &'s [u32] {
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

impl<T: TermRead> TermRead for &mut T {
    fn node(&self, id: TermId) -> &Node {
        (**self).node(id)
    }
    fn find(&self, node: &Node) -> Option<TermId> {
        (**self).find(node)
    }
}
