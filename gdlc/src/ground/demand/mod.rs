//! Demand restriction of the relaxed program: a magic-sets rewrite after which a relation is
//! computed only for the argument values its callers can ask for, not for every value.
//!
//! Bottom-up, a relation such as `(count_loop ?pit ?w1 ?b1 ?w ?b)`, which every caller calls with
//! its first arguments bound, is computed for every value those arguments could take; the
//! rewrite computes it only for the values that reach a call. For every call of relation `p` with
//! the arguments at positions `a` bound (its adornment), a demand relation `(demand p a)` holds
//! the bound values, derived from the demand of the caller and the literals before the call
//! (left to right, positive literals first, each next one sharing a bound variable when one can).
//! Every rule for `p` is guarded by the demand of each adornment `p` is called with. A relation
//! called with no argument bound, one whose rules are all facts, and the relations the caller
//! asks for completely are computed completely, as before.
//!
//! The relaxed program negates static relations only, and stratified: a negation reads its
//! relation after the relation's stratum is complete. A demand for a negated relation can tie
//! the relation back to its reader; when the rewritten program is not stratified, the negated
//! relation and everything it depends on are computed completely instead, until it is.
//!
//! A demand rule keeps every variable of its caller's prefix; the variables that only a part of
//! the prefix uses are then projected out of it (see [`split_demand`]).

use crate::ast::{Atom, Description, Literal, Rule, Span, Term};
use crate::graph::Dependencies;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// A relation's name and arity.
type Key = (String, usize);

/// Which arguments of a call are bound.
type Adornment = Vec<bool>;

/// The name of the demand relation of `name` called with `adornment`; it contains parentheses
/// and spaces, so no symbol of a game can spell it.
pub fn demand_relation(name: &str, adornment: &[bool]) -> String {
    let pattern: String = adornment.iter().map(|&b| if b { 'b' } else { 'f' }).collect();
    format!("(demand {name} {pattern})")
}

/// The relation whose calls a demand relation holds, or `None` for another relation.
pub fn served(name: &str) -> Option<&str> {
    name.strip_prefix("(demand ")?.strip_suffix(')')?.rsplit_once(' ').map(|(served, _)| served)
}

/// The relation whose demand a part of a demand rule computes (see [`split_demand`]), or `None`
/// for another relation.
pub fn part_of(name: &str) -> Option<&str> {
    name.strip_prefix("(part ")?.strip_suffix(')')?.split_once(" of ").map(|(_, origin)| origin)
}

/// The name of part `k` of a demand rule for `origin`: it contains parentheses and spaces, so no
/// symbol of a game can spell it.
fn part_name(k: usize, origin: &str) -> String {
    format!("(part {k} of {origin})")
}

/// Decomposes the demand rules (see [`super::decompose`]). A demand rule's body is the prefix
/// of its caller's body, and keeps every variable of it though the demand has only the bound
/// arguments of the call: one that passes through a move generator to a test of two squares is
/// derived once per move and pair of squares. Its variables that only connect part of the
/// prefix are projected out first, which derives the same demand from far fewer instances.
fn split_demand(program: &Description) -> Description {
    let is_demand = |rule: &Rule| served(&rule.head.name).is_some();
    super::decompose::decompose_where(program, &is_demand, &part_name)
}

/// What a rule of the program computes for, when it is not simply its head.
pub struct Serves {
    /// The atom whose demand guards the rule (for an instance query, its alternative's head).
    pub atom: Atom,
    /// Atoms whose facts are read for the rule's bindings after the fixpoint though its body
    /// does not use them (the dropped negations of the relaxation).
    pub reads: Vec<Atom>,
}

