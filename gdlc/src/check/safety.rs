//! Safety (Defs. 6 and 18): every variable of the head, of a negative literal or of a
//! `distinct` occurs in a positive literal of the body, in every rule that expanding `or` gives.
//!
//! The expansions are not enumerated (there can be exponentially many): for each variable, the
//! body is folded into the few outcomes a choice of disjuncts can have (whether the variable is
//! needed, and whether it is bound), which is exact. The folds of all variables are made in one
//! pass over the body, each literal contributing only to the variables that occur in it.

use super::Context;
use crate::ast::{Literal, Rule, Span};
use crate::diag::Diagnostic;
use std::collections::BTreeMap;

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let used = cx.used_by_game();
    for rule in &cx.description.rules {
        check_rule(rule, used.contains(rule.head.name.as_str()), out);
    }
}

/// Why a variable must be bound: where it occurs first in the chosen expansion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    Head,
    Negated,
    Distinct,
}

/// One possible outcome of a choice of disjuncts, for one variable.
#[derive(Clone, Copy, Debug)]
struct Outcome {
    /// The first occurrence that needs the variable bound, if any.
    needed: Option<(Span, Need)>,
    /// Whether a positive atom binds it.
    bound: bool,
}

fn earliest(a: Option<(Span, Need)>, b: Option<(Span, Need)>) -> Option<(Span, Need)> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.0.start < x.0.start { y } else { x }),
        (x, None) => x,
        (None, y) => y,
    }
}

/// Adds an outcome, merging it with one of the same kind (keeping the earliest occurrence).
fn add(set: &mut Vec<Outcome>, o: Outcome) {
    match set.iter_mut().find(|e| e.needed.is_some() == o.needed.is_some() && e.bound == o.bound) {
        Some(e) => e.needed = earliest(e.needed, o.needed),
        None => set.push(o),
    }
}

fn conjunction(a: &[Outcome], b: &[Outcome]) -> Vec<Outcome> {
    let mut set = Vec::new();
    for x in a {
        for y in b {
            add(&mut set, Outcome { needed: earliest(x.needed, y.needed), bound: x.bound || y.bound });
        }
    }
    set
}

fn first_occurrence(l: &Literal, var: &str) -> Option<Span> {
    let mut first = None;
    l.for_each_var(&mut |v, s| {
        if v == var && first.is_none() {
            first = Some(s);
        }
    });
    first
}

fn outcomes(l: &Literal, var: &str) -> Vec<Outcome> {
    match l {
        Literal::Atom(a) => {
            let mut bound = false;
            a.for_each_var(&mut |v, _| bound |= v == var);
            vec![Outcome { needed: None, bound }]
        }
        Literal::Not(..) => {
            vec![Outcome { needed: first_occurrence(l, var).map(|s| (s, Need::Negated)), bound: false }]
        }
        Literal::Distinct(..) => {
            vec![Outcome { needed: first_occurrence(l, var).map(|s| (s, Need::Distinct)), bound: false }]
        }
        Literal::Or(ls, _) => {
            let mut set = Vec::new();
            for o in ls.iter().flat_map(|l| outcomes(l, var)) {
                add(&mut set, o);
            }
            set
        }
        Literal::And(ls, _) => body_outcomes(ls, var, Outcome { needed: None, bound: false }),
    }
}

fn body_outcomes(body: &[Literal], var: &str, start: Outcome) -> Vec<Outcome> {
    body.iter().fold(vec![start], |acc, l| conjunction(&acc, &outcomes(l, var)))
}

/// The outcome of a literal for a variable that does not occur in it.
const ABSENT: Outcome = Outcome { needed: None, bound: false };

/// [`outcomes`] for every variable at once: the outcomes of each variable that occurs in `l`
/// (any other variable has the one outcome [`ABSENT`]). Asking [`outcomes`] once per variable
/// made the check quadratic in the size of a rule with many variables.
fn all_outcomes(l: &Literal) -> BTreeMap<&str, Vec<Outcome>> {
    let mut map: BTreeMap<&str, Vec<Outcome>> = BTreeMap::new();
    match l {
        Literal::Atom(a) => a.for_each_var(&mut |v, _| {
            map.entry(v).or_insert_with(|| vec![Outcome { needed: None, bound: true }]);
        }),
        Literal::Not(..) | Literal::Distinct(..) => {
            let need = if matches!(l, Literal::Not(..)) { Need::Negated } else { Need::Distinct };
            l.for_each_var(&mut |v, s| {
                map.entry(v).or_insert_with(|| vec![Outcome { needed: Some((s, need)), bound: false }]);
            });
        }
        Literal::Or(ls, _) => {
            let mut occurs: BTreeMap<&str, usize> = BTreeMap::new();
            for child in ls {
                for (v, set) in all_outcomes(child) {
                    *occurs.entry(v).or_default() += 1;
                    let entry = map.entry(v).or_default();
                    set.into_iter().for_each(|o| add(entry, o));
                }
            }
            // A disjunct without the variable is a choice in which it is neither needed nor bound.
            for (v, n) in occurs {
                if n < ls.len() {
                    add(map.get_mut(v).expect("collected above"), ABSENT);
                }
            }
        }
        Literal::And(ls, _) => return all_body_outcomes(ls),
    }
    map
}

