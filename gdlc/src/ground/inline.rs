//! Inlining before grounding: a state-dependent helper relation that other rules only use
//! positively is replaced, in each rule that uses it, by its definitions.
//!
//! The relaxed fixpoint computes a helper relation on its own, over every combination its body
//! allows, before the rules that use it filter the result. alexChess's
//! `(between ?pieceL ?pieceM ?pieceR ?dir)` holds for every three pieces on a line, millions of
//! facts of which `pinned` keeps the few with a king at one end. Inlined, the filters of
//! `pinned` sit next to `between`'s body, and decomposition builds its new relations with them.
//!
//! A static relation is computed exactly and is inlined only when it is a product of its
//! arguments joined through variables it hides (quarto's pieces that share an attribute, see
//! [`hidden_join_of_state_rules`]), into the state-dependent rules that use it.

use crate::ast::{Description, Literal, Rule, Term};
use crate::check::keywords::RELATION_KEYWORDS;
use crate::graph::Dependencies;
use crate::unify::{rename_atom, rename_literal, unify};
use std::collections::{BTreeMap, BTreeSet};

/// The most rules one inlining may write (rules that use the relation times its definitions),
/// so that inlining never multiplies the program.
const MAX_INLINED_RULES: usize = 32;

/// The rules of `description` with every relation that can be inlined inlined. `dynamic` names
/// the relations that depend on the state; only those are inlined, and the static products of
/// [`hidden_join_of_state_rules`].
pub fn inline(description: &Description, dynamic: &BTreeSet<String>) -> Description {
    let mut rules = description.rules.clone();
    while let Some(relation) = inlinable(&rules, dynamic) {
        let (definitions, others): (Vec<Rule>, Vec<Rule>) =
            rules.into_iter().partition(|rule| rule.head.name == relation);
        rules = Vec::with_capacity(others.len());
        for rule in others {
            match rule.body.iter().position(|l| matches!(l, Literal::Atom(a) if a.name == relation)) {
                Some(use_index) => {
                    rules.extend(definitions.iter().filter_map(|definition| substitute(&rule, use_index, definition)))
                }
                None => rules.push(rule),
            }
        }
    }
    Description { rules }
}

/// A relation that can be inlined (see below for which one): state-dependent (or a static
/// product that only state-dependent rules read), no keyword, not
/// recursive, defined by rules of one arity, one of them a join, and used by other rules, none
/// of them recursive, only as a positive atom of their body, at most once per rule, in few
/// enough rules.
fn inlinable(rules: &[Rule], dynamic: &BTreeSet<String>) -> Option<String> {
    let description = Description { rules: rules.to_vec() };
    let deps = Dependencies::build(&description);
    let mut definitions: BTreeMap<&str, Definitions> = BTreeMap::new();
    for (position, rule) in rules.iter().enumerate() {
        let definition = definitions.entry(&rule.head.name).or_insert_with(|| Definitions::first_at(position));
        definition.count += 1;
        definition.arities.insert(rule.head.args.len());
        // The relations one of whose definitions joins two atoms or more. A relation whose
        // every definition reads one relation has at most as many facts as those relations:
        // inlining it gives its users' filters nothing to meet, and only multiplies each use by
        // its definitions (amazonsTorus's `queenMove` into `rookMove` and `bishopMove`, and
        // those into their four directions each, made `legal` 64 rules whose instances
        // repeated every move up to 8 times).
        let mut atoms = 0;
        for literal in &rule.body {
            literal.for_each_atom(false, &mut |_, negated| atoms += usize::from(!negated));
        }
        definition.joins |= atoms >= 2;
        definition.product |= is_product(rule);
    }
    // For every relation, how its rules use it: which relations do, and whether some use is of
    // another kind (negated, inside `or`, twice in one rule, another arity).
    let mut uses: BTreeMap<&str, Uses> = BTreeMap::new();
    for rule in rules {
        let mut in_rule: BTreeMap<&str, usize> = BTreeMap::new();
        rule.for_each_body_atom(&mut |atom, _| *in_rule.entry(&atom.name).or_default() += 1);
        for (name, count) in in_rule {
            let plain = count == 1
                && rule.body.iter().any(|l| {
                    matches!(l, Literal::Atom(a) if a.name == name
                        && definitions.get(name).is_some_and(|d| d.arities.len() == 1 && d.arities.contains(&a.args.len())))
                });
            let used = uses.entry(name).or_default();
            used.rules += 1;
            used.by.insert(&rule.head.name);
            // A recursive rule is left as written: demand restriction passes bindings through
            // its body in the order written, which inlining would change.
            used.other_use |= !plain || deps.is_recursive(&rule.head.name);
        }
    }
    let candidates: BTreeMap<&str, (&Uses, &Definitions)> = uses
        .iter()
        .filter_map(|(&name, used)| Some((name, (used, definitions.get(name)?))))
        .filter(|&(name, (used, definition))| {
            !used.other_use
                && !RELATION_KEYWORDS.contains(&name)
                && (dynamic.contains(name) || hidden_join_of_state_rules(used, definition, dynamic))
                && !deps.is_recursive(name)
                && definition.joins
                && used.rules * definition.count <= MAX_INLINED_RULES
        })
        .collect();
    first_to_inline(&candidates, &deps).map(str::to_string)
}

