//! The sizes of the relations that depend on the state, observed in the first states of a
//! random match: what orders the rule bodies of the per-state queries once loading has a plan
//! to play with. Before a match the planner knows only the initial state and guesses the rest
//! (a thousand facts a derived relation); a game whose state relations stay small (two guesses
//! of a number) is then joined through its large static tables first.
//!
//! The match is the same at every load (a fixed seed, and steps of joins counted, not time),
//! so a game's plan, and the code generated from it, does not vary between runs.

use super::budget::{Limits, Spending};
use super::seeded::Played;
use super::{Interpreter, Move, Query, State};
use crate::datalog::compile::RelId;
use crate::datalog::eval::{Budget, Eval};
use crate::datalog::store::Overlay;
use std::collections::BTreeSet;
use std::convert::Infallible;

/// How many states of the match are observed.
const OBSERVED_STATES: usize = 12;

/// The seed of the observed match.
const OBSERVE_SEED: u64 = 2;

/// The most steps of joins one evaluation of the observation may take.
const OBSERVE_STEPS: usize = 500_000;

/// The most steps the whole observation may take (about a third of a second).
pub(super) const OBSERVE_TOTAL: usize = 2_000_000;

/// The states of the match, each with the joint move played in it (none in the last).
pub(super) struct Sample {
    states: Played,
}

/// The largest number of facts, and of distinct terms at each argument, that each relation had
/// in the observed states, by relation; `None` for a relation never evaluated.
#[derive(Default)]
pub(super) struct Observed {
    sizes: Vec<Option<(f64, Vec<f64>)>>,
}

impl Observed {
    /// What was observed of relation `rel`: its facts and distinct terms per argument.
    pub(super) fn of(&self, rel: RelId) -> Option<&(f64, Vec<f64>)> {
        self.sizes.get(rel).and_then(Option::as_ref)
    }

    fn is_empty(&self) -> bool {
        self.sizes.iter().all(Option::is_none)
    }

    /// Takes in the tables of the relations `rels` of `eval`.
    fn record<B: Budget>(&mut self, eval: &Eval<'_, Overlay<'_>, B>, rels: impl Iterator<Item = RelId>) {
        for rel in rels {
            let table = eval.table(rel);
            let width = table.facts().next().map_or(0, <[_]>::len);
            let distinct: Vec<f64> =
                (0..width).map(|i| table.facts().map(|f| f[i]).collect::<BTreeSet<_>>().len() as f64).collect();
            if self.sizes.len() <= rel {
                self.sizes.resize(rel + 1, None);
            }
            let entry = self.sizes[rel].get_or_insert_with(|| (0.0, Vec::new()));
            entry.0 = entry.0.max(table.len() as f64);
            if entry.1.len() < distinct.len() {
                entry.1.resize(distinct.len(), 0.0);
            }
            for (seen, d) in entry.1.iter_mut().zip(distinct) {
                *seen = seen.max(d);
            }
        }
    }
}

impl Interpreter {
    /// Plays the first states of a random match through the chosen engines, observing the size
    /// of every relation each engine evaluates; `None` when nothing could be observed within
    /// the observation's limits (or `limits`).
    pub(super) fn observe(&self, limits: &Limits) -> Option<(Sample, Observed)> {
        let mut observed = Observed::default();
        let mut left = OBSERVE_TOTAL;
        let ask = |query: Query, state: &State, moves: &[Option<&Move>]| -> Result<_, Infallible> {
            let budget = Spending::new(limits).capped(usize::MAX, OBSERVE_STEPS.min(left));
            let engine = self.chosen[query as usize];
            let eval = self.evaluate_on(engine, query, state, moves, budget);
            left = left.saturating_sub(eval.budget.steps());
            if eval.exceeded.is_some() {
                return Ok(None);
            }
            observed.record(&eval, self.observed_relations(engine, query));
            Ok(Some(self.match_answer_of(query, &eval)))
        };
        let states = self.play_seeded(OBSERVE_SEED, OBSERVED_STATES, ask).unwrap_or_else(|never| match never {});
        (!observed.is_empty()).then_some((Sample { states }, observed))
    }

    /// The relations that engine `engine` evaluates for `query`, and the state and the moves
    /// it reads: those an evaluation of the query tells the size of.
    fn observed_relations(&self, engine: usize, query: Query) -> impl Iterator<Item = RelId> + '_ {
        let planned =
            self.engines[engine].plans[query as usize].iter().flatten().flat_map(|c| c.relations.iter().copied());
        let moves = matches!(query, Query::Next | Query::Sees);
        let read = self.inputs.loaded_into(0).chain(self.inputs.loaded_into(1).filter(move |_| moves));
        planned.chain(read)
    }

    /// The steps of joins the chosen engines take to answer every query in the states of
    /// `sample`, or `cap` once they reach it (or an evaluation went past a limit): past the
    /// steps of another plan, the rest does not matter.
    pub(super) fn steps_over(&self, sample: &Sample, limits: &Limits, cap: usize) -> usize {
        let mut spent = 0usize;
        for (state, joint) in &sample.states {
            let moves: Vec<Option<&Move>> = joint.iter().flatten().map(Some).collect();
            let mut queries = vec![Query::Terminal, Query::Goal, Query::Legal];
            if joint.is_some() {
                queries.extend(self.gdl_ii.then_some(Query::Sees));
                queries.push(Query::Next);
            }
            for query in queries {
                let left = cap.saturating_sub(spent);
                let budget = Spending::new(limits).capped(usize::MAX, OBSERVE_STEPS.min(left));
                let moves: &[Option<&Move>] = if matches!(query, Query::Next | Query::Sees) { &moves } else { &[] };
                let eval = self.evaluate_on(self.chosen[query as usize], query, state, moves, budget);
                spent = spent.saturating_add(eval.budget.steps());
                if eval.exceeded.is_some() || spent >= cap {
                    return cap;
                }
            }
        }
        spent
    }
}
