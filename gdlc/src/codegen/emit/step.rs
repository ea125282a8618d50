//! `random_step(state, rng)`, the fused step of a random playout: `terminal`, every role's
//! legal moves and draw, and `next`, with every derived proposition they share computed once.
//! On a large game the same code also answers `legal`, `terminal` or `goals` (`evaluate`).

use super::nodes::TwoSlots;
use super::{Body, Emitter, Phase};
use crate::codegen::cones::Cones;
use crate::codegen::legal_parts::{GuardSplit, RoleLegal};
use crate::codegen::move_tables::MoveTables;
use crate::codegen::pick_tables;
use crate::ground::{Lit, Prop, Value};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};

/// The values `random_step` evaluates, in order: `terminal`, every role's legal moves (less
/// those its families find, which read no node), the next values the frame tables do not give
/// and the conditions of the frame arms.
pub(super) struct StepValues {
    values: Vec<Value>,
    /// By role, the conditions of its legal moves that need nodes evaluated.
    pub(super) legal: Vec<Vec<Value>>,
    /// Where the values of the state end (`terminal` and the legal moves) and those of `next`
    /// start.
    state: usize,
    /// Where the values outside the arms of the conditional frame rules end, and the
    /// conditions of those arms start.
    arms: usize,
}

impl StepValues {
    pub(super) fn terminal(&self) -> &[Value] {
        &self.values[..1]
    }

    fn of_state(&self) -> &[Value] {
        &self.values[..self.state]
    }

    pub(super) fn of_next(&self) -> &[Value] {
        &self.values[self.state..]
    }
}

/// The fewest nodes of its state part that the fused step must share with `legal`, `terminal`
/// or `goals` for the step's code to serve that function too, rather than a copy of its own:
/// on large games (chess, where `terminal` and `goals` look for a legal move as `legal` does)
/// the copies were most of the module and of its build time; on small ones a function of its
/// own computes less.
const SHARED_MIN_NODES: usize = 1_000;

/// Which functions of the state the fused step's code also serves, through `evaluate`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shared {
    pub(crate) legal: bool,
    pub(crate) terminal: bool,
    pub(crate) goals: bool,
}

impl Shared {
    fn any(self) -> bool {
        self.legal || self.terminal || self.goals
    }
}

/// The fused step: its functions, the static tables they read, and which functions of the
/// state it serves.
pub(crate) struct FusedStep {
    pub(crate) code: TokenStream,
    pub(crate) tables: TokenStream,
    pub(crate) shared: Shared,
}

