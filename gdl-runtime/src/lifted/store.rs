//! Interned symbols and hash-consed ground terms, with a per-evaluation overlay so that the
//! shared store stays immutable (and the interpreter or a lifted game `Sync`) after loading.

use super::hash::FastMap;
use super::term_ids::TermIds;

/// An interned symbol: a constant, function or relation name.
pub type Sym = u32;

/// A hash-consed ground term. Ids with [`LOCAL_BIT`] set live in an [`Overlay`].
pub type TermId = u32;

/// The most arguments of a term decoded without allocating (see [`Overlay::decode`]).
const ARGS_ON_STACK: usize = 8;

/// The most words [`with_words`] gathers on the stack.
const WORDS_ON_STACK: usize = 12;

/// Calls `f` with `len` words that `fill` writes, gathered on the stack when they are few: how
/// an index key or an input fact is put together without allocating.
#[inline]
pub(crate) fn with_words<R>(len: usize, fill: impl FnOnce(&mut [TermId]), f: impl FnOnce(&[TermId]) -> R) -> R {
    if len <= WORDS_ON_STACK {
        let mut stack = [0; WORDS_ON_STACK];
        fill(&mut stack[..len]);
        f(&stack[..len])
    } else {
        let mut heap = vec![0; len];
        fill(&mut heap);
        f(&heap)
    }
}

/// Appends `words` to `data`: a fact's or a key's few words copied in line, where a call to
/// `memcpy` would cost more than the copy.
#[inline(always)]
pub(crate) fn append_words(data: &mut Vec<TermId>, words: &[TermId]) {
    match *words {
        [] => {}
        [a] => data.push(a),
        [a, b] => data.extend_from_slice(&[a, b]),
        [a, b, c] => data.extend_from_slice(&[a, b, c]),
        [a, b, c, d] => data.extend_from_slice(&[a, b, c, d]),
        _ => data.extend_from_slice(words),
    }
}

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
    /// The number each symbol spells, when it is a natural number: read at every goal asked.
    naturals: Vec<Option<u32>>,
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
        self.naturals.push(name.parse().ok());
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

    /// The flat encoding of the ground term `text` (in KIF), read as [`Symbols::encode_sx`]
    /// reads it; `None` when it does not parse or names a symbol these do not have.
    pub fn encode_kif(&self, text: &str) -> Option<Vec<u32>> {
        let sx = crate::kif::parse_one(text).ok()?;
        let mut flat = Vec::new();
        self.encode_sx(&sx, &mut flat)?;
        Some(flat)
    }

    /// The number a constant term spells, when it is a natural number (a goal value).
    #[inline]
    pub fn natural(&self, node: &Node) -> Option<u32> {
        node.args.is_empty().then(|| self.naturals.get(node.sym as usize).copied().flatten()).flatten()
    }
}

/// The shared, load-time term store.
#[derive(Default, Debug)]
pub struct Terms {
    nodes: Vec<Node>,
    ids: TermIds,
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

    /// Adds the term `sym(args)`; returns its id, the existing one when the store has it
    /// already (then nothing is allocated).
    pub fn intern_args(&mut self, sym: Sym, args: &[TermId]) -> TermId {
        match self.find(sym, args) {
            Some(id) => id,
            None => self.intern(Node { sym, args: args.into() }),
        }
    }

    /// Interns the ground term `text` (in KIF) over `symbols`; `None` when it does not parse or
    /// names a symbol they do not have (then nothing is added).
    pub fn intern_kif(&mut self, symbols: &Symbols, text: &str) -> Option<TermId> {
        self.intern_flat(&symbols.encode_kif(text)?).map(|(id, _)| id)
    }

