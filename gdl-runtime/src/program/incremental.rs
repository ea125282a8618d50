//! Incremental evaluation of a [`Program`]: a change of a few base facts (a playout's step) or
//! of the joint move costs the rules it can change, not a pass over the whole program.
//!
//! Most rules count their literals that do not hold, as a propositional network is evaluated
//! forward: a change of an atom updates the count of every rule that reads it. A rule that
//! reads an atom that very many rules read (whose turn it is, in a board game) may instead be
//! watched, when a sample of playouts finds that cheaper (see [`super::sample`]), as a SAT
//! solver watches clauses: when its body does not hold it waits on one false
//! literal, and is looked at again only when that literal becomes true (then it waits on
//! another false literal, or, when it has none, it holds); a rule that holds is watched on all
//! its literals, to learn when one becomes false. Every derived proposition counts its rules
//! that hold. The outputs (every role's legal moves and the next state) are kept as bit sets,
//! changed as the atoms they read change, so that reading them costs their words, not a test
//! of every move and fact; the outputs that read a proposition gated by whose turn it is
//! ([`super::gates`]) are masked by the turn's fact.
//!
//! The shape of the program ([`Net`]) is built once and shared by every thread; each thread
//! keeps the values and watches of the last state and joint move it was asked about
//! ([`Live`]), and a copy of them at the start of the last playout, to return to at the next
//! start rather than undo the playout fact by fact, where that is cheaper ([`jump`]). Changes
//! travel in the order of the propositions' indices, which the grounder numbers so that a rule
//! reads only propositions numbered before its own (or of its own recursive group). A recursive
//! group is evaluated again to its least fixpoint when one of its rules changes: counts cannot
//! tell a proposition that supports itself through a cycle.
//!
//! Atoms proved at run time (chess's threats, searched for top-down in the state, see
//! [`crate::prover`]) have no counts to keep: a rule that reads them counts or watches its other
//! literals (a watched one waits on one of those), and while those all hold it is armed, and
//! asks for its run-time atoms when it becomes armed and again in every new state. A playout's
//! state has few armed rules (chess's moves that would be legal if they left the king safe), so
//! the searches are those a full pass makes. Propositions asked for rather than kept (see
//! [`super::lazy`]) are read the same way, searched for through their rules and remembered
//! until the state changes.

mod count;
mod jump;
mod watch;

use super::net::{is_deferred, Net, Outputs, Unsat, NONE};
use super::sample::Tally;
use super::{Program, Values};
use crate::rng::Rng;
use count::count_run;

/// The words of a state that a change of state compares at once.
const DIFF_BLOCK: usize = 32;

/// One thread's evaluation: the state and joint move it was brought to, the propositions'
/// values, and the watches of the rules.
pub(crate) struct Live {
    pub(crate) state: Vec<u64>,
    /// The move of every role that the move literals read, [`NONE`] where no move is set.
    pub(crate) joint: Vec<u32>,
    pub(crate) values: Values,
    /// The value of every output slot (see [`Net::place_outputs`]): the value of the literal it
    /// reads (`raw`) where its gate holds (`enabled`, see [`super::gates`]).
    outputs: Vec<u64>,
    raw: Vec<u64>,
    /// Whether each output slot's gate holds (set for the slots without a gate).
    enabled: Vec<u64>,
    /// For every counted rule, the number of its literals that do not hold.
    unsat: Vec<Unsat>,
    /// For every watch (see [`Net::watch_of`]), the watched rules that do not hold and wait on
    /// it, false.
    waiting: Vec<Vec<u32>>,
    /// For every watch, the rules that held when they were added, with the count of times
    /// they had come to hold then: an entry whose count is old is stale, and dropped.
    holding: Vec<Vec<(u32, u32)>>,
    /// For every watched rule and every rule that reads run-time atoms, whether it holds.
    holds: Vec<bool>,
    /// The rules that read run-time atoms whose other literals all hold, and the place of each
    /// rule in that list ([`NONE`] when it is not there).
    armed: Vec<u32>,
    armed_at: Vec<u32>,
    /// For every rule, how many times it came to hold.
    epoch: Vec<u32>,
    /// For every rule that does not hold, the watch it waits on.
    watch: Vec<u32>,
    /// For every proposition outside recursive groups, its rules that hold.
    support: Vec<u32>,
    /// The propositions to look at again, as a bit set over their indices, looked at least
    /// index first; and the first and last words that may hold a bit.
    dirty: Vec<u64>,
    /// Which words of `dirty` may hold a bit, so that settling skips the empty ones at once.
    dirty_words: Vec<u64>,
    dirty_low: usize,
    dirty_high: usize,
    /// The recursive group being evaluated, whose own changes do not queue it again.
    settling: u32,
    /// The values of a recursive group before it is evaluated again.
    scratch: Vec<bool>,
    /// The base facts that changed in the last step.
    changed: Vec<u32>,
    /// The counts of a run of [`Live::atom_changed`] that crossed zero (see [`count_run`]).
    crossed: Vec<u32>,
    /// What the evaluation costs, counted while the network's shape is being chosen (see
    /// [`super::sample`]).
    pub(crate) tally: Option<Tally>,
    /// The evaluation of the state of the last jump, and what jumps cost (see [`jump`]).
    snapshot: Option<Box<Live>>,
    jumps: jump::Jumps,
}