impl Emitter<'_> {
    /// `random_step_into(state, rng, out)` (and `random_step(state, rng)`, which calls it): one
    /// step of a uniformly random playout written into `out`, with every derived
    /// proposition that terminal, legal and next share computed once, and the static tables
    /// it reads. It draws the same random numbers and picks the same moves as `gdl_runtime`'s
    /// default `Game::random_step` over `legal` and `next`, whose legal moves `plans` find.
    /// When the step shares most of its nodes with `legal`, `terminal` or `goals` (see
    /// [`SHARED_MIN_NODES`]), its code is a function `evaluate` that serves them too.
    /// `None` when the game has a terminal or legal proposition that depends on the joint move
    /// (which valid GDL rules out), so that the default is used.
    pub(crate) fn generate_random_step_fn(&self, plans: &[RoleLegal]) -> Option<FusedStep> {
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
        // The nodes only a role's guarded moves read are computed only when its guard holds:
        // in its choice, or before `terminal` when it reads them behind the guard too.
        let local = self.arm_only_nodes(&values.values[..values.arms]);
        let split = self.split(&values, plans, &needed, &local, &dependent);
        let hoisted = split.hoisted();
        let state_part: Vec<u32> =
            needed.iter().copied().filter(|&n| !local[n as usize] && !dependent[n as usize]).collect();
        let cones = Cones::new(self.ground);
        let goal_values: Vec<Value> = self.ground.goals.iter().flatten().map(|&(_, v)| v).collect();
        let goal_cone = cones.cone(&goal_values);
        let shared = self.shared(&state_part, &values, &cones, &goal_cone);
        let goal_only = match shared.goals {
            true => self.goal_only(&goal_values, &goal_cone, plans, &split),
            false => Vec::new(),
        };
        // The goals' own nodes take slots after the step's, in arrays that only `goals` makes.
        let TwoSlots { declare, first: slots, extend, all } = self.assign_slots_then(&needed, &goal_only);
        let state = Body::new(self, &slots, Phase::State);
        let goals = Body::new(self, &all, Phase::State);
        let after_draw = state.in_phase(Phase::Move);
        let state_nodes = state.state_nodes(&split, plans, &needed);
        let row = self.move_table_row();
        let move_nodes = after_draw.emit_move_nodes(&split.after);
        // The frame and arm-family rows of a role whose draw is in few words are looked up by
        // the drawn bit: a load fewer on the path from one state to the next than by move.
        let by_draw: Vec<bool> = plans.iter().map(|plan| self.rows_by_draw(&plan.parts)).collect();
        let (mut choices, mut tables) = (Vec::new(), TokenStream::new());
        for (role, (moves, plan)) in self.ground.legal.iter().zip(plans).enumerate() {
            let exclusive = if hoisted { Vec::new() } else { split.exclusive(&needed, role) };
            let exclusive = (exclusive.as_slice(), &split.gates[role]);
            let (choice, role_tables) = state.choice(role, moves, plan, exclusive, by_draw[role], shared);
            choices.push(choice);
            tables.extend(role_tables);
        }
        let next_words = after_draw.next_words(&local, &by_draw);
        let roles = Literal::usize_unsuffixed(self.ground.roles.len());
        let terminal = state.value(self.ground.terminal);
        let after_choices = quote! {
            let joint = &joint;
            #row
            #move_nodes
            #next_words
            out.0 = w;
            true
        };
        let code = match shared.any() {
            false => step_fns(quote! {
                #declare
                #state_nodes
                if #terminal {
                    return false;
                }
                let mut joint = [Move(0); #roles];
                #(#choices)*
                #after_choices
            }),
            true => {
                let asked = state.asked(shared, &terminal, (&goals, extend, &goal_only));
                let served = served_fns(shared);
                let asks = ask_variants(shared);
                quote! {
                    #served

                    /// What `evaluate` is asked for.
                    enum Ask<'a> {
                        Step(&'a mut ::gdl_runtime::rng::Rng, &'a mut State),
                        #asks
                    }

                    /// The state's derived propositions, computed once for what `ask` asks: a step
                    /// of a random playout (see `random_step`), or one of the functions of the
                    /// state this code serves, whose answer goes where `ask` says. `true` when
                    /// asked for a step and the next state is written.

                    fn evaluate(s: &State, mut ask: Ask<'_>) -> bool {
                        #declare
                        #state_nodes
                        #asked
                        let mut joint = [Move(0); #roles];
                        #(#choices)*
                        // Only a step goes on to the next state; `legal` has listed the asked moves.
                        let Ask::Step(_, out) = ask else {
                            return false;
                        };
                        #after_choices
                    }
                }
            }
        };
        Some(FusedStep { code, tables, shared })
    }

    /// Which of `legal`, `terminal` and `goals` the step's code serves: each that reads at
    /// least [`SHARED_MIN_NODES`] of `state_part`, the nodes the step computes before the move
    /// is known (those behind a role's guard among them). `goals`, which a playout calls once
    /// at its end, must also read at least half of them, so that a playout does not compute
    /// much more for it than its own function did. `goal_cone` is the cone of the goal values.
    fn shared(&self, state_part: &[u32], values: &StepValues, cones: &Cones, goal_cone: &[u32]) -> Shared {
        let mut in_part = vec![false; self.ground.nodes.len()];
        state_part.iter().for_each(|&n| in_part[n as usize] = true);
        let overlap = |cone: Vec<u32>| self.whole_groups(cone).iter().filter(|&&n| in_part[n as usize]).count();
        let legal: Vec<Value> = values.legal.iter().flatten().copied().collect();
        let goal_overlap = overlap(goal_cone.to_vec());
        Shared {
            legal: overlap(cones.cone(&legal)) >= SHARED_MIN_NODES,
            terminal: overlap(cones.cone(values.terminal())) >= SHARED_MIN_NODES,
            goals: goal_overlap >= SHARED_MIN_NODES && 2 * goal_overlap >= state_part.len(),
        }
    }

    /// The nodes of `cone` beyond `computed`, sorted, in whole groups of node words.
    pub(super) fn nodes_beyond(&self, cone: &[u32], computed: &[u32]) -> Vec<u32> {
        let computed: BTreeSet<u32> = computed.iter().copied().collect();
        self.whole_groups(cone.iter().copied().filter(|n| !computed.contains(n)).collect())
    }

    /// The values `random_step` evaluates, with every role's legal moves found as `plans` say.
    fn step_values(&self, plans: &[RoleLegal]) -> StepValues {
        let legal: Vec<Vec<Value>> =
            self.ground.legal.iter().zip(plans).map(|(moves, plan)| plan.families.values(moves)).collect();
        let mut values: Vec<Value> = vec![self.ground.terminal];
        values.extend(legal.iter().flatten().copied());
        let state = values.len();
        values.extend(self.next_outside_arms());
        let arms = values.len();
        values.extend(self.tables.iter().flat_map(MoveTables::arm_values));
        StepValues { values, legal, state, arms }
    }
}

