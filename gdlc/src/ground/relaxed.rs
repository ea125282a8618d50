//! The relaxed program: the rules without the negations of relations that depend on the state,
//! with `true` fed from `init` and `next` and `does` from `legal`, and one instance query per
//! rule alternative with a state-dependent head. Without those negations the rules are
//! monotone, so their least fixpoint contains every fact of every reachable state, every legal
//! move and every derived atom; each binding of an instance query is one ground rule.

use crate::ast::{Atom, Description, Literal, Rule, Span, Term};
use crate::datalog::compile::{dnf, product, Basic};
use std::collections::BTreeSet;

/// One conjunction of a rule's disjunctive normal form.
pub(super) struct Alternative<'a> {
    pub(super) head: &'a Atom,
    pub(super) body: Vec<Basic<'a>>,
    /// The variables of the body, sorted: the arguments of its instance query.
    pub(super) vars: Vec<&'a str>,
}

/// Every conjunction of the disjunctive normal forms of the rules, in order.
pub(super) fn alternatives(description: &Description) -> Vec<Alternative<'_>> {
    let mut alternatives = Vec::new();
    for rule in &description.rules {
        for body in product(rule.body.iter().map(|l| dnf(l, false))) {
            let mut vars = BTreeSet::new();
            for b in &body {
                vars.extend(b.vars());
            }
            alternatives.push(Alternative { head: &rule.head, body, vars: vars.into_iter().collect() });
        }
    }
    alternatives
}

/// The name of the query for the bindings of alternative `k`; it contains parentheses and a
/// space, so no symbol of a game can spell it.
pub(super) fn instance_relation(k: usize) -> String {
    format!("(instances {k})")
}

/// The alternative whose instances relation `name` queries, if it is an instance query.
pub(super) fn instance_query(name: &str) -> Option<usize> {
    name.strip_prefix("(instances ")?.strip_suffix(')')?.parse().ok()
}

/// Whether relation `name` is an instance query.
pub(super) fn is_instance_query(name: &str) -> bool {
    name.starts_with("(instances ")
}

/// The relaxed rules, the instance queries of the alternatives with state-dependent heads, and
/// the rules that feed `true` and `does`. Checked relations are left out, and so are the
/// literals that read them (their arguments are bound by the rest of each rule).
pub(super) fn program(
    alternatives: &[Alternative<'_>],
    dynamic: &BTreeSet<String>,
    checked: &BTreeSet<String>,
) -> Description {
    let span = Span::default();
    let var = |name: &str| Term::Var(name.to_string(), span);
    let atom = |name: &str, args: Vec<Term>| Atom { name: name.to_string(), args, span };
    let mut rules = Vec::new();
    for (k, alternative) in alternatives.iter().enumerate() {
        if checked.contains(&alternative.head.name) {
            continue;
        }
        let body: Vec<Literal> = alternative
            .body
            .iter()
            .filter_map(|b| match *b {
                Basic::Pos(a) | Basic::Neg(a) if checked.contains(&a.name) => None,
                Basic::Pos(a) => Some(Literal::Atom(a.clone())),
                Basic::Neg(a) if dynamic.contains(&a.name) => None,
                Basic::Neg(a) => Some(Literal::Not(Box::new(Literal::Atom(a.clone())), span)),
                Basic::Distinct(x, y) => Some(Literal::Distinct(x.clone(), y.clone(), span)),
                Basic::Equal(x, y) => Some(Literal::Not(Box::new(Literal::Distinct(x.clone(), y.clone(), span)), span)),
            })
            .collect();
        if dynamic.contains(&alternative.head.name) {
            let head = atom(&instance_relation(k), alternative.vars.iter().map(|v| var(v)).collect());
            rules.push(Rule { head, body: body.clone(), span });
        }
        rules.push(Rule { head: alternative.head.clone(), body, span });
    }
    let feed = |head: Atom, from: Atom| Rule { head, body: vec![Literal::Atom(from)], span };
    rules.push(feed(atom("true", vec![var("x")]), atom("init", vec![var("x")])));
    rules.push(feed(atom("true", vec![var("x")]), atom("next", vec![var("x")])));
    rules.push(feed(atom("does", vec![var("r"), var("m")]), atom("legal", vec![var("r"), var("m")])));
    Description { rules }
}

/// The relaxed program restricted to the bindings that its callers and the instance queries
/// ask for (see [`super::demand`]).
pub(super) fn on_demand(
    relaxed: &Description,
    alternatives: &[Alternative<'_>],
    dynamic: &BTreeSet<String>,
    checked: &BTreeSet<String>,
) -> Description {
    let serves = |rule: &Rule| {
        let k = instance_query(&rule.head.name)?;
        let dropped = |b: &Basic<'_>| match *b {
            Basic::Neg(a) if dynamic.contains(&a.name) && !checked.contains(&a.name) => Some(a.clone()),
            _ => None,
        };
        let reads = alternatives[k].body.iter().filter_map(dropped).collect();
        Some(super::demand::Serves { atom: alternatives[k].head.clone(), reads })
    };
    // Checked rules read static relations at run time with any bindings: those are complete.
    let mut complete: BTreeSet<&str> =
        ["init", "true", "next", "does", "legal", "terminal", "goal", "sees", "role"].into_iter().collect();
    for alternative in alternatives.iter().filter(|a| checked.contains(&a.head.name)) {
        for b in &alternative.body {
            if let Basic::Pos(a) | Basic::Neg(a) = *b {
                if !dynamic.contains(&a.name) {
                    complete.insert(a.name.as_str());
                }
            }
        }
    }
    let complete: Vec<&str> = complete.into_iter().collect();
    super::demand::restrict(relaxed, &serves, &complete)
}

/// The user's relation that relation `name` of the relaxed program computes or serves: the
/// relation itself, the relation whose demand it computes, or the relation whose rule a new
/// relation of the decomposition was split from. An instance query is returned as it is.
pub(super) fn user_relation(name: &str, origins: &[String]) -> String {
    let name = super::demand::part_of(name).unwrap_or(name);
    let name = super::demand::served(name).unwrap_or(name);
    match name.strip_prefix("(aux ").and_then(|k| k.strip_suffix(')')) {
        Some(k) => origins.get(k.parse::<usize>().unwrap_or(usize::MAX)).cloned().unwrap_or_default(),
        None => name.to_string(),
    }
}
