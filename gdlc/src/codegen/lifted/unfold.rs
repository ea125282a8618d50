//! Relations that rules read with some arguments free, unfolded into those rules. kalaha_2009's
//! `next` reads `(emptyonlastput ?r ?p2 ?p)` once the move binds `?r` and `?p2`: computing the
//! relation whole makes a fact for every empty pit of either player in every state, to be
//! hashed into a table that one lookup reads. Each such reading rule becomes one rule per rule
//! of the relation read, its head unified with the literal and its body in the literal's place
//! (a step of resolution: the rules derive what the rule did), so that the relation's facts are
//! found only for the terms the reader has bound. A relation whose every other reading tests
//! one fact is then searched (module `probes`), and one that nothing reads any more is not
//! computed at all.
//!
//! A relation is unfolded when it is not recursive, not a query's answer, has arguments and
//! few rules, and every literal that reads it with an argument free is in a rule of a component
//! that is not recursive and of a relation that could not be unfolded or searched in turn, and
//! is reached a few times for the terms bound there, or once: either it binds some of its
//! arguments after nothing but tests, loops over the moves and lookups by key in the
//! evaluation's tables, and the relation's rules then need no loop over every fact of a
//! relation; or it is the relation's only reader and comes after tests alone (the relation's
//! rules then run once, as they did, but their facts go on to the reader's head without a table
//! between). Otherwise the relation's rules would run once for each of many facts, or once for
//! each reader, where computing the relation runs them once: the games of the corpus where
//! unfolding more was measured (checkers-mustjump-torus, whose jumps read captures inside loops
//! over the board, gt_two_thirds_6p, whose sum of the guesses three rules read with nothing
//! bound) ran up to 2.7 times slower.

use super::probes::{order_from, Asked};
use crate::ast::Span;
use crate::datalog::compile::{CLit, CRule, PTerm, Pattern, VarId};
use crate::datalog::eval::{access_paths, bound_by, is_bound, Access, Component, PlannedRule};
use crate::datalog::store::{TermRead, Terms};
use crate::interp::{Interpreter, Query};
use std::collections::{BTreeMap, BTreeSet};

/// The most rules a relation unfolded may have, and the most that one rule may become.
const MOST_RULES: usize = 4;

/// The spans of the rules unfolded into each rule that unfolding wrote, by its engine and
/// number: its join names them beside the rule it was written from.
pub(super) type Sources = BTreeMap<(usize, usize), Vec<Span>>;

/// Unfolds, in the engines the queries chose, the relations that qualify (see the module's doc)
/// into the rules that read them with an argument free, and drops the components of those that
/// nothing reads any more from the plans. Returns where the rules unfolded are written.
pub(super) fn unfold(interp: &mut Interpreter) -> Sources {
    let mut sources = Sources::new();
    let engines: BTreeSet<usize> = interp.chosen.iter().copied().collect();
    for engine in engines {
        let queries: Vec<usize> =
            Query::ALL.iter().map(|&q| q as usize).filter(|&q| interp.chosen[q] == engine).collect();
        let unfolded = unfoldable(interp, engine, &queries);
        if unfolded.is_empty() {
            continue;
        }
        rewrite(interp, engine, &queries, &unfolded, &mut sources);
        drop_unread(interp, engine, &queries, &unfolded);
    }
    sources
}

/// The components of the plans of `queries` of `engine`.
fn used<'a>(interp: &'a Interpreter, engine: usize, queries: &'a [usize]) -> impl Iterator<Item = &'a Component> {
    queries.iter().flat_map(move |&q| interp.engines[engine].plans[q].iter().flatten())
}

