//! The interpreter within limits behind the runtime's [`Game`] interface, for a player that
//! plays games it has never seen: every query runs through the `try_` methods with a deadline
//! and a cap on facts, so that a game whose rules explode in some state (a relation of
//! billions of facts) costs a bounded time and memory per query instead of the process.
//!
//! A [`Game`] query cannot fail, so one that goes past its limits answers as if it knew
//! nothing: no legal move, not terminal, no goal, the state unchanged. A search over it sees
//! such a state as the end of its line with no goal for anyone. The limit is kept
//! ([`Bounded::take_exceeded`]) for a caller that must tell knowing from not knowing; a session
//! that follows a match asks the `try_` methods of [`Bounded::interpreter`] itself.

use super::{Exceeded, Interpreter, Limits, Move, State};
use gdl_runtime::Game;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// An [`Interpreter`] whose every query through [`Game`] runs within limits.
pub struct Bounded {
    interpreter: Interpreter,
    /// How long one query may take.
    per_query: Duration,
    /// The most facts one query may derive.
    max_facts: usize,
    /// No query runs past this instant (the end of the current search), when set.
    until: Mutex<Option<Instant>>,
    /// When set, every query stops at once (the match was stopped or superseded).
    cancel: Mutex<Option<Arc<AtomicBool>>>,
    /// The first limit a query went past since it was last taken.
    exceeded: Mutex<Option<Exceeded>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Bounded {
    /// `interpreter`, whose queries each take at most `per_query` and derive at most
    /// `max_facts` facts.
    pub fn new(interpreter: Interpreter, per_query: Duration, max_facts: usize) -> Bounded {
        Bounded {
            interpreter,
            per_query,
            max_facts,
            until: Mutex::new(None),
            cancel: Mutex::new(None),
            exceeded: Mutex::new(None),
        }
    }

    /// The interpreter, for queries whose caller handles [`Exceeded`] itself.
    pub fn interpreter(&self) -> &Interpreter {
        &self.interpreter
    }

    /// The most facts one query may derive.
    pub fn max_facts(&self) -> usize {
        self.max_facts
    }

    /// Makes every later query stop by `until` (the end of a search), or lifts that bound.
    pub fn set_until(&self, until: Option<Instant>) {
        *lock(&self.until) = until;
    }

    /// Makes every later query stop at once when `flag` is set.
    pub fn set_cancel(&self, flag: Option<Arc<AtomicBool>>) {
        *lock(&self.cancel) = flag;
    }

    /// The first limit a query went past since the last call, if any.
    pub fn take_exceeded(&self) -> Option<Exceeded> {
        lock(&self.exceeded).take()
    }

    /// The limits of a query that starts now.
    pub fn limits(&self) -> Limits {
        let now = Instant::now();
        let cancelled = lock(&self.cancel).as_ref().is_some_and(|flag| flag.load(Ordering::Relaxed));
        let mut deadline = now.checked_add(self.per_query);
        if let Some(until) = *lock(&self.until) {
            deadline = Some(deadline.map_or(until, |d| d.min(until)));
        }
        if cancelled {
            deadline = Some(now);
        }
        Limits { deadline, max_facts: Some(self.max_facts) }
    }

    /// The value of a query, or `otherwise` after noting the limit it went past.
    fn or_note<T>(&self, result: Result<T, Exceeded>, otherwise: impl FnOnce() -> T) -> T {
        result.unwrap_or_else(|e| {
            lock(&self.exceeded).get_or_insert(e);
            otherwise()
        })
    }
}

impl Game for Bounded {
    type State = State;
    type Move = Move;

    fn num_roles(&self) -> usize {
        self.interpreter.num_roles()
    }

    fn role_name(&self, role: usize) -> &str {
        self.interpreter.role_name(role)
    }

    fn initial_state(&self) -> State {
        self.interpreter.initial_state()
    }

    fn legal_moves(&self, state: &State, role: usize, out: &mut Vec<Move>) {
        let mut all = Vec::new();
        self.all_legal_moves(state, &mut all);
        *out = all.get_mut(role).map(std::mem::take).unwrap_or_default();
    }

    fn all_legal_moves(&self, state: &State, out: &mut Vec<Vec<Move>>) {
        let roles = self.num_roles();
        *out = self.or_note(self.interpreter.try_legal_moves(state, &self.limits()), || vec![Vec::new(); roles]);
    }

    fn next_state(&self, state: &State, joint: &[Move]) -> State {
        self.or_note(self.interpreter.try_next_state(state, joint, &self.limits()), || state.clone())
    }

