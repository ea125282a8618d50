//! Where a role's legal moves are found, which `legal` and `random_step` share: the role's
//! guard (a literal most of its moves imply, tested before them), its families of moves
//! evaluated a word at a time (one rule over different places on the board), and the words of
//! `parts` whose bits stand for its moves. A family's anchors in one state word keep their bit
//! positions, so its moves are set with one word operation; the moves of a group of node words
//! keep their places too; every other move takes a free bit. `random_step` draws among the set
//! bits word by word, from the lowest bit, and `legal` lists them in that order.

use super::emit::{Body, Slots};
use super::families::{self, family_word, Family};
use super::node_words::NodeWords;
use super::tables::{hex, words};
use crate::ground::{Ground, Lit, Prop, Value};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};

/// The most families of one role's legal moves that are evaluated a word at a time.
const MAX_LEGAL_FAMILIES: usize = 8;

/// The fewest moves of a role that a literal must guard to be tested before them in
/// `random_step`.
const GUARD_MIN: usize = 4;

/// A role's guard: the literal, and for each of its moves whether the literal guards it.
pub(crate) type LegalGuard = (Lit, Vec<bool>);

/// How one role's legal moves are found.
pub(crate) struct RoleLegal {
    pub(crate) guard: Option<LegalGuard>,
    pub(crate) families: LegalFamilies,
    pub(crate) parts: LegalParts,
}

impl RoleLegal {
    /// The plan of a role whose legal moves are `moves`, with the node words `words` and the
    /// flat nodes `flat` (see [`families::flat_nodes`]).
    pub(crate) fn plan(
        ground: &Ground,
        moves: &[(u32, Value)],
        words: &NodeWords,
        flat: &[Option<Vec<Lit>>],
    ) -> RoleLegal {
        let guard = legal_guard(ground, moves);
        let families = legal_families(ground, moves, &guard, flat);
        let parts = LegalParts::new(&families, moves, words, &guard);
        RoleLegal { guard, families, parts }
    }

    /// Whether the role's moves are tested one by one, in the order of `MOVES`, with no words
    /// of `parts`: it has no families and no moves of node words.
    pub(crate) fn one_by_one(&self) -> bool {
        self.families.families.is_empty() && self.parts.group_words.is_empty()
    }
}

/// A role's guard in `random_step`: a literal of the state that the conditions of at least
/// [`GUARD_MIN`] of its moves imply (each is that literal, or a node every rule of which has
/// it), with which of `moves` it guards. When it fails, those moves are not legal and nothing
/// only they read needs evaluating: in a turn-taking game, the mover's moves all imply its
/// `control`.
fn legal_guard(ground: &Ground, moves: &[(u32, Value)]) -> Option<LegalGuard> {
    let implied: Vec<Vec<Lit>> = moves.iter().map(|&(_, v)| implied_base_literals(ground, v)).collect();
    let mut counts: BTreeMap<Lit, usize> = BTreeMap::new();
    for lit in implied.iter().flatten() {
        *counts.entry(*lit).or_default() += 1;
    }
    // The most common literal; the first in literal order among equals.
    let (&guard, &count) = counts.iter().rev().max_by_key(|&(_, &count)| count)?;
    (count >= GUARD_MIN).then(|| (guard, implied.iter().map(|lits| lits.contains(&guard)).collect()))
}

/// The literals of base facts that `value` implies, sorted.
fn implied_base_literals(ground: &Ground, value: Value) -> Vec<Lit> {
    match value {
        Value::Lit(lit @ Lit { prop: Prop::Base(_), .. }) => vec![lit],
        Value::Lit(Lit { prop: Prop::Node(n), positive: true }) => {
            let rules = &ground.nodes[n as usize].rules;
            let mut common: Vec<Lit> = match rules.first() {
                Some(rule) => rule.iter().copied().filter(|l| matches!(l.prop, Prop::Base(_))).collect(),
                None => return Vec::new(),
            };
            for rule in &rules[1..] {
                common.retain(|l| rule.contains(l));
            }
            common.sort_unstable();
            common.dedup();
            common
        }
        _ => Vec::new(),
    }
}

/// By guarded and shape, the anchor, move and index into the role's moves of each move of that
/// shape.
type Shapes = BTreeMap<(bool, Vec<(u32, bool)>), Vec<(u32, u32, usize)>>;