/// The relations of `engine` to unfold, with the rules that define them.
fn unfoldable(interp: &Interpreter, engine: usize, queries: &[usize]) -> BTreeMap<usize, Vec<usize>> {
    let keys = &interp.keys;
    let outputs = [keys.legal, keys.next, keys.terminal, keys.goal, keys.sees];
    let rules = &interp.engines[engine].rules;
    let is_fixed = |rel: usize| interp.engines[engine].is_fixed.get(rel).copied().unwrap_or(false);
    let moves: BTreeSet<usize> = interp.inputs.loaded_into(1).collect();
    let mut candidates = BTreeMap::new();
    for component in used(interp, engine, queries) {
        let [rel] = component.relations[..] else { continue };
        let arity = interp.relations.keys.get(rel).map_or(0, |key| key.1);
        let count = component.rules.len();
        if !component.recursive
            && (1..=MOST_RULES).contains(&count)
            && arity > 0
            && !outputs.contains(&rel)
            && !is_fixed(rel)
        {
            candidates.insert(rel, component.rules.iter().map(|planned| planned.rule).collect::<Vec<usize>>());
        }
    }
    let reads = count_reads(interp, engine, queries);
    let (mut opened, mut refused) = (BTreeSet::new(), BTreeSet::new());
    for component in used(interp, engine, queries) {
        for planned in &component.rules {
            let rule = &rules[planned.rule];
            let variants = if component.recursive { &rule.delta_variants[..] } else { &[] };
            for rule in std::iter::once(rule).chain(variants) {
                let access = access_paths(rule);
                for (at, rel) in open_reads(rule, &access, |rel| candidates.contains_key(&rel)) {
                    opened.insert(rel);
                    let defining = candidates.get(&rel).map(Vec::as_slice).unwrap_or_default();
                    let callees = defining.iter().map(|&r| &rules[r]);
                    let cheap = cheap_when_bound(rule, at, callees, &interp.terms);
                    // A rule of a relation unfolded or searched in turn keeps its reads.
                    let nested = candidates.contains_key(&rule.head.rel);
                    let narrow = reached_by_lookups(rule, &access, at, &moves, &is_fixed) && cheap;
                    let sole = reads.get(&rel) == Some(&1) && after_tests(rule, &access, at);
                    if component.recursive || nested || !(narrow || sole) {
                        refused.insert(rel);
                    }
                }
            }
        }
    }
    candidates.retain(|rel, _| opened.contains(rel) && !refused.contains(rel));
    candidates
}

/// The positions and relations of the literals of `rule` (finding their facts by `access`)
/// that read a relation `chosen` with an argument free.
fn open_reads(rule: &CRule, access: &[Access], chosen: impl Fn(usize) -> bool) -> Vec<(usize, usize)> {
    let reads = rule.body.iter().zip(access).enumerate();
    let open = reads.filter_map(|(at, (lit, access))| match lit {
        CLit::Pos(p) if chosen(p.rel) && *access != Access::Member => Some((at, p.rel)),
        _ => None,
    });
    open.collect()
}

/// Whether literal `at` of `rule` (its literals finding their facts by `access`) reads its
/// relation through an index (some argument bound), after nothing but tests, loops over the
/// moves and lookups in the evaluation's tables by a key: it is then reached a few times, for
/// the terms those bind. A literal that nothing binds would only copy the relation's rules into
/// its reader, and one after a loop over every fact of a relation, or over a static relation's,
/// would run them once per fact.
fn reached_by_lookups(
    rule: &CRule,
    access: &[Access],
    at: usize,
    moves: &BTreeSet<usize>,
    is_fixed: &impl Fn(usize) -> bool,
) -> bool {
    let before = rule.body[..at].iter().zip(access);
    let narrow = before.into_iter().all(|(lit, access)| match (lit, access) {
        (CLit::Pos(_), Access::Member) => true,
        (CLit::Pos(p), _) if moves.contains(&p.rel) => true,
        (CLit::Pos(p), Access::Index(_)) => !is_fixed(p.rel),
        (CLit::Pos(_), Access::Scan) => false,
        (CLit::Neg(_) | CLit::Distinct(..) | CLit::Equal(..), _) => true,
    });
    narrow && matches!(access[at], Access::Index(_))
}

/// Whether literal `at` of `rule` (its literals finding their facts by `access`) comes after
/// tests alone: it is reached once.
fn after_tests(rule: &CRule, access: &[Access], at: usize) -> bool {
    let before = rule.body[..at].iter().zip(access);
    before.into_iter().all(|(lit, access)| !matches!(lit, CLit::Pos(_)) || *access == Access::Member)
}

/// The number of literals that read each relation in the rules of the plans of `queries` of
/// `engine` (a rule in several plans counted once).
fn count_reads(interp: &Interpreter, engine: usize, queries: &[usize]) -> BTreeMap<usize, usize> {
    let mut rules = BTreeSet::new();
    for component in used(interp, engine, queries) {
        rules.extend(component.rules.iter().map(|planned| planned.rule));
    }
    let mut reads = BTreeMap::new();
    for &number in &rules {
        let rule = &interp.engines[engine].rules[number];
        for lit in std::iter::once(rule).chain(&rule.delta_variants).flat_map(|r| &r.body) {
            if let CLit::Pos(p) | CLit::Neg(p) = lit {
                *reads.entry(p.rel).or_insert(0) += 1;
            }
        }
    }
    reads
}

