//! Board coordinates that a game gives its base facts through a static relation. Pentago's
//! `(true (cellholds ?q ?x ?y ?p))` is read with `(globalindex ?q ?x ?y ?xg ?yg)`, which maps
//! a quadrant's cell one to one onto the board's column and row; laid out by those (see
//! [`super::layout`]), a line of five of the board is five equally spaced bits, not five bits
//! scattered over four quadrants.

use crate::ast::{Atom, Description, Literal, Rule, Term};
use crate::graph::Dependencies;
use crate::interp::Interpreter;
use std::collections::{BTreeMap, BTreeSet};

/// New arguments for the facts of one relation: the arguments at `positions` are replaced by
/// the numbers `map` gives them, in the place of the first of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coordinates {
    pub relation: (String, usize),
    pub positions: Vec<usize>,
    pub map: BTreeMap<Vec<String>, Vec<String>>,
}

impl Coordinates {
    /// A fact's arguments under these coordinates, if the map covers it.
    pub fn arguments(&self, args: &[String]) -> Option<Vec<String>> {
        let key: Vec<String> = self.positions.iter().map(|&p| args.get(p).cloned()).collect::<Option<_>>()?;
        let first = *self.positions.iter().min()?;
        let mut out: Vec<String> = (0..first).map(|p| args[p].clone()).collect();
        out.extend(self.map.get(&key)?.iter().cloned());
        out.extend((first..args.len()).filter(|p| !self.positions.contains(p)).map(|p| args[p].clone()));
        Some(out)
    }
}

/// A way a rule reads a fact with a static relation: the fact's relation, which of its
/// arguments the static atom shares (in the static atom's order), and the static relation
/// with the positions of those shared arguments and of its other arguments.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    fact: (String, usize),
    fact_positions: Vec<usize>,
    relation: (String, usize),
    shared: Vec<usize>,
    others: Vec<usize>,
}

/// For every relation of `base` (canonical KIF facts) that some rule reads together with a
/// static relation mapping the fact's arguments one to one onto numbers, the coordinates the
/// most rules use. Empty when the game has no such relation or its static relations cannot
/// be computed.
pub fn find(description: &Description, base: &[String]) -> Vec<Coordinates> {
    let candidates = candidates(description);
    if candidates.is_empty() {
        return Vec::new();
    }
    let Ok(interpreter) = Interpreter::new(&statics_of(description, &candidates)) else { return Vec::new() };
    let mut facts: BTreeMap<(String, usize), Vec<Vec<String>>> = BTreeMap::new();
    for (name, args) in base.iter().map(|fact| super::layout::split(fact)) {
        facts.entry((name, args.len())).or_default().push(args);
    }
    let mut found: BTreeMap<(String, usize), Coordinates> = BTreeMap::new();
    // Most used first; of equal use, in the candidates' order.
    let mut ranked: Vec<(&Candidate, usize)> = candidates.iter().map(|(c, &n)| (c, n)).collect();
    ranked.sort_by_key(|&(c, n)| (std::cmp::Reverse(n), c));
    for (candidate, _) in ranked {
        if found.contains_key(&candidate.fact) {
            continue;
        }
        let (Some(rows), Some(facts)) =
            (interpreter.static_rows(&candidate.relation.0, candidate.relation.1), facts.get(&candidate.fact))
        else {
            continue;
        };
        if let Some(coordinates) = verify(candidate, &rows, facts) {
            found.insert(candidate.fact.clone(), coordinates);
        }
    }
    found.into_values().collect()
}

/// The rules of the static relations of `candidates` and of what they depend on, with the
/// roles, and a `terminal` rule reading each, so that an interpreter of them computes those
/// relations and no other (a game's other static relations may be far larger: sudoku's).
fn statics_of(description: &Description, candidates: &BTreeMap<Candidate, usize>) -> Description {
    let relations: BTreeSet<&(String, usize)> = candidates.keys().map(|c| &c.relation).collect();
    let names: Vec<&str> = relations.iter().map(|(name, _)| name.as_str()).collect();
    let needed = Dependencies::build(description).dependencies_of(&names);
    let mut rules: Vec<Rule> =
        description.rules.iter().filter(|r| r.head.name == "role" || needed.contains(&r.head.name)).cloned().collect();
    for (name, arity) in relations {
        let span = Default::default();
        let args = (0..*arity).map(|i| Term::Var(format!("v{i}"), span)).collect();
        let read = Literal::Atom(Atom { name: name.clone(), args, span });
        rules.push(Rule {
            head: Atom { name: "terminal".to_string(), args: Vec::new(), span },
            body: vec![read],
            span,
        });
    }
    Description { rules }
}

