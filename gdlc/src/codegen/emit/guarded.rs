//! Which nodes `random_step` computes only when a role's guard holds (`(control white)`): those
//! that only the role's guarded moves read, and those that `terminal`, the goals and the legal
//! moves outside the guards (`noop`) read only behind the guard (see [`guard_reads`]): chess's
//! search for a legal move of white's is computed on white's turns alone. Inside a role's
//! block, the nodes needed only when a node of the block holds are computed inside a test of
//! it (see [`node_gates`]); a node that the guarded moves of several roles read is computed in
//! each of their blocks when every block can skip it so.

use super::step::StepValues;
use super::{Body, Emitter};
use crate::codegen::guard_reads::{self, Need};
use crate::codegen::legal_parts::{guards_move, RoleLegal};
use crate::codegen::node_gates;
use crate::ground::readers::{read_by_values, Readers};
use crate::ground::{Lit, Prop, Value};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};

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
        let of = |(guarded_only, several): (Vec<Option<usize>>, Vec<u64>)| {
            let (after, before) = (needed.iter())
                .filter(|&&n| guarded_only[n as usize].is_none() && !local[n as usize])
                .partition(|&&n| dependent[n as usize]);
            let roles = plans.len();
            Split { guarded_only, several, after, before, late: Vec::new(), gates: vec![BTreeMap::new(); roles] }
        };
        let split = of(self.guarded_only_nodes(values, plans, true));
        let split = match self.reading_guarded(&split.before, &split.guarded_only) {
            Some(late) => Split { late, ..split },
            None => of(self.guarded_only_nodes(values, plans, false)),
        };
        self.gate_blocks(split, values, needed)
    }

    /// `split` with the gates of every role's block (see [`node_gates`]), and with the nodes
    /// that the guarded moves of several roles alone read computed in each of their blocks
    /// when each can skip them. Such a node stays in the blocks only if every node of several
    /// roles that reads it does, so that nothing computed before the blocks reads it.
    fn gate_blocks(&self, split: Split, values: &StepValues, needed: &[u32]) -> Split {
        // With no node behind a guard (most games of one role or of simultaneous moves) there
        // is no block to gate: the index of readers is not built.
        if split.guarded_only.iter().all(Option::is_none) && split.several.iter().all(|&roles| roles == 0) {
            return split;
        }
        let readers = Readers::new(self.ground);
        let read = read_by_values(self.ground.nodes.len(), values.of_next().iter().chain(self.ground.outputs()));
        let twins = self.twins(needed);
        let may_skip = |n: u32| {
            let i = n as usize;
            self.cycle_of[i].is_none()
                && !twins.contains_key(&n)
                && self.words.member[i].is_none_or(|(g, _)| self.words.loop_of[g as usize].is_none())
        };
        let late: BTreeSet<u32> = split.late.iter().copied().collect();
        let mut several: Vec<u64> = (split.several.iter().enumerate())
            .map(|(n, &roles)| if late.contains(&(n as u32)) { 0 } else { roles })
            .collect();
        loop {
            let trial = Split { several: several.clone(), ..split.clone() };
            let gates: Vec<BTreeMap<u32, u32>> = (0..split.gates.len())
                .map(|role| self.block_gates(&trial, needed, role, (&readers, &read, &may_skip)))
                .collect();
            let kept = kept_in_blocks(&several, &split.several, &gates, &readers);
            if kept == several {
                let before: Vec<u32> = (split.before.iter().copied()).filter(|&n| several[n as usize] == 0).collect();
                return Split { several, before, gates, ..split };
            }
            several = kept;
        }
    }

    /// The gates of role `role`'s block as `split` says, found with the rules that read each
    /// node, the nodes the values read and the nodes that may be skipped.
    fn block_gates(
        &self,
        split: &Split,
        needed: &[u32],
        role: usize,
        (readers, read, may_skip): (&Readers, &[bool], &dyn Fn(u32) -> bool),
    ) -> BTreeMap<u32, u32> {
        let mut order = split.exclusive(needed, role);
        order.sort_by_key(|&n| self.words.rank[n as usize]);
        let block = node_gates::Block {
            ground: self.ground,
            readers,
            order: &order,
            read_by_values: read,
            elsewhere: &|n| split.in_block_of_another(n, role),
            unit: &|n| self.words.member[n as usize].map(|(g, _)| g),
            may_skip,
            min_literals: node_gates::MIN_GATED_LITERALS,
        };
        node_gates::gates(&block)
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
        computed.extend((0..needs.len() as u32).filter(|&n| {
            let role = needs[n as usize].and_then(Need::only_role);
            role.is_some_and(|role| split.guarded_only[n as usize] == Some(role))
        }));
        computed.sort_unstable();
        self.nodes_beyond(goal_cone, &computed)
    }

    /// For every node, the role whose guarded moves alone read it (`None` for the others):
    /// those nodes are evaluated only when its guard holds. `terminal`, `next` and the legal
    /// moves outside the guards are the other values that `random_step` evaluates; with
    /// `through_guards`, the nodes that `terminal` and those moves read only behind a role's
    /// guard (see [`guard_reads`]) count as that role's. Beside it, for every node, the roles
    /// (as bits) whose guarded moves alone read it when there are several, else 0.
    fn guarded_only_nodes(
        &self,
        values: &StepValues,
        plans: &[RoleLegal],
        through_guards: bool,
    ) -> (Vec<Option<usize>>, Vec<u64>) {
        let cone = |values: &[Value]| self.runtime_cone(values);
        let mut others: Vec<Value> = values.of_next().to_vec();
        let mut readers = vec![ReadBy::default(); self.ground.nodes.len()];
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
                        Some(Need::Roles(roles)) => readers[n].add_roles(roles),
                        None => {}
                    }
                }
            }
        }
        for n in cone(&others) {
            readers[n as usize].add(None);
        }
        let only = |r: &ReadBy| (!r.unguarded && r.roles.count_ones() == 1).then(|| r.roles.trailing_zeros() as usize);
        let several = |r: &ReadBy| if r.unguarded || r.roles.count_ones() < 2 { 0 } else { r.roles };
        (readers.iter().map(only).collect(), readers.iter().map(several).collect())
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

