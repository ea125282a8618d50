//! What is known of the relations' sizes before any is computed, for ordering rule bodies.

use super::compile::arg_selectivity;
use crate::ast::{Atom, Description, Term};
use std::collections::{BTreeMap, BTreeSet};

/// Sizes of the relations given by facts alone, and a guess for the others: what is known of
/// the relations before any is computed.
pub(crate) struct FactStats {
    known: BTreeMap<(String, usize), (f64, Vec<f64>)>,
}

impl FactStats {
    pub(crate) fn new(description: &Description) -> FactStats {
        let mut facts: BTreeMap<(String, usize), Vec<&[Term]>> = BTreeMap::new();
        let mut derived: BTreeSet<(String, usize)> = BTreeSet::new();
        for rule in &description.rules {
            let key = (rule.head.name.clone(), rule.head.args.len());
            if rule.is_fact() && rule.head.args.iter().all(Term::is_ground) {
                facts.entry(key).or_default().push(&rule.head.args);
            } else {
                derived.insert(key);
            }
        }
        let known = facts
            .into_iter()
            .filter(|(key, _)| !derived.contains(key))
            .map(|((name, arity), rows)| {
                let distinct = (0..arity)
                    .map(|i| rows.iter().map(|r| r[i].to_string()).collect::<BTreeSet<_>>().len() as f64)
                    .collect();
                ((name, arity), (rows.len() as f64, distinct))
            })
            .collect();
        FactStats { known }
    }

    pub(crate) fn cost(&self, atom: &Atom, bound: &BTreeSet<&str>) -> f64 {
        let (size, distinct) = match self.known.get(&(atom.name.clone(), atom.args.len())) {
            Some((n, d)) => (*n, d.clone()),
            None => (1000.0, vec![30.0; atom.args.len()]),
        };
        let mut cost = size;
        for (arg, d) in atom.args.iter().zip(&distinct) {
            cost /= arg_selectivity(arg, bound, *d);
        }
        cost
    }
}
