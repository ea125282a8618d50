//! Recursive relations that a search may answer. A search for a fact of such a relation tries
//! its rules, and a recursive rule asks the relation again about another fact: chess's
//! `(clear_diagonal_ne_ig ?u ?v ?x ?y ?ignorex ?ignorey)` asks about the next square of the
//! line, until it reaches the target or a square that is not empty. Such a search ends, after
//! few questions, when
//! - every rule asks the relation at most once, and fixes every variable of its body from the
//!   head's through static relations of two arguments that give one value for each value of
//!   the other (`next_file` gives one next file), so that a question asks at most one
//!   question a recursive rule;
//! - every recursive rule moves the same argument one step along the same static relation
//!   (the head's file to the next file), whose facts form chains without cycles, so that no
//!   question is asked again below itself and the questions stop at the chain's end;
//! - and the questions so bounded are few: one a step of the longest chain for one recursive
//!   rule, at most [`MOST_QUESTIONS`] for several (a rule that can ask twice a step asks
//!   2^7 questions along chess's eight files at most).
//!
//! Answered by computing it whole instead, with the magic-sets rewrite's demands, chess walks
//! each line step by step as facts of a demand relation, which costs a table insert a square.

use super::joins::head_variables;
use super::probes::relations_read;
use crate::datalog::compile::{CLit, CRule, PTerm, Pattern, VarId};
use crate::datalog::eval::bound_by;
use crate::interp::Interpreter;
use std::collections::{BTreeMap, BTreeSet};

/// The most questions that one search of a recursive relation with several recursive rules may
/// ask, bounded from its rules' shape and its static relations' chains.
const MOST_QUESTIONS: u64 = 4096;

/// One step along a static relation of two arguments, at one argument of a recursive rule's
/// head: the recursive literal's argument follows the head's (`forward`) or precedes it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Step {
    relation: usize,
    position: usize,
    forward: bool,
}

/// Whether a search of `rel`, whose rules (without the magic-sets rewrite's guards, ordered for
/// the search) are `rules`, ends after few questions (see the module's doc).
pub(super) fn ends_soon(interp: &Interpreter, engine: usize, rel: usize, rules: &[CRule]) -> bool {
    let is_fixed = |r: usize| interp.engines[engine].is_fixed.get(r).copied().unwrap_or(false);
    let functional = Functional::of(interp, &is_fixed, rules);
    let mut common: Option<BTreeSet<Step>> = None;
    let mut recursive_rules = 0u32;
    for rule in rules {
        if !determined(rule, &functional) {
            return false;
        }
        let reads_rel = |lit: &&CLit| matches!(lit, CLit::Pos(p) | CLit::Neg(p) if p.rel == rel);
        let recursive: Vec<(usize, &CLit)> = rule.body.iter().enumerate().filter(|(_, lit)| reads_rel(lit)).collect();
        let (before, asked) = match recursive[..] {
            [] => continue,
            [(at, CLit::Pos(p))] => (at, p),
            _ => return false,
        };
        recursive_rules += 1;
        // A step counts only when checked before the question it leads to.
        let steps = steps(rule, &rule.body[..before], asked, &is_fixed);
        common = Some(match common {
            None => steps,
            Some(common) => common.intersection(&steps).copied().collect(),
        });
    }
    let Some(common) = common else { return true };
    common.iter().any(|step| {
        let Some(longest) = interp.fixed.get(step.relation).and_then(|table| longest_chain(table.facts())) else {
            return false;
        };
        recursive_rules == 1 || u64::from(recursive_rules).checked_pow(longest).is_some_and(|n| n <= MOST_QUESTIONS)
    })
}

/// The steps along which `asked`, the recursive literal of `rule`, moves an argument of the
/// head: the same argument of both a variable, and a static literal of two arguments among
/// `checked` (the literals before it) that links the two variables.
fn steps(rule: &CRule, checked: &[CLit], asked: &Pattern, is_fixed: &impl Fn(usize) -> bool) -> BTreeSet<Step> {
    let mut found = BTreeSet::new();
    for (position, (head, next)) in rule.head.args.iter().zip(asked.args.iter()).enumerate() {
        let (PTerm::Var(head), PTerm::Var(next)) = (head, next) else { continue };
        if head == next {
            continue;
        }
        for lit in checked {
            let CLit::Pos(p) = lit else { continue };
            if !is_fixed(p.rel) {
                continue;
            }
            match &p.args[..] {
                [PTerm::Var(a), PTerm::Var(b)] if a == head && b == next => {
                    found.insert(Step { relation: p.rel, position, forward: true });
                }
                [PTerm::Var(a), PTerm::Var(b)] if a == next && b == head => {
                    found.insert(Step { relation: p.rel, position, forward: false });
                }
                _ => {}
            }
        }
    }
    found
}

