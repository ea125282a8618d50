//! What each rule of a component needs, for the runtime's pass that skips the components that
//! no rule able to fire reads (`gdl_runtime::lifted::Demand`): the tests of the state and the
//! moves that its body makes, and the relations of the evaluation that it reads.

use super::probes::Probes;
use crate::datalog::compile::{CLit, PTerm, Pattern};
use crate::datalog::eval::Component;
use crate::interp::Interpreter;
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::collections::BTreeSet;

/// The relations the state and the moves are loaded into, which a rule's tests read.
pub(super) struct Loaded {
    /// The relations of the state and of the moves.
    inputs: BTreeSet<usize>,
    /// Those of the moves.
    moves: BTreeSet<usize>,
}

impl Loaded {
    /// The relations of `interp`'s inputs.
    pub(super) fn of(interp: &Interpreter) -> Loaded {
        let moves: BTreeSet<usize> = interp.inputs.loaded_into(1).collect();
        let inputs = interp.inputs.loaded_into(0).chain(moves.iter().copied()).collect();
        Loaded { inputs, moves }
    }
}

/// The `demands` of `component` of `engine`: one for each rule that reads a relation computed
/// in the evaluation.
pub(super) fn demands(
    loaded: &Loaded,
    interp: &Interpreter,
    probes: &Probes,
    engine: usize,
    component: &Component,
) -> TokenStream {
    let is_fixed = &interp.engines[engine].is_fixed;
    let Loaded { inputs, moves } = loaded;
    let demands = component.rules.iter().filter_map(|planned| {
        let rule = &interp.engines[engine].rules[planned.rule];
        let mut guards = Vec::new();
        let mut reads = BTreeSet::new();
        for literal in &rule.body {
            let (pattern, positive) = match literal {
                CLit::Pos(p) => (p, true),
                CLit::Neg(p) => (p, false),
                CLit::Distinct(..) | CLit::Equal(..) => continue,
            };
            let computed = |rel: usize| !inputs.contains(&rel) && !is_fixed.get(rel).copied().unwrap_or(false);
            let searched = probes.called_through(interp, engine, pattern.rel);
            if inputs.contains(&pattern.rel) {
                guards.extend(guard(pattern, positive, moves.contains(&pattern.rel)));
            } else if searched.is_empty() && computed(pattern.rel) {
                reads.insert(pattern.rel);
            }
            // A relation answered by a search needs what its rules read computed.
            for lit in searched.iter().flat_map(|rule| &rule.body) {
                let (CLit::Pos(p) | CLit::Neg(p)) = lit else { continue };
                if computed(p.rel) && !probes.asked(engine).searches(p.rel) {
                    reads.insert(p.rel);
                }
            }
        }
        let reads = reads.into_iter().map(Literal::usize_unsuffixed).collect::<Vec<_>>();
        (!reads.is_empty())
            .then(|| quote!(::gdl_runtime::lifted::Demand { guards: &[#(#guards),*], reads: &[#(#reads),*] }))
    });
    quote!(&[#(#demands),*])
}

/// The test of the inputs that a literal of an input relation makes, when it is one that
/// holds or fails for the whole evaluation and is worth making: a positive literal needs its
/// fact when that is ground, or else a fact of its relation when that is a relation of the
/// moves (`(does ?p (shoot ?x ?y))`: which kinds of move were played); a state rarely lacks a
/// fact of a function that its rules read by pattern. A negative literal needs the absence of
/// its fact when that is ground.
fn guard(pattern: &Pattern, positive: bool, of_moves: bool) -> Option<TokenStream> {
    let rel = Literal::usize_unsuffixed(pattern.rel);
    let ground: Option<Vec<u32>> = pattern
        .args
        .iter()
        .map(|arg| match arg {
            PTerm::Ground(term) => Some(*term),
            PTerm::Var(_) | PTerm::Func(..) => None,
        })
        .collect();
    match (positive, ground) {
        (true, Some(fact)) => Some(quote!(::gdl_runtime::lifted::Guard::Has(#rel, &[#(#fact),*]))),
        (true, None) if of_moves => Some(quote!(::gdl_runtime::lifted::Guard::Any(#rel))),
        (true, None) => None,
        (false, Some(fact)) => Some(quote!(::gdl_runtime::lifted::Guard::Lacks(#rel, &[#(#fact),*]))),
        (false, None) => None,
    }
}
