//! The table form of a compiled game: a ground program stored as arrays of literals and
//! evaluated by one loop, for games too large for straight-line code to build in reasonable
//! time and memory. The code generator writes the tables ([`Program::encode`]) and the
//! generated module decodes them once and calls [`Program::legal`], [`Program::next`],
//! [`Program::terminal`] and [`Program::goals`] (and [`Program::sees`] for a GDL-II game).
//!
//! A literal is a `u32`: bit 31 negates it, bits 28-30 give its kind (a base fact of the state,
//! a move of the joint move, a derived proposition, a constant, or an atom of a relation
//! proved at run time by [`crate::prover`]) and bits 0-27 its index.

mod choice;
mod gates;
mod incremental;
mod lazy;
mod net;
mod sample;
mod text;
mod values;

pub use choice::{with_engine, Engine, TablesOrLifted};
pub(crate) use sample::state_of;
pub use text::{text_to_words, words_to_text};

use crate::prover::Deferred;
use incremental::Live;
use net::{Net, Outputs};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use values::Values;

const NEGATED: u32 = 1 << 31;
const KIND_SHIFT: u32 = 28;
const INDEX_MASK: u32 = (1 << KIND_SHIFT) - 1;
const KIND_BASE: u32 = 0;
const KIND_DOES: u32 = 1;
const KIND_NODE: u32 = 2;
const KIND_CONST: u32 = 3;
const KIND_DEFERRED: u32 = 4;
/// A derived proposition asked for when read rather than kept (see [`lazy`]): only in the
/// program a network evaluates, never in an encoded table.
const KIND_LAZY: u32 = 5;

/// The kind of a literal ([`KIND_BASE`] to [`KIND_LAZY`]).
#[inline(always)]
fn kind_of(code: u32) -> u32 {
    code >> KIND_SHIFT & 7
}

/// The first word of an encoded program, so that stale or foreign data is refused.
const MAGIC: u32 = 0x6764_6c33;

/// A literal of the program, for the encoder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Literal {
    /// Base fact `i` of the state.
    Base(u32),
    /// Entry `i` of [`Program::does`]: a role plays a move.
    Does(u32),
    /// Derived proposition `i`.
    Node(u32),
    /// A constant.
    Const(bool),
    /// Atom `i` of [`Program::deferred`], proved at run time when a rule reads it.
    Deferred(u32),
}

/// The code of a literal or of its negation.
pub fn literal_code(literal: Literal, positive: bool) -> u32 {
    let (kind, index) = match literal {
        Literal::Base(i) => (KIND_BASE, i),
        Literal::Does(i) => (KIND_DOES, i),
        Literal::Node(i) => (KIND_NODE, i),
        Literal::Const(b) => (KIND_CONST, u32::from(b)),
        Literal::Deferred(i) => (KIND_DEFERRED, i),
    };
    assert!(index <= INDEX_MASK, "a program table index past 2^28");
    let code = kind << KIND_SHIFT | index;
    if positive {
        code
    } else {
        code | NEGATED
    }
}

/// A ground program in table form. It is not changed once evaluated: evaluations cache node
/// values per program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Rules of node `i` are `node_rules[i]..node_rules[i + 1]`.
    pub node_rules: Vec<u32>,
    /// Literals of rule `j` are `rule_literals[j]..rule_literals[j + 1]`.
    pub rule_literals: Vec<u32>,
    /// The literals of every rule body, rule after rule, as [`literal_code`] writes them.
    pub literals: Vec<u32>,
    /// The `(role, move)` of every move literal.
    pub does: Vec<(u32, u32)>,
    /// Recursive groups of nodes, as ranges `start..end`, evaluated to their least fixpoint.
    pub cycles: Vec<(u32, u32)>,
    /// The nodes that the outputs need and that do not depend on the joint move, in
    /// evaluation order: computed once per state, whatever is asked of it.
    pub state_cone: Vec<u32>,
    /// The nodes that `next` needs and that depend on the joint move, in evaluation order.
    pub move_cone: Vec<u32>,
    /// For every role, its moves with the literal that makes each legal.
    pub legal: Vec<Vec<(u32, u32)>>,
    /// For every base fact, the literal that makes it hold in the next state.
    pub next: Vec<u32>,
    /// The literal that makes a state terminal.
    pub terminal: u32,
    /// For every role, its goal values with their literals, largest value first.
    pub goals: Vec<Vec<(u32, u32)>>,
    /// For every role of a GDL-II game, the percepts it may get with the literal that makes it
    /// perceive each (empty for a game without `sees` rules, whose tables then end at `goals`).
    pub sees: Vec<Vec<(u32, u32)>>,
    /// The nodes that `sees` needs and that depend on the joint move, in evaluation order.
    pub sees_cone: Vec<u32>,
    /// The relations evaluated at run time, and the atoms of them the rules read.
    pub deferred: Deferred,
    /// The base facts of the initial state, in increasing order: where the sample playouts
    /// that shape the incremental evaluation start (see [`Net::new`]).
    pub initial: Vec<u32>,
    /// A number that tells this program from every other one of the process, for the cache.
    identity: OnceLock<u64>,
    /// The network that evaluates the program incrementally, built on first use; `None` for a
    /// program that is evaluated in full passes (see [`Net::new`]).
    net: OnceLock<Option<Net>>,
    /// Whether some rule reads a proposition asked for (see [`lazy`]).
    lazy: bool,
}