/// The coordinates of `candidate` when its static relation's `rows` map the shared arguments
/// of every fact of `facts` to numbers, as a function, and different facts to different ones,
/// and the numbers are another kind of coordinates: more or fewer of them than the arguments
/// they replace (pentago's quadrant and cell to column and row), or numbers for symbols. A map
/// of numbers to as many numbers moves a place to another of the same board (a successor, a
/// move, a rotation): the facts' own numbers are their coordinates.
fn verify(candidate: &Candidate, rows: &[Vec<String>], facts: &[Vec<String>]) -> Option<Coordinates> {
    let numbers = facts.iter().all(|f| candidate.fact_positions.iter().all(|&p| f[p].parse::<u64>().is_ok()));
    if numbers && candidate.fact_positions.len() == candidate.others.len() {
        return None;
    }
    let mut map: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    for row in rows {
        let key: Vec<String> = candidate.shared.iter().map(|&p| row[p].clone()).collect();
        let value: Vec<String> = candidate.others.iter().map(|&p| row[p].clone()).collect();
        if value.iter().any(|v| v.parse::<u64>().is_err()) {
            return None;
        }
        if map.insert(key, value.clone()).is_some_and(|old| old != value) {
            return None;
        }
    }
    let coordinates =
        Coordinates { relation: candidate.fact.clone(), positions: candidate.fact_positions.clone(), map };
    let mut seen = BTreeSet::new();
    for fact in facts {
        if !seen.insert(coordinates.arguments(fact)?) {
            return None;
        }
    }
    // Only the keys that facts have: the layout needs no others.
    let used: BTreeSet<Vec<String>> =
        facts.iter().map(|f| candidate.fact_positions.iter().map(|&p| f[p].clone()).collect()).collect();
    let map = coordinates.map.into_iter().filter(|(k, _)| used.contains(k)).collect();
    Some(Coordinates { map, ..coordinates })
}

/// Every way a rule reads a `true` fact with a static atom that shares some of the fact's
/// variables and has others, all its arguments being variables, with how many rules do.
fn candidates(description: &Description) -> BTreeMap<Candidate, usize> {
    let deps = Dependencies::build(description);
    let dynamic = deps.dependents_of(&["true", "does"]);
    let mut counts = BTreeMap::new();
    for rule in &description.rules {
        let atoms: Vec<&Atom> = rule
            .body
            .iter()
            .filter_map(|l| match l {
                Literal::Atom(a) => Some(a),
                _ => None,
            })
            .collect();
        for fact in atoms.iter().filter(|a| a.name == "true" && a.args.len() == 1) {
            let Term::Func(name, args, _) = &fact.args[0] else { continue };
            let fact_vars: Vec<Option<&str>> = args.iter().map(var_of).collect();
            for atom in atoms.iter().filter(|a| !dynamic.contains(&a.name) && !a.args.is_empty()) {
                let vars: Option<Vec<&str>> = atom.args.iter().map(var_of).collect();
                let Some(vars) = vars else { continue };
                let (mut shared, mut others, mut fact_positions) = (Vec::new(), Vec::new(), Vec::new());
                for (p, v) in vars.iter().enumerate() {
                    match fact_vars.iter().position(|f| f == &Some(*v)) {
                        Some(at) => {
                            shared.push(p);
                            fact_positions.push(at);
                        }
                        None => others.push(p),
                    }
                }
                if shared.is_empty() || others.is_empty() {
                    continue;
                }
                let candidate = Candidate {
                    fact: (name.clone(), args.len()),
                    fact_positions,
                    relation: (atom.name.clone(), atom.args.len()),
                    shared,
                    others,
                };
                *counts.entry(candidate).or_insert(0) += 1;
            }
        }
    }
    counts
}

