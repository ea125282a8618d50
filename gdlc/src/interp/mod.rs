//! The reference interpreter: an obviously correct evaluator of a checked game's stratified
//! semantics behind the runtime's [`Game`] interface. Relations that do not depend on `true` or
//! `does` are computed once at load; every query evaluates, bottom-up, only the strata the
//! queried relation depends on, with the [`crate::datalog`] engine.
//!
//! A query has two engines (see [`load`]): the rules as written, and the rules restricted to the
//! bindings their callers ask for (a magic-sets rewrite, [`crate::ground::demand`]). Each
//! computes the same facts of the queried relation; the one that did the query with less work
//! in a few states of a random match answers it ([`choose`]). Their rule bodies are ordered by
//! the sizes of the relations: guessed before a match, then observed in its first states
//! ([`observe`]), and planned again when that answers those states with fewer steps. A query runs without limit
//! through [`Game`], or within [`Limits`] through the `try_` methods, which return
//! [`Exceeded`] instead of running away; [`Bounded`] is a [`Game`] whose every query runs so.
//! [`differential`] compares other engines with it over random playouts.

mod bounded;
mod budget;
mod choose;
mod cross;
pub mod differential;
mod disjuncts;
mod error;
mod game;
mod inputs;
mod load;
mod observe;
pub mod realtime;
mod seeded;
mod stats;
mod step;

pub use bounded::Bounded;
pub use budget::{Exceeded, Limits};
pub use error::Error;

use crate::datalog::compile::{CRule, RelId, Relations};
use crate::datalog::eval::{Budget, Component, Eval, Table, Unlimited};
use crate::datalog::store::{encoded, Overlay, Symbols, TermId, TermRead, Terms};
use budget::Spending;
use inputs::Inputs;
use std::sync::Arc;

/// A ground term in a store-independent flat prefix encoding.
pub type Flat = Box<[u32]>;

/// A game state: the set of true base facts, sorted.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State(pub(crate) Arc<[Flat]>);

/// A move term.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move(Flat);

/// What a game is asked in a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Query {
    Legal,
    Next,
    Terminal,
    Goal,
    Sees,
}

impl Query {
    pub(crate) const ALL: [Query; 5] = [Query::Legal, Query::Next, Query::Terminal, Query::Goal, Query::Sees];

    /// The relation whose facts answer the query.
    pub(crate) fn relation(self) -> &'static str {
        match self {
            Query::Legal => "legal",
            Query::Next => "next",
            Query::Terminal => "terminal",
            Query::Goal => "goal",
            Query::Sees => "sees",
        }
    }
}

/// The relations that answer the queries.
pub(crate) struct Keys {
    pub(crate) legal: RelId,
    pub(crate) next: RelId,
    pub(crate) goal: RelId,
    pub(crate) terminal: RelId,
    pub(crate) sees: RelId,
}

/// One way of evaluating the queries: a program's rules, which relations it reads from the
/// static tables, and the components each query evaluates, in order.
pub(crate) struct Engine {
    pub(crate) rules: Vec<CRule>,
    pub(crate) is_fixed: Vec<bool>,
    /// For each query (in the order of [`Query::ALL`]), its components; `None` when the engine
    /// cannot answer it (a static relation it needs went past the interpreter's limits).
    pub(crate) plans: [Option<Vec<Component>>; 5],
}

pub struct Interpreter {
    pub(crate) symbols: Symbols,
    pub(crate) terms: Terms,
    pub(crate) relations: Relations,
    /// The static relations, shared by the engines.
    pub(crate) fixed: Vec<Table>,
    pub(crate) engines: Vec<Engine>,
    /// The engine that answers each query, in the order of [`Query::ALL`].
    pub(crate) chosen: [usize; 5],
    pub(crate) inputs: Inputs,
    pub(crate) keys: Keys,
    pub(crate) roles: Vec<String>,
    pub(crate) role_terms: Vec<TermId>,
    pub(crate) initial: State,
    /// Whether the game has `sees` rules or a `random` role (GDL-II).
    pub(crate) gdl_ii: bool,
    pub(crate) random_role: Option<usize>,
}

/// The name of GDL-II's role that the game manager plays, drawing its moves uniformly.
pub const RANDOM_ROLE: &str = "random";

impl Interpreter {
    /// Prepares a game for evaluation. The description should have passed [`crate::check`];
    /// a rule that cannot be evaluated (an unsafe one) is refused here.
    pub fn new(description: &crate::ast::Description) -> Result<Interpreter, Error> {
        Interpreter::with_limits(description, &Limits::NONE)
    }

