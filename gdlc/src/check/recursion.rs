//! The recursion restriction (Def. 15): in a rule `p(t1..tn) <= ... q(v1..vk) ...` where `q` is
//! in a cycle with `p`, every `vj` is ground, or one of the head's arguments `ti`, or bound by a
//! positive literal `r(...)` of the body whose relation `r` is not in a cycle with `p`.
//!
//! The third case is read slightly more generously than the definition's `r(..., vj, ...)`:
//! every variable of `vj` must occur somewhere in such literals (then `vj` ranges over finitely
//! many terms, which is what the restriction is for). The check runs on every expansion of
//! `or`; a body with more than [`EXPANSION_LIMIT`] expansions is checked conservatively (atoms
//! inside an `or` are checked, but do not bind).

use super::{expansion_count, expansions, Context};
use crate::ast::{Atom, Literal, Rule, Span, Term};
use crate::diag::Diagnostic;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// The most expansions of one body that are enumerated.
pub const EXPANSION_LIMIT: usize = 256;

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let cycles = Cycles { cx, cache: RefCell::new(BTreeMap::new()) };
    for rule in &cx.description.rules {
        let mut any = false;
        rule.for_each_body_atom(&mut |atom, negated| any |= !negated && cycles.with(&rule.head.name, &atom.name));
        if !any {
            continue;
        }
        let mut reported = BTreeSet::new();
        if expansion_count(&rule.body) <= EXPANSION_LIMIT {
            for body in expansions(&rule.body) {
                let atoms: Vec<&Atom> = body
                    .iter()
                    .filter_map(|l| match l {
                        Literal::Atom(a) => Some(a),
                        _ => None,
                    })
                    .collect();
                check_conjunction(&cycles, rule, &atoms, &atoms, &mut reported, out);
            }
        } else {
            let mut checked = Vec::new();
            rule.for_each_body_atom(&mut |atom, negated| {
                if !negated {
                    checked.push(atom);
                }
            });
            let mut binders = Vec::new();
            conjunctive_atoms(&rule.body, &mut binders);
            check_conjunction(&cycles, rule, &checked, &binders, &mut reported, out);
        }
    }
}

/// The atoms that occur in every expansion of `body`: those reached through `and` only.
fn conjunctive_atoms<'a>(body: &'a [Literal], out: &mut Vec<&'a Atom>) {
    for l in body {
        match l {
            Literal::Atom(a) => out.push(a),
            Literal::And(ls, _) => conjunctive_atoms(ls, out),
            Literal::Or(ls, _) if ls.len() == 1 => conjunctive_atoms(ls, out),
            _ => {}
        }
    }
}

/// Which relations are in a cycle with which, asked of the dependency graph once per pair.
struct Cycles<'c, 'a> {
    cx: &'c Context<'a>,
    cache: RefCell<BTreeMap<(String, String), bool>>,
}

impl Cycles<'_, '_> {
    fn with(&self, p: &str, q: &str) -> bool {
        let key = (p.to_string(), q.to_string());
        if let Some(&b) = self.cache.borrow().get(&key) {
            return b;
        }
        let b = self.cx.deps.same_component(p, q);
        self.cache.borrow_mut().insert(key, b);
        b
    }
}

/// Structural equality, ignoring spans.
fn same_term(a: &Term, b: &Term) -> bool {
    match (a, b) {
        (Term::Var(x, _), Term::Var(y, _)) | (Term::Const(x, _), Term::Const(y, _)) => x == y,
        (Term::Func(f, xs, _), Term::Func(g, ys, _)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_term(x, y))
        }
        _ => false,
    }
}

fn check_conjunction(
    cycles: &Cycles<'_, '_>,
    rule: &Rule,
    checked: &[&Atom],
    binders: &[&Atom],
    reported: &mut BTreeSet<Span>,
    out: &mut Vec<Diagnostic>,
) {
    let p = rule.head.name.as_str();
    let mut bound: BTreeSet<&str> = BTreeSet::new();
    for r in binders.iter().filter(|r| !cycles.with(p, &r.name)) {
        r.for_each_var(&mut |v, _| {
            bound.insert(v);
        });
    }
    for q in checked.iter().filter(|q| cycles.with(p, &q.name)) {
        for arg in &q.args {
            if arg.is_ground() || rule.head.args.iter().any(|t| same_term(t, arg)) {
                continue;
            }
            let mut unbound: Vec<&str> = Vec::new();
            arg.for_each_var(&mut |v, _| {
                if !bound.contains(v) && !unbound.contains(&v) {
                    unbound.push(v);
                }
            });
            if unbound.is_empty() || !reported.insert(arg.span()) {
                continue;
            }
            let through = if q.name == p { String::new() } else { format!(", which is in a cycle with `{p}`,") };
            out.push(Diagnostic::error(
                arg.span(),
                format!(
                    "rule for `{p}` breaks the recursion restriction: the argument `{arg}` of the recursive literal \
                     `{q}`{through} is not ground, not an argument of the head, and not bound outside the recursion"
                ),
                format!(
                    "bind {} with a positive literal whose relation does not depend on `{p}`, so that terms cannot grow \
                     without bound",
                    unbound.iter().map(|v| format!("`?{v}`")).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::check::tests::{render, GOOD};

    #[test]
    fn reports_a_growing_argument() {
        let src = format!("{GOOD}(num z)\n(<= (num ?x) (num (s ?x)))\n");
        assert_eq!(
            render(&src),
            "bad.kif:10:19: error: rule for `num` breaks the recursion restriction: the argument `(s ?x)` of the \
             recursive literal `(num (s ?x))` is not ground, not an argument of the head, and not bound outside \
             the recursion\n  hint: bind `?x` with a positive literal whose relation does not depend on `num`, so \
             that terms cannot grow without bound\n"
        );
    }

    #[test]
    fn reports_mutual_recursion_and_checks_every_expansion() {
        let src = format!("{GOOD}(p a)\n(<= (q ?x) (p ?x))\n(<= (p ?y) (or (q ?y) (and (q (f ?y)) (succ ?z a))))\n");
        assert_eq!(
            render(&src),
            "bad.kif:11:31: error: rule for `p` breaks the recursion restriction: the argument `(f ?y)` of the \
             recursive literal `(q (f ?y))`, which is in a cycle with `p`, is not ground, not an argument of the \
             head, and not bound outside the recursion\n  hint: bind `?y` with a positive literal whose relation \
             does not depend on `p`, so that terms cannot grow without bound\n"
        );
    }

    #[test]
    fn accepts_head_arguments_ground_terms_and_bound_variables() {
        let src = format!(
            "{GOOD}(r 0 0)\n(q 0)\n(<= (r ?v1 (f ?v1)) (r ?v2 ?v1) (q ?v2))\n\
             (<= (reach ?x ?y) (succ ?x ?y))\n(<= (reach ?x ?z) (reach ?x ?y) (succ ?y ?z) (reach a b))\n"
        );
        assert_eq!(render(&src), "");
    }

    #[test]
    fn many_disjunctions_are_checked_conservatively() {
        let src = format!("{GOOD}(p a)\n(<= (p ?x) (p (f ?x)) {})\n", "(or (succ ?y a) (succ a ?y)) ".repeat(20));
        assert!(render(&src).contains("argument `(f ?x)`"), "{}", render(&src));
    }
}
