//! The components a query needs: those whose relations the query's answer reads, through the
//! rules of the components after them and the searches those rules ask. A component that no
//! rule reads any more (the demand relation of a relation now answered by a search, whose
//! guard the search does without) is left out of the module.

use super::probes::{relations_read, Probes};
use crate::datalog::compile::CRule;
use crate::datalog::eval::Component;
use crate::interp::Interpreter;
use std::collections::BTreeSet;

/// The components of `components` (a query's plan of `engine`, in the order of evaluation) that
/// its answer, relation `output`, reads.
pub(super) fn needed<'a>(
    interp: &Interpreter,
    probes: &Probes,
    engine: usize,
    components: &[&'a Component],
    output: usize,
) -> Vec<&'a Component> {
    let rules = &interp.engines[engine].rules;
    let mut read = BTreeSet::from([output]);
    let mut kept = Vec::new();
    for &component in components.iter().rev() {
        if !component.relations.iter().any(|rel| read.contains(rel)) {
            continue;
        }
        kept.push(component);
        for planned in &component.rules {
            let rule = &rules[planned.rule];
            for rule in std::iter::once(rule).chain(&rule.delta_variants) {
                note_reads(interp, probes, engine, rule, &mut read);
            }
        }
    }
    kept.reverse();
    kept
}

/// Adds to `read` the relations `rule` reads, and those the searches it asks read.
fn note_reads(interp: &Interpreter, probes: &Probes, engine: usize, rule: &CRule, read: &mut BTreeSet<usize>) {
    for rel in relations_read(rule) {
        read.insert(rel);
        for searched in probes.called_through(interp, engine, rel) {
            read.extend(relations_read(&searched));
        }
    }
}
