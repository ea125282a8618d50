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
//! that `g` gates too, rules that read `g` themselves, and outputs, which the gate masks. A
//! proposition read elsewhere (by `terminal`, a goal, a percept, or negated by an output) is
//! not gated, and the gates are chosen again without it.

use super::net::NONE;
use super::{Program, INDEX_MASK, KIND_BASE, KIND_CONST, KIND_DEFERRED, KIND_NODE, KIND_SHIFT, NEGATED};
use std::sync::OnceLock;

/// A program whose propositions are gated: the rules of each gated proposition without its
/// gate's literal, and which fact gates each proposition.
pub(super) struct Gated {
    pub(super) program: Program,
    /// For every proposition, the base fact that gates it, or [`NONE`].
    pub(super) gate: Vec<u32>,
}

/// The gates of the propositions `members` of `program` (in increasing order; `group` gives
/// their recursive groups, whose propositions are not gated), among the base facts for which
/// `often` holds; `None` when no proposition is gated.
pub(super) fn gate(program: &Program, members: &[u32], group: &[u32], often: impl Fn(u32) -> bool) -> Option<Gated> {
    let mut kept_out = vec![false; group.len()];
    loop {
        let gate = propose(program, members, group, &often, &kept_out);
        let misread = misread(program, members, &gate);
        if misread.is_empty() {
            return gate.iter().any(|&g| g != NONE).then(|| Gated { program: without_gates(program, &gate), gate });
        }
        for n in misread {
            kept_out[n as usize] = true;
        }
    }
}

/// The code of the positive literal of base fact `fact`.
fn fact_code(fact: u32) -> u32 {
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
                match code >> KIND_SHIFT & 7 {
                    // A rule that asks a search of the state stays as it is: without its gate it
                    // would search in states where the gate does not hold.
                    KIND_DEFERRED => {
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

/// The gated propositions that something reads without knowing their gate to hold: a rule of
/// a proposition gated otherwise that does not read the gate itself, an output that reads one
/// negated, `terminal`, a goal or a percept.
fn misread(program: &Program, members: &[u32], gate: &[u32]) -> Vec<u32> {
    let gated = |code: u32| -> Option<u32> {
        let index = code & INDEX_MASK;
        (code >> KIND_SHIFT & 7 == KIND_NODE && gate[index as usize] != NONE).then_some(index)
    };
    let mut misread = Vec::new();
    for &n in members {
        for rule in program.rules_of(n) {
            let body = program.body(rule);
            for q in body.iter().filter_map(|&code| gated(code)) {
                let g = gate[q as usize];
                if gate[n as usize] != g && !body.contains(&fact_code(g)) {
                    misread.push(q);
                }
            }
        }
    }
    let slots = program.next.iter().chain(program.legal.iter().flatten().map(|(_, literal)| literal));
    misread.extend(slots.filter(|&&code| code & NEGATED != 0).filter_map(|&code| gated(code)));
    let elsewhere = program.goals.iter().chain(&program.sees).flatten().map(|&(_, literal)| literal);
    misread.extend(elsewhere.chain([program.terminal]).filter_map(gated));
    misread
}

/// `program` with the literal of each gated proposition's gate taken out of its rules (a rule
/// left with no literal reads the constant true).
fn without_gates(program: &Program, gate: &[u32]) -> Program {
    let mut gate_of_rule = vec![NONE; program.rule_literals.len() - 1];
    for (n, &g) in gate.iter().enumerate().filter(|&(_, &g)| g != NONE) {
        gate_of_rule[program.rules_of(n as u32)].fill(g);
    }
    let mut literals = Vec::with_capacity(program.literals.len());
    let mut rule_literals = Vec::with_capacity(program.rule_literals.len());
    rule_literals.push(0);
    for (rule, &g) in gate_of_rule.iter().enumerate() {
        let body = program.body(rule);
        let start = literals.len();
        literals.extend(body.iter().filter(|&&code| g == NONE || code != fact_code(g)));
        if literals.len() == start && !body.is_empty() {
            literals.push(KIND_CONST << KIND_SHIFT | 1);
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
    }
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

    fn gates_of(program: &Program) -> Vec<u32> {
        let gated = gate(program, &[0, 1, 2, 3], &[NONE; 4], |fact| fact == 0);
        gated.map_or(vec![NONE; 4], |gated| gated.gate)
    }

    /// The turn gates p0 (its literal), p1 (through p0) and p2; a proposition read where the
    /// turn is not known to hold is not gated, nor are those whose gate came through it.
    #[test]
    fn a_proposition_is_gated_where_every_reader_knows_its_gate_to_hold() {
        let never = literal_code(Literal::Const(false), true);
        let node = |i| literal_code(Literal::Node(i), true);
        assert_eq!(gates_of(&program(false, false, never)), [0, 0, 0, NONE]);
        assert_eq!(gates_of(&program(true, false, never)), [NONE, NONE, 0, NONE], "p3 reads not p0 without t");
        assert_eq!(gates_of(&program(false, false, node(1))), [NONE, NONE, 0, NONE], "terminal reads p1");
        assert_eq!(gates_of(&program(false, true, never)), [0, 0, NONE, NONE], "a move reads not p2");
        let gated = gate(&program(false, false, never), &[0, 1, 2, 3], &[NONE; 4], |fact| fact == 0);
        let rules: Vec<&[u32]> = gated.iter().flat_map(|g| (0..4).map(|rule| g.program.body(rule))).collect();
        let (a, p0, not_p1) = (literal_code(Literal::Base(1), true), node(0), literal_code(Literal::Node(1), false));
        assert_eq!(rules, [&[a][..], &[p0], &[not_p1], &[a]], "the rules without t");
    }
}