impl Program {
    /// The program as a flat list of words (see [`Program::decode`]).
    pub fn encode(&self) -> Vec<u32> {
        let mut out = vec![MAGIC];
        let list = |out: &mut Vec<u32>, items: &[u32]| {
            out.push(items.len() as u32);
            out.extend_from_slice(items);
        };
        let pairs = |out: &mut Vec<u32>, items: &[(u32, u32)]| {
            out.push(items.len() as u32);
            for &(a, b) in items {
                out.extend([a, b]);
            }
        };
        list(&mut out, &self.node_rules);
        list(&mut out, &self.rule_literals);
        list(&mut out, &self.literals);
        pairs(&mut out, &self.does);
        pairs(&mut out, &self.cycles);
        list(&mut out, &self.state_cone);
        list(&mut out, &self.move_cone);
        out.push(self.legal.len() as u32);
        for role in &self.legal {
            pairs(&mut out, role);
        }
        list(&mut out, &self.next);
        out.push(self.terminal);
        out.push(self.goals.len() as u32);
        for role in &self.goals {
            pairs(&mut out, role);
        }
        // The percepts of a GDL-II game (no roles for other games), then the checks.
        out.push(self.sees.len() as u32);
        for role in &self.sees {
            pairs(&mut out, role);
        }
        list(&mut out, &self.sees_cone);
        list(&mut out, &self.initial);
        self.deferred.encode(&mut out);
        out
    }

    /// Reads a program written by [`Program::encode`], checking every index it holds.
    pub fn decode(words: &[u32]) -> Result<Program, String> {
        let mut reader = Reader { words, at: 0 };
        if reader.word()? != MAGIC {
            return Err("not a gdlc program table".to_string());
        }
        let mut program = Program {
            node_rules: reader.list()?,
            rule_literals: reader.list()?,
            literals: reader.list()?,
            does: reader.pairs()?,
            cycles: reader.pairs()?,
            state_cone: reader.list()?,
            move_cone: reader.list()?,
            ..Program::default()
        };
        let roles = reader.word()?;
        for _ in 0..roles {
            program.legal.push(reader.pairs()?);
        }
        program.next = reader.list()?;
        program.terminal = reader.word()?;
        let roles = reader.word()?;
        for _ in 0..roles {
            program.goals.push(reader.pairs()?);
        }
        let roles = reader.word()?;
        for _ in 0..roles {
            program.sees.push(reader.pairs()?);
        }
        program.sees_cone = reader.list()?;
        program.initial = reader.list()?;
        program.deferred = Deferred::decode(words, &mut reader.at)?;
        if reader.at != words.len() {
            return Err("trailing words after the program table".to_string());
        }
        program.validate()?;
        Ok(program)
    }