/// A role's legal moves that are evaluated as families: the moves whose condition is one
/// conjunction of base literals (beside the role's guard, tested before them), grouped by
/// shape, at least [`families::FAMILY_MIN`] to a family.
fn legal_families(
    ground: &Ground,
    moves: &[(u32, Value)],
    guard: &Option<LegalGuard>,
    flat: &[Option<Vec<Lit>>],
) -> LegalFamilies {
    let words = words(ground.base.len());
    let mut plan = LegalFamilies { member: vec![false; moves.len()], families: Vec::new() };
    // The largest families first, at most MAX_LEGAL_FAMILIES of them: each is a loop in
    // every function that lists the role's moves, and thousands of them (amazons-like
    // games have a family per direction and distance) make rustc take minutes.
    let mut shapes: Vec<_> = move_shapes(moves, guard, flat).into_iter().collect();
    shapes.sort_by_key(|(_, members)| std::cmp::Reverse(members.len()));
    shapes.truncate(MAX_LEGAL_FAMILIES);
    for ((guarded, literals), mut members) in shapes {
        // One move per anchor: moves whose condition is the very same stay single.
        members.sort_by_key(|&(anchor, _, _)| anchor);
        members.dedup_by_key(|&mut (anchor, _, _)| anchor);
        if members.len() < families::FAMILY_MIN {
            continue;
        }
        let mut anchors = vec![0u64; words];
        let mut moves_of = Vec::new();
        for &(anchor, m, i) in &members {
            anchors[anchor as usize / 64] |= 1 << (anchor % 64);
            moves_of.push((anchor, m));
            plan.member[i] = true;
        }
        plan.families.push(LegalFamily { family: Family { literals, anchors }, moves_of, guarded });
    }
    plan
}

/// The moves of `moves` whose conditions are one satisfiable conjunction of base literals
/// besides the guard, by whether the guard guards them and by shape.
fn move_shapes(moves: &[(u32, Value)], guard: &Option<LegalGuard>, flat: &[Option<Vec<Lit>>]) -> Shapes {
    let mut shapes = Shapes::new();
    for (i, &(m, v)) in moves.iter().enumerate() {
        let lits = match v {
            Value::Lit(lit @ Lit { prop: Prop::Base(_), .. }) => vec![lit],
            Value::Lit(Lit { prop: Prop::Node(n), positive: true }) => match &flat[n as usize] {
                Some(lits) => lits.clone(),
                None => continue,
            },
            _ => continue,
        };
        let guarded = guard.as_ref().filter(|(_, g)| g[i]).map(|&(lit, _)| lit);
        let lits: Vec<Lit> = lits.into_iter().filter(|&l| Some(l) != guarded).collect();
        if lits.is_empty() {
            continue;
        }
        let (anchor, shape) = families::shape_of(&lits);
        if families::satisfiable(&shape) {
            shapes.entry((guarded.is_some(), shape)).or_default().push((anchor, m, i));
        }
    }
    shapes
}

impl Body<'_> {
    /// The values that set the bits of `parts` for a role's legal moves `moves`, as `plan`
    /// finds them: its families a word at a time and its other moves one by one. Those its
    /// guard guards are set only when the guard holds, after `exclusive`, which computes the
    /// nodes only they read.
    pub(crate) fn fill_legal_parts(
        &self,
        moves: &[(u32, Value)],
        plan: &RoleLegal,
        exclusive: TokenStream,
    ) -> LegalFill {
        let RoleLegal { guard, families, parts } = plan;
        let guarded = |i: usize| guards_move(guard, i);
        let (mut open, mut behind_guard) =
            (parts.group_word_terms(false, self.slots), parts.group_word_terms(true, self.slots));
        for (i, m, v) in families.singles(moves) {
            if parts.in_group_word(m) {
                continue;
            }
            let term = match v {
                Value::Const(true) => parts.always(m),
                _ => parts.single(m, self.value(v)),
            };
            if guarded(i) {
                behind_guard.push(term)
            } else {
                open.push(term)
            }
        }
        for (f, family) in families.families.iter().enumerate() {
            let terms = parts.family(f, family);
            if family.guarded {
                behind_guard.extend(terms)
            } else {
                open.extend(terms)
            }
        }
        let guard = guard.as_ref().map(|&(lit, _)| (self.lit(lit), exclusive, behind_guard));
        LegalFill { words: parts.words.len(), guard, open }
    }
}