/// Rewrites `program` so that relations are computed for the demanded bindings only. Relations
/// named in `complete` are computed completely; `serves` names what a rule computes for, when
/// that is not its head.
pub fn restrict(program: &Description, serves: &dyn Fn(&Rule) -> Option<Serves>, complete: &[&str]) -> Description {
    let rules: Vec<(Serves, Vec<Body<'_>>)> = program
        .rules
        .iter()
        .map(|rule| {
            let serves = serves(rule).unwrap_or_else(|| Serves { atom: rule.head.clone(), reads: Vec::new() });
            let body = rule.body.iter().map(Body::of).collect();
            (serves, body)
        })
        .collect();
    let original = Dependencies::build(program);
    let outputs: BTreeSet<String> = complete.iter().map(|s| s.to_string()).collect();
    let mut forced = outputs.clone();
    loop {
        let rewritten = Rewrite::new(program, &rules, &outputs, &forced).run();
        let Some(cycle) = Dependencies::build(&rewritten).negative_cycle() else { return split_demand(&rewritten) };
        // The negated relation depends on its reader through a demand: compute it completely.
        let before = forced.len();
        forced.extend(original.dependencies_of(&[cycle[0].as_str()]));
        if forced.len() == before {
            return program.clone();
        }
    }
}

/// A body literal, as the rewrite sees it.
enum Body<'r> {
    Pos(&'r Atom),
    Neg(&'r Atom),
    /// A comparison: it binds nothing.
    Test(&'r Literal),
    /// Anything else: its atoms are called with nothing bound.
    Other(&'r Literal),
}

impl Body<'_> {
    fn of(literal: &Literal) -> Body<'_> {
        match literal {
            Literal::Atom(a) => Body::Pos(a),
            Literal::Not(inner, _) => match &**inner {
                Literal::Atom(a) => Body::Neg(a),
                Literal::Distinct(..) => Body::Test(literal),
                _ => Body::Other(literal),
            },
            Literal::Distinct(..) => Body::Test(literal),
            _ => Body::Other(literal),
        }
    }
}

/// A call in a body under a sideways-information-passing order.
struct Call<'r> {
    atom: &'r Atom,
    adornment: Adornment,
    /// The body literals evaluated before the call that narrow its demand: positive atoms and
    /// comparisons over bound variables.
    prefix: Vec<&'r Literal>,
}

fn vars_of(term: &Term, out: &mut BTreeSet<String>) {
    term.for_each_var(&mut |v, _| {
        out.insert(v.to_string());
    });
}

fn bound_term(term: &Term, bound: &BTreeSet<String>) -> bool {
    let mut vars = BTreeSet::new();
    vars_of(term, &mut vars);
    vars.is_subset(bound)
}

fn adornment(atom: &Atom, bound: &BTreeSet<String>) -> Adornment {
    atom.args.iter().map(|t| bound_term(t, bound)).collect()
}

fn key(atom: &Atom) -> Key {
    (atom.name.clone(), atom.args.len())
}

/// The calls of a rule's body (and of its reads) when it is asked for with `head` bound.
fn calls<'r>(
    literals: &'r [Literal],
    body: &[Body<'r>],
    served: &Atom,
    head: Option<&[bool]>,
    reads: &'r [Atom],
) -> Vec<Call<'r>> {
    let mut bound = BTreeSet::new();
    if let Some(adornment) = head {
        for (t, &b) in served.args.iter().zip(adornment) {
            if b {
                vars_of(t, &mut bound);
            }
        }
    }
    let mut out = Vec::new();
    let mut prefix: Vec<&'r Literal> = Vec::new();
    let mut tests: Vec<usize> = Vec::new();
    let add_ready_tests = |bound: &BTreeSet<String>, prefix: &mut Vec<&'r Literal>, tests: &mut Vec<usize>| {
        for (i, b) in body.iter().enumerate() {
            if let Body::Test(l) = b {
                let mut vars = BTreeSet::new();
                l.for_each_var(&mut |v, _| {
                    vars.insert(v.to_string());
                });
                if !tests.contains(&i) && vars.is_subset(bound) {
                    tests.push(i);
                    prefix.push(l);
                }
            }
        }
    };
    add_ready_tests(&bound, &mut prefix, &mut tests);
    for (i, b) in body.iter().enumerate() {
        let Body::Pos(atom) = *b else { continue };
        out.push(Call { atom, adornment: adornment(atom, &bound), prefix: prefix.clone() });
        prefix.push(&literals[i]);
        atom.for_each_var(&mut |v, _| {
            bound.insert(v.to_string());
        });
        add_ready_tests(&bound, &mut prefix, &mut tests);
    }
    for b in body {
        match *b {
            Body::Neg(atom) => out.push(Call { atom, adornment: adornment(atom, &bound), prefix: prefix.clone() }),
            Body::Other(l) => l.for_each_atom(false, &mut |atom, _| {
                out.push(Call { atom, adornment: vec![false; atom.args.len()], prefix: Vec::new() })
            }),
            _ => {}
        }
    }
    for atom in reads {
        out.push(Call { atom, adornment: adornment(atom, &bound), prefix: prefix.clone() });
    }
    out
}

/// One rewrite with a given set of relations computed completely.
struct Rewrite<'p> {
    program: &'p Description,
    rules: &'p [(Serves, Vec<Body<'p>>)],
    /// The relations the caller reads.
    outputs: Vec<Key>,
    /// The rules computing for each relation.
    rules_of: BTreeMap<Key, Vec<usize>>,
    /// Relations computed completely.
    complete: BTreeSet<Key>,
    /// The adornments each other relation is called with.
    demanded: BTreeMap<Key, BTreeSet<Adornment>>,
}

