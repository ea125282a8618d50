//! Instantiation: the relaxed fixpoint of the rules over-approximates everything that can hold
//! in a reachable state, and every rule is instantiated over it.
//!
//! The relaxation drops the negations of relations that depend on the state, feeds `true` from
//! `init` and `next` and feeds `does` from `legal`. Without those negations the rules are
//! monotone, so their least fixpoint contains every fact of every reachable state, every legal
//! move and every derived atom. Static relations keep their negations and are computed exactly.
//! Each rule alternative becomes a query for the bindings of its variables; every binding is one
//! ground rule, in which the static literals are already known to hold.

use super::{Ground, Lit, Node, Options, Prop, Value};
use crate::ast::{Atom, Description, Literal, Rule, Span, Term};
use crate::graph::Dependencies;
use crate::interp::compile::{dnf, product, Basic, Compiler, RelId, Relations};
use crate::interp::eval::{Component, Eval};
use crate::interp::store::{encode, write_flat, Node as TermNode, Symbols, TermId, TermRead, Terms};
use crate::interp::{plan_components, prepare, FactStats};
use gdl_runtime::prover::{
    Checks, Goal, Pattern, Relation as CheckRelation, Rule as CheckRule, Table as CheckTable, Variant, FUNC, VAR,
};
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet};

/// One conjunction of a rule's disjunctive normal form.
struct Alternative<'a> {
    head: &'a Atom,
    body: Vec<Basic<'a>>,
    /// The variables of the body, sorted: the arguments of its instance query.
    vars: Vec<&'a str>,
}

/// The name of the query for the bindings of alternative `k`; it contains parentheses and a
/// space, so no symbol of a game can spell it.
fn instance_relation(k: usize) -> String {
    format!("(instances {k})")
}

/// Grounds a checked game without simplifying it. When grounding goes past the limit, it is
/// tried again with each relation computed only for the bindings that are asked for (see
/// [`super::demand`]; not first, because its extra rules cost some games far more than they
/// save), and then with the relations that can be checked at run time (see [`super::checks`])
/// left out of the grounding as well. When a static relation still goes past the limit, it is
/// tried once more for each such relation with it, and every relation that depends on it, read
/// as if it depended on the state, so that it can be checked at run time too.
pub fn instantiate(description: &Description, options: &Options) -> Result<Ground, String> {
    let nothing = BTreeSet::new();
    let work_limit = options.max_instances.saturating_mul(WORK_PER_INSTANCE);
    if options.check_relations {
        return match instantiate_with(description, options, true, true, &nothing, work_limit) {
            Err(failure) if failure.message.is_empty() => {
                instantiate_with(description, options, false, true, &nothing, work_limit).map_err(|f| f.message)
            }
            other => other.map_err(|f| f.message),
        };
    }
    let too_large = |result: &Result<Ground, Failure>| matches!(result, Err(failure) if failure.message.starts_with(super::TOO_LARGE));
    let plain = instantiate_with(description, options, false, false, &nothing, work_limit);
    if !too_large(&plain) {
        return plain.map_err(|f| f.message);
    }
    // The demand restriction is there to save work: it gets a few times what the plain
    // attempt spent before it failed.
    let spent = plain.as_ref().err().map_or(0, |f| f.work);
    let demanded = instantiate_with(
        description,
        options,
        false,
        true,
        &nothing,
        work_limit.min(spent.saturating_mul(DEMAND_WORK_FACTOR)),
    );
    if !too_large(&demanded) {
        return demanded.map_err(|f| f.message);
    }
    let Err(mut error) = demanded else { unreachable!("too large is an error") };
    let mut forced = BTreeSet::new();
    loop {
        match instantiate_with(description, options, true, true, &forced, work_limit) {
            Err(failure) if failure.message.is_empty() => return Err(error.message),
            Err(failure) => match &failure.static_relation {
                Some(relation) if !forced.contains(relation) => {
                    forced.insert(relation.clone());
                    error = failure;
                }
                _ => return Err(failure.message),
            },
            Ok(ground) => return Ok(ground),
        }
    }
}

/// How many steps of joins an attempt at grounding may take per fact or rule instance it may
/// derive (`--max-instances`): a bound on its time, since joins that mostly fail derive little.
/// The largest games that ground take 50 per instance of the default limit (chess with its
/// checks, 196 million steps).
const WORK_PER_INSTANCE: usize = 100;

/// How many times the work of the failed plain attempt the demand restriction may take.
const DEMAND_WORK_FACTOR: usize = 4;

/// Why an attempt at grounding failed.
struct Failure {
    /// The error; empty when no relation can be checked at run time.
    message: String,
    /// The static relation that went past the limit, when it could be checked at run time: no
    /// relation that must be exact (`init`, `role`, `base`, `input`) depends on it.
    static_relation: Option<String>,
    /// The steps of joins it took.
    work: usize,
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure { message, static_relation: None, work: 0 }
    }
}