/// Whether a static relation (the caller knows it is static) is worth inlining into the
/// state-dependent rules that use it: it has one definition, whose literals each read at most
/// one of its head's variables and are joined through variables the head does not have. Such a
/// relation is a product of its
/// arguments' values, and a rule that reads it with the state is grounded over the whole
/// product: quarto's `(set ?p1 ?p2 ?p3 ?p4)` (four pieces share attribute `?n` with value
/// `?b`) holds for some twenty thousand quadruples, and a line of four cells grounded against
/// it is as many rules. Inlined, decomposition first asks of each cell whether its piece has
/// the attribute, 128 small relations over which a line is eight conjunctions of four. A
/// relation with a literal that reads two of its arguments is left alone: its facts are no
/// product, and inlining it only moved work around (colonelBlotto's `gte`, 0.7x; mummymaze's
/// two-step `newlocation2`, 0.3x).
fn hidden_join_of_state_rules(used: &Uses, definition: &Definitions, dynamic: &BTreeSet<String>) -> bool {
    definition.count == 1 && definition.product && used.by.iter().all(|user| dynamic.contains(*user))
}

/// Whether a rule's body joins, through variables its head does not have, literals that each
/// read at most one of the head's variables, of which it has two or more.
fn is_product(rule: &Rule) -> bool {
    let head_vars = rule.head.vars();
    let body_vars: Vec<BTreeSet<String>> = rule.body.iter().map(Literal::vars).collect();
    let hides = body_vars.iter().any(|vars| !vars.is_subset(&head_vars));
    let each_reads_one = body_vars.iter().all(|vars| vars.intersection(&head_vars).count() <= 1);
    head_vars.len() >= 2 && hides && each_reads_one
}

/// How a relation is defined: by how many rules, the first at which position, of which
/// arities, whether one of them joins two atoms or more, and whether one of them is a product
/// of its head's variables (see [`is_product`]).
struct Definitions {
    count: usize,
    first: usize,
    arities: BTreeSet<usize>,
    joins: bool,
    product: bool,
}

impl Definitions {
    fn first_at(first: usize) -> Definitions {
        Definitions { count: 0, first, arities: BTreeSet::new(), joins: false, product: false }
    }
}

/// How the rules use a relation in their bodies: in how many rules, by which relations, and
/// whether some use is not a plain positive atom.
#[derive(Default)]
struct Uses<'a> {
    rules: usize,
    by: BTreeSet<&'a str>,
    other_use: bool,
}

/// The candidate to inline first. Not the first by name: games are played with their names
/// scrambled, and which relation goes first decides which others can still be inlined
/// (inlining a relation into its users multiplies the uses of the relations it reads, and the
/// rules of its users). First a helper of the fewest relations, whose inlining multiplies only
/// their rules: cephalopodMicro's `leftVal`, used by `captureSum` alone, before `empty`, used
/// by four; then a helper before the relations that use it, whose filters it then meets:
/// alexChess's `between` into `pinned` before `pinned` into `pinnedPiece`, which left
/// `between` too many uses to be inlined; then the relation defined first.
fn first_to_inline<'a>(candidates: &BTreeMap<&'a str, (&Uses, &Definitions)>, deps: &Dependencies) -> Option<&'a str> {
    let uses_a_candidate = |name: &str| {
        deps.dependencies_of(&[name]).iter().any(|other| other != name && candidates.contains_key(other.as_str()))
    };
    candidates
        .iter()
        .min_by_key(|&(&name, (used, definition))| (used.by.len(), uses_a_candidate(name), definition.first))
        .map(|(&name, _)| name)
}

