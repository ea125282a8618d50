//! Which derived propositions that read the joint move can hold only when a role plays one of
//! a few moves: reversi's flips, which hold only on the lines from the placed disc. `next` and
//! `random_step` evaluate such a node in the arms of a `match` on those moves, so that a step
//! evaluates the nodes of the moves played, not those of every move.
//!
//! The analysis is here: [`find`] gives every node's guard; `emit.rs` writes the arms.

mod emit;

use crate::ground::{Ground, Prop};

/// The most moves that may guard one node or rule: a node is written out once per move that
/// guards it.
pub(super) const MAX_GUARD_MOVES: usize = 16;

/// The most moves over all the rules of a node guarded rule by rule.
pub(super) const MAX_RULE_GUARD_MOVES: usize = 4 * MAX_GUARD_MOVES;

/// The fewest node evaluations (over all moves) that a role's arms must hold for them to be
/// generated: fewer are cheaper evaluated every step than dispatched to.
pub(super) const MIN_GUARDED: usize = 16;

/// The most values that the merge after one role's `match` may take: one per arm and node
/// the arms set. rustc's build time grows faster than the code past it: checkers' 639 arms of
/// 1,400 nodes (895k) took 830 s to build, where the same game without arms takes 66 s;
/// checkersTorus (50,176, just past the limit) built in 52 s rather than 38 s, and played 47%
/// faster; reversi (25k) builds as fast as without arms.
pub(super) const MAX_ARM_MERGES: usize = 50_000;

/// When a node that reads the joint move can hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Guard {
    /// Every rule needs role `role` to play one of `moves` (sorted): the node is evaluated
    /// whole in the arms of those moves, and is false after any other.
    Role { role: u32, moves: Vec<u32> },
    /// Every rule needs some role to play one of a few moves, but not all the same role: the
    /// arms of each rule's moves or its value into the node, which only nodes evaluated after
    /// all arms read.
    Rules(Vec<(u32, Vec<u32>)>),
}

impl Guard {
    /// The roles and moves of the guard: one pair for a node guarded by one role, one per rule
    /// for a node guarded rule by rule.
    fn parts(&self) -> Vec<(u32, &[u32])> {
        match self {
            Guard::Role { role, moves } => vec![(*role, moves)],
            Guard::Rules(rules) => rules.iter().map(|(role, moves)| (*role, moves.as_slice())).collect(),
        }
    }
}

