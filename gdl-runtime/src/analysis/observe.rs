//! What one state shows by itself: a role without a legal move, goal values that are not
//! exactly one in `0..=100`, moves and facts outside the game's declarations, and the roles
//! that reach 100 in it. The walk and the playouts observe every state they meet through it.

use super::{Declared, Shows};
use crate::Game;
use std::collections::HashSet;

/// The checks of one thread, with the buffers and the moves it has already checked.
pub(crate) struct Observer<'a, G: Game> {
    game: &'a G,
    declared: &'a Declared,
    /// The legal moves of the last non-terminal state observed, per role.
    pub(crate) legal: Vec<Vec<G::Move>>,
    goals: Vec<u32>,
    /// The moves already checked against `input`, with their role.
    checked_moves: HashSet<(usize, G::Move)>,
    /// Whether a fact outside `base` was found: then no other state needs reading.
    base_refuted: bool,
}

/// What [`Observer::observe`] found in a state.
pub(crate) struct Observation {
    /// Whether the state is terminal.
    pub(crate) terminal: bool,
    /// What the state shows, in the order of [`Shows`].
    pub(crate) findings: Vec<Shows>,
}

impl<'a, G: Game> Observer<'a, G> {
    pub(crate) fn new(game: &'a G, declared: &'a Declared) -> Self {
        Observer {
            game,
            declared,
            legal: Vec::new(),
            goals: Vec::new(),
            checked_moves: HashSet::new(),
            base_refuted: false,
        }
    }

    /// Observes `state`; when it is not terminal, [`Observer::legal`] holds its legal moves.
    pub(crate) fn observe(&mut self, state: &G::State) -> Observation {
        let terminal = self.game.is_terminal(state);
        let mut findings = Vec::new();
        if terminal {
            self.legal.iter_mut().for_each(Vec::clear);
            self.goals_of(state, &mut findings);
        } else {
            self.game.all_legal_moves(state, &mut self.legal);
            for (role, moves) in self.legal.iter().enumerate() {
                if moves.is_empty() {
                    findings.push(Shows::NoLegalMove { role });
                }
            }
            self.input_of(&mut findings);
        }
        self.base_of(state, &mut findings);
        findings.sort();
        Observation { terminal, findings }
    }

    /// Every role's goal values in a terminal state.
    fn goals_of(&mut self, state: &G::State, findings: &mut Vec<Shows>) {
        for role in 0..self.game.num_roles() {
            let complete = self.game.goal_values(state, role, &mut self.goals);
            let count_wrong = self.goals.is_empty() || (complete && self.goals.len() > 1);
            if count_wrong || self.goals.iter().any(|&v| v > 100) {
                findings.push(Shows::GoalValues { role, values: self.goals.clone() });
            }
            if self.goals.contains(&100) {
                findings.push(Shows::Win { role });
            }
        }
    }

    /// The legal moves not yet checked against `input`.
    fn input_of(&mut self, findings: &mut Vec<Shows>) {
        let Some(input) = &self.declared.input else { return };
        for (role, moves) in self.legal.iter().enumerate() {
            for mv in moves {
                if self.checked_moves.contains(&(role, mv.clone())) {
                    continue;
                }
                self.checked_moves.insert((role, mv.clone()));
                let text = self.game.move_string(mv);
                if !input.get(role).is_some_and(|declared| declared.contains(&text)) {
                    findings.push(Shows::MoveNotInInput { role, mv: text });
                }
            }
        }
    }

    /// The first fact of the state outside `base`, until one is found.
    fn base_of(&mut self, state: &G::State, findings: &mut Vec<Shows>) {
        let Some(base) = &self.declared.base else { return };
        if self.base_refuted {
            return;
        }
        if let Some(fact) = self.game.state_facts(state).into_iter().find(|f| !base.contains(f)) {
            self.base_refuted = true;
            findings.push(Shows::FactNotInBase { fact });
        }
    }
}
