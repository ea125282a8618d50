//! The `|` of a word's templates, where those that read one role's moves of many kinds are one
//! `match` on the kind played: a piece lands at one place, by one of many pieces and distances,
//! and the arm of its kind computes only the templates of that kind.

use super::factor::{factored, Factor, WordExpr};
use super::{MoveKind, Template, WordLit};
use crate::codegen::emit::{join, shift_expr, shifted, Body};
use crate::codegen::tables::hex;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeMap;

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
    let all: Vec<&Template> = templates.iter().collect();
    let switches = switches(&all, move_kinds);
    let switched =
        |t: &Template| move_read(t).is_some_and(|kind| switches.contains_key(&move_kinds[kind as usize].role));
    let outside: Vec<&Template> = templates.iter().filter(|t| !switched(t)).collect();
    let arms = switches.values().map(|kinds| {
        let dearest = kinds.values().map(|arm| arm.iter().map(|t| t.cost()).sum::<usize>()).max().unwrap_or(0);
        SWITCH_COST + dearest
    });
    (outside.iter().map(|t| t.cost()).sum::<usize>() + arms.sum::<usize>(), outside.len())
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
        if let Some(known) = self.where_known(templates) {
            return self.templates_or(&known.iter().collect::<Vec<_>>());
        }
        let role_of = |kind: u32| self.emitter.words.move_kinds[kind as usize].role;
        let by_role = switches(templates, &self.emitter.words.move_kinds);
        let outside: Vec<&Template> = (templates.iter().copied())
            .filter(|&t| move_read(t).map(role_of).is_none_or(|role| !by_role.contains_key(&role)))
            .collect();
        let mut terms: Vec<TokenStream> = Vec::new();
        if !outside.is_empty() {
            terms.push(self.word_expr(&factored(&outside), None));
        }
        terms.extend(by_role.iter().map(|(&role, kinds)| self.move_switch(role, kinds)));
        or_of(&terms)
    }

    /// `templates` inside a test of the literal the body knows to hold (see [`Body::known`]),
    /// when one of them reads it: without that literal, and without those that need it false.
    fn where_known(&self, templates: &[&Template]) -> Option<Vec<Template>> {
        let known = |lit: WordLit| match lit {
            WordLit::Fixed(lit) => self.known(lit),
            _ => None,
        };
        if !templates.iter().flat_map(|t| &t.literals).any(|&lit| known(lit).is_some()) {
            return None;
        }
        Some(templates.iter().filter_map(|t| t.assuming(known)).collect())
    }

    /// The code of `expr`, where a move of kind `known` (when given) is known to be played, its
    /// word the bit of its place `at`. A shift at the top is written without parentheses, which
    /// rustc finds unneeded in a `match` arm or a `let`.
    pub(super) fn word_expr(&self, expr: &WordExpr, known: Option<u32>) -> TokenStream {
        match expr {
            WordExpr::Shifted(inner, by) => {
                let inner = match self.word_code(inner, known) {
                    (code, true) => quote!((#code)),
                    (code, false) => code,
                };
                shift_expr(inner, *by)
            }
            _ => self.word_code(expr, known).0,
        }
    }

    /// The code of `expr` (see [`Self::word_expr`]), and whether it is a `|` or `&` of several
    /// parts, which its reader puts in parentheses. Masks come first in a `&`, as in a template.
    fn word_code(&self, expr: &WordExpr, known: Option<u32>) -> (TokenStream, bool) {
        let part = |p: &WordExpr| match self.word_code(p, known) {
            (code, true) => quote!((#code)),
            (code, false) => code,
        };
        match expr {
            WordExpr::Ones => (quote!(u64::MAX), false),
            WordExpr::Factor(Factor::Mask(mask)) => (hex(*mask), false),
            WordExpr::Factor(Factor::Lit(lit)) => match *lit {
                WordLit::Does { kind, shift, positive: true } if Some(kind) == known => {
                    (shifted(quote!(at), shift), false)
                }
                lit => (self.word_lit(lit), false),
            },
            WordExpr::And(parts) => {
                let (masks, others): (Vec<&WordExpr>, Vec<&WordExpr>) =
                    parts.iter().partition(|p| matches!(p, WordExpr::Factor(Factor::Mask(_))));
                let parts = masks.into_iter().chain(others).map(part);
                (quote!(#(#parts)&*), true)
            }
            WordExpr::Or(parts) if parts.is_empty() => (quote!(0), false),
            WordExpr::Or(parts) => {
                let parts = parts.iter().map(part);
                (quote!(#(#parts)|*), true)
            }
            WordExpr::Shifted(inner, by) => (shifted(part(inner), *by), false),
        }
    }

    /// The templates that read role `role`'s move, by the kind they read, as a `match` on the
    /// kind of the move played (or a lookup by it, see `turns.rs`): no bit for a move of no kind
    /// or of a kind none reads.
    fn move_switch(&self, role: u32, kinds: &BTreeMap<u32, Vec<&Template>>) -> TokenStream {
        let table = format_ident!("MOVE_KIND_PLACES_{}", role);
        self.emitter.move_kinds_read.borrow_mut().extend(kinds.keys());
        let arms: Vec<(u32, WordExpr)> = kinds.iter().map(|(&kind, templates)| (kind, factored(templates))).collect();
        if let Some(lookup) = self.turn_lookup(role, &arms) {
            return lookup;
        }
        let arms = arms.iter().map(|(kind, word)| {
            let terms = self.word_expr(word, Some(*kind));
            let kind = Literal::u32_unsuffixed(*kind);
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