/// Of the nodes that the guarded moves of several roles alone read (`several`, the roles as
/// bits, and `all` before any was dropped), those that stay in the roles' blocks: gated in each
/// (`gates`, by role), and read by no node of several roles dropped from them.
fn kept_in_blocks(several: &[u64], all: &[u64], gates: &[BTreeMap<u32, u32>], readers: &Readers) -> Vec<u64> {
    let roles_of = |mask: u64| (0..64usize).filter(move |&role| mask & (1 << role) != 0);
    let gated_in_all = |n: usize, mask: u64| roles_of(mask).all(|role| gates[role].contains_key(&(n as u32)));
    let mut kept: Vec<u64> =
        several.iter().enumerate().map(|(n, &mask)| if gated_in_all(n, mask) { mask } else { 0 }).collect();
    loop {
        let dropped = |head: u32| all[head as usize] != 0 && kept[head as usize] == 0;
        let next: Vec<u64> = (kept.iter().enumerate())
            .map(|(n, &mask)| if readers.reading(n as u32).any(dropped) { 0 } else { mask })
            .collect();
        if next == kept {
            return kept;
        }
        kept = next;
    }
}

/// How `random_step` computes its nodes.
#[derive(Clone)]
pub(super) struct Split {
    /// For every node, the role behind whose guard alone it is computed.
    pub(super) guarded_only: Vec<Option<usize>>,
    /// For every node, the roles (as bits) behind whose guards it is computed, in each role's
    /// block, when there are several; else 0.
    pub(super) several: Vec<u64>,
    /// The nodes computed after the joint move is known, sorted.
    pub(super) after: Vec<u32>,
    /// The nodes computed before, sorted.
    pub(super) before: Vec<u32>,
    /// The nodes of `before` that read guarded nodes, when the terminal reads some: the
    /// guarded nodes are then computed before them, rather than in the choices.
    pub(super) late: Vec<u32>,
    /// For every role, the gates of the nodes of its block that have one (see [`node_gates`]).
    pub(super) gates: Vec<BTreeMap<u32, u32>>,
}