/// Whether every rule of `callees`, unfolded into literal `at` of `rule`, finds each of its
/// facts through an index or a test: no loop over every fact of a relation.
fn cheap_when_bound<'a>(rule: &CRule, at: usize, mut callees: impl Iterator<Item = &'a CRule>, terms: &Terms) -> bool {
    callees.all(|callee| match resolve(rule, at, callee, Some(terms)) {
        Some(Resolved::Rule(unfolded, span)) => {
            let access = access_paths(&unfolded);
            access[span.0..span.1].iter().all(|access| *access != Access::Scan)
        }
        Some(Resolved::Never) => true,
        None => false,
    })
}

/// Rewrites every rule of the plans of `queries` of `engine` that reads a relation of
/// `unfolded` with an argument free (none is a rule of such a relation: see
/// [`unfoldable`]), noting in `sources` the rules unfolded into each rule written.
fn rewrite(
    interp: &mut Interpreter,
    engine: usize,
    queries: &[usize],
    unfolded: &BTreeMap<usize, Vec<usize>>,
    sources: &mut Sources,
) {
    let mut by_rule: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &query in queries {
        let Some(mut plan) = interp.engines[engine].plans[query].take() else { continue };
        for component in plan.iter_mut().filter(|c| !c.recursive) {
            let mut planned = Vec::with_capacity(component.rules.len());
            for old in &component.rules {
                let rules = by_rule.entry(old.rule).or_insert_with(|| {
                    let written = unfold_rule(interp, engine, old.rule, unfolded);
                    add_rules(interp, engine, old.rule, written, sources)
                });
                planned.extend(rules.iter().map(|&r| plan_of(&interp.engines[engine].rules[r], r)));
            }
            component.rules = planned;
        }
        interp.engines[engine].plans[query] = Some(plan);
    }
}

/// The numbers of the rules `written` from rule `number` of `engine`, added to its rules, their
/// sources noted in `sources`: `number` itself when nothing was written.
fn add_rules(
    interp: &mut Interpreter,
    engine: usize,
    number: usize,
    written: Option<Vec<(CRule, Vec<Span>)>>,
    sources: &mut Sources,
) -> Vec<usize> {
    let Some(written) = written else { return vec![number] };
    let rules = &mut interp.engines[engine].rules;
    let mut numbers = Vec::with_capacity(written.len());
    for (rule, spans) in written {
        rules.push(rule);
        sources.insert((engine, rules.len() - 1), spans);
        numbers.push(rules.len() - 1);
    }
    numbers
}

/// The rule planned as the planner would: its access paths, no delta variants.
fn plan_of(rule: &CRule, number: usize) -> PlannedRule {
    PlannedRule { rule: number, access: access_paths(rule), variant_access: Vec::new() }
}

/// The rules that rule `number` of `engine` becomes once the relations of `unfolded` (by the
/// numbers of their rules) are unfolded into it, each with the spans of the rules unfolded into
/// it: `None` when it reads none with an argument free, or when unfolding would make more than
/// [`MOST_RULES`] rules.
fn unfold_rule(
    interp: &Interpreter,
    engine: usize,
    number: usize,
    unfolded: &BTreeMap<usize, Vec<usize>>,
) -> Option<Vec<(CRule, Vec<Span>)>> {
    let rules = &interp.engines[engine].rules;
    let mut done = Vec::new();
    let mut pending = vec![(rules[number].clone(), Vec::new())];
    while let Some((rule, spans)) = pending.pop() {
        let open = open_reads(&rule, &access_paths(&rule), |rel| unfolded.contains_key(&rel));
        let Some(&(at, rel)) = open.first() else {
            done.push((rule, spans));
            continue;
        };
        // Pushed last first, so that the rules written come in the order of the callees.
        for &callee in unfolded.get(&rel).map(Vec::as_slice).unwrap_or_default().iter().rev() {
            let callee = &rules[callee];
            if let Some(Resolved::Rule(written, _)) = resolve(&rule, at, callee, Some(&interp.terms)) {
                let mut spans = spans.clone();
                spans.push(callee.span);
                pending.push((written, spans));
            }
        }
        if done.len() + pending.len() > MOST_RULES {
            return None;
        }
    }
    let unchanged = matches!(&done[..], [(_, spans)] if spans.is_empty());
    (!unchanged).then_some(done)
}

/// What resolving a literal with a rule gives.
enum Resolved {
    /// The rule that results, and where the resolved rule's body lies in its body.
    Rule(CRule, (usize, usize)),
    /// The rule's head does not unify with the literal: it derives none of its facts.
    Never,
}

