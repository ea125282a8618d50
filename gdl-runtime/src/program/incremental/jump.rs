//! Jumps of the incremental evaluation: a playout starts from a state far from the one the
//! evaluation was last brought to (the end of the previous playout), and changing it fact by
//! fact undoes the whole previous playout. The evaluation of the last jump's state is kept, and
//! a jump near it copies it back and changes only the facts where the two differ, when that
//! costs less than the changes would, as measured on the earlier jumps. The measures choose
//! only how the evaluation gets there, never what it finds.

use super::Live;
use crate::program::net::{Net, NONE};
use crate::program::{Program, Values};
use std::time::Instant;

/// The fewest base facts that a jump changes.
const JUMP_FACTS: usize = 16;

/// How many times an ordinary step's facts a jump changes at least: a game whose every step
/// changes many facts (a long snake's body) makes no jumps.
const JUMP_RATIO: usize = 4;

/// What the evaluation's jumps have cost.
#[derive(Clone, Debug, Default)]
pub(crate) struct Jumps {
    /// Whether every change of state is a jump that copies back the snapshot of the first: for
    /// the tests that compare jumps with full passes.
    always: bool,
    /// Sixteen times the running mean of the facts that a change of state changes.
    mean_facts_x16: usize,
    /// The nanoseconds that changing one fact cost in the jumps made fact by fact, a running
    /// mean; 0 before the first.
    fact_ns: u64,
    /// The nanoseconds that the last copy of the evaluation took.
    copy_ns: u64,
}

impl Jumps {
    /// Whether a change of state of `facts` base facts is a jump, counting it in the mean.
    pub(super) fn is_jump(&mut self, facts: usize) -> bool {
        let jump = self.always || facts >= JUMP_FACTS && 16 * facts >= JUMP_RATIO * self.mean_facts_x16;
        self.mean_facts_x16 = self.mean_facts_x16 - self.mean_facts_x16 / 16 + facts;
        jump
    }

    /// Whether copying the snapshot back then changing the `apart` facts in which its state
    /// differs from the jump's costs less than changing the jump's `facts`.
    fn worth_restoring(&self, facts: usize, apart: usize) -> bool {
        let saved = facts.saturating_sub(apart) as u64 * self.fact_ns;
        self.always || saved > self.copy_ns
    }

    /// Counts a copy of the snapshot back that took `ns` nanoseconds.
    fn copied(&mut self, ns: u64) {
        self.copy_ns = (3 * self.copy_ns + ns) / 4;
    }

    /// Counts a jump of `facts` facts made fact by fact in `ns` nanoseconds.
    fn made_by_facts(&mut self, facts: usize, ns: u64) {
        let fact_ns = ns / facts.max(1) as u64;
        self.fact_ns = if self.fact_ns == 0 { fact_ns } else { (3 * self.fact_ns + fact_ns) / 4 };
    }
}

impl Live {
    /// Makes every change of state a jump (see [`Jumps::always`]).
    #[cfg(test)]
    pub(crate) fn always_jump(&mut self) {
        self.jumps.always = true;
    }

    /// Whether this evaluation and `other`, brought to the same state and joint move, agree on
    /// everything those decide: the propositions, supports and counts, which watched rules
    /// hold, and the outputs.
    #[cfg(test)]
    pub(crate) fn agrees_with(&self, other: &Live) -> bool {
        self.values.nodes == other.values.nodes
            && self.support == other.support
            && self.unsat == other.unsat
            && self.holds == other.holds
            && (self.raw == other.raw && self.enabled == other.enabled && self.outputs == other.outputs)
    }