    /// [`Interpreter::new`] within `limits`: its deadline bounds the whole load (the static
    /// relations and the choice of engines), and its cap on facts each static relation.
    pub fn with_limits(description: &crate::ast::Description, limits: &Limits) -> Result<Interpreter, Error> {
        load::load(description, limits)
    }

    /// Evaluates `query` in `state` with `(does r m)` for every role `r` that plays a move
    /// `moves[r]` (the others do not move: real-time games), through the engine chosen for it.
    fn evaluate<B: Budget>(
        &self,
        query: Query,
        state: &State,
        moves: &[Option<&Move>],
        budget: B,
    ) -> Eval<'_, Overlay<'_>, B> {
        self.evaluate_on(self.chosen[query as usize], query, state, moves, budget)
    }

    /// Evaluates `query` through engine `engine`, which must be able to answer it.
    fn evaluate_on<B: Budget>(
        &self,
        engine: usize,
        query: Query,
        state: &State,
        moves: &[Option<&Move>],
        budget: B,
    ) -> Eval<'_, Overlay<'_>, B> {
        let mut eval = self.tables_of(engine, state, budget);
        for (role, mv) in moves.iter().enumerate() {
            if let Some(mv) = mv {
                self.add_move(&mut eval, role, mv);
            }
        }
        for component in self.engines[engine].plans[query as usize].iter().flatten() {
            eval.run(component);
            if eval.exceeded.is_some() {
                break;
            }
        }
        eval
    }

    /// Engine `engine`'s tables of `state`, before any of its components runs.
    fn tables_of<B: Budget>(&self, engine: usize, state: &State, budget: B) -> Eval<'_, Overlay<'_>, B> {
        let engine = &self.engines[engine];
        let store = Overlay::new(&self.terms);
        let mut eval = Eval::new(store, &engine.rules, &self.fixed, &engine.is_fixed, self.relations.len(), budget);
        for fact in state.0.iter() {
            let (id, _) = eval.store.decode(fact);
            self.inputs.add_true(&mut eval.tables, &eval.store, id);
        }
        eval
    }

    /// Adds `(does role mv)` to the tables of `eval`.
    fn add_move<B: Budget>(&self, eval: &mut Eval<'_, Overlay<'_>, B>, role: usize, mv: &Move) {
        let (id, _) = eval.store.decode(&mv.0);
        self.inputs.add_does(&mut eval.tables, &eval.store, self.role_terms[role], id);
    }

    /// Evaluates `query` within `limits`, or says which limit stopped it.
    fn evaluate_within(
        &self,
        query: Query,
        state: &State,
        moves: &[Option<&Move>],
        limits: &Limits,
    ) -> Result<Eval<'_, Overlay<'_>, Spending>, Exceeded> {
        let eval = self.evaluate(query, state, moves, Spending::new(limits));
        match eval.exceeded {
            Some(rel) => Err(eval.budget.exceeded(&self.user_relation(rel))),
            None => Ok(eval),
        }
    }

    /// The relation of the game that relation `rel` computes for.
    fn user_relation(&self, rel: RelId) -> String {
        let name = &self.relations.keys[rel].0;
        let name = crate::ground::demand::part_of(name).unwrap_or(name);
        crate::ground::demand::served(name).unwrap_or(name).to_string()
    }

    /// Every role's legal moves in `state`, within `limits`.
    pub fn try_legal_moves(&self, state: &State, limits: &Limits) -> Result<Vec<Vec<Move>>, Exceeded> {
        Ok(self.legal_of(&self.evaluate_within(Query::Legal, state, &[], limits)?))
    }

    /// The state after `joint` in `state`, within `limits`.
    pub fn try_next_state(&self, state: &State, joint: &[Move], limits: &Limits) -> Result<State, Exceeded> {
        let moves: Vec<Option<&Move>> = joint.iter().map(Some).collect();
        Ok(State(self.next_of(&self.evaluate_within(Query::Next, state, &moves, limits)?).into()))
    }

    /// Whether `state` is terminal, within `limits`.
    pub fn try_is_terminal(&self, state: &State, limits: &Limits) -> Result<bool, Exceeded> {
        Ok(self.terminal_of(&self.evaluate_within(Query::Terminal, state, &[], limits)?))
    }