/// The name of a variable term.
fn var_of(term: &Term) -> Option<&str> {
    match term {
        Term::Var(v, _) => Some(v.as_str()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coordinates(text: &str, base: &[&str]) -> Vec<Coordinates> {
        let description = crate::parse::parse(text, crate::parse::Syntax::Kif).description;
        find(&description, &base.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    const QUADRANTS: &str = "(role a) (init (c 1 1 x))
        (<= (g 1 ?i ?j ?i) (n ?j)) (<= (g 2 ?i ?j ?k) (n ?j) (plus2 ?i ?k))
        (n 1) (n 2) (plus2 1 3) (plus2 2 4)
        (<= (legal a noop) (true (c ?q ?i ?x)) (g ?q ?i ?j ?k))
        (<= (next (c ?q ?i ?x)) (true (c ?q ?i ?x)))
        (<= terminal (true (c ?q ?i ?x)) (g ?q ?i ?j ?k) (n ?j))
        (goal a 0)";

    #[test]
    fn a_one_to_one_static_map_gives_coordinates() {
        // (g q i j k): quadrant q's cell i is the board's column k (j only repeats over 1, 2,
        // so it is not a function of q and i, and the map is refused with it).
        let text = "(role a) (init (c 1 1 x))
            (<= (g 1 ?i ?i) (n ?i)) (<= (g 2 ?i ?k) (plus2 ?i ?k))
            (n 1) (n 2) (plus2 1 3) (plus2 2 4)
            (<= (legal a noop) (true (c ?q ?i ?x)) (g ?q ?i ?k))
            (<= (next (c ?q ?i ?x)) (true (c ?q ?i ?x)))
            (<= terminal (true (c ?q ?i ?x)) (g ?q ?i ?k))
            (goal a 0)";
        let found = coordinates(text, &["(c 1 1 x)", "(c 1 2 x)", "(c 2 1 x)", "(c 2 2 x)"]);
        assert_eq!(found.len(), 1, "{found:?}");
        let c = &found[0];
        assert_eq!(c.relation, ("c".to_string(), 3));
        assert_eq!(c.positions, [0, 1]);
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(c.arguments(&args(&["2", "1", "x"])), Some(args(&["3", "x"])));
        assert_eq!(c.arguments(&args(&["1", "2", "x"])), Some(args(&["2", "x"])));
    }

    #[test]
    fn a_successor_relation_gives_none() {
        // connectFour's (succ ?y1 ?y2) maps each row to the next: the same order.
        let text = "(role a) (init (c 1 1 x)) (succ 1 2) (succ 2 3)
            (<= (legal a noop) (true (c ?i ?j ?x)) (succ ?j ?k))
            (<= (next (c ?i ?j ?x)) (true (c ?i ?j ?x)))
            (<= terminal (true (c ?i ?j ?x)) (succ ?j ?k))
            (goal a 0)";
        assert!(coordinates(text, &["(c 1 1 x)", "(c 1 2 x)", "(c 2 1 x)", "(c 2 2 x)"]).is_empty());
    }

    #[test]
    fn a_map_of_places_to_places_gives_none() {
        // (update i j i2 j2) moves each cell of a 2x2 board to another: the same kind of
        // coordinates, not new ones.
        let text = "(role a) (init (c 1 1 x))
            (update 1 1 1 2) (update 1 2 2 2) (update 2 2 2 1) (update 2 1 1 1)
            (<= (next (c ?k ?l ?x)) (true (c ?i ?j ?x)) (update ?i ?j ?k ?l))
            (<= (legal a noop) (true (c ?i ?j ?x)))
            (<= terminal (true (c 2 2 x)))
            (goal a 0)";
        assert!(coordinates(text, &["(c 1 1 x)", "(c 1 2 x)", "(c 2 1 x)", "(c 2 2 x)"]).is_empty());
    }

    #[test]
    fn a_map_that_is_not_a_function_gives_none() {
        assert!(coordinates(QUADRANTS, &["(c 1 1 x)", "(c 1 2 x)", "(c 2 1 x)", "(c 2 2 x)"]).is_empty());
    }

    #[test]
    fn a_map_that_joins_two_facts_gives_none() {
        // (h ?q ?i ?k): k is i for both quadrants, so (c 1 1 x) and (c 2 1 x) would share a place.
        let text = "(role a) (init (c 1 1 x)) (n 1) (n 2)
            (<= (h ?q ?i ?i) (n ?q) (n ?i))
            (<= (legal a noop) (true (c ?q ?i ?x)) (h ?q ?i ?k))
            (<= (next (c ?q ?i ?x)) (true (c ?q ?i ?x)))
            (<= terminal (true (c ?q ?i ?x)) (h ?q ?i ?k))
            (goal a 0)";
        assert!(coordinates(text, &["(c 1 1 x)", "(c 1 2 x)", "(c 2 1 x)", "(c 2 2 x)"]).is_empty());
    }
}