/// [`body_outcomes`] for every variable of `body` at once, each starting from [`ABSENT`].
fn all_body_outcomes(body: &[Literal]) -> BTreeMap<&str, Vec<Outcome>> {
    let mut map: BTreeMap<&str, Vec<Outcome>> = BTreeMap::new();
    for l in body {
        for (v, set) in all_outcomes(l) {
            let entry = map.entry(v).or_insert_with(|| vec![ABSENT]);
            *entry = conjunction(entry, &set);
        }
    }
    map
}

/// Keyword relations whose first argument is a role: the game asks for them one role at a time,
/// so engines such as ggp-base's prover read a variable there as ranging over the roles.
const ROLE_FIRST: &[&str] = &["legal", "goal", "sees", "input"];

/// The variable in the role position of a `legal`, `goal`, `sees` or `input` head that the body
/// does not bind (in some expansion of `or`). The rule is not safe as written, but it is accepted
/// with a warning, reading the variable as ranging over the roles: an evaluator should add
/// `(role ?v)` to the body.
pub fn unbound_role_variable(rule: &Rule) -> Option<&str> {
    if !ROLE_FIRST.contains(&rule.head.name.as_str()) {
        return None;
    }
    let Some(crate::ast::Term::Var(v, span)) = rule.head.args.first() else { return None };
    let set = body_outcomes(&rule.body, v, Outcome { needed: Some((*span, Need::Head)), bound: false });
    set.iter().any(|o| !o.bound).then_some(v.as_str())
}

fn check_rule(rule: &Rule, used: bool, out: &mut Vec<Diagnostic>) {
    // Every variable of the rule, with its first occurrence in the head.
    let mut vars: BTreeMap<&str, Option<Span>> = BTreeMap::new();
    rule.head.for_each_var(&mut |v, s| {
        vars.entry(v).or_insert(Some(s));
    });
    let body = all_body_outcomes(&rule.body);
    for &v in body.keys() {
        vars.entry(v).or_insert(None);
    }
    let role_var = unbound_role_variable(rule);
    let name = &rule.head.name;
    if let Some(var) = role_var {
        let span = rule.head.args[0].span();
        out.push(Diagnostic::warning(
            span,
            format!(
                "unsafe rule for `{name}`: the role variable `?{var}` does not occur in a positive literal of the \
                 body; it is read as ranging over the roles"
            ),
            format!("add `(role ?{var})` to the body"),
        ));
    }
    for (var, head) in vars {
        if role_var == Some(var) {
            continue;
        }
        // Only the outcomes where the variable is needed but not bound matter.
        let start = [Outcome { needed: head.map(|s| (s, Need::Head)), bound: false }];
        let set = match body.get(var) {
            Some(set) => conjunction(&start, set),
            None => start.to_vec(),
        };
        let Some((span, need)) = set.iter().filter(|o| !o.bound).find_map(|o| o.needed) else {
            continue;
        };
        // A rule the game never uses cannot affect play: ggp-base's prover accepts such rules,
        // so they are only warned about (and an evaluator can skip them).
        let report = |message: String, hint: String| {
            if used {
                Diagnostic::error(span, message, hint)
            } else {
                let hint = format!("`{name}` is not used by the game, so this rule is ignored; {hint}");
                Diagnostic::warning(span, message, hint)
            }
        };
        if rule.is_fact() {
            out.push(report(
                format!("unsafe fact for `{name}`: a fact cannot contain the variable `?{var}`"),
                format!("facts are ground; write one fact per value of `?{var}`, or a rule whose body binds it"),
            ));
            continue;
        }
        let place = match need {
            Need::Head => "in the head",
            Need::Negated => "in a negated literal",
            Need::Distinct => "in `distinct`",
        };
        let (message, hint) = if set.iter().any(|o| o.bound) {
            (
                format!(
                    "unsafe rule for `{name}`: variable `?{var}` {place} does not occur in a positive literal \
                     in every alternative of the body's `or`"
                ),
                format!("bind `?{var}` in every disjunct of the `or`, or in a positive literal outside it"),
            )
        } else {
            (
                format!("unsafe rule for `{name}`: variable `?{var}` {place} does not occur in a positive literal of the body"),
                format!("bind `?{var}` with a positive literal, such as a relation listing its possible values"),
            )
        };
        out.push(report(message, hint));
    }
}

#[cfg(test)]
mod tests {
    use crate::check::tests::{render, GOOD};

    #[test]
    fn reports_an_unbound_head_variable() {
        let src = format!("{GOOD}(<= (p ?x ?y) (succ ?x ?z))\n(<= terminal (p a b))\n");
        assert_eq!(
            render(&src),
            "bad.kif:9:11: error: unsafe rule for `p`: variable `?y` in the head does not occur in a positive \
             literal of the body\n  hint: bind `?y` with a positive literal, such as a relation listing its \
             possible values\n"
        );
    }

