//! Relations that rules only ask about one fact at a time, answered by a search rather than
//! computed whole. When every literal that reads a relation has all its arguments bound where
//! it is tested (`(not (lowerzombieincell ?x ?y ?z))`), no rule lists its facts, and computing
//! them all each state makes facts that no test asks for. Such a relation, not recursive and
//! not a query's answer, gets a function instead of a component: given the terms of a fact, it
//! tries each rule of the relation with its head matched to them and answers whether one
//! derives it. The relations its rules read are computed before any rule that asks it runs, as
//! they were before the relation itself.

use super::joins::head_variables;
use super::recursion;
use crate::datalog::compile::{CLit, CRule, PTerm};
use crate::datalog::eval::{access_paths, access_paths_from, binds_nothing, is_bound, mark_vars, Access, Component};
use crate::ground::demand;
use crate::interp::{Interpreter, Query};
use proc_macro2::Ident;
use quote::format_ident;
use std::collections::{BTreeMap, BTreeSet};

/// The relations answered by a search, for each engine, with the rules that define them.
pub(super) struct Probes {
    by_engine: Vec<BTreeMap<usize, Vec<usize>>>,
}

/// The relations of one engine answered by a search: how its joins name the functions they
/// call.
#[derive(Clone, Copy)]
pub(super) struct Asked<'a> {
    engine: usize,
    relations: &'a BTreeMap<usize, Vec<usize>>,
}

impl Asked<'_> {
    /// Whether `rel` is answered by a search.
    pub(super) fn searches(&self, rel: usize) -> bool {
        self.relations.contains_key(&rel)
    }

    /// The function that answers whether `rel` has a fact, when `rel` is answered by a search.
    pub(super) fn function(&self, rel: usize) -> Option<Ident> {
        self.searches(rel).then(|| probe_name(self.engine, rel))
    }

    /// No relation: joins that call no search.
    pub(super) fn none() -> Asked<'static> {
        static NONE: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        Asked { engine: 0, relations: &NONE }
    }
}

/// The name of the function that answers whether `rel` of `engine` has a fact.
pub(super) fn probe_name(engine: usize, rel: usize) -> Ident {
    format_ident!("engine_{}_ask_{}", engine, rel)
}

impl Probes {
    /// The relations of the engines `interp` chose that qualify (see the module's doc).
    pub(super) fn of(interp: &Interpreter) -> Probes {
        let used: Vec<(usize, &Component)> = Query::ALL
            .iter()
            .flat_map(|&query| {
                let engine = interp.chosen[query as usize];
                interp.engines[engine].plans[query as usize].iter().flatten().map(move |c| (engine, c))
            })
            .collect();
        let keys = &interp.keys;
        let outputs = [keys.legal, keys.next, keys.terminal, keys.goal, keys.sees];
        let mut by_engine = vec![BTreeMap::new(); interp.engines.len()];
        for &(engine, component) in &used {
            let is_fixed = |rel: usize| interp.engines[engine].is_fixed.get(rel).copied().unwrap_or(false);
            if let ([rel], false) = (&component.relations[..], component.rules.is_empty()) {
                // A relation without arguments is asked about one fact, which its component
                // derives at most once: searching it again at every test costs more.
                let arity = interp.relations.keys.get(*rel).map_or(0, |key| key.1);
                let rules: Vec<usize> = component.rules.iter().map(|planned| planned.rule).collect();
                let searchable = !component.recursive || searches_end(interp, engine, *rel, &rules);
                if !outputs.contains(rel) && !is_fixed(*rel) && arity > 0 && searchable {
                    by_engine[engine].insert(*rel, rules);
                }
            }
        }
        let (listed, read_by) = reads(interp, &used);
        for relations in by_engine.iter_mut() {
            relations.retain(|rel, _| !listed.contains(rel));
        }
        let mut probes = Probes { by_engine };
        loop {
            let dropped = probes.costly(interp, &used, &read_by);
            if dropped.is_empty() {
                return probes;
            }
            for relations in probes.by_engine.iter_mut() {
                relations.retain(|rel, _| !dropped.contains(rel));
            }
        }
    }

