//! A random step in one evaluation per engine: terminal, then the legal moves, then (after the
//! draw) the next state, from one set of tables of the state for each engine that answers one
//! of them, each component of an engine's rules run once.
//!
//! An engine's plans are subsequences of one topological order of its components, so the union
//! of terminal's and legal's plans, run in their order, computes every relation either needs;
//! neither reads `does`, so the moves drawn can be added after them, and next's components
//! that neither ran are then run. Asked query by query, a step adds the state three times and
//! runs the components the queries share once a query.

use super::{Interpreter, Move, Query, State};
use crate::datalog::eval::{Eval, Unlimited};
use crate::datalog::store::Overlay;
use gdl_runtime::rng::Rng;

impl Interpreter {
    /// [`gdl_runtime::Game::random_step`] with as few evaluations as engines answer terminal,
    /// legal and next (one for most games): `legal` gets every role's legal moves (when the
    /// state is not terminal) and `joint` the moves drawn from them, as
    /// [`gdl_runtime::draw_joint`] draws. `None` when the state is terminal or a role has no
    /// legal move.
    pub(crate) fn fused_step(
        &self,
        state: &State,
        rng: &mut Rng,
        legal: &mut Vec<Vec<Move>>,
        joint: &mut Vec<Move>,
    ) -> Option<State> {
        let mut step = Step { evals: Vec::new() };
        let at = self.run_plan(&mut step, state, Query::Terminal);
        if self.terminal_of(&step.evals[at].1) {
            return None;
        }
        let at = self.run_plan(&mut step, state, Query::Legal);
        *legal = self.legal_of(&step.evals[at].1);
        gdl_runtime::draw_joint(legal, rng, joint)?;
        let at = self.step_tables(&mut step, state, self.chosen[Query::Next as usize]);
        for (role, mv) in joint.iter().enumerate() {
            self.add_move(&mut step.evals[at].1, role, mv);
        }
        let at = self.run_plan(&mut step, state, Query::Next);
        Some(State(self.next_of(&step.evals[at].1).into()))
    }

    /// Runs the components of `query`'s plan that its engine's tables have not run yet; returns
    /// the place of those tables in `step`.
    fn run_plan<'a>(&'a self, step: &mut Step<'a>, state: &State, query: Query) -> usize {
        let engine = self.chosen[query as usize];
        let at = self.step_tables(step, state, engine);
        let (_, eval, ran) = &mut step.evals[at];
        for component in self.engines[engine].plans[query as usize].iter().flatten() {
            // Components partition the relations: a component is known by its first relation.
            let first = component.relations.first().copied();
            if first.is_none_or(|r| !std::mem::replace(&mut ran[r], true)) {
                eval.run(component);
            }
        }
        at
    }

    /// The place in `step` of engine `engine`'s tables of `state`, made when it has none yet.
    fn step_tables<'a>(&'a self, step: &mut Step<'a>, state: &State, engine: usize) -> usize {
        if let Some(at) = step.evals.iter().position(|(e, _, _)| *e == engine) {
            return at;
        }
        let eval = self.tables_of(engine, state, Unlimited);
        step.evals.push((engine, eval, vec![false; self.relations.len()]));
        step.evals.len() - 1
    }
}

/// The tables of one step: for each engine that answers a query of it, its evaluation of the
/// state and which components it has run (by their first relation).
struct Step<'a> {
    evals: Vec<(usize, Eval<'a, Overlay<'a>, Unlimited>, Vec<bool>)>,
}
