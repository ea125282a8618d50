//! Turn gates: a proposition every rule of which needs one base fact that changes at most steps
//! (whose turn it is, in a board game) is evaluated as if that fact held, and the fact is
//! applied only where the proposition is read. A role's legal moves all read whose turn it is:
//! counted on it, every move's rule is touched when the turn passes, twice a step, though the
//! moves that would be legal change little. Gated, a move's rule counts its other literals,
//! and the turn masks the role's legal moves a word at a time (see [`super::net::Net`]).
//!
//! A proposition `p` gated by fact `g` holds `p°`, its value were `g` true, so that `p` is
//! `g ∧ p°`. Its gate may come from the rules' literal `g` itself or from a proposition they
//! read that `g` gates (a player has a legal move when one of its moves, all gated, is legal).
//! Every reader of `p` must know `g` to be true where it reads `p°`: the rules of a proposition
//! that `g` gates too, rules that read `g` themselves, and outputs, which the gate masks. A rule
//! of another proposition outside recursive groups reads `g` as well (`g ∧ p°` is `p`). A
//! proposition read elsewhere (by `terminal`, a goal, a percept, a recursive group, or negated
//! by an output) is not gated, and the gates are chosen again without it.
//!
//! A proposition that is not gated but has many rules that read a gate `h` (a player has a
//! legal move: the rules of its every move, and the one of its move when it is not its turn)
//! is mixed: those rules are counted without `h` apart from the others, and the proposition
//! holds when one of the others does, or `h` holds and one of them does (see
//! [`super::net::Net`]).

use super::net::{is_deferred, output_literals, NONE};
use super::{
    kind_of, Program, INDEX_MASK, KIND_BASE, KIND_CONST, KIND_DEFERRED, KIND_LAZY, KIND_NODE, KIND_SHIFT, NEGATED,
};
use std::sync::OnceLock;

/// A program whose propositions are gated: the rules of each gated proposition without its
/// gate's literal (and rules of other propositions that read a gated one with the gate), which
/// fact gates each proposition, and which mixes it.
pub(super) struct Gated {
    pub(super) program: Program,
    /// For every proposition, the base fact that gates it, or [`NONE`].
    pub(super) gate: Vec<u32>,
    /// For every proposition, the base fact whose rules it counts apart, or [`NONE`].
    pub(super) mixed: Vec<u32>,
}

/// A gate given to a rule of proposition `node` that reads proposition `read`, which it gates.
struct Added {
    rule: usize,
    gate: u32,
    read: u32,
    node: u32,
}

/// The fewest rules that read one gate for their proposition to count them apart: a change of
/// the gate then queues the proposition once instead of touching each rule, but a proposition
/// with fewer rules costs more queued than counted (alexChess, 2,956 propositions of 16 to 63
/// such rules: 12% slower mixed).
pub(super) const MIXED_RULES: usize = 64;

/// The gates of the propositions `members` of `program` (in increasing order; `group` gives
/// their recursive groups, whose propositions are not gated), among the base facts for which
/// `often` holds; `None` when no proposition is gated.
pub(super) fn gate(program: &Program, members: &[u32], group: &[u32], often: impl Fn(u32) -> bool) -> Option<Gated> {
    let mut kept_out = vec![false; group.len()];
    loop {
        let gate = propose(program, members, group, &often, &kept_out);
        let (mut misread, added) = readers(program, members, group, &gate);
        if misread.is_empty() {
            if gate.iter().all(|&g| g == NONE) {
                return None;
            }
            let rules = added.iter().map(|added| (added.rule, added.gate)).collect();
            let rewritten = rewritten(program, &gate, rules);
            let mixed = mixed(&rewritten, members, group, &gate, &often);
            // A gate given to a rule pays only where its proposition counts the rule apart;
            // elsewhere it would be counted as a literal, and the proposition read is not gated.
            misread
                .extend(added.iter().filter(|added| mixed[added.node as usize] != added.gate).map(|added| added.read));
            if misread.is_empty() {
                return Some(Gated { program: rewritten, gate, mixed });
            }
        }
        for n in misread {
            kept_out[n as usize] = true;
        }
    }
}

