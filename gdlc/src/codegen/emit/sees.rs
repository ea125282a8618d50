//! `sees(state, joint, role, out)` (GDL-II): what each role perceives on a step.

use super::{Body, Emitter, Phase};
use crate::ground::Value;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

impl Emitter<'_> {
    /// `sees(state, joint, role, out)`, dispatching to one function per role: like `next`, each
    /// evaluates the nodes its percepts need from the state and the joint move (with no move
    /// table row: it is written in [`Phase::State`]).
    pub(crate) fn generate_sees_fns(&self) -> TokenStream {
        let mut fns = Vec::new();
        let mut arms = Vec::new();
        for (role, percepts) in self.ground.sees.iter().enumerate() {
            let name = format_ident!("sees_{}", role);
            let body = self.role_sees(role, percepts);
            let role_name = &self.ground.roles[role];
            let doc = format!("Appends what `{role_name}` perceives on the step from `s` by `joint` to `out`.");
            fns.push(quote! {
                #[doc = #doc]

                fn #name(s: &State, joint: &[Move; ROLES.len()], out: &mut Vec<u32>) {
                    #body
                }
            });
            let r = Literal::usize_unsuffixed(role);
            arms.push(quote!(#r => #name(s, joint, out),));
        }
        quote! {
            /// Appends what `role` perceives on the step from `s` by `joint` (one move per role,
            /// in role order) to `out`, as indices into [`PERCEPTS`] in increasing order.
            pub fn sees(s: &State, joint: &[Move], role: usize, out: &mut Vec<u32>) {
                let joint: &[Move; ROLES.len()] = joint.try_into().expect("one move per role");
                match role {
                    #(#arms)*
                    _ => {}
                }
            }
            #(#fns)*
        }
    }

    /// The body of a role's `sees`, whose percepts are `percepts`, pairs of a percept and its
    /// condition.
    fn role_sees(&self, role: usize, percepts: &[(u32, Value)]) -> TokenStream {
        let values: Vec<Value> = percepts.iter().map(|&(_, v)| v).collect();
        let (nodes, slots) = self.evaluate(&values);
        let body = Body::new(self, &slots, Phase::State);
        let pushes = percepts.iter().filter(|(_, v)| *v != Value::Const(false)).map(|&(p, v)| {
            let note = self.note(|notes| {
                let (role, percept) = (&self.ground.roles[role], &self.ground.percepts[p as usize]);
                format!("PERCEPTS[{p}]: {}", notes.atom(&format!("(sees {role} {percept})")))
            });
            let p = Literal::u32_unsuffixed(p);
            match v {
                Value::Const(_) => quote!(#note out.push(#p);),
                Value::Lit(lit) => {
                    let cond = body.lit(lit);
                    quote!(#note if #cond { out.push(#p); })
                }
            }
        });
        quote! {
            #nodes
            #(#pushes)*
        }
    }
}
