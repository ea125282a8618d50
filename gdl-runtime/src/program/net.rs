//! The shape of a program's incremental evaluation ([`Net`]): how literals number their atoms,
//! which rules are counted and which watched, the lists of the rules and outputs that read
//! each atom, and the outputs' bit sets as an evaluation gives them ([`Outputs`]). Built once
//! per program, shared by every thread.

use super::gates::Gated;
use super::sample::Tally;
use super::{kind_of, Program, INDEX_MASK, KIND_BASE, KIND_DEFERRED, KIND_DOES, KIND_LAZY, KIND_NODE, NEGATED};
use crate::rng::Rng;

mod watched;

pub(super) use watched::{Unsat, CROWDED_READERS, WIDE_READERS};

/// Marks a proposition that belongs to no recursive group, and a role with no move set.
pub(super) const NONE: u32 = u32::MAX;

/// The shape of a program's network: how literals number their atoms, which rule belongs to
/// which proposition, and the recursive groups.
#[derive(Clone, Debug)]
pub(crate) struct Net {
    /// The number of base facts that rules read (atoms `0..bases`); the moves of
    /// [`Program::does`] follow, then the derived propositions.
    pub(super) bases: u32,
    /// The first atom of the derived propositions.
    pub(super) first_node: u32,
    /// The proposition each rule derives (for a rule counted apart, see [`Net::count_apart`],
    /// the support index past the propositions' that its proposition keeps for such rules),
    /// [`NONE`] for the rules of propositions no output reads.
    pub(super) rule_node: Vec<u32>,
    /// For every proposition, the first proposition of its recursive group, or [`NONE`].
    pub(super) group: Vec<u32>,
    /// For every role, the entry of [`Program::does`] of each of its moves, or [`NONE`].
    pub(super) role_does: Vec<Vec<u32>>,
    /// The propositions that some output reads, in increasing order.
    pub(super) members: Vec<u32>,
    /// For every recursive group of [`Program::cycles`], its propositions that some output reads.
    pub(super) cycle_members: Vec<Vec<u32>>,
    /// Whether each rule is watched rather than counted.
    pub(super) watched: Vec<bool>,
    /// Whether each rule reads an atom proved at run time or a proposition asked for (see
    /// [`super::incremental`]): such a rule is counted on its other literals, and its run-time
    /// atoms are asked about again in every state while the others all hold.
    pub(super) volatile: Vec<bool>,
    /// Whether some rule is volatile.
    pub(super) any_volatile: bool,
    /// Whether some watched rule reads each atom: the others' watch lists stay empty, and a
    /// change of them does not look at them.
    pub(super) watched_atom: Vec<bool>,
    /// The literals of every rule, laid out as [`Program::literals`], a watched rule's sorted
    /// so that those whose atoms a sample saw change least come first: a watched rule waits on
    /// the first of its literals that is false, and one that rarely changes rarely wakes it.
    /// Empty when no rule is watched.
    pub(super) watch_literals: Vec<u32>,
    /// The counted rules that read atom `a`, in four runs of `fanout`: run `k` of atom `a` is
    /// `fanout[fan_runs[4 * a + k]..fan_runs[4 * a + k + 1]]`. Runs 0 and 1 are the rules that
    /// read it positively and negated; runs 2 and 3 the propositions of the rules whose whole
    /// body is the atom read positively or negated ([`Net::is_direct`]), which hold as that
    /// literal does and have no count. A change of the atom goes through lists of literals that
    /// became true and false, without a test of each entry.
    pub(super) fan_runs: Vec<u32>,
    pub(super) fanout: Vec<u32>,
    /// Whether each proposition is read by no rule that the network evaluates and belongs to no
    /// recursive group and has no rules counted apart: only outputs and queries read it, so a
    /// change of its support passes on at once, without a place in the queue.
    pub(super) eager: Vec<bool>,
    /// The outputs that read atom `a` are `outputs[out_start[a]..out_start[a + 1]]`, as
    /// `slot << 1 | negated`: slot `i` is base fact `i` of the next state, and the legal moves of
    /// role `r` follow from `legal_start[r]`, in the order of [`Program::legal`].
    pub(super) out_start: Vec<u32>,
    pub(super) outputs: Vec<u32>,
    pub(super) legal_start: Vec<u32>,
    /// What a change of base fact `a` (below [`Net::bases`]) does as a gate (see
    /// [`super::gates`]), `gate_words[gate_start[a]..gate_start[a + 1]]`: the output slots it masks, as words of the
    /// slots' bit set with a mask, and as `(NONE, index)` the support of rules counted apart
    /// that need it.
    pub(super) gate_start: Vec<u32>,
    pub(super) gate_words: Vec<(u32, u64)>,
    /// The program the network evaluates instead of the one it was built for: without the
    /// gates of its gated propositions, and with its propositions asked for read as such (see
    /// [`super::lazy`]); `None` when none is gated or asked for.
    pub(super) gated_program: Option<Box<Program>>,
    /// For every rule, the literal its count leaves out (the fact of a mixed proposition's rule
    /// counted apart, see [`super::gates`]), or [`NONE`].
    pub(super) rule_skip: Vec<u32>,
    /// For every proposition, where the support of its rules counted apart is kept (an index
    /// past the propositions'), or [`NONE`]; for every such index past the propositions', the
    /// proposition and the fact its rules need.
    pub(super) apart: Vec<u32>,
    pub(super) owner: Vec<u32>,
    pub(super) apart_fact: Vec<u32>,
}

