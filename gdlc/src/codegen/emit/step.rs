//! `random_step(state, rng)`, the fused step of a random playout: `terminal`, every role's
//! legal moves and draw, and `next`, with every derived proposition they share computed once.

use super::{Body, Emitter, Phase};
use crate::codegen::legal_parts::{guards_move, RoleLegal};
use crate::codegen::move_tables::MoveTables;
use crate::codegen::pick_tables;
use crate::ground::{Lit, Prop, Value};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// The values `random_step` evaluates, in order: `terminal`, every role's legal moves (less
/// those its families find, which read no node), the next values the frame tables do not give
/// and the conditions of the frame arms.
struct StepValues {
    values: Vec<Value>,
    /// By role, the conditions of its legal moves that need nodes evaluated.
    legal: Vec<Vec<Value>>,
    /// Where the values of the state end (`terminal` and the legal moves) and those of `next`
    /// start.
    state: usize,
}

impl StepValues {
    fn terminal(&self) -> &[Value] {
        &self.values[..1]
    }

    fn of_state(&self) -> &[Value] {
        &self.values[..self.state]
    }

    fn of_next(&self) -> &[Value] {
        &self.values[self.state..]
    }
}

impl Emitter<'_> {
    /// `random_step(state, rng)`: one step of a uniformly random playout, with every derived
    /// proposition that terminal, legal and next share computed once, and the static tables
    /// it reads. It draws the same random numbers and picks the same moves as `gdl_runtime`'s
    /// default `Game::random_step` over `legal` and `next`, whose legal moves `plans` find.
    /// `None` when the game has a terminal or legal proposition that depends on the joint move
    /// (which valid GDL rules out), so that the default is used.
    pub(crate) fn generate_random_step_fn(&self, plans: &[RoleLegal]) -> Option<(TokenStream, TokenStream)> {
        let values = self.step_values(plans);
        let needed = self.runtime_cone(&values.values);
        let dependent = self.move_dependent();
        let depends = |v: &Value| {
            matches!(v, Value::Lit(Lit { prop: Prop::Node(n), .. }) if dependent[*n as usize])
                || matches!(v, Value::Lit(Lit { prop: Prop::Does(..), .. }))
        };
        if values.of_state().iter().any(depends) || self.ground.legal.iter().flatten().any(|(_, v)| depends(v)) {
            return None;
        }
        let (declare, slots) = self.assign_slots(&needed);
        let state = Body::new(self, &slots, Phase::State);
        let after_draw = state.in_phase(Phase::Move);
        // The nodes only a role's guarded moves read are computed only when its guard holds.
        let guarded_only = self.guarded_only_nodes(&values, plans);
        let local = self.arm_only_nodes(&values.values[..values.state + self.ground.next.len()]);
        let (after, before): (Vec<u32>, Vec<u32>) = needed
            .iter()
            .filter(|&&n| guarded_only[n as usize].is_none() && !local[n as usize])
            .partition(|&&n| dependent[n as usize]);
        let state_nodes = state.emit_nodes(&before);
        let row = self.move_table_row();
        let move_nodes = after_draw.emit_move_nodes(&after);
        let terminal = state.value(self.ground.terminal);
        // The frame and arm-family rows of a role whose draw is in few words are looked up by
        // the drawn bit: a load fewer on the path from one state to the next than by move.
        let by_draw: Vec<bool> = plans.iter().map(|plan| self.rows_by_draw(&plan.parts)).collect();
        let (mut choices, mut tables) = (Vec::new(), TokenStream::new());
        for (role, (moves, plan)) in self.ground.legal.iter().zip(plans).enumerate() {
            let exclusive: Vec<u32> =
                needed.iter().copied().filter(|&n| guarded_only[n as usize] == Some(role)).collect();
            let (choice, role_tables) = state.choice(role, moves, plan, &exclusive, by_draw[role]);
            choices.push(choice);
            tables.extend(role_tables);
        }
        let next_words = after_draw.next_words(&local, &by_draw);
        let roles = Literal::usize_unsuffixed(self.ground.roles.len());
        let code = quote! {
            /// One step of a uniformly random playout from `s`: `None` when `s` is terminal or a
            /// role has no legal move, else the state after every role plays a move drawn
            /// uniformly among its legal ones (one draw per role with several moves, in role
            /// order).

            pub fn random_step(s: &State, rng: &mut ::gdl_runtime::rng::Rng) -> Option<State> {
                #declare
                #state_nodes
                if #terminal {
                    return None;
                }
                let mut joint = [Move(0); #roles];
                #(#choices)*
                let joint = &joint;
                #row
                #move_nodes
                #next_words
                Some(State(w))
            }
        };
        Some((code, tables))
    }

    /// The values `random_step` evaluates, with every role's legal moves found as `plans` say.
    fn step_values(&self, plans: &[RoleLegal]) -> StepValues {
        let legal: Vec<Vec<Value>> =
            self.ground.legal.iter().zip(plans).map(|(moves, plan)| plan.families.values(moves)).collect();
        let mut values: Vec<Value> = vec![self.ground.terminal];
        values.extend(legal.iter().flatten().copied());
        let state = values.len();
        values.extend(self.unframed_next());
        values.extend(self.tables.iter().flat_map(MoveTables::arm_values));
        StepValues { values, legal, state }
    }

    /// For every node, the role whose guarded moves alone read it (`None` for the others):
    /// those nodes are evaluated in the role's choice, and only when its guard holds.
    /// `terminal` and `next` are the other values that `random_step` evaluates.
    fn guarded_only_nodes(&self, values: &StepValues, plans: &[RoleLegal]) -> Vec<Option<usize>> {
        let cone = |values: &[Value]| self.runtime_cone(values);
        let mut others: Vec<Value> = values.terminal().iter().chain(values.of_next()).copied().collect();
        let mut readers = vec![0u32; self.ground.nodes.len()];
        let mut owner = vec![None; self.ground.nodes.len()];
        for (role, (moves, plan)) in values.legal.iter().zip(plans).enumerate() {
            let mut guarded = Vec::new();
            for (i, &v) in moves.iter().enumerate() {
                if guards_move(&plan.guard, i) {
                    guarded.push(v);
                } else {
                    others.push(v);
                }
            }
            if guarded.is_empty() {
                continue;
            }
            for n in cone(&guarded) {
                readers[n as usize] += 1;
                owner[n as usize] = Some(role);
            }
        }
        for n in cone(&others) {
            readers[n as usize] += 1;
        }
        owner.iter().zip(&readers).map(|(&o, &count)| if count == 1 { o } else { None }).collect()
    }
}