    /// The relations searched that should be computed whole after all: those read by an engine
    /// that computes them (a relation is answered one way in every engine that reads it), and
    /// those tested inside a loop over every fact of a static relation, where a search would
    /// run once per fact (zombieAttack1PL6 asks whether each of its 20 zombies is in play,
    /// and for each whether every lower one is).
    fn costly(
        &self,
        interp: &Interpreter,
        used: &[(usize, &Component)],
        read_by: &BTreeMap<usize, BTreeSet<usize>>,
    ) -> BTreeSet<usize> {
        let mut dropped = BTreeSet::new();
        for (rel, engines) in read_by {
            let searched_in = |e: usize| self.asked(e).searches(*rel);
            if engines.iter().any(|&e| searched_in(e)) && !engines.iter().all(|&e| searched_in(e)) {
                dropped.insert(*rel);
            }
        }
        for &(engine, component) in used.iter().filter(|(engine, c)| !self.replaces(*engine, c)) {
            for planned in &component.rules {
                let rule = &interp.engines[engine].rules[planned.rule];
                let variants = if component.recursive { &rule.delta_variants[..] } else { &[] };
                for rule in std::iter::once(rule).chain(variants) {
                    dropped.extend(self.asked_in_scans(interp, engine, rule, &access_paths(rule)));
                }
            }
        }
        for (engine, relations) in self.by_engine.iter().enumerate() {
            for (&rel, rules) in relations {
                for rule in self.rules_of(interp, engine, rel) {
                    dropped.extend(self.asked_in_scans(interp, engine, &rule, &search_access(&rule)));
                }
                // A recursive search must ask itself only once its step is checked: a rule that
                // cannot be ordered so among the other searches leaves the relation computed.
                let asked = self.asked(engine);
                let unordered = |&r: &usize| {
                    let rule = unguarded(interp, rel, &interp.engines[engine].rules[r]);
                    let recursive = rule.body.iter().any(|lit| matches!(lit, CLit::Pos(p) if p.rel == rel));
                    recursive && order_from(&rule.body, head_variables(&rule), asked).is_none()
                };
                if rules.iter().any(unordered) {
                    dropped.insert(rel);
                }
            }
        }
        dropped
    }

    /// The relations searched that `rule` of `engine` tests after a loop over every fact of a
    /// static relation, its literals finding their facts by `access`.
    fn asked_in_scans(&self, interp: &Interpreter, engine: usize, rule: &CRule, access: &[Access]) -> Vec<usize> {
        let is_fixed = |rel: usize| interp.engines[engine].is_fixed.get(rel).copied().unwrap_or(false);
        let asked = self.asked(engine);
        let mut in_scan = false;
        let mut found = Vec::new();
        for (lit, access) in rule.body.iter().zip(access) {
            let (CLit::Pos(p) | CLit::Neg(p)) = lit else { continue };
            if in_scan && asked.searches(p.rel) {
                found.push(p.rel);
            }
            in_scan |= matches!(lit, CLit::Pos(_)) && *access == Access::Scan && is_fixed(p.rel);
        }
        found
    }

    /// The relations of `engine` answered by a search.
    pub(super) fn asked(&self, engine: usize) -> Asked<'_> {
        static NONE: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        Asked { engine, relations: self.by_engine.get(engine).unwrap_or(&NONE) }
    }

    /// Whether `component` of `engine` computes a relation answered by a search instead.
    pub(super) fn replaces(&self, engine: usize, component: &Component) -> bool {
        let asked = self.asked(engine);
        matches!(&component.relations[..], [rel] if asked.searches(*rel))
    }

    /// The relations of `engine` answered by a search.
    pub(super) fn relations(&self, engine: usize) -> impl Iterator<Item = usize> + '_ {
        self.asked(engine).relations.keys().copied()
    }

    /// The rules of `rel` of `engine`, when it is answered by a search, ordered for it.
    pub(super) fn rules_of(&self, interp: &Interpreter, engine: usize, rel: usize) -> Vec<CRule> {
        let asked = self.asked(engine);
        let rules = asked.relations.get(&rel).map(Vec::as_slice).unwrap_or_default();
        rules.iter().map(|&r| search_order(&unguarded(interp, rel, &interp.engines[engine].rules[r]), asked)).collect()
    }

    /// The rules that a rule reading `rel` of `engine` runs through the search of `rel`, and
    /// through the searches those rules call in turn: none when `rel` is computed whole.
    pub(super) fn called_through(&self, interp: &Interpreter, engine: usize, rel: usize) -> Vec<CRule> {
        let asked = self.asked(engine);
        let mut seen = BTreeSet::new();
        let mut pending = vec![rel];
        let mut rules = Vec::new();
        while let Some(rel) = pending.pop() {
            if !asked.searches(rel) || !seen.insert(rel) {
                continue;
            }
            for rule in self.rules_of(interp, engine, rel) {
                pending.extend(relations_read(&rule));
                rules.push(rule);
            }
        }
        rules
    }
}

