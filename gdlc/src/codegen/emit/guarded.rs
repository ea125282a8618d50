//! Which nodes `random_step` computes only when a role's guard holds (`(control white)`): those
//! that only the role's guarded moves read, and those that `terminal`, the goals and the legal
//! moves outside the guards (`noop`) read only behind the guard (see [`guard_reads`]): chess's
//! search for a legal move of white's is computed on white's turns alone.

use super::step::StepValues;
use super::{Body, Emitter};
use crate::codegen::guard_reads::{self, Need};
use crate::codegen::legal_parts::{guards_move, RoleLegal};
use crate::ground::{Lit, Prop, Value};
use proc_macro2::TokenStream;
use quote::quote;

impl Emitter<'_> {
    /// How the step computes the nodes of `needed`, of which `local` are computed in the arms
    /// and `dependent` read the joint move.
    pub(super) fn split(
        &self,
        values: &StepValues,
        plans: &[RoleLegal],
        needed: &[u32],
        local: &[bool],
        dependent: &[bool],
    ) -> Split {
        let of = |guarded_only: Vec<Option<usize>>| {
            let (after, before) = (needed.iter())
                .filter(|&&n| guarded_only[n as usize].is_none() && !local[n as usize])
                .partition(|&&n| dependent[n as usize]);
            Split { guarded_only, after, before, late: Vec::new() }
        };
        let split = of(self.guarded_only_nodes(values, plans, true));
        match self.reading_guarded(&split.before, &split.guarded_only) {
            Some(late) => Split { late, ..split },
            None => of(self.guarded_only_nodes(values, plans, false)),
        }
    }

    /// The nodes of `goal_cone` that the goals (`goal_values`) compute, beyond those the step
    /// computes as `split` says: those before the move, and when they come before `terminal`,
    /// the nodes behind a role's guard that the goals read only behind it.
    pub(super) fn goal_only(
        &self,
        goal_values: &[Value],
        goal_cone: &[u32],
        plans: &[RoleLegal],
        split: &Split,
    ) -> Vec<u32> {
        if !split.hoisted() {
            return self.nodes_beyond(goal_cone, &split.before);
        }
        let needs = self.guard_needs(goal_values, plans);
        let mut computed = split.before.clone();
        computed.extend((0..needs.len() as u32).filter(|&n| match needs[n as usize] {
            Some(Need::Role(role)) => split.guarded_only[n as usize] == Some(role),
            _ => false,
        }));
        computed.sort_unstable();
        self.nodes_beyond(goal_cone, &computed)
    }

    /// For every node, the role whose guarded moves alone read it (`None` for the others):
    /// those nodes are evaluated only when its guard holds. `terminal`, `next` and the legal
    /// moves outside the guards are the other values that `random_step` evaluates; with
    /// `through_guards`, the nodes that `terminal` and those moves read only behind a role's
    /// guard (see [`guard_reads`]) count as that role's.
    fn guarded_only_nodes(&self, values: &StepValues, plans: &[RoleLegal], through_guards: bool) -> Vec<Option<usize>> {
        let cone = |values: &[Value]| self.runtime_cone(values);
        let mut others: Vec<Value> = values.of_next().to_vec();
        let mut readers = vec![Readers::None; self.ground.nodes.len()];
        // The values read through the guards: the terminal, and the legal moves outside a
        // role's guard (linesOfAction's `noop`, legal when the role is not in control or, in
        // control, has no other move, which reads the role's search for a move behind its
        // guard).
        let mut behind: Vec<Value> = values.terminal().to_vec();
        for (role, (moves, plan)) in values.legal.iter().zip(plans).enumerate() {
            let mut guarded = Vec::new();
            for (i, &v) in moves.iter().enumerate() {
                if guards_move(&plan.guard, i) {
                    guarded.push(v);
                } else {
                    behind.push(v);
                }
            }
            if guarded.is_empty() {
                continue;
            }
            for n in cone(&guarded) {
                readers[n as usize].add(Some(role));
            }
        }
        match through_guards {
            false => others.extend(behind),
            true => {
                for (n, need) in self.guard_needs(&behind, plans).into_iter().enumerate() {
                    match need {
                        Some(Need::Always) => readers[n].add(None),
                        Some(Need::Role(role)) => readers[n].add(Some(role)),
                        None => {}
                    }
                }
            }
        }
        for n in cone(&others) {
            readers[n as usize].add(None);
        }
        readers.into_iter().map(|r| if let Readers::Only(role) = r { role } else { None }).collect()
    }

    /// When `values` need each node, by the guards of `plans` (see [`guard_reads::needs`]);
    /// `None` for the nodes they do not read and those the move table gives.
    fn guard_needs(&self, values: &[Value], plans: &[RoleLegal]) -> Vec<Option<Need>> {
        let guards: Vec<Option<Lit>> = plans.iter().map(|plan| plan.guard.as_ref().map(|&(lit, _)| lit)).collect();
        let unit: Vec<Option<u32>> = self.words.member.iter().map(|m| m.map(|(g, _)| g)).collect();
        let given = |n: u32| self.table_bit(n).is_some();
        let mut needs = guard_reads::needs(self.ground, values, &guards, &unit, given);
        (0..needs.len()).filter(|&n| given(n as u32)).for_each(|n| needs[n] = None);
        needs
    }

    /// The nodes of `before` (sorted) that read nodes of `guarded_only` roles, sorted, with
    /// their readers and the groups of node words they are in: those that must come after the
    /// guarded nodes. `None` when a guarded node reads one of them, so that no order computes
    /// the guarded nodes in between.
    fn reading_guarded(&self, before: &[u32], guarded_only: &[Option<usize>]) -> Option<Vec<u32>> {
        let mut late: Vec<bool> = guarded_only.iter().map(Option::is_some).collect();
        self.mark_readers_and_groups(&mut late);
        let unguarded_late =
            |lit: &Lit| matches!(lit.prop, Prop::Node(m) if late[m as usize] && guarded_only[m as usize].is_none());
        let reads_late = (self.ground.nodes.iter().zip(guarded_only))
            .any(|(node, guarded)| guarded.is_some() && node.rules.iter().flatten().any(unguarded_late));
        (!reads_late).then(|| before.iter().copied().filter(|&n| late[n as usize]).collect())
    }
}