/// Grounds a game, leaving out the relations that can be checked at run time when
/// `with_checks` (an empty error then means that no relation can be), and computing each
/// relation only for the bindings asked for when `with_demand`. The static relations of
/// `forced` and those that depend on them are read as if they depended on the state.
fn instantiate_with(
    description: &Description,
    options: &Options,
    with_checks: bool,
    with_demand: bool,
    forced: &BTreeSet<String>,
    work_limit: usize,
) -> Result<Ground, Failure> {
    let prepared = prepare(description)?;
    let prepared = if options.fold_constant_fluents { super::constant_fluents::fold(prepared) } else { prepared };
    let roles = prepared.roles();
    if roles.is_empty() {
        return Err("the game has no role".to_string().into());
    }
    let deps = Dependencies::build(&prepared);
    let mut dynamic = deps.dependents_of(&["true", "does"]);
    // The relations that depend on the state, before the forced ones join them.
    let state_dependent = dynamic.clone();
    dynamic.extend(deps.dependents_of(&forced.iter().map(String::as_str).collect::<Vec<_>>()));
    let inlined = super::inline::inline(&prepared, &dynamic);
    // Relations checked at run time are chosen on the rules as written, so that they are
    // searched rule by rule, then again after decomposition, which may split a checked literal
    // off a grounded rule together with the literals only it needs.
    let keep = if with_checks {
        let conjunctions: Vec<(&Atom, Vec<Basic<'_>>)> = inlined
            .rules
            .iter()
            .flat_map(|rule| product(rule.body.iter().map(|l| dnf(l, false))).into_iter().map(move |b| (&rule.head, b)))
            .collect();
        let rules: Vec<super::checks::Rule<'_, '_>> =
            conjunctions.iter().map(|(head, body)| super::checks::Rule { head, body }).collect();
        super::checks::plan(&rules, &dynamic, &Dependencies::build(&inlined), true).relations.into_keys().collect()
    } else {
        BTreeSet::new()
    };
    let mut keep = keep;
    let absorbed = if keep.is_empty() { inlined } else { super::checks::absorb(&inlined, &mut keep, &mut dynamic) };
    let decomposed = super::decompose::decompose_except(&absorbed, &mut dynamic, &keep);

    let mut alternatives = Vec::new();
    for rule in &decomposed.description.rules {
        for body in product(rule.body.iter().map(|l| dnf(l, false))) {
            let mut vars = BTreeSet::new();
            for b in &body {
                vars.extend(b.vars());
            }
            alternatives.push(Alternative { head: &rule.head, body, vars: vars.into_iter().collect() });
        }
    }
    let plan = if with_checks {
        let rules: Vec<super::checks::Rule<'_, '_>> =
            alternatives.iter().map(|a| super::checks::Rule { head: a.head, body: &a.body }).collect();
        let plan = super::checks::plan(&rules, &dynamic, &Dependencies::build(&decomposed.description), false);
        if plan.relations.is_empty() {
            return Err(String::new().into());
        }
        plan
    } else {
        super::checks::Plan::default()
    };
    let checked: BTreeSet<String> = plan.relations.keys().cloned().collect();
    let relaxed = relaxed_program(&alternatives, &dynamic, &checked);
    // Each relation only for the bindings that its callers and the instance queries ask for.
    let serves = |rule: &Rule| {
        let k: usize = rule.head.name.strip_prefix("(instances ")?.strip_suffix(')')?.parse().ok()?;
        let dropped = |b: &Basic<'_>| match *b {
            Basic::Neg(a) if dynamic.contains(&a.name) && !checked.contains(&a.name) => Some(a.clone()),
            _ => None,
        };
        let reads = alternatives[k].body.iter().filter_map(dropped).collect();
        Some(super::demand::Serves { atom: alternatives[k].head.clone(), reads })
    };
    // Checked rules read static relations at run time with any bindings: those are complete.
    let mut complete: BTreeSet<&str> =
        ["init", "true", "next", "does", "legal", "terminal", "goal", "sees", "role"].into_iter().collect();
    for alternative in alternatives.iter().filter(|a| checked.contains(&a.head.name)) {
        for b in &alternative.body {
            if let Basic::Pos(a) | Basic::Neg(a) = *b {
                if !dynamic.contains(&a.name) {
                    complete.insert(a.name.as_str());
                }
            }
        }
    }
    let complete: Vec<&str> = complete.into_iter().collect();
    let relaxed = if with_demand { super::demand::restrict(&relaxed, &serves, &complete) } else { relaxed };

    let (mut symbols, mut terms, mut relations) = (Symbols::default(), Terms::default(), Relations::default());
    let stats = FactStats::new(&relaxed);
    let relaxed_deps = Dependencies::build(&relaxed);
    let rules = Compiler { symbols: &mut symbols, terms: &mut terms, relations: &mut relations }.compile(
        &relaxed,
        &|atom: &Atom, bound: &BTreeSet<&str>| match super::demand::served(&atom.name) {
            Some(_) => 1.0,
            None => stats.cost(atom, bound),
        },
        &|head: &str, body: &str| relaxed_deps.same_component(head, body),
    )?;
    // The instance queries are evaluated one at a time once everything else is computed, each
    // while its instances are grounded (nothing reads them), so that no more than one of them
    // is ever held. One whose body reads a single relation has at most as many instances as
    // that relation has facts, which count already: its own do not count toward the limit.
    let (queries, components): (Vec<Component>, Vec<Component>) = plan_components(&relaxed_deps, &relations, &rules)
        .into_iter()
        .partition(|component| component.relations.iter().all(|&rel| relations.keys[rel].0.starts_with("(instances ")));
    let mut eval = Eval::new(&mut terms, &rules, &[], &[], relations.len());
    eval.limit = options.max_instances;
    eval.work_limit = work_limit;
    eval.uncounted = vec![false; relations.len()];
    for (k, alternative) in alternatives.iter().enumerate() {
        let reads = alternative.body.iter().filter(|b| matches!(**b, Basic::Pos(a) if !checked.contains(&a.name)));
        if reads.count() <= 1 {
            if let Some(rel) = relations.get(&instance_relation(k), alternative.vars.len()) {
                eval.uncounted[rel] = true;
            }
        }
    }
    let too_large = |rel: RelId, by_work: Option<usize>| {
        too_large(&relations.keys[rel].0, &alternatives, &decomposed.origins, options, by_work)
    };
    for component in &components {
        eval.run(component);
        if let Some(rel) = eval.exceeded {
            let name = user_relation(&relations.keys[rel].0, &decomposed.origins);
            let exact = ["init", "role", "base", "input"];
            let checkable = !state_dependent.contains(&name)
                && prepared.rules.iter().any(|rule| rule.head.name == name)
                && deps.dependents_of(&[name.as_str()]).iter().all(|r| !exact.contains(&r.as_str()));
            let message = too_large(rel, (eval.work > eval.work_limit).then_some(eval.work_limit));
            return Err(Failure { message, static_relation: checkable.then_some(name), work: eval.work });
        }
    }

    let mut builder = Builder {
        symbols: &symbols,
        eval,
        relations: &relations,
        queries: queries.iter().flat_map(|c| c.relations.iter().map(move |&rel| (rel, c))).collect(),
        too_large: &too_large,
        nodes: Vec::new(),
        node_ids: FxHashMap::default(),
        base_ids: FxHashMap::default(),
        move_ids: FxHashMap::default(),
        base_terms: Vec::new(),
        move_terms: Vec::new(),
        role_ids: FxHashMap::default(),
        checked: &checked,
        check_ids: FxHashMap::default(),
        check_atoms: Vec::new(),
        error: None,
    };
    let run = builder.run(&roles, &alternatives, &dynamic);
    let work = builder.eval.work;
    let mut ground = run.map_err(|message| Failure { message, static_relation: None, work })?;
    if !checked.is_empty() {
        let (checks, names) = builder.checks(&plan, &alternatives, &dynamic)?;
        ground.checks = checks;
        ground.check_atoms = names;
    }
    Ok(ground)
}