/// `rule` with its body literal `use_index` (an atom of the inlined relation) replaced by the
/// body of `definition`, whose variables are first renamed apart from the rule's; none if the
/// atom and the definition's head do not unify.
fn substitute(rule: &Rule, use_index: usize, definition: &Rule) -> Option<Rule> {
    let Literal::Atom(used) = &rule.body[use_index] else { return None };
    let mut taken = rule.head.vars();
    taken.extend(rule.body.iter().flat_map(Literal::vars));
    let mut definition_vars = definition.head.vars();
    definition_vars.extend(definition.body.iter().flat_map(Literal::vars));
    taken.extend(definition_vars.iter().cloned());
    // A variable of the definition keeps its name unless the rule uses it too.
    let mut renaming: BTreeMap<String, Term> = BTreeMap::new();
    let mut own_vars: BTreeSet<String> = BTreeSet::new();
    for v in &definition_vars {
        let mut name = v.clone();
        if rule_uses(rule, v) {
            name = (1..).map(|n| format!("{v}_{n}")).find(|n| !taken.contains(n)).expect("a fresh name");
            taken.insert(name.clone());
            renaming.insert(v.clone(), Term::Var(name.clone(), definition.span));
        }
        own_vars.insert(name);
    }
    let head = rename_atom(&definition.head, &renaming);
    let mut unifier = BTreeMap::new();
    for (a, b) in used.args.iter().zip(&head.args) {
        if !unify(a, b, &own_vars, &mut unifier) {
            return None;
        }
    }
    let mut body = Vec::with_capacity(rule.body.len() + definition.body.len());
    for (j, literal) in rule.body.iter().enumerate() {
        if j == use_index {
            body.extend(definition.body.iter().map(|l| rename_literal(&rename_literal(l, &renaming), &unifier)));
        } else {
            body.push(rename_literal(literal, &unifier));
        }
    }
    Some(Rule { head: rename_atom(&rule.head, &unifier), body, span: rule.span })
}