impl Live {
    /// The evaluation of the empty state with no move set.
    pub(crate) fn new(program: &Program, net: &Net) -> Live {
        let mut values = Values::default();
        values.reset(program);
        let joint = vec![NONE; program.legal.len()];
        program.evaluate(&[], &joint, &net.members, &mut values);
        let rules = program.rule_literals.len() - 1;
        let watches = 2 * net.atoms();
        let mut live = Live {
            joint,
            values,
            outputs: vec![0; net.slots().div_ceil(64)],
            raw: vec![0; net.slots().div_ceil(64)],
            enabled: vec![!0; net.slots().div_ceil(64)],
            unsat: vec![0; rules],
            waiting: vec![Vec::new(); watches],
            holding: vec![Vec::new(); watches],
            holds: vec![false; rules],
            armed_at: vec![NONE; rules],
            epoch: vec![0; rules],
            watch: vec![NONE; rules],
            support: vec![0; net.supports()],
            dirty: vec![0; (program.node_rules.len() - 1).div_ceil(64)],
            dirty_words: vec![0; (program.node_rules.len() - 1).div_ceil(64 * 64)],
            ..Live::empty()
        };
        for &n in &net.members {
            for rule in program.rules_of(n) {
                let holds = if net.watched[rule] {
                    live.rewatch(program, net, rule)
                } else {
                    let skip = net.rule_skip[rule];
                    let body = program.body(rule).iter().filter(|&&l| !is_deferred(l) && l != skip);
                    let failing = body.filter(|&&l| !program.holds(l, &[], &live.joint, &live.values)).count();
                    live.unsat[rule] = Unsat::try_from(failing).unwrap_or(Unsat::MAX);
                    match (failing, net.volatile[rule]) {
                        (0, true) => live.arm(program, rule),
                        (failing, _) => failing == 0,
                    }
                };
                live.support[net.rule_node[rule] as usize] += u32::from(holds);
            }
        }
        let slots = super::net::output_literals(program);
        for (slot, &code) in slots.enumerate() {
            if program.holds(code, &[], &live.joint, &live.values) {
                live.raw[slot / 64] |= 1 << (slot % 64);
            }
        }
        // No fact holds in the empty state: no gate is open.
        for &(w, mask) in net.gate_words.iter().filter(|&&(w, _)| w != NONE) {
            live.enabled[w as usize] &= !mask;
        }
        for (out, (raw, enabled)) in live.outputs.iter_mut().zip(live.raw.iter().zip(&live.enabled)) {
            *out = raw & enabled;
        }
        live
    }

    /// The outputs of the evaluation.
    pub(crate) fn outputs<'a>(&'a self, net: &'a Net) -> Outputs<'a> {
        Outputs { bits: &self.outputs, legal_start: &net.legal_start }
    }

