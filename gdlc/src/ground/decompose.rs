//! Rule decomposition before grounding, by variable elimination: the literals of a rule that
//! mention a variable used neither by the head nor by the rest of the body become a new
//! relation over the variables they share with the rest, so that no rule is instantiated over
//! more variables at once than it needs.
//!
//! `(<= (next (cell ?x ?y ?s)) (true (cell ?x ?y ?s)) (does ?p (move ?a ?b ?c ?d)) (apart ?x ?y ?a ?b))`
//! grounds to one rule per cell and move. Decomposed, the moves are first projected on their
//! source (`(aux0 ?a ?b)`, one rule per move), then folded per cell (`(aux1 ?x ?y)`, one rule
//! per cell and source), and the frame rule grounds to one rule per cell.

use crate::ast::{Atom, Description, Literal, Rule, Span, Term};
use crate::datalog::compile::{dnf, product, Basic};
use std::collections::{BTreeMap, BTreeSet};

/// The rules of a game after decomposition.
pub struct Decomposed {
    pub description: Description,
    /// For every new relation `(aux K)`, the name of the relation whose rule it was split from.
    pub origins: Vec<String>,
}

/// The rules of `description` in disjunctive normal form (each body a conjunction of atoms,
/// negated atoms and (negated) `distinct`s), decomposed. `dynamic` names the relations that
/// depend on the state; the new relations that do are added to it.
pub fn decompose(description: &Description, dynamic: &mut BTreeSet<String>) -> Decomposed {
    decompose_except(description, dynamic, &BTreeSet::new())
}

/// [`decompose`], leaving the rules of the relations in `keep` as they are (in disjunctive
/// normal form): relations checked at run time are searched rule by rule.
pub fn decompose_except(
    description: &Description,
    dynamic: &mut BTreeSet<String>,
    keep: &BTreeSet<String>,
) -> Decomposed {
    let mut rules = Vec::new();
    let mut origins = Vec::new();
    let mut made = BTreeMap::new();
    for rule in &description.rules {
        for conjunction in product(rule.body.iter().map(|l| dnf(l, false))) {
            let body: Vec<Literal> = conjunction.iter().map(to_literal).collect();
            if keep.contains(&rule.head.name) {
                rules.push(Rule { head: rule.head.clone(), body, span: rule.span });
                continue;
            }
            let mut aux = Aux { origins: &mut origins, made: &mut made, name: &aux_name, projections_only: false };
            decompose_rule(rule.head.clone(), body, rule.span, dynamic, keep, &mut aux, &mut rules);
        }
    }
    Decomposed { description: Description { rules }, origins }
}

/// The name of new relation `k` of [`decompose_except`].
fn aux_name(k: usize, _origin: &str) -> String {
    format!("(aux {k})")
}

/// Decomposes the rules of a stateless program that `split` picks (every positive atom binds
/// its variables, every negation reads a complete relation), leaving the others as they are.
/// New relation `k`, split from a rule for `origin`, is named `name(k, origin)`, which must
/// not be the name of a relation of the program.
pub fn decompose_where(
    description: &Description,
    split: &dyn Fn(&Rule) -> bool,
    name: &dyn Fn(usize, &str) -> String,
) -> Description {
    let (mut rules, mut origins, mut made) = (Vec::new(), Vec::new(), BTreeMap::new());
    let (mut stateless, nothing) = (BTreeSet::new(), BTreeSet::new());
    for rule in &description.rules {
        if !split(rule) {
            rules.push(rule.clone());
            continue;
        }
        for conjunction in product(rule.body.iter().map(|l| dnf(l, false))) {
            let body: Vec<Literal> = conjunction.iter().map(to_literal).collect();
            let mut aux = Aux { origins: &mut origins, made: &mut made, name, projections_only: true };
            decompose_rule(rule.head.clone(), body, rule.span, &mut stateless, &nothing, &mut aux, &mut rules);
        }
    }
    Description { rules }
}

