//! The reference interpreter: an obviously correct evaluator of a checked game's stratified
//! semantics behind the runtime's [`Game`] interface. Relations that do not depend on `true` or
//! `does` are computed once at load; every query evaluates, bottom-up, only the strata the
//! queried relation depends on, with the [`crate::datalog`] engine and no limit on its work.
//! [`differential`] compares other engines with it over random playouts.

pub mod differential;
mod error;
pub mod realtime;

pub use error::Error;

use crate::ast::{Atom, Description};
use crate::datalog::compile::{self, CLit, CRule, Compiler, RelId, Relations};
use crate::datalog::eval::{access_paths, Access, Budget, Component, Eval, Table, Unlimited};
use crate::datalog::stats::FactStats;
use crate::datalog::store::{encode, write_flat, Node, Overlay, Symbols, TermId, TermRead, Terms};
use crate::datalog::{plan_components, prepare};
use crate::graph::Dependencies;
use gdl_runtime::kif::{self, Sx};
use gdl_runtime::Game;
use std::collections::BTreeSet;
use std::sync::Arc;

/// A ground term in a store-independent flat prefix encoding.
pub type Flat = Box<[u32]>;

/// A game state: the set of true base facts, sorted.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State(Arc<[Flat]>);

/// A move term.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move(Flat);

/// The relations the interpreter answers queries about.
struct Keys {
    true_: RelId,
    does: RelId,
    legal: RelId,
    next: RelId,
    goal: RelId,
    terminal: RelId,
    sees: RelId,
}

/// Evaluation plans: the dynamic components each query needs, in order.
struct Plans {
    legal: Vec<Component>,
    next: Vec<Component>,
    terminal: Vec<Component>,
    goal: Vec<Component>,
    sees: Vec<Component>,
}

pub struct Interpreter {
    symbols: Symbols,
    terms: Terms,
    relations: Relations,
    rules: Vec<CRule>,
    fixed: Vec<Table>,
    is_fixed: Vec<bool>,
    roles: Vec<String>,
    role_terms: Vec<TermId>,
    initial: State,
    keys: Keys,
    plans: Plans,
    /// Whether the game has `sees` rules or a `random` role (GDL-II).
    gdl_ii: bool,
    random_role: Option<usize>,
}