    /// Brings the evaluation to `state`: fact by fact, or, when `state` is a jump (a playout's
    /// start, see [`jump`]), from the snapshot of the last one where that is cheaper.
    pub(crate) fn set_state(&mut self, program: &Program, net: &Net, state: &[u64]) {
        self.diff_state(net, state);
        if self.jumps.is_jump(self.changed.len()) && self.tally.is_none() && program.deferred.atoms.is_empty() {
            self.jump(program, net, state);
        } else {
            self.pass_on_state(program, net);
        }
    }

    /// Sets the evaluation's state to `state`, its changed base facts in [`Live::changed`],
    /// not yet passed on.
    fn diff_state(&mut self, net: &Net, state: &[u64]) {
        diff_words(&mut self.state, state, net.bases, &mut self.changed);
    }

    /// Passes on the changes of base facts in [`Live::changed`].
    fn pass_on_state(&mut self, program: &Program, net: &Net) {
        if self.changed.is_empty() {
            return;
        }
        if program.asks_at_run_time() {
            self.values.forget_state();
        }
        for k in 0..self.changed.len() {
            let change = self.changed[k];
            self.atom_changed(program, net, change >> 1, change & 1 != 0);
        }
        self.recheck_armed(program, net);
        self.settle(program, net);
    }

    /// One step of a uniformly random playout from `state`, as [`crate::Game::random_step`]
    /// draws it, the state brought in once for terminal, legal and next: `false` when `state`
    /// is terminal or some role has no legal move, else `true` with the next state in `out`.
    /// A role's move is drawn among the bits of its legal moves, not listed; `joint` is a
    /// buffer.
    pub(crate) fn random_step(
        &mut self,
        program: &Program,
        net: &Net,
        state: &[u64],
        joint: &mut Vec<u32>,
        rng: &mut Rng,
        out: &mut [u64],
    ) -> bool {
        self.set_state(program, net, state);
        if program.holds(program.terminal, state, &self.joint, &self.values) {
            return false;
        }
        joint.clear();
        let outputs = self.outputs(net);
        for (role, listed) in program.legal.iter().enumerate() {
            let Some(&(m, _)) = outputs.draw_legal(role, rng).and_then(|k| listed.get(k)) else { return false };
            joint.push(m);
        }
        self.set_joint(program, net, joint);
        out.fill(0);
        self.outputs(net).next(program.next.len(), out);
        true
    }

    /// Asks every armed rule for its run-time atoms in the new state, and passes on the rules
    /// whose value that changes.
    fn recheck_armed(&mut self, program: &Program, net: &Net) {
        for k in 0..self.armed.len() {
            let rule = self.armed[k] as usize;
            let holds = self.deferred_hold(program, rule);
            if holds != self.holds[rule] {
                self.holds[rule] = holds;
                self.rule_changed(net, rule, holds);
            }
        }
    }

    /// Whether every run-time atom that `rule` reads has the value its literal asks for.
    fn deferred_hold(&self, program: &Program, rule: usize) -> bool {
        let mut deferred = program.body(rule).iter().filter(|&&l| is_deferred(l));
        deferred.all(|&l| program.holds(l, &self.state, &self.joint, &self.values))
    }

    /// Adds `rule`, whose other literals all hold, to the armed rules; returns whether its
    /// run-time atoms hold too.
    fn arm(&mut self, program: &Program, rule: usize) -> bool {
        self.armed_at[rule] = self.armed.len() as u32;
        self.armed.push(rule as u32);
        let holds = self.deferred_hold(program, rule);
        self.holds[rule] = holds;
        holds
    }

    /// Takes `rule`, one of whose other literals stopped holding, from the armed rules; returns
    /// whether it held.
    fn disarm(&mut self, rule: usize) -> bool {
        let at = self.armed_at[rule] as usize;
        self.armed_at[rule] = NONE;
        self.armed.swap_remove(at);
        if let Some(&moved) = self.armed.get(at) {
            self.armed_at[moved as usize] = at as u32;
        }
        std::mem::replace(&mut self.holds[rule], false)
    }

    /// A counted rule's count of false literals reached 0 (`armed`) or left it.
    #[inline(always)]
    fn count_crossed(&mut self, program: &Program, net: &Net, rule: usize, armed: bool) {
        if !net.volatile[rule] {
            self.rule_changed(net, rule, armed);
        } else if armed {
            if self.arm(program, rule) {
                self.rule_changed(net, rule, true);
            }
        } else if self.disarm(rule) {
            self.rule_changed(net, rule, false);
        }
    }

