//! Rule decomposition before grounding: a state-dependent literal whose variables are partly
//! private to it (used by no other state-dependent literal and not by the head) is replaced by
//! a new relation over its shared variables, defined by that literal and the static literals
//! that mention its private variables.
//!
//! `(<= (next (cell ?x ?y ?s)) (true (cell ?x ?y ?s)) (does ?p (move ?a ?b ?c ?d)) (apart ?x ?y ?a ?b))`
//! grounds to one rule per cell and move; after decomposition the moves are folded once per
//! cell into `(aux ?x ?y)`, and the frame rule grounds to one rule per cell.

use crate::ast::{Atom, Description, Literal, Rule, Span, Term};
use crate::interp::compile::{dnf, product, Basic};
use std::collections::BTreeSet;

/// The rules of `description` in disjunctive normal form (each body a conjunction of atoms,
/// negated atoms and (negated) `distinct`s), decomposed. `dynamic` names the relations that
/// depend on the state; the new relations are added to it.
pub fn decompose(description: &Description, dynamic: &mut BTreeSet<String>) -> Description {
    let mut rules = Vec::new();
    let mut aux = 0usize;
    for rule in &description.rules {
        for conjunction in product(rule.body.iter().map(|l| dnf(l, false))) {
            let body: Vec<Literal> = conjunction.iter().map(to_literal).collect();
            decompose_rule(rule.head.clone(), body, rule.span, dynamic, &mut aux, &mut rules);
        }
    }
    Description { rules }
}

fn to_literal(b: &Basic<'_>) -> Literal {
    let span = Span::default();
    match *b {
        Basic::Pos(a) => Literal::Atom(a.clone()),
        Basic::Neg(a) => Literal::Not(Box::new(Literal::Atom(a.clone())), span),
        Basic::Distinct(x, y) => Literal::Distinct(x.clone(), y.clone(), span),
        Basic::Equal(x, y) => Literal::Not(Box::new(Literal::Distinct(x.clone(), y.clone(), span)), span),
    }
}

fn vars_of(literal: &Literal) -> BTreeSet<String> {
    let mut vars = BTreeSet::new();
    literal.for_each_var(&mut |v, _| {
        vars.insert(v.to_string());
    });
    vars
}

/// The state-dependent positive atom of a literal, if it is one.
fn dynamic_atom<'a>(literal: &'a Literal, dynamic: &BTreeSet<String>) -> Option<&'a Atom> {
    match literal {
        Literal::Atom(a) if dynamic.contains(&a.name) => Some(a),
        _ => None,
    }
}

fn is_dynamic(literal: &Literal, dynamic: &BTreeSet<String>) -> bool {
    let mut found = false;
    literal.for_each_atom(false, &mut |a, _| found |= dynamic.contains(&a.name));
    found
}

/// A positive static atom: it binds its variables.
fn binds(literal: &Literal, dynamic: &BTreeSet<String>) -> bool {
    matches!(literal, Literal::Atom(a) if !dynamic.contains(&a.name))
}