/// The most output slots that an eager proposition (see [`Net::eager`]) may have: a proposition
/// whose support leaves zero and comes back within one step changes twice when eager, and once
/// queued, not at all.
const EAGER_OUTPUTS: u32 = 1;

impl Net {
    /// The network of `program`, or `None` when it cannot be evaluated incrementally: an
    /// output reads an atom proved at run time itself, or a rule reads a proposition numbered
    /// after its own outside its recursive group. Propositions that a fact changing at most
    /// steps gates (see [`super::gates`]) are evaluated without it, in a program of their own.
    /// The rules of an atom that many rules read may be watched (see [`Net::watch_crowded`]);
    /// how many readers make an atom crowded is chosen by a race of the two networks, when they
    /// differ (see [`super::sample::faster`]). When some propositions could be asked for rather
    /// than kept (see [`super::lazy`]), a network that asks for them races the one that keeps
    /// them: which is faster depends on how often the moves that read them are played.
    pub(crate) fn new(program: &Program) -> Option<Net> {
        let kept = Net::crowded_or_wide(program)?;
        let Some(asked) = super::lazy::recode(program) else { return Some(kept) };
        let Some(mut lazy) = Net::crowded_or_wide(&asked) else { return Some(kept) };
        lazy.gated_program.get_or_insert_with(|| Box::new(asked));
        Some(super::sample::faster(program, kept, lazy))
    }

    /// The network of `program` whose crowded atoms are those that more than
    /// [`CROWDED_READERS`] rules read, or [`WIDE_READERS`], whichever a race finds faster when
    /// they differ.
    fn crowded_or_wide(program: &Program) -> Option<Net> {
        let crowded = Net::shaped(program, CROWDED_READERS)?;
        let Some(wide) = Net::shaped(program, WIDE_READERS) else { return Some(crowded) };
        if wide.same_shape(&crowded) {
            return Some(crowded);
        }
        Some(super::sample::faster(program, crowded, wide))
    }

    /// The network of `program` whose crowded atoms (see [`Net::watch_crowded`]) are those
    /// that more than `crowded` rules read.
    pub(super) fn shaped(program: &Program, crowded: u32) -> Option<Net> {
        let mut net = Net::build(program, &[], &[])?;
        let crowd = net.watch_crowded(program, crowded);
        // One sample, taken with every crowded rule watched, tells both which facts gate and
        // which atoms watched rules should not wait on: the first sample shaping would take.
        let candidate = super::gates::any_candidate(program, &net.members, &net.group);
        let first = match candidate || net.watched.contains(&true) {
            true => super::sample::tally(program, &net),
            false => None,
        };
        if let Some(gated) = first.as_ref().filter(|_| candidate).and_then(|tally| net.gated(program, tally)) {
            let mut gated_net = Net::build(&gated.program, &gated.gate, &gated.mixed)?;
            let crowd = gated_net.watch_crowded(&gated.program, crowded);
            gated_net.shape(&gated.program, &crowd, None);
            gated_net.gated_program = Some(Box::new(gated.program));
            return Some(gated_net);
        }
        net.shape(program, &crowd, first);
        Some(net)
    }

