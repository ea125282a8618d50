//! Splitting a relation by a constant argument: `(<= (goal r 100) (not (goal r 0)))` is not
//! stratified as GDL defines it (whole relations), but it is once each goal value is a relation
//! of its own. Engines that evaluate per ground atom (ggp-base's prover) play such games, so the
//! checks accept them with a warning and the evaluators run the split rules.

use crate::ast::{Atom, Description, Literal, Rule, Term};
use crate::graph::Dependencies;
use std::collections::BTreeSet;

/// A relation split by the constant at one argument position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    pub relation: String,
    /// The 0-based argument position whose constant names each part.
    pub position: usize,
}

/// The name of the part of `relation` with `value` at `position`; it contains parentheses, so
/// no symbol of a game can spell it.
fn part_name(relation: &str, position: usize, value: &str) -> String {
    format!("{relation}({}={value})", position + 1)
}

/// When the rules have a cycle through negation that splitting one relation by one constant
/// argument removes, returns the split rules and the split made.
pub fn stratify_by_splitting(description: &Description) -> Option<(Description, Split)> {
    let cycle = Dependencies::build(description).negative_cycle()?;
    let relations: BTreeSet<&str> = cycle.iter().map(String::as_str).collect();
    for relation in relations {
        let Some(arity) = description.rules.iter().find(|r| r.head.name == relation).map(|r| r.head.args.len()) else {
            continue;
        };
        for position in 0..arity {
            if let Some(split) = split(description, relation, position) {
                if Dependencies::build(&split).negative_cycle().is_none() {
                    return Some((split, Split { relation: relation.to_string(), position }));
                }
            }
        }
    }
    None
}

/// Splits `relation` by its argument at `position`, if every rule for it has a constant there.
fn split(description: &Description, relation: &str, position: usize) -> Option<Description> {
    let mut values = BTreeSet::new();
    for rule in description.rules.iter().filter(|r| r.head.name == relation) {
        match rule.head.args.get(position) {
            Some(Term::Const(c, _)) => values.insert(c.clone()),
            _ => return None,
        };
    }
    let rename = |atom: &Atom| -> Atom {
        match atom.args.get(position) {
            Some(Term::Const(c, _)) if atom.name == relation => {
                Atom { name: part_name(relation, position, c), args: atom.args.clone(), span: atom.span }
            }
            _ => atom.clone(),
        }
    };
    let mut rules: Vec<Rule> = description
        .rules
        .iter()
        .map(|r| Rule {
            head: rename(&r.head),
            body: r.body.iter().map(|l| rename_literal(l, &rename)).collect(),
            span: r.span,
        })
        .collect();
    // The relation itself is the union of its parts.
    let some_rule = description.rules.iter().find(|r| r.head.name == relation)?;
    let (arity, span) = (some_rule.head.args.len(), some_rule.span);
    for value in &values {
        let args: Vec<Term> = (0..arity)
            .map(|i| if i == position { Term::Const(value.clone(), span) } else { Term::Var(format!("a{i}"), span) })
            .collect();
        let part = Atom { name: part_name(relation, position, value), args: args.clone(), span };
        rules.push(Rule {
            head: Atom { name: relation.to_string(), args, span },
            body: vec![Literal::Atom(part)],
            span,
        });
    }
    Some(Description { rules })
}

fn rename_literal(literal: &Literal, rename: &impl Fn(&Atom) -> Atom) -> Literal {
    match literal {
        Literal::Atom(a) => Literal::Atom(rename(a)),
        Literal::Not(l, s) => Literal::Not(Box::new(rename_literal(l, rename)), *s),
        Literal::Distinct(..) => literal.clone(),
        Literal::Or(ls, s) => Literal::Or(ls.iter().map(|l| rename_literal(l, rename)).collect(), *s),
        Literal::And(ls, s) => Literal::And(ls.iter().map(|l| rename_literal(l, rename)).collect(), *s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, Syntax};

    #[test]
    fn splits_goal_by_its_value() {
        let d =
            parse("(role r) (<= (goal r 100) (not (goal r 0))) (<= (goal r 0) (true lost))", Syntax::Kif).description;
        let (split, how) = stratify_by_splitting(&d).expect("splittable");
        assert_eq!(how, Split { relation: "goal".into(), position: 1 });
        let printed: Vec<String> = split.rules.iter().map(|r| format!("{} <- {:?}", r.head, r.body.len())).collect();
        assert!(printed.contains(&"(goal(2=100) r 100) <- 1".to_string()), "{printed:?}");
        assert!(printed.contains(&"(goal ?a0 0) <- 1".to_string()), "{printed:?}");
    }

    #[test]
    fn a_real_cycle_through_negation_is_not_split() {
        let d = parse("(<= (p ?x) (q ?x) (not (p ?x)))", Syntax::Kif).description;
        assert!(stratify_by_splitting(&d).is_none());
    }
}