    /// Brings the evaluation to the joint move `joint` (one move index per role).
    pub(crate) fn set_joint(&mut self, program: &Program, net: &Net, joint: &[u32]) {
        self.changed.clear();
        for (role, moves) in net.role_does.iter().enumerate() {
            let new = joint.get(role).copied().unwrap_or(NONE);
            let old = self.joint[role];
            if old == new {
                continue;
            }
            for (m, holds) in [(old, false), (new, true)] {
                if let Some(&d) = moves.get(m as usize).filter(|&&d| d != NONE) {
                    self.changed.push((net.bases + d) << 1 | u32::from(holds));
                }
            }
            self.joint[role] = new;
        }
        for k in 0..self.changed.len() {
            let change = self.changed[k];
            self.atom_changed(program, net, change >> 1, change & 1 != 0);
        }
        self.settle(program, net);
    }

    /// Atom `atom` now has value `value`: the output slots and gates it sets, the counts of the
    /// rules that read it and the supports of its direct rules' propositions follow, then the
    /// watched rules that read it (see [`watch`]).
    fn atom_changed(&mut self, program: &Program, net: &Net, atom: u32, value: bool) {
        let a = atom as usize;
        if self.tally.is_some() {
            self.count_change(a);
        }
        self.set_outputs(net, a, value);
        let gates = if atom < net.bases { net.gate_start[a] as usize..net.gate_start[a + 1] as usize } else { 0..0 };
        for &(w, mask) in &net.gate_words[gates] {
            // A proposition whose rules counted apart need this fact changes when one holds.
            if w == NONE {
                if self.support[mask as usize] > 0 {
                    self.enqueue(net.owner_of(mask as usize));
                }
                continue;
            }
            let w = w as usize;
            self.enabled[w] = if value { self.enabled[w] | mask } else { self.enabled[w] & !mask };
            self.outputs[w] = self.raw[w] & self.enabled[w];
        }
        let run = |k: usize| net.fan_runs[4 * a + k] as usize..net.fan_runs[4 * a + k + 1] as usize;
        let (became_true, became_false) = if value { (run(0), run(1)) } else { (run(1), run(0)) };
        let (node_true, node_false) = if value { (run(2), run(3)) } else { (run(3), run(2)) };
        // Rules whose one literal became true or false: their propositions' support changes.
        // Each run is counted first, the counts that cross zero collected without a branch
        // (which of them cross is as good as random), then the crossings passed on in order:
        // passing one on changes no count of its run.
        let mut crossed = std::mem::take(&mut self.crossed);
        let k = count_run(&mut self.support, &net.fanout[node_true], true, &mut crossed);
        for &n in &crossed[..k] {
            self.support_crossed(net, n as usize, true);
        }
        let k = count_run(&mut self.support, &net.fanout[node_false], false, &mut crossed);
        for &n in &crossed[..k] {
            self.support_crossed(net, n as usize, false);
        }
        // Rules one of whose literals became true or false: their counts of false literals.
        let k = count_run(&mut self.unsat, &net.fanout[became_true], false, &mut crossed);
        for &rule in &crossed[..k] {
            self.count_crossed(program, net, rule as usize, true);
        }
        let k = count_run(&mut self.unsat, &net.fanout[became_false], true, &mut crossed);
        for &rule in &crossed[..k] {
            self.count_crossed(program, net, rule as usize, false);
        }
        self.crossed = crossed;
        if net.watched_atom[a] {
            self.watched_atom_changed(program, net, atom, value);
        }
    }

    /// Counts a change of atom `a` in the tally: kept only while the network is shaped, out of
    /// the way of the evaluation's own work.
    #[cold]
    #[inline(never)]
    fn count_change(&mut self, a: usize) {
        if let Some(tally) = &mut self.tally {
            tally.changes[a] += 1;
        }
    }