/// `random_step`, a call of `random_step_into`, and `random_step_into` with the body `body`,
/// which writes the next state into `out` and says whether there is one.
fn step_fns(body: TokenStream) -> TokenStream {
    quote! {
        /// One step of a uniformly random playout from `s`: `None` when `s` is terminal or a
        /// role has no legal move, else the state after every role plays a move drawn
        /// uniformly among its legal ones (one draw per role with several moves, in role
        /// order).
        pub fn random_step(s: &State, rng: &mut ::gdl_runtime::rng::Rng) -> Option<State> {
            let mut out = *s;
            random_step_into(s, rng, &mut out).then_some(out)
        }
        /// `random_step` written into `out`: `false` (and `out` as it was) when `s` is
        /// terminal or a role has no legal move, else `true` with the next state in `out`.
        pub fn random_step_into(s: &State, rng: &mut ::gdl_runtime::rng::Rng, out: &mut State) -> bool {
            #body
        }
    }
}

/// The functions the step's code serves, each a call of `evaluate`.
fn served_fns(shared: Shared) -> TokenStream {
    let legal = shared.legal.then(|| {
        quote! {
            /// Appends `role`'s legal moves in `s` to `out`, in the order `random_step` draws
            /// from.
            pub fn legal(s: &State, role: usize, out: &mut Vec<Move>) {
                evaluate(s, Ask::Legal(role, out));
            }
        }
    });
    let terminal = shared.terminal.then(|| {
        let doc = super::goals::terminal_doc();
        quote! {
            #doc
            pub fn terminal(s: &State) -> bool {
                let mut terminal = false;
                evaluate(s, Ask::Terminal(&mut terminal));
                terminal
            }
        }
    });
    let goals = shared.goals.then(|| {
        let doc = super::goals::goals_doc();
        quote! {
            #doc
            pub fn goals(s: &State, out: &mut [Option<u32>]) {
                evaluate(s, Ask::Goals(out));
            }
        }
    });
    let step = step_fns(quote!(evaluate(s, Ask::Step(rng, out))));
    quote! {
        #step
        #legal
        #terminal
        #goals
    }
}