impl Interpreter {
    /// Prepares a game for evaluation. The description should have passed [`crate::check`];
    /// a rule that cannot be evaluated (an unsafe one) is refused here.
    pub fn new(description: &Description) -> Result<Interpreter, Error> {
        if crate::realtime::is_realtime(description) {
            return Err(Error::RealTimeGame);
        }
        let prepared = prepare(description)?;
        let description = &prepared;
        let deps = Dependencies::build(description);
        let recursive = |head: &str, body: &str| deps.same_component(head, body);
        let fact_stats = FactStats::new(description);
        let (mut symbols, mut terms, mut relations) = (Symbols::default(), Terms::default(), Relations::default());
        let rules = Compiler { symbols: &mut symbols, terms: &mut terms, relations: &mut relations }.compile(
            description,
            &|atom: &Atom, bound: &BTreeSet<&str>| fact_stats.cost(atom, bound),
            &recursive,
        )?;
        let keys = Keys {
            true_: relations.id("true", 1),
            does: relations.id("does", 2),
            legal: relations.id("legal", 2),
            next: relations.id("next", 1),
            goal: relations.id("goal", 2),
            terminal: relations.id("terminal", 0),
            sees: relations.id("sees", 2),
        };
        let init = relations.id("init", 1);
        let roles = description.roles();
        if roles.is_empty() {
            return Err(Error::NoRole);
        }
        let role_terms = roles
            .iter()
            .map(|r| Compiler { symbols: &mut symbols, terms: &mut terms, relations: &mut relations }.ground_const(r))
            .collect();

        let dynamic = deps.dependents_of(&["true", "does"]);
        let is_fixed: Vec<bool> = relations.keys.iter().map(|(name, _)| !dynamic.contains(name)).collect();
        let components = plan_components(&deps, &relations, &rules);

        // Static relations, once.
        let empty: Vec<Table> = Vec::new();
        let no_fixed: Vec<bool> = Vec::new();
        let budget = StaticFacts { derived: 0 };
        let mut eval = Eval::new(&mut terms, &rules, &empty, &no_fixed, relations.len(), budget);
        for c in components.iter().filter(|c| c.relations.iter().all(|&r| is_fixed[r])) {
            eval.run(c);
            if let Some(rel) = eval.exceeded {
                let relation = relations.keys[rel].0.clone();
                return Err(Error::StaticTooLarge { relation, limit: MAX_STATIC_FACTS });
            }
        }
        let fixed = eval.tables;
        let mut initial: Vec<Flat> = fixed[init]
            .facts
            .iter()
            .map(|f| {
                let mut flat = Vec::new();
                encode(&terms, f[0], &mut flat);
                flat.into_boxed_slice()
            })
            .collect();
        initial.sort();
        initial.dedup();

        // Now that the static relations are known, order the rule bodies by estimated sizes.
        let stats = Stats::new(&relations, &fixed, &is_fixed, roles.len(), initial.len());
        let cost = |atom: &crate::ast::Atom, bound: &BTreeSet<&str>| stats.cost(&relations, atom, bound);
        let rules = Compiler { symbols: &mut symbols, terms: &mut terms, relations: &mut relations.clone() }.compile(
            description,
            &cost,
            &recursive,
        )?;
        let components = plan_components(&deps, &relations, &rules);
        let mut fixed = fixed;
        for rule in rules.iter().flat_map(|r| std::iter::once(r).chain(&r.delta_variants)) {
            for (lit, access) in rule.body.iter().zip(access_paths(rule)) {
                if let (CLit::Pos(p), Access::Index(positions)) = (lit, access) {
                    if is_fixed[p.rel] {
                        fixed[p.rel].ensure_index(&positions);
                    }
                }
            }
        }

        let plan = |targets: &[&str]| -> Vec<Component> {
            let needed = deps.dependencies_of(targets);
            components
                .iter()
                .filter(|c| c.relations.iter().all(|&r| !is_fixed[r]))
                .filter(|c| c.relations.iter().any(|&r| needed.contains(&relations.keys[r].0)))
                .cloned()
                .collect()
        };
        let plans = Plans {
            legal: plan(&["legal"]),
            next: plan(&["next"]),
            terminal: plan(&["terminal"]),
            goal: plan(&["goal"]),
            sees: plan(&["sees"]),
        };
        let random_role = roles.iter().position(|r| r.eq_ignore_ascii_case(RANDOM_ROLE));
        let gdl_ii = random_role.is_some() || description.rules.iter().any(|r| r.head.name == "sees");
        Ok(Interpreter {
            symbols,
            terms,
            relations,
            rules,
            fixed,
            is_fixed,
            roles,
            role_terms,
            initial: State(initial.into()),
            keys,
            plans,
            gdl_ii,
            random_role,
        })
    }

    /// Evaluates `plan` in `state`, with `joint` as the `does` facts when given.
    fn evaluate(&self, state: &State, joint: Option<&[Move]>, plan: &[Component]) -> Eval<'_, Overlay<'_>> {
        let moves: Vec<Option<&Move>> = joint.unwrap_or(&[]).iter().map(Some).collect();
        self.evaluate_moves(state, &moves, plan)
    }

    /// Evaluates `plan` in `state` with `(does r m)` for every role `r` that plays a move
    /// `moves[r]` (the others do not move: real-time games).
    fn evaluate_moves(&self, state: &State, moves: &[Option<&Move>], plan: &[Component]) -> Eval<'_, Overlay<'_>> {
        let store = Overlay::new(&self.terms);
        let mut eval = Eval::new(store, &self.rules, &self.fixed, &self.is_fixed, self.relations.len(), Unlimited);
        for fact in state.0.iter() {
            let (id, _) = eval.store.decode(fact);
            eval.tables[self.keys.true_].insert(Box::new([id]));
        }
        for (role, mv) in moves.iter().enumerate() {
            let Some(mv) = mv else { continue };
            let (id, _) = eval.store.decode(&mv.0);
            eval.tables[self.keys.does].insert(Box::new([self.role_terms[role], id]));
        }
        for component in plan {
            eval.run(component);
        }
        eval
    }

    /// The `next` facts of `state` when the roles with a move in `moves` play it.
    pub(crate) fn next_facts(&self, state: &State, moves: &[Option<&Move>]) -> Vec<Flat> {
        let eval = self.evaluate_moves(state, moves, &self.plans.next);
        let mut facts: Vec<Flat> =
            eval.table(self.keys.next).facts.iter().map(|f| Self::flat(&eval.store, f[0])).collect();
        facts.sort();
        facts.dedup();
        facts
    }