    /// Whether this network and `other`, of one program, watch the same rules and count the
    /// same rules through the same gates.
    fn same_shape(&self, other: &Net) -> bool {
        self.watched == other.watched
            && self.fan_runs == other.fan_runs
            && self.fanout == other.fanout
            && self.gate_words == other.gate_words
            && self.rule_skip == other.rule_skip
    }

    /// The program the network evaluates: `program` itself, or its gated form, or the form
    /// that asks for some propositions (see [`super::lazy`]).
    pub(crate) fn program<'p>(&'p self, program: &'p Program) -> &'p Program {
        self.gated_program.as_deref().unwrap_or(program)
    }

    /// The gated form of `program`, when some of its propositions read a fact that `tally`, a
    /// sample of playouts, saw change at a quarter of the steps or more.
    fn gated(&self, program: &Program, tally: &Tally) -> Option<Gated> {
        let often =
            |fact: u32| tally.steps > 0 && tally.changes.get(fact as usize).is_some_and(|&c| 4 * c >= tally.steps);
        super::gates::gate(program, &self.members, &self.group, often)
    }

    /// The network of `program`, whose propositions `gate` gates and `mixed` mixes (empty
    /// when none is).
    fn build(program: &Program, gate: &[u32], mixed: &[u32]) -> Option<Net> {
        let outputs = output_literals(program);
        if outputs.into_iter().any(|&code| is_deferred(code)) {
            return None;
        }
        let nodes = program.node_rules.len() - 1;
        let mut members: Vec<u32> =
            program.state_cone.iter().chain(&program.move_cone).chain(&program.sees_cone).copied().collect();
        members.sort_unstable();
        members.dedup();
        let mut group = vec![NONE; nodes];
        for &(start, end) in &program.cycles {
            group[start as usize..end as usize].fill(start);
        }
        let mut rule_node = vec![NONE; program.rule_literals.len() - 1];
        for &n in &members {
            for rule in program.rules_of(n) {
                rule_node[rule] = n;
                if !program.body(rule).iter().all(|&code| reads_earlier(code, n, &group)) {
                    return None;
                }
            }
        }
        let bases = program.next.len().max(max_index(program, KIND_BASE) + 1) as u32;
        let mut role_does = vec![Vec::new(); program.legal.len()];
        for (i, &(role, m)) in program.does.iter().enumerate() {
            let moves: &mut Vec<u32> = role_does.get_mut(role as usize)?;
            if moves.len() <= m as usize {
                moves.resize(m as usize + 1, NONE);
            }
            moves[m as usize] = i as u32;
        }
        let cycle_members = program
            .cycles
            .iter()
            .map(|&(start, end)| (start..end).filter(|n| members.binary_search(n).is_ok()).collect())
            .collect();
        let first_node = bases + program.does.len() as u32;
        let mut net = Net {
            bases,
            first_node,
            rule_node,
            group,
            role_does,
            members,
            cycle_members,
            watched: Vec::new(),
            volatile: Vec::new(),
            any_volatile: false,
            watched_atom: Vec::new(),
            watch_literals: Vec::new(),
            fan_runs: Vec::new(),
            fanout: Vec::new(),
            eager: Vec::new(),
            out_start: Vec::new(),
            outputs: Vec::new(),
            legal_start: Vec::new(),
            gate_start: Vec::new(),
            gate_words: Vec::new(),
            gated_program: None,
            rule_skip: vec![NONE; program.rule_literals.len() - 1],
            apart: vec![NONE; nodes],
            owner: Vec::new(),
            apart_fact: Vec::new(),
        };
        net.count_apart(program, mixed);
        net.place_outputs(program);
        net.lay_out_gates(program, gate);
        Some(net)
    }

