//! Simplification of a ground program, to a fixpoint: constants folded, propositions that are
//! another literal under a new name forwarded, propositions with equal rules merged, redundant
//! literals and rules removed; then every proposition no output needs is dropped and the rest
//! are numbered in evaluation order.

use super::order::components;
use super::readers::Readers;
use super::{Ground, Lit, Node, Prop, Value};
use rustc_hash::FxHashMap;

/// The most rounds of rewriting; each round only shrinks the program, and real games settle
/// in a few.
const MAX_ROUNDS: usize = 32;

pub fn simplify(ground: &mut Ground) {
    for r in 0..MAX_ROUNDS {
        if !round(ground, r == 0) {
            break;
        }
    }
    keep_needed_in_order(ground);
}

/// One round of rewriting; returns whether anything changed. Rules are sorted in the first.
fn round(ground: &mut Ground, first: bool) -> bool {
    let n = ground.nodes.len();
    let known = constants(&ground.nodes);
    // What every node is replaced by, if anything: a constant, or another literal.
    let mut replace: Vec<Option<Value>> = known.iter().map(|k| k.map(Value::Const)).collect();
    for (v, node) in ground.nodes.iter().enumerate() {
        if replace[v].is_none() {
            if let [rule] = node.rules.as_slice() {
                if let [lit] = rule.as_slice() {
                    if lit.prop != Prop::Node(v as u32) {
                        replace[v] = Some(Value::Lit(*lit));
                    }
                }
            }
        }
    }
    // Equal rules, equal values: every node is replaced by the first node with its rules.
    let mut by_rules: FxHashMap<&[Vec<Lit>], u32> = FxHashMap::with_capacity_and_hasher(n, Default::default());
    for (v, node) in ground.nodes.iter().enumerate() {
        if replace[v].is_none() && !node.rules.is_empty() {
            let first = *by_rules.entry(node.rules.as_slice()).or_insert(v as u32);
            if first != v as u32 {
                replace[v] = Some(Value::Lit(Lit::pos(Prop::Node(first))));
            }
        }
    }
    let resolved = resolve(&replace);
    // A round changes the program when it rewrites a rule or an output; a node replaced in an
    // earlier round has no rules and no users left, and replacing it again changes nothing.
    let mut changed = false;
    let map = |lit: Lit| -> Value {
        match lit.prop {
            Prop::Node(m) => match resolved[m as usize] {
                Value::Const(c) => Value::Const(c == lit.positive),
                Value::Lit(l) => Value::Lit(if lit.positive { l } else { l.negated() }),
            },
            _ => Value::Lit(lit),
        }
    };
    for (v, &value) in resolved.iter().enumerate().take(n) {
        if value != Value::Lit(Lit::pos(Prop::Node(v as u32))) {
            // Replaced: nothing refers to it any more.
            changed |= !ground.nodes[v].rules.is_empty();
            ground.nodes[v].rules.clear();
            continue;
        }
        // Rules that a round left as they are and whose literals all stay need no rewriting:
        // most of a large program, in the rounds after the first.
        let same = |rule: &Vec<Lit>| rule.iter().all(|&lit| map(lit) == Value::Lit(lit));
        if !first && ground.nodes[v].rules.iter().all(same) {
            continue;
        }
        let head = Lit::pos(Prop::Node(v as u32));
        let old = std::mem::take(&mut ground.nodes[v].rules);
        let mut rules: Vec<Vec<Lit>> = Vec::with_capacity(old.len());
        'rules: for rule in &old {
            let mut lits = Vec::with_capacity(rule.len());
            for &lit in rule {
                match map(lit) {
                    Value::Const(true) => {}
                    Value::Const(false) => continue 'rules,
                    Value::Lit(l) => lits.push(l),
                }
            }
            lits.sort_unstable();
            lits.dedup();
            // A rule needing its own head never fires first (least fixpoint); one needing a
            // literal and its negation never fires.
            if lits.contains(&head) || lits.windows(2).any(|w| w[0].prop == w[1].prop) {
                continue;
            }
            rules.push(lits);
        }
        rules.sort_unstable();
        rules.dedup();
        if rules.iter().any(Vec::is_empty) {
            rules = vec![Vec::new()];
        }
        changed |= rules != old;
        ground.nodes[v].rules = rules;
    }
    for output in ground.outputs_mut() {
        if let Value::Lit(lit) = *output {
            let new = map(lit);
            changed |= new != *output;
            *output = new;
        }
    }
    changed
}

