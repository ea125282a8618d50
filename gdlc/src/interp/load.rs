//! Loading a game into the interpreter: the rules prepared for evaluation, the static relations
//! computed, and the two engines that answer the queries.
//!
//! The static relations (those that do not depend on `true` or `does`) are computed once,
//! bottom-up, each within the interpreter's limits on facts and steps. A relation that goes past
//! them (a list relation with no bound on its length, or `(direction ?x1 ?y1 ?x2 ?y2 ?d)` over
//! every pair of squares) is not computed; the rules that read it cannot be evaluated as written.
//!
//! The first engine evaluates the rules as written. The second evaluates them restricted to the
//! bindings their callers ask for (a magic-sets rewrite): the static relations computed stay as
//! they are, and every other relation called with some argument bound, such as
//! `(threatened ?x ?y ?ignorex ?ignorey)` tested for one move's squares, or a relation that went
//! past the limits, is computed in each state for the values asked for only. Neither is always
//! faster, so [`super::choose`] picks one per query.

use super::budget::{Limits, Spending, Trip};
use super::disjuncts;
use super::inputs::{self, Inputs, Split};
use super::observe::{Observed, OBSERVE_TOTAL};
use super::stats::{self, Known, Stats};
use super::{Engine, Error, Flat, Interpreter, Keys, Query, State, RANDOM_ROLE};
use crate::ast::Description;
use crate::datalog::compile::{CLit, CRule, Compiler, Relations};
use crate::datalog::eval::{access_paths, indexed_reads, Component, Eval, Table};
use crate::datalog::order::{Cost, CROSS_PENALTY};
use crate::datalog::stats::FactStats;
use crate::datalog::store::{encoded, Symbols, Terms};
use crate::datalog::{plan_components, prepare};
use crate::graph::Dependencies;
use crate::ground::demand;
use std::collections::BTreeSet;
use std::time::Instant;

/// The most facts the static relations may have together.
pub(super) const MAX_STATIC_FACTS: usize = 4_000_000;

/// The most facts one component of static relations may have: about three times the largest
/// that a game of the corpus has (gt_two_thirds_6p's `absdiff`, 361,201 facts). One that goes
/// past it is computed on demand instead, in each state, for the values the state asks for.
pub(super) const MAX_COMPONENT_FACTS: usize = 1_000_000;

/// The most steps of joins computing one component of static relations may take: half again
/// what the whole of the largest that a game of the corpus computes takes (gt_two_thirds_6p's
/// arithmetic, 7.8 million), a second or two.
pub(super) const MAX_STATIC_STEPS: usize = 12_000_000;

/// How many times the literals of the program the demand rules may have.
const DEMAND_SIZE_FACTOR: usize = 4;

/// How many rewrites with more relations computed completely the demand rewrite may try before
/// it gives up (each is as long as the program).
const DEMAND_ROUNDS: usize = 8;

/// The relations every query reads, or that loading reads: computed completely.
const OUTPUTS: [&str; 7] = ["init", "role", "legal", "next", "terminal", "goal", "sees"];

/// Loads `description` within `limits`.
pub(super) fn load(description: &Description, limits: &Limits) -> Result<Interpreter, Error> {
    let started = Instant::now();
    if crate::realtime::is_realtime(description) {
        return Err(Error::RealTimeGame);
    }
    let prepared = prepare(description)?;
    let roles = description.roles();
    if roles.is_empty() {
        return Err(Error::NoRole);
    }
    // The demand rewrite reads the calls of plain conjunctions.
    let (program, splits) = inputs::split(&disjuncts::expand_ors(&prepared));
    let mut loader = Loader::new(&program, &splits, limits);
    let plain = Program::new(program, &splits);
    let first = loader.compile(&plain, &|atom, bound| plain.fact_stats.cost(atom, bound), CROSS_PENALTY)?;
    let statics = loader.statics(&plain, &first)?;

    // The demand engine, unless the rewrite demands nothing.
    let mut complete: Vec<&str> = OUTPUTS.to_vec();
    complete.extend(plain.static_names().filter(|name| !statics.blown.contains(*name)));
    let demand = restrict(&plain.description, &complete).map(|program| Program::new(program, &splits));

    let initial = loader.initial_state();
    let random_role = roles.iter().position(|r| r.eq_ignore_ascii_case(RANDOM_ROLE));
    let gdl_ii = random_role.is_some() || description.rules.iter().any(|r| r.head.name == "sees");
    let setting = Setting { roles, initial, gdl_ii, random_role };
    let programs = Programs { plain: &plain, demand: demand.as_ref(), blown: &statics.blown };

    // A plan from the sizes known before a match, then one from the sizes observed in its
    // first states; the second plays when it answers those states with fewer steps (and was
    // chosen among within the deadline).
    let mut first = loader.interpreter(&programs, &setting, None)?;
    first.choose(limits)?;
    let Some(observing) = observing_limits(limits, started) else { return Ok(first) };
    let Some((sample, observed)) = first.observe(&observing) else { return Ok(first) };
    let first_steps = first.steps_over(&sample, &observing, OBSERVE_TOTAL);
    let first_engines = loader.resume(first);
    let mut second = loader.interpreter(&programs, &setting, Some(&observed))?;
    if second.choose(&observing).is_ok() && second.steps_over(&sample, &observing, first_steps) < first_steps {
        return Ok(second);
    }
    loader.resume(second);
    loader.finish(first_engines, &setting)
}