    /// Counts apart, for every proposition that `mixed` mixes, its rules that read its fact (see
    /// [`super::gates`]): their support is kept at an index of its own past the propositions',
    /// and their counts leave the fact out. Rules that ask a search of the state stay as they
    /// are.
    fn count_apart(&mut self, program: &Program, mixed: &[u32]) {
        let nodes = self.group.len();
        for &n in &self.members {
            let Some(&fact) = mixed.get(n as usize).filter(|&&fact| fact != NONE) else { continue };
            let index = (nodes + self.owner.len()) as u32;
            let code = super::gates::fact_code(fact);
            for rule in program.rules_of(n) {
                let body = program.body(rule);
                if body.contains(&code) && !body.iter().any(|&literal| is_deferred(literal)) {
                    self.rule_node[rule] = index;
                    self.rule_skip[rule] = code;
                }
            }
            self.apart[n as usize] = index;
            self.owner.push(n);
            self.apart_fact.push(fact);
        }
    }

    /// Lays out what a change of each fact that gates does: the words of the output slots it
    /// masks (those that read a proposition that `gate` gates), with their masks, and the
    /// supports of the rules counted apart on it, as `(NONE, index)`.
    fn lay_out_gates(&mut self, program: &Program, gate: &[u32]) {
        let slots = output_literals(program);
        let mut effects: Vec<(u32, u32, u64)> = Vec::new();
        for (slot, &code) in slots.enumerate() {
            if kind_of(code) != KIND_NODE || code & NEGATED != 0 {
                continue;
            }
            let Some(&fact) = gate.get((code & INDEX_MASK) as usize).filter(|&&fact| fact != NONE) else { continue };
            effects.push((fact, slot as u32 / 64, 1 << (slot % 64)));
        }
        let apart = self.apart_fact.iter().enumerate();
        effects.extend(apart.map(|(k, &fact)| (fact, NONE, (self.group.len() + k) as u64)));
        effects.sort_unstable_by_key(|&(fact, word, _)| (fact, word));
        // Gates are base facts: the lists stop there, so that a proposition's change does not
        // read them.
        let mut counts = vec![0u32; self.bases as usize + 1];
        self.gate_words.clear();
        for (k, &(fact, word, mask)) in effects.iter().enumerate() {
            let same_word = k > 0 && word != NONE && effects[k - 1].0 == fact && effects[k - 1].1 == word;
            match self.gate_words.last_mut().filter(|_| same_word) {
                Some(last) => last.1 |= mask,
                None => {
                    counts[fact as usize] += 1;
                    self.gate_words.push((word, mask));
                }
            }
        }
        self.gate_start = prefix(&counts);
    }

    /// The proposition whose support index `n` is (itself, or the owner of rules counted apart).
    pub(super) fn owner_of(&self, n: usize) -> u32 {
        match n.checked_sub(self.group.len()) {
            Some(k) => self.owner[k],
            None => n as u32,
        }
    }

    /// The number of support indices: the propositions, then those of rules counted apart.
    pub(super) fn supports(&self) -> usize {
        self.group.len() + self.owner.len()
    }

    /// The rules of the propositions that some output reads, with each literal's watch (but the
    /// literal a rule's count leaves out).
    fn member_literals<'p>(&'p self, program: &'p Program) -> impl Iterator<Item = (usize, u32, u32)> + 'p {
        (0..self.rule_node.len()).filter(|&rule| self.rule_node[rule] != NONE).flat_map(move |rule| {
            let counted = program.body(rule).iter().filter(move |&&code| code != self.rule_skip[rule]);
            counted.filter_map(move |&code| Some((rule, code, self.watch_of(code)?)))
        })
    }

    /// The literals of `rule`, in the order a watch looks for a false one among them.
    pub(super) fn watch_body<'p>(&'p self, program: &'p Program, rule: usize) -> &'p [u32] {
        let range = program.rule_literals[rule] as usize..program.rule_literals[rule + 1] as usize;
        self.watch_literals.get(range).unwrap_or(program.body(rule))
    }