    /// Counts a wake-up of watched rule `rule` in the tally.
    #[cold]
    #[inline(never)]
    fn count_wake(&mut self, rule: usize) {
        if let Some(tally) = &mut self.tally {
            tally.wakes[rule] += 1;
        }
    }

    /// A rule started or stopped holding.
    fn rule_changed(&mut self, net: &Net, rule: usize, holds: bool) {
        let n = net.rule_node[rule] as usize;
        let group = net.group.get(n).copied().unwrap_or(NONE);
        if group != NONE {
            if group != self.settling {
                self.enqueue(group);
            }
            return;
        }
        let support = &mut self.support[n];
        if holds {
            *support += 1;
            if *support == 1 {
                self.support_crossed(net, n, true);
            }
        } else {
            *support -= 1;
            if *support == 0 {
                self.support_crossed(net, n, false);
            }
        }
    }

    /// The support at index `n` (a proposition's, or that of a proposition's rules counted
    /// apart) became non-zero (`holds`) or zero: an eager proposition (see [`Net::eager`])
    /// changes at once, any other is queued.
    #[inline(always)]
    fn support_crossed(&mut self, net: &Net, n: usize, holds: bool) {
        match net.eager.get(n) {
            Some(true) => self.eager_changed(net, n, holds),
            _ => self.enqueue(net.owner_of(n)),
        }
    }

    /// Eager proposition `n` (see [`Net::eager`]) now has value `holds`.
    #[inline(never)]
    fn eager_changed(&mut self, net: &Net, n: usize, holds: bool) {
        self.values.nodes[n] = holds;
        let a = net.first_node as usize + n;
        if self.tally.is_some() {
            self.count_change(a);
        }
        self.set_outputs(net, a, holds);
    }

    /// Sets the output slots that read atom `a`, which now has value `value`.
    #[inline(always)]
    fn set_outputs(&mut self, net: &Net, a: usize, value: bool) {
        for &entry in &net.outputs[net.out_start[a] as usize..net.out_start[a + 1] as usize] {
            let (slot, w) = ((entry >> 1) as usize, (entry >> 7) as usize);
            let bit = 1u64 << (slot % 64);
            if value != (entry & 1 != 0) {
                self.raw[w] |= bit;
            } else {
                self.raw[w] &= !bit;
            }
            self.outputs[w] = self.raw[w] & self.enabled[w];
        }
    }

    fn enqueue(&mut self, n: u32) {
        let w = n as usize / 64;
        self.dirty[w] |= 1 << (n % 64);
        self.dirty_words[w / 64] |= 1 << (w % 64);
        self.dirty_low = self.dirty_low.min(w);
        self.dirty_high = self.dirty_high.max(w);
    }

    /// Settles the queued propositions, least index first, passing on every change of value. A
    /// change queues only propositions numbered after the one that changed.
    fn settle(&mut self, program: &Program, net: &Net) {
        let mut w = self.dirty_low;
        while w <= self.dirty_high {
            let word = self.dirty[w];
            if word == 0 {
                // The next word with a bit, through the words that have one.
                let s = w / 64;
                self.dirty_words[s] &= !(1 << (w % 64));
                let rest = self.dirty_words[s] & (!0 << (w % 64));
                w = if rest == 0 { (s + 1) * 64 } else { s * 64 + rest.trailing_zeros() as usize };
                continue;
            }
            self.dirty[w] = word & (word - 1);
            let n = (w * 64) as u32 + word.trailing_zeros();
            if net.group[n as usize] == n {
                self.settle_group(program, net, n);
                continue;
            }
            let holds = self.support[n as usize] > 0 || (!net.owner.is_empty() && self.holds_apart(net, n as usize));
            if holds != self.values.nodes[n as usize] {
                self.values.nodes[n as usize] = holds;
                self.atom_changed(program, net, net.first_node + n, holds);
            }
        }
        (self.dirty_low, self.dirty_high) = (usize::MAX, 0);
    }

    /// Whether one of proposition `n`'s rules counted apart holds with the fact they need.
    fn holds_apart(&self, net: &Net, n: usize) -> bool {
        let index = net.apart[n] as usize;
        let Some(&fact) = net.apart_fact.get(index.wrapping_sub(net.group.len())) else { return false };
        let word = self.state.get(fact as usize / 64).copied().unwrap_or(0);
        self.support[index] > 0 && word >> (fact % 64) & 1 != 0
    }