    fn flat(terms: &impl TermRead, id: TermId) -> Flat {
        let mut flat = Vec::new();
        encode(terms, id, &mut flat);
        flat.into_boxed_slice()
    }

    /// The flat encoding of an s-expression over this game's symbols, if it has them all.
    fn flat_of(&self, sx: &Sx, out: &mut Vec<u32>) -> Option<()> {
        match sx {
            Sx::Atom(a) => {
                out.extend([self.symbols.get(a)?, 0]);
            }
            Sx::List(items) => {
                let (Sx::Atom(f), args) = items.split_first()? else { return None };
                out.extend([self.symbols.get(f)?, args.len() as u32]);
                for a in args {
                    self.flat_of(a, out)?;
                }
            }
        }
        Some(())
    }

    /// The facts of relation `name` of `arity`, each as its arguments in KIF, when the relation
    /// does not depend on the state (`None` when it does, or the game has no such relation).
    pub fn static_rows(&self, name: &str, arity: usize) -> Option<Vec<Vec<String>>> {
        let rel = self.relations.get(name, arity)?;
        if !self.is_fixed[rel] {
            return None;
        }
        let argument = |id: TermId| {
            let mut flat = Vec::new();
            encode(&self.terms, id, &mut flat);
            self.flat_string(&flat)
        };
        Some(self.fixed[rel].facts.iter().map(|fact| fact.iter().map(|&id| argument(id)).collect()).collect())
    }

    fn flat_string(&self, flat: &[u32]) -> String {
        let mut s = String::new();
        write_flat(&self.symbols, flat, &mut s);
        s
    }

    /// The number value of a goal term, if it is a natural number.
    fn goal_value(&self, terms: &impl TermRead, id: TermId) -> Option<u32> {
        let node: &Node = terms.node(id);
        if node.args.is_empty() {
            self.symbols.name(node.sym).parse().ok()
        } else {
            None
        }
    }
}

/// The name of GDL-II's role that the game manager plays, drawing its moves uniformly.
pub const RANDOM_ROLE: &str = "random";

/// The most facts the relations that do not depend on the state may have together.
const MAX_STATIC_FACTS: usize = 4_000_000;

/// The interpreter's budget for the relations that do not depend on the state: at most
/// [`MAX_STATIC_FACTS`] facts in all, however long it takes.
struct StaticFacts {
    derived: usize,
}

impl Budget for StaticFacts {
    #[inline]
    fn charge(&mut self, _steps: usize) {}

    #[inline]
    fn overspent(&self) -> bool {
        false
    }

    #[inline]
    fn allows(&self, _rel: RelId, pending: usize) -> bool {
        self.derived.saturating_add(pending) < MAX_STATIC_FACTS
    }

    #[inline]
    fn count(&mut self, _rel: RelId) {
        self.derived += 1;
    }
}

/// Sizes of relations and counts of distinct terms per argument position, for ordering bodies.
struct Stats {
    size: Vec<f64>,
    distinct: Vec<Vec<f64>>,
}

impl Stats {
    fn new(relations: &Relations, fixed: &[Table], is_fixed: &[bool], roles: usize, state_size: usize) -> Stats {
        let mut size = Vec::new();
        let mut distinct = Vec::new();
        for (rel, (name, arity)) in relations.keys.iter().enumerate() {
            let (n, d) = if is_fixed[rel] {
                let facts = &fixed[rel].facts;
                let d = (0..*arity).map(|i| facts.iter().map(|f| f[i]).collect::<BTreeSet<_>>().len() as f64).collect();
                (facts.len() as f64, d)
            } else if name == "does" {
                (roles as f64, vec![roles as f64, 1.0])
            } else if name == "true" {
                let n = state_size.max(8) as f64;
                (n, vec![n])
            } else {
                (1000.0, vec![30.0; *arity])
            };
            size.push(n);
            distinct.push(d);
        }
        Stats { size, distinct }
    }

    fn cost(&self, relations: &Relations, atom: &crate::ast::Atom, bound: &BTreeSet<&str>) -> f64 {
        let Some(rel) = relations.get(&atom.name, atom.args.len()) else { return 0.0 };
        let mut cost = self.size[rel];
        for (arg, d) in atom.args.iter().zip(&self.distinct[rel]) {
            cost /= compile::arg_selectivity(arg, bound, *d);
        }
        cost
    }
}