/// The user's relation that relation `name` of the relaxed program computes or serves: the
/// relation itself, the relation whose demand it computes, or the relation whose rule a new
/// relation of the decomposition was split from. An instance query is returned as it is.
fn user_relation(name: &str, origins: &[String]) -> String {
    let name = super::demand::part_of(name).unwrap_or(name);
    let name = super::demand::served(name).unwrap_or(name);
    match name.strip_prefix("(aux ").and_then(|k| k.strip_suffix(')')) {
        Some(k) => origins.get(k.parse::<usize>().unwrap_or(usize::MAX)).cloned().unwrap_or_default(),
        None => name.to_string(),
    }
}

/// The error for going past the limit while deriving the facts of relation `name`.
/// With `by_work`, it was that limit on the steps of joins that it went past.
fn too_large(
    name: &str,
    alternatives: &[Alternative<'_>],
    origins: &[String],
    options: &Options,
    by_work: Option<usize>,
) -> String {
    let name = super::demand::part_of(name).unwrap_or(name);
    let name = super::demand::served(name).unwrap_or(name);
    // A new relation of the decomposition is reported as the user's relation it serves.
    let user_relation = |name: &str| user_relation(name, origins);
    let what = match name.strip_prefix("(instances ").and_then(|k| k.strip_suffix(')')) {
        Some(k) => {
            let head = &alternatives[k.parse::<usize>().unwrap_or(0)].head.name;
            format!("instantiating a rule for `{}`", user_relation(head))
        }
        None if name.starts_with("(aux ") => format!("instantiating a rule for `{}`", user_relation(name)),
        None => format!("the relation `{name}`"),
    };
    match by_work {
        Some(steps) => format!(
            "{}: {what} takes more than {steps} steps of joins (the limit grows with --max-instances)",
            super::TOO_LARGE
        ),
        None => format!(
            "{}: {what} goes past {} facts and rule instances (the limit is an option: --max-instances)",
            super::TOO_LARGE,
            options.max_instances
        ),
    }
}

/// The relaxed rules, the instance queries of the alternatives with state-dependent heads, and
/// the rules that feed `true` and `does`. Checked relations are left out, and so are the
/// literals that read them (their arguments are bound by the rest of each rule).
fn relaxed_program(
    alternatives: &[Alternative<'_>],
    dynamic: &BTreeSet<String>,
    checked: &BTreeSet<String>,
) -> Description {
    let span = Span::default();
    let var = |name: &str| Term::Var(name.to_string(), span);
    let atom = |name: &str, args: Vec<Term>| Atom { name: name.to_string(), args, span };
    let mut rules = Vec::new();
    for (k, alternative) in alternatives.iter().enumerate() {
        if checked.contains(&alternative.head.name) {
            continue;
        }
        let body: Vec<Literal> = alternative
            .body
            .iter()
            .filter_map(|b| match *b {
                Basic::Pos(a) | Basic::Neg(a) if checked.contains(&a.name) => None,
                Basic::Pos(a) => Some(Literal::Atom(a.clone())),
                Basic::Neg(a) if dynamic.contains(&a.name) => None,
                Basic::Neg(a) => Some(Literal::Not(Box::new(Literal::Atom(a.clone())), span)),
                Basic::Distinct(x, y) => Some(Literal::Distinct(x.clone(), y.clone(), span)),
                Basic::Equal(x, y) => Some(Literal::Not(Box::new(Literal::Distinct(x.clone(), y.clone(), span)), span)),
            })
            .collect();
        if dynamic.contains(&alternative.head.name) {
            let head = atom(&instance_relation(k), alternative.vars.iter().map(|v| var(v)).collect());
            rules.push(Rule { head, body: body.clone(), span });
        }
        rules.push(Rule { head: alternative.head.clone(), body, span });
    }
    let feed = |head: Atom, from: Atom| Rule { head, body: vec![Literal::Atom(from)], span };
    rules.push(feed(atom("true", vec![var("x")]), atom("init", vec![var("x")])));
    rules.push(feed(atom("true", vec![var("x")]), atom("next", vec![var("x")])));
    rules.push(feed(atom("does", vec![var("r"), var("m")]), atom("legal", vec![var("r"), var("m")])));
    Description { rules }
}

/// Builds the propositional program from the relaxed tables.
struct Builder<'a> {
    symbols: &'a Symbols,
    /// The relaxed fixpoint, with every relation but the instance queries computed.
    eval: Eval<'a, &'a mut Terms>,
    relations: &'a Relations,
    /// The component of each instance query.
    queries: FxHashMap<RelId, &'a Component>,
    /// The error for going past the limit in a relation.
    too_large: &'a dyn Fn(RelId, Option<usize>) -> String,
    nodes: Vec<Node>,
    node_ids: FxHashMap<(RelId, Box<[TermId]>), u32>,
    base_ids: FxHashMap<TermId, u32>,
    move_ids: FxHashMap<TermId, u32>,
    base_terms: Vec<TermId>,
    move_terms: Vec<TermId>,
    role_ids: FxHashMap<TermId, u32>,
    /// The relations checked at run time, and the atoms of them that ground rules read.
    checked: &'a BTreeSet<String>,
    check_ids: FxHashMap<(String, Box<[TermId]>), u32>,
    check_atoms: Vec<(String, Box<[TermId]>)>,
    /// Why the ground program cannot be built, found while instantiating.
    error: Option<String>,
}

impl Builder<'_> {
    fn run(
        &mut self,
        roles: &[String],
        alternatives: &[Alternative<'_>],
        dynamic: &BTreeSet<String>,
    ) -> Result<Ground, String> {
        for (r, name) in roles.iter().enumerate() {
            let id = self.constant(name);
            self.role_ids.entry(id).or_insert(r as u32);
        }
        // Base facts and moves, numbered in the byte order of their canonical text.
        let true_facts = self.facts("true", 1);
        let base = self.numbered(true_facts.iter().map(|f| f[0]).collect(), Numbering::Base);
        let mut inputs = vec![BTreeSet::new(); roles.len()];
        let does_facts: Vec<(u32, TermId)> =
            self.facts("does", 2).iter().filter_map(|f| self.role_ids.get(&f[0]).map(|&r| (r, f[1]))).collect();
        let moves = self.numbered(does_facts.iter().map(|&(_, m)| m).collect(), Numbering::Move);
        for (r, m) in does_facts {
            inputs[r as usize].insert(self.move_ids[&m]);
        }
        let initial: BTreeSet<u32> =
            self.facts("init", 1).iter().filter_map(|f| self.base_ids.get(&f[0])).copied().collect();

        for (k, alternative) in alternatives.iter().enumerate() {
            if !dynamic.contains(&alternative.head.name) {
                continue;
            }
            let Some(rel) = self.relations.get(&instance_relation(k), alternative.vars.len()) else { continue };
            let Some(&query) = self.queries.get(&rel) else { continue };
            self.eval.run(query);
            if let Some(rel) = self.eval.exceeded {
                let by_work = (self.eval.work > self.eval.work_limit).then_some(self.eval.work_limit);
                return Err((self.too_large)(rel, by_work));
            }
            let instances = std::mem::take(&mut self.eval.tables[rel]);
            for binding in &instances.facts {
                let env: BTreeMap<&str, TermId> =
                    alternative.vars.iter().copied().zip(binding.iter().copied()).collect();
                if let Some(body) = self.ground_body(&alternative.body, &env, dynamic) {
                    let head = self.instantiate_atom(alternative.head, &env);
                    let node = self.node(head);
                    self.nodes[node as usize].rules.push(body);
                }
            }
        }

        let role_terms: Vec<TermId> = roles.iter().map(|r| self.constant(r)).collect();
        let legal = inputs
            .iter()
            .enumerate()
            .map(|(r, moves_of_role)| {
                moves_of_role
                    .iter()
                    .map(|&m| {
                        (m, self.output("legal", Box::new([role_terms[r], self.move_terms[m as usize]]), dynamic))
                    })
                    .collect()
            })
            .collect();
        let base_terms = self.base_terms.clone();
        let next = base_terms.iter().map(|&t| self.output("next", Box::new([t]), dynamic)).collect();
        let terminal = self.output("terminal", Box::new([]), dynamic);
        let mut goals = vec![Vec::new(); roles.len()];
        for fact in self.facts("goal", 2) {
            let Some(&r) = self.role_ids.get(&fact[0]) else { continue };
            let node = self.eval.store.node(fact[1]);
            let Some(value) = (node.args.is_empty()).then(|| self.symbols.name(node.sym).parse::<u32>().ok()).flatten()
            else {
                continue;
            };
            let v = self.output("goal", fact.clone(), dynamic);
            goals[r as usize].push((value, v));
        }
        for g in &mut goals {
            g.sort_by(|a, b| b.cmp(a));
        }
        // Percepts, numbered like moves by the byte order of their canonical text.
        let sees_facts: Vec<(u32, TermId)> =
            self.facts("sees", 2).iter().filter_map(|f| self.role_ids.get(&f[0]).map(|&r| (r, f[1]))).collect();
        let mut percept_terms: Vec<(String, TermId)> = sees_facts.iter().map(|&(_, p)| (self.kif(p), p)).collect();
        percept_terms.sort();
        percept_terms.dedup();
        let percept_ids: FxHashMap<TermId, u32> =
            percept_terms.iter().enumerate().map(|(i, &(_, t))| (t, i as u32)).collect();
        let mut sees_sets = vec![BTreeSet::new(); roles.len()];
        for &(r, p) in &sees_facts {
            sees_sets[r as usize].insert(percept_ids[&p]);
        }
        let sees = sees_sets
            .iter()
            .enumerate()
            .map(|(r, percepts)| {
                percepts
                    .iter()
                    .map(|&p| {
                        let args = Box::new([role_terms[r], percept_terms[p as usize].1]);
                        (p, self.output("sees", args, dynamic))
                    })
                    .collect()
            })
            .collect();
        let random_role = roles.iter().position(|r| r.eq_ignore_ascii_case(crate::interp::RANDOM_ROLE));
        let gdl_ii = random_role.is_some() || alternatives.iter().any(|a| a.head.name == "sees");
        Ok(Ground {
            roles: roles.to_vec(),
            base,
            moves,
            inputs: inputs.into_iter().map(|s| s.into_iter().collect()).collect(),
            initial: initial.into_iter().collect(),
            nodes: std::mem::take(&mut self.nodes),
            legal,
            next,
            terminal,
            goals,
            gdl_ii,
            random_role,
            percepts: percept_terms.into_iter().map(|(text, _)| text).collect(),
            sees,
            cycles: Vec::new(),
            checks: Default::default(),
            check_atoms: Vec::new(),
        })
        .and_then(|ground| match self.error.take() {
            Some(error) => Err(error),
            None => Ok(ground),
        })
    }

    /// The facts of a relation of the relaxed program (none when it has no rules).
    fn facts(&self, name: &str, arity: usize) -> Vec<Box<[TermId]>> {
        self.relations.get(name, arity).map(|r| self.eval.tables[r].facts.clone()).unwrap_or_default()
    }

    /// Numbers distinct terms by the byte order of their canonical text; returns the texts.
    fn numbered(&mut self, mut ids: Vec<TermId>, numbering: Numbering) -> Vec<String> {
        ids.sort_unstable();
        ids.dedup();
        let mut texts: Vec<(String, TermId)> = ids.into_iter().map(|t| (self.kif(t), t)).collect();
        texts.sort();
        let (map, order) = match numbering {
            Numbering::Base => (&mut self.base_ids, &mut self.base_terms),
            Numbering::Move => (&mut self.move_ids, &mut self.move_terms),
        };
        for (i, (_, t)) in texts.iter().enumerate() {
            map.insert(*t, i as u32);
            order.push(*t);
        }
        texts.into_iter().map(|(s, _)| s).collect()
    }

    /// The value of output atom `name(args)`: exact for a static relation, a node otherwise.
    fn output(&mut self, name: &str, args: Box<[TermId]>, dynamic: &BTreeSet<String>) -> Value {
        let Some(rel) = self.relations.get(name, args.len()) else { return Value::Const(false) };
        if !dynamic.contains(name) {
            return Value::Const(self.eval.tables[rel].contains(&args));
        }
        match self.node_ids.get(&(rel, args)) {
            Some(&n) => Value::Lit(Lit::pos(Prop::Node(n))),
            None => Value::Const(false),
        }
    }

    /// The state-dependent literals of an instance, or `None` when the instance can never fire.
    fn ground_body(
        &mut self,
        body: &[Basic<'_>],
        env: &BTreeMap<&str, TermId>,
        dynamic: &BTreeSet<String>,
    ) -> Option<Vec<Lit>> {
        let mut lits = Vec::new();
        for b in body {
            let (atom, positive) = match *b {
                Basic::Pos(a) => (a, true),
                Basic::Neg(a) => (a, false),
                // Static literals and comparisons held in the instance query.
                Basic::Distinct(..) | Basic::Equal(..) => continue,
            };
            if !dynamic.contains(&atom.name) {
                continue;
            }
            if self.checked.contains(&atom.name) {
                let args: Box<[TermId]> = atom.args.iter().map(|t| self.instantiate(t, env)).collect();
                let atom = self.check_atom(&atom.name, args);
                lits.push(Lit { prop: Prop::Check(atom), positive });
                continue;
            }
            let (rel, args) = self.instantiate_atom(atom, env);
            let known = rel.is_some_and(|rel| self.eval.tables[rel].contains(&args));
            let prop = match atom.name.as_str() {
                "true" => self.base_ids.get(&args[0]).map(|&b| Prop::Base(b)),
                "does" => match (self.role_ids.get(&args[0]), self.move_ids.get(&args[1])) {
                    (Some(&r), Some(&m)) if known => Some(Prop::Does(r, m)),
                    _ => None,
                },
                _ if known => Some(Prop::Node(self.node((rel, args)))),
                _ => None,
            };
            match (prop, positive) {
                (Some(prop), _) => lits.push(Lit { prop, positive }),
                // A positive literal that never holds: the instance never fires.
                (None, true) => return None,
                // A negation of what never holds holds.
                (None, false) => {}
            }
        }
        Some(lits)
    }

    fn instantiate_atom(&mut self, atom: &Atom, env: &BTreeMap<&str, TermId>) -> (Option<RelId>, Box<[TermId]>) {
        let args = atom.args.iter().map(|t| self.instantiate(t, env)).collect();
        (self.relations.get(&atom.name, atom.args.len()), args)
    }

    fn instantiate(&mut self, term: &Term, env: &BTreeMap<&str, TermId>) -> TermId {
        match term {
            Term::Var(v, _) => env[v.as_str()],
            Term::Const(c, _) => self.constant(c),
            Term::Func(f, args, _) => {
                let args = args.iter().map(|a| self.instantiate(a, env)).collect();
                let sym = self.symbol(f);
                self.eval.store.intern(TermNode { sym, args })
            }
        }
    }

    fn symbol(&self, name: &str) -> u32 {
        // Every symbol of an instantiated rule occurs in the rules, which were compiled.
        self.symbols.get(name).unwrap_or(u32::MAX)
    }

    fn constant(&mut self, name: &str) -> TermId {
        let sym = self.symbol(name);
        self.eval.store.intern(TermNode { sym, args: Box::new([]) })
    }

    /// The node for a derived atom, made on first use.
    fn node(&mut self, (rel, args): (Option<RelId>, Box<[TermId]>)) -> u32 {
        let rel = rel.expect("a relation of the compiled rules");
        if let Some(&n) = self.node_ids.get(&(rel, args.clone())) {
            return n;
        }
        let name = &self.relations.keys[rel].0;
        let mut text = if args.is_empty() { name.clone() } else { format!("({name}") };
        for &a in args.iter() {
            text.push(' ');
            text.push_str(&self.kif(a));
        }
        if !args.is_empty() {
            text.push(')');
        }
        let n = self.nodes.len() as u32;
        self.nodes.push(Node { name: text, rules: Vec::new() });
        self.node_ids.insert((rel, args), n);
        n
    }

    /// The index of a checked atom, made on first use.
    fn check_atom(&mut self, name: &str, args: Box<[TermId]>) -> u32 {
        let key = (name.to_string(), args);
        if let Some(&k) = self.check_ids.get(&key) {
            return k;
        }
        let k = self.check_atoms.len() as u32;
        self.check_atoms.push(key.clone());
        self.check_ids.insert(key, k);
        k
    }

    /// The symbol of a constant term, or an error for a compound one (checks compare symbols).
    fn check_symbol(&self, id: TermId, symbols: &mut BTreeMap<String, u32>) -> Result<u32, String> {
        if !self.eval.store.node(id).args.is_empty() {
            return Err(format!(
                "{}: a relation checked at run time would have to handle the compound term {}",
                super::TOO_LARGE,
                self.kif(id)
            ));
        }
        let name = self.kif(id);
        let next = symbols.len() as u32;
        Ok(*symbols.entry(name).or_insert(next))
    }

    /// A ground term as an argument of a check atom: its symbol, or a compound term added to
    /// `patterns`.
    fn check_term(&self, id: TermId, symbols: &mut BTreeMap<String, u32>, patterns: &mut Vec<Pattern>) -> u32 {
        let node = self.eval.store.node(id);
        if node.args.is_empty() {
            let next = symbols.len() as u32;
            return *symbols.entry(self.kif(id)).or_insert(next);
        }
        let args = node.args.iter().map(|&a| self.check_term(a, symbols, patterns)).collect();
        let next = symbols.len() as u32;
        let functor = *symbols.entry(self.symbols.name(node.sym).to_ascii_lowercase()).or_insert(next);
        patterns.push(Pattern { functor, args });
        FUNC | (patterns.len() - 1) as u32
    }

    /// The runtime's description of the checked relations, with the names of the atoms the
    /// ground rules read. Symbols are numbered in the byte order of their names.
    fn checks(
        &mut self,
        plan: &super::checks::Plan,
        alternatives: &[Alternative<'_>],
        dynamic: &BTreeSet<String>,
    ) -> Result<(Checks, Vec<String>), String> {
        let mut symbols: BTreeMap<String, u32> = BTreeMap::new();
        let relation_ids: BTreeMap<&str, u32> =
            plan.relations.keys().enumerate().map(|(i, name)| (name.as_str(), i as u32)).collect();
        let mut table_ids: BTreeMap<(bool, String, usize), u32> = BTreeMap::new();
        let mut checks = Checks::default();
        for (name, checked) in &plan.relations {
            let arity = alternatives.iter().find(|a| &a.head.name == name).map_or(0, |a| a.head.args.len());
            let mut relation = CheckRelation {
                arity: arity as u32,
                recursive: checked.recursive,
                tabled: checked.tabled,
                variants: Vec::new(),
            };
            for (&bound, rules) in &checked.variants {
                let mut variant = Variant { bound, rules: Vec::new() };
                'rules: for (k, order) in rules {
                    let alternative = &alternatives[*k];
                    let var_ids: BTreeMap<&str, u32> =
                        alternative.vars.iter().enumerate().map(|(i, &v)| (v, i as u32)).collect();
                    let arg = |t: &Term, symbols: &mut BTreeMap<String, u32>, patterns: &mut Vec<Pattern>| {
                        rule_arg(t, &var_ids, symbols, patterns)
                    };
                    let head =
                        alternative.head.args.iter().map(|t| arg(t, &mut symbols, &mut checks.patterns)).collect();
                    let mut goals = Vec::new();
                    for &j in order {
                        let (atom, positive) = match alternative.body[j] {
                            Basic::Distinct(x, y) => {
                                let (a, b) = (
                                    arg(x, &mut symbols, &mut checks.patterns),
                                    arg(y, &mut symbols, &mut checks.patterns),
                                );
                                goals.push(Goal::Distinct { positive: true, a, b });
                                continue;
                            }
                            Basic::Equal(x, y) => {
                                let (a, b) = (
                                    arg(x, &mut symbols, &mut checks.patterns),
                                    arg(y, &mut symbols, &mut checks.patterns),
                                );
                                goals.push(Goal::Distinct { positive: false, a, b });
                                continue;
                            }
                            Basic::Pos(a) => (a, true),
                            Basic::Neg(a) => (a, false),
                        };
                        if let Some(&relation) = relation_ids.get(atom.name.as_str()) {
                            let args = atom.args.iter().map(|t| arg(t, &mut symbols, &mut checks.patterns)).collect();
                            goals.push(Goal::Call { relation, positive, args });
                            continue;
                        }
                        let (state, name, args): (bool, String, Vec<&Term>) = if atom.name == "true" {
                            match &atom.args[0] {
                                Term::Func(f, args, _) => (true, f.to_ascii_lowercase(), args.iter().collect()),
                                Term::Const(c, _) => (true, c.to_ascii_lowercase(), Vec::new()),
                                Term::Var(..) => {
                                    return Err(format!("{}: a checked rule reads a whole fact", super::TOO_LARGE))
                                }
                            }
                        } else if dynamic.contains(&atom.name) {
                            return Err(format!("{}: a checked rule reads `{}`", super::TOO_LARGE, atom.name));
                        } else {
                            (false, atom.name.clone(), atom.args.iter().collect())
                        };
                        if !state && args.is_empty() {
                            // A static proposition is known now: it holds, or the rule never fires.
                            let holds =
                                self.relations.get(&name, 0).is_some_and(|r| !self.eval.tables[r].facts.is_empty());
                            if holds == positive {
                                continue;
                            }
                            continue 'rules;
                        }
                        let key = (state, name.clone(), args.len());
                        let table = match table_ids.get(&key) {
                            Some(&t) => t,
                            None => {
                                let t = checks.tables.len() as u32;
                                let table = self.check_table(state, &name, args.len(), &mut symbols)?;
                                checks.tables.push(table);
                                table_ids.insert(key, t);
                                t
                            }
                        };
                        let args = args.iter().map(|t| arg(t, &mut symbols, &mut checks.patterns)).collect();
                        goals.push(Goal::Table { table, positive, args });
                    }
                    variant.rules.push(CheckRule { vars: alternative.vars.len() as u32, head, goals });
                }
                relation.variants.push(variant);
            }
            checks.relations.push(relation);
        }
        let mut names = Vec::new();
        for (name, args) in std::mem::take(&mut self.check_atoms) {
            let mut text = format!("({name}");
            for &t in args.iter() {
                text.push(' ');
                text.push_str(&self.kif(t));
            }
            text.push(')');
            let args = args.iter().map(|&t| self.check_term(t, &mut symbols, &mut checks.patterns)).collect();
            let relation = *relation_ids
                .get(name.as_str())
                .ok_or_else(|| format!("{}: `{name}` is read but not checked", super::TOO_LARGE))?;
            checks.atoms.push((relation, args));
            names.push(text);
        }
        // Renumber the symbols in the byte order of their names, and sort the tables again.
        let order: Vec<u32> = {
            let mut by_first_use = vec![0u32; symbols.len()];
            for (rank, (_, &id)) in symbols.iter().enumerate() {
                by_first_use[id as usize] = rank as u32;
            }
            by_first_use
        };
        let renumber = |a: u32| if a & (VAR | FUNC) != 0 { a } else { order[a as usize] };
        for pattern in &mut checks.patterns {
            pattern.functor = order[pattern.functor as usize];
            pattern.args.iter_mut().for_each(|a| *a = renumber(*a));
        }
        for rule in checks.relations.iter_mut().flat_map(|r| r.variants.iter_mut()).flat_map(|v| v.rules.iter_mut()) {
            rule.head.iter_mut().for_each(|a| *a = renumber(*a));
            for goal in &mut rule.goals {
                match goal {
                    Goal::Call { args, .. } | Goal::Table { args, .. } => {
                        args.iter_mut().for_each(|a| *a = renumber(*a))
                    }
                    Goal::Distinct { a, b, .. } => {
                        *a = renumber(*a);
                        *b = renumber(*b);
                    }
                }
            }
        }
        for table in &mut checks.tables {
            let (arity, width) = (table.arity as usize, table.arity as usize + usize::from(table.state));
            let mut rows: Vec<Vec<u32>> = table
                .rows
                .chunks_exact(width.max(1))
                .map(|row| {
                    row.iter().enumerate().map(|(i, &a)| if i < arity { order[a as usize] } else { a }).collect()
                })
                .collect();
            rows.sort_unstable();
            rows.dedup();
            table.rows = rows.concat();
        }
        for (_, args) in &mut checks.atoms {
            args.iter_mut().for_each(|a| *a = renumber(*a));
        }
        Ok((checks, names))
    }

    /// The rows of a static relation, or of the state's facts of one shape (each row then ends
    /// with its base fact's index).
    fn check_table(
        &self,
        state: bool,
        name: &str,
        arity: usize,
        symbols: &mut BTreeMap<String, u32>,
    ) -> Result<CheckTable, String> {
        let mut table = CheckTable { arity: arity as u32, state, rows: Vec::new() };
        if state {
            for (index, &fact) in self.base_terms.iter().enumerate() {
                let node = self.eval.store.node(fact);
                if self.symbols.name(node.sym) != name || node.args.len() != arity {
                    continue;
                }
                for &a in node.args.iter() {
                    let symbol = self.check_symbol(a, symbols)?;
                    table.rows.push(symbol);
                }
                table.rows.push(index as u32);
            }
        } else if let Some(rel) = self.relations.get(name, arity) {
            for fact in &self.eval.tables[rel].facts {
                for &a in fact.iter() {
                    let symbol = self.check_symbol(a, symbols)?;
                    table.rows.push(symbol);
                }
            }
        }
        Ok(table)
    }

    fn kif(&self, id: TermId) -> String {
        let mut flat = Vec::new();
        encode(&*self.eval.store, id, &mut flat);
        let mut s = String::new();
        write_flat(self.symbols, &flat, &mut s);
        s
    }
}

/// A term of a checked rule as the runtime reads it: a variable, a symbol, or a compound term
/// added to `patterns`.
fn rule_arg(
    term: &Term,
    var_ids: &BTreeMap<&str, u32>,
    symbols: &mut BTreeMap<String, u32>,
    patterns: &mut Vec<Pattern>,
) -> u32 {
    let symbol = |name: &str, symbols: &mut BTreeMap<String, u32>| {
        let next = symbols.len() as u32;
        *symbols.entry(name.to_ascii_lowercase()).or_insert(next)
    };
    match term {
        Term::Var(v, _) => VAR | var_ids.get(v.as_str()).copied().unwrap_or(0),
        Term::Const(c, _) => symbol(c, symbols),
        Term::Func(f, args, _) => {
            let args = args.iter().map(|a| rule_arg(a, var_ids, symbols, patterns)).collect();
            let functor = symbol(f, symbols);
            patterns.push(Pattern { functor, args });
            FUNC | (patterns.len() - 1) as u32
        }
    }
}

enum Numbering {
    Base,
    Move,
}