    /// Evaluates the recursive group that starts at `start` to its least fixpoint, then passes
    /// on the changes of its propositions.
    fn settle_group(&mut self, program: &Program, net: &Net, start: u32) {
        let k = program.cycles.partition_point(|&(s, _)| s < start);
        let Some(group) = net.cycle_members.get(k) else { return };
        self.scratch.clear();
        self.scratch.extend(group.iter().map(|&n| self.values.nodes[n as usize]));
        for &n in group {
            self.values.nodes[n as usize] = false;
        }
        loop {
            let mut changed = false;
            for &n in group {
                if !self.values.nodes[n as usize] && program.node_holds(n, &self.state, &self.joint, &self.values) {
                    self.values.nodes[n as usize] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        self.settling = start;
        for (k, &n) in group.iter().enumerate() {
            let holds = self.values.nodes[n as usize];
            if holds != self.scratch[k] {
                self.atom_changed(program, net, net.first_node + n, holds);
            }
        }
        self.settling = NONE;
    }
}

/// Makes `old` the state `new`, the base facts below `bases` that change listed in `changed`
/// (cleared first) in increasing order, as `fact << 1 | new value`.
fn diff_words(old: &mut Vec<u64>, new: &[u64], bases: u32, changed: &mut Vec<u32>) {
    changed.clear();
    let len = old.len();
    if len < new.len() {
        old.resize(new.len(), 0);
    }
    // A block of words at a time, compared as bytes: a step changes few of a large state's words.
    let blocks = old[..new.len()].chunks_mut(DIFF_BLOCK).zip(new.chunks(DIFF_BLOCK));
    for (k, (old, new)) in blocks.enumerate() {
        if *old == *new {
            continue;
        }
        for (v, (old, &new)) in old.iter_mut().zip(new).enumerate() {
            push_changes(changed, DIFF_BLOCK * k + v, *old, new, bases);
            *old = new;
        }
    }
    // Words past the new state's end become empty.
    for (v, &word) in old.iter().enumerate().skip(new.len()) {
        push_changes(changed, v, word, 0, bases);
    }
    old.truncate(new.len());
}

/// Appends to `changed` every base fact below `bases` that word `w` changes from `old` to `new`,
/// as `fact << 1 | new value`.
#[inline]
fn push_changes(changed: &mut Vec<u32>, w: usize, old: u64, new: u64, bases: u32) {
    let mut diff = old ^ new;
    while diff != 0 {
        let bit = diff.trailing_zeros();
        diff &= diff - 1;
        let i = w as u32 * 64 + bit;
        if i < bases {
            changed.push(i << 1 | u32::from(new >> bit & 1 != 0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::diff_words;
    use crate::rng::Rng;

    /// The changes of a state of many words (several blocks, a shorter or longer state) are
    /// every changed bit below the base facts' end, in order, and the old state becomes the new.
    #[test]
    fn a_change_of_state_lists_every_changed_fact() {
        let mut rng = Rng::seeded(7);
        let mut word = || (0..4).fold(0u64, |w, _| w << 16 | rng.below(1 << 16) as u64);
        for (old_len, new_len, bases) in [(70, 70, 70 * 64), (70, 40, 70 * 64), (40, 70, 50 * 64), (33, 33, 2000)] {
            let mut old: Vec<u64> = (0..old_len).map(|_| word()).collect();
            let new: Vec<u64> = (0..new_len).map(|_| if word() % 3 == 0 { word() } else { 0 }).collect();
            let bit = |state: &[u64], i: usize| state.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 != 0);
            let expected: Vec<u32> = (0..bases as usize)
                .filter(|&i| bit(&old, i) != bit(&new, i))
                .map(|i| (i as u32) << 1 | u32::from(bit(&new, i)))
                .collect();
            let mut changed = vec![1, 2, 3];
            diff_words(&mut old, &new, bases, &mut changed);
            assert_eq!(changed, expected, "{old_len} words to {new_len}");
            assert_eq!(old, new);
        }
    }
}
