//! The `|` of a word's templates, where those that read one role's moves of many kinds are one
//! `match` on the kind played: a piece lands at one place, by one of many pieces and distances,
//! and the arm of its kind computes only the templates of that kind.

use super::{MoveKind, Template, WordLit};
use crate::codegen::emit::{join, shifted, Body};
use crate::codegen::tables::hex;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};

/// The fewest templates of a word that read one role's move for them to be one `match` on the
/// kind of the move played (see [`Body::templates_or`]).
const MOVE_SWITCH_MIN: usize = 4;

/// The kind of move a template reads played, when it reads one.
fn move_read(template: &Template) -> Option<u32> {
    template.literals.iter().find_map(|lit| match *lit {
        WordLit::Does { kind, positive: true, .. } => Some(kind),
        _ => None,
    })
}

/// The templates among `templates` that [`Body::templates_or`] writes as one `match` on the kind
/// of a role's move played, by role and kind: those of every role whose move
/// [`MOVE_SWITCH_MIN`] templates or more read.
pub(super) fn switches<'t>(
    templates: &[&'t Template],
    move_kinds: &[MoveKind],
) -> BTreeMap<u32, BTreeMap<u32, Vec<&'t Template>>> {
    let mut by_role: BTreeMap<u32, BTreeMap<u32, Vec<&Template>>> = BTreeMap::new();
    for &template in templates {
        if let Some(kind) = move_read(template) {
            let role = move_kinds[kind as usize].role;
            by_role.entry(role).or_default().entry(kind).or_default().push(template);
        }
    }
    by_role.retain(|_, kinds| kinds.values().map(Vec::len).sum::<usize>() >= MOVE_SWITCH_MIN);
    by_role
}

/// What a word of `templates` costs as [`Body::templates_or`] writes it, in literals read (a
/// template costs its literals and one, a `match` its lookup and its dearest arm), and how
/// many templates it writes outside the `match`es. Only one kind of a role's move is played,
/// so a word whose templates read many kinds (`affected` cells, two for each kind of piece
/// move) costs what one kind's templates do.
pub(super) fn word_cost(templates: &[Template], move_kinds: &[MoveKind]) -> (usize, usize) {
    let cost = |t: &Template| t.literals.len() + 1;
    let all: Vec<&Template> = templates.iter().collect();
    let switches = switches(&all, move_kinds);
    let switched =
        |t: &Template| move_read(t).is_some_and(|kind| switches.contains_key(&move_kinds[kind as usize].role));
    let outside: Vec<&Template> = templates.iter().filter(|t| !switched(t)).collect();
    let arms = switches.values().map(|kinds| {
        let dearest = kinds.values().map(|arm| arm.iter().map(|t| cost(t)).sum::<usize>()).max().unwrap_or(0);
        SWITCH_COST + dearest
    });
    (outside.iter().map(|t| cost(t)).sum::<usize>() + arms.sum::<usize>(), outside.len())
}

/// The cost of a `match` on the kind played besides its arm, in literals: the lookup of the
/// move's entry, its place's bit, and the jump.
const SWITCH_COST: usize = 3;

/// The `|` of `terms` (each in parentheses when there are several, as [`join`] writes them); no
/// bit when there are none.
fn or_of(terms: &[TokenStream]) -> TokenStream {
    match terms {
        [] => quote!(0),
        _ => join(terms, quote!(|)),
    }
}

impl Body<'_> {
    /// The `|` of `templates`, each the `&` of its mask and its literals' words. The templates
    /// that read a role's move of one kind or another are many where pieces move (one a piece
    /// and a distance: shogi's board word reads 60), and at most one kind is played: when
    /// [`MOVE_SWITCH_MIN`] or more read one role's move, they are one `match` on the kind
    /// played, whose arm computes only the templates of that kind.
    pub(crate) fn templates_or(&self, templates: &[&Template]) -> TokenStream {
        let role_of = |kind: u32| self.emitter.words.move_kinds[kind as usize].role;
        let by_role = switches(templates, &self.emitter.words.move_kinds);
        // Each switch takes the place of the first template it holds; the others keep theirs.
        let mut terms: Vec<TokenStream> = Vec::new();
        let mut switched: BTreeSet<u32> = BTreeSet::new();
        for &template in templates {
            match move_read(template).map(role_of).filter(|role| by_role.contains_key(role)) {
                Some(role) if switched.insert(role) => terms.push(self.move_switch(role, &by_role[&role])),
                Some(_) => {}
                None => terms.push(self.template_term(template, None)),
            }
        }
        or_of(&terms)
    }

    /// A template's term: the `&` of its mask and its literals' words, where a move of kind
    /// `known` (when given) is known to be played, its word the bit of its place `at`.
    fn template_term(&self, template: &Template, known: Option<u32>) -> TokenStream {
        let mask = hex(template.mask);
        let lits = template.literals.iter().map(|&lit| match lit {
            WordLit::Does { kind, shift, positive: true } if Some(kind) == known => shifted(quote!(at), shift),
            _ => self.word_lit(lit),
        });
        quote!(#mask #(& #lits)*)
    }

    /// The templates that read role `role`'s move, by the kind they read, as a `match` on the
    /// kind of the move played: no bit for a move of no kind or of a kind none reads.
    fn move_switch(&self, role: u32, kinds: &BTreeMap<u32, Vec<&Template>>) -> TokenStream {
        let table = format_ident!("MOVE_KIND_PLACES_{}", role);
        let arms = kinds.iter().map(|(&kind, templates)| {
            self.emitter.move_kinds_read.borrow_mut().insert(kind);
            let terms: Vec<TokenStream> = templates.iter().map(|t| self.template_term(t, Some(kind))).collect();
            let terms = or_of(&terms);
            let kind = Literal::u32_unsuffixed(kind);
            quote!(#kind => #terms,)
        });
        let role = Literal::u32_unsuffixed(role);
        quote! {
            {
                let entry = #table[joint[#role].0 as usize];
                let at = 1u64 << (entry & 63);
                match entry >> 6 {
                    #(#arms)*
                    _ => 0,
                }
            }
        }
    }
}
