//! The values of one state that an evaluation of a [`Program`] reads: its propositions, the
//! atoms proved at run time and the propositions asked for (see [`super::lazy`]) found so far.

use super::Program;
use crate::prover::{Deferred, StateRows};
use std::cell::{Cell, OnceCell};

/// The values of one state: its nodes, the check atoms read so far (0 when not yet read, else
/// 1 + the value) and the propositions asked for so far, which depend on the state alone.
#[derive(Default)]
pub(super) struct Values {
    pub(super) nodes: Vec<bool>,
    pub(super) checks: Vec<Cell<u8>>,
    /// The state's rows that the searches for check atoms read, once the first is asked for.
    pub(super) state_rows: OnceCell<StateRows>,
    /// For every proposition asked for (see [`super::lazy`]), `stamp << 1 | value` when it was
    /// found in the current state, an older stamp (or 0) when not.
    pub(super) asked: Vec<Cell<u32>>,
    /// The number of the current state among those this evaluation was brought to, from 1.
    pub(super) stamp: u32,
}

impl Values {
    pub(super) fn reset(&mut self, program: &Program) {
        self.nodes.clear();
        self.nodes.resize(program.node_rules.len() - 1, false);
        self.checks.resize(program.deferred.atoms.len(), Cell::new(0));
        self.asked.clear();
        if program.lazy {
            self.asked.resize(program.node_rules.len() - 1, Cell::new(0));
        }
        self.stamp = 0;
        self.forget_state();
    }

    /// Forgets the check atoms and the propositions asked for read so far, for a new state.
    pub(super) fn forget_state(&mut self) {
        self.checks.iter_mut().for_each(|c| *c.get_mut() = 0);
        self.state_rows = OnceCell::new();
        self.stamp += 1;
        if self.stamp > u32::MAX >> 1 {
            self.asked.iter_mut().for_each(|c| *c.get_mut() = 0);
            self.stamp = 1;
        }
    }

    /// The value of proposition `node`, asked for (see [`super::lazy`]): searched for through its
    /// rules the first time in a state.
    pub(super) fn ask(&self, program: &Program, node: usize, state: &[u64], joint: &[u32]) -> bool {
        let known = self.asked[node].get();
        if known >> 1 == self.stamp {
            return known & 1 != 0;
        }
        let value = program.node_holds(node as u32, state, joint, self);
        self.asked[node].set(self.stamp << 1 | u32::from(value));
        value
    }

    pub(super) fn check(&self, checks: &Deferred, state: &[u64], atom: usize) -> bool {
        match self.checks[atom].get() {
            0 => {
                let rows = self.state_rows.get_or_init(|| StateRows::new(checks, state));
                let value = checks.holds_with(state, rows, atom as u32);
                self.checks[atom].set(1 + u8::from(value));
                value
            }
            known => known == 2,
        }
    }
}