/// The nodes whose value is the same in every state: `Some(true)` when one rule's literals are
/// all known to hold, `Some(false)` when every rule has a literal known to fail. Every node is
/// looked at once, then, in waves, the readers of the nodes that became known in the last one:
/// the least fixpoint, as the components of the program in order would find it, without
/// building them in every round.
fn constants(nodes: &[Node]) -> Vec<Option<bool>> {
    let readers = Readers::of_nodes(nodes);
    let mut known: Vec<Option<bool>> = vec![None; nodes.len()];
    let mut queued = vec![false; nodes.len()];
    let mut wave: Vec<u32> = (0..nodes.len() as u32).collect();
    let mut next = Vec::new();
    while !wave.is_empty() {
        for &v in &wave {
            queued[v as usize] = false;
            if known[v as usize].is_some() {
                continue;
            }
            let Some(value) = node_value(&nodes[v as usize], &known) else { continue };
            known[v as usize] = Some(value);
            for reader in readers.reading(v) {
                if known[reader as usize].is_none() && !std::mem::replace(&mut queued[reader as usize], true) {
                    next.push(reader);
                }
            }
        }
        std::mem::swap(&mut wave, &mut next);
        next.clear();
    }
    known
}

fn node_value(node: &Node, known: &[Option<bool>]) -> Option<bool> {
    let mut all_fail = true;
    for rule in &node.rules {
        let mut value = Some(true);
        for lit in rule {
            let v = match lit.prop {
                Prop::Node(m) => known[m as usize].map(|k| k == lit.positive),
                _ => None,
            };
            match v {
                Some(false) => {
                    value = Some(false);
                    break;
                }
                None => value = None,
                Some(true) => {}
            }
        }
        match value {
            Some(true) => return Some(true),
            Some(false) => {}
            None => all_fail = false,
        }
    }
    if all_fail {
        Some(false)
    } else {
        None
    }
}

/// Follows replacements to their end. A cycle of replacements is a cycle of propositions each
/// defined only by the next one: nothing supports them, so they are false.
fn resolve(replace: &[Option<Value>]) -> Vec<Value> {
    let n = replace.len();
    let mut resolved: Vec<Option<Value>> = vec![None; n];
    for start in 0..n {
        if resolved[start].is_some() {
            continue;
        }
        // Walk the chain, then fill it in backwards.
        let mut chain = vec![start];
        let mut on_chain = FxHashMap::default();
        on_chain.insert(start, ());
        let end = loop {
            let v = *chain.last().expect("never empty");
            match replace[v] {
                None => break Value::Lit(Lit::pos(Prop::Node(v as u32))),
                Some(Value::Const(c)) => break Value::Const(c),
                Some(Value::Lit(lit)) => match lit.prop {
                    Prop::Node(m) => {
                        let m = m as usize;
                        if let Some(r) = resolved[m] {
                            break compose(lit.positive, r);
                        }
                        if on_chain.insert(m, ()).is_some() {
                            break Value::Const(false);
                        }
                        chain.push(m);
                    }
                    _ => break Value::Lit(lit),
                },
            }
        };
        // `end` is the value of the last node of the chain; each earlier node is the literal of
        // its replacement over the next node.
        let mut value = end;
        let last = chain.len() - 1;
        resolved[chain[last]] = Some(value);
        for &v in chain[..last].iter().rev() {
            let Some(Value::Lit(lit)) = replace[v] else { unreachable!("a chain continues through node literals") };
            value = compose(lit.positive, value);
            resolved[v] = Some(value);
        }
    }
    resolved.into_iter().map(|r| r.expect("every node resolved")).collect()
}