fn rule_uses(rule: &Rule, var: &str) -> bool {
    let mut found = false;
    rule.head.for_each_var(&mut |v, _| found |= v == var);
    for literal in &rule.body {
        literal.for_each_var(&mut |v, _| found |= v == var);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, Syntax};

    fn inlined(text: &str, dynamic: &[&str]) -> Vec<String> {
        let d = parse(text, Syntax::Kif).description;
        let dynamic: BTreeSet<String> = dynamic.iter().map(|s| s.to_string()).collect();
        crate::print::kif_lines(inline(&d, &dynamic).rules)
    }

    #[test]
    fn a_helper_used_by_one_relation_is_replaced_by_its_definitions() {
        // alexChess's `between` and `pinned`: the direction in the head of each definition
        // replaces `?dir`, and the hidden square of the definition meets the rule's filters.
        let rules = inlined(
            "(<= (between ?l ?m ?r ns) (true (piece ?m ?x ?y)) (north ?l ?x ?y) (south ?r ?x ?y)) \
             (<= (between ?l ?m ?r we) (true (piece ?m ?x ?y)) (west ?l ?x ?y) (east ?r ?x ?y)) \
             (<= (pinned ?m ?dir) (between ?l ?m ?r ?dir) (king ?l) (rook ?r))",
            &["true", "north", "south", "west", "east", "between", "pinned"],
        );
        assert_eq!(
            rules,
            vec![
                "(<= (pinned ?m ns) (true (piece ?m ?x ?y)) (north ?l ?x ?y) (south ?r ?x ?y) (king ?l) (rook ?r))"
                    .to_string(),
                "(<= (pinned ?m we) (true (piece ?m ?x ?y)) (west ?l ?x ?y) (east ?r ?x ?y) (king ?l) (rook ?r))"
                    .to_string(),
            ]
        );
    }

    #[test]
    fn variables_of_the_definition_are_renamed_apart_and_a_mismatch_drops_it() {
        let rules = inlined(
            "(<= (h ?x) (true (c ?x ?y)) (helper ?y a)) \
             (<= (helper ?x a) (true (d ?x ?y)) (true (f ?y))) \
             (<= (helper ?x b) (true (e ?x)))",
            &["true", "helper", "h"],
        );
        assert_eq!(rules, vec!["(<= (h ?x) (true (c ?x ?y)) (true (d ?y ?y_1)) (true (f ?y_1)))".to_string()]);
    }

    #[test]
    fn a_helper_that_joins_nothing_stays() {
        // amazonsTorus's `queenMove`: each definition reads one relation, so inlining would
        // only multiply the rule that uses it by its definitions.
        let text = "(<= (legal p (move ?x ?y)) (true (at ?x)) (queen ?x ?y) (true (free ?y))) \
                    (<= (queen ?x ?y) (rook ?x ?y)) (<= (queen ?x ?y) (bishop ?x ?y)) \
                    (<= (rook ?x ?y) (true (row ?x ?y))) (<= (bishop ?x ?y) (true (diagonal ?x ?y)))";
        assert_eq!(inlined(text, &["true", "legal", "queen", "rook", "bishop"]).len(), 5);
    }

    #[test]
    fn negated_recursive_static_and_keyword_relations_stay() {
        let dynamic = ["true", "h", "helper", "reach", "legal"];
        // Negated somewhere.
        let text = "(<= (h ?x) (true (c ?x)) (helper ?x)) (<= (g ?x) (not (helper ?x)) (true (c ?x))) \
                    (<= (helper ?x) (true (d ?x)))";
        assert_eq!(inlined(text, &dynamic).len(), 3);
        // Recursive.
        let text = "(<= (h ?x) (reach ?x)) (<= (reach ?x) (true (d ?x))) (<= (reach ?y) (reach ?x) (edge ?x ?y))";
        assert_eq!(inlined(text, &dynamic).len(), 3);
        // Static: the grounder computes it exactly.
        let text = "(<= (h ?x) (true (c ?x)) (index ?x)) (<= (index ?x) (succ ?x ?y))";
        assert_eq!(inlined(text, &dynamic).len(), 2);
        // Static, two arguments through a hidden one, but one literal reads both.
        let text = "(<= (h ?a ?b) (true (c ?a ?b)) (gte ?a ?b)) (<= (gte ?a ?b) (index ?x) (sum ?b ?x ?a))";
        assert_eq!(inlined(text, &dynamic).len(), 2);
        // A keyword, even one some rule uses.
        let text = "(<= (h ?x) (legal ?r ?x)) (<= (legal p ?x) (true (c ?x)))";
        assert_eq!(inlined(text, &dynamic).len(), 2);
    }

    #[test]
    fn a_helper_used_twice_in_one_rule_stays() {
        let text = "(<= (h ?x ?y) (helper ?x) (helper ?y)) (<= (helper ?x) (true (d ?x)))";
        assert_eq!(inlined(text, &["true", "h", "helper"]).len(), 2);
    }

    /// alexChess's shape: `between` (five definitions) used by the four rules of `pinned`,
    /// `pinned` by two rules of `pinnedPiece`. Inlining `pinned` first leaves `between` used by
    /// eight rules, too many to inline it (8 x 5 > 32), and `between` alone goes past the
    /// grounder's limits; `between` first is inlined under any spelling of the two.
    #[test]
    fn the_relation_inlined_first_does_not_follow_the_spelling() {
        let mut text: String = (1..=5)
            .map(|k| format!("(<= (BETWEEN ?l ?m ?r d{k}) (true (piece ?m ?x ?y)) (n{k} ?l ?x ?y) (s{k} ?r ?x ?y)) "))
            .collect();
        text += &(1..=4)
            .map(|k| format!("(<= (PINNED ?m ?d) (BETWEEN ?l ?m ?r ?d) (king ?l) (rook{k} ?r)) "))
            .collect::<String>();
        text += "(<= (pp ?m) (PINNED ?m ?d) (straight ?d)) (<= (pp ?m) (PINNED ?m ?d) (diagonal ?d))";
        for (between, pinned) in [("z_between", "a_pinned"), ("a_between", "z_pinned")] {
            let spelled = text.replace("BETWEEN", between).replace("PINNED", pinned);
            let rules = inlined(&spelled, &["true", between, pinned, "pp"]);
            assert!(rules.iter().all(|rule| !rule.contains(between)), "{between}: {rules:#?}");
            let pinned_rules = rules.iter().filter(|rule| rule.starts_with(&format!("(<= ({pinned} "))).count();
            assert_eq!(pinned_rules, 20, "{between}: {rules:#?}");
        }
    }

    /// Quarto's line of four pieces that share an attribute: the static `set` is a product of
    /// its four pieces through the hidden attribute and value, and is inlined into the line so
    /// that decomposition can ask of each cell whether its piece has the attribute. A static
    /// relation that a static rule reads stays.
    #[test]
    fn a_static_product_read_with_the_state_is_inlined() {
        let set = "(<= (set ?p1 ?p2 ?p3 ?p4) (bit ?b) (index ?n) (bitnis ?n ?p1 ?b) (bitnis ?n ?p2 ?b) \
                   (bitnis ?n ?p3 ?b) (bitnis ?n ?p4 ?b))";
        let line = "(<= (row ?y) (true (cell 1 ?y ?p1)) (true (cell 2 ?y ?p2)) (true (cell 3 ?y ?p3)) \
                    (true (cell 4 ?y ?p4)) (set ?p1 ?p2 ?p3 ?p4))";
        let rules = inlined(&format!("{set} {line}"), &["true", "row"]);
        assert_eq!(
            rules,
            vec!["(<= (row ?y) (true (cell 1 ?y ?p1)) (true (cell 2 ?y ?p2)) (true (cell 3 ?y ?p3)) \
                  (true (cell 4 ?y ?p4)) (bit ?b) (index ?n) (bitnis ?n ?p1 ?b) (bitnis ?n ?p2 ?b) \
                  (bitnis ?n ?p3 ?b) (bitnis ?n ?p4 ?b))"
                .to_string()]
        );
        let static_user = "(<= (same ?p) (set ?p ?p ?p ?p))";
        assert_eq!(inlined(&format!("{set} {line} {static_user}"), &["true", "row"]).len(), 3);
    }
}
