//! `legal(state, role, out)`, dispatching to one function per role, and the tables of the move
//! of every bit in which a role's legal moves are found.

use super::{Body, Emitter, Phase};
use crate::codegen::legal_parts::RoleLegal;
use crate::ground::Value;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

impl Emitter<'_> {
    /// `legal(state, role, out)`, dispatching to one function per role, whose legal moves are
    /// found as `plans` say.
    pub(crate) fn generate_legal_fns(&self, plans: &[RoleLegal]) -> TokenStream {
        let mut fns = Vec::new();
        let mut arms = Vec::new();
        for (role, (moves, plan)) in self.ground.legal.iter().zip(plans).enumerate() {
            let name = format_ident!("legal_{}", role);
            let body = if plan.one_by_one() {
                self.legal_one_by_one(role, moves)
            } else {
                self.legal_by_parts(role, moves, plan)
            };
            let role_name = &self.ground.roles[role];
            let doc = format!("Appends the legal moves of `{role_name}` in `s` to `out`.");
            fns.push(quote! {
                #[doc = #doc]

                fn #name(s: &State, out: &mut Vec<Move>) {
                    #body
                }
            });
            let r = Literal::usize_unsuffixed(role);
            arms.push(quote!(#r => #name(s, out),));
        }
        quote! {
            /// Appends `role`'s legal moves in `s` to `out`: in the order of [`MOVES`] for a role
            /// without families of moves (one rule over different places on the board), else in
            /// the order `random_step` draws from.
            pub fn legal(s: &State, role: usize, out: &mut Vec<Move>) {
                match role {
                    #(#arms)*
                    _ => {}
                }
            }
            #(#fns)*
        }
    }

    /// The body of a role's `legal`: its moves tested one by one, in the order of `MOVES`.
    fn legal_one_by_one(&self, role: usize, moves: &[(u32, Value)]) -> TokenStream {
        let values: Vec<Value> = moves.iter().map(|&(_, v)| v).collect();
        let (nodes, slots) = self.evaluate(&values);
        let body = Body::new(self, &slots, Phase::State);
        let pushes = moves.iter().filter(|(_, v)| *v != Value::Const(false)).map(|&(m, v)| {
            let note = self.note_legal(role, m);
            let m = Literal::u32_unsuffixed(m);
            match v {
                Value::Const(_) => quote!(#note out.push(Move(#m));),
                Value::Lit(lit) => {
                    let cond = body.lit(lit);
                    quote!(#note if #cond { out.push(Move(#m)); })
                }
            }
        });
        quote!(#nodes #(#pushes)*)
    }

    /// A comment naming the legal atom of role `role`'s move `m`.
    pub(crate) fn note_legal(&self, role: usize, m: u32) -> TokenStream {
        self.note(|notes| {
            let (role, mv) = (&self.ground.roles[role], &self.ground.moves[m as usize]);
            format!("MOVES[{m}]: {}", notes.atom(&format!("(legal {role} {mv})")))
        })
    }

    /// The body of a role's `legal`: the families a word at a time and the other moves one by
    /// one, into the words of `parts`, listed in their order, the order `random_step` draws
    /// in.
    fn legal_by_parts(&self, role: usize, moves: &[(u32, Value)], plan: &RoleLegal) -> TokenStream {
        let values = plan.families.values(moves);
        let (nodes, slots) = self.evaluate(&values);
        let fill = Body::new(self, &slots, Phase::State).fill_legal_parts(moves, plan, TokenStream::new());
        let declare = fill.declare();
        let listed = listed_parts(&plan.parts.move_of(role), None);
        quote! {
            #nodes
            #declare
            #listed
        }
    }
}

/// The statement that appends to `out` the moves of the set bits of `parts`, by the table
/// `move_of` of the move of every bit, from the lowest bit of the first word. With `at`, word
/// `p` of `parts` is word `at[p]` of the table.
pub(super) fn listed_parts(move_of: &Ident, at: Option<&TokenStream>) -> TokenStream {
    let row = match at {
        Some(at) => quote!(#at[p]),
        None => quote!(p),
    };
    quote! {
        for (p, &word) in parts.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let b = word.trailing_zeros();
                out.push(Move(#move_of[#row][b as usize]));
                word &= word - 1;
            }
        }
    }
}

/// The tables of the move of every bit of every role whose moves are found in words of
/// `parts`: the roles that `legal` finds so, and with `fused`, every role, since
/// `random_step` draws from them.
pub(crate) fn legal_move_tables(plans: &[RoleLegal], fused: bool) -> TokenStream {
    let tables = plans
        .iter()
        .enumerate()
        .filter(|(_, plan)| fused || !plan.one_by_one())
        .map(|(role, plan)| plan.parts.table(role));
    quote!(#(#tables)*)
}
