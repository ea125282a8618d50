//! Estimated sizes of the relations once the static ones are computed, for ordering the rule
//! bodies of the per-state queries: the static relations' own, the initial state's, and, once
//! a plan has played the first states of a match, the sizes observed there ([`Observed`]).

use super::observe::Observed;
use crate::ast::Atom;
use crate::datalog::compile::{self, Relations};
use crate::datalog::eval::Table;
use crate::datalog::order;
use crate::ground::demand;
use std::collections::BTreeSet;

/// The size of a relation that depends on the state, when nothing better is known.
const DYNAMIC_SIZE: f64 = 1000.0;

/// The distinct terms at an argument of such a relation.
const DYNAMIC_DISTINCT: f64 = 30.0;

/// The cross-product penalty once they were observed: a join through two facts of a guess is
/// cheaper than a lookup among hundreds, connected or not; ties go to the connected literal.
const MEASURED_CROSS_PENALTY: f64 = 2.0;

/// Sizes of relations and counts of distinct terms per argument position.
pub(super) struct Stats {
    /// The relations numbered when the sizes were taken.
    relations: Relations,
    size: Vec<f64>,
    distinct: Vec<Vec<f64>>,
    cross_penalty: f64,
}

/// What is known of the relations: the static ones computed, and the inputs of the initial state.
pub(super) struct Known<'a> {
    pub fixed: &'a [Table],
    pub is_fixed: &'a [bool],
    /// The inputs of the initial state: `true` and its splits.
    pub initial: &'a [Table],
    pub roles: usize,
    /// The sizes observed in the first states of a match, when they were.
    pub observed: Option<&'a Observed>,
}

impl Stats {
    pub(super) fn new(relations: Relations, known: &Known<'_>) -> Stats {
        let mut size = Vec::with_capacity(relations.len());
        let mut distinct = Vec::with_capacity(relations.len());
        for (rel, (name, arity)) in relations.keys.iter().enumerate() {
            let is_fixed = known.is_fixed.get(rel).copied().unwrap_or(false);
            if let Some((n, d)) = known.observed.filter(|_| !is_fixed).and_then(|o| o.of(rel)) {
                // A relation observed empty may fill later: never estimate it at less than one.
                size.push(n.max(1.0));
                distinct.push((0..*arity).map(|i| d.get(i).copied().unwrap_or(1.0).max(1.0)).collect());
                continue;
            }
            let facts = if is_fixed { known.fixed.get(rel) } else { known.initial.get(rel).filter(|t| !t.is_empty()) };
            let (n, d) = match facts {
                Some(table) => {
                    let d = (0..*arity)
                        .map(|i| table.facts().map(|f| f[i]).collect::<BTreeSet<_>>().len() as f64)
                        .collect();
                    // A state's facts vary: never estimate an input at fewer than 8.
                    let floor = if is_fixed { 0.0 } else { 8.0 };
                    ((table.len() as f64).max(floor), d)
                }
                None if name == "does" || name.starts_with("(does ") => {
                    let roles = known.roles as f64;
                    (roles, (0..*arity).map(|i| if i == 0 { roles } else { 1.0 }).collect())
                }
                None => (DYNAMIC_SIZE, vec![DYNAMIC_DISTINCT; *arity]),
            };
            size.push(n);
            distinct.push(d);
        }
        let cross_penalty = if known.observed.is_some() { MEASURED_CROSS_PENALTY } else { order::CROSS_PENALTY };
        Stats { relations, size, distinct, cross_penalty }
    }

    /// How many times its size a literal unconnected to the variables bound before it is
    /// estimated to cost (see [`crate::datalog::order`]).
    pub(super) fn cross_penalty(&self) -> f64 {
        self.cross_penalty
    }

    /// The expected number of facts of `atom` that match once the variables `bound` are bound.
    pub(super) fn cost(&self, atom: &Atom, bound: &BTreeSet<&str>) -> f64 {
        if is_guard(&atom.name) {
            return 1.0;
        }
        let Some(rel) = self.relations.get(&atom.name, atom.args.len()) else { return 0.0 };
        let mut cost = self.size[rel];
        for (arg, d) in atom.args.iter().zip(&self.distinct[rel]) {
            cost /= compile::arg_selectivity(arg, bound, *d);
        }
        cost
    }
}

/// Whether relation `name` holds the demanded arguments of another (see
/// [`crate::ground::demand`]): it is small, and goes first.
pub(super) fn is_guard(name: &str) -> bool {
    demand::served(name).is_some() || demand::part_of(name).is_some()
}
