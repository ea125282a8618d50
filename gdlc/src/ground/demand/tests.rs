//! The demand restriction on small programs: what is demanded, how, and what stays complete.

use super::*;
use crate::parse::{parse, Syntax};

fn show(d: &Description) -> Vec<String> {
    d.rules
        .iter()
        .map(|r| {
            let body: Vec<String> = r
                .body
                .iter()
                .map(|l| match l {
                    Literal::Atom(a) => a.to_string(),
                    Literal::Not(inner, _) => match &**inner {
                        Literal::Atom(a) => format!("~{a}"),
                        _ => "~?".to_string(),
                    },
                    Literal::Distinct(a, b, _) => format!("(distinct {a} {b})"),
                    _ => "?".to_string(),
                })
                .collect();
            format!("{} <- {}", r.head, body.join(" "))
        })
        .collect()
}

fn restricted(text: &str, complete: &[&str]) -> Vec<String> {
    show(&restrict(&parse(text, Syntax::Kif).description, &|_| None, complete))
}

#[test]
fn a_relation_called_with_a_bound_argument_is_computed_for_the_demanded_values() {
    let text = "(succ 0 1) (succ 1 2) (succ 2 3)
        (<= (reach ?x ?y) (succ ?x ?y))
        (<= (reach ?x ?z) (succ ?x ?y) (reach ?y ?z))
        (<= (goal a ?z) (reach 2 ?z))";
    assert_eq!(
        restricted(text, &["goal"]),
        [
            "(goal a ?z) <- (reach 2 ?z)",
            "((demand reach bf) 2) <- ",
            "(reach ?x ?y) <- ((demand reach bf) ?x) (succ ?x ?y)",
            "(reach ?x ?z) <- ((demand reach bf) ?x) (succ ?x ?y) (reach ?y ?z)",
            "((demand reach bf) ?y) <- ((demand reach bf) ?x) (succ ?x ?y)",
            "(succ 0 1) <- ",
            "(succ 1 2) <- ",
            "(succ 2 3) <- ",
        ]
    );
}

#[test]
fn a_relation_called_with_nothing_bound_and_what_no_output_uses_are_left_alone() {
    let text = "(n 1) (n 2)
        (<= (double ?x ?y) (n ?x) (n ?y))
        (<= (unused ?x) (n ?x))
        (<= (goal a ?x) (double ?x ?y) (distinct ?x ?y))";
    assert_eq!(
        restricted(text, &["goal"]),
        ["(double ?x ?y) <- (n ?x) (n ?y)", "(goal a ?x) <- (double ?x ?y) (distinct ?x ?y)", "(n 1) <- ", "(n 2) <- ",]
    );
}

#[test]
fn calls_bind_left_to_right() {
    // `(far ?y)` comes first, with nothing bound; `(step ?x ?y)` then has `?x` bound.
    let text = "(<= (far ?y) (n ?y)) (<= (step ?x ?y) (n ?x) (n ?y))
        (<= (p ?x ?y) (far ?y) (step ?x ?y) (distinct ?x ?y)) (<= (goal a ?y) (p 1 ?y))";
    assert_eq!(
        restricted(text, &["goal"]),
        [
            "(far ?y) <- (n ?y)",
            "(goal a ?y) <- (p 1 ?y)",
            "((demand p bf) 1) <- ",
            "(p ?x ?y) <- ((demand p bf) ?x) (far ?y) (step ?x ?y) (distinct ?x ?y)",
            "((demand step bb) ?x ?y) <- ((demand p bf) ?x) (far ?y) (distinct ?x ?y)",
            "(step ?x ?y) <- ((demand step bb) ?x ?y) (n ?x) (n ?y)",
        ]
    );
}

#[test]
fn a_negated_relation_demanded_by_its_own_reader_is_computed_completely() {
    // Demanding `blocked` for the values of `h` would make `h` depend on its own negation.
    let text = "(start 1) (edge 1 2) (edge 2 3) (wall 3 x)
        (<= (h ?x) (start ?x))
        (<= (h ?y) (h ?x) (edge ?x ?y) (not (blocked ?y)))
        (<= (blocked ?y) (wall ?y ?z))
        (<= (goal a ?x) (h ?x))";
    assert_eq!(
        restricted(text, &["goal"]),
        [
            "(blocked ?y) <- (wall ?y ?z)",
            "(edge 1 2) <- ",
            "(edge 2 3) <- ",
            "(goal a ?x) <- (h ?x)",
            "(h ?x) <- (start ?x)",
            "(h ?y) <- (h ?x) (edge ?x ?y) ~(blocked ?y)",
            "(start 1) <- ",
            "(wall 3 x) <- ",
        ]
    );
}

