//! `terminal(state)` and `goals(state, out)`: the functions of the state alone that end a game
//! and score it.

use super::{Body, Emitter, Phase};
use crate::ground::{Lit, Prop, Value};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

impl Emitter<'_> {
    /// `terminal(state)`: whether the state is terminal.
    pub(crate) fn generate_terminal_fn(&self) -> TokenStream {
        let value = self.ground.terminal;
        let (nodes, slots) = self.evaluate(&[value]);
        let result = Body::new(self, &slots, Phase::State).value(value);
        // A node's own comment already names the atom.
        let note = (!matches!(value, Value::Lit(Lit { prop: Prop::Node(_), .. })))
            .then(|| self.note(|notes| notes.atom("terminal")));
        let doc = terminal_doc();
        quote! {
            #doc
            pub fn terminal(s: &State) -> bool {
                #nodes
                #note
                #result
            }
        }
    }

    /// `goals(state, out)`: every role's goal value in the state.
    pub(crate) fn generate_goals_fn(&self) -> TokenStream {
        let values: Vec<Value> = self.ground.goals.iter().flatten().map(|&(_, v)| v).collect();
        let (nodes, slots) = self.evaluate(&values);
        let body = Body::new(self, &slots, Phase::State);
        let roles = self.ground.goals.iter().enumerate().map(|(role, goals)| body.role_goal(role, goals));
        let doc = goals_doc();
        quote! {
            #doc
            pub fn goals(s: &State, out: &mut [Option<u32>]) {
                #nodes
                #(#roles)*
            }
        }
    }
}

/// The documentation of `terminal`, written by itself or served by the fused step.
pub(super) fn terminal_doc() -> TokenStream {
    quote! {
        /// Whether `s` is terminal.
    }
}

/// The documentation of `goals`, written by itself or served by the fused step.
pub(super) fn goals_doc() -> TokenStream {
    quote! {
        /// Fills `out[r]` with role `r`'s goal value in `s` (the largest the goal relation
        /// gives, `None` when it gives none).
    }
}

impl Body<'_> {
    /// Statements that set `out[role]` to role `role`'s goal value, given by `goals`, pairs of
    /// a value and its condition.
    pub(super) fn role_goal(&self, role: usize, goals: &[(u32, Value)]) -> TokenStream {
        let r = Literal::usize_unsuffixed(role);
        // Smallest value first, so that the largest value the relation gives is the last
        // written and counts. Flat statements rather than an `else if` chain, which would
        // nest as deeply as the game has goal values.
        let role_name = &self.emitter.ground.roles[role];
        let sets = goals.iter().rev().map(|&(number, v)| {
            let value = Literal::u32_unsuffixed(number);
            let note = (v != Value::Const(false))
                .then(|| self.emitter.note(|notes| notes.atom(&format!("(goal {role_name} {number})"))));
            match v {
                Value::Const(true) => quote!(#note out[#r] = Some(#value);),
                Value::Const(false) => quote!(),
                Value::Lit(lit) => {
                    let cond = self.lit(lit);
                    quote!(#note if #cond { out[#r] = Some(#value); })
                }
            }
        });
        quote!(out[#r] = None; #(#sets)*)
    }
}