/// Which values of `random_step` read a node: values other than the guarded moves, and the
/// roles (as bits) whose guarded moves do. A role past the 64th counts as another value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ReadBy {
    unguarded: bool,
    roles: u64,
}

impl ReadBy {
    /// The readers with `reader` among them: a role's guarded moves (`Some`) or another value.
    fn add(&mut self, reader: Option<usize>) {
        match reader {
            Some(role) if role < 64 => self.roles |= 1 << role,
            _ => self.unguarded = true,
        }
    }

    /// The readers with the guarded moves of `roles` (as bits) among them.
    fn add_roles(&mut self, roles: u64) {
        self.roles |= roles;
    }
}

impl Split {
    /// Whether the guarded nodes are computed before `terminal` rather than in the choices.
    pub(super) fn hoisted(&self) -> bool {
        !self.late.is_empty()
    }

    /// The nodes of `needed` computed behind role `role`'s guard: its own and those it shares.
    pub(super) fn exclusive(&self, needed: &[u32], role: usize) -> Vec<u32> {
        needed.iter().copied().filter(|&n| self.in_block(n, role)).collect()
    }

    /// Whether node `n` is computed in role `role`'s block.
    fn in_block(&self, n: u32, role: usize) -> bool {
        let i = n as usize;
        self.guarded_only[i] == Some(role) || (role < 64 && self.several[i] & (1 << role) != 0)
    }

    /// Whether node `n` is computed only in blocks of roles other than `role`.
    fn in_block_of_another(&self, n: u32, role: usize) -> bool {
        let i = n as usize;
        !self.in_block(n, role) && (self.guarded_only[i].is_some() || self.several[i] != 0)
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
        let behind_guards = (plans.iter().enumerate())
            .map(|(role, plan)| self.behind_guard(plan, &split.exclusive(needed, role), &split.gates[role]));
        quote!(#early #(#behind_guards)* #late)
    }

    /// Statements computing `exclusive`, nodes that only a role's guarded moves and the
    /// terminal behind its guard read, when the guard of `plan` holds, those of `gates` when
    /// their gate does.
    fn behind_guard(&self, plan: &RoleLegal, exclusive: &[u32], gates: &BTreeMap<u32, u32>) -> TokenStream {
        match &plan.guard {
            Some((lit, _)) if !exclusive.is_empty() => {
                let nodes = self.where_holds(*lit).emit_gated_nodes(exclusive, gates);
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

impl Body<'_> {
    /// Statements computing `nodes`, those of `gates` inside a test of their gate, after it
    /// (see [`node_gates`]).
    pub(super) fn emit_gated_nodes(&self, nodes: &[u32], gates: &BTreeMap<u32, u32>) -> TokenStream {
        if gates.is_empty() {
            return self.emit_nodes(nodes);
        }
        let mut sorted = nodes.to_vec();
        sorted.sort_by_key(|&n| self.emitter.words.rank[n as usize]);
        let ordered = node_gates::order(&sorted, gates);
        let runs = ordered.chunk_by(|a, b| gates.get(a) == gates.get(b)).map(|run| {
            let nodes = self.emit_nodes(run);
            match gates.get(&run[0]) {
                Some(&gate) => {
                    let test = self.lit(Lit::pos(Prop::Node(gate)));
                    quote!(if #test { #nodes })
                }
                None => nodes,
            }
        });
        quote!(#(#runs)*)
    }
}
