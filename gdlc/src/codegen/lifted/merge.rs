//! Rules that differ in one test only, joined once. An `or` of tests in a rule's body
//! (zombieAttack1PL6's `(or (not (does hero (shoot ?m ?n))) (lowerzombieincell ?m ?n ?z))`)
//! expands into one rule per disjunct, and each rule made the whole join again for its own
//! test. Rules of a component with the same head and the same body but for one literal, a test
//! in every one of them (a negation, a `distinct`, an equality, or a positive literal whose
//! arguments the literals before it bind), become one join that makes the test of each in turn
//! where they differ. Each rule derives the same facts as before: they share what they bind.

use super::joins::tests_first;
use crate::datalog::compile::{CLit, CRule};
use crate::datalog::eval::{binds_nothing, bound_by};

/// The tests of a group of rules where they differ: the position in the body of the first rule
/// (as its join orders it), and each rule's literal there, the first rule's first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Alternatives {
    pub(super) at: usize,
    pub(super) tests: Vec<CLit>,
}

/// The rules `rules` (each with its number) of a component that is not recursive, in groups
/// joined once: the numbers of each group's rules, first the one whose join it is, and the
/// tests of the group when it has more than one.
pub(super) fn merge(rules: &[(usize, &CRule)]) -> Vec<(Vec<usize>, Option<Alternatives>)> {
    let mut groups: Vec<(Vec<usize>, CRule, Option<Alternatives>)> = Vec::new();
    for &(number, rule) in rules {
        let ordered = tests_first(rule, false);
        let joined = groups.iter_mut().find_map(|(members, first, alternatives)| {
            let at = differing_test(first, &ordered)?;
            match alternatives {
                None => {
                    let tests = vec![first.body[at].clone(), ordered.body[at].clone()];
                    *alternatives = Some(Alternatives { at, tests });
                    members.push(number);
                    Some(())
                }
                Some(group) if group.at == at => {
                    group.tests.push(ordered.body[at].clone());
                    members.push(number);
                    Some(())
                }
                Some(_) => None,
            }
        });
        if joined.is_none() {
            groups.push((vec![number], ordered, None));
        }
    }
    groups.into_iter().map(|(members, _, alternatives)| (members, alternatives)).collect()
}

/// The one position where the bodies of `a` and `b` (their heads the same) differ, when both
/// literals there are tests.
fn differing_test(a: &CRule, b: &CRule) -> Option<usize> {
    if a.head != b.head || a.body.len() != b.body.len() {
        return None;
    }
    let mut differing = (0..a.body.len()).filter(|&k| a.body[k] != b.body[k]);
    let at = differing.next()?;
    if differing.next().is_some() {
        return None;
    }
    let bound = bound_by(&a.body[..at], a.num_vars.max(b.num_vars));
    (binds_nothing(&a.body[at], &bound) && binds_nothing(&b.body[at], &bound)).then_some(at)
}

#[cfg(test)]
mod tests {
    use super::merge;
    use crate::datalog::compile::{CLit, CRule, PTerm, Pattern};

    fn pattern(rel: usize, args: Vec<PTerm>) -> Pattern {
        Pattern { rel, args: args.into_boxed_slice() }
    }

    /// `h(X) :- p(X, Y), <test>, q(Y)`.
    fn rule(test: CLit) -> CRule {
        let (x, y) = (PTerm::Var(0), PTerm::Var(1));
        CRule {
            head: pattern(0, vec![x.clone()]),
            body: vec![CLit::Pos(pattern(1, vec![x, y.clone()])), test, CLit::Pos(pattern(2, vec![y]))],
            num_vars: 2,
            delta_variants: Vec::new(),
            span: Default::default(),
        }
    }

    /// The expansions of `h(X) :- p(X, Y), (or (not r(Y)) s(X, Y) (distinct X Y)), q(Y)` make one
    /// join with three tests; a rule whose differing literal binds a variable (`t(Z)`) joins
    /// none, and neither does one with another head.
    #[test]
    fn rules_that_differ_in_one_test_make_one_join() {
        let (x, y, z) = (PTerm::Var(0), PTerm::Var(1), PTerm::Var(2));
        let tests = [
            CLit::Neg(pattern(3, vec![y.clone()])),
            CLit::Pos(pattern(4, vec![x.clone(), y.clone()])),
            CLit::Distinct(x.clone(), y.clone()),
        ];
        let mut rules: Vec<CRule> = tests.iter().cloned().map(rule).collect();
        let mut binding = rule(CLit::Pos(pattern(5, vec![z])));
        binding.num_vars = 3;
        rules.push(binding);
        let mut other_head = rule(tests[0].clone());
        other_head.head = pattern(6, vec![x]);
        rules.push(other_head);
        let numbered: Vec<(usize, &CRule)> = rules.iter().enumerate().map(|(k, r)| (k + 10, r)).collect();
        let groups = merge(&numbered);
        assert_eq!(groups.len(), 3, "{groups:?}");
        let (members, alternatives) = &groups[0];
        assert_eq!(members, &[10, 11, 12]);
        let alternatives = alternatives.as_ref().expect("the three tests are joined");
        assert_eq!((alternatives.at, &alternatives.tests[..]), (1, &tests[..]));
        assert_eq!(groups[1], (vec![13], None));
        assert_eq!(groups[2], (vec![14], None));
    }
}
