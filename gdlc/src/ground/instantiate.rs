//! One attempt at grounding under a [`Strategy`]: the passes that rewrite the rules (constant
//! fluents, frames read through what a move affects, inlining, run-time checks, decomposition,
//! demand), the relaxed fixpoint of the rules (see [`super::relaxed`]) under the grounder's
//! budget, and every rule instantiated over it (see [`super::builder`]). Static relations keep
//! their negations and are computed exactly; in each ground rule the static literals are
//! already known to hold.

use super::budget::Budget;
use super::builder::Builder;
use super::error::{Limit, Part};
use super::relaxed::{self, Alternative};
use super::strategy::Strategy;
use super::{Error, Ground, Options};
use crate::ast::{Atom, Description};
use crate::datalog::compile::{dnf, product, Basic, Compiler, RelId, Relations};
use crate::datalog::eval::{Component, Eval};
use crate::datalog::stats::FactStats;
use crate::datalog::store::{Symbols, Terms};
use crate::datalog::{plan_components, prepare};
use crate::graph::Dependencies;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// Why an attempt at grounding failed.
pub(super) enum Failure {
    /// [`Strategy::Deferred`] found no relation that can be checked at run time.
    NothingToDefer,
    /// The attempt failed with `error` after `work` steps of joins.
    Failed {
        error: Error,
        /// The static relation that went past the limit, when it could be checked at run time:
        /// no relation that must be exact (`init`, `role`, `base`, `input`) depends on it.
        static_relation: Option<String>,
        work: usize,
    },
}

impl Failure {
    /// Whether the attempt went past a limit.
    pub(super) fn is_too_large(&self) -> bool {
        matches!(self, Failure::Failed { error, .. } if error.is_too_large())
    }

    /// The steps of joins the attempt took.
    pub(super) fn work(&self) -> usize {
        match self {
            Failure::NothingToDefer => 0,
            Failure::Failed { work, .. } => *work,
        }
    }

    /// The error to report for a failure with nothing better to try.
    pub(super) fn into_error(self) -> Error {
        match self {
            // Deferring checks comes after a limit was hit, or on request, so the game is too
            // large to ground and no relation of it can be checked instead.
            Failure::NothingToDefer => Error::Undeferrable(super::error::Undeferrable::NothingToDefer),
            Failure::Failed { error, .. } => error,
        }
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Failure {
        Failure::Failed { error, static_relation: None, work: 0 }
    }
}

impl From<crate::datalog::Error> for Failure {
    fn from(error: crate::datalog::Error) -> Failure {
        Error::from(error).into()
    }
}

impl From<super::error::Undeferrable> for Failure {
    fn from(reason: super::error::Undeferrable) -> Failure {
        Error::from(reason).into()
    }
}

/// The rules of an attempt as the passes before instantiation leave them.
struct Passes {
    /// The rules as the engine evaluates them, with constant fluents folded.
    prepared: Description,
    deps: Dependencies,
    /// The relations that depend on the state.
    state_dependent: BTreeSet<String>,
    /// The relations read as depending on the state: those, the forced ones, and the new
    /// relations of the passes that depend on them.
    dynamic: BTreeSet<String>,
    /// The rules after inlining, absorbing checked relations and decomposing.
    decomposed: super::decompose::Decomposed,
    /// Under a narrow strategy (see [`Strategy::Deferred`]), the relations that read a forced
    /// static relation, directly or not, as written: the only ones to check at run time.
    narrow: Option<BTreeSet<String>>,
}

impl Passes {
    fn run(description: &Description, options: &Options, strategy: &Strategy) -> Result<Passes, Failure> {
        let prepared = prepare(description)?;
        let prepared = if options.fold_constant_fluents { super::constant_fluents::fold(prepared) } else { prepared };
        // Reading each role's move as exactly one holds for the games that take legal play
        // for granted (not rtGDL's, whose facts also change between moves).
        let frames = options.assume_legal_play && options.frames_through_moves;
        let prepared = if frames { super::affected::rewrite(prepared) } else { prepared };
        if prepared.roles().is_empty() {
            return Err(Error::NoRole.into());
        }
        let deps = Dependencies::build(&prepared);
        let mut dynamic = deps.dependents_of(&["true", "does"]);
        let state_dependent = dynamic.clone();
        let forced_dependents = deps.dependents_of(&strategy.forced().collect::<Vec<_>>());
        dynamic.extend(forced_dependents.iter().cloned());
        let inlined = super::inline::inline(&prepared, &dynamic);
        // Relations checked at run time are chosen on the rules as written, so that they are
        // searched rule by rule, then again after decomposition, which may split a checked
        // literal off a grounded rule together with the literals only it needs.
        let narrow = strategy.narrow().then_some(forced_dependents);
        let mut keep = match strategy.defers_relations() {
            true => checkable(&inlined, &dynamic, narrow.as_ref()),
            false => BTreeSet::new(),
        };
        let absorbed =
            if keep.is_empty() { inlined } else { super::deferrable::absorb(&inlined, &mut keep, &mut dynamic) };
        // The relations that absorbing folded checked literals into may be checked too.
        let narrow = narrow.map(|narrow| narrow.union(&keep).cloned().collect());
        let decomposed = super::decompose::decompose_except(&absorbed, &mut dynamic, &keep);
        Ok(Passes { prepared, deps, state_dependent, dynamic, decomposed, narrow })
    }