/// For every static relation of two arguments that `rules` read, whether each value of its
/// first argument has at most one value of its second (`forward`), and the other way round.
struct Functional {
    directions: BTreeMap<usize, (bool, bool)>,
}

impl Functional {
    fn of(interp: &Interpreter, is_fixed: &impl Fn(usize) -> bool, rules: &[CRule]) -> Functional {
        let mut directions = BTreeMap::new();
        let read: BTreeSet<usize> = rules.iter().flat_map(relations_read).collect();
        for rel in read {
            let Some(table) = interp.fixed.get(rel) else { continue };
            if !is_fixed(rel) || table.is_empty() || table.fact(0).len() != 2 {
                continue;
            }
            let unique = |from: usize| {
                let mut seen = BTreeSet::new();
                table.facts().all(|fact| seen.insert(fact[from]))
            };
            directions.insert(rel, (unique(0), unique(1)));
        }
        Functional { directions }
    }

    /// Whether literal `p` fixes variable `var` from the variables marked in `known`.
    fn fixes(&self, p: &Pattern, var: VarId, known: &[bool]) -> bool {
        let Some(&(forward, backward)) = self.directions.get(&p.rel) else { return false };
        match &p.args[..] {
            [PTerm::Var(a), PTerm::Var(b)] if *b == var => forward && known[*a as usize],
            [PTerm::Var(a), PTerm::Var(b)] if *a == var => backward && known[*b as usize],
            _ => false,
        }
    }
}

/// Whether every variable of `rule`'s body is the head's, or fixed from the head's by a static
/// literal of two arguments with one value for each value of the other.
fn determined(rule: &CRule, functional: &Functional) -> bool {
    let head_vars = head_variables(rule);
    // A safe rule's variables all stand in its head or in a positive literal.
    let used = bound_by(&rule.body, rule.num_vars);
    (0..rule.num_vars).filter(|&v| used[v] && !head_vars[v]).all(|var| {
        let Ok(var) = VarId::try_from(var) else { return false };
        rule.body.iter().any(|lit| matches!(lit, CLit::Pos(p) if functional.fixes(p, var, &head_vars)))
    })
}

/// The number of steps of the longest chain of the facts of a relation of two arguments read
/// as edges from the first to the second, or `None` when they have a cycle.
fn longest_chain<'a>(facts: impl Iterator<Item = &'a [u32]>) -> Option<u32> {
    let mut edges: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut into: BTreeMap<u32, u32> = BTreeMap::new();
    for fact in facts {
        let [from, to] = fact[..] else { return None };
        edges.entry(from).or_default().push(to);
        into.entry(from).or_insert(0);
        *into.entry(to).or_insert(0) += 1;
    }
    // Kahn's order: the values no edge reaches first, each one's longest chain carried on.
    let mut ready: Vec<u32> = into.iter().filter(|(_, &n)| n == 0).map(|(&v, _)| v).collect();
    let mut depth: BTreeMap<u32, u32> = BTreeMap::new();
    let mut done = 0;
    let mut longest = 0;
    while let Some(v) = ready.pop() {
        done += 1;
        let d = depth.get(&v).copied().unwrap_or(0);
        longest = longest.max(d);
        for &to in edges.get(&v).into_iter().flatten() {
            let slot = depth.entry(to).or_insert(0);
            *slot = (*slot).max(d + 1);
            let left = into.get_mut(&to)?;
            *left -= 1;
            if *left == 0 {
                ready.push(to);
            }
        }
    }
    (done == into.len()).then_some(longest)
}

#[cfg(test)]
mod tests {
    use super::longest_chain;

    /// A chain a-b-c-d has three steps; a branching graph counts its longest path; a cycle has
    /// no bound.
    #[test]
    fn chains_are_measured_and_cycles_refused() {
        let facts = |edges: &[[u32; 2]]| edges.iter().map(|e| e.to_vec()).collect::<Vec<_>>();
        let chain = facts(&[[1, 2], [2, 3], [3, 4]]);
        assert_eq!(longest_chain(chain.iter().map(Vec::as_slice)), Some(3));
        let branching = facts(&[[1, 2], [1, 3], [3, 4], [4, 5], [2, 5]]);
        assert_eq!(longest_chain(branching.iter().map(Vec::as_slice)), Some(3));
        let cycle = facts(&[[1, 2], [2, 3], [3, 1]]);
        assert_eq!(longest_chain(cycle.iter().map(Vec::as_slice)), None);
    }
}