    /// Lays out the atoms' lists of counted rules, the rules of `watched` being watched instead.
    fn lay_out(&mut self, program: &Program, watched: Vec<bool>) {
        let atoms = self.atoms();
        self.watched = watched;
        // The run of each entry (see `fan_runs`), and what it holds.
        let entry = |net: &Net, rule: usize, watch: u32| -> (usize, u32) {
            let (atom, negated) = (watch as usize >> 1, watch as usize & 1);
            match net.is_direct(program, rule) {
                true => (4 * atom + 2 + negated, net.rule_node[rule]),
                false => (4 * atom + negated, rule as u32),
            }
        };
        let mut counts = vec![0u32; 4 * atoms + 1];
        let mut watched_atom = vec![false; atoms];
        for (rule, _, watch) in self.member_literals(program) {
            if self.watched[rule] {
                watched_atom[watch as usize >> 1] = true;
            } else {
                counts[entry(self, rule, watch).0] += 1;
            }
        }
        self.watched_atom = watched_atom;
        let runs = prefix(&counts);
        let mut next = runs.clone();
        let mut fanout = vec![0; runs[4 * atoms] as usize];
        for (rule, _, watch) in self.member_literals(program) {
            if !self.watched[rule] {
                let (run, held) = entry(self, rule, watch);
                fanout[next[run] as usize] = held;
                next[run] += 1;
            }
        }
        (self.fan_runs, self.fanout) = (runs, fanout);
        self.eager = (0..self.group.len()).map(|n| self.is_eager(n)).collect();
    }

    /// Whether proposition `n` is read by no rule the network evaluates, and its value is
    /// whether its support is not zero (see [`Net::eager`]).
    fn is_eager(&self, n: usize) -> bool {
        let a = self.first_node as usize + n;
        let read = self.fan_runs[4 * a] != self.fan_runs[4 * a + 4] || self.watched_atom[a];
        let outputs = self.out_start[a + 1] - self.out_start[a];
        !read && outputs <= EAGER_OUTPUTS && self.group[n] == NONE && self.apart[n] == NONE
    }

    /// Whether `rule` is counted through its proposition's support alone: its body is one
    /// literal of an atom, it reads no run-time atom and is not watched, and its proposition
    /// belongs to no recursive group.
    pub(super) fn is_direct(&self, program: &Program, rule: usize) -> bool {
        let n = self.rule_node[rule];
        n != NONE
            && program.body(rule).len() - usize::from(self.rule_skip[rule] != NONE) == 1
            && !self.watched[rule]
            && !self.volatile[rule]
            && self.group.get(n as usize).is_none_or(|&group| group == NONE)
    }

    /// Gives every output a slot and lays out the atoms' lists of outputs.
    fn place_outputs(&mut self, program: &Program) {
        let slots: Vec<u32> = output_literals(program).copied().collect();
        self.legal_start.clear();
        let mut start = program.next.len();
        for moves in &program.legal {
            self.legal_start.push(start as u32);
            start += moves.len();
        }
        self.legal_start.push(start as u32);
        let atoms = self.atoms();
        let mut counts = vec![0u32; atoms + 1];
        for &code in &slots {
            if let Some(watch) = self.watch_of(code) {
                counts[watch as usize >> 1] += 1;
            }
        }
        let out_start = prefix(&counts);
        let mut next = out_start.clone();
        let mut outputs = vec![0; out_start[atoms] as usize];
        for (slot, &code) in slots.iter().enumerate() {
            if let Some(watch) = self.watch_of(code) {
                let at = &mut next[watch as usize >> 1];
                outputs[*at as usize] = (slot as u32) << 1 | (watch & 1);
                *at += 1;
            }
        }
        (self.out_start, self.outputs) = (out_start, outputs);
    }

    /// The number of output slots.
    pub(super) fn slots(&self) -> usize {
        self.legal_start.last().map_or(0, |&end| end as usize)
    }

    /// How many rules that read run-time atoms are watched rather than counted.
    pub(super) fn watched_volatile(&self) -> usize {
        self.watched.iter().zip(&self.volatile).filter(|&(&watched, &volatile)| watched && volatile).count()
    }

    /// The number of atoms: base facts, moves and propositions.
    pub(super) fn atoms(&self) -> usize {
        self.first_node as usize + self.group.len()
    }