/// The relations that `rule`'s literals read, positive or negated.
pub(super) fn relations_read(rule: &CRule) -> impl Iterator<Item = usize> + '_ {
    rule.body.iter().filter_map(|lit| match lit {
        CLit::Pos(p) | CLit::Neg(p) => Some(p.rel),
        CLit::Distinct(..) | CLit::Equal(..) => None,
    })
}

/// The relations that some positive literal of the rules `used` reads with an argument free
/// (those rules list their facts), and for each relation the engines whose rules read it.
fn reads(interp: &Interpreter, used: &[(usize, &Component)]) -> (BTreeSet<usize>, BTreeMap<usize, BTreeSet<usize>>) {
    let mut listed = BTreeSet::new();
    let mut read_by: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for &(engine, component) in used {
        for planned in &component.rules {
            let rule = &interp.engines[engine].rules[planned.rule];
            let variants = if component.recursive { &rule.delta_variants[..] } else { &[] };
            for rule in std::iter::once(rule).chain(variants) {
                for (lit, access) in rule.body.iter().zip(access_paths(rule)) {
                    match lit {
                        CLit::Pos(p) => {
                            // A recursive relation searched asks itself with every argument
                            // bound (see `searches_end`), however its component lists it.
                            let own = component.recursive && component.relations.contains(&p.rel);
                            if access != Access::Member && !own {
                                listed.insert(p.rel);
                            }
                            read_by.entry(p.rel).or_default().insert(engine);
                        }
                        CLit::Neg(p) => {
                            read_by.entry(p.rel).or_default().insert(engine);
                        }
                        CLit::Distinct(..) | CLit::Equal(..) => {}
                    }
                }
            }
        }
    }
    (listed, read_by)
}

/// Whether the recursive relation `rel` of `engine`, whose rules are `rules`, may be answered by
/// a search: every rule, ordered for a search, asks `rel` with every argument bound, and the
/// questions end soon (see [`recursion::ends_soon`]). The order is the one the search is
/// written in when the relations the rules read are computed; asked in turn, they are
/// tests placed after the others all the same.
fn searches_end(interp: &Interpreter, engine: usize, rel: usize, rules: &[usize]) -> bool {
    let itself = BTreeMap::from([(rel, Vec::new())]);
    let asked = Asked { engine, relations: &itself };
    let mut ordered = Vec::new();
    for &r in rules {
        let rule = unguarded(interp, rel, &interp.engines[engine].rules[r]);
        let Some(body) = order_from(&rule.body, head_variables(&rule), asked) else { return false };
        ordered.push(CRule { body, ..rule });
    }
    recursion::ends_soon(interp, engine, rel, &ordered)
}

/// `rule` of relation `rel` without the literals of the magic-sets rewrite's demand relations
/// (see [`crate::ground::demand`]) that guard it. A guard lets a rule derive only the facts that
/// some reader asks about; a search is asked about one fact by such a reader, so the guard holds
/// whenever it asks, and without it the demand relation need not be computed for the search.
/// The rules of a demand relation keep theirs: there they are what the relation is made of.
fn unguarded(interp: &Interpreter, rel: usize, rule: &CRule) -> CRule {
    let name = |r: usize| interp.relations.keys.get(r).map_or("", |key| key.0.as_str());
    let is_demand = |r: usize| demand::served(name(r)).is_some() || demand::part_of(name(r)).is_some();
    if is_demand(rel) {
        return rule.clone();
    }
    let body = rule.body.iter().filter(|lit| !matches!(lit, CLit::Pos(p) if is_demand(p.rel))).cloned().collect();
    CRule { body, delta_variants: Vec::new(), ..rule.clone() }
}

