//! The generated code of node words: which nodes a function evaluates with the groups they
//! are in, each group's word from its templates (a ray's by doubling), the bits that gathered
//! members set, and the tables of the move words that templates read. The rules over group
//! members tested a word at a time are in `families.rs`.

use super::{NodeWords, Template, WordLit};
use crate::codegen::emit::{join, shift_expr, shifted, Body, Emitter, Expr};
use crate::codegen::tables::hex;
use crate::ground::{Lit, Prop, Value};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};

/// The fewest templates of a group whose word is computed only when one of a few state words
/// it reads is not empty, or a fact holds (see [`Body::zero_guard`]).
const GUARD_TEMPLATES: usize = 3;

/// The most state words and facts such a test reads.
const GUARD_ATOMS: usize = 2;

/// The fewest words a relation's facts span for its words to be tested before a group's
/// templates, and the fewest facts of a relation of one argument for its facts to be: one of
/// many groups' boards (hex's `connected`), one of many values of a counter (its `step`), which
/// most of the time are empty or false.
const SPARSE_MIN: usize = 8;

/// The state words and facts that a group's word is tested against before its templates are
/// computed: those of relations with many boards or many values (see [`SPARSE_MIN`]). A test
/// of a word that is rarely empty would only cost a branch.
pub(crate) struct SparseAtoms {
    words: Vec<bool>,
    facts: Vec<bool>,
}

impl SparseAtoms {
    /// The sparse words and facts of a state whose base facts are `base` (bit by bit).
    pub(crate) fn new(base: &[String]) -> SparseAtoms {
        let relation: Vec<Option<(String, usize)>> = (base.iter())
            .map(|name| {
                let (head, args) = crate::ground::layout::split(name);
                (!name.is_empty()).then_some((head, args.len()))
            })
            .collect();
        let mut spans: BTreeMap<&(String, usize), (BTreeSet<usize>, usize)> = BTreeMap::new();
        for (b, r) in relation.iter().enumerate() {
            if let Some(r) = r {
                let (words, facts) = spans.entry(r).or_default();
                words.insert(b / 64);
                *facts += 1;
            }
        }
        let words = (0..base.len().div_ceil(64))
            .map(|w| {
                let mut held = relation[64 * w..base.len().min(64 * w + 64)].iter().flatten();
                let first = held.next();
                first.is_some_and(|r| held.all(|other| other == r) && spans[r].0.len() >= SPARSE_MIN)
            })
            .collect();
        let facts =
            (relation.iter()).map(|r| r.as_ref().is_some_and(|r| r.1 == 1 && spans[r].1 >= SPARSE_MIN)).collect();
        SparseAtoms { words, facts }
    }
}

/// What a group's templates are tested against before they are computed: a state word, or a
/// fact the same for every member.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum GuardAtom {
    Word(u32),
    Fact(Lit),
}