pub(crate) fn to_literal(b: &Basic<'_>) -> Literal {
    let span = Span::default();
    match *b {
        Basic::Pos(a) => Literal::Atom(a.clone()),
        Basic::Neg(a) => Literal::Not(Box::new(Literal::Atom(a.clone())), span),
        Basic::Distinct(x, y) => Literal::Distinct(x.clone(), y.clone(), span),
        Basic::Equal(x, y) => Literal::Not(Box::new(Literal::Distinct(x.clone(), y.clone(), span)), span),
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

/// The new relations made so far.
struct Aux<'a> {
    /// For every new relation, the relation whose rule it was split from.
    origins: &'a mut Vec<String>,
    /// Every new relation by its rule, with variables renamed in order of first occurrence.
    made: &'a mut BTreeMap<String, String>,
    /// The name of new relation `k` split from a rule for a relation.
    name: &'a dyn Fn(usize, &str) -> String,
    /// Make only new relations that project one atom of their body: whose arguments that atom
    /// binds all by itself, so that the new relation is no larger than that atom's.
    projections_only: bool,
}

/// `rule` with its variables renamed `?0`, `?1`, ... in order of first occurrence, and no spans,
/// printed: two rules that differ only in names of variables print the same.
fn canonical(rule: &Rule) -> String {
    fn term(t: &Term, names: &mut BTreeMap<String, usize>) -> Term {
        let span = Span::default();
        match t {
            Term::Var(v, _) => {
                let next = names.len();
                Term::Var(names.entry(v.clone()).or_insert(next).to_string(), span)
            }
            Term::Const(c, _) => Term::Const(c.clone(), span),
            Term::Func(f, args, _) => Term::Func(f.clone(), args.iter().map(|a| term(a, names)).collect(), span),
        }
    }
    fn atom(a: &Atom, names: &mut BTreeMap<String, usize>) -> Atom {
        Atom { name: a.name.clone(), args: a.args.iter().map(|t| term(t, names)).collect(), span: Span::default() }
    }
    fn literal(l: &Literal, names: &mut BTreeMap<String, usize>) -> Literal {
        let span = Span::default();
        match l {
            Literal::Atom(a) => Literal::Atom(atom(a, names)),
            Literal::Not(inner, _) => Literal::Not(Box::new(literal(inner, names)), span),
            Literal::Distinct(x, y, _) => Literal::Distinct(term(x, names), term(y, names), span),
            Literal::Or(ls, _) => Literal::Or(ls.iter().map(|l| literal(l, names)).collect(), span),
            Literal::And(ls, _) => Literal::And(ls.iter().map(|l| literal(l, names)).collect(), span),
        }
    }
    let mut names = BTreeMap::new();
    let head = atom(&rule.head, &mut names);
    let body = rule.body.iter().map(|l| literal(l, &mut names)).collect();
    let one = Description { rules: vec![Rule { head, body, span: Span::default() }] };
    crate::print::print(&one, crate::parse::Syntax::Kif)
}

/// Variable elimination on one conjunction: while some variable outside the head occurs in
/// only part of the body, the literals that mention it become a new relation over the
/// variables they share with the rest of the rule. Each step removes at least one variable from
/// the body, so the rule's instances are enumerated over fewer variables at once. The step with
/// the fewest exported variables goes first (the classic min-degree order).
fn decompose_rule(
    head: Atom,
    mut body: Vec<Literal>,
    span: Span,
    dynamic: &mut BTreeSet<String>,
    keep: &BTreeSet<String>,
    aux: &mut Aux<'_>,
    out: &mut Vec<Rule>,
) {
    let head_vars = head.vars();
    while let Some(step) = best_step(&head_vars, &body, dynamic, keep, aux.projections_only) {
        let Elimination { group, binders, exported } = step;
        let is_dynamic_group = group.iter().any(|&j| is_dynamic(&body[j], dynamic));
        let mut aux_head = Atom {
            name: (aux.name)(aux.origins.len(), &head.name),
            args: exported.iter().map(|v| Term::Var(v.clone(), span)).collect(),
            span,
        };
        let mut aux_body: Vec<Literal> = group.iter().map(|&j| body[j].clone()).collect();
        aux_body.extend(binders.iter().map(|&j| body[j].clone()));
        aux_body.extend(static_filters(&body, &group, &binders, &aux_body, dynamic));
        let rule = Rule { head: aux_head.clone(), body: aux_body, span };
        // A new relation made before with the same rule is used again rather than computed and
        // grounded twice: inlining a helper into several rules copies its body into each of
        // them (gt_two_thirds_6p's sum of six guesses, into the nine rules of `closeness`).
        let mut key = rule.clone();
        key.head.name = String::new();
        match aux.made.entry(canonical(&key)) {
            std::collections::btree_map::Entry::Occupied(made) => aux_head.name = made.get().clone(),
            std::collections::btree_map::Entry::Vacant(entry) => {
                entry.insert(aux_head.name.clone());
                aux.origins.push(head.name.clone());
                if is_dynamic_group {
                    dynamic.insert(aux_head.name.clone());
                }
                out.push(rule);
            }
        }
        let first = group[0];
        let mut rest = Vec::with_capacity(body.len() + 1 - group.len());
        for (j, literal) in body.into_iter().enumerate() {
            if j == first {
                rest.push(Literal::Atom(aux_head.clone()));
            }
            if !group.contains(&j) {
                rest.push(literal);
            }
        }
        body = rest;
    }
    out.push(Rule { head, body, span });
}

/// The static atoms of the rest of the body whose variables all occur in the new relation's
/// body (`aux_body`), copied into it as filters. They stay in the rest of the rule too, so the
/// rule means the same; the new relation is only smaller. Without them the relaxed fixpoint
/// derives the new relation for every combination its own literals allow, which for a
/// relation like alexChess's `between` is tens of millions of instances that the rest of the
/// rule then throws away.
fn static_filters(
    body: &[Literal],
    group: &[usize],
    binders: &[usize],
    aux_body: &[Literal],
    dynamic: &BTreeSet<String>,
) -> Vec<Literal> {
    let aux_vars: BTreeSet<String> = aux_body.iter().flat_map(Literal::vars).collect();
    body.iter()
        .enumerate()
        .filter(|&(j, literal)| {
            let vars = literal.vars();
            !group.contains(&j)
                && !binders.contains(&j)
                && binds(literal, dynamic)
                && !vars.is_empty()
                && vars.is_subset(&aux_vars)
        })
        .map(|(_, literal)| literal.clone())
        .collect()
}

/// One elimination step: the literals that move into a new relation, the static atoms of the
/// rest of the body copied in to bind its variables, and the variables it exports.
struct Elimination {
    group: Vec<usize>,
    binders: Vec<usize>,
    exported: Vec<String>,
}

/// The elimination that exports the fewest variables (then moves the fewest literals), if any
/// variable outside the head occurs in only part of the body and its group can be made safe
/// (and, with `projections_only`, one positive atom of the group binds every exported variable).
fn best_step(
    head_vars: &BTreeSet<String>,
    body: &[Literal],
    dynamic: &BTreeSet<String>,
    keep: &BTreeSet<String>,
    projections_only: bool,
) -> Option<Elimination> {
    let literal_vars: Vec<BTreeSet<String>> = body.iter().map(Literal::vars).collect();
    let candidates: BTreeSet<&String> =
        literal_vars.iter().flatten().filter(|v| !head_vars.contains(v.as_str())).collect();
    let mut best: Option<((usize, usize), Elimination)> = None;
    for v in candidates {
        let group: Vec<usize> = (0..body.len()).filter(|&j| literal_vars[j].contains(v)).collect();
        if group.len() == body.len() {
            continue;
        }
        let mut group_vars: BTreeSet<String> = group.iter().flat_map(|&j| literal_vars[j].iter().cloned()).collect();
        let occurs_outside = |w: &String| {
            head_vars.contains(w) || (0..body.len()).any(|j| !group.contains(&j) && literal_vars[j].contains(w))
        };
        // Every exported variable must be bound by a positive atom of the new relation; static
        // atoms of the rest of the body may be copied in to bind them. A relation checked at run
        // time binds nothing: its arguments must be bound before it is asked for.
        let mut bound: BTreeSet<String> = group
            .iter()
            .filter(|&&j| matches!(&body[j], Literal::Atom(a) if !keep.contains(&a.name)))
            .flat_map(|&j| literal_vars[j].iter().cloned())
            .collect();
        let mut binders = Vec::new();
        for (j, literal) in body.iter().enumerate() {
            if group_vars.is_subset(&bound) {
                break;
            }
            let unbound: BTreeSet<String> = group_vars.difference(&bound).cloned().collect();
            if !group.contains(&j) && binds(literal, dynamic) && !literal_vars[j].is_disjoint(&unbound) {
                bound.extend(literal_vars[j].iter().cloned());
                group_vars.extend(literal_vars[j].iter().cloned());
                binders.push(j);
            }
        }
        if !group_vars.is_subset(&bound) {
            continue;
        }
        let exported: Vec<String> = group_vars.iter().filter(|w| occurs_outside(w)).cloned().collect();
        let projects = |&j: &usize| {
            matches!(&body[j], Literal::Atom(a) if !keep.contains(&a.name))
                && exported.iter().all(|w| literal_vars[j].contains(w))
        };
        if projections_only && !group.iter().any(projects) {
            continue;
        }
        let cost = (exported.len(), group.len());
        if best.as_ref().is_none_or(|(c, _)| cost < *c) {
            best = Some((cost, Elimination { group, binders, exported }));
        }
    }
    best.map(|(_, step)| step)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, Syntax};

    fn decomposed(text: &str, dynamic: &[&str]) -> Vec<String> {
        let d = parse(text, Syntax::Kif).description;
        let mut dynamic: BTreeSet<String> = dynamic.iter().map(|s| s.to_string()).collect();
        crate::print::kif_lines(decompose(&d, &mut dynamic).description.rules)
    }

    #[test]
    fn a_move_private_to_a_frame_rule_is_projected_then_folded_per_cell() {
        let rules = decomposed(
            "(<= (next (cell ?x ?y ?s)) (true (cell ?x ?y ?s)) (does ?p (move ?a ?b ?c ?d)) (apart ?x ?y ?a ?b))",
            &["true", "does", "next"],
        );
        assert_eq!(
            rules,
            vec![
                "(<= ((aux 0) ?a ?b) (does ?p (move ?a ?b ?c ?d)))".to_string(),
                "(<= ((aux 1) ?x ?y) ((aux 0) ?a ?b) (apart ?x ?y ?a ?b))".to_string(),
                "(<= (next (cell ?x ?y ?s)) (true (cell ?x ?y ?s)) ((aux 1) ?x ?y))".to_string(),
            ]
        );
    }

    #[test]
    fn a_negated_state_literal_over_the_move_moves_with_it() {
        // The frame rule of chess.kif: the move's variables are shared with a negated
        // state-dependent literal, and the whole group folds into one relation per cell pair.
        let rules = decomposed(
            "(<= (next (cell ?x ?y ?p)) (does ?r (move ?x1 ?y1)) (true (cell ?x ?y ?p)) \
             (not (en_passant ?r ?x1 ?y1)) (different ?x ?y ?x1 ?y1))",
            &["true", "does", "next", "en_passant"],
        );
        assert_eq!(
            rules,
            vec![
                "(<= ((aux 0) ?x1 ?y1) (does ?r (move ?x1 ?y1)) (not (en_passant ?r ?x1 ?y1)))".to_string(),
                "(<= ((aux 1) ?x ?y) ((aux 0) ?x1 ?y1) (different ?x ?y ?x1 ?y1))".to_string(),
                "(<= (next (cell ?x ?y ?p)) ((aux 1) ?x ?y) (true (cell ?x ?y ?p)))".to_string(),
            ]
        );
    }

    #[test]
    fn a_literal_without_private_variables_stays() {
        let rules = decomposed("(<= (next (c ?x)) (true (c ?x)) (does ?p (m ?x)) (r ?p))", &["true", "does", "next"]);
        assert_eq!(rules.len(), 2, "{rules:?}");
        let rules = decomposed("(<= (next (c ?x)) (true (c ?x)) (does r (m ?x)))", &["true", "does", "next"]);
        assert_eq!(rules, vec!["(<= (next (c ?x)) (true (c ?x)) (does r (m ?x)))".to_string()]);
        // A variable that every literal mentions cannot be split off.
        let rules = decomposed("(<= open (true (cell ?m ?n b)))", &["true"]);
        assert_eq!(rules, vec!["(<= open (true (cell ?m ?n b)))".to_string()]);
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
                "(<= ((aux 0) ?y) (does ?p (m ?y)))".to_string(),
                "(<= ((aux 1) ?x) ((aux 0) ?y) (distinct ?x ?y) (index ?x))".to_string(),
                "(<= (next (c ?x)) (true (c ?x)) (index ?x) ((aux 1) ?x))".to_string(),
            ]
        );
    }

    #[test]
    fn a_static_group_stays_static() {
        let d = parse("(<= (next (c ?x)) (true (c ?x)) (edge ?x ?y) (node ?y))", Syntax::Kif).description;
        let mut dynamic: BTreeSet<String> = ["true", "next"].iter().map(|s| s.to_string()).collect();
        let decomposed = decompose(&d, &mut dynamic);
        assert_eq!(decomposed.description.rules.len(), 2);
        assert_eq!(decomposed.origins, vec!["next".to_string()]);
        assert!(!dynamic.contains("(aux 0)"), "{dynamic:?}");
    }

    #[test]
    fn a_new_relation_with_the_rule_of_one_made_before_is_that_one() {
        // Two copies of one helper's body, as inlining leaves them, under other variable names.
        let rules = decomposed(
            "(<= (h1 ?t) (true (g a ?x)) (true (g b ?y)) (sum ?x ?y ?t) (true (n ?t))) \
             (<= (h2 ?u) (true (g a ?v)) (true (g b ?w)) (sum ?v ?w ?u) (true (m ?u)))",
            &["true", "h1", "h2"],
        );
        assert_eq!(
            rules,
            vec![
                "(<= ((aux 0) ?t ?y) (true (g a ?x)) (sum ?x ?y ?t))".to_string(),
                "(<= ((aux 1) ?t) ((aux 0) ?t ?y) (true (g b ?y)))".to_string(),
                "(<= (h1 ?t) ((aux 1) ?t) (true (n ?t)))".to_string(),
                "(<= (h2 ?u) ((aux 1) ?u) (true (m ?u)))".to_string(),
            ]
        );
    }

    #[test]
    fn only_the_picked_rules_are_split_and_only_into_projections() {
        let d = parse(
            "(<= (p ?x) (g ?x ?m) (h ?m) (k ?x ?y) (k ?y ?z) (j ?z ?x)) (<= (q ?x) (g ?x ?m) (h ?m))",
            Syntax::Kif,
        )
        .description;
        let split = |rule: &Rule| rule.head.name == "p";
        let rules =
            crate::print::kif_lines(decompose_where(&d, &split, &|k, origin| format!("({origin} part {k})")).rules);
        // `?m` is projected out with `(g ?x ?m)`, which binds `?x` by itself; eliminating `?y`
        // or `?z` would make a relation over `?x` and the other, which no one atom binds.
        assert_eq!(
            rules,
            vec![
                "(<= ((p part 0) ?x) (g ?x ?m) (h ?m))".to_string(),
                "(<= (p ?x) ((p part 0) ?x) (k ?x ?y) (k ?y ?z) (j ?z ?x))".to_string(),
                "(<= (q ?x) (g ?x ?m) (h ?m))".to_string(),
            ]
        );
    }

    #[test]
    fn a_static_filter_over_the_new_relation_is_copied_into_it() {
        // `(s ?a)` stays in the rule and also filters `(aux 1)`, which would otherwise hold for
        // every `?a` that `d1` and `d2` allow.
        let rules = decomposed("(<= (h ?a) (d1 ?a ?b) (d2 ?b ?c) (s ?a))", &["d1", "d2", "h"]);
        assert_eq!(
            rules,
            vec![
                "(<= ((aux 0) ?b) (d2 ?b ?c))".to_string(),
                "(<= ((aux 1) ?a) (d1 ?a ?b) ((aux 0) ?b) (s ?a))".to_string(),
                "(<= (h ?a) ((aux 1) ?a) (s ?a))".to_string(),
            ]
        );
    }
}