/// The variants of `Ask` beside `Step`: one for each function the step's code serves.
fn ask_variants(shared: Shared) -> TokenStream {
    let legal = shared.legal.then(|| quote!(Legal(usize, &'a mut Vec<Move>),));
    let terminal = shared.terminal.then(|| quote!(Terminal(&'a mut bool),));
    let goals = shared.goals.then(|| quote!(Goals(&'a mut [Option<u32>]),));
    quote!(#legal #terminal #goals)
}

impl Body<'_> {
    /// What `evaluate` does once the nodes of the state part are computed, by what it is
    /// asked: a step stops at a terminal state; `terminal` and `goals`, when it serves them,
    /// answer (`goals` after `goal_only`, the nodes only they read, written by `goals`, the
    /// body whose arrays `extend` makes) and stop; `legal` goes on to the roles' choices.
    fn asked(&self, shared: Shared, terminal: &TokenStream, goals: (&Body, TokenStream, &[u32])) -> TokenStream {
        let (goals, extend, goal_only) = goals;
        let terminal_arm = shared.terminal.then(|| {
            quote! {
                Ask::Terminal(out) => {
                    **out = #terminal;
                    return false;
                }
            }
        });
        let goals_arm = shared.goals.then(|| {
            let nodes = goals.emit_nodes(goal_only);
            let roles =
                self.emitter.ground.goals.iter().enumerate().map(|(role, values)| goals.role_goal(role, values));
            quote! {
                Ask::Goals(out) => {
                    #extend
                    #nodes
                    let out: &mut [Option<u32>] = out;
                    #(#roles)*
                    return false;
                }
            }
        });
        let legal_arm = shared.legal.then(|| quote!(Ask::Legal(..) => {}));
        quote! {
            match &mut ask {
                Ask::Step(..) => {
                    if #terminal {
                        return false;
                    }
                }
                #terminal_arm
                #goals_arm
                #legal_arm
            }
        }
    }

    /// Role `role`'s choice in `random_step`, and the tables it reads: its legal moves `moves`
    /// found as `plan` says (after `exclusive`, the nodes only its guarded moves read, when its
    /// guard holds, with their gates), and one drawn among them into `joint[role]` as bit
    /// `drawn_role`. The draw is among the set bits in the order `legal` lists them, so that it
    /// picks the move the general interface picks. When the role's guard fails, the draw is among the few words
    /// of its unguarded moves alone (the `noop` of a turn-taking game), not all of its words.
    /// With `by_draw`, its frame and arm-family rows are looked up by that bit.
    fn choice(
        &self,
        role: usize,
        moves: &[(u32, Value)],
        plan: &RoleLegal,
        exclusive: (&[u32], &BTreeMap<u32, u32>),
        by_draw: bool,
        shared: Shared,
    ) -> (TokenStream, TokenStream) {
        let r = Literal::usize_unsuffixed(role);
        let (exclusive, gates) = exclusive;
        let fill = self.fill_legal_parts(moves, plan, self.emit_gated_nodes(exclusive, gates));
        let move_of = plan.parts.move_of(role);
        let drawn = format_ident!("drawn_{}", role);
        let used: Vec<u64> = plan.parts.words.iter().map(|&(used, _)| used).collect();
        let (draw, pick_table) = pick_tables::draw(role, &used);
        let asked = |draw: TokenStream, at: Option<&TokenStream>| asked_draw(role, shared, &move_of, draw, at);
        let draw = match fill.split() {
            Some(GuardSplit { guard, held, failed, at }) => {
                let (held_draw, failed_draw) = (asked(draw, None), asked(among_few(), Some(&quote!(AT))));
                let (few, at) = (Literal::usize_unsuffixed(at.len()), at.into_iter().map(Literal::usize_unsuffixed));
                quote! {
                    let #drawn = if #guard {
                        #held
                        #held_draw
                    } else {
                        const AT: [usize; #few] = [#(#at),*];
                        #failed
                        #failed_draw
                    };
                }
            }
            None => {
                let (declare, draw) = (fill.declare(), asked(draw, None));
                quote!(#declare let #drawn = #draw;)
            }
        };
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
            #draw
            #in_range
            joint[#r] = Move(#move_of[#drawn / 64][#drawn % 64]);
        };
        (choice, quote!(#bit_tables #pick_table))
    }
}

/// Role `role`'s draw `draw` from `parts`, in the arms of `Ask` when the step's code serves
/// other functions (`shared`): asked for `legal`, the asked role's moves are listed by the
/// table `move_of` and the others' not drawn; asked for `terminal` or `goals`, `evaluate` has
/// answered before the choices. With `at`, word `p` of `parts` is word `at[p]` of the table.
fn asked_draw(
    role: usize,
    shared: Shared,
    move_of: &Ident,
    draw: TokenStream,
    at: Option<&TokenStream>,
) -> TokenStream {
    if !shared.any() {
        return draw;
    }
    let r = Literal::usize_unsuffixed(role);
    let listed = super::legal::listed_parts(move_of, at);
    let legal_arm = shared.legal.then(|| {
        quote! {
            Ask::Legal(asked, out) => {
                if *asked == #r {
                    #listed
                    return false;
                }
                0
            }
        }
    });
    let answered_arm = (shared.terminal || shared.goals).then(|| quote!(_ => return false,));
    quote! {
        match &mut ask {
            Ask::Step(rng, _) => #draw,
            #legal_arm
            #answered_arm
        }
    }
}

/// The draw among the few words of a role's moves that its guard does not guard, when the
/// guard fails (`noop`, on the other roles' turns): word `p` of them is word `AT[p]` of all.
fn among_few() -> TokenStream {
    quote! {
        match ::gdl_runtime::bits::pick(&parts, rng) {
            Some((p, b)) => 64 * AT[p] + b as usize,
            None => return false,
        }
    }
}
