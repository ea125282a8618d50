//! The interpreter behind the runtime's [`Game`] interface: every query without limit.

use super::{Interpreter, Move, Query, State};
use crate::datalog::eval::Unlimited;
use gdl_runtime::{Game, Playout};

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
        *out = self.legal_of(&self.evaluate(Query::Legal, state, &[], Unlimited));
    }

    fn next_state(&self, state: &State, joint: &[Move]) -> State {
        let moves: Vec<Option<&Move>> = joint.iter().map(Some).collect();
        State(self.next_of(&self.evaluate(Query::Next, state, &moves, Unlimited)).into())
    }

    fn random_step(
        &self,
        state: &State,
        rng: &mut gdl_runtime::rng::Rng,
        scratch: &mut Playout<Self>,
    ) -> Option<State> {
        let (legal, joint) = scratch.move_buffers();
        self.fused_step(state, rng, legal, joint)
    }

    fn is_terminal(&self, state: &State) -> bool {
        self.terminal_of(&self.evaluate(Query::Terminal, state, &[], Unlimited))
    }

    fn goal(&self, state: &State, role: usize) -> Option<u32> {
        self.goals(state)[role]
    }

    fn goals_into(&self, state: &State, out: &mut [Option<u32>]) {
        for (goal, values) in out.iter_mut().zip(self.goal_values(state)) {
            *goal = values.last().copied();
        }
    }

    fn goal_values(&self, state: &State, role: usize, out: &mut Vec<u32>) -> bool {
        *out = std::mem::take(&mut Interpreter::goal_values(self, state)[role]);
        true
    }

    fn state_facts(&self, state: &State) -> Vec<String> {
        let mut facts: Vec<String> = state.0.iter().map(|f| self.symbols.kif(f)).collect();
        facts.sort();
        facts
    }

    fn move_string(&self, mv: &Move) -> String {
        self.symbols.kif(&mv.0)
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
        if !self.gdl_ii {
            out.resize_with(self.roles.len(), Vec::new);
            out.iter_mut().for_each(Vec::clear);
            return;
        }
        let moves: Vec<Option<&Move>> = joint.iter().map(Some).collect();
        *out = self.percepts_of(&self.evaluate(Query::Sees, state, &moves, Unlimited));
    }

    /// The move `text` spells, each symbol found by its spelling or else in any letter case
    /// when only one matches: a game whose names were kept apart by case finds its own
    /// spellings and the lower-case ones of a trace, and one read in any case (every name in
    /// lower case) finds the moves of a manager that upper-cases its messages.
    fn parse_move(&self, _role: usize, text: &str) -> Option<Move> {
        Some(Move(self.symbols.encode_kif(text)?.into_boxed_slice()))
    }
}