impl Interpreter {
    /// Every goal value the goal relation gives each role in `state`, sorted (the game should
    /// give exactly one; when it gives several, the largest counts).
    pub fn goal_values(&self, state: &State) -> Vec<Vec<u32>> {
        let eval = self.evaluate(state, None, &self.plans.goal);
        let mut goals = vec![Vec::new(); self.roles.len()];
        for fact in &eval.table(self.keys.goal).facts {
            if let Some(role) = self.role_terms.iter().position(|&t| t == fact[0]) {
                if let Some(value) = self.goal_value(&eval.store, fact[1]) {
                    goals[role].push(value);
                }
            }
        }
        for values in &mut goals {
            values.sort_unstable();
            values.dedup();
        }
        goals
    }
}

impl Game for Interpreter {
    type State = State;
    type Move = Move;

    fn num_roles(&self) -> usize {
        self.roles.len()
    }

    fn role_name(&self, role: usize) -> &str {
        &self.roles[role]
    }

    fn initial_state(&self) -> State {
        self.initial.clone()
    }

    fn legal_moves(&self, state: &State, role: usize, out: &mut Vec<Move>) {
        let mut all = Vec::new();
        self.all_legal_moves(state, &mut all);
        *out = std::mem::take(&mut all[role]);
    }

    fn all_legal_moves(&self, state: &State, out: &mut Vec<Vec<Move>>) {
        out.resize_with(self.roles.len(), Vec::new);
        out.iter_mut().for_each(Vec::clear);
        let eval = self.evaluate(state, None, &self.plans.legal);
        for fact in &eval.table(self.keys.legal).facts {
            if let Some(role) = self.role_terms.iter().position(|&t| t == fact[0]) {
                out[role].push(Move(Self::flat(&eval.store, fact[1])));
            }
        }
    }

    fn next_state(&self, state: &State, joint: &[Move]) -> State {
        let eval = self.evaluate(state, Some(joint), &self.plans.next);
        let mut facts: Vec<Flat> =
            eval.table(self.keys.next).facts.iter().map(|f| Self::flat(&eval.store, f[0])).collect();
        facts.sort();
        facts.dedup();
        State(facts.into())
    }

    fn is_terminal(&self, state: &State) -> bool {
        let eval = self.evaluate(state, None, &self.plans.terminal);
        !eval.table(self.keys.terminal).facts.is_empty()
    }

    fn goal(&self, state: &State, role: usize) -> Option<u32> {
        self.goals(state)[role]
    }

    fn goals_into(&self, state: &State, out: &mut [Option<u32>]) {
        for (goal, values) in out.iter_mut().zip(self.goal_values(state)) {
            *goal = values.last().copied();
        }
    }

    fn state_facts(&self, state: &State) -> Vec<String> {
        let mut facts: Vec<String> = state.0.iter().map(|f| self.flat_string(f)).collect();
        facts.sort();
        facts
    }

    fn move_string(&self, mv: &Move) -> String {
        self.flat_string(&mv.0)
    }

    fn is_gdl_ii(&self) -> bool {
        self.gdl_ii
    }

    fn random_role(&self) -> Option<usize> {
        self.random_role
    }

    fn percepts(&self, state: &State, joint: &[Move], role: usize, out: &mut Vec<String>) {
        let mut all = Vec::new();
        self.all_percepts(state, joint, &mut all);
        *out = std::mem::take(&mut all[role]);
    }

    fn all_percepts(&self, state: &State, joint: &[Move], out: &mut Vec<Vec<String>>) {
        out.resize_with(self.roles.len(), Vec::new);
        out.iter_mut().for_each(Vec::clear);
        if !self.gdl_ii {
            return;
        }
        let eval = self.evaluate(state, Some(joint), &self.plans.sees);
        for fact in &eval.table(self.keys.sees).facts {
            if let Some(role) = self.role_terms.iter().position(|&t| t == fact[0]) {
                out[role].push(self.flat_string(&Self::flat(&eval.store, fact[1])));
            }
        }
        for percepts in out.iter_mut() {
            percepts.sort();
            percepts.dedup();
        }
    }

    fn parse_move(&self, _role: usize, text: &str) -> Option<Move> {
        let sx = kif::parse_one(text).ok()?.to_lowercase();
        let mut flat = Vec::new();
        self.flat_of(&sx, &mut flat)?;
        Some(Move(flat.into_boxed_slice()))
    }
}

#[cfg(test)]
mod tests;