fn decompose_rule(
    head: Atom,
    mut body: Vec<Literal>,
    span: Span,
    dynamic: &mut BTreeSet<String>,
    aux: &mut usize,
    out: &mut Vec<Rule>,
) {
    let mut i = 0;
    while i < body.len() {
        let Some(atom) = dynamic_atom(&body[i], dynamic) else {
            i += 1;
            continue;
        };
        // Variables used by the head or by another state-dependent literal are shared.
        let mut shared: BTreeSet<String> = BTreeSet::new();
        head.for_each_var(&mut |v, _| {
            shared.insert(v.to_string());
        });
        for (j, other) in body.iter().enumerate() {
            if j != i && is_dynamic(other, dynamic) {
                shared.extend(vars_of(other));
            }
        }
        let own = vars_of(&body[i]);
        let private: BTreeSet<String> = own.difference(&shared).cloned().collect();
        if private.is_empty() {
            i += 1;
            continue;
        }
        // The static literals over private variables move into the new relation.
        let moved: Vec<usize> = (0..body.len())
            .filter(|&j| j != i && !is_dynamic(&body[j], dynamic) && !vars_of(&body[j]).is_disjoint(&private))
            .collect();
        let mut aux_body = vec![Literal::Atom(atom.clone())];
        aux_body.extend(moved.iter().map(|&j| body[j].clone()));
        let mut all: BTreeSet<String> = BTreeSet::new();
        for l in &aux_body {
            all.extend(vars_of(l));
        }
        let exported: Vec<String> = all.difference(&private).cloned().collect();
        // Every variable of the new rule must be bound by one of its positive literals; copy in
        // static atoms of the rest of the body that bind the ones that are not.
        let mut bound: BTreeSet<String> = BTreeSet::new();
        for l in aux_body.iter().filter(|l| matches!(l, Literal::Atom(_))) {
            bound.extend(vars_of(l));
        }
        for (j, l) in body.iter().enumerate() {
            if all.is_subset(&bound) {
                break;
            }
            if j != i && !moved.contains(&j) && binds(l, dynamic) {
                let vs = vars_of(l);
                if !vs.is_disjoint(&all.difference(&bound).cloned().collect()) {
                    bound.extend(vs.iter().cloned());
                    all.extend(vs);
                    aux_body.push(l.clone());
                }
            }
        }
        if !all.is_subset(&bound) {
            i += 1;
            continue;
        }
        let exported: Vec<String> = exported.into_iter().filter(|v| all.contains(v)).collect();
        let name = format!("(aux {aux})");
        *aux += 1;
        dynamic.insert(name.clone());
        let aux_head =
            Atom { name: name.clone(), args: exported.iter().map(|v| Term::Var(v.clone(), span)).collect(), span };
        out.push(Rule { head: aux_head.clone(), body: aux_body, span });
        let mut rest: Vec<Literal> =
            body.into_iter().enumerate().filter(|(j, _)| *j != i && !moved.contains(j)).map(|(_, l)| l).collect();
        rest.insert(i.min(rest.len()), Literal::Atom(aux_head));
        body = rest;
        i += 1;
    }
    out.push(Rule { head, body, span });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, Syntax};

    fn decomposed(text: &str, dynamic: &[&str]) -> Vec<String> {
        let d = parse(text, Syntax::Kif).description;
        let mut dynamic: BTreeSet<String> = dynamic.iter().map(|s| s.to_string()).collect();
        decompose(&d, &mut dynamic)
            .rules
            .into_iter()
            .map(|r| {
                let one = Description { rules: vec![r] };
                crate::print::print(&one, Syntax::Kif).trim_end().replace("\n    ", " ")
            })
            .collect()
    }

    #[test]
    fn a_move_private_to_a_frame_rule_is_folded_per_cell() {
        let rules = decomposed(
            "(<= (next (cell ?x ?y ?s)) (true (cell ?x ?y ?s)) (does ?p (move ?a ?b ?c ?d)) (apart ?x ?y ?a ?b))",
            &["true", "does", "next"],
        );
        assert_eq!(
            rules,
            vec![
                "(<= ((aux 0) ?x ?y) (does ?p (move ?a ?b ?c ?d)) (apart ?x ?y ?a ?b))".to_string(),
                "(<= (next (cell ?x ?y ?s)) (true (cell ?x ?y ?s)) ((aux 0) ?x ?y))".to_string(),
            ]
        );
    }

    #[test]
    fn a_literal_without_private_variables_stays() {
        let rules = decomposed("(<= (next (c ?x)) (true (c ?x)) (does ?p (m ?x)) (r ?p))", &["true", "does", "next"]);
        assert_eq!(rules.len(), 2, "{rules:?}");
        let rules = decomposed("(<= (next (c ?x)) (true (c ?x)) (does r (m ?x)))", &["true", "does", "next"]);
        assert_eq!(rules, vec!["(<= (next (c ?x)) (true (c ?x)) (does r (m ?x)))".to_string()]);
    }

    #[test]
    fn a_distinct_over_a_private_variable_moves_with_a_binding_atom() {
        let rules = decomposed(
            "(<= (next (c ?x)) (true (c ?x)) (index ?x) (does ?p (m ?y)) (distinct ?x ?y))",
            &["true", "does", "next"],
        );
        assert_eq!(
            rules,
            vec![
                "(<= ((aux 0) ?x) (does ?p (m ?y)) (distinct ?x ?y) (index ?x))".to_string(),
                "(<= (next (c ?x)) (true (c ?x)) (index ?x) ((aux 0) ?x))".to_string(),
            ]
        );
    }
}