    /// Whether the static relation `name`, which went past the limit, can be checked at run
    /// time instead: no relation that must be exact depends on it.
    fn checkable(&self, name: &str) -> bool {
        let exact = ["init", "role", "base", "input"];
        !self.state_dependent.contains(name)
            && self.prepared.rules.iter().any(|rule| rule.head.name == name)
            && self.deps.dependents_of(&[name]).iter().all(|r| !exact.contains(&r.as_str()))
    }
}

/// The relations of `description` that can be checked at run time, chosen rule by rule, among
/// `eligible` when it is given.
fn checkable(
    description: &Description,
    dynamic: &BTreeSet<String>,
    eligible: Option<&BTreeSet<String>>,
) -> BTreeSet<String> {
    let conjunctions: Vec<(&Atom, Vec<Basic<'_>>)> = description
        .rules
        .iter()
        .flat_map(|rule| product(rule.body.iter().map(|l| dnf(l, false))).into_iter().map(move |b| (&rule.head, b)))
        .collect();
    let rules: Vec<super::deferrable::Rule<'_, '_>> =
        conjunctions.iter().map(|(head, body)| super::deferrable::Rule { head, body }).collect();
    let deps = Dependencies::build(description);
    super::deferrable::plan(&rules, dynamic, eligible, &deps, true).relations.into_keys().collect()
}

/// The alternatives as the rules that [`super::deferrable`] plans checks over.
fn check_rules<'r, 'a>(alternatives: &'r [Alternative<'a>]) -> Vec<super::deferrable::Rule<'r, 'a>> {
    alternatives.iter().map(|a| super::deferrable::Rule { head: a.head, body: &a.body }).collect()
}

/// The relations to check at run time among the alternatives, when the strategy defers them.
fn check_plan(
    alternatives: &[Alternative<'_>],
    passes: &Passes,
    strategy: &Strategy,
) -> Result<super::deferrable::Plan, Failure> {
    if !strategy.defers_relations() {
        return Ok(super::deferrable::Plan::default());
    }
    let rules = check_rules(alternatives);
    let description = &passes.decomposed.description;
    let plan = super::deferrable::plan(
        &rules,
        &passes.dynamic,
        passes.narrow.as_ref(),
        &Dependencies::build(description),
        false,
    );
    if plan.relations.is_empty() {
        return Err(Failure::NothingToDefer);
    }
    Ok(plan)
}

/// The checked relations' rules ordered again with the sizes of the static relations they read,
/// which are known once the game is grounded.
fn reorder_checks(
    plan: super::deferrable::Plan,
    builder: &Builder<'_>,
    alternatives: &[Alternative<'_>],
    passes: &Passes,
) -> super::deferrable::Plan {
    let rules = check_rules(alternatives);
    let known: RefCell<BTreeMap<(String, usize, u64), Option<f64>>> = RefCell::default();
    let fanout = |atom: &Atom, mask: u64| {
        let key = (atom.name.clone(), atom.args.len(), mask);
        if let Some(&rows) = known.borrow().get(&key) {
            return rows;
        }
        let rows = builder.static_fanout(atom, mask, &passes.dynamic);
        known.borrow_mut().insert(key, rows);
        rows
    };
    let deps = Dependencies::build(&passes.decomposed.description);
    super::deferrable::reorder(plan, &rules, &deps, &fanout)
}

/// Grounds a game under `strategy`, without simplifying it.
pub(super) fn attempt(description: &Description, options: &Options, strategy: &Strategy) -> Result<Ground, Failure> {
    let passes = Passes::run(description, options, strategy)?;
    let dynamic = &passes.dynamic;
    let alternatives = relaxed::alternatives(&passes.decomposed.description);
    let plan = check_plan(&alternatives, &passes, strategy)?;
    let checked: BTreeSet<String> = plan.relations.keys().cloned().collect();
    let relaxed = relaxed::program(&alternatives, dynamic, &checked);
    let relaxed =
        if strategy.on_demand() { relaxed::on_demand(&relaxed, &alternatives, dynamic, &checked) } else { relaxed };

    let (mut symbols, mut terms, mut relations) = (Symbols::default(), Terms::default(), Relations::default());
    let stats = FactStats::new(&relaxed);
    let relaxed_deps = Dependencies::build(&relaxed);
    let rules = Compiler { symbols: &mut symbols, terms: &mut terms, relations: &mut relations }
        .compile(
            &relaxed,
            &|atom: &Atom, bound: &BTreeSet<&str>| match super::demand::served(&atom.name) {
                Some(_) => 1.0,
                None => stats.cost(atom, bound),
            },
            crate::datalog::order::CROSS_PENALTY,
            &|head: &str, body: &str| relaxed_deps.same_component(head, body),
        )
        .map_err(|error| error.located_in(description))?;
    // The instance queries are evaluated one at a time once everything else is computed, each
    // while its instances are grounded (nothing reads them), so that no more than one of them
    // is ever held.
    let (queries, components): (Vec<Component>, Vec<Component>) =
        plan_components(&relaxed_deps, &relations, &rules).into_iter().partition(|component| {
            component.relations.iter().all(|&rel| relaxed::is_instance_query(&relations.keys[rel].0))
        });
    let budget = budget(options, strategy, &alternatives, &relations, &checked);
    let mut eval = Eval::new(&mut terms, &rules, &[], &[], relations.len(), budget);
    let too_large = |rel: RelId, budget: &Budget| {
        let limit = if budget.work > budget.work_limit {
            Limit::Steps(budget.work_limit)
        } else {
            Limit::Instances(options.max_instances)
        };
        let what = part(&relations.keys[rel].0, &alternatives, &passes.decomposed.origins);
        Error::too_large(what, limit, description)
    };
    for component in &components {
        eval.run(component);
        if let Some(rel) = eval.exceeded {
            let name = relaxed::user_relation(&relations.keys[rel].0, &passes.decomposed.origins);
            let static_relation = passes.checkable(&name).then_some(name);
            let error = too_large(rel, &eval.budget);
            return Err(Failure::Failed { error, static_relation, work: eval.budget.work });
        }
    }

    let queries = queries.iter().flat_map(|c| c.relations.iter().map(move |&rel| (rel, c))).collect();
    let mut builder = Builder::new(&symbols, eval, &relations, queries, &too_large, &checked);
    // A later attempt, with static relations forced to be checked, may check far fewer atoms
    // once it narrows them (sudoku): only the first attempt that checks relations stops early.
    builder.stop_at_checks = options.lift_at_checks.filter(|_| strategy.forced().next().is_none());
    let run = builder.run(&passes.prepared.roles(), &alternatives, dynamic);
    let work = builder.eval.budget.work;
    let mut ground = run.map_err(|error| Failure::Failed { error, static_relation: None, work })?;
    if !checked.is_empty() {
        let plan = reorder_checks(plan, &builder, &alternatives, &passes);
        let (checks, names) = builder.checks(&plan, &alternatives, dynamic)?;
        ground.deferred = checks;
        ground.deferred_atoms = names;
    }
    Ok(ground)
}

/// The grounder's budget for an attempt. An instance query whose body reads a single relation
/// has at most as many instances as that relation has facts, which count already: its own do
/// not count toward the limit.
fn budget(
    options: &Options,
    strategy: &Strategy,
    alternatives: &[Alternative<'_>],
    relations: &Relations,
    checked: &BTreeSet<String>,
) -> Budget {
    let mut budget = Budget::new(options.max_instances, strategy.work_limit(options), relations.len());
    for (k, alternative) in alternatives.iter().enumerate() {
        let reads = alternative.body.iter().filter(|b| matches!(**b, Basic::Pos(a) if !checked.contains(&a.name)));
        if reads.count() <= 1 {
            if let Some(rel) = relations.get(&relaxed::instance_relation(k), alternative.vars.len()) {
                budget.uncount(rel);
            }
        }
    }
    budget
}

/// What relation `name` of the relaxed program derives, for messages: a relation of the game,
/// or the instances of a rule for one (a new relation of the decomposition is reported as the
/// user's relation it serves).
fn part(name: &str, alternatives: &[Alternative<'_>], origins: &[String]) -> Part {
    let name = super::demand::part_of(name).unwrap_or(name);
    let name = super::demand::served(name).unwrap_or(name);
    match relaxed::instance_query(name) {
        Some(k) => Part::RuleFor(relaxed::user_relation(&alternatives[k].head.name, origins)),
        None if name.starts_with("(aux ") => Part::RuleFor(relaxed::user_relation(name, origins)),
        None => Part::Relation(name.to_string()),
    }
}
