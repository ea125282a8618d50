//! The choice of an engine for each query: both engines answer it in the first states of a
//! random match (the same match every time, and steps of joins, not time, are counted: the
//! choice does not vary between loads), and the one that spent fewer steps in all answers it
//! from then on. The demand engine must have been cheaper by a fifth, for the work its extra
//! relations cost besides the steps.
//!
//! An engine can be far slower than the other (a thousand times, on chess's check rules
//! evaluated for every square), so the two race: both run with a cap of steps that doubles
//! until one answers, and the other then gets four times what that one spent. The whole trial
//! takes at most [`TRIAL_TOTAL`] steps, a fraction of a second.

use super::budget::{Limits, Spending, Trip};
use super::seeded::Answer;
use super::{Error, Interpreter, Move, Query, State};

/// How many states of the match the engines are compared in.
const TRIAL_STATES: usize = 6;

/// The seed of the trial's match.
const TRIAL_SEED: u64 = 1;

/// The steps the whole trial may take (a third of a second, or about).
const TRIAL_TOTAL: usize = 1_000_000;

/// The most steps one engine may spend on one query of the trial.
const TRIAL_STEPS: usize = 500_000;

/// The first cap of the race between the engines.
const FIRST_CAP: usize = 2_000;

/// How many times the steps of the engine that answered first the other may spend.
const RIVAL_FACTOR: usize = 4;

/// How much cheaper the demand engine must have been to be chosen, as a fraction: its
/// rules do more besides the joins that the steps count (more relations, more tables).
const DEMAND_EDGE: (usize, usize) = (4, 5);

/// What one engine's evaluation of a query gave in the trial.
enum Outcome {
    Done(Answer, usize),
    /// Stopped after so many steps.
    Stopped(usize),
}

impl Interpreter {
    /// Chooses the engine of every query that both engines can answer.
    pub(super) fn choose(&mut self, limits: &Limits) -> Result<(), Error> {
        let contested: Vec<Query> = Query::ALL
            .into_iter()
            .filter(|&q| self.engines.len() > 1 && self.engines.iter().all(|e| e.plans[q as usize].is_some()))
            .collect();
        if contested.is_empty() {
            return Ok(());
        }
        let mut trial = Trial { interpreter: self, limits, spent: [[0; 2]; 5], contested, left: TRIAL_TOTAL };
        trial.run().map_err(Error::Exceeded)?;
        let spent = trial.spent;
        for q in Query::ALL {
            if self.engines.len() > 1 && self.engines.iter().all(|e| e.plans[q as usize].is_some()) {
                let [plain, demand] = spent[q as usize];
                let (num, den) = DEMAND_EDGE;
                self.chosen[q as usize] = usize::from(demand.saturating_mul(den) < plain.saturating_mul(num));
            }
        }
        Ok(())
    }
}

/// The steps each engine spent on each query (indexed as [`Query::ALL`], then by engine).
type Spent = [[usize; 2]; 5];

struct Trial<'i> {
    interpreter: &'i Interpreter,
    limits: &'i Limits,
    spent: Spent,
    contested: Vec<Query>,
    /// The steps the trial may still take.
    left: usize,
}

impl Trial<'_> {
    /// Plays the random match, comparing the engines on every contested query in each state.
    fn run(&mut self) -> Result<(), super::Exceeded> {
        let game = self.interpreter;
        game.play_seeded(TRIAL_SEED, TRIAL_STATES, |query, state, moves| self.compare(query, state, moves))?;
        Ok(())
    }

    /// Answers `query` with both engines when it is contested, adding what each spent; `None`
    /// when neither answered within the trial's limits.
    fn compare(
        &mut self,
        query: Query,
        state: &State,
        moves: &[Option<&Move>],
    ) -> Result<Option<Answer>, super::Exceeded> {
        let q = query as usize;
        let engines: Vec<usize> = if self.contested.contains(&query) {
            // The engine that was cheaper so far goes first.
            let first = usize::from(self.spent[q][1] < self.spent[q][0]);
            vec![first, 1 - first]
        } else {
            vec![self.interpreter.chosen[q]]
        };
        // Both engines race with a doubling cap until one answers; the other then gets a few
        // times what that one spent.
        let mut cap = FIRST_CAP;
        let mut stopped_at = [0usize; 2];
        let mut answer: Option<(Answer, usize, usize)> = None;
        while answer.is_none() && cap <= TRIAL_STEPS && self.left > 0 {
            for &engine in &engines {
                match self.attempt(engine, query, state, moves, cap)? {
                    Outcome::Done(value, steps) => {
                        answer = Some((value, engine, steps));
                        break;
                    }
                    Outcome::Stopped(steps) => stopped_at[engine] = stopped_at[engine].max(steps),
                }
            }
            cap = cap.saturating_mul(2);
        }
        let Some((value, winner, steps)) = answer else {
            for &engine in &engines {
                self.spent[q][engine] += stopped_at[engine];
            }
            return Ok(None);
        };
        self.spent[q][winner] += steps;
        if let Some(&rival) = engines.iter().find(|&&e| e != winner) {
            let cap = steps.saturating_mul(RIVAL_FACTOR).saturating_add(FIRST_CAP).min(TRIAL_STEPS);
            let spent = match self.attempt(rival, query, state, moves, cap)? {
                Outcome::Done(_, steps) | Outcome::Stopped(steps) => steps,
            };
            self.spent[q][rival] += spent.max(stopped_at[rival]);
        }
        Ok(Some(value))
    }

    /// Evaluates `query` through `engine` with at most `cap` steps.
    fn attempt(
        &mut self,
        engine: usize,
        query: Query,
        state: &State,
        moves: &[Option<&Move>],
        cap: usize,
    ) -> Result<Outcome, super::Exceeded> {
        let budget = Spending::new(self.limits).capped(usize::MAX, cap.min(self.left));
        let eval = self.interpreter.evaluate_on(engine, query, state, moves, budget);
        let steps = eval.budget.steps();
        self.left = self.left.saturating_sub(steps);
        match eval.exceeded {
            None => Ok(Outcome::Done(self.interpreter.match_answer_of(query, &eval), steps)),
            Some(rel) if eval.budget.tripped() == Trip::Deadline => {
                Err(eval.budget.exceeded(&self.interpreter.user_relation(rel)))
            }
            Some(_) => Ok(Outcome::Stopped(steps)),
        }
    }
}