impl Body<'_> {
    /// Role `role`'s choice in `random_step`, and the tables it reads: its legal moves `moves`
    /// found as `plan` says (after `exclusive`, the nodes only its guarded moves read, when its
    /// guard holds), and one drawn among them into `joint[role]` as bit `drawn_role`. The draw
    /// is among the set bits in the order `legal` lists them, so that it picks the move the
    /// general interface picks. With `by_draw`, its frame and arm-family rows are looked up by
    /// that bit.
    fn choice(
        &self,
        role: usize,
        moves: &[(u32, Value)],
        plan: &RoleLegal,
        exclusive: &[u32],
        by_draw: bool,
    ) -> (TokenStream, TokenStream) {
        let r = Literal::usize_unsuffixed(role);
        let fill = self.fill_legal_parts(moves, plan, self.emit_nodes(exclusive));
        let (declare, move_of) = plan.parts.declare(role);
        let drawn = format_ident!("drawn_{}", role);
        let used: Vec<u64> = plan.parts.words.iter().map(|&(used, _)| used).collect();
        let (draw, pick_table) = pick_tables::draw(role, &used, &drawn);
        // The drawn bit is below `64 * words`; saying so with a mask (free when that is a
        // power of two) lets the compiler drop the bounds checks of the tables it indexes,
        // and with them the move's lookup when nothing reads the move.
        let bits = 64 * used.len();
        let in_range = bits.is_power_of_two().then(|| {
            let mask = Literal::usize_unsuffixed(bits - 1);
            quote!(let #drawn = #drawn & #mask;)
        });
        let bit_tables = by_draw.then(|| self.emitter.bit_tables(role, &plan.parts));
        let choice = quote! {
            #declare
            #fill
            #draw
            #in_range
            joint[#r] = Move(#move_of[#drawn / 64][#drawn % 64]);
        };
        (choice, quote!(#bit_tables #pick_table))
    }
}
