//! The evaluation of a function's nodes: which nodes it needs, the slots of its node array
//! `n`, and the statements that compute the nodes into their slots in evaluation order, each
//! recursive group looping to its fixpoint.

use super::{guards, Body, Emitter, Phase};
use crate::codegen::cones::Cones;
use crate::ground::Value;
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};

/// The most atoms a comment on a word of node words names.
const MAX_NAMED: usize = 4;

/// The slot of every node that a function computes in its local array `n` (`u32::MAX` for the
/// others). One array rather than a `let` per node keeps functions of thousands of nodes within
/// what rustc and LLVM handle well.
pub(crate) struct Slots {
    slot: Vec<u32>,
}

impl Slots {
    /// The index of `node` in `n`, as a literal.
    pub(crate) fn of(&self, node: u32) -> Literal {
        Literal::u32_unsuffixed(self.slot[node as usize])
    }
}

impl Emitter<'_> {
    /// Statements computing, in evaluation order, every node that `values` need, into the
    /// local array `n`, and the slots they have there.
    pub(crate) fn evaluate(&self, values: &[Value]) -> (TokenStream, Slots) {
        let needed = self.whole_groups(Cones::new(self.ground).cone(values));
        let (declare, slots) = self.assign_slots(&needed);
        let compute = Body::new(self, &slots, Phase::State).emit_nodes(&needed);
        (quote!(#declare #compute), slots)
    }

    /// Gives every node of `needed` (sorted) a slot of the local array `n`: the array's
    /// declaration (nothing when no node is needed), and the slots.
    pub(crate) fn assign_slots(&self, needed: &[u32]) -> (TokenStream, Slots) {
        let mut slot = vec![u32::MAX; self.ground.nodes.len()];
        let (in_words, alone): (Vec<u32>, Vec<u32>) =
            needed.iter().partition(|&&n| self.words.member[n as usize].is_some());
        for (i, &n) in alone.iter().enumerate() {
            slot[n as usize] = i as u32;
        }
        let words = (!in_words.is_empty()).then(|| {
            let len = Literal::usize_unsuffixed(self.words.groups.len());
            quote!(let mut g = [0u64; #len];)
        });
        let nodes = (!alone.is_empty()).then(|| {
            let len = Literal::usize_unsuffixed(alone.len());
            quote!(let mut n = [false; #len];)
        });
        (quote!(#nodes #words), Slots { slot })
    }

    /// The nodes that `values` need evaluated at run time, sorted: their cone, less the nodes
    /// the move table gives.
    pub(crate) fn runtime_cone(&self, values: &[Value]) -> Vec<u32> {
        self.whole_groups(self.cone_less_table(values))
    }

    /// The cone of `values`, sorted, less the nodes the move table gives, not yet widened to
    /// whole groups.
    pub(crate) fn cone_less_table(&self, values: &[Value]) -> Vec<u32> {
        match &self.tables {
            Some(tables) => tables.runtime_cone(self.ground, values),
            None => Cones::new(self.ground).cone(values),
        }
    }
}

impl Body<'_> {
    /// Statements computing the nodes of `nodes` (sorted, each recursive group whole) into
    /// their slots, in the order of [`NodeWords::rank`](crate::codegen::node_words::NodeWords):
    /// each recursive group as a loop, each group of node words as its word.
    pub(crate) fn emit_nodes(&self, nodes: &[u32]) -> TokenStream {
        let emitter = self.emitter;
        let mut nodes = nodes.to_vec();
        nodes.sort_by_key(|&n| emitter.words.rank[n as usize]);
        let twins = emitter.twins(&nodes);
        let mut out = Vec::new();
        // The groups of node words whose word is computed.
        let mut words = BTreeSet::new();
        let by_itself = |n: u32| twins.contains_key(&n) || emitter.words.member[n as usize].is_some();
        let alone = |n: u32| !by_itself(n) && emitter.cycle_of[n as usize].is_none();
        let mut i = 0;
        while i < nodes.len() {
            let n = nodes[i];
            if alone(n) {
                let stretch: Vec<u32> = nodes[i..].iter().copied().take_while(|&m| alone(m)).collect();
                i += stretch.len();
                out.push(self.guarded_stretch(&stretch));
                continue;
            }
            match emitter.cycle_of[n as usize] {
                Some(c) if !by_itself(n) => {
                    let group: Vec<u32> =
                        nodes[i..].iter().copied().take_while(|&m| emitter.cycle_of[m as usize] == Some(c)).collect();
                    i += group.len();
                    out.push(self.cycle(&group));
                }
                _ => {
                    out.extend(self.emit_node(n, &twins, &mut words));
                    i += 1;
                }
            }
        }
        quote!(#(#out)*)
    }

    /// Statements computing node `n`, which is in no recursive group, given the `twins` among
    /// the nodes computed and the groups of node words whose word is already computed (`None`
    /// when another statement computes it).
    fn emit_node(&self, n: u32, twins: &BTreeMap<u32, Option<u32>>, words: &mut BTreeSet<u32>) -> Option<TokenStream> {
        let emitter = self.emitter;
        match twins.get(&n) {
            Some(&Some(m)) => {
                let notes = [n, m].map(|k| emitter.note_node(|| format!("n[{}] (twin runs)", self.slots.of(k)), k));
                let runs = self.twin_runs(n, m);
                return Some(quote!(#(#notes)* #runs));
            }
            // Computed with its twin.
            Some(None) => return None,
            None => {}
        }
        match emitter.words.member[n as usize] {
            Some((g, place)) if emitter.words.groups[g as usize].gathered => {
                let note = emitter.note_node(|| format!("g[{g}] bit {place}"), n);
                let store = self.store_node(n, self.node_expr(n));
                Some(quote!(#note #store))
            }
            Some((g, _)) => match emitter.words.loop_of[g as usize] {
                Some(l) => {
                    let groups = &emitter.words.loops[l as usize];
                    let first = groups.iter().fold(false, |first, &h| words.insert(h) | first);
                    first.then(|| {
                        let notes = groups.iter().map(|&h| self.group_note(h));
                        let words = self.loop_words(l);
                        quote!(#(#notes)* #words)
                    })
                }
                None => words.insert(g).then(|| {
                    let note = self.group_note(g);
                    let word = self.group_word(g);
                    quote!(#note #word)
                }),
            },
            None => Some(self.node_alone(n)),
        }
    }

    /// The statements computing node `n`, evaluated by itself, into its slot.
    fn node_alone(&self, n: u32) -> TokenStream {
        let note = self.emitter.note_node(|| format!("n[{}]", self.slots.of(n)), n);
        let store = self.node_expr(n).store(&self.slots.of(n));
        quote!(#note #store)
    }

    /// Statements computing `stretch`, nodes each evaluated by itself (in order, none in a
    /// recursive group), reordered so that nodes that hold only when one fact does come
    /// together, and each run of them inside a test of that fact (`guards.rs`).
    fn guarded_stretch(&self, stretch: &[u32]) -> TokenStream {
        let runs = guards::runs(self.emitter.ground, &self.emitter.guard_facts, stretch);
        let out = runs.into_iter().map(|(guard, run)| {
            let statements = run.iter().map(|&m| self.node_alone(m));
            match guard {
                Some(fact) => {
                    let test = self.lit(fact);
                    quote!(if #test { #(#statements)* })
                }
                None => quote!(#(#statements)*),
            }
        });
        quote!(#(#out)*)
    }

    /// A comment naming the atoms of the group of node words `g`, by bit.
    fn group_note(&self, g: u32) -> TokenStream {
        let emitter = self.emitter;
        emitter.note(|notes| {
            let members = &emitter.words.groups[g as usize].members;
            let mut names: Vec<String> = members
                .iter()
                .take(MAX_NAMED)
                .map(|&m| {
                    let bit = emitter.words.member[m as usize].map_or(0, |(_, place)| place);
                    format!("bit {bit} {}", emitter.ground.nodes[m as usize].name)
                })
                .collect();
            if members.len() > MAX_NAMED {
                names.push(format!("and {} more", members.len() - MAX_NAMED));
            }
            let first = members.first().map(|&m| notes.atom(&emitter.ground.nodes[m as usize].name));
            let rules =
                first.as_deref().and_then(|a| a.split_once(", rules at ")).map(|(_, at)| format!("; rules at {at}"));
            format!("g[{g}]: {} node words, {}{}", members.len(), names.join(", "), rules.unwrap_or_default())
        })
    }

    /// A recursive group: every node starts false and the rules are applied until nothing changes.
    fn cycle(&self, group: &[u32]) -> TokenStream {
        let updates = group.iter().map(|&n| {
            let slot = self.slots.of(n);
            let disjuncts = self.node_expr(n).disjuncts();
            let note = self.emitter.note_node(|| format!("n[{slot}] (recursive)"), n);
            quote! {
                #note
                if !n[#slot] && (#(#disjuncts)||*) {
                    n[#slot] = true;
                    changed = true;
                }
            }
        });
        quote! {
            loop {
                let mut changed = false;
                #(#updates)*
                if !changed {
                    break;
                }
            }
        }
    }
}