/// `rule` with literal `at` replaced by the body of `callee`, whose head is unified with it
/// (the callee's variables renamed apart), its literals in the order of a search from the
/// variables bound there. Ground terms are taken apart through `terms` when given; without,
/// or when a ground term is matched against a function term, `None`.
fn resolve(rule: &CRule, at: usize, callee: &CRule, terms: Option<&Terms>) -> Option<Resolved> {
    let CLit::Pos(read) = &rule.body[at] else { return None };
    let offset = rule.num_vars;
    let renamed = |term: &PTerm| rename(term, offset);
    let mut unifier = Unifier { bindings: vec![None; offset + callee.num_vars], terms };
    for (ours, theirs) in read.args.iter().zip(callee.head.args.iter()) {
        match unifier.unify(ours, &renamed(theirs)) {
            Some(true) => {}
            Some(false) => return Some(Resolved::Never),
            None => return None,
        }
    }
    let lit = |lit: &CLit, rename_by: usize| unifier.literal(lit, rename_by);
    let before: Vec<CLit> = rule.body[..at].iter().map(|l| lit(l, 0)).collect();
    let after: Vec<CLit> = rule.body[at + 1..].iter().map(|l| lit(l, 0)).collect();
    let inserted: Vec<CLit> = callee.body.iter().map(|l| lit(l, offset)).collect();
    // The unifier may have made a `distinct` of a term and itself, which never holds, or an
    // equality of a term and itself, or a `distinct` of two ground terms, settled now.
    let settled = |l: &CLit| match l {
        CLit::Distinct(x, y) if x == y => Some(false),
        CLit::Equal(x, y) if x == y => Some(true),
        CLit::Distinct(PTerm::Ground(g), PTerm::Ground(h)) => Some(g != h),
        _ => None,
    };
    if before.iter().chain(&inserted).chain(&after).any(|l| settled(l) == Some(false)) {
        return Some(Resolved::Never);
    }
    let kept = |lits: Vec<CLit>| -> Vec<CLit> { lits.into_iter().filter(|l| settled(l).is_none()).collect() };
    let (before, inserted, after) = (kept(before), kept(inserted), kept(after));
    let num_vars = offset + callee.num_vars;
    let bound = bound_by(&before, num_vars);
    // A literal read with nothing bound keeps the planner's order of the callee's body, planned
    // for a head with nothing bound too.
    let inserted = match read.args.iter().any(|arg| is_bound(&unifier.apply(arg), &bound)) {
        true => order_from(&inserted, bound, Asked::none())?,
        false => inserted,
    };
    let span = (before.len(), before.len() + inserted.len());
    let head = Pattern { rel: rule.head.rel, args: rule.head.args.iter().map(|a| unifier.apply(a)).collect() };
    let body = before.into_iter().chain(inserted).chain(after).collect();
    let unfolded = CRule { head, body, num_vars, delta_variants: Vec::new(), span: rule.span };
    Some(Resolved::Rule(unfolded, span))
}

/// `term` with every variable numbered `offset` more.
fn rename(term: &PTerm, offset: usize) -> PTerm {
    match term {
        PTerm::Var(v) => PTerm::Var(*v + offset as VarId),
        PTerm::Ground(g) => PTerm::Ground(*g),
        PTerm::Func(sym, args) => PTerm::Func(*sym, args.iter().map(|a| rename(a, offset)).collect()),
    }
}

/// A most general unifier under construction: the term each variable is bound to.
struct Unifier<'t> {
    bindings: Vec<Option<PTerm>>,
    terms: Option<&'t Terms>,
}

