//! Never-changing fluents: finds the fluents that every state copies unchanged to the next and
//! reads them as a static relation (their `init` facts), so that their negations stay exact.
//!
//! A fluent `f/n` never changes when a rule `(<= (next (f ?x1 … ?xn)) (true (f ?x1 … ?xn)))`
//! copies every `f` fact, and every other `next` rule that can make an `f` fact keeps only a
//! current one (its body has `(true t)` for its own head term `t`). Then the `f` facts of every
//! state are the initial ones, and `(true (f …))` is replaced by [`CONSTANT_TRUE`], defined from
//! `init`. The fluents stay base facts of the state (their `next` is then a constant); every
//! rule that reads them folds to what the initial state says.

use crate::ast::{Atom, Description, Literal, Rule, Span, Term};
use std::collections::BTreeSet;

/// The static relation that stands for `true` on never-changing fluents; its name contains
/// parentheses and a space, so no symbol of a game can spell it.
pub const CONSTANT_TRUE: &str = "(constant true)";

/// A fluent's function symbol (or constant) and arity.
type Fluent = (String, usize);

fn fluent_of(term: &Term) -> Option<Fluent> {
    match term {
        Term::Const(c, _) => Some((c.clone(), 0)),
        Term::Func(f, args, _) => Some((f.clone(), args.len())),
        Term::Var(..) => None,
    }
}

/// The fluents whose facts never change, sorted.
pub fn constant_fluents(description: &Description) -> BTreeSet<Fluent> {
    let mut copied = BTreeSet::new();
    let mut changed = BTreeSet::new();
    for rule in description.rules.iter().filter(|r| r.head.name == "next" && r.head.args.len() == 1) {
        let made = &rule.head.args[0];
        let reads_itself = |l: &Literal| matches!(l, Literal::Atom(a) if a.name == "true" && a.args.len() == 1 && a.args[0].same_as(made));
        let args = match made {
            Term::Func(_, args, _) => Some(args.as_slice()),
            Term::Const(..) => Some(&[][..]),
            Term::Var(..) => None,
        };
        if let (Some(args), [only]) = (args, rule.body.as_slice()) {
            let vars: BTreeSet<&str> =
                args.iter().filter_map(|a| if let Term::Var(v, _) = a { Some(v.as_str()) } else { None }).collect();
            if reads_itself(only) && vars.len() == args.len() {
                copied.extend(fluent_of(made));
                continue;
            }
        }
        if rule.body.iter().any(reads_itself) {
            // Keeps a current fact or nothing.
            continue;
        }
        match fluent_of(made) {
            Some(f) => {
                changed.insert(f);
            }
            // `(next ?x)` can make any fluent.
            None => return BTreeSet::new(),
        }
    }
    copied.difference(&changed).cloned().collect()
}

/// The description with `(true t)` replaced by [`CONSTANT_TRUE`] for every never-changing
/// fluent `t`, and the rules that define it from `init`; unchanged when there is none.
pub fn fold(description: Description) -> Description {
    let constant = constant_fluents(&description);
    if constant.is_empty() {
        return description;
    }
    let span = Span::default();
    let mut rules: Vec<Rule> = description
        .rules
        .into_iter()
        .map(|mut rule| {
            rule.body.iter_mut().for_each(|l| rename(l, &constant));
            rule
        })
        .collect();
    for (f, n) in &constant {
        let term = match n {
            0 => Term::Const(f.clone(), span),
            _ => Term::Func(f.clone(), (0..*n).map(|i| Term::Var(format!("x{i}"), span)).collect(), span),
        };
        let atom = |name: &str| Atom { name: name.to_string(), args: vec![term.clone()], span };
        rules.push(Rule { head: atom(CONSTANT_TRUE), body: vec![Literal::Atom(atom("init"))], span });
    }
    Description { rules }
}

fn rename(literal: &mut Literal, constant: &BTreeSet<Fluent>) {
    match literal {
        Literal::Atom(a) => {
            if a.name == "true" && a.args.len() == 1 && fluent_of(&a.args[0]).is_some_and(|f| constant.contains(&f)) {
                a.name = CONSTANT_TRUE.to_string();
            }
        }
        Literal::Not(inner, _) => rename(inner, constant),
        Literal::Distinct(..) => {}
        Literal::Or(ls, _) | Literal::And(ls, _) => ls.iter_mut().for_each(|l| rename(l, constant)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, Syntax};

    fn constant(text: &str) -> Vec<String> {
        constant_fluents(&parse(text, Syntax::Kif).description).into_iter().map(|(f, n)| format!("{f}/{n}")).collect()
    }

    #[test]
    fn a_fluent_copied_unchanged_is_constant() {
        let text = "(<= (next (wall ?x ?y)) (true (wall ?x ?y)))
            (<= (next (at ?x)) (true (at ?y)) (succ ?y ?x))
            (<= (next lit) (true lit))";
        assert_eq!(constant(text), ["lit/0", "wall/2"]);
    }

    #[test]
    fn a_fluent_also_made_otherwise_is_not() {
        // Another rule adds walls; a copy with conditions is not a copy of every fact.
        let text = "(<= (next (wall ?x ?y)) (true (wall ?x ?y)))
            (<= (next (wall ?x ?x)) (does a (build ?x)))
            (<= (next (door ?x)) (true (door ?x)) (not (does a (open ?x))))
            (<= (next (pit ?x ?x)) (true (pit ?x ?x)))";
        assert_eq!(constant(text), Vec::<String>::new());
    }

    #[test]
    fn a_rule_that_keeps_a_current_fact_does_not_change_it() {
        let text = "(<= (next (wall ?x ?y)) (true (wall ?x ?y)))
            (<= (next (wall ?x ?y)) (true (wall ?x ?y)) (does a noop))
            (<= (next ?f) (true ?f) (not (gone ?f)))";
        assert_eq!(constant(text), ["wall/2"]);
    }

    #[test]
    fn a_next_rule_that_can_make_anything_leaves_nothing_constant() {
        let text = "(<= (next (wall ?x ?y)) (true (wall ?x ?y))) (<= (next ?f) (made ?f))";
        assert_eq!(constant(text), Vec::<String>::new());
    }

    #[test]
    fn reads_of_constant_fluents_become_the_static_relation() {
        let text = "(init (wall 1 2)) (<= (next (wall ?x ?y)) (true (wall ?x ?y)))
            (<= (free ?x ?y) (cell ?x ?y) (not (true (wall ?x ?y))) (true (at ?x)))";
        let folded = fold(parse(text, Syntax::Kif).description);
        let shown: Vec<String> = folded
            .rules
            .iter()
            .map(|r| {
                let mut atoms = Vec::new();
                r.for_each_body_atom(&mut |a, negated| atoms.push(format!("{}{a}", if negated { "~" } else { "" })));
                format!("{} <- {}", r.head, atoms.join(" "))
            })
            .collect();
        assert_eq!(
            shown,
            [
                "(init (wall 1 2)) <- ",
                "(next (wall ?x ?y)) <- ((constant true) (wall ?x ?y))",
                "(free ?x ?y) <- (cell ?x ?y) ~((constant true) (wall ?x ?y)) (true (at ?x))",
                "((constant true) (wall ?x0 ?x1)) <- (init (wall ?x0 ?x1))",
            ]
        );
    }
}