/// How `random_step` computes its nodes.
pub(super) struct Split {
    /// For every node, the role behind whose guard alone it is computed.
    pub(super) guarded_only: Vec<Option<usize>>,
    /// The nodes computed after the joint move is known, sorted.
    pub(super) after: Vec<u32>,
    /// The nodes computed before, sorted.
    pub(super) before: Vec<u32>,
    /// The nodes of `before` that read guarded nodes, when the terminal reads some: the
    /// guarded nodes are then computed before them, rather than in the choices.
    pub(super) late: Vec<u32>,
}

/// Which values of `random_step` read a node: none yet, one role's guarded moves (`Some`) or
/// the others (`None`) alone, or more than one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Readers {
    None,
    Only(Option<usize>),
    Many,
}

impl Readers {
    /// The readers with `reader` among them.
    fn add(&mut self, reader: Option<usize>) {
        *self = match *self {
            Readers::None => Readers::Only(reader),
            Readers::Only(had) if had == reader => Readers::Only(had),
            _ => Readers::Many,
        };
    }
}

impl Split {
    /// Whether the guarded nodes are computed before `terminal` rather than in the choices.
    pub(super) fn hoisted(&self) -> bool {
        !self.late.is_empty()
    }

    /// The nodes of `needed` computed behind role `role`'s guard alone.
    pub(super) fn exclusive(&self, needed: &[u32], role: usize) -> Vec<u32> {
        needed.iter().copied().filter(|&n| self.guarded_only[n as usize] == Some(role)).collect()
    }
}

impl Body<'_> {
    /// Statements computing the nodes of `needed` that the step computes before the move, as
    /// `split` says: `before`, and when the guarded nodes come before `terminal`, those of each
    /// role inside a test of its guard (`plans`), between the nodes of `before` that do not
    /// read them and those that do.
    pub(super) fn state_nodes(&self, split: &Split, plans: &[RoleLegal], needed: &[u32]) -> TokenStream {
        if !split.hoisted() {
            return self.emit_nodes(&split.before);
        }
        let early: Vec<u32> = (split.before.iter().copied()).filter(|n| split.late.binary_search(n).is_err()).collect();
        let (early, late) = (self.emit_nodes(&early), self.emit_nodes(&split.late));
        let behind_guards =
            plans.iter().enumerate().map(|(role, plan)| self.behind_guard(plan, &split.exclusive(needed, role)));
        quote!(#early #(#behind_guards)* #late)
    }

    /// Statements computing `exclusive`, nodes that only a role's guarded moves and the
    /// terminal behind its guard read, when the guard of `plan` holds.
    fn behind_guard(&self, plan: &RoleLegal, exclusive: &[u32]) -> TokenStream {
        match &plan.guard {
            Some((lit, _)) if !exclusive.is_empty() => {
                let nodes = self.where_holds(*lit).emit_nodes(exclusive);
                let lit = self.lit(*lit);
                quote! {
                    if #lit {
                        #nodes
                    }
                }
            }
            _ => TokenStream::new(),
        }
    }
}