/// The value of a literal of the given polarity over a node whose value is `value`.
fn compose(positive: bool, value: Value) -> Value {
    match value {
        Value::Const(c) => Value::Const(c == positive),
        Value::Lit(l) => Value::Lit(if positive { l } else { l.negated() }),
    }
}

/// Drops the nodes no output needs and numbers the rest in evaluation order, recording the
/// recursive groups.
pub(super) fn keep_needed_in_order(ground: &mut Ground) {
    let n = ground.nodes.len();
    let mut needed = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    for output in ground.outputs_mut() {
        if let Value::Lit(Lit { prop: Prop::Node(v), .. }) = *output {
            stack.push(v);
        }
    }
    while let Some(v) = stack.pop() {
        if std::mem::replace(&mut needed[v as usize], true) {
            continue;
        }
        for lit in ground.nodes[v as usize].rules.iter().flatten() {
            if let Prop::Node(m) = lit.prop {
                if !needed[m as usize] {
                    stack.push(m);
                }
            }
        }
    }
    for (v, node) in ground.nodes.iter_mut().enumerate() {
        if !needed[v] {
            node.rules.clear();
        }
    }
    let order = components(&ground.nodes);
    let mut new_index = vec![u32::MAX; n];
    let mut nodes = Vec::new();
    let mut cycles = Vec::new();
    for component in order.iter() {
        let start = nodes.len() as u32;
        for &v in &component.nodes {
            if needed[v as usize] {
                new_index[v as usize] = nodes.len() as u32;
                nodes.push(std::mem::replace(
                    &mut ground.nodes[v as usize],
                    Node { name: String::new(), rules: vec![] },
                ));
            }
        }
        if component.cyclic && needed[component.nodes[0] as usize] {
            cycles.push((start, nodes.len() as u32));
        }
    }
    let renumber = |lit: &mut Lit| {
        if let Prop::Node(v) = lit.prop {
            lit.prop = Prop::Node(new_index[v as usize]);
        }
    };
    for node in &mut nodes {
        node.rules.iter_mut().flatten().for_each(renumber);
    }
    for output in ground.outputs_mut() {
        if let Value::Lit(lit) = output {
            renumber(lit);
        }
    }
    ground.nodes = nodes;
    ground.cycles = cycles;
}

#[cfg(test)]
mod tests {
    use super::{constants, node_value};
    use crate::ground::{Lit, Node, Prop};
    use gdl_runtime::rng::Rng;

    /// The constants found in waves through the readers are those of the plain fixpoint (every
    /// node looked at again until none changes), on random programs with cycles, chains read
    /// against their numbering, rules that need nothing and nodes without rules.
    #[test]
    fn constants_are_the_least_fixpoint() {
        let mut rng = Rng::seeded(5);
        for round in 0..300 {
            let n = 1 + rng.below(24);
            let nodes: Vec<Node> = (0..n)
                .map(|_| Node {
                    name: String::new(),
                    rules: (0..rng.below(4))
                        .map(|_| {
                            (0..rng.below(4))
                                .map(|_| {
                                    let prop =
                                        if rng.below(6) == 0 { Prop::Base(0) } else { Prop::Node(rng.below(n) as u32) };
                                    Lit { prop, positive: rng.below(3) != 0 }
                                })
                                .collect()
                        })
                        .collect(),
                })
                .collect();
            let mut expected = vec![None; nodes.len()];
            loop {
                let mut changed = false;
                for v in 0..nodes.len() {
                    if expected[v].is_none() {
                        expected[v] = node_value(&nodes[v], &expected);
                        changed |= expected[v].is_some();
                    }
                }
                if !changed {
                    break;
                }
            }
            assert_eq!(constants(&nodes), expected, "round {round}");
        }
    }
}
