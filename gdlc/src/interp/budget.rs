//! What an evaluation of the interpreter may spend: a deadline and a cap on the facts it
//! derives, given by the caller ([`Limits`]), and the typed error an evaluation returns when it
//! goes past them ([`Exceeded`]) instead of running away.

use crate::datalog::compile::RelId;
use crate::datalog::eval::Budget;
use std::fmt;
use std::time::{Duration, Instant};

/// How many steps of joins go by between two readings of the clock.
const CLOCK_EVERY: usize = 1 << 12;

/// What one evaluation (loading a game, or one query in a state) may spend. The default is no
/// limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// When the evaluation must stop.
    pub deadline: Option<Instant>,
    /// The most facts the evaluation may derive.
    pub max_facts: Option<usize>,
}

impl Limits {
    /// No limit.
    pub const NONE: Limits = Limits { deadline: None, max_facts: None };

    /// A deadline `duration` from now, and no cap on facts.
    pub fn within(duration: Duration) -> Limits {
        Limits { deadline: Instant::now().checked_add(duration), max_facts: None }
    }

    /// The same limits with at most `max_facts` facts.
    pub fn with_max_facts(self, max_facts: usize) -> Limits {
        Limits { max_facts: Some(max_facts), ..self }
    }
}

/// Which limit an evaluation went past, and the relation it was deriving then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exceeded {
    /// The deadline passed.
    Deadline { relation: String },
    /// The evaluation would have derived more than `limit` facts.
    Facts { relation: String, limit: usize },
}

impl Exceeded {
    /// The relation that was being derived when the evaluation stopped.
    pub fn relation(&self) -> &str {
        match self {
            Exceeded::Deadline { relation } | Exceeded::Facts { relation, .. } => relation,
        }
    }
}

impl fmt::Display for Exceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exceeded::Deadline { relation } => {
                write!(f, "the evaluation ran out of time while deriving `{relation}`")
            }
            Exceeded::Facts { relation, limit } => {
                write!(f, "the evaluation would derive more than {limit} facts (it was deriving `{relation}`)")
            }
        }
    }
}

impl std::error::Error for Exceeded {}

/// Which limit of a [`Spending`] was reached first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Trip {
    Deadline,
    Facts(usize),
    Steps(usize),
}

/// A [`Budget`] that keeps [`Limits`], with a cap on steps of work for the interpreter's own
/// use (telling a relation that explodes from one that is merely large).
#[derive(Clone, Debug)]
pub(crate) struct Spending {
    deadline: Option<Instant>,
    max_facts: Option<usize>,
    max_steps: Option<usize>,
    facts: usize,
    steps: usize,
    /// Steps charged since the clock was last read.
    unclocked: usize,
    tripped: Option<Trip>,
}

impl Spending {
    pub(crate) fn new(limits: &Limits) -> Spending {
        Spending {
            deadline: limits.deadline,
            max_facts: limits.max_facts,
            max_steps: None,
            facts: 0,
            steps: 0,
            // The first step reads the clock: an evaluation begun past its deadline stops at once.
            unclocked: CLOCK_EVERY,
            tripped: None,
        }
    }

    /// The same budget with at most `steps` steps of joins, and at most `facts` facts whatever
    /// the limits allow.
    pub(crate) fn capped(mut self, facts: usize, steps: usize) -> Spending {
        self.max_facts = Some(self.max_facts.map_or(facts, |m| m.min(facts)));
        self.max_steps = Some(steps);
        self
    }

    /// The limit an evaluation that stopped early reached: the fact cap, unless the clock or
    /// the steps stopped it (the evaluation asks [`Budget::allows`] before a fact, and stops
    /// only on its answer).
    pub(crate) fn tripped(&self) -> Trip {
        self.tripped.unwrap_or(Trip::Facts(self.max_facts.unwrap_or(usize::MAX)))
    }

    /// The facts derived so far.
    pub(crate) fn facts(&self) -> usize {
        self.facts
    }

    /// The steps of joins charged so far.
    pub(crate) fn steps(&self) -> usize {
        self.steps
    }

    /// The error to return for a limit reached while deriving `relation`.
    pub(crate) fn exceeded(&self, relation: &str) -> Exceeded {
        let relation = relation.to_string();
        match self.tripped() {
            Trip::Facts(limit) => Exceeded::Facts { relation, limit },
            Trip::Deadline | Trip::Steps(_) => Exceeded::Deadline { relation },
        }
    }

    fn trip(&mut self, trip: Trip) {
        self.tripped.get_or_insert(trip);
    }
}

impl Budget for Spending {
    #[inline]
    fn charge(&mut self, steps: usize) {
        self.steps = self.steps.saturating_add(steps);
        self.unclocked += steps;
        if self.unclocked >= CLOCK_EVERY {
            self.unclocked = 0;
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                self.trip(Trip::Deadline);
            }
        }
        if let Some(limit) = self.max_steps.filter(|&m| self.steps > m) {
            self.trip(Trip::Steps(limit));
        }
    }

    #[inline]
    fn overspent(&self) -> bool {
        self.tripped.is_some()
    }

    #[inline]
    fn allows(&self, _rel: RelId, pending: usize) -> bool {
        self.max_facts.is_none_or(|limit| self.facts.saturating_add(pending) < limit)
    }

    #[inline]
    fn count(&mut self, _rel: RelId) {
        self.facts += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passed_deadline_is_noticed_at_the_first_step_and_every_few_thousand_after() {
        let mut spending = Spending::new(&Limits { deadline: Some(Instant::now()), max_facts: None });
        spending.charge(1);
        assert!(spending.overspent());
        let mut later = Spending::new(&Limits::within(Duration::from_millis(20)));
        later.charge(1);
        assert!(!later.overspent());
        std::thread::sleep(Duration::from_millis(30));
        for _ in 0..CLOCK_EVERY {
            later.charge(1);
        }
        assert!(later.overspent());
        assert_eq!(spending.exceeded("p"), Exceeded::Deadline { relation: "p".into() });
    }

    #[test]
    fn the_fact_cap_is_the_smaller_of_the_limit_and_the_interpreters_own() {
        let mut spending = Spending::new(&Limits::NONE.with_max_facts(10)).capped(100, 1000);
        assert!(spending.allows(0, 9));
        assert!(!spending.allows(0, 10));
        assert_eq!(spending.tripped(), Trip::Facts(10));
        spending.charge(1);
        assert!(!spending.overspent());
        let mut steps = Spending::new(&Limits::NONE).capped(100, 1000);
        steps.charge(1001);
        assert!(steps.overspent());
        assert_eq!(steps.tripped(), Trip::Steps(1000));
    }
}