impl Emitter<'_> {
    /// `cone` (sorted) with every member of the groups of [`super::NodeWords`] it reaches, and
    /// what they read: a group's word is computed whole.
    pub(crate) fn whole_groups(&self, mut cone: Vec<u32>) -> Vec<u32> {
        if self.words.groups.is_empty() {
            return cone;
        }
        loop {
            let mut have = vec![false; self.ground.nodes.len()];
            cone.iter().for_each(|&n| have[n as usize] = true);
            let touched: BTreeSet<u32> =
                cone.iter().filter_map(|&n| self.words.member[n as usize].map(|(g, _)| g)).collect();
            let missing: Vec<Value> = touched
                .iter()
                .flat_map(|&g| &self.words.groups[g as usize].members)
                .filter(|&&m| !have[m as usize])
                .map(|&m| Value::Lit(Lit::pos(Prop::Node(m))))
                .collect();
            if missing.is_empty() {
                return cone;
            }
            cone.extend(self.cone_less_table(&missing));
            cone.sort_unstable();
            cone.dedup();
        }
    }

    /// For every role with a kind of move that the generated templates read, the table of every
    /// move's kind and place (`kind * 64 + place`, `u32::MAX` for a move of no kind), and the
    /// function that reads a kind's word from it. One small table a role, rather than one a kind:
    /// a step reads one entry a role instead of a cache line of each kind's table.
    pub(crate) fn move_place_tables(&self) -> TokenStream {
        let used = self.move_kinds_read.borrow();
        let roles: BTreeSet<u32> = used.iter().map(|&k| self.words.move_kinds[k as usize].role).collect();
        if roles.is_empty() {
            return TokenStream::new();
        }
        let tables = roles.into_iter().map(|role| {
            let mut entries = vec![u32::MAX; self.ground.moves.len()];
            for (k, kind) in self.words.move_kinds.iter().enumerate().filter(|(_, kind)| kind.role == role) {
                for &(m, place) in &kind.places {
                    entries[m as usize] = k as u32 * 64 + place;
                }
            }
            let name = format_ident!("MOVE_KIND_PLACES_{}", role);
            let len = Literal::usize_unsuffixed(entries.len());
            let entries = entries.into_iter().map(Literal::u32_unsuffixed);
            let doc = format!("The kind and place of each of role {role}'s moves, as `kind * 64 + place`, by move.");
            quote! {
                #[doc = #doc]
                static #name: [u32; #len] = [#(#entries),*];
            }
        });
        let kind_place = self.kind_place_read.get().then(|| {
            quote! {
                /// The word of a move's place when the move (`entry`, its kind times 64 and its
                /// place) is of kind `kind`, else no bit.
                #[inline(always)]
                fn kind_place(entry: u32, kind: u32) -> u64 {
                    0u64.wrapping_sub(u64::from(entry >> 6 == kind)) & (1u64 << (entry & 63))
                }
            }
        });
        quote! {
            #(#tables)*
            #kind_place
        }
    }

    /// The name of the table of moves with `words` (see [`Body::transposed_tables`]), one per
    /// content.
    pub(super) fn near_table(&self, words: Vec<u64>) -> proc_macro2::Ident {
        format_ident!("NEAR_PLACES_{}", self.near_tables.number(words))
    }

    /// The tables of moves that the readers of transposed groups look up, in the order of
    /// their numbers.
    pub(crate) fn near_place_tables(&self) -> TokenStream {
        self.near_tables.write_all(|number, words| {
            let name = format_ident!("NEAR_PLACES_{}", number);
            let len = Literal::usize_unsuffixed(words.len());
            let words = words.iter().copied().map(hex);
            quote! {
                /// For every move, the cells of a board beside its place: a group of node
                /// words is beside the move when its board has one of them.
                static #name: [u64; #len] = [#(#words),*];
            }
        })
    }
}

impl NodeWords {
    /// Whether node `n` is in a group computed by its templates (not a gathered one).
    pub(in crate::codegen) fn in_template_group(&self, n: u32) -> bool {
        self.member[n as usize].is_some_and(|(g, _)| !self.groups[g as usize].gathered)
    }
}

