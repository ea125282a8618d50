//! Which rules of a [`Net`] are watched rather than counted: the rules of crowded atoms where a
//! sample of playouts finds watching cheaper, and the rules too long to count.

use super::{is_deferred, Net, NONE};
use crate::program::sample::Tally;
use crate::program::Program;

/// A rule may be watched rather than counted when it reads an atom that more rules than this
/// read: a crowded atom.
pub(in crate::program) const CROWDED_READERS: u32 = 1024;

/// The fewer readers that make an atom crowded in the network that races the one of
/// [`CROWDED_READERS`] (see [`Net::new`]): for some games watching the rules of an atom that
/// tens of rules read is faster (urmAdd, racer, crossers3, kalaha_2009), for others much slower
/// (gt_two_thirds_6p).
pub(in crate::program) const WIDE_READERS: u32 = 16;

/// A counted rule's count of its literals that do not hold: a byte, so that the counts of a
/// large program stay in the cache. A rule with more literals than a byte counts is always
/// watched (see [`Net::watch_crowded`]).
pub(in crate::program) type Unsat = u8;

/// The touches of a counted rule that one wake-up of a watched rule costs: measured on racer4,
/// kalaha_2009 and alexChess (see docs/performance.md).
const WAKE_TOUCHES: u64 = 16;

impl Net {
    /// Watches every rule that reads a crowded atom (one that more than `crowded` rules read)
    /// and every rule too long for its count to fit an [`Unsat`], counts the others, and lays
    /// out the atoms' lists of counted rules; gives, for every rule watched, the atom it reads
    /// that the most rules read, or [`NONE`]: the rules of one such atom are counted or watched
    /// together (see [`Net::shape`]).
    pub(super) fn watch_crowded(&mut self, program: &Program, crowded: u32) -> Vec<u32> {
        let atoms = self.atoms();
        let mut readers = vec![0u32; atoms + 1];
        for (_, _, watch) in self.member_literals(program) {
            readers[watch as usize >> 1] += 1;
        }
        let mut crowd = vec![NONE; self.rule_node.len()];
        for (rule, _, watch) in self.member_literals(program) {
            let (atom, current) = (watch >> 1, crowd[rule]);
            let more = current == NONE || readers[atom as usize] > readers[current as usize];
            if (readers[atom as usize] > crowded || too_long_to_count(program, rule)) && more {
                crowd[rule] = atom;
            }
        }
        // A rule that reads run-time atoms is watched on its other literals (a watch cannot
        // wait on a run-time atom), and armed while they all hold.
        self.volatile = (0..self.rule_node.len())
            .map(|rule| self.rule_node[rule] != NONE && program.body(rule).iter().any(|&code| is_deferred(code)))
            .collect();
        self.any_volatile = self.volatile.contains(&true);
        let watched: Vec<bool> = crowd.iter().map(|&atom| atom != NONE).collect();
        self.lay_out(program, watched);
        if self.watched.contains(&true) {
            self.watch_literals.clone_from(&program.literals);
            // A watch does not wait on the literal a count leaves out: it reads true.
            for (rule, &skip) in self.rule_skip.iter().enumerate().filter(|&(_, &skip)| skip != NONE) {
                let range = program.rule_literals[rule] as usize..program.rule_literals[rule + 1] as usize;
                for code in self.watch_literals[range].iter_mut().filter(|code| **code == skip) {
                    *code = crate::program::gates::ALWAYS;
                }
            }
        }
        crowd
    }

    /// Decides which of the rules of `crowd` (see [`Net::watch_crowded`]) stay watched: those
    /// of the crowded atoms for which a sample of playouts finds watching cheaper than counting
    /// (see [`super::sample`]). `first` is a sample already taken on this network, if any.
    pub(super) fn shape(&mut self, program: &Program, crowd: &[u32], first: Option<Tally>) {
        if !self.watched.contains(&true) {
            return;
        }
        // A first sample tells which atoms change often; watched rules then wait on the others,
        // and a second sample measures what watching them so costs.
        let Some(first) = first.or_else(|| crate::program::sample::tally(program, self)) else { return };
        self.order_watches(program, &first);
        let tally = crate::program::sample::tally(program, self).unwrap_or(first);
        let watched = self.cheaper_watched(program, crowd, &tally);
        if watched != self.watched {
            self.lay_out(program, watched);
        }
        if !self.watched.contains(&true) {
            self.watch_literals = Vec::new();
        }
    }

    /// Sorts the literals of every watched rule in [`Net::watch_literals`] by how often
    /// `tally` saw their atoms change, least first (literals of constants and run-time atoms,
    /// which no watch waits on, keep their places among them as if they never changed).
    fn order_watches(&mut self, program: &Program, tally: &Tally) {
        let mut literals = std::mem::take(&mut self.watch_literals);
        let changes = |code: &u32| self.watch_of(*code).map_or(0, |watch| tally.changes[watch as usize >> 1]);
        for rule in (0..self.watched.len()).filter(|&rule| self.watched[rule]) {
            let range = program.rule_literals[rule] as usize..program.rule_literals[rule + 1] as usize;
            literals[range].sort_by_key(changes);
        }
        self.watch_literals = literals;
    }

    /// Which rules to watch after a sample's `tally`: the rules of every crowded atom (see
    /// [`Net::watch_crowded`]) whose wake-ups, at [`WAKE_TOUCHES`] touches each,
    /// cost no more than the touches counting them would have cost, and the rules too long to
    /// count.
    fn cheaper_watched(&self, program: &Program, crowd: &[u32], tally: &Tally) -> Vec<bool> {
        let mut touches = vec![0u64; self.atoms()];
        let mut wakes = vec![0u64; self.atoms()];
        for (rule, &atom) in crowd.iter().enumerate().filter(|&(_, &atom)| atom != NONE) {
            let changes = program.body(rule).iter().filter_map(|&code| self.watch_of(code));
            touches[atom as usize] += changes.map(|watch| u64::from(tally.changes[watch as usize >> 1])).sum::<u64>();
            wakes[atom as usize] += u64::from(tally.wakes[rule]);
        }
        let cheaper = |atom: u32| wakes[atom as usize] * WAKE_TOUCHES <= touches[atom as usize];
        let watched =
            |(rule, &atom): (usize, &u32)| atom != NONE && (too_long_to_count(program, rule) || cheaper(atom));
        crowd.iter().enumerate().map(watched).collect()
    }
}

/// Whether `rule` has more literals than an [`Unsat`] counts: it is watched whenever one of
/// them can change (a rule none of whose literals changes keeps its first count, at most
/// [`Unsat::MAX`]).
fn too_long_to_count(program: &Program, rule: usize) -> bool {
    program.body(rule).len() > usize::from(Unsat::MAX)
}