#[test]
fn a_negated_relation_is_demanded_after_the_positive_literals() {
    let text = "(n 1) (n 2) (<= (blocked ?y) (n ?y) (n ?z))
        (<= (p ?x) (n ?x) (not (blocked ?x))) (<= (goal a ?x) (p ?x))";
    assert_eq!(
        restricted(text, &["goal"]),
        [
            "(blocked ?y) <- ((demand blocked b) ?y) (n ?y) (n ?z)",
            "(goal a ?x) <- (p ?x)",
            "(n 1) <- ",
            "(n 2) <- ",
            "(p ?x) <- (n ?x) ~(blocked ?x)",
            "((demand blocked b) ?x) <- (n ?x)",
        ]
    );
}

#[test]
fn an_instance_query_is_guarded_by_the_demand_of_its_rule_and_demands_what_it_reads() {
    let text = "(n 1) (n 2) (<= (q ?x ?y) (n ?x) (n ?y)) (<= (r ?y) (n ?y))
        (<= (instances ?x ?y) (q ?x ?y)) (<= (p ?x ?y) (q ?x ?y)) (<= (goal a ?y) (p 1 ?y))";
    let d = parse(text, Syntax::Kif).description;
    let p = d.rules.iter().find(|r| r.head.name == "p").unwrap().head.clone();
    let reads = parse("(r ?y)", Syntax::Kif).description.rules[0].head.clone();
    let serves =
        |rule: &Rule| (rule.head.name == "instances").then(|| Serves { atom: p.clone(), reads: vec![reads.clone()] });
    assert_eq!(
        show(&restrict(&d, &serves, &["goal"])),
        [
            "(goal a ?y) <- (p 1 ?y)",
            "((demand p bf) 1) <- ",
            "(n 1) <- ",
            "(n 2) <- ",
            "(instances ?x ?y) <- ((demand p bf) ?x) (q ?x ?y)",
            "((demand q bf) ?x) <- ((demand p bf) ?x)",
            "((demand r b) ?y) <- ((demand p bf) ?x) (q ?x ?y)",
            "(p ?x ?y) <- ((demand p bf) ?x) (q ?x ?y)",
            "(q ?x ?y) <- ((demand q bf) ?x) (n ?x) (n ?y)",
            "(r ?y) <- ((demand r b) ?y) (n ?y)",
        ]
    );
}

#[test]
fn a_demand_rule_projects_what_only_its_generator_binds() {
    // The demand for `near` keeps `?m`, which only `gen` binds: it would be derived once per
    // `?m`. A part over `?x` alone projects `gen` first.
    let text = "(n 1) (n 2) (<= (gen ?x ?m) (n ?x) (n ?m)) (<= (pair ?x ?t) (n ?x) (n ?t))
        (<= (near ?t ?x) (n ?t) (n ?x)) (<= (goal a ?x) (gen ?x ?m) (pair ?x ?t) (near ?t ?x))";
    assert_eq!(
        restricted(text, &["goal"]),
        [
            "(gen ?x ?m) <- (n ?x) (n ?m)",
            "(goal a ?x) <- (gen ?x ?m) (pair ?x ?t) (near ?t ?x)",
            "((demand pair bf) ?x) <- (gen ?x ?m)",
            "((part 0 of (demand near bb)) ?x) <- (gen ?x ?m)",
            "((demand near bb) ?t ?x) <- ((part 0 of (demand near bb)) ?x) (pair ?x ?t)",
            "(n 1) <- ",
            "(n 2) <- ",
            "(near ?t ?x) <- ((demand near bb) ?t ?x) (n ?t) (n ?x)",
            "(pair ?x ?t) <- ((demand pair bf) ?x) (n ?x) (n ?t)",
        ]
    );
    assert_eq!(part_of("(part 0 of (demand near bb))"), Some("(demand near bb)"));
    assert_eq!(part_of("(demand near bb)"), None);
}

#[test]
fn a_demand_rule_keeps_a_join_that_no_one_atom_binds() {
    // Projecting `?y` out of the two `e` atoms would make a relation over `?a` and `?b`
    // that their join bounds, not either of them: it stays in the rule.
    let text = "(n 1) (n 2) (e 1 2) (<= (far ?a ?b ?z) (n ?a) (n ?b) (n ?z))
        (<= (goal a ?z) (n ?z) (e ?y ?a) (e ?y ?b) (far ?a ?b ?z))";
    assert_eq!(
        restricted(text, &["goal"]),
        [
            "(e 1 2) <- ",
            "(far ?a ?b ?z) <- ((demand far bbb) ?a ?b ?z) (n ?a) (n ?b) (n ?z)",
            "(goal a ?z) <- (n ?z) (e ?y ?a) (e ?y ?b) (far ?a ?b ?z)",
            "((demand far bbb) ?a ?b ?z) <- (n ?z) (e ?y ?a) (e ?y ?b)",
            "(n 1) <- ",
            "(n 2) <- ",
        ]
    );
}