impl<'p> Rewrite<'p> {
    fn new(
        program: &'p Description,
        rules: &'p [(Serves, Vec<Body<'p>>)],
        outputs: &BTreeSet<String>,
        forced: &BTreeSet<String>,
    ) -> Self {
        let mut rules_of: BTreeMap<Key, Vec<usize>> = BTreeMap::new();
        for (i, (serves, _)) in rules.iter().enumerate() {
            rules_of.entry(key(&serves.atom)).or_default().push(i);
        }
        // Facts gain nothing from a guard.
        let complete = rules_of
            .iter()
            .filter(|(k, rs)| forced.contains(&k.0) || rs.iter().all(|&i| program.rules[i].body.is_empty()))
            .map(|(k, _)| k.clone())
            .collect();
        let outputs = rules_of.keys().filter(|k| outputs.contains(&k.0)).cloned().collect();
        Rewrite { program, rules, outputs, rules_of, complete, demanded: BTreeMap::new() }
    }

    fn calls(&self, i: usize, head: Option<&[bool]>) -> Vec<Call<'p>> {
        let (serves, body) = &self.rules[i];
        calls(&self.program.rules[i].body, body, &serves.atom, head, &serves.reads)
    }

    fn run(mut self) -> Description {
        // Which relations are asked for, and how.
        let mut reached: BTreeSet<Key> = BTreeSet::new();
        let mut work: Vec<(Key, Option<Adornment>)> = Vec::new();
        for k in &self.outputs {
            reached.insert(k.clone());
            work.push((k.clone(), None));
        }
        while let Some((k, head)) = work.pop() {
            if head.is_some() && self.complete.contains(&k) {
                continue;
            }
            for &i in &self.rules_of[&k] {
                for call in self.calls(i, head.as_deref()) {
                    let callee = key(call.atom);
                    if !self.rules_of.contains_key(&callee) {
                        continue;
                    }
                    if self.complete.contains(&callee) || call.adornment.iter().all(|&b| !b) {
                        let newly = self.complete.insert(callee.clone()) | reached.insert(callee.clone());
                        if newly {
                            work.push((callee, None));
                        }
                    } else if self.demanded.entry(callee.clone()).or_default().insert(call.adornment.clone()) {
                        reached.insert(callee.clone());
                        work.push((callee, Some(call.adornment)));
                    }
                }
            }
        }

        // The guarded rules and the rules of the demand relations.
        let mut seen: HashSet<Rule> = HashSet::new();
        let mut out = Vec::new();
        for k in &reached {
            let heads: Vec<Option<Adornment>> = if self.complete.contains(k) {
                vec![None]
            } else {
                self.demanded.get(k).into_iter().flatten().cloned().map(Some).collect()
            };
            for &i in &self.rules_of[k] {
                let rule = &self.program.rules[i];
                for head in &heads {
                    let guard = head.as_ref().map(|a| Literal::Atom(demand_atom(&self.rules[i].0.atom, a)));
                    let body = guard.iter().cloned().chain(rule.body.iter().cloned()).collect();
                    push(&mut out, &mut seen, Rule { head: rule.head.clone(), body, span: rule.span });
                    for call in self.calls(i, head.as_deref()) {
                        let callee = key(call.atom);
                        if !self.rules_of.contains_key(&callee) || self.complete.contains(&callee) {
                            continue;
                        }
                        let body = guard.iter().cloned().chain(call.prefix.iter().map(|&l| l.clone())).collect();
                        let head = demand_atom(call.atom, &call.adornment);
                        push(&mut out, &mut seen, Rule { head, body, span: rule.span });
                    }
                }
            }
        }
        Description { rules: out }
    }
}

/// Adds `rule` unless an equal one, but for its spans, is there already.
fn push(out: &mut Vec<Rule>, seen: &mut HashSet<Rule>, rule: Rule) {
    let mut plain = Description { rules: vec![rule] };
    plain.clear_spans();
    let rule = plain.rules.pop().expect("the rule just put there");
    if seen.insert(rule.clone()) {
        out.push(rule);
    }
}

/// `(demand p a)` over the bound arguments of `atom`.
fn demand_atom(atom: &Atom, adornment: &[bool]) -> Atom {
    let args = atom.args.iter().zip(adornment).filter(|(_, &b)| b).map(|(t, _)| t.clone()).collect();
    Atom { name: demand_relation(&atom.name, adornment), args, span: Span::default() }
}

#[cfg(test)]
mod tests {
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
            [
                "(double ?x ?y) <- (n ?x) (n ?y)",
                "(goal a ?x) <- (double ?x ?y) (distinct ?x ?y)",
                "(n 1) <- ",
                "(n 2) <- ",
            ]
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
        let serves = |rule: &Rule| {
            (rule.head.name == "instances").then(|| Serves { atom: p.clone(), reads: vec![reads.clone()] })
        };
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
}