/// The limits of observing a match and planning again: under a deadline, a share of the time
/// left, and nothing when that is less than the first plan took (a player loading a game
/// within START needs the time to answer; compiling has no deadline and always observes).
fn observing_limits(limits: &Limits, started: Instant) -> Option<Limits> {
    let Some(deadline) = limits.deadline else { return Some(*limits) };
    let now = Instant::now();
    let share = deadline.saturating_duration_since(now) / OBSERVE_SHARE;
    (share >= now.duration_since(started)).then(|| Limits { deadline: now.checked_add(share), ..*limits })
}

/// Under a deadline, the share of the time left that observing and planning again may take.
const OBSERVE_SHARE: u32 = 4;

/// What the interpreter knows of a game besides its rules.
struct Setting {
    roles: Vec<String>,
    initial: Vec<Flat>,
    gdl_ii: bool,
    random_role: Option<usize>,
}

/// The programs engines are planned for, and the static relations that went past the limits.
struct Programs<'p> {
    plain: &'p Program,
    demand: Option<&'p Program>,
    blown: &'p BTreeSet<String>,
}

/// A plan's engines, and which one answers each query.
struct Planned {
    engines: Vec<Engine>,
    chosen: Option<[usize; 5]>,
}

/// The program restricted to the demanded bindings, unless the rewrite demands nothing or would
/// be too large (a few times the program, beyond which it is more to evaluate, not less).
fn restrict(program: &Description, complete: &[&str]) -> Option<Description> {
    let literals: usize = program.rules.iter().map(|r| r.body.len() + 1).sum();
    let options = demand::Options {
        split: false,
        max_size: Some(literals.saturating_mul(DEMAND_SIZE_FACTOR).saturating_add(10_000)),
        max_rounds: Some(DEMAND_ROUNDS),
        recursion_first: true,
    };
    let restricted = demand::restrict_with(program, &|_| None, complete, &options)?;
    restricted.rules.iter().any(|rule| stats::is_guard(&rule.head.name)).then_some(restricted)
}

/// A program for one engine, with its dependency graph.
struct Program {
    description: Description,
    deps: Dependencies,
    fact_stats: FactStats,
    /// The relations that depend on the state or the joint move.
    dynamic: BTreeSet<String>,
}

impl Program {
    fn new(description: Description, splits: &[Split]) -> Program {
        let deps = Dependencies::build(&description);
        let fact_stats = FactStats::new(&description);
        let names: Vec<String> = splits.iter().map(Split::name).collect();
        let roots: Vec<&str> = inputs::INPUTS.iter().copied().chain(names.iter().map(String::as_str)).collect();
        let dynamic = deps.dependents_of(&roots);
        Program { description, deps, fact_stats, dynamic }
    }

    fn static_names(&self) -> impl Iterator<Item = &str> {
        self.deps.relations().filter(|name| !self.dynamic.contains(*name))
    }

    fn recursive(&self) -> impl Fn(&str, &str) -> bool + '_ {
        |head: &str, body: &str| self.deps.same_component(head, body)
    }
}