    fn is_terminal(&self, state: &State) -> bool {
        self.or_note(self.interpreter.try_is_terminal(state, &self.limits()), || false)
    }

    fn goal(&self, state: &State, role: usize) -> Option<u32> {
        self.goals(state).get(role).copied().flatten()
    }

    fn goals_into(&self, state: &State, out: &mut [Option<u32>]) {
        let values = self.or_note(self.interpreter.try_goal_values(state, &self.limits()), Vec::new);
        for (role, goal) in out.iter_mut().enumerate() {
            *goal = values.get(role).and_then(|v| v.last().copied());
        }
    }

    fn state_facts(&self, state: &State) -> Vec<String> {
        self.interpreter.state_facts(state)
    }

    fn move_string(&self, mv: &Move) -> String {
        self.interpreter.move_string(mv)
    }

    fn is_gdl_ii(&self) -> bool {
        self.interpreter.is_gdl_ii()
    }

    fn random_role(&self) -> Option<usize> {
        self.interpreter.random_role()
    }

    fn percepts(&self, state: &State, joint: &[Move], role: usize, out: &mut Vec<String>) {
        let mut all = Vec::new();
        self.all_percepts(state, joint, &mut all);
        *out = all.get_mut(role).map(std::mem::take).unwrap_or_default();
    }

    fn all_percepts(&self, state: &State, joint: &[Move], out: &mut Vec<Vec<String>>) {
        let roles = self.num_roles();
        *out = self.or_note(self.interpreter.try_percepts(state, joint, &self.limits()), || vec![Vec::new(); roles]);
    }

    fn parse_move(&self, role: usize, text: &str) -> Option<Move> {
        self.interpreter.parse_move(role, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_auto;

    /// A game whose `terminal` derives 40^4 facts once `(on)` holds.
    const EXPLODING: &str = "(role p) (init (off)) (<= (legal p flip) (true (off))) (<= (legal p wait) (true (on))) \
        (<= (next (on)) (does p flip)) (<= (next (on)) (true (on))) \
        (<= (big ?a ?b ?c ?d) (true (on)) (v ?a) (v ?b) (v ?c) (v ?d)) (<= terminal (big ?a ?b ?c ?d)) \
        (goal p 50)";

    fn exploding() -> Bounded {
        let values: String = (1..=40).map(|n| format!("(v {n}) ")).collect();
        let parsed = parse_auto(&format!("{EXPLODING} {values}"));
        assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
        let interpreter = Interpreter::new(&parsed.description).unwrap_or_else(|e| panic!("{e}"));
        Bounded::new(interpreter, Duration::from_secs(30), 10_000)
    }

    #[test]
    fn a_query_past_its_fact_cap_answers_nothing_and_names_the_relation() {
        let game = exploding();
        let initial = game.initial_state();
        assert!(!game.is_terminal(&initial));
        assert_eq!(game.take_exceeded(), None);
        let mut moves = Vec::new();
        game.legal_moves(&initial, 0, &mut moves);
        let on = game.next_state(&initial, &moves);
        assert!(!game.is_terminal(&on));
        match game.take_exceeded() {
            Some(Exceeded::Facts { relation, limit }) => assert_eq!((relation.as_str(), limit), ("big", 10_000)),
            other => panic!("expected the fact cap on `big`, got {other:?}"),
        }
        assert_eq!(game.take_exceeded(), None);
    }

    #[test]
    fn a_cancelled_or_finished_search_stops_its_queries_at_once() {
        let game = exploding();
        let initial = game.initial_state();
        let mut moves = Vec::new();
        game.legal_moves(&initial, 0, &mut moves);
        let on = game.next_state(&initial, &moves);
        let flag = Arc::new(AtomicBool::new(true));
        game.set_cancel(Some(Arc::clone(&flag)));
        assert_eq!(game.limits().deadline.map(|d| d <= Instant::now()), Some(true));
        let mut legal = Vec::new();
        game.legal_moves(&on, 0, &mut legal);
        assert!(legal.is_empty());
        assert!(matches!(game.take_exceeded(), Some(Exceeded::Deadline { .. })));
        flag.store(false, Ordering::Relaxed);
        game.set_until(Some(Instant::now() + Duration::from_secs(60)));
        game.legal_moves(&on, 0, &mut legal);
        assert_eq!(legal.len(), 1);
        assert_eq!(game.take_exceeded(), None);
    }
}
