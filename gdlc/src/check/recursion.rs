//! The recursion restriction (Def. 15): in a rule `p(t1..tn) <= ... q(v1..vk) ...` where `q` is
//! in a cycle with `p`, every `vj` is ground, or one of the head's arguments `ti`, or bound by a
//! positive literal `r(...)` of the body whose relation `r` is not in a cycle with `p`.
//!
//! The third case is read slightly more generously than the definition's `r(..., vj, ...)`:
//! every variable of `vj` must occur somewhere in such literals (then `vj` ranges over finitely
//! many terms, which is what the restriction is for). The check runs on every expansion of
//! `or`; a body with more than [`EXPANSION_LIMIT`] expansions, or whose expansions are larger
//! than [`EXPANSION_WORK_LIMIT`] in all, is checked conservatively (atoms inside an `or` are
//! checked, but do not bind).

use super::{expansion_count, expansions, quoted, Context};
use crate::ast::{Atom, Literal, Rule, Span, Term};
use crate::diag::Diagnostic;
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};

/// The most expansions of one body that are enumerated.
pub(super) const EXPANSION_LIMIT: usize = 256;

/// The largest size (atoms and the nodes of their terms), summed over all expansions of one
/// body, that is enumerated: the work of the exact check grows with the number of expansions
/// times the size of the body.
pub(super) const EXPANSION_WORK_LIMIT: usize = 1 << 16;

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for rule in &cx.description.rules {
        let p = rule.head.name.as_str();
        let cyclic = |q: &str| cx.deps.same_component(p, q);
        let mut any = false;
        let mut size = 0usize;
        rule.for_each_body_atom(&mut |atom, negated| {
            size += 1 + atom.args.iter().map(term_size).sum::<usize>();
            any = any || (!negated && cyclic(&atom.name));
        });
        if !any {
            continue;
        }
        let head = HeadArgs::new(&rule.head);
        let mut reported = BTreeSet::new();
        let count = expansion_count(&rule.body);
        if count <= EXPANSION_LIMIT && count.saturating_mul(size) <= EXPANSION_WORK_LIMIT {
            for body in expansions(&rule.body) {
                let atoms: Vec<&Atom> = body
                    .iter()
                    .filter_map(|l| match l {
                        Literal::Atom(a) => Some(a),
                        _ => None,
                    })
                    .collect();
                check_conjunction(&cyclic, rule, &head, &atoms, &atoms, &mut reported, out);
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
            check_conjunction(&cyclic, rule, &head, &checked, &binders, &mut reported, out);
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

fn term_size(t: &Term) -> usize {
    match t {
        Term::Var(..) | Term::Const(..) => 1,
        Term::Func(_, args, _) => 1 + args.iter().map(term_size).sum::<usize>(),
    }
}

/// Hashes a term's structure, ignoring its spans.
fn hash_term(t: &Term, h: &mut impl Hasher) {
    match t {
        Term::Var(v, _) => (0u8, v).hash(h),
        Term::Const(c, _) => (1u8, c).hash(h),
        Term::Func(f, args, _) => {
            (2u8, f, args.len()).hash(h);
            args.iter().for_each(|a| hash_term(a, h));
        }
    }
}

fn term_key(t: &Term) -> u64 {
    let mut h = DefaultHasher::new();
    hash_term(t, &mut h);
    h.finish()
}

/// The arguments of a rule's head, looked up by structure (a head can have thousands).
struct HeadArgs<'a>(HashMap<u64, Vec<&'a Term>>);

impl<'a> HeadArgs<'a> {
    fn new(head: &'a Atom) -> HeadArgs<'a> {
        let mut map: HashMap<u64, Vec<&Term>> = HashMap::new();
        for t in &head.args {
            map.entry(term_key(t)).or_default().push(t);
        }
        HeadArgs(map)
    }

    fn contains(&self, t: &Term) -> bool {
        self.0.get(&term_key(t)).is_some_and(|ts| ts.iter().any(|h| h.same_as(t)))
    }
}

fn check_conjunction(
    cyclic: &impl Fn(&str) -> bool,
    rule: &Rule,
    head: &HeadArgs<'_>,
    checked: &[&Atom],
    binders: &[&Atom],
    reported: &mut BTreeSet<Span>,
    out: &mut Vec<Diagnostic>,
) {
    let p = rule.head.name.as_str();
    let mut bound: BTreeSet<&str> = BTreeSet::new();
    for r in binders.iter().filter(|r| !cyclic(&r.name)) {
        r.for_each_var(&mut |v, _| {
            bound.insert(v);
        });
    }
    for q in checked.iter().filter(|q| cyclic(&q.name)) {
        for arg in &q.args {
            if reported.contains(&arg.span()) || arg.is_ground() || head.contains(arg) {
                continue;
            }
            let (mut unbound, mut seen): (Vec<&str>, BTreeSet<&str>) = Default::default();
            arg.for_each_var(&mut |v, _| {
                if !bound.contains(v) && seen.insert(v) {
                    unbound.push(v);
                }
            });
            if unbound.is_empty() {
                continue;
            }
            reported.insert(arg.span());
            let through = if q.name == p { String::new() } else { format!(", which is in a cycle with `{p}`,") };
            out.push(Diagnostic::error(
                arg.span(),
                format!(
                    "rule for `{p}` breaks the recursion restriction: the argument `{}` of the recursive literal \
                     `{}`{through} is not ground, not an argument of the head, and not bound outside the recursion",
                    quoted(arg),
                    quoted(q)
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

    /// A recursive literal with thousands of unbound arguments: each gets an error, and each
    /// error quoted the whole literal, so the messages grew quadratically (gigabytes for an
    /// input of 100 KB).
    #[test]
    fn errors_quote_a_large_literal_briefly() {
        let n = 2000;
        let a = vec!["a"; n].join(" ");
        let args: Vec<String> = (0..n).map(|i| format!("(f ?y{i})")).collect();
        let src =
            format!("{GOOD}(<= (p {a}) (true (cell a)))\n(<= (p {a}) (p {}))\n(<= terminal (p {a}))\n", args.join(" "));
        let diags = crate::check::check(&crate::parse::parse_auto(&src).description);
        assert_eq!(diags.iter().filter(|d| d.message.contains("breaks the recursion restriction")).count(), n);
        let out = render(&src);
        assert!(out.len() < n * 1000, "{} bytes of messages", out.len());
        assert!(out.contains("of the recursive literal `(p (f ?y0) (f ?y1) (f ?y2)"), "{}", &out[..1000]);
    }

    /// Every expansion of a body with 256 expansions and thousands of atoms was checked in full:
    /// seconds for an input of 40 KB. Such a body is now checked conservatively.
    #[test]
    fn a_large_body_with_disjunctions_is_checked_conservatively() {
        let atoms: Vec<String> = (0..5000).map(|i| format!("(succ ?v{i} b)")).collect();
        let ors = "(or (succ ?x a) (succ a b)) ".repeat(8);
        let src = format!("{GOOD}(p a)\n(<= (p ?x) (p ?x) {ors}{})\n(<= terminal (p a))\n", atoms.join(" "));
        assert_eq!(render(&src), "");
        let src =
            format!("{GOOD}(p a)\n(<= (p ?y) (p (f ?x)) (succ ?y a) {ors}{})\n(<= terminal (p a))\n", atoms.join(" "));
        assert_eq!(render(&src).matches("argument `(f ?x)`").count(), 1, "{}", render(&src));
    }

    /// Each argument of a recursive literal was compared with each argument of the head.
    #[test]
    fn a_head_with_many_arguments_is_matched_by_structure() {
        let vars: Vec<String> = (0..3000).map(|i| format!("(g ?v{i})")).collect();
        let vars = vars.join(" ");
        let src = format!("{GOOD}(<= (p {vars}) (p {vars}))\n(<= terminal (p {vars}))\n");
        assert!(!render(&src).contains("recursion restriction"));
    }
}