/// The guards of the nodes of `after` (sorted, the nodes a step evaluates after the moves are
/// chosen), indexed by node; `None` for a node evaluated after the arms. `plain[n]` says that
/// node `n` is evaluated rule by rule (no word families or truth table), and `in_cycle[n]`
/// that it is in a recursive group, which is never guarded.
///
/// A rule is guarded by one of its positive literals: a move, or a node guarded by one role
/// (the one of fewest moves). An arm evaluates a rule only when every node of `after` that the
/// rule reads is guarded by the same role, so that the arm has computed it (or it is false).
/// A role whose arms would hold fewer than [`MIN_GUARDED`] evaluations, or whose `match` would
/// merge more than [`MAX_ARM_MERGES`] values, gets none.
pub(super) fn find(ground: &Ground, after: &[u32], plain: &[bool], in_cycle: &[bool]) -> Vec<Option<Guard>> {
    let mut in_after = vec![false; ground.nodes.len()];
    for &n in after {
        in_after[n as usize] = true;
    }
    let mut guards: Vec<Option<Guard>> = vec![None; ground.nodes.len()];
    for &n in after {
        if in_cycle[n as usize] || !plain[n as usize] {
            continue;
        }
        let rules = &ground.nodes[n as usize].rules;
        let by_rule: Option<Vec<(u32, Vec<u32>)>> =
            rules.iter().map(|rule| rule_guard(rule, &guards, &in_after)).collect();
        let Some(by_rule) = by_rule.filter(|r| !r.is_empty()) else { continue };
        let role = by_rule[0].0;
        guards[n as usize] = if by_rule.iter().all(|(r, _)| *r == role) {
            let mut moves: Vec<u32> = by_rule.into_iter().flat_map(|(_, moves)| moves).collect();
            moves.sort_unstable();
            moves.dedup();
            (moves.len() <= MAX_GUARD_MOVES).then_some(Guard::Role { role, moves })
        } else {
            // A rule is written once per move of its guard: a node with a rule for each of
            // many moves (a frame rule ground for every move that leaves a fact alone) is
            // evaluated in one expression, not spread over a `match` of hundreds of arms.
            let moves: usize = by_rule.iter().map(|(_, moves)| moves.len()).sum();
            (moves <= MAX_RULE_GUARD_MOVES).then_some(Guard::Rules(by_rule))
        };
    }
    // A role's arms are generated when they hold enough evaluations to be worth a dispatch,
    // and the merge after its `match`, which takes a value from every arm for every node its
    // arms set, stays within MAX_ARM_MERGES (past it, rustc's build time grows out of hand).
    let roles = ground.roles.len();
    let mut evaluations = vec![0usize; roles];
    let mut arms = vec![std::collections::BTreeSet::new(); roles];
    let mut nodes = vec![0usize; roles];
    for guard in guards.iter().flatten() {
        let parts = guard.parts();
        for &(role, moves) in &parts {
            evaluations[role as usize] += moves.len();
            arms[role as usize].extend(moves.iter().copied());
        }
        let mut roles_of: Vec<u32> = parts.iter().map(|&(role, _)| role).collect();
        roles_of.sort_unstable();
        roles_of.dedup();
        roles_of.into_iter().for_each(|role| nodes[role as usize] += 1);
    }
    let dropped: Vec<bool> =
        (0..roles).map(|r| evaluations[r] < MIN_GUARDED || arms[r].len() * nodes[r] > MAX_ARM_MERGES).collect();
    // A role's arms read only nodes guarded by that role, and a node guarded rule by rule is
    // read by none: dropping a role's guards leaves the others as they are.
    for guard in &mut guards {
        if guard.as_ref().is_some_and(|g| g.parts().iter().any(|&(role, _)| dropped[role as usize])) {
            *guard = None;
        }
    }
    guards
}