    /// Brings the evaluation to `state`, a jump whose changed facts are in [`Live::changed`]
    /// (the evaluation's state already `state`, the changes not yet passed on).
    pub(super) fn jump(&mut self, program: &Program, net: &Net, state: &[u64]) {
        let start = Instant::now();
        let facts = self.changed.len();
        let apart = self.snapshot.as_ref().map(|snapshot| facts_apart(&snapshot.state, state));
        if apart.is_some_and(|apart| self.jumps.worth_restoring(facts, apart)) {
            self.restore(net);
            self.jumps.copied(start.elapsed().as_nanos() as u64);
            self.diff_state(net, state);
            self.pass_on_state(program, net);
            return;
        }
        self.pass_on_state(program, net);
        let ns = start.elapsed().as_nanos() as u64;
        self.jumps.made_by_facts(facts, ns);
        // A new snapshot pays for itself when a jump made fact by fact costs more than two copies.
        if self.snapshot.is_none() || (ns > 2 * self.jumps.copy_ns && !self.jumps.always) {
            self.save(net);
        }
    }

    /// Copies the snapshot back into the evaluation. The propositions asked for in the state
    /// it left are forgotten (see [`crate::program::lazy`]).
    fn restore(&mut self, net: &Net) {
        if let Some(snapshot) = self.snapshot.take() {
            self.copy_from(&snapshot, net);
            self.snapshot = Some(snapshot);
            self.values.forget_state();
        }
    }

    /// Copies the evaluation into the snapshot, and times the copy.
    fn save(&mut self, net: &Net) {
        let fresh = self.snapshot.is_none();
        let mut snapshot = self.snapshot.take().unwrap_or_else(|| Box::new(Live::empty()));
        // The first copy into a new snapshot allocates its lists: the second is timed.
        if fresh {
            snapshot.copy_from(self, net);
        }
        let start = Instant::now();
        snapshot.copy_from(self, net);
        self.jumps.copy_ns = start.elapsed().as_nanos() as u64;
        self.snapshot = Some(snapshot);
    }

    /// Makes this evaluation that of `other`, at rest (nothing queued), in the network `net`.
    /// Only a program without atoms proved at run time jumps; rules that read propositions
    /// asked for may be armed.
    fn copy_from(&mut self, other: &Live, net: &Net) {
        self.state.clone_from(&other.state);
        self.joint.clone_from(&other.joint);
        self.values.nodes.clone_from(&other.values.nodes);
        self.outputs.clone_from(&other.outputs);
        self.raw.clone_from(&other.raw);
        self.enabled.clone_from(&other.enabled);
        self.unsat.clone_from(&other.unsat);
        self.support.clone_from(&other.support);
        // What only watched rules and rules that ask for propositions use.
        if !net.watch_literals.is_empty() || net.any_volatile {
            self.holds.clone_from(&other.holds);
            self.armed.clone_from(&other.armed);
            self.armed_at.clone_from(&other.armed_at);
        }
        if !net.watch_literals.is_empty() {
            self.epoch.clone_from(&other.epoch);
            self.watch.clone_from(&other.watch);
            self.waiting.clone_from(&other.waiting);
            self.holding.clone_from(&other.holding);
        }
    }

    /// An evaluation with nothing in it: the start of [`Live::new`], and a snapshot to copy an
    /// evaluation into ([`Live::copy_from`] fills what it reads).
    pub(super) fn empty() -> Live {
        Live {
            state: Vec::new(),
            joint: Vec::new(),
            values: Values::default(),
            outputs: Vec::new(),
            raw: Vec::new(),
            enabled: Vec::new(),
            unsat: Vec::new(),
            waiting: Vec::new(),
            holding: Vec::new(),
            holds: Vec::new(),
            armed: Vec::new(),
            armed_at: Vec::new(),
            epoch: Vec::new(),
            watch: Vec::new(),
            support: Vec::new(),
            dirty: Vec::new(),
            dirty_words: Vec::new(),
            dirty_low: usize::MAX,
            dirty_high: 0,
            settling: NONE,
            scratch: Vec::new(),
            changed: Vec::new(),
            crossed: Vec::new(),
            tally: None,
            snapshot: None,
            jumps: Jumps::default(),
        }
    }
}

/// The number of base facts in which states `a` and `b` differ.
fn facts_apart(a: &[u64], b: &[u64]) -> usize {
    let common: usize = a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones() as usize).sum();
    let past = |longer: &[u64], shorter: &[u64]| -> usize {
        longer.iter().skip(shorter.len()).map(|x| x.count_ones() as usize).sum()
    };
    common + past(a, b) + past(b, a)
}