/// Whether some proposition of `members` could be gated were every fact to change often: a
/// cheap test before a sample tells which facts do.
pub(super) fn any_candidate(program: &Program, members: &[u32], group: &[u32]) -> bool {
    propose(program, members, group, &|_| true, &vec![false; group.len()]).iter().any(|&g| g != NONE)
}

/// The code of the constant true, which a rule left with no literal reads.
pub(super) const ALWAYS: u32 = KIND_CONST << KIND_SHIFT | 1;

/// The code of the positive literal of base fact `fact`.
pub(super) fn fact_code(fact: u32) -> u32 {
    KIND_BASE << KIND_SHIFT | fact
}

/// The gate of every proposition of `members` not `kept_out`, in evaluation order: a fact for
/// which `often` holds that every rule reads, itself or through a proposition it gates (the
/// smallest, when there are several), or [`NONE`].
fn propose(
    program: &Program,
    members: &[u32],
    group: &[u32],
    often: &impl Fn(u32) -> bool,
    kept_out: &[bool],
) -> Vec<u32> {
    let mut gate = vec![NONE; group.len()];
    let mut common: Vec<u32> = Vec::new();
    let mut of_rule: Vec<u32> = Vec::new();
    for &n in members {
        if kept_out[n as usize] || group[n as usize] != NONE {
            continue;
        }
        common.clear();
        for (k, rule) in program.rules_of(n).enumerate() {
            of_rule.clear();
            for &code in program.body(rule) {
                let index = code & INDEX_MASK;
                match kind_of(code) {
                    // A rule that asks a search of the state stays as it is: without its gate it
                    // would search in states where the gate does not hold.
                    KIND_DEFERRED | KIND_LAZY => {
                        of_rule.clear();
                        break;
                    }
                    _ if code & NEGATED != 0 => {}
                    KIND_BASE if often(index) => of_rule.push(index),
                    KIND_NODE if gate[index as usize] != NONE => of_rule.push(gate[index as usize]),
                    _ => {}
                }
            }
            if k == 0 {
                common.extend_from_slice(&of_rule);
            } else {
                common.retain(|g| of_rule.contains(g));
            }
            if common.is_empty() {
                break;
            }
        }
        gate[n as usize] = common.iter().copied().min().unwrap_or(NONE);
    }
    gate
}

/// The gated propositions that something reads without knowing their gate to hold (a rule of
/// a recursive group, of a proposition gated otherwise or that asks a search of the state and
/// does not read the gate itself, an output that reads one negated, `terminal`, a goal or a
/// percept); and the rules of propositions outside recursive groups that read one without its
/// gate, with the gate they are to read, the proposition read and their own.
fn readers(program: &Program, members: &[u32], group: &[u32], gate: &[u32]) -> (Vec<u32>, Vec<Added>) {
    let gated = |code: u32| -> Option<u32> {
        let index = code & INDEX_MASK;
        (kind_of(code) == KIND_NODE && gate[index as usize] != NONE).then_some(index)
    };
    let (mut misread, mut added) = (Vec::new(), Vec::new());
    for &n in members {
        let free = gate[n as usize] == NONE && group[n as usize] == NONE;
        for rule in program.rules_of(n) {
            let body = program.body(rule);
            let searches = body.iter().any(|&code| is_deferred(code));
            for q in body.iter().filter_map(|&code| gated(code)) {
                let g = gate[q as usize];
                if gate[n as usize] == g || body.contains(&fact_code(g)) {
                    continue;
                }
                match free && !searches {
                    true => added.push(Added { rule, gate: g, read: q, node: n }),
                    false => misread.push(q),
                }
            }
        }
    }
    let slots = output_literals(program);
    misread.extend(slots.filter(|&&code| code & NEGATED != 0).filter_map(|&code| gated(code)));
    let elsewhere = program.goals.iter().chain(&program.sees).flatten().map(|&(_, literal)| literal);
    misread.extend(elsewhere.chain([program.terminal]).filter_map(gated));
    (misread, added)
}