/// The static relations computed, and those that went past the limits.
struct Statics {
    blown: BTreeSet<String>,
}

/// What [`Loader::compute`] computed.
struct Computed {
    tables: Vec<Table>,
    /// The relations left out, by relation.
    blown: Vec<bool>,
    /// The first relation that went past the limits.
    tripped: Option<String>,
}

/// What loading builds, step by step.
struct Loader<'l> {
    limits: &'l Limits,
    symbols: Symbols,
    terms: Terms,
    relations: Relations,
    inputs: Inputs,
    fixed: Vec<Table>,
    /// The static relations computed so far, by relation.
    computed: Vec<bool>,
    /// The facts of the static relations computed so far.
    static_facts: usize,
}

impl<'l> Loader<'l> {
    fn new(program: &Description, splits: &[Split], limits: &'l Limits) -> Loader<'l> {
        let (mut symbols, mut relations) = (Symbols::default(), Relations::default());
        let inputs = Inputs::new(program, splits, &mut symbols, &mut relations);
        Loader {
            limits,
            symbols,
            terms: Terms::default(),
            relations,
            inputs,
            fixed: Vec::new(),
            computed: Vec::new(),
            static_facts: 0,
        }
    }

    fn compile(&mut self, program: &Program, cost: &Cost<'_>, cross_penalty: f64) -> Result<Vec<CRule>, Error> {
        let mut compiler =
            Compiler { symbols: &mut self.symbols, terms: &mut self.terms, relations: &mut self.relations };
        Ok(compiler.compile(&program.description, cost, cross_penalty, &program.recursive())?)
    }

    /// Grows the per-relation tables to the relations numbered so far.
    fn grow(&mut self) {
        self.fixed.resize_with(self.relations.len(), Table::default);
        self.computed.resize(self.relations.len(), false);
    }

    /// Computes the static relations of the plain program, each component within the limits;
    /// a component that goes past them is left out, with everything that depends on it.
    fn statics(&mut self, program: &Program, rules: &[CRule]) -> Result<Statics, Error> {
        self.grow();
        let is_static: Vec<bool> = self.relations.keys.iter().map(|(n, _)| !program.dynamic.contains(n)).collect();
        let components = plan_components(&program.deps, &self.relations, rules);
        let statics: Vec<&Component> =
            components.iter().filter(|c| c.relations.iter().all(|&r| is_static[r])).collect();
        let computed = self.compute(rules, &statics, &[], &[])?;
        self.fixed = computed.tables;
        for (rel, &blown) in computed.blown.iter().enumerate() {
            self.computed[rel] = is_static[rel] && !blown;
        }
        let blown: BTreeSet<String> = (0..computed.blown.len())
            .filter(|&r| computed.blown[r])
            .map(|r| self.relations.keys[r].0.clone())
            .collect();
        if let Some(relation) = computed.tripped.filter(|_| blown.contains("init") || blown.contains("role")) {
            return Err(self.too_large(relation));
        }
        Ok(Statics { blown })
    }

    /// Computes `components` in order over the static tables `fixed` (those marked in
    /// `is_fixed`), each within the static limits. A component that goes past them is left
    /// out (its facts dropped), with every component that reads what is left out. Going past
    /// the caller's limits is an error.
    fn compute(
        &mut self,
        rules: &[CRule],
        components: &[&Component],
        fixed: &[Table],
        is_fixed: &[bool],
    ) -> Result<Computed, Error> {
        let n = self.relations.len();
        let mut blown = vec![false; n];
        let mut tripped = None;
        let mut eval = Eval::new(&mut self.terms, rules, fixed, is_fixed, n, Spending::new(self.limits));
        for component in components {
            if reads_any(rules, component, &blown) {
                component.relations.iter().for_each(|&r| blown[r] = true);
                continue;
            }
            let facts = MAX_STATIC_FACTS.saturating_sub(self.static_facts).min(MAX_COMPONENT_FACTS);
            eval.budget = Spending::new(self.limits).capped(facts, MAX_STATIC_STEPS);
            eval.run(component);
            let Some(rel) = eval.exceeded.take() else {
                self.static_facts += eval.budget.facts();
                continue;
            };
            let relation = self.relations.keys[rel].0.clone();
            match eval.budget.tripped() {
                Trip::Deadline => return Err(Error::Exceeded(eval.budget.exceeded(&relation))),
                Trip::Facts(limit) if self.limits.max_facts == Some(limit) => {
                    return Err(Error::Exceeded(eval.budget.exceeded(&relation)));
                }
                Trip::Facts(_) | Trip::Steps(_) => {}
            }
            tripped.get_or_insert(relation);
            for &r in &component.relations {
                eval.tables[r] = Table::default();
                blown[r] = true;
            }
        }
        Ok(Computed { tables: eval.tables, blown, tripped })
    }

    /// Computes the static components of the demand engine that the plain program did not
    /// have (the demand of a relation that went past the limits, asked for by static rules).
    fn more_statics(&mut self, program: &Program, engine: &Engine) -> Result<(), Error> {
        self.grow();
        let components = plan_components(&program.deps, &self.relations, &engine.rules);
        let pending: Vec<&Component> = components
            .iter()
            .filter(|c| c.relations.iter().all(|&r| engine.is_fixed[r] && !self.computed[r]))
            .collect();
        if pending.is_empty() {
            return Ok(());
        }
        let fixed = std::mem::take(&mut self.fixed);
        let computed = self.computed.clone();
        let mut computed = self.compute(&engine.rules, &pending, &fixed, &computed)?;
        self.fixed = fixed;
        if let Some(rel) = (0..computed.blown.len()).find(|&r| computed.blown[r]) {
            let relation = computed.tripped.unwrap_or_else(|| self.relations.keys[rel].0.clone());
            return Err(self.too_large(relation));
        }
        for component in &pending {
            for &rel in &component.relations {
                self.fixed[rel] = std::mem::take(&mut computed.tables[rel]);
                self.computed[rel] = true;
            }
        }
        Ok(())
    }

    fn too_large(&self, relation: String) -> Error {
        Error::StaticTooLarge { relation, facts: MAX_COMPONENT_FACTS, steps: MAX_STATIC_STEPS }
    }

    /// The initial state: the `init` facts.
    fn initial_state(&self) -> Vec<Flat> {
        let Some(init) = self.relations.get("init", 1) else { return Vec::new() };
        let mut initial: Vec<Flat> = self.fixed[init].facts().map(|f| encoded(&self.terms, f[0])).collect();
        initial.sort();
        initial.dedup();
        initial
    }

    /// Sizes for ordering the bodies of the per-state queries: the static relations' own, the
    /// inputs' in the initial state, and those `observed` in a match.
    fn stats(&mut self, initial: &[Flat], plain: &Program, roles: usize, observed: Option<&Observed>) -> Stats {
        self.grow();
        let mut overlay = crate::datalog::store::Overlay::new(&self.terms);
        let mut tables = vec![Table::default(); self.relations.len()];
        for fact in initial {
            let (id, _) = overlay.decode(fact);
            self.inputs.add_true(&mut tables, &overlay, id);
        }
        let is_fixed: Vec<bool> = self.relations.keys.iter().map(|(n, _)| !plain.dynamic.contains(n)).collect();
        let is_fixed: Vec<bool> = is_fixed.iter().zip(&self.computed).map(|(&f, &c)| f && c).collect();
        let known = Known { fixed: &self.fixed, is_fixed: &is_fixed, initial: &tables, roles, observed };
        Stats::new(self.relations.clone(), &known)
    }

    /// The interpreter of `programs`, their bodies ordered by the sizes known before a match
    /// and those `observed`; the plain engine answers every query it can until
    /// [`Interpreter::choose`] chooses.
    fn interpreter(
        &mut self,
        programs: &Programs<'_>,
        setting: &Setting,
        observed: Option<&Observed>,
    ) -> Result<Interpreter, Error> {
        let stats = self.stats(&setting.initial, programs.plain, setting.roles.len(), observed);
        let mut engines = vec![self.engine(programs.plain, &stats, programs.blown)?];
        if let Some(demand) = programs.demand {
            let engine = self.engine(demand, &stats, &BTreeSet::new())?;
            self.more_statics(demand, &engine)?;
            engines.push(engine);
        }
        self.index_fixed(&engines);
        self.finish(Planned { engines, chosen: None }, setting)
    }

    /// Takes back what [`Loader::finish`] gave `interpreter`, to plan again; its engines are
    /// what is left.
    fn resume(&mut self, interpreter: Interpreter) -> Planned {
        self.symbols = interpreter.symbols;
        self.terms = interpreter.terms;
        self.relations = interpreter.relations;
        self.fixed = interpreter.fixed;
        self.inputs = interpreter.inputs;
        Planned { engines: interpreter.engines, chosen: Some(interpreter.chosen) }
    }

    /// An engine for `program`, its bodies ordered by the sizes of `stats`; it cannot answer the queries that
    /// need a relation of `blown`.
    fn engine(&mut self, program: &Program, stats: &Stats, blown: &BTreeSet<String>) -> Result<Engine, Error> {
        let rules = self.compile(program, &|atom, bound| stats.cost(atom, bound), stats.cross_penalty())?;
        self.grow();
        let is_fixed: Vec<bool> = self.relations.keys.iter().map(|(n, _)| !program.dynamic.contains(n)).collect();
        let components = plan_components(&program.deps, &self.relations, &rules);
        let plans = Query::ALL.map(|query| {
            let needed = program.deps.dependencies_of(&[query.relation()]);
            if needed.iter().any(|name| blown.contains(name)) {
                return None;
            }
            let relations = &self.relations;
            let plan = components
                .iter()
                .filter(|c| c.relations.iter().all(|&r| !is_fixed[r]))
                .filter(|c| c.relations.iter().any(|&r| needed.contains(&relations.keys[r].0)))
                .cloned()
                .collect();
            Some(plan)
        });
        Ok(Engine { rules, is_fixed, plans })
    }

    /// Builds the indexes on static relations that the engines look facts up by.
    fn index_fixed(&mut self, engines: &[Engine]) {
        self.grow();
        for engine in engines {
            for rule in engine.rules.iter().flat_map(|r| std::iter::once(r).chain(&r.delta_variants)) {
                for (rel, positions) in indexed_reads(rule, &access_paths(rule)) {
                    if engine.is_fixed[rel] {
                        self.fixed[rel].ensure_index(positions);
                    }
                }
            }
        }
    }

    /// The interpreter of the engines `planned`, which takes what was loaded (see
    /// [`Loader::resume`]).
    fn finish(&mut self, planned: Planned, setting: &Setting) -> Result<Interpreter, Error> {
        let Planned { engines, chosen } = planned;
        let roles = setting.roles.clone();
        let role_terms = roles
            .iter()
            .map(|r| {
                Compiler { symbols: &mut self.symbols, terms: &mut self.terms, relations: &mut self.relations }
                    .ground_const(r)
            })
            .collect();
        let mut id = |name: &str, arity: usize| self.relations.id(name, arity);
        let keys = Keys {
            legal: id("legal", 2),
            next: id("next", 1),
            goal: id("goal", 2),
            terminal: id("terminal", 0),
            sees: id("sees", 2),
        };
        self.grow();
        // The plain engine answers what it can; the demand engine the rest.
        let chosen = chosen.unwrap_or_else(|| {
            Query::ALL.map(|q| engines.iter().position(|e| e.plans[q as usize].is_some()).unwrap_or(0))
        });
        if let Some(q) = Query::ALL.iter().find(|&&q| engines.iter().all(|e| e.plans[q as usize].is_none())) {
            return Err(self.too_large(q.relation().to_string()));
        }
        Ok(Interpreter {
            symbols: std::mem::take(&mut self.symbols),
            terms: std::mem::take(&mut self.terms),
            relations: std::mem::take(&mut self.relations),
            fixed: std::mem::take(&mut self.fixed),
            engines,
            chosen,
            inputs: std::mem::take(&mut self.inputs),
            keys,
            roles,
            role_terms,
            initial: State(setting.initial.clone().into()),
            gdl_ii: setting.gdl_ii,
            random_role: setting.random_role,
        })
    }
}

/// Whether a rule of `component` reads a relation marked in `marked`.
fn reads_any(rules: &[CRule], component: &Component, marked: &[bool]) -> bool {
    component.rules.iter().any(|planned| {
        rules[planned.rule].body.iter().any(|lit| match lit {
            CLit::Pos(p) | CLit::Neg(p) => marked.get(p.rel).copied().unwrap_or(false),
            _ => false,
        })
    })
}