impl Body<'_> {
    /// Statements that store `expr`, node `n`'s value, in its slot; or, for a member of a
    /// gathered group, set its bit of the group's word (which starts clear) when it holds.
    pub(crate) fn store_node(&self, n: u32, expr: Expr) -> TokenStream {
        match self.emitter.words.member[n as usize] {
            Some((g, place)) => self.or_into_word(g, place, expr),
            None => expr.store(&self.slots.of(n)),
        }
    }

    /// Statements that or `expr` into node `n`'s value (see [`Self::store_node`]).
    pub(crate) fn or_node(&self, n: u32, expr: Expr) -> TokenStream {
        match self.emitter.words.member[n as usize] {
            Some((g, place)) => self.or_into_word(g, place, expr),
            None => expr.or_into(&self.slots.of(n)),
        }
    }

    /// Statements that set bit `place` of group `g`'s word when `expr` holds.
    pub(crate) fn or_into_word(&self, g: u32, place: u32, expr: Expr) -> TokenStream {
        let (k, place) = (self.slots.word(g), Literal::u32_suffixed(place));
        // A member that holds wherever it is computed (in the arm of the one move that makes
        // it) sets its bit outright.
        if matches!(expr, Expr::Const(true)) {
            return quote!(g[#k] |= 1u64 << #place;);
        }
        let disjuncts = expr.disjuncts();
        quote!(#(g[#k] |= u64::from(#disjuncts) << #place;)*)
    }

    /// Statements computing group `g`'s word into `g[g]`: the `|` of its templates, each the
    /// `&` of its literals' words masked by the places that have it; iterated until it stops
    /// changing when it reads itself.
    pub(crate) fn group_word(&self, g: u32) -> TokenStream {
        if let Some(doubling) = self.doubling(g) {
            return doubling;
        }
        let group = &self.emitter.words.groups[g as usize];
        let word = self.templates_or(&group.templates.iter().collect::<Vec<_>>());
        let k = self.slots.word(g);
        if group.reads_itself {
            quote! {
                loop {
                    let word = #word;
                    if word == g[#k] {
                        break;
                    }
                    g[#k] = word;
                }
            }
        } else {
            let word = match self.quiet_word(&group.templates) {
                Some((moved, quiet)) => quote!(if #moved { #word } else { #quiet }),
                None => word,
            };
            match self.zero_guard(&group.templates) {
                Some(guard) => quote!(g[#k] = if #guard { #word } else { 0 };),
                None => quote!(g[#k] = #word;),
            }
        }
    }

    /// A test that the templates' word is zero when it fails: at most [`GUARD_ATOMS`] sparse
    /// state words or facts the same for every member ([`SparseAtoms`]), of which each template
    /// reads one positively (it is empty when they are, or false), when there are
    /// [`GUARD_TEMPLATES`] templates or more. Hex's "a stone of group k beside the cell" reads
    /// only group k's board, empty for most groups at any time.
    fn zero_guard(&self, templates: &[Template]) -> Option<TokenStream> {
        if templates.len() < GUARD_TEMPLATES {
            return None;
        }
        let sparse = &self.emitter.sparse;
        let read = |t: &Template| -> BTreeSet<GuardAtom> {
            (t.literals.iter())
                .filter_map(|lit| match *lit {
                    WordLit::Base { word, positive: true, .. } if sparse.words[word as usize] => {
                        Some(GuardAtom::Word(word))
                    }
                    WordLit::Fixed(lit @ Lit { prop: Prop::Base(b), positive: true }) if sparse.facts[b as usize] => {
                        Some(GuardAtom::Fact(lit))
                    }
                    _ => None,
                })
                .collect()
        };
        let mut left: Vec<BTreeSet<GuardAtom>> = templates.iter().map(read).collect();
        let mut guard: Vec<GuardAtom> = Vec::new();
        while !left.is_empty() {
            if left.iter().any(BTreeSet::is_empty) || guard.len() == GUARD_ATOMS {
                return None;
            }
            // The atom that the most templates left read.
            let mut count: BTreeMap<GuardAtom, usize> = BTreeMap::new();
            left.iter().flatten().for_each(|&atom| *count.entry(atom).or_default() += 1);
            let (&atom, _) = count.iter().max_by_key(|&(&atom, &c)| (c, std::cmp::Reverse(atom)))?;
            guard.push(atom);
            left.retain(|atoms| !atoms.contains(&atom));
        }
        guard.sort_unstable();
        let words: Vec<TokenStream> = (guard.iter())
            .filter_map(|atom| match atom {
                GuardAtom::Word(w) => {
                    let w = Literal::u32_unsuffixed(*w);
                    Some(quote!(s.0[#w]))
                }
                GuardAtom::Fact(_) => None,
            })
            .collect();
        let facts = guard.iter().filter_map(|atom| match atom {
            GuardAtom::Fact(lit) => Some(self.lit(*lit)),
            GuardAtom::Word(_) => None,
        });
        let words = (!words.is_empty()).then(|| quote!((#(#words)|*) != 0));
        Some(join(&words.into_iter().chain(facts).collect::<Vec<_>>(), quote!(||)))
    }

    /// Statements computing the words of the groups of loop `l` (see
    /// [`super::NodeWords::loops`]): every word starts empty and the templates are applied
    /// until no word changes, which reaches the least fixpoint of their recursive members.
    pub(crate) fn loop_words(&self, l: u32) -> TokenStream {
        let groups = &self.emitter.words.loops[l as usize];
        let ks: Vec<Literal> = groups.iter().map(|&g| self.slots.word(g)).collect();
        let updates = groups.iter().zip(&ks).map(|(&g, k)| {
            let group = &self.emitter.words.groups[g as usize];
            let word = self.templates_or(&group.templates.iter().collect::<Vec<_>>());
            quote! {
                let word = #word;
                changed |= word != g[#k];
                g[#k] = word;
            }
        });
        quote! {
            #(g[#ks] = 0;)*
            loop {
                let mut changed = false;
                #(#updates)*
                if !changed {
                    break;
                }
            }
        }
    }

    /// Group `g`'s word by doubling, when one template alone reads the group, once, at one
    /// distance `d` (a ray: `w = a | p & (w >> d)`): `w` gathers runs of `p` twice as long at
    /// each step, so a chain of `c` members takes `log2(c + 1)` steps, with no branch.
    pub(crate) fn doubling(&self, g: u32) -> Option<TokenStream> {
        let group = &self.emitter.words.groups[g as usize];
        let (ray, shift) = group.ray(g)?;
        let others: Vec<&Template> = group.templates.iter().filter(|t| !std::ptr::eq(*t, ray)).collect();
        let rest = ray.literals.iter().filter(|l| !matches!(l, WordLit::Group { group, .. } if *group == g));
        let base = self.templates_or(&others);
        let mask = hex(ray.mask);
        let lits = rest.map(|&lit| self.word_lit(lit));
        let steps = group.doubling_steps();
        let mut body = Vec::new();
        for step in 0..steps {
            let by = shift * (1 << step);
            let w = shifted(quote!(w), by);
            body.push(quote!(w |= p & #w;));
            if step + 1 < steps {
                let p = shift_expr(quote!(p), by);
                body.push(quote!(p &= #p;));
            }
        }
        let k = self.slots.word(g);
        let p_mut = (steps > 1).then(|| quote!(mut));
        Some(quote! {
            {
                let mut w: u64 = #base;
                let #p_mut p: u64 = #mask #(& #lits)*;
                #(#body)*
                g[#k] = w;
            }
        })
    }

    /// A template's literal as a word whose bit `p` is its value at place `p`.
    pub(crate) fn word_lit(&self, lit: WordLit) -> TokenStream {
        let (word, positive) = match lit {
            WordLit::Base { word, shift, positive } => {
                let w = Literal::u32_unsuffixed(word);
                (shifted(quote!(s.0[#w]), shift), positive)
            }
            WordLit::Group { group, shift, positive } => {
                let k = self.slots.word(group);
                (shifted(quote!(g[#k]), shift), positive)
            }
            WordLit::Does { kind, shift, positive } => {
                self.emitter.move_kinds_read.borrow_mut().insert(kind);
                self.emitter.kind_place_read.set(true);
                let role = self.emitter.words.move_kinds[kind as usize].role;
                let table = format_ident!("MOVE_KIND_PLACES_{}", role);
                let (role, kind) = (Literal::u32_unsuffixed(role), Literal::u32_unsuffixed(kind));
                (shifted(quote!(kind_place(#table[joint[#role].0 as usize], #kind)), shift), positive)
            }
            WordLit::Table { word, shift, positive } => {
                let w = Literal::u32_unsuffixed(word);
                (shifted(quote!(mt[#w]), shift), positive)
            }
            WordLit::Gather { group, from, to, positive } => {
                let k = self.slots.word(group);
                let (from, to) = (hex(from), hex(to));
                (quote!(::gdl_runtime::bits::gather(g[#k], #from, #to)), positive)
            }
            WordLit::Fixed(lit) => {
                return match self.known(lit) {
                    Some(true) => quote!(u64::MAX),
                    Some(false) => quote!(0u64),
                    None => {
                        let lit = self.lit(lit);
                        quote!(0u64.wrapping_sub((#lit) as u64))
                    }
                };
            }
        };
        if positive {
            word
        } else {
            quote!(!#word)
        }
    }
}