    /// The watch of a literal: its atom twice, plus one when it is negated. `None` for a
    /// constant, which never changes.
    pub(super) fn watch_of(&self, code: u32) -> Option<u32> {
        let index = code & INDEX_MASK;
        let atom = match kind_of(code) {
            KIND_BASE => index,
            KIND_DOES => self.bases + index,
            KIND_NODE => self.first_node + index,
            _ => return None,
        };
        Some(atom << 1 | u32::from(code & NEGATED != 0))
    }
}

/// Offsets into a list laid out atom after atom, from the count of each atom's entries (the
/// last count is a spare slot). The last offset is where the entries end.
fn prefix(counts: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(counts.len());
    let mut sum = 0u32;
    for &c in &counts[..counts.len() - 1] {
        out.push(sum);
        sum += c;
    }
    out.push(sum);
    out
}

/// The outputs of an evaluation ([`super::incremental::Live`]): its bit sets of legal moves
/// and of the next state.
pub(crate) struct Outputs<'a> {
    pub(super) bits: &'a [u64],
    pub(super) legal_start: &'a [u32],
}

impl Outputs<'_> {
    /// Calls `f` with the position in [`Program::legal`]`[role]` of every legal move of `role`,
    /// in increasing order.
    pub(crate) fn legal(&self, role: usize, mut f: impl FnMut(usize)) {
        let Some((start, end)) = self.slots_of(role) else { return };
        let mut w = start / 64;
        while w * 64 < end {
            let mut word = self.bits[w];
            if w == start / 64 {
                word &= !0u64 << (start % 64);
            }
            while word != 0 {
                let slot = w * 64 + word.trailing_zeros() as usize;
                if slot >= end {
                    return;
                }
                f(slot - start);
                word &= word - 1;
            }
            w += 1;
        }
    }

    /// The output slots of the legal moves of `role`, `None` for a role the program does not
    /// have.
    fn slots_of(&self, role: usize) -> Option<(usize, usize)> {
        Some((*self.legal_start.get(role)? as usize, *self.legal_start.get(role + 1)? as usize))
    }

    /// The position in [`Program::legal`]`[role]` of a legal move of `role` drawn uniformly,
    /// as [`crate::draw_joint`] draws from a list of them (see [`crate::bits::pick_in`]);
    /// `None` when it has none.
    pub(crate) fn draw_legal(&self, role: usize, rng: &mut Rng) -> Option<usize> {
        let (start, end) = self.slots_of(role)?;
        crate::bits::pick_in(self.bits, start, end, rng)
    }

    /// Writes the next state, `facts` base facts, into `out`.
    pub(crate) fn next(&self, facts: usize, out: &mut [u64]) {
        let words = facts.div_ceil(64).min(out.len());
        out[..words].copy_from_slice(&self.bits[..words]);
        if !facts.is_multiple_of(64) && words == facts.div_ceil(64) {
            out[words - 1] &= (1u64 << (facts % 64)) - 1;
        }
    }
}

/// The literals of a program's output slots, in slot order: the next state's facts, then every
/// role's legal moves (see [`Net::place_outputs`]).
pub(super) fn output_literals(program: &Program) -> impl Iterator<Item = &u32> {
    program.next.iter().chain(program.legal.iter().flatten().map(|(_, literal)| literal))
}

/// The largest index of a literal of `kind` in the rules, 0 when there is none.
fn max_index(program: &Program, kind: u32) -> usize {
    program.literals.iter().filter(|&&c| kind_of(c) == kind).map(|&c| (c & INDEX_MASK) as usize).max().unwrap_or(0)
}

/// Whether a literal of a rule of proposition `n` reads only what is evaluated before `n`.
fn reads_earlier(code: u32, n: u32, group: &[u32]) -> bool {
    let kind = kind_of(code);
    // A run-time atom is searched for in the state alone.
    if kind != KIND_NODE {
        return true;
    }
    let m = code & INDEX_MASK;
    m < n || (group[n as usize] != NONE && group[m as usize] == group[n as usize])
}

/// Whether a literal reads an atom proved at run time, or a proposition asked for (see
/// [`super::lazy`]): the network keeps no count of either.
pub(super) fn is_deferred(code: u32) -> bool {
    matches!(kind_of(code), KIND_DEFERRED | KIND_LAZY)
}