    /// Interns a term given in the flat prefix encoding of [`encode`], returning the rest;
    /// `None` when `flat` is cut short.
    pub fn intern_flat<'s>(&mut self, flat: &'s [u32]) -> Option<(TermId, &'s [u32])> {
        fold_flat(flat, &mut |sym, args| Some(self.intern_args(sym, args)))
    }

    /// The id of the term at the start of `flat` (in the flat prefix encoding of [`encode`]),
    /// with the rest; `None` when the store does not have it or `flat` is cut short.
    pub fn find_flat<'s>(&self, flat: &'s [u32]) -> Option<(TermId, &'s [u32])> {
        fold_flat(flat, &mut |sym, args| self.find(sym, args))
    }

    /// Lets the store find its terms through arrays where their arguments take few values,
    /// until a term is added (see the module `dense`): for a store that no longer grows.
    pub fn freeze(&mut self) {
        self.ids.freeze(&self.nodes);
    }

    /// Adds a term; returns its id, the existing one when the store has it already.
    pub fn intern(&mut self, node: Node) -> TermId {
        if let Some(id) = self.find(node.sym, &node.args) {
            return id;
        }
        let id = self.nodes.len() as TermId;
        assert!(id < LOCAL_BIT, "more than 2^31 ground terms");
        self.ids.insert(&node, id);
        self.nodes.push(node);
        id
    }
}

/// The id that `id` gives the term at the start of `flat` (in the flat prefix encoding of
/// [`encode`]), its arguments' ids given first, with the rest of `flat`; `None` when `flat` is
/// cut short or `id` gives none.
fn fold_flat<'s>(
    flat: &'s [u32],
    id: &mut impl FnMut(Sym, &[TermId]) -> Option<TermId>,
) -> Option<(TermId, &'s [u32])> {
    let [sym, arity, tail @ ..] = flat else { return None };
    let mut rest = tail;
    let mut args = Vec::with_capacity(*arity as usize);
    for _ in 0..*arity {
        let (arg, after) = fold_flat(rest, id)?;
        args.push(arg);
        rest = after;
    }
    Some((id(*sym, &args)?, rest))
}

/// Read access to ground terms, shared by the store and the overlay.
pub trait TermRead {
    /// The term `id`.
    fn node(&self, id: TermId) -> &Node;
    /// The id of the term `sym(args)`, if it has one.
    fn find(&self, sym: Sym, args: &[TermId]) -> Option<TermId>;
}

impl TermRead for Terms {
    fn node(&self, id: TermId) -> &Node {
        &self.nodes[id as usize]
    }
    #[inline]
    fn find(&self, sym: Sym, args: &[TermId]) -> Option<TermId> {
        self.ids.get(sym, args)
    }
}

/// New terms made during one evaluation, on top of the shared store.
pub struct Overlay<'a> {
    /// The shared store.
    pub base: &'a Terms,
    nodes: Vec<Node>,
    ids: TermIds,
}