/// A word of `parts` and a value whose bits are set in it.
type PartTerm = (usize, Term);

/// Bits set in a word of `parts`: bits always set, or an expression of the state.
#[derive(Clone)]
enum Term {
    Bits(u64),
    Expr(TokenStream),
}

/// The values of a role's `parts`, as [`Body::fill_legal_parts`] finds them: each word the
/// union of its terms, written as one array so that no word is cleared and set again.
pub(crate) struct LegalFill {
    words: usize,
    /// The role's guard, the nodes only its guarded moves read, and the terms of those moves.
    guard: Option<(TokenStream, TokenStream, Vec<PartTerm>)>,
    /// The terms of the moves the guard does not guard.
    open: Vec<PartTerm>,
}

impl LegalFill {
    /// The statement that declares `parts` with every word of the role's moves.
    pub(crate) fn declare(&self) -> TokenStream {
        let count = Literal::usize_unsuffixed(self.words);
        let open = words_of(self.words, &self.open, &[]);
        match &self.guard {
            Some((lit, exclusive, behind)) => {
                let all = words_of(self.words, &self.open, behind);
                quote!(let parts: [u64; #count] = if #lit { #exclusive #all } else { #open };)
            }
            None => quote!(let parts: [u64; #count] = #open;),
        }
    }

    /// With a guard and more than one word, `parts` declared apart when the guard holds and
    /// when it fails (see [`GuardSplit`]). On the other roles' turns, a draw among the mover's
    /// words is then a draw in the word of `noop`.
    pub(crate) fn split(&self) -> Option<GuardSplit> {
        let (lit, exclusive, behind) = self.guard.as_ref().filter(|_| self.words > 1)?;
        let count = Literal::usize_unsuffixed(self.words);
        let all = words_of(self.words, &self.open, behind);
        let held = quote!(#exclusive let parts: [u64; #count] = #all;);
        let at: BTreeSet<usize> = self.open.iter().map(|&(j, _)| j).collect();
        let at: Vec<usize> = at.into_iter().collect();
        let index: BTreeMap<usize, usize> = at.iter().enumerate().map(|(i, &j)| (j, i)).collect();
        let renamed: Vec<PartTerm> = self.open.iter().map(|(j, term)| (index[j], term.clone())).collect();
        let few = Literal::usize_unsuffixed(at.len());
        let open = words_of(at.len(), &renamed, &[]);
        let failed = quote!(let parts: [u64; #few] = #open;);
        Some(GuardSplit { guard: lit.clone(), held, failed, at })
    }
}

/// A role's `parts` declared apart on the two sides of its guard.
pub(crate) struct GuardSplit {
    /// The guard's test.
    pub(crate) guard: TokenStream,
    /// When it holds: the nodes only the guarded moves read, then `parts` with every word.
    pub(crate) held: TokenStream,
    /// When it fails: `parts` with only the words of the unguarded moves.
    pub(crate) failed: TokenStream,
    /// The word of all of them that each of those words stands for.
    pub(crate) at: Vec<usize>,
}

/// The array of `count` words, each the union of the terms of `first` and `second` in it, the
/// bits always set in a word as one mask before its expressions.
fn words_of(count: usize, first: &[PartTerm], second: &[PartTerm]) -> TokenStream {
    let mut always = vec![0u64; count];
    let mut words: Vec<Vec<TokenStream>> = vec![Vec::new(); count];
    for (j, term) in first.iter().chain(second) {
        match term {
            Term::Bits(bits) => always[*j] |= bits,
            Term::Expr(expr) => words[*j].push(expr.clone()),
        }
    }
    let words = words.into_iter().zip(always).map(|(mut terms, bits)| {
        if bits != 0 {
            terms.insert(0, hex(bits));
        }
        match terms.as_slice() {
            [] => quote!(0),
            terms => quote!(#(#terms)|*),
        }
    });
    quote!([#(#words),*])
}

/// A family of a role's legal moves: their shape and anchors, each anchor's move, and whether
/// the role's guard guards them.
struct LegalFamily {
    family: Family,
    moves_of: Vec<(u32, u32)>,
    guarded: bool,
}

/// Where a role's legal moves are kept while they are found: a few words whose bits stand for
/// moves, each with a table of the move of every bit. A family's anchors in one state word keep
/// their bit positions, so its moves are set with one word operation; the words of several
/// families share a word when their anchors do not meet, and every other move takes a free
/// bit. `random_step` draws among the set bits word by word, from the lowest bit, and `legal`
/// lists them in that order.
pub(crate) struct LegalParts {
    /// For every word, its bits in use and the move of each.
    pub(crate) words: Vec<(u64, [u32; 64])>,
    /// For every family and state word with anchors of it (in order), the word it goes into.
    family_words: Vec<Vec<usize>>,
    /// For every move outside the families (by move index), its word and bit.
    single_bits: BTreeMap<u32, (usize, u32)>,
    /// Moves whose conditions are nodes of one group of [`NodeWords`] that its guard guards
    /// alike: the group, the word they go into at their places, those places, and whether the
    /// guard guards them.
    group_words: Vec<(u32, usize, u64, bool)>,
}

impl LegalParts {
    /// Where the moves `moves` of a role go, found as `plan` says: the families' anchors, then
    /// the moves of node words at their places, then every other move at a free bit.
    fn new(
        plan: &LegalFamilies,
        moves: &[(u32, Value)],
        words_of: &NodeWords,
        guard: &Option<LegalGuard>,
    ) -> LegalParts {
        let mut parts = LegalParts {
            words: Vec::new(),
            family_words: Vec::new(),
            single_bits: BTreeMap::new(),
            group_words: Vec::new(),
        };
        for family in &plan.families {
            parts.place_family(family);
        }
        // The moves of each group at their places, a word at a time.
        let mut by_group: BTreeMap<(u32, bool), Vec<(u32, u32)>> = BTreeMap::new();
        for (i, m, v) in plan.singles(moves) {
            if let Value::Lit(Lit { prop: Prop::Node(n), positive: true }) = v {
                if let Some((g, place)) = words_of.member[n as usize] {
                    by_group.entry((g, guards_move(guard, i))).or_default().push((place, m));
                }
            }
        }
        for ((g, guarded), mut at) in by_group {
            // Moves whose legality is one node (four promotions of one pawn) share its place:
            // the first takes the group's bit, the others bits of their own.
            at.sort_by_key(|&(place, _)| place);
            at.dedup_by_key(|&mut (place, _)| place);
            if at.len() >= 2 {
                parts.place_group(g, guarded, at);
            }
        }
        for (_, m, _) in plan.singles(moves) {
            if !parts.single_bits.contains_key(&m) {
                parts.place_single(m);
            }
        }
        parts
    }

    /// Places the moves of `family` at its anchors' bits, in a word per state word with anchors.
    fn place_family(&mut self, family: &LegalFamily) {
        let mut placed = Vec::new();
        for (k, &anchors) in family.family.anchors.iter().enumerate().filter(|(_, &mask)| mask != 0) {
            let j = self.word_where(|used| used & anchors == 0);
            self.words[j].0 |= anchors;
            for &(anchor, m) in family.moves_of.iter().filter(|&&(anchor, _)| anchor as usize / 64 == k) {
                self.words[j].1[anchor as usize % 64] = m;
            }
            placed.push(j);
        }
        self.family_words.push(placed);
    }

    /// Places the moves of group `g` of node words, pairs of a place and a move, at their
    /// places in one word.
    fn place_group(&mut self, g: u32, guarded: bool, at: Vec<(u32, u32)>) {
        let mask = at.iter().fold(0u64, |mask, &(place, _)| mask | 1 << place);
        let j = self.word_where(|used| used & mask == 0);
        self.words[j].0 |= mask;
        for (place, m) in at {
            self.words[j].1[place as usize] = m;
            self.single_bits.insert(m, (j, place));
        }
        self.group_words.push((g, j, mask, guarded));
    }

    /// Places move `m` at the first free bit.
    fn place_single(&mut self, m: u32) {
        let j = self.word_where(|used| used != u64::MAX);
        let bit = (!self.words[j].0).trailing_zeros();
        self.words[j].0 |= 1 << bit;
        self.words[j].1[bit as usize] = m;
        self.single_bits.insert(m, (j, bit));
    }

    /// Whether move `m` is set with its group's word.
    fn in_group_word(&self, m: u32) -> bool {
        self.single_bits.get(&m).is_some_and(|&(j, bit)| {
            self.group_words.iter().any(|&(_, word, mask, _)| word == j && mask >> bit & 1 != 0)
        })
    }

    /// The terms that set the bits of the moves of group words that the guard guards
    /// (`guarded`) or not.
    fn group_word_terms(&self, guarded: bool, slots: &Slots) -> Vec<PartTerm> {
        self.group_words
            .iter()
            .filter(|&&(_, _, _, g)| g == guarded)
            .map(|&(g, j, mask, _)| {
                let (g, mask) = (slots.word(g), hex(mask));
                (j, Term::Expr(quote!((g[#g] & #mask))))
            })
            .collect()
    }

    /// The first word whose bits in use `fits`, made if there is none.
    fn word_where(&mut self, fits: impl Fn(u64) -> bool) -> usize {
        match self.words.iter().position(|&(used, _)| fits(used)) {
            Some(j) => j,
            None => {
                self.words.push((0, [0; 64]));
                self.words.len() - 1
            }
        }
    }

    /// The name of the role's table of the move of every bit (see [`LegalParts::table`]).
    pub(crate) fn move_of(&self, role: usize) -> Ident {
        table_name(role)
    }

    /// Role `role`'s table of the move of every bit of every word.
    pub(crate) fn table(&self, role: usize) -> TokenStream {
        let count = Literal::usize_unsuffixed(self.words.len());
        let name = table_name(role);
        let rows = self.words.iter().map(|(_, row)| {
            let row = row.iter().map(|&m| Literal::u32_unsuffixed(m));
            quote!([#(#row),*])
        });
        let doc = format!("The move of every bit of the words in which role {role}'s legal moves are found.");
        quote! {
            #[doc = #doc]
            static #name: [[u32; 64]; #count] = [#(#rows),*];
        }
    }

    /// The term that sets move `m`'s bit when `v` holds (`cond`), for a move outside the
    /// families.
    fn single(&self, m: u32, cond: TokenStream) -> PartTerm {
        let (j, bit) = self.single_bits[&m];
        match bit {
            0 => (j, Term::Expr(quote!(u64::from(#cond)))),
            _ => {
                let bit = Literal::u32_unsuffixed(bit);
                (j, Term::Expr(quote!((u64::from(#cond) << #bit))))
            }
        }
    }

    /// The term that sets the bit of move `m`, outside the families, which is always legal
    /// where its word is made.
    fn always(&self, m: u32) -> PartTerm {
        let (j, bit) = self.single_bits[&m];
        (j, Term::Bits(1 << bit))
    }

    /// The terms that set the bits of family `f`'s anchors whose rule holds.
    fn family(&self, f: usize, family: &LegalFamily) -> Vec<PartTerm> {
        let state_words = family.family.anchors.iter().enumerate().filter(|(_, &mask)| mask != 0);
        state_words
            .zip(&self.family_words[f])
            .map(|((k, _), &j)| {
                let holds = family_word(&family.family, k);
                (j, Term::Expr(quote!((#holds))))
            })
            .collect()
    }
}

/// A role's legal moves evaluated as families, and which of its moves they are.
pub(crate) struct LegalFamilies {
    member: Vec<bool>,
    families: Vec<LegalFamily>,
}

impl LegalFamilies {
    /// The moves of `moves` (the role's) outside the families that can be legal: (index into
    /// `moves`, move, condition).
    fn singles<'m>(&'m self, moves: &'m [(u32, Value)]) -> impl Iterator<Item = (usize, u32, Value)> + 'm {
        moves
            .iter()
            .enumerate()
            .filter(|&(i, &(_, v))| !self.member[i] && v != Value::Const(false))
            .map(|(i, &(m, v))| (i, m, v))
    }

    /// The conditions of `moves` (the role's) that nodes must be evaluated for: those of the
    /// families' moves read no node.
    pub(crate) fn values(&self, moves: &[(u32, Value)]) -> Vec<Value> {
        moves.iter().zip(&self.member).map(|(&(_, v), &member)| if member { Value::Const(false) } else { v }).collect()
    }
}

/// Whether a role's guard (see [`Emitter::legal_guard`]) guards its `i`-th move.
pub(crate) fn guards_move(guard: &Option<LegalGuard>, i: usize) -> bool {
    guard.as_ref().is_some_and(|(_, g)| g[i])
}

/// The name of role `role`'s table of the move of every bit of its words.
fn table_name(role: usize) -> Ident {
    format_ident!("LEGAL_MOVE_OF_{}", role)
}