    /// [`Interpreter::goal_values`] within `limits`.
    pub fn try_goal_values(&self, state: &State, limits: &Limits) -> Result<Vec<Vec<u32>>, Exceeded> {
        Ok(self.goals_of(&self.evaluate_within(Query::Goal, state, &[], limits)?))
    }

    /// Every role's percepts after `joint` in `state`, within `limits` (none in a game without
    /// `sees` rules).
    pub fn try_percepts(&self, state: &State, joint: &[Move], limits: &Limits) -> Result<Vec<Vec<String>>, Exceeded> {
        if !self.gdl_ii {
            return Ok(vec![Vec::new(); self.roles.len()]);
        }
        let moves: Vec<Option<&Move>> = joint.iter().map(Some).collect();
        Ok(self.percepts_of(&self.evaluate_within(Query::Sees, state, &moves, limits)?))
    }

    /// Every goal value the goal relation gives each role in `state`, sorted (the game should
    /// give exactly one; when it gives several, the largest counts).
    pub fn goal_values(&self, state: &State) -> Vec<Vec<u32>> {
        self.goals_of(&self.evaluate(Query::Goal, state, &[], Unlimited))
    }

    /// The `next` facts of `state` when the roles with a move in `moves` play it.
    pub(crate) fn next_facts(&self, state: &State, moves: &[Option<&Move>]) -> Vec<Flat> {
        self.next_of(&self.evaluate(Query::Next, state, moves, Unlimited))
    }

    fn legal_of<B: Budget>(&self, eval: &Eval<'_, Overlay<'_>, B>) -> Vec<Vec<Move>> {
        let mut out = vec![Vec::new(); self.roles.len()];
        for fact in eval.table(self.keys.legal).facts() {
            if let Some(role) = self.role_terms.iter().position(|&t| t == fact[0]) {
                out[role].push(Move(encoded(&eval.store, fact[1])));
            }
        }
        out
    }

    fn next_of<B: Budget>(&self, eval: &Eval<'_, Overlay<'_>, B>) -> Vec<Flat> {
        let mut facts: Vec<Flat> = eval.table(self.keys.next).facts().map(|f| encoded(&eval.store, f[0])).collect();
        facts.sort();
        facts.dedup();
        facts
    }

    fn terminal_of<B: Budget>(&self, eval: &Eval<'_, Overlay<'_>, B>) -> bool {
        !eval.table(self.keys.terminal).is_empty()
    }

    fn goals_of<B: Budget>(&self, eval: &Eval<'_, Overlay<'_>, B>) -> Vec<Vec<u32>> {
        let mut goals = vec![Vec::new(); self.roles.len()];
        for fact in eval.table(self.keys.goal).facts() {
            if let Some(role) = self.role_terms.iter().position(|&t| t == fact[0]) {
                goals[role].extend(self.symbols.natural(eval.store.node(fact[1])));
            }
        }
        for values in &mut goals {
            values.sort_unstable();
            values.dedup();
        }
        goals
    }

    fn percepts_of<B: Budget>(&self, eval: &Eval<'_, Overlay<'_>, B>) -> Vec<Vec<String>> {
        let mut out = vec![Vec::new(); self.roles.len()];
        for fact in eval.table(self.keys.sees).facts() {
            if let Some(role) = self.role_terms.iter().position(|&t| t == fact[0]) {
                out[role].push(self.symbols.kif(&encoded(&eval.store, fact[1])));
            }
        }
        for percepts in out.iter_mut() {
            percepts.sort();
            percepts.dedup();
        }
        out
    }

    /// Adds the ground terms `texts` (in KIF) to the store, those over symbols it has: terms the
    /// game's states and moves are made of, so that code generated from this interpreter
    /// finds them in its store instead of making them again in every evaluation.
    pub fn intern_terms(&mut self, texts: &[String]) {
        for text in texts {
            self.terms.intern_kif(&self.symbols, text);
        }
    }

    /// The facts of relation `name` of `arity`, each as its arguments in KIF, when the relation
    /// does not depend on the state (`None` when it does, or the game has no such relation).
    pub fn static_rows(&self, name: &str, arity: usize) -> Option<Vec<Vec<String>>> {
        let rel = self.relations.get(name, arity)?;
        if !self.engines.iter().all(|e| e.is_fixed.get(rel).copied().unwrap_or(false)) {
            return None;
        }
        let argument = |id: TermId| self.symbols.kif(&encoded(&self.terms, id));
        Some(self.fixed[rel].facts().map(|fact| fact.iter().map(|&id| argument(id)).collect()).collect())
    }
}

#[cfg(test)]
mod tests;
