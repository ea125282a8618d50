//! Expansion of `or` for the interpreter and the lifted form: a rule with disjunctions becomes
//! one plain conjunctive rule per choice of a disjunct in every `or` (Def. 18), each `and`
//! spliced into the conjunction around it. A `distinct` disjunct is denied in the expansions of
//! the disjuncts after it, so that where several disjuncts hold, the head is derived once
//! rather than once per disjunct that holds.

use crate::ast::{Description, Literal, Rule, Term};
use crate::unify::{rename_atom, rename_literal, unify};
use std::collections::{BTreeMap, BTreeSet};

/// The rules of `description` with every `or` expanded, disjuncts in order (the first `or` of a
/// body varying slowest). The expansion of a disjunct that follows `(distinct s t)` has `s` and
/// `t` unified: it is needed only where they are equal, since the expansion of the `distinct`
/// covers the rest. Where `s` and `t` cannot be unified, the `distinct` always holds and the
/// disjuncts after it are left out. So `(or (distinct ?x 0) (distinct ?y 0))` expands to
/// `(distinct ?x 0)`, then `(distinct ?y 0)` with `?x` bound to `0`.
pub(super) fn expand_ors(description: &Description) -> Description {
    let mut rules = Vec::with_capacity(description.rules.len());
    for rule in &description.rules {
        expand(rule.clone(), &mut rules);
    }
    Description { rules }
}

/// Appends the expansions of `rule` to `out`: its first `or` or `and` of the body replaced,
/// then the rest of each expansion expanded in turn.
fn expand(rule: Rule, out: &mut Vec<Rule>) {
    let Some(at) = rule.body.iter().position(|l| matches!(l, Literal::Or(..) | Literal::And(..))) else {
        out.push(rule);
        return;
    };
    let disjuncts = match &rule.body[at] {
        Literal::Or(disjuncts, _) => disjuncts.as_slice(),
        conjunction => std::slice::from_ref(conjunction),
    };
    let mut denied = BTreeMap::new();
    for disjunct in disjuncts {
        expand(chosen(&rule, at, disjunct, &denied), out);
        if let Literal::Distinct(a, b, _) = disjunct {
            if !unify(a, b, &BTreeSet::new(), &mut denied) {
                break;
            }
        }
    }
}

/// `rule` with its body literal `at` replaced by `disjunct` (an `and` spliced in), and the
/// bindings of `denied` applied to the whole rule.
fn chosen(rule: &Rule, at: usize, disjunct: &Literal, denied: &BTreeMap<String, Term>) -> Rule {
    let mut body = Vec::with_capacity(rule.body.len());
    for (k, literal) in rule.body.iter().enumerate() {
        if k == at {
            splice(disjunct, denied, &mut body);
        } else {
            body.push(rename_literal(literal, denied));
        }
    }
    Rule { head: rename_atom(&rule.head, denied), body, span: rule.span }
}

/// Appends `literal` to `body`, the literals of an `and` one by one, with `denied` applied.
fn splice(literal: &Literal, denied: &BTreeMap<String, Term>, body: &mut Vec<Literal>) {
    match literal {
        Literal::And(conjuncts, _) => conjuncts.iter().for_each(|c| splice(c, denied, body)),
        _ => body.push(rename_literal(literal, denied)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, Syntax};

    fn expanded(text: &str) -> Vec<String> {
        crate::print::kif_lines(expand_ors(&parse(text, Syntax::Kif).description).rules)
    }

    #[test]
    fn a_distinct_disjunct_is_denied_in_the_expansions_after_it() {
        // racer's legal speeds: one speed of two nonzero parts is derived by one rule, not two.
        let rules = expanded("(<= (speed ?x ?y) (pm ?x) (pm ?y) (or (distinct ?x p0) (distinct ?y p0)))");
        assert_eq!(
            rules,
            [
                "(<= (speed ?x ?y) (pm ?x) (pm ?y) (distinct ?x p0))",
                "(<= (speed p0 ?y) (pm p0) (pm ?y) (distinct ?y p0))"
            ]
        );
    }

    #[test]
    fn a_distinct_of_two_variables_binds_one_to_the_other() {
        let rules =
            expanded("(<= (moved ?x ?y ?tx ?ty) (cell ?x ?y) (to ?tx ?ty) (or (distinct ?x ?tx) (distinct ?y ?ty)))");
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[1], "(<= (moved ?x ?y ?x ?ty) (cell ?x ?y) (to ?x ?ty) (distinct ?y ?ty))");
    }

    #[test]
    fn a_distinct_that_always_holds_leaves_out_the_disjuncts_after_it() {
        let rules = expanded("(<= (p ?x) (q ?x) (or (distinct a b) (r ?x) (s ?x)))");
        assert_eq!(rules, ["(<= (p ?x) (q ?x) (distinct a b))"]);
    }

    #[test]
    fn other_disjuncts_expand_as_they_are_with_and_spliced_and_nested_or_expanded() {
        let rules = expanded("(<= (p ?x) (q ?x) (or (r ?x) (and (s ?x) (or (t ?x) (u ?x)))) (v ?x))");
        assert_eq!(
            rules,
            [
                "(<= (p ?x) (q ?x) (r ?x) (v ?x))",
                "(<= (p ?x) (q ?x) (s ?x) (t ?x) (v ?x))",
                "(<= (p ?x) (q ?x) (s ?x) (u ?x) (v ?x))"
            ]
        );
    }

    #[test]
    fn an_empty_or_leaves_no_rule() {
        let mut description = parse("(<= (p ?x) (q ?x))", Syntax::Kif).description;
        let span = description.rules[0].span;
        description.rules[0].body.push(Literal::Or(Vec::new(), span));
        assert!(expand_ors(&description).rules.is_empty());
    }
}