/// The role and moves one of which `rule` needs played, when its arms can evaluate it: the
/// fewest among its positive moves and nodes guarded by one role, provided that every node of
/// `after` it reads is guarded by that role.
fn rule_guard(rule: &[crate::ground::Lit], guards: &[Option<Guard>], in_after: &[bool]) -> Option<(u32, Vec<u32>)> {
    let mut best: Option<(u32, Vec<u32>)> = None;
    for lit in rule.iter().filter(|l| l.positive) {
        let candidate = match lit.prop {
            Prop::Does(r, m) => (r, vec![m]),
            Prop::Node(k) => match &guards[k as usize] {
                Some(Guard::Role { role, moves }) => (*role, moves.clone()),
                _ => continue,
            },
            _ => continue,
        };
        if best.as_ref().is_none_or(|b| candidate.1.len() < b.1.len()) {
            best = Some(candidate);
        }
    }
    let (role, moves) = best.filter(|(_, moves)| moves.len() <= MAX_GUARD_MOVES)?;
    let readable = rule.iter().all(|lit| match lit.prop {
        Prop::Node(k) if in_after[k as usize] => {
            matches!(&guards[k as usize], Some(Guard::Role { role: r, .. }) if *r == role)
        }
        _ => true,
    });
    readable.then_some((role, moves))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::{Lit, Node};

    fn node(name: &str, rules: Vec<Vec<Lit>>) -> Node {
        Node { name: name.to_string(), rules }
    }

    fn does(r: u32, m: u32) -> Lit {
        Lit::pos(Prop::Does(r, m))
    }

    fn at(n: u32) -> Lit {
        Lit::pos(Prop::Node(n))
    }

    /// A game of two roles with one base fact, whose nodes are then replaced by each test's.
    fn two_roles() -> Ground {
        let text = "(role a) (role b) (init c) (<= (legal a x) (true c)) (<= (legal b x) (true c))
            (<= (next c) (true c)) (<= terminal (true c)) (goal a 0) (goal b 0)";
        let description = crate::parse::parse(text, crate::parse::Syntax::Kif).description;
        crate::ground::ground(&description, &Default::default()).expect("grounds")
    }

    #[test]
    fn a_chain_from_a_move_is_guarded_by_the_moves_before_it() {
        let base = Lit::pos(Prop::Base(0));
        // A chain along role 0's moves 0..20, a node that reads it and role 1's move (a flip
        // of either colour), one that reads the state alone, and one that reads them all.
        let mut nodes = vec![node("(f 0)", vec![vec![base, does(0, 0)]])];
        for i in 1..20u32 {
            nodes.push(node(&format!("(f {i})"), vec![vec![base, does(0, i)], vec![base, at(i - 1)]]));
        }
        let either = nodes.len() as u32;
        nodes.push(node("either", vec![vec![at(2)], vec![does(1, 0)]]));
        let free = nodes.len() as u32;
        nodes.push(node("free", vec![vec![base]]));
        let all = nodes.len() as u32;
        nodes.push(node("all", vec![vec![at(either), at(free)], vec![at(3), Lit::pos(Prop::Node(free)).negated()]]));
        let ground = Ground { nodes, ..two_roles() };
        let after: Vec<u32> = (0..ground.nodes.len() as u32).filter(|&n| n != free).collect();
        let plain = vec![true; ground.nodes.len()];
        let in_cycle = vec![false; ground.nodes.len()];
        let guards = find(&ground, &after, &plain, &in_cycle);
        assert_eq!(guards[0], Some(Guard::Role { role: 0, moves: vec![0] }));
        assert_eq!(guards[3], Some(Guard::Role { role: 0, moves: vec![0, 1, 2, 3] }));
        // Past MAX_GUARD_MOVES moves, a node is evaluated after the arms, and so is what reads it.
        assert_eq!(guards[15], Some(Guard::Role { role: 0, moves: (0..16).collect() }));
        assert_eq!(guards[16], None);
        assert_eq!(guards[19], None);
        // Role 1 has one guarded evaluation, too few for arms of its own, so `either`'s rule
        // of its move leaves `either` unguarded; `all` reads it, so it is unguarded too.
        assert_eq!(guards[either as usize], None);
        assert_eq!(guards[all as usize], None);
    }

    #[test]
    fn a_node_read_after_the_arms_is_guarded_rule_by_rule() {
        let base = Lit::pos(Prop::Base(0));
        // Each role has a node for each of 16 moves; `flipped` reads one of each role's, and
        // `reads` reads `flipped`.
        let mut nodes = Vec::new();
        for role in 0..2 {
            for m in 0..16 {
                nodes.push(node(&format!("(f {role} {m})"), vec![vec![base, does(role, m)]]));
            }
        }
        let flipped = nodes.len();
        nodes.push(node("flipped", vec![vec![at(3)], vec![at(16 + 5)]]));
        let reads = nodes.len();
        nodes.push(node("reads", vec![vec![at(flipped as u32), base]]));
        let ground = Ground { nodes, ..two_roles() };
        let after: Vec<u32> = (0..ground.nodes.len() as u32).collect();
        let guards = find(&ground, &after, &vec![true; after.len()], &vec![false; after.len()]);
        assert_eq!(guards[16 + 5], Some(Guard::Role { role: 1, moves: vec![5] }));
        assert_eq!(guards[flipped], Some(Guard::Rules(vec![(0, vec![3]), (1, vec![5])])));
        // An arm cannot read a node that the arms of two roles set.
        assert_eq!(guards[reads], None);
    }
}