/// `rule`'s body in the order of a search for a fact of its head, whose variables are then
/// bound (see [`order_from`]).
fn search_order(rule: &CRule, asked: Asked<'_>) -> CRule {
    match order_from(&rule.body, head_variables(rule), asked) {
        Some(body) => CRule { body, delta_variants: Vec::new(), ..rule.clone() },
        None => rule.clone(),
    }
}

/// The literals `body` in the order of a search once the variables marked in `bound` are bound:
/// each literal that binds nothing (a negation, a `distinct`, an equality, a positive literal
/// with every argument bound, and any literal of a relation answered by a search) as soon as
/// its variables are bound, else the positive literal with the most arguments bound, the first
/// of them as written on a tie. `None` when some test's variables are bound by no literal (an
/// unsafe rule, which the checks refuse).
pub(super) fn order_from(body: &[CLit], mut bound: Vec<bool>, asked: Asked<'_>) -> Option<Vec<CLit>> {
    let mut left: Vec<&CLit> = body.iter().collect();
    let mut ordered = Vec::with_capacity(left.len());
    while !left.is_empty() {
        // Tests that ask no search first: a recursive relation's search checks the step to its
        // next question before asking it (see `recursion`), and cheap tests go before searches.
        let test = left.iter().position(|lit| binds_nothing(lit, &bound) && !is_asked(lit, asked));
        let test = test.or_else(|| left.iter().position(|lit| binds_nothing(lit, &bound)));
        let next = test.or_else(|| {
            let loops = left.iter().enumerate().filter(|(_, lit)| !is_asked(lit, asked));
            let bound_args = |lit: &CLit| match lit {
                CLit::Pos(p) => {
                    let args = p.args.iter().filter(|arg| is_bound(arg, &bound));
                    let variables = args.clone().filter(|arg| !matches!(arg, PTerm::Ground(_))).count();
                    (args.count(), variables)
                }
                _ => (0, 0),
            };
            // The most bound arguments, then the most bound by variables rather than constants
            // (many facts share a constant: chess's `(true (cell ?u2 ?v2 b))` holds for every
            // empty square, `(next_file ?u ?u2)` for one square once `?u` is bound), then the
            // first as written.
            loops.map(|(k, lit)| (bound_args(lit), std::cmp::Reverse(k))).max().map(|(_, k)| k.0)
        })?;
        let lit = left.remove(next);
        if let CLit::Pos(p) = lit {
            p.args.iter().for_each(|arg| mark_vars(arg, &mut bound));
        }
        ordered.push(lit.clone());
    }
    Some(ordered)
}

/// Whether `lit` reads a relation answered by a search.
fn is_asked(lit: &CLit, asked: Asked<'_>) -> bool {
    matches!(lit, CLit::Pos(p) if asked.searches(p.rel))
}

/// How each literal of `rule`, ordered for a search, finds its facts: the head's variables are
/// bound before the body.
pub(super) fn search_access(rule: &CRule) -> Vec<Access> {
    access_paths_from(rule, head_variables(rule))
}

#[cfg(test)]
mod tests {
    use super::{search_order, Asked, Probes};
    use crate::datalog::compile::{CLit, CRule, PTerm, Pattern};
    use crate::interp::Interpreter;
    use crate::parse::parse_auto;

    fn pattern(rel: usize, args: Vec<PTerm>) -> Pattern {
        Pattern { rel, args: args.into_boxed_slice() }
    }

    /// `h(X) :- p(X, Y), q(Y, Z), not r(Z), s(X)` searched with `X` bound: `s(X)` is a test to
    /// make at once, then `p` (one argument bound) before `q` (none), then `not r(Z)`.
    #[test]
    fn a_search_tests_first_then_follows_the_bound_arguments() {
        let (x, y, z) = (PTerm::Var(0), PTerm::Var(1), PTerm::Var(2));
        let rule = CRule {
            head: pattern(0, vec![x.clone()]),
            body: vec![
                CLit::Pos(pattern(2, vec![y.clone(), z.clone()])),
                CLit::Pos(pattern(1, vec![x.clone(), y])),
                CLit::Neg(pattern(3, vec![z])),
                CLit::Pos(pattern(4, vec![x])),
            ],
            num_vars: 3,
            delta_variants: Vec::new(),
            span: Default::default(),
        };
        let ordered = search_order(&rule, Asked::none());
        let relations: Vec<usize> =
            ordered.body.iter().map(|lit| if let CLit::Pos(p) | CLit::Neg(p) = lit { p.rel } else { 99 }).collect();
        assert_eq!(relations, [4, 1, 2, 3]);
    }

