//! A random step in one evaluation: terminal, then the legal moves, then (after the draw) the
//! next state, from one set of tables of the state, each component of the rules run once.
//!
//! The queries' plans are subsequences of one topological order of the components, so the
//! union of terminal's and legal's plans, run in their order, computes every relation either
//! needs; neither reads `does`, so the moves drawn can be added after them, and next's
//! components that neither ran are then run. Through [`gdl_runtime::Game`], a step asked
//! query by query adds the state three times and runs the components the queries share once a
//! query.

use super::{Interpreter, Move, Query, State};
use crate::datalog::eval::{Eval, Unlimited};
use crate::datalog::store::Overlay;
use gdl_runtime::rng::Rng;

impl Interpreter {
    /// [`gdl_runtime::Game::random_step`] in one evaluation: `legal` gets every role's legal
    /// moves (when the state is not terminal) and `joint` the moves drawn from them, as
    /// [`gdl_runtime::draw_joint`] draws. `None` when the queries are answered by different
    /// engines, so that the step must be asked query by query; `Some(None)` when the state is
    /// terminal or a role has no legal move.
    pub(crate) fn fused_step(
        &self,
        state: &State,
        rng: &mut Rng,
        legal: &mut Vec<Vec<Move>>,
        joint: &mut Vec<Move>,
    ) -> Option<Option<State>> {
        let chosen = self.chosen[Query::Terminal as usize];
        if [Query::Legal, Query::Next].iter().any(|&q| self.chosen[q as usize] != chosen) {
            return None;
        }
        let engine = &self.engines[chosen];
        let store = Overlay::new(&self.terms);
        let mut eval = Eval::new(store, &engine.rules, &self.fixed, &engine.is_fixed, self.relations.len(), Unlimited);
        for fact in state.0.iter() {
            let (id, _) = eval.store.decode(fact);
            self.inputs.add_true(&mut eval.tables, &eval.store, id);
        }
        // Components partition the relations: a component is known by its first relation.
        let mut ran = vec![false; self.relations.len()];
        let mut run = |eval: &mut Eval<'_, Overlay<'_>, Unlimited>, query: Query| {
            for component in engine.plans[query as usize].iter().flatten() {
                let first = component.relations.first().copied();
                if first.is_none_or(|r| !std::mem::replace(&mut ran[r], true)) {
                    eval.run(component);
                }
            }
        };
        run(&mut eval, Query::Terminal);
        if self.terminal_of(&eval) {
            return Some(None);
        }
        run(&mut eval, Query::Legal);
        *legal = self.legal_of(&eval);
        if gdl_runtime::draw_joint(legal, rng, joint).is_none() {
            return Some(None);
        }
        for (role, mv) in joint.iter().enumerate() {
            let (id, _) = eval.store.decode(&mv.0);
            self.inputs.add_does(&mut eval.tables, &eval.store, self.role_terms[role], id);
        }
        run(&mut eval, Query::Next);
        Some(Some(State(self.next_of(&eval).into())))
    }
}