impl Unifier<'_> {
    /// `term` with its variable, when it is a bound one, replaced by its binding, in turn.
    fn walk(&self, term: &PTerm) -> PTerm {
        let mut term = term.clone();
        while let PTerm::Var(v) = term {
            match &self.bindings[v as usize] {
                Some(bound) => term = bound.clone(),
                None => break,
            }
        }
        term
    }

    /// Unifies `a` and `b`: whether they unify, or `None` when a ground term would have to be
    /// taken apart without the store.
    fn unify(&mut self, a: &PTerm, b: &PTerm) -> Option<bool> {
        match (self.walk(a), self.walk(b)) {
            (PTerm::Var(x), PTerm::Var(y)) if x == y => Some(true),
            (PTerm::Var(x), PTerm::Var(y)) => {
                // The later variable (the callee's) takes the earlier (the reader's).
                let (from, to) = if x > y { (x, y) } else { (y, x) };
                self.bindings[from as usize] = Some(PTerm::Var(to));
                Some(true)
            }
            (PTerm::Var(x), term) | (term, PTerm::Var(x)) => {
                if self.occurs(x, &term) {
                    return Some(false);
                }
                self.bindings[x as usize] = Some(term);
                Some(true)
            }
            (PTerm::Ground(g), PTerm::Ground(h)) => Some(g == h),
            (PTerm::Func(f, xs), PTerm::Func(g, ys)) => {
                if f != g || xs.len() != ys.len() {
                    return Some(false);
                }
                for (x, y) in xs.iter().zip(ys.iter()) {
                    if !self.unify(x, y)? {
                        return Some(false);
                    }
                }
                Some(true)
            }
            (PTerm::Ground(g), PTerm::Func(f, args)) | (PTerm::Func(f, args), PTerm::Ground(g)) => {
                let node = self.terms?.node(g);
                if node.sym != f || node.args.len() != args.len() {
                    return Some(false);
                }
                let parts: Vec<PTerm> = node.args.iter().map(|&a| PTerm::Ground(a)).collect();
                for (part, arg) in parts.iter().zip(args.iter()) {
                    if !self.unify(part, arg)? {
                        return Some(false);
                    }
                }
                Some(true)
            }
        }
    }

    /// Whether variable `v` occurs in `term` once bindings are applied.
    fn occurs(&self, v: VarId, term: &PTerm) -> bool {
        match self.walk(term) {
            PTerm::Var(w) => w == v,
            PTerm::Ground(_) => false,
            PTerm::Func(_, args) => args.iter().any(|a| self.occurs(v, a)),
        }
    }

    /// `term` with every bound variable replaced by its binding, through and through.
    fn apply(&self, term: &PTerm) -> PTerm {
        match self.walk(term) {
            PTerm::Func(sym, args) => PTerm::Func(sym, args.iter().map(|a| self.apply(a)).collect()),
            other => other,
        }
    }

    /// `lit`, its variables first numbered `offset` more, with the bindings applied.
    fn literal(&self, lit: &CLit, offset: usize) -> CLit {
        let term = |t: &PTerm| self.apply(&rename(t, offset));
        let pattern = |p: &Pattern| Pattern { rel: p.rel, args: p.args.iter().map(term).collect() };
        match lit {
            CLit::Pos(p) => CLit::Pos(pattern(p)),
            CLit::Neg(p) => CLit::Neg(pattern(p)),
            CLit::Distinct(x, y) => CLit::Distinct(term(x), term(y)),
            CLit::Equal(x, y) => CLit::Equal(term(x), term(y)),
        }
    }
}