    /// `near` is only tested with its argument bound, so it is searched; `listed` gives the
    /// moves their argument, so it is computed whole; `goal` answers a query.
    #[test]
    fn only_relations_tested_with_every_argument_bound_are_searched() {
        let game = "(role p) (init (cell 1)) (init (cell 2)) (number 1) (number 2) (number 3)
            (<= (near ?x) (true (cell ?y)) (number ?x) (distinct ?x ?y))
            (<= (listed ?x) (true (cell ?x)))
            (<= (legal p (go ?x)) (listed ?x) (not (near ?x)))
            (<= (next (cell ?x)) (does p (go ?x)))
            (<= terminal (true (cell 3)))
            (<= (goal p 100) (true (cell 3)))
            (<= (goal p 0) (not (true (cell 3))))";
        let searched = searched(game);
        assert!(searched.contains(&"near".to_string()), "{searched:?}");
        assert!(!searched.iter().any(|name| name == "listed" || name == "goal"), "{searched:?}");
    }

    /// `far` is tested once per fact of the static `number`, and `blocked` has no argument:
    /// both are computed whole.
    #[test]
    fn relations_tested_per_static_fact_or_without_arguments_are_computed() {
        let game = "(role p) (init (cell 1)) (number 1) (number 2) (number 3)
            (<= (far ?x) (true (cell ?y)) (number ?x) (distinct ?x ?y))
            (<= blocked (true (cell 3)))
            (<= (legal p (go ?x)) (number ?x) (not (far ?x)) (not blocked))
            (<= (next (cell ?x)) (does p (go ?x)))
            (<= terminal (true (cell 3)))
            (<= (goal p 100) (true (cell 3)))
            (<= (goal p 0) (not (true (cell 3))))";
        assert_eq!(searched(game), Vec::<String>::new());
    }

    /// A line walked square by square, `(clear ?from ?to)` over the chain of `next_file`, with
    /// `steps` as the chain's facts: searched when the chain has no cycle and one next file for
    /// each, computed whole when it loops back (a search could ask itself again) or branches
    /// (a search could ask more and more questions).
    fn walked_line(steps: &str) -> String {
        format!(
            "(role p) (init (free b)) (init (free d)) (init (cell c)) {steps}
            (<= (clear ?u ?x) (next_file ?u ?x))
            (<= (clear ?u ?x) (next_file ?u ?u2) (not (true (cell ?u2))) (clear ?u2 ?x))
            (<= (legal p (go ?x)) (true (free ?x)) (not (clear a ?x)))
            (<= (legal p wait) (true (free ?x)))
            (<= (next (cell ?x)) (does p (go ?x)))
            (<= (next (cell ?x)) (true (cell ?x)))
            (<= terminal (not (true (free b))))
            (<= (goal p 100) (true (cell d)))
            (<= (goal p 0) (not (true (cell d))))"
        )
    }

    #[test]
    fn a_recursive_relation_that_walks_a_chain_is_searched() {
        let chain = "(next_file a b) (next_file b c) (next_file c d)";
        assert!(searched(&walked_line(chain)).contains(&"clear".to_string()));
    }

    #[test]
    fn a_recursive_relation_over_a_cycle_or_branching_steps_is_computed() {
        let cycle = "(next_file a b) (next_file b c) (next_file c d) (next_file d a)";
        assert!(!searched(&walked_line(cycle)).contains(&"clear".to_string()));
        let branching = "(next_file a b) (next_file a c) (next_file b c) (next_file c d)";
        assert!(!searched(&walked_line(branching)).contains(&"clear".to_string()));
    }

    /// The names of the relations searched in `game`.
    fn searched(game: &str) -> Vec<String> {
        let parsed = parse_auto(game);
        assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
        let interp = Interpreter::new(&parsed.description).expect("the game loads");
        let probes = Probes::of(&interp);
        let engines: std::collections::BTreeSet<usize> = interp.chosen.iter().copied().collect();
        let relations = engines.into_iter().flat_map(|engine| probes.relations(engine).collect::<Vec<_>>());
        relations.map(|rel| interp.relations.keys[rel].0.clone()).collect()
    }
}