impl<'a> Overlay<'a> {
    /// An overlay with no term of its own.
    pub fn new(base: &'a Terms) -> Overlay<'a> {
        Overlay { base, nodes: Vec::new(), ids: TermIds::default() }
    }

    /// Adds the term `sym(args)`; returns its id, the existing one when either store has it
    /// (then nothing is allocated).
    #[inline]
    pub fn intern_args(&mut self, sym: Sym, args: &[TermId]) -> TermId {
        if let Some(id) = self.find(sym, args) {
            return id;
        }
        let node = Node { sym, args: args.into() };
        let id = self.nodes.len() as TermId | LOCAL_BIT;
        self.ids.insert(&node, id);
        self.nodes.push(node);
        id
    }

    /// Interns a term given in the flat prefix encoding of [`encode`], returning the rest.
    pub fn decode<'s>(&mut self, flat: &'s [u32]) -> (TermId, &'s [u32]) {
        let (sym, arity, mut rest) = (flat[0], flat[1] as usize, &flat[2..]);
        if arity <= ARGS_ON_STACK {
            let mut args = [0; ARGS_ON_STACK];
            for arg in &mut args[..arity] {
                (*arg, rest) = self.decode(rest);
            }
            return (self.intern_args(sym, &args[..arity]), rest);
        }
        let mut args = Vec::with_capacity(arity);
        for _ in 0..arity {
            let (a, r) = self.decode(rest);
            args.push(a);
            rest = r;
        }
        (self.intern_args(sym, &args), rest)
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
    #[inline]
    fn find(&self, sym: Sym, args: &[TermId]) -> Option<TermId> {
        self.base.find(sym, args).or_else(|| self.ids.get(sym, args))
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
    let mut out = Vec::with_capacity(encoded_len(terms, id));
    encode(terms, id, &mut out);
    out.into_boxed_slice()
}

/// The number of words of a term's flat prefix encoding.
fn encoded_len(terms: &impl TermRead, id: TermId) -> usize {
    let node = terms.node(id);
    2 + node.args.iter().map(|&a| encoded_len(terms, a)).sum::<usize>()
}

/// The most words of a term whose flat encoding [`FlatCache`] keeps.
const SHORT_TERM: usize = 16;

/// The flat prefix encodings of a store's short terms (at most [`SHORT_TERM`] words), both
/// ways: a state's facts are read by one lookup each rather than one for every subterm, and
/// written by copying.
#[derive(Debug, Default)]
pub struct FlatCache {
    /// Where each term's encoding lies in `words`, by its id (length 0: not kept).
    of: Vec<(u32, u32)>,
    words: Vec<u32>,
    /// The id of each kept encoding.
    ids: FastMap<Box<[u32]>, TermId>,
}

impl FlatCache {
    /// The encodings of the short terms of `terms`, each made from its arguments' (which have
    /// smaller ids).
    pub fn new(terms: &Terms) -> FlatCache {
        let mut cache = FlatCache::default();
        for id in 0..terms.len() {
            let node = terms.node(id as TermId);
            let args = node.args.iter().map(|&a| cache.of.get(a as usize).map_or(0, |&(_, len)| len as usize));
            let len = args.clone().try_fold(2, |sum, len| (len > 0).then_some(sum + len)).filter(|&n| n <= SHORT_TERM);
            let Some(len) = len else {
                cache.of.push((0, 0));
                continue;
            };
            let from = cache.words.len();
            cache.words.extend([node.sym, node.args.len() as u32]);
            for &a in node.args.iter() {
                let (at, n) = cache.of[a as usize];
                cache.words.extend_from_within(at as usize..(at + n) as usize);
            }
            cache.of.push((from as u32, len as u32));
            cache.ids.insert(cache.words[from..].into(), id as TermId);
        }
        cache
    }

    /// Appends the flat prefix encoding of term `id` of `store` (whose shared store this
    /// cache is of), copying the kept encodings.
    pub fn encode(&self, store: &impl TermRead, id: TermId, out: &mut Vec<u32>) {
        if let Some(&(from, len)) = self.of.get(id as usize).filter(|(_, len)| *len > 0) {
            out.extend_from_slice(&self.words[from as usize..(from + len) as usize]);
            return;
        }
        let node = store.node(id);
        out.extend([node.sym, node.args.len() as u32]);
        for &a in node.args.iter() {
            self.encode(store, a, out);
        }
    }

    /// The flat prefix encoding of term `id` of `store`, as [`FlatCache::encode`] appends it.
    pub fn encoded(&self, store: &impl TermRead, id: TermId) -> Box<[u32]> {
        if let Some(&(from, len)) = self.of.get(id as usize).filter(|(_, len)| *len > 0) {
            return self.words[from as usize..(from + len) as usize].into();
        }
        encoded(store, id)
    }

    /// The id of the term whose whole flat encoding is `flat`, interned in `store` when the
    /// cache does not have it.
    pub fn decode(&self, store: &mut Overlay<'_>, flat: &[u32]) -> TermId {
        match self.ids.get(flat) {
            Some(&id) => id,
            None => store.decode(flat).0,
        }
    }
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
    fn find(&self, sym: Sym, args: &[TermId]) -> Option<TermId> {
        (**self).find(sym, args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(list 0 (list 1 (... (list n nil))))`, interned in `terms`.
    fn list(terms: &mut Terms, n: u32) -> TermId {
        let mut tail = terms.intern_args(0, &[]);
        for i in (0..=n).rev() {
            let head = terms.intern_args(10 + i, &[]);
            tail = terms.intern_args(1, &[head, tail]);
        }
        tail
    }

    #[test]
    fn the_flat_cache_reads_and_writes_terms_as_encode_and_decode_do() {
        let mut terms = Terms::default();
        // Lists of 1 to 6 elements: the short ones are kept, the long ones not.
        let lists: Vec<TermId> = (0..6).map(|n| list(&mut terms, n)).collect();
        let cache = FlatCache::new(&terms);
        let mut overlay = Overlay::new(&terms);
        let head = overlay.intern_args(99, &[]);
        let new = overlay.intern_args(1, &[head, lists[0]]);
        for &id in lists.iter().chain([&new]) {
            let mut plain = Vec::new();
            encode(&overlay, id, &mut plain);
            let mut cached = Vec::new();
            cache.encode(&overlay, id, &mut cached);
            assert_eq!(cached, plain);
            assert_eq!(*cache.encoded(&overlay, id), *plain);
            assert_eq!(cache.decode(&mut overlay, &plain), id);
        }
        assert!(cache.ids.len() < terms.len(), "every term was kept");
        assert!(cache.ids.contains_key(&encoded(&terms, lists[1])));
    }

    /// A term interned from its flat encoding is the one interned argument by argument, found
    /// again from its encoding, of any length; a term the store lacks and a cut encoding are
    /// not found.
    #[test]
    fn terms_are_interned_and_found_by_their_flat_encoding() {
        let mut terms = Terms::default();
        let long = list(&mut terms, 20);
        let flat = encoded(&terms, long);
        assert_eq!(terms.find_flat(&flat), Some((long, &[][..])));
        let mut other = Terms::default();
        assert_eq!(other.find_flat(&flat), None);
        assert_eq!(
            other.intern_flat(&flat).map(|(id, rest)| (encoded(&other, id), rest.len())),
            Some((flat.clone(), 0))
        );
        assert_eq!(terms.find_flat(&flat[..flat.len() - 1]), None);
        assert_eq!(terms.intern_flat(&flat[..3]), None);
    }

    #[test]
    fn terms_of_one_symbol_and_any_arity_are_told_apart_in_the_store_and_an_overlay() {
        let mut terms = Terms::default();
        // Symbol 5 with no argument, one, two and three, and arguments whose ids fill the high
        // half of a key's word.
        let big = (0..70_000).map(|i| terms.intern_args(1000 + i, &[])).last().unwrap_or(0);
        let shapes: Vec<Vec<TermId>> = vec![vec![], vec![0], vec![0, 0], vec![0, big], vec![big, 0], vec![0, 0, 0]];
        let ids: Vec<TermId> = shapes.iter().map(|args| terms.intern_args(5, args)).collect();
        let mut distinct = ids.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), shapes.len());
        for (args, &id) in shapes.iter().zip(&ids) {
            assert_eq!(terms.find(5, args), Some(id));
            assert_eq!(&*terms.node(id).args, &args[..]);
        }
        assert_eq!(terms.find(5, &[big, big]), None);
        let mut overlay = Overlay::new(&terms);
        assert_eq!(overlay.intern_args(5, &[0, big]), ids[3]);
        let local = overlay.intern_args(5, &[big, big]);
        assert_ne!(local & LOCAL_BIT, 0);
        assert_eq!(overlay.find(5, &[big, big]), Some(local));
        assert_eq!(overlay.intern_args(5, &[big, big]), local);
        assert_eq!(overlay.find(6, &[big, big]), None);
    }
}