/// `program` with the literal of each gated proposition's gate taken out of its rules (a rule
/// left with no literal reads the constant true), and the gates `added` to rules.
fn rewritten(program: &Program, gate: &[u32], mut added: Vec<(usize, u32)>) -> Program {
    let mut gate_of_rule = vec![NONE; program.rule_literals.len() - 1];
    for (n, &g) in gate.iter().enumerate().filter(|&(_, &g)| g != NONE) {
        gate_of_rule[program.rules_of(n as u32)].fill(g);
    }
    added.sort_unstable();
    added.dedup();
    let mut added = added.into_iter().peekable();
    let mut literals = Vec::with_capacity(program.literals.len());
    let mut rule_literals = Vec::with_capacity(program.rule_literals.len());
    rule_literals.push(0);
    for (rule, &g) in gate_of_rule.iter().enumerate() {
        let body = program.body(rule);
        let start = literals.len();
        literals.extend(body.iter().filter(|&&code| g == NONE || code != fact_code(g)));
        while let Some((_, fact)) = added.next_if(|&(r, _)| r == rule) {
            literals.push(fact_code(fact));
        }
        if literals.len() == start && !body.is_empty() {
            literals.push(ALWAYS);
        }
        rule_literals.push(literals.len() as u32);
    }
    Program {
        rule_literals,
        literals,
        node_rules: program.node_rules.clone(),
        does: program.does.clone(),
        cycles: program.cycles.clone(),
        state_cone: program.state_cone.clone(),
        move_cone: program.move_cone.clone(),
        legal: program.legal.clone(),
        next: program.next.clone(),
        terminal: program.terminal,
        goals: program.goals.clone(),
        sees: program.sees.clone(),
        sees_cone: program.sees_cone.clone(),
        deferred: program.deferred.clone(),
        initial: program.initial.clone(),
        identity: OnceLock::new(),
        net: OnceLock::new(),
        lazy: program.lazy,
    }
}