#[test]
fn a_demand_relation_names_the_relation_it_serves() {
    assert_eq!(demand_relation("(aux 3)", &[true, false]), "(demand (aux 3) bf)");
    assert_eq!(served("(demand (aux 3) bf)"), Some("(aux 3)"));
    assert_eq!(served("(aux 3)"), None);
}

/// Chess's shape: `check` is negated by `legal`, `has` (some legal move) by `stuck`, and `mate`
/// asks for `check` of the stuck role, so that the demand for `check` ties both negations into
/// one cycle. Completing `check` (and `threat` under it) breaks the cycle; completing `has`
/// would complete everything `legal` reads as well. Which negation the cycle is found through
/// depends on how the relations are spelled; the choice must not.
#[test]
fn the_relation_completed_to_break_a_negative_cycle_is_the_cheapest_under_any_spelling() {
    let text = "(role w) (role b) (king w 1) (king b 2) (attack b 1) (move w m) (move b m)
        (<= (threat ?x) (attack ?r ?x))
        (<= (CHECK ?r) (king ?r ?x) (threat ?x))
        (<= (legal ?r ?m) (move ?r ?m) (not (CHECK ?r)))
        (<= (HAS ?r) (legal ?r ?m))
        (<= (STUCK ?r) (role ?r) (not (HAS ?r)))
        (<= (mate ?r) (STUCK ?r) (CHECK ?r))
        (<= terminal (mate ?r))";
    for (check, has, stuck) in [("a_check", "z_has", "a_stuck"), ("z_check", "a_has", "z_stuck")] {
        let spelled = text.replace("CHECK", check).replace("HAS", has).replace("STUCK", stuck);
        let rules = restricted(&spelled, &["legal", "terminal"]);
        let has_demand = format!("(demand {has} b)");
        assert!(rules.iter().all(|r| !r.contains("(demand") || r.contains(&has_demand)), "{check}: {rules:#?}");
        assert!(rules.iter().any(|r| r.contains(&has_demand)), "{check}: {rules:#?}");
    }
}

/// `restricted`, with the rewrite's options as the interpreter sets them, and a recursive call
/// placed first or not.
fn restricted_with(text: &str, complete: &[&str], recursion_first: bool) -> Vec<String> {
    let options = Options { split: false, max_size: None, max_rounds: None, recursion_first };
    let program = parse(text, Syntax::Kif).description;
    show(&restrict_with(&program, &|_| None, complete, &options).expect("no limit to pass"))
}

/// A line asked for with its end bound, `(line ?x 3)`: left to right, the step binds both
/// squares first, and the rest of the line is asked with both bound, a demand for every step
/// of the board; with the recursive call first, it is asked with its end bound as the head is,
/// and the rule extends the facts found so far under the one demand.
#[test]
fn a_recursive_call_with_the_heads_own_bindings_goes_first() {
    let text = "(succ 0 1) (succ 1 2) (succ 2 3)
        (<= (line ?x ?y) (succ ?x ?y))
        (<= (line ?x ?z) (succ ?x ?y) (line ?y ?z))
        (<= (goal a ?x) (line ?x 3))";
    let left_to_right = restricted_with(text, &["goal"], false);
    assert!(left_to_right.contains(&"((demand line bb) ?y ?z) <- ((demand line fb) ?z) (succ ?x ?y)".to_string()));
    assert_eq!(
        restricted_with(text, &["goal"], true),
        [
            "(goal a ?x) <- (line ?x 3)",
            "((demand line fb) 3) <- ",
            "(line ?x ?y) <- ((demand line fb) ?y) (succ ?x ?y)",
            "(line ?x ?z) <- ((demand line fb) ?z) (succ ?x ?y) (line ?y ?z)",
            "(succ 0 1) <- ",
            "(succ 1 2) <- ",
            "(succ 2 3) <- ",
        ]
    );
}

/// Asked with its start bound, `(line 0 ?z)`, the same rules keep their order: placed first,
/// the recursive call would be asked with nothing bound, not as the head is.
#[test]
fn a_recursive_call_with_other_bindings_keeps_its_place() {
    let text = "(succ 0 1) (succ 1 2) (succ 2 3)
        (<= (line ?x ?y) (succ ?x ?y))
        (<= (line ?x ?z) (succ ?x ?y) (line ?y ?z))
        (<= (goal a ?z) (line 0 ?z))";
    assert_eq!(restricted_with(text, &["goal"], true), restricted_with(text, &["goal"], false));
}
