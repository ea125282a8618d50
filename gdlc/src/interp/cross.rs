//! Both engines asked every query in one state, for tests: they must give the same answers.

use super::budget::{Limits, Spending};
use super::{Interpreter, Move, Query, State};
use crate::datalog::eval::Eval;
use crate::datalog::store::Overlay;

/// The most steps one engine may spend on a query of the cross-check: an engine can be
/// hopelessly slow on a game the other plays fast (that is why there are two).
const CROSS_STEPS: usize = 2_000_000;

/// A query's answer, in a form that does not depend on the order of facts.
type Answer = Vec<String>;

impl Interpreter {
    /// How many engines the interpreter has for the game (one when the demand rewrite changes
    /// nothing).
    #[doc(hidden)]
    pub fn engine_count(&self) -> usize {
        self.engines.len()
    }

    /// Asks every query in `state` (`next` and `sees` after `joint`) of every engine that can
    /// answer it within a cap on steps, and describes the first query on which two engines
    /// disagree. For tests.
    #[doc(hidden)]
    pub fn cross_check(&self, state: &State, joint: &[Move]) -> Result<(), String> {
        let moves: Vec<Option<&Move>> = joint.iter().map(Some).collect();
        for query in Query::ALL {
            let with_moves = matches!(query, Query::Next | Query::Sees);
            let moves: &[Option<&Move>] = if with_moves { &moves } else { &[] };
            let answers: Vec<(usize, Answer)> = (0..self.engines.len())
                .filter(|&e| self.engines[e].plans[query as usize].is_some())
                .filter_map(|e| self.answer(e, query, state, moves).map(|a| (e, a)))
                .collect();
            if let Some(pair) = answers.windows(2).find(|w| w[0].1 != w[1].1) {
                return Err(format!(
                    "the engines disagree on {}: engine {} gives {:?}, engine {} gives {:?}",
                    query.relation(),
                    pair[0].0,
                    pair[0].1,
                    pair[1].0,
                    pair[1].1
                ));
            }
        }
        Ok(())
    }

    /// Engine `engine`'s answer to `query`, or `None` past the cap.
    fn answer(&self, engine: usize, query: Query, state: &State, moves: &[Option<&Move>]) -> Option<Answer> {
        let budget = Spending::new(&Limits::NONE).capped(usize::MAX, CROSS_STEPS);
        let eval = self.evaluate_on(engine, query, state, moves, budget);
        if eval.exceeded.is_some() {
            return None;
        }
        let mut answer = self.answer_of(query, &eval);
        answer.sort();
        Some(answer)
    }

    fn answer_of(&self, query: Query, eval: &Eval<'_, Overlay<'_>, Spending>) -> Answer {
        let per_role = |items: Vec<Vec<String>>| -> Answer {
            items.into_iter().enumerate().flat_map(|(r, xs)| xs.into_iter().map(move |x| format!("{r} {x}"))).collect()
        };
        match query {
            Query::Legal => per_role(
                self.legal_of(eval).into_iter().map(|ms| ms.iter().map(|m| self.symbols.kif(&m.0)).collect()).collect(),
            ),
            Query::Next => self.next_of(eval).iter().map(|f| self.symbols.kif(f)).collect(),
            Query::Terminal => vec![self.terminal_of(eval).to_string()],
            Query::Goal => {
                per_role(self.goals_of(eval).into_iter().map(|vs| vs.iter().map(u32::to_string).collect()).collect())
            }
            Query::Sees => per_role(self.percepts_of(eval)),
        }
    }
}
