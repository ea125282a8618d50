//! Propositions asked for rather than kept: a proposition that the state alone decides (its
//! rules read base facts, run-time atoms and other such propositions) and that only rules
//! played by a move read (rules that read a move, or a proposition each of whose rules does,
//! positively) need not be kept up to date by the incremental evaluation at every change of
//! the state. It is searched for top-down when a rule that reads it has all its other
//! literals true, which happens when its move is played, and its value is kept until the state
//! changes. blobwars' neighbour counts (eight levels of rules a cell and a colour) are read only
//! by the score of a jump, at the jump's target: kept, a step changes some 300 propositions and
//! 2,700 counts; asked for, a step reads the counts of one cell.
//!
//! The program the network evaluates reads such a proposition through a literal of its own kind
//! ([`KIND_LAZY`]), which the network treats as an atom proved at run time (see
//! [`super::incremental`]): a rule that reads one counts its other literals, and asks for it
//! while those all hold.

use super::net::output_literals;
use super::{
    kind_of, Program, INDEX_MASK, KIND_BASE, KIND_CONST, KIND_DEFERRED, KIND_DOES, KIND_LAZY, KIND_NODE, KIND_SHIFT,
    NEGATED,
};

/// The longest chain of propositions asked for one through another, counting the first: the
/// search that answers them is recursive.
const DEPTH: u32 = 128;

/// The least share of a program's literals that the rules of its propositions asked for must
/// hold, as a divisor: fewer cannot pay for the second network's shaping and race (alexChess,
/// whose 36 such propositions hold a thousandth of its literals, took 4.0 s to set up instead
/// of 1.9 s).
const LEAST_SHARE: usize = 64;

/// `program` with its propositions asked for (see the module's documentation) read through
/// [`KIND_LAZY`] literals and left out of its cones; `None` when their rules hold less than
/// [`LEAST_SHARE`] of its literals.
pub(super) fn recode(program: &Program) -> Option<Program> {
    let lazy = asked_for(program);
    let asked = (0..lazy.len()).filter(|&n| lazy[n]).flat_map(|n| program.rules_of(n as u32));
    let literals: usize = asked.map(|rule| program.body(rule).len()).sum();
    if literals == 0 || literals * LEAST_SHARE < program.literals.len() {
        return None;
    }
    let mut recoded = program.clone();
    recoded.renew_identity();
    for code in &mut recoded.literals {
        if kind_of(*code) == KIND_NODE && lazy[(*code & INDEX_MASK) as usize] {
            *code = *code & NEGATED | KIND_LAZY << KIND_SHIFT | *code & INDEX_MASK;
        }
    }
    for cone in [&mut recoded.state_cone, &mut recoded.move_cone, &mut recoded.sees_cone] {
        cone.retain(|&n| !lazy[n as usize]);
    }
    recoded.lazy = true;
    Some(recoded)
}

/// For every proposition of `program`, whether it is asked for: decided by the state alone
/// through at most [`DEPTH`] propositions, outside recursive groups, read by no output or query,
/// and read by no rule the network evaluates but those of other such propositions and rules
/// played by a move.
fn asked_for(program: &Program) -> Vec<bool> {
    let nodes = program.node_rules.len() - 1;
    let mut grouped = vec![false; nodes];
    for &(start, end) in &program.cycles {
        grouped[start as usize..end as usize].fill(true);
    }
    let mut pinned = grouped.clone();
    let queries = program.goals.iter().chain(&program.sees).flatten().map(|&(_, code)| code);
    for code in output_literals(program).copied().chain([program.terminal]).chain(queries) {
        if kind_of(code) == KIND_NODE {
            pinned[(code & INDEX_MASK) as usize] = true;
        }
    }
    // Bottom up: how deep the chain of propositions asked for under each one is (0 for one
    // that is not asked for).
    let mut depth = vec![0u32; nodes];
    for n in 0..nodes {
        if pinned[n] {
            continue;
        }
        let mut deepest = 0;
        let by_state = program.rules_of(n as u32).flat_map(|rule| program.body(rule)).all(|&code| {
            let index = (code & INDEX_MASK) as usize;
            match kind_of(code) {
                KIND_BASE | KIND_CONST | KIND_DEFERRED => true,
                KIND_NODE if index < n && depth[index] > 0 => {
                    deepest = deepest.max(depth[index]);
                    true
                }
                _ => false,
            }
        });
        if by_state && deepest < DEPTH {
            depth[n] = deepest + 1;
        }
    }
    // Top down: a proposition the network evaluates that reads one asked for, but through a
    // rule played by a move, keeps it (a proposition reads only propositions numbered before
    // it, so one that is no longer asked for is met later, as a reader).
    let mut evaluated = vec![false; nodes];
    for &n in program.state_cone.iter().chain(&program.move_cone).chain(&program.sees_cone) {
        evaluated[n as usize] = true;
    }
    let moving = played_by_moves(program, &grouped);
    for m in (0..nodes).rev() {
        if depth[m] > 0 || !evaluated[m] {
            continue;
        }
        for rule in program.rules_of(m as u32) {
            let body = program.body(rule);
            if !grouped[m] && body.iter().any(|&code| played(code, &moving)) {
                continue;
            }
            for &code in body.iter().filter(|&&code| kind_of(code) == KIND_NODE) {
                depth[(code & INDEX_MASK) as usize] = 0;
            }
        }
    }
    depth.iter().map(|&d| d > 0).collect()
}

/// For every proposition, whether it holds only when some move is played: each of its rules
/// reads a move, or such a proposition, positively (blobwars' "a jump to this cell is played").
fn played_by_moves(program: &Program, grouped: &[bool]) -> Vec<bool> {
    let mut moving = vec![false; grouped.len()];
    for n in 0..grouped.len() {
        let mut rules = program.rules_of(n as u32).peekable();
        let has_rules = rules.peek().is_some();
        let each_played = rules.all(|rule| program.body(rule).iter().any(|&code| played(code, &moving)));
        moving[n] = has_rules && each_played && !grouped[n];
    }
    moving
}

/// Whether literal `code` reads a move, or a proposition of `moving`, positively: a rule that
/// reads it holds only when a move is played.
fn played(code: u32, moving: &[bool]) -> bool {
    let index = (code & INDEX_MASK) as usize;
    code & NEGATED == 0
        && (kind_of(code) == KIND_DOES || kind_of(code) == KIND_NODE && moving.get(index) == Some(&true))
}