/// Drops from the plans of `queries` of `engine` the components of the relations of `unfolded`
/// that no rule of the plan reads any more.
fn drop_unread(interp: &mut Interpreter, engine: usize, queries: &[usize], unfolded: &BTreeMap<usize, Vec<usize>>) {
    for &query in queries {
        let read = count_reads(interp, engine, &[query]);
        let unread =
            |c: &Component| matches!(c.relations[..], [rel] if unfolded.contains_key(&rel) && !read.contains_key(&rel));
        if let Some(plan) = interp.engines[engine].plans[query].as_mut() {
            plan.retain(|c| !unread(c));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{resolve, unfold, Resolved};
    use crate::datalog::compile::{CLit, CRule, PTerm, Pattern};
    use crate::datalog::eval::Access;
    use crate::interp::{Interpreter, Query};
    use crate::parse::parse_auto;

    fn pattern(rel: usize, args: Vec<PTerm>) -> Pattern {
        Pattern { rel, args: args.into_boxed_slice() }
    }

    fn rule(head: Pattern, body: Vec<CLit>, num_vars: usize) -> CRule {
        CRule { head, body, num_vars, delta_variants: Vec::new(), span: Default::default() }
    }

    /// `h(Y) :- m(X), r(X, Y), distinct(X, Y)` resolved with `r(Z, f(Z)) :- s(Z)` is
    /// `h(f(X)) :- m(X), s(X), distinct(X, f(X))`; with `r(Z, Z) :- s(Z)`, whose head makes `Y`
    /// the same as `X`, it derives nothing.
    #[test]
    fn resolving_unifies_the_head_and_settles_what_the_unifier_decides() {
        let (x, y, z) = (PTerm::Var(0), PTerm::Var(1), PTerm::Var(0));
        let reader = rule(
            pattern(0, vec![y.clone()]),
            vec![
                CLit::Pos(pattern(1, vec![x.clone()])),
                CLit::Pos(pattern(2, vec![x.clone(), y.clone()])),
                CLit::Distinct(x.clone(), y),
            ],
            2,
        );
        let f = |t: PTerm| PTerm::Func(7, vec![t].into_boxed_slice());
        let callee = rule(pattern(2, vec![z.clone(), f(z.clone())]), vec![CLit::Pos(pattern(3, vec![z.clone()]))], 1);
        let Some(Resolved::Rule(resolved, span)) = resolve(&reader, 1, &callee, None) else { panic!("no rule") };
        assert_eq!(resolved.head, pattern(0, vec![f(x.clone())]));
        let body = vec![
            CLit::Pos(pattern(1, vec![x.clone()])),
            CLit::Pos(pattern(3, vec![x.clone()])),
            CLit::Distinct(x.clone(), f(x)),
        ];
        assert_eq!((resolved.body, span), (body, (1, 2)));
        let same = rule(pattern(2, vec![z.clone(), z.clone()]), vec![CLit::Pos(pattern(3, vec![z]))], 1);
        assert!(matches!(resolve(&reader, 1, &same, None), Some(Resolved::Never)));
    }

    const RELAY: &str = "(role w) (role b) (init (pit 1 1)) (init (pit 2 2)) (init (control w))
        (owner w 1) (owner b 2) (ahead 1 1 2) (ahead 1 2 1) (ahead 2 1 1) (ahead 2 2 2)
        (<= (lands ?p ?q) (true (pit ?p ?n)) (ahead ?p ?n ?q))
        (<= (lands ?p ?p) (true (pit ?p 2)))
        (<= (legal ?r (take ?p)) (true (control ?r)) (owner ?r ?p))
        (<= (legal ?r noop) (role ?r) (not (true (control ?r))))
        (<= (next (pit ?q 1)) (does ?r (take ?p)) (lands ?p ?q))
        (<= (next (mark ?q)) (true (pit ?p ?n)) (near ?p ?q))
        (<= (near ?p ?q) (true (pit ?p ?n)) (ahead ?p ?n ?q))
        (<= (glowing ?q) (true (pit ?q 2)))
        (<= (next (glow ?q)) (glowing ?q))
        (<= (next (control b)) (true (control w)))
        (<= terminal (true (pit 1 2)))
        (<= (goal ?r 100) (role ?r))";

    /// The relations in the plan of `next`, and the access of each literal that reads `name`
    /// (of `arity` arguments) in the plan's rules, once `game` is unfolded.
    fn next_plan(game: &str, name: &str, arity: usize) -> (Vec<String>, Vec<Access>) {
        let parsed = parse_auto(game);
        assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
        let mut interp = Interpreter::new(&parsed.description).expect("the game loads");
        unfold(&mut interp);
        let engine = &interp.engines[interp.chosen[Query::Next as usize]];
        let plan = engine.plans[Query::Next as usize].as_deref().unwrap_or_default();
        let relations = plan.iter().flat_map(|c| &c.relations).map(|&r| interp.relations.keys[r].0.clone()).collect();
        let rel = interp.relations.get(name, arity).expect("the relation");
        let mut reads = Vec::new();
        for planned in plan.iter().flat_map(|c| &c.rules) {
            for (lit, access) in engine.rules[planned.rule].body.iter().zip(&planned.access) {
                if matches!(lit, CLit::Pos(p) if p.rel == rel) {
                    reads.push(access.clone());
                }
            }
        }
        (relations, reads)
    }

    /// `lands`, read once the move binds its first argument, is unfolded into `next`'s rule and
    /// computed no more, and so is `glowing`, read by one literal that nothing comes before;
    /// `near`, read inside a loop over every pit, is computed.
    #[test]
    fn a_relation_read_once_the_move_binds_it_or_read_once_is_unfolded() {
        let (relations, lands) = next_plan(RELAY, "lands", 2);
        assert!(!relations.contains(&"lands".to_string()) && lands.is_empty(), "{relations:?} {lands:?}");
        let (relations, glowing) = next_plan(RELAY, "glowing", 1);
        assert!(!relations.contains(&"glowing".to_string()) && glowing.is_empty(), "{relations:?} {glowing:?}");
        let (relations, near) = next_plan(RELAY, "near", 2);
        assert!(relations.contains(&"near".to_string()) && !near.is_empty(), "{relations:?} {near:?}");
    }
}
