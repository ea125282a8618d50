//! Words that change only when the move played does something to them: shogi's pieces in
//! hand, whose counters move only when a piece of their kind is captured or dropped. Such a
//! group's word is computed from all its templates only when one of the few nodes of the move
//! that they read holds; when none does, from its templates with those nodes false, most
//! often a copy of the state's word.

use super::{Template, WordLit};
use crate::codegen::emit::{join, Body};
use crate::ground::{Lit, Prop};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::BTreeSet;

/// The most nodes of the move that the test before a quiet word reads.
const QUIET_NODES: usize = 4;

/// The fewest templates of a group whose word may be quiet.
const QUIET_TEMPLATES: usize = 3;

/// How many times cheaper the quiet word must be than the whole: the test costs a branch,
/// mispredicted on the moves that do change the word (dotsAndBoxes' box counters, whose quiet
/// word costs 12 literals of 32, played 3-4% slower; 4pffa's capture counters, 8 of 24, 4-5%
/// faster; shogi's pieces in hand, 6 of 33, 16-17% faster).
const QUIET_SHARE: usize = 3;

impl Body<'_> {
    /// A test that one of the few nodes reading the joint move that `templates` read holds,
    /// and the templates' word when none does, when that word costs at most a
    /// [`QUIET_SHARE`]th as much.
    /// Templates that read the move itself (its kind or the move table) are never quiet.
    pub(super) fn quiet_word(&self, templates: &[Template]) -> Option<(TokenStream, TokenStream)> {
        if templates.len() < QUIET_TEMPLATES {
            return None;
        }
        let nodes = self.move_nodes(templates)?;
        // With those nodes false, a positive read of one is false, a negative one true.
        let quiet: Vec<Template> = (templates.iter())
            .filter_map(|t| {
                t.assuming(|lit| match lit {
                    WordLit::Fixed(Lit { prop: Prop::Node(m), positive }) if nodes.contains(&m) => Some(!positive),
                    _ => None,
                })
            })
            .collect();
        if QUIET_SHARE * cost(&quiet) > cost(templates) {
            return None;
        }
        let tests: Vec<TokenStream> = nodes.iter().map(|&m| self.lit(Lit::pos(Prop::Node(m)))).collect();
        let word = self.templates_or(&quiet.iter().collect::<Vec<_>>());
        Some((join(&tests, quote!(|)), word))
    }

    /// The nodes reading the joint move that `templates` read, when they are between one and
    /// [`QUIET_NODES`] and the templates read the move through nothing else.
    fn move_nodes(&self, templates: &[Template]) -> Option<BTreeSet<u32>> {
        let reads_moves = self.emitter.reads_moves();
        let mut nodes = BTreeSet::new();
        for lit in templates.iter().flat_map(|t| &t.literals) {
            match *lit {
                WordLit::Fixed(Lit { prop: Prop::Node(m), .. }) if reads_moves[m as usize] => {
                    nodes.insert(m);
                }
                WordLit::Does { .. } | WordLit::Table { .. } => return None,
                _ => {}
            }
        }
        (1..=QUIET_NODES).contains(&nodes.len()).then_some(nodes)
    }
}

/// What computing `templates` costs (see [`Template::cost`]).
fn cost(templates: &[Template]) -> usize {
    templates.iter().map(Template::cost).sum()
}