    /// Checks that every range and index stays inside the tables, so evaluation cannot fail.
    pub(crate) fn validate(&self) -> Result<(), &'static str> {
        let nodes = self.node_rules.len().checked_sub(1).ok_or("no node table")?;
        let rules = self.rule_literals.len().checked_sub(1).ok_or("no rule table")?;
        let ascending = |v: &[u32], end: usize| v.windows(2).all(|w| w[0] <= w[1]) && v.last() == Some(&(end as u32));
        if !ascending(&self.node_rules, rules) || !ascending(&self.rule_literals, self.literals.len()) {
            return Err("rule or literal ranges out of order");
        }
        let literal_ok = |code: u32| {
            let index = (code & INDEX_MASK) as usize;
            match kind_of(code) {
                KIND_BASE => true,
                KIND_DOES => index < self.does.len(),
                KIND_NODE => index < nodes,
                KIND_CONST => index < 2,
                KIND_DEFERRED => index < self.deferred.atoms.len(),
                _ => false,
            }
        };
        let outputs = self
            .legal
            .iter()
            .flatten()
            .chain(self.goals.iter().flatten())
            .chain(self.sees.iter().flatten())
            .map(|&(_, l)| l);
        let all_literals = self.literals.iter().copied().chain(self.next.iter().copied()).chain(outputs);
        if !all_literals.chain([self.terminal]).all(literal_ok) {
            return Err("a literal refers past its table");
        }
        if !self.state_cone.iter().chain(&self.move_cone).chain(&self.sees_cone).all(|&n| (n as usize) < nodes) {
            return Err("a node list refers past the node table");
        }
        if !self.cycles.iter().all(|&(s, e)| s <= e && e as usize <= nodes) {
            return Err("a recursive group refers past the node table");
        }
        if !self.initial.iter().all(|&i| (i as usize) < self.next.len()) {
            return Err("an initial fact refers past the state");
        }
        Ok(())
    }

    /// Appends `role`'s legal moves in `state` through `push`, in move order.
    pub fn legal(&self, state: &[u64], role: usize, mut push: impl FnMut(u32)) {
        let Some(moves) = self.legal.get(role) else { return };
        self.with_values(state, None, |values, joint, outputs| match outputs {
            Some(outputs) => outputs.legal(role, |k| push(moves[k].0)),
            None => {
                for &(m, literal) in moves {
                    if self.holds(literal, state, joint, values) {
                        push(m);
                    }
                }
            }
        })
    }

    /// Writes the state after `joint` (one move index per role) into `out`.
    pub fn next(&self, state: &[u64], joint: &[u32], out: &mut [u64]) {
        out.iter_mut().for_each(|w| *w = 0);
        self.with_values(state, Some((joint, &self.move_cone)), |values, joint, outputs| match outputs {
            Some(outputs) => outputs.next(self.next.len(), out),
            None => {
                for (i, &literal) in self.next.iter().enumerate() {
                    if self.holds(literal, state, joint, values) {
                        out[i / 64] |= 1 << (i % 64);
                    }
                }
            }
        })
    }

    /// Appends through `push` what `role` perceives on the step from `state` by `joint` (one
    /// move index per role), in percept order.
    pub fn sees(&self, state: &[u64], joint: &[u32], role: usize, mut push: impl FnMut(u32)) {
        let Some(percepts) = self.sees.get(role) else { return };
        self.with_values(state, Some((joint, &self.sees_cone)), |values, joint, _| {
            for &(p, literal) in percepts {
                if self.holds(literal, state, joint, values) {
                    push(p);
                }
            }
        })
    }

    /// `role`'s largest goal value in `state`, `None` when it has none.
    pub fn goal(&self, state: &[u64], role: usize) -> Option<u32> {
        let goals = self.goals.get(role)?;
        self.with_values(state, None, |values, joint, _| {
            goals.iter().find(|&&(_, literal)| self.holds(literal, state, joint, values)).map(|&(v, _)| v)
        })
    }

    /// Replaces `out` with every goal value `role` has in `state`, largest first.
    pub fn goal_values(&self, state: &[u64], role: usize, out: &mut Vec<u32>) {
        out.clear();
        let Some(goals) = self.goals.get(role) else { return };
        self.with_values(state, None, |values, joint, _| {
            let holds = |literal: u32| self.holds(literal, state, joint, values);
            out.extend(goals.iter().filter(|&&(_, literal)| holds(literal)).map(|&(v, _)| v));
        })
    }

    /// Whether the program is evaluated incrementally (see the `incremental` module): changes of
    /// the state and of the joint move cost what they touch. A program whose outputs read
    /// relations proved at run time themselves (not through rules) is evaluated in full passes.
    pub fn is_incremental(&self) -> bool {
        self.net().is_some()
    }

    /// How many of the rules that read atoms proved at run time are watched (they read an atom
    /// that very many rules read) rather than counted; 0 for a program evaluated in full passes.
    pub fn watched_rules_reading_run_time_atoms(&self) -> usize {
        self.net().map_or(0, Net::watched_volatile)
    }

    /// The network of the program, built on first use.
    fn net(&self) -> Option<&Net> {
        self.net.get_or_init(|| Net::new(self)).as_ref()
    }

    /// Whether some rule reads an atom proved at run time or a proposition asked for, whose
    /// values a new state forgets.
    fn asks_at_run_time(&self) -> bool {
        self.lazy || !self.deferred.atoms.is_empty()
    }

    /// Gives the program a new identity, so that no thread's cache of node values is taken for
    /// its own: for a program whose tables may have changed since it was last evaluated.
    pub(crate) fn renew_identity(&mut self) {
        self.identity = OnceLock::new();
        self.net = OnceLock::new();
    }

    /// Whether `state` is terminal.
    pub fn terminal(&self, state: &[u64]) -> bool {
        self.with_values(state, None, |values, joint, _| self.holds(self.terminal, state, joint, values))
    }

    /// Fills `out[r]` with role `r`'s largest goal value in `state`, `None` when it has none.
    pub fn goals(&self, state: &[u64], out: &mut [Option<u32>]) {
        self.with_values(state, None, |values, joint, _| {
            for (slot, goals) in out.iter_mut().zip(&self.goals) {
                *slot = goals.iter().find(|&&(_, literal)| self.holds(literal, state, joint, values)).map(|&(v, _)| v);
            }
        })
    }

    /// Hands `f` the node values of `state`, and of the joint move when one is given with the
    /// nodes that read it, with the joint move that the move literals are to read. A program
    /// with a network keeps its values and outputs up to date per thread; another evaluates its
    /// values in passes, and has no outputs to give.
    fn with_values<T>(
        &self,
        state: &[u64],
        joint: Option<(&[u32], &[u32])>,
        f: impl FnOnce(&Values, &[u32], Option<Outputs<'_>>) -> T,
    ) -> T {
        let outcome = self.with_live(f, |live, net, f| {
            live.set_state(net.program(self), net, state);
            if let Some((moves, _)) = joint {
                live.set_joint(net.program(self), net, moves);
            }
            f(&live.values, &live.joint, Some(live.outputs(net)))
        });
        match outcome {
            Ok(answer) => answer,
            Err(f) => self.with_state(state, |values| self.answer_in_passes(state, joint, values, f)),
        }
    }

    /// Hands `f` this thread's incremental evaluation of the program, with `arg`; gives `arg`
    /// back when the program has no network, or in a nested call (none is made today).
    fn with_live<A, T>(&self, arg: A, f: impl FnOnce(&mut Live, &Net, A) -> T) -> Result<T, A> {
        thread_local! {
            static LIVE: RefCell<Vec<(u64, Live)>> = const { RefCell::new(Vec::new()) };
        }
        let Some(net) = self.net() else { return Err(arg) };
        LIVE.with(|cell| match cell.try_borrow_mut() {
            Ok(mut lives) => Ok(f(self.live(&mut lives, net), net, arg)),
            Err(_) => Err(arg),
        })
    }

    fn answer_in_passes<T>(
        &self,
        state: &[u64],
        joint: Option<(&[u32], &[u32])>,
        values: &mut Values,
        f: impl FnOnce(&Values, &[u32], Option<Outputs<'_>>) -> T,
    ) -> T {
        match joint {
            Some((moves, cone)) => {
                self.evaluate(state, moves, cone, values);
                f(values, moves, None)
            }
            None => f(values, &[], None),
        }
    }

    /// This thread's counts for this program, made when it has none: the two programs asked
    /// about last are kept.
    fn live<'a>(&self, lives: &'a mut Vec<(u64, Live)>, net: &Net) -> &'a mut Live {
        let me = self.identity();
        match lives.iter().position(|(id, _)| *id == me) {
            Some(k) => lives[..=k].rotate_right(1),
            None => {
                lives.truncate(1);
                lives.insert(0, (me, Live::new(net.program(self), net)));
            }
        }
        &mut lives[0].1
    }

    /// Hands `f` the node values of `state`: the nodes of the state cone are evaluated once
    /// per state and thread, and kept while the same program is asked about the same state
    /// (a playout asks `terminal`, then `legal` for every role, then `next`).
    fn with_state<T>(&self, state: &[u64], f: impl FnOnce(&mut Values) -> T) -> T {
        thread_local! {
            static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
        }
        CACHE.with(|cell| {
            let Ok(mut cache) = cell.try_borrow_mut() else {
                // A nested call (none is made today) evaluates into its own buffer.
                let mut values = Values::default();
                values.reset(self);
                self.evaluate(state, &[], &self.state_cone, &mut values);
                return f(&mut values);
            };
            let cache = &mut *cache;
            let me = self.identity();
            if cache.program != me || cache.state != state {
                cache.program = me;
                cache.state.clear();
                cache.state.extend_from_slice(state);
                cache.values.reset(self);
                self.evaluate(state, &[], &self.state_cone, &mut cache.values);
            }
            f(&mut cache.values)
        })
    }

    fn evaluate(&self, state: &[u64], joint: &[u32], cone: &[u32], values: &mut Values) {
        let mut i = 0;
        while i < cone.len() {
            let node = cone[i];
            match self.cycle_of(node) {
                None => {
                    values.nodes[node as usize] = self.node_holds(node, state, joint, values);
                    i += 1;
                }
                Some((_, end)) => {
                    let len = cone[i..].iter().take_while(|&&n| n < end).count();
                    let group = &cone[i..i + len];
                    for &n in group {
                        values.nodes[n as usize] = false;
                    }
                    loop {
                        let mut changed = false;
                        for &n in group {
                            if !values.nodes[n as usize] && self.node_holds(n, state, joint, values) {
                                values.nodes[n as usize] = true;
                                changed = true;
                            }
                        }
                        if !changed {
                            break;
                        }
                    }
                    i += len;
                }
            }
        }
    }

    fn identity(&self) -> u64 {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        *self.identity.get_or_init(|| NEXT.fetch_add(1, Ordering::Relaxed))
    }

    /// The recursive group that contains `node`, if any.
    fn cycle_of(&self, node: u32) -> Option<(u32, u32)> {
        let k = self.cycles.partition_point(|&(_, end)| end <= node);
        self.cycles.get(k).copied().filter(|&(start, _)| start <= node)
    }

    /// The rules of proposition `node`.
    fn rules_of(&self, node: u32) -> std::ops::Range<usize> {
        self.node_rules[node as usize] as usize..self.node_rules[node as usize + 1] as usize
    }

    /// The literals of rule `rule`.
    fn body(&self, rule: usize) -> &[u32] {
        &self.literals[self.rule_literals[rule] as usize..self.rule_literals[rule + 1] as usize]
    }

    fn node_holds(&self, node: u32, state: &[u64], joint: &[u32], values: &Values) -> bool {
        let rules = self.node_rules[node as usize] as usize..self.node_rules[node as usize + 1] as usize;
        rules.into_iter().any(|rule| {
            let literals = self.rule_literals[rule] as usize..self.rule_literals[rule + 1] as usize;
            self.literals[literals].iter().all(|&l| self.holds(l, state, joint, values))
        })
    }

    #[inline]
    fn holds(&self, code: u32, state: &[u64], joint: &[u32], values: &Values) -> bool {
        let index = (code & INDEX_MASK) as usize;
        let kind = kind_of(code);
        // Derived propositions and base facts are most literals: tested first, with branches
        // that follow the rules' pattern of kinds rather than one indirect jump for all kinds.
        let value = if kind == KIND_NODE {
            values.nodes[index]
        } else if kind == KIND_BASE {
            state.get(index / 64).is_some_and(|w| w >> (index % 64) & 1 != 0)
        } else {
            self.rare_holds(kind, index, state, joint, values)
        };
        value != (code & NEGATED != 0)
    }

    /// [`Program::holds`] for moves, checked atoms and constants.
    fn rare_holds(&self, kind: u32, index: usize, state: &[u64], joint: &[u32], values: &Values) -> bool {
        match kind {
            KIND_DOES => {
                let (role, m) = self.does[index];
                joint.get(role as usize) == Some(&m)
            }
            KIND_DEFERRED => values.check(&self.deferred, state, index),
            KIND_LAZY => values.ask(self, index, state, joint),
            _ => index == 1,
        }
    }
}

/// The node values of the last state a thread evaluated, and of which program.
#[derive(Default)]
struct Cache {
    program: u64,
    state: Vec<u64>,
    values: Values,
}

/// Reads the words of an encoded program.
struct Reader<'a> {
    words: &'a [u32],
    at: usize,
}

impl Reader<'_> {
    fn word(&mut self) -> Result<u32, String> {
        let w = *self.words.get(self.at).ok_or("the program table ends early")?;
        self.at += 1;
        Ok(w)
    }

    fn list(&mut self) -> Result<Vec<u32>, String> {
        let len = self.word()? as usize;
        let items = self.words.get(self.at..self.at + len).ok_or("the program table ends early")?;
        self.at += len;
        Ok(items.to_vec())
    }

    fn pairs(&mut self) -> Result<Vec<(u32, u32)>, String> {
        let len = self.word()? as usize;
        (0..len).map(|_| Ok((self.word()?, self.word()?))).collect()
    }
}

#[cfg(test)]
pub(crate) mod tests;