    #[test]
    fn reports_negated_and_distinct_variables() {
        let src = "(<= (p a) (succ a b) (not (succ ?x b)) (distinct ?z a))\n(<= terminal (p a))";
        let out = render(&format!("{GOOD}{src}\n"));
        assert!(out.contains("bad.kif:9:33: error: unsafe rule for `p`: variable `?x` in a negated literal"), "{out}");
        assert!(out.contains("bad.kif:9:50: error: unsafe rule for `p`: variable `?z` in `distinct`"), "{out}");
    }

    #[test]
    fn every_expansion_of_or_must_be_safe() {
        let src = format!("{GOOD}(<= (p ?x) (or (succ ?x b) (true (cell a))))\n(<= terminal (p a))\n");
        assert_eq!(
            render(&src),
            "bad.kif:9:8: error: unsafe rule for `p`: variable `?x` in the head does not occur in a positive \
             literal in every alternative of the body's `or`\n  hint: bind `?x` in every disjunct of the `or`, \
             or in a positive literal outside it\n"
        );
        let ok = format!(
            "{GOOD}(<= (p ?x) (or (succ ?x b) (and (true (cell ?x)) (succ a ?y))) (not (succ ?x ?x)))\n\
             (<= terminal (p a))\n"
        );
        assert_eq!(render(&ok), "");
    }

    #[test]
    fn facts_must_be_ground() {
        assert_eq!(
            render(&format!("{GOOD}(p ?x)\n(<= terminal (p a))\n")),
            "bad.kif:9:4: error: unsafe fact for `p`: a fact cannot contain the variable `?x`\n  hint: facts are \
             ground; write one fact per value of `?x`, or a rule whose body binds it\n"
        );
    }

    #[test]
    fn an_unsafe_rule_the_game_never_uses_is_a_warning() {
        assert_eq!(
            render(&format!("{GOOD}(<= (p ?x) (distinct ?x a))\n")),
            "bad.kif:9:8: warning: unsafe rule for `p`: variable `?x` in the head does not occur in a positive \
             literal of the body\n  hint: `p` is not used by the game, so this rule is ignored; bind `?x` with a \
             positive literal, such as a relation listing its possible values\n"
        );
    }

    #[test]
    fn an_unbound_role_variable_is_a_warning() {
        assert_eq!(
            render(&format!("{GOOD}(<= (legal ?p ?p) (true (cell a)))\n(<= (goal ?r 50) (not (succ ?r b)))\n")),
            "bad.kif:9:12: warning: unsafe rule for `legal`: the role variable `?p` does not occur in a positive \
             literal of the body; it is read as ranging over the roles\n  hint: add `(role ?p)` to the body\n\
             bad.kif:10:11: warning: unsafe rule for `goal`: the role variable `?r` does not occur in a positive \
             literal of the body; it is read as ranging over the roles\n  hint: add `(role ?r)` to the body\n"
        );
    }

    #[test]
    fn many_disjunctions_do_not_blow_up() {
        let src = format!("{GOOD}(<= (p ?x) {})\n(<= terminal (p a))\n", "(or (succ ?x a) (succ a ?x)) ".repeat(200));
        assert_eq!(render(&src), "");
    }

    /// The outcomes of each variable were folded over the whole body, one variable at a time:
    /// quadratic in the size of a rule with thousands of variables (seconds for 90 KB).
    #[test]
    fn a_rule_with_many_variables_is_checked_in_one_pass() {
        let n = 5000;
        let vars: Vec<String> = (0..n).map(|i| format!("?v{i}")).collect();
        let bound: Vec<String> = (0..n).map(|i| format!("(succ ?v{i} b)")).collect();
        let src = format!("{GOOD}(<= (p (m {})) {})\n(<= terminal (p a))\n", vars.join(" "), bound.join(" "));
        assert_eq!(render(&src), "");
        let negated: Vec<String> = (0..n).map(|i| format!("(not (succ ?v{i} b))")).collect();
        let src = format!("{GOOD}(<= (p ?x) (succ ?x b) {})\n(<= terminal (p a))\n", negated.join(" "));
        let diags = crate::check::check(&crate::parse::parse_auto(&src).description);
        assert_eq!(diags.iter().filter(|d| d.message.contains("in a negated literal does not occur")).count(), n);
    }

    #[test]
    fn a_variable_missing_from_some_disjuncts_is_unbound_there() {
        let src = format!("{GOOD}(<= (p ?x) (or (succ ?x b) (succ a b) (succ ?x a)))\n(<= terminal (p a))\n");
        assert!(render(&src).contains("in every alternative of the body's `or`"), "{}", render(&src));
        let src = format!("{GOOD}(<= (p ?x) (or (succ ?x b) (and (succ a b) (succ ?x a))))\n(<= terminal (p a))\n");
        assert_eq!(render(&src), "");
    }
}