/// For every proposition of `members` neither gated nor in a recursive group, the fact for
/// which `often` holds that the most of its rules read (at least [`MIXED_RULES`], not counting
/// rules that ask a search of the state), or [`NONE`].
fn mixed(program: &Program, members: &[u32], group: &[u32], gate: &[u32], often: &impl Fn(u32) -> bool) -> Vec<u32> {
    let mut mixed = vec![NONE; group.len()];
    let mut facts: Vec<u32> = Vec::new();
    for &n in members.iter().filter(|&&n| gate[n as usize] == NONE && group[n as usize] == NONE) {
        if program.rules_of(n).len() < MIXED_RULES {
            continue;
        }
        facts.clear();
        for rule in program.rules_of(n) {
            let body = program.body(rule);
            if body.iter().any(|&code| is_deferred(code)) {
                continue;
            }
            facts.extend(
                body.iter()
                    .filter(|&&code| kind_of(code) == KIND_BASE && code & NEGATED == 0 && often(code & INDEX_MASK)),
            );
        }
        facts.sort_unstable();
        let runs = facts.chunk_by(|a, b| a == b);
        if let Some(run) =
            runs.max_by_key(|run| (run.len(), std::cmp::Reverse(run[0]))).filter(|run| run.len() >= MIXED_RULES)
        {
            mixed[n as usize] = run[0] & INDEX_MASK;
        }
    }
    mixed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{literal_code, Literal};

    /// Facts t (0, the turn) and a (1); p0 :- t, a. p1 :- p0. p2 :- t, not p1. p3 :- a, and
    /// with `p3_reads_p0` not p0 too. Move 0 is legal when p2 holds (negated with `negated_move`),
    /// move 1 when p1 does; next a is p3; `terminal` as given.
    fn program(p3_reads_p0: bool, negated_move: bool, terminal: u32) -> Program {
        let base = |i| literal_code(Literal::Base(i), true);
        let node = |i, positive| literal_code(Literal::Node(i), positive);
        let p3 = if p3_reads_p0 { vec![base(1), node(0, false)] } else { vec![base(1)] };
        let mut p = Program::default();
        p.node_rules.push(0);
        p.rule_literals.push(0);
        for rule in [vec![base(0), base(1)], vec![node(0, true)], vec![base(0), node(1, false)], p3] {
            p.literals.extend(rule);
            p.rule_literals.push(p.literals.len() as u32);
            p.node_rules.push(p.rule_literals.len() as u32 - 1);
        }
        p.state_cone = vec![0, 1, 2, 3];
        p.legal = vec![vec![(0, node(2, !negated_move)), (1, node(1, true))]];
        p.next = vec![base(0), node(3, true)];
        p.terminal = terminal;
        p
    }

    fn gated(program: &Program, group: &[u32]) -> Option<Gated> {
        gate(program, &[0, 1, 2, 3], group, |fact| fact == 0)
    }

    fn gates_of(program: &Program, group: &[u32]) -> Vec<u32> {
        gated(program, group).map_or(vec![NONE; 4], |gated| gated.gate)
    }

    /// The turn gates p0 (its literal), p1 (through p0) and p2; a proposition read without its
    /// gate (by a rule of a proposition not mixed on it) is not gated, nor are those whose gate
    /// came through it.
    #[test]
    fn a_proposition_is_gated_where_every_reader_knows_its_gate_to_hold() {
        let never = literal_code(Literal::Const(false), true);
        let node = |i, positive| literal_code(Literal::Node(i), positive);
        let a = literal_code(Literal::Base(1), true);
        let free = [NONE; 4];
        assert_eq!(gates_of(&program(false, false, never), &free), [0, 0, 0, NONE]);
        let rules = |gated: Option<Gated>| -> Vec<Vec<u32>> {
            gated.map_or(Vec::new(), |gated| (0..4).map(|rule| gated.program.body(rule).to_vec()).collect())
        };
        let without_t = rules(gated(&program(false, false, never), &free));
        assert_eq!(without_t, [vec![a], vec![node(0, true)], vec![node(1, false)], vec![a]]);
        assert_eq!(gates_of(&program(true, false, never), &free), [NONE, NONE, 0, NONE], "p3 reads not p0");
        let recursive = [NONE, NONE, NONE, 3];
        assert_eq!(gates_of(&program(true, false, never), &recursive), [NONE, NONE, 0, NONE], "p3 recursive");
        assert_eq!(gates_of(&program(false, false, node(1, true)), &free), [NONE, NONE, 0, NONE], "terminal reads p1");
        assert_eq!(gates_of(&program(false, true, never), &free), [0, 0, NONE, NONE], "a move reads not p2");
    }

    /// A proposition with many rules that read the turn, some of them through propositions it
    /// gates, and one that does not, is mixed.
    #[test]
    fn a_proposition_with_many_rules_that_need_the_turn_is_mixed() {
        let program = crate::program::tests::mixed_turns();
        let members: Vec<u32> = (0..=MIXED_RULES as u32).collect();
        let gated = gate(&program, &members, &vec![NONE; members.len()], |fact| fact == 0);
        let h = MIXED_RULES;
        let t = literal_code(Literal::Base(0), true);
        let rules = gated.as_ref().map_or(0..0, |gated| gated.program.rules_of(h as u32));
        let with_t = rules.filter(|&rule| gated.as_ref().is_some_and(|gated| gated.program.body(rule).contains(&t)));
        assert_eq!(with_t.count(), MIXED_RULES, "h's rules that read a gated proposition read t");
        let mixed = gated.map(|gated| gated.mixed);
        assert_eq!(mixed.as_ref().map(|mixed| mixed[h]), Some(0), "h is mixed on t");
        assert!(mixed.is_some_and(|mixed| mixed[..h].iter().all(|&fact| fact == NONE)));
    }
}
