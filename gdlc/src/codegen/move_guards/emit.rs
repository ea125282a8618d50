//! The generated code of move guards: the nodes a role's moves guard, evaluated in the arms
//! of a `match` on its move, each arm with the move's literals known.

use super::Guard;
use crate::codegen::emit::Body;
use crate::ground::{Lit, Prop};
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::collections::BTreeMap;

/// The statements of every arm, by role and move.
type Arms = BTreeMap<(u32, u32), Vec<TokenStream>>;

impl Body<'_> {
    /// Statements computing the nodes of `after` (sorted), which read the joint move, after
    /// every node they read that does not: the nodes that [`super::find`] guards in a `match`
    /// on each role's move (each arm with the move's literals known), then the others in order.
    pub(crate) fn emit_move_nodes(&self, after: &[u32]) -> TokenStream {
        let ground = self.emitter.ground;
        let mut plain = vec![false; ground.nodes.len()];
        for &n in after {
            plain[n as usize] = self.emitter.rule_by_rule(n) && !self.emitter.words.in_template_group(n);
        }
        let in_cycle = ground.in_cycle();
        let guards = super::find(ground, after, &plain, &in_cycle);
        let mut arms = Arms::new();
        let mut rest = Vec::new();
        for &n in after {
            match &guards[n as usize] {
                None => rest.push(n),
                Some(guard) => self.guarded_node(n, guard, &guards, &mut arms),
            }
        }
        let matches = (0..ground.roles.len() as u32).filter_map(|role| self.role_match(role, &arms));
        let rest = self.emit_nodes(&rest);
        quote!(#(#matches)* #rest)
    }

    /// Adds to `arms` the statements that compute node `n` under `guard` in the arms of the
    /// moves that guard it: whole, or rule by rule.
    fn guarded_node(&self, n: u32, guard: &Guard, guards: &[Option<Guard>], arms: &mut Arms) {
        let rules = &self.emitter.ground.nodes[n as usize].rules;
        match guard {
            Guard::Role { role, moves } => {
                for &m in moves {
                    let known: Vec<Vec<Lit>> = rules.iter().filter_map(|rule| played(rule, *role, m, guards)).collect();
                    if known.is_empty() {
                        continue;
                    }
                    let note = self.note_stored(n);
                    let store = self.store_node(n, self.rules_expr(&known, Vec::new()));
                    arms.entry((*role, m)).or_default().push(quote!(#note #store));
                }
            }
            Guard::Rules(by_rule) => {
                for (rule, (role, moves)) in rules.iter().zip(by_rule) {
                    for &m in moves {
                        let Some(known) = played(rule, *role, m, guards) else { continue };
                        let note = self.note_stored(n);
                        let or = self.or_node(n, self.rules_expr(&[known], Vec::new()));
                        arms.entry((*role, m)).or_default().push(quote!(#note #or));
                    }
                }
            }
        }
    }

    /// A comment naming node `n`'s atom where it is stored: its slot, or its bit of a word.
    fn note_stored(&self, n: u32) -> TokenStream {
        let place = || match self.emitter.words.member[n as usize] {
            Some((g, place)) => format!("g[{}] bit {place}", self.slots.word_index(g)),
            None => format!("n[{}]", self.slots.of(n)),
        };
        self.emitter.note_node(place, n)
    }

    /// The `match` on role `role`'s move of its arms, if it has any.
    fn role_match(&self, role: u32, arms: &Arms) -> Option<TokenStream> {
        let ground = self.emitter.ground;
        let arms: Vec<TokenStream> = arms
            .range((role, 0)..=(role, u32::MAX))
            .map(|(&(_, m), statements)| {
                let note = self.emitter.note(|_| {
                    format!("{} plays {}, which guards:", ground.roles[role as usize], ground.moves[m as usize])
                });
                let m = Literal::u32_unsuffixed(m);
                quote!(#m => { #note #(#statements)* })
            })
            .collect();
        let r = Literal::usize_unsuffixed(role as usize);
        (!arms.is_empty()).then(|| {
            quote! {
                match joint[#r].0 {
                    #(#arms)*
                    _ => {}
                }
            }
        })
    }
}

/// `rule` in the arm where role `role` plays `mv`: without the literals that are then true
/// (that role's moves, and the negations of nodes the move's arms leave false); `None` when
/// one of its literals is then false.
fn played(rule: &[Lit], role: u32, mv: u32, guards: &[Option<Guard>]) -> Option<Vec<Lit>> {
    let mut known = Vec::with_capacity(rule.len());
    for &lit in rule {
        let holds = match lit.prop {
            Prop::Does(r, m) if r == role => Some(m == mv),
            Prop::Node(k) => match &guards[k as usize] {
                Some(Guard::Role { role: r, moves }) if *r == role && moves.binary_search(&mv).is_err() => Some(false),
                _ => None,
            },
            _ => None,
        };
        match holds {
            Some(value) if value != lit.positive => return None,
            Some(_) => {}
            None => known.push(lit),
        }
    }
    Some(known)
}
