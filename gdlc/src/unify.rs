//! Unification of terms (a most general unifier, with the occurs check) and the substitution of
//! its bindings into atoms and literals: what inlining a definition and denying a `distinct`
//! disjunct both apply to a rule.

use crate::ast::{Atom, Literal, Term};
use std::collections::{BTreeMap, BTreeSet};

/// `term` with the variables bound by `unifier` replaced, through chains of bindings.
pub(crate) fn resolve(term: &Term, unifier: &BTreeMap<String, Term>) -> Term {
    match term {
        Term::Var(v, _) => match unifier.get(v) {
            Some(bound) => resolve(bound, unifier),
            None => term.clone(),
        },
        Term::Const(..) => term.clone(),
        Term::Func(f, args, span) => Term::Func(f.clone(), args.iter().map(|a| resolve(a, unifier)).collect(), *span),
    }
}

/// Whether variable `var` occurs in `term`.
pub(crate) fn occurs(var: &str, term: &Term) -> bool {
    let mut found = false;
    term.for_each_var(&mut |v, _| found |= v == var);
    found
}

/// Extends `unifier` so that `a` and `b` become equal, if they can. Between two variables, one
/// of `own_vars` (an inlined definition's) is the one bound, so that the other side keeps its
/// names.
pub(crate) fn unify(a: &Term, b: &Term, own_vars: &BTreeSet<String>, unifier: &mut BTreeMap<String, Term>) -> bool {
    let (a, b) = (resolve(a, unifier), resolve(b, unifier));
    match (&a, &b) {
        _ if a == b => true,
        (Term::Var(x, _), Term::Var(y, _)) if x == y => true,
        (Term::Var(x, _), Term::Var(_, _)) if own_vars.contains(x) => {
            unifier.insert(x.clone(), b.clone());
            true
        }
        (_, Term::Var(y, _)) if !occurs(y, &a) => {
            unifier.insert(y.clone(), a.clone());
            true
        }
        (Term::Var(x, _), _) if !occurs(x, &b) => {
            unifier.insert(x.clone(), b.clone());
            true
        }
        (Term::Const(x, _), Term::Const(y, _)) => x == y,
        (Term::Func(f, xs, _), Term::Func(g, ys, _)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| unify(x, y, own_vars, unifier))
        }
        _ => false,
    }
}

/// `atom` with the variables bound by `unifier` replaced.
pub(crate) fn rename_atom(atom: &Atom, unifier: &BTreeMap<String, Term>) -> Atom {
    Atom { name: atom.name.clone(), args: atom.args.iter().map(|a| resolve(a, unifier)).collect(), span: atom.span }
}

/// `literal` with the variables bound by `unifier` replaced, inside `not`, `or` and `and` too.
pub(crate) fn rename_literal(literal: &Literal, unifier: &BTreeMap<String, Term>) -> Literal {
    match literal {
        Literal::Atom(a) => Literal::Atom(rename_atom(a, unifier)),
        Literal::Not(l, span) => Literal::Not(Box::new(rename_literal(l, unifier)), *span),
        Literal::Distinct(a, b, span) => Literal::Distinct(resolve(a, unifier), resolve(b, unifier), *span),
        Literal::Or(ls, span) => Literal::Or(ls.iter().map(|l| rename_literal(l, unifier)).collect(), *span),
        Literal::And(ls, span) => Literal::And(ls.iter().map(|l| rename_literal(l, unifier)).collect(), *span),
    }
}
