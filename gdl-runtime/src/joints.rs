//! The joint moves of a state, one move per role, enumerated in one fixed order (the last role's
//! move changing fastest) and numbered in it: what perft and the analysis walk both go through.

/// Calls `f` with every joint move of `legal` (one move per role), the last role's move
/// changing fastest, and the joint move's number in that order; stops early when `f` answers
/// `false`. Nothing is called when some role has no move.
pub(crate) fn for_each_joint<M: Clone>(legal: &[Vec<M>], mut f: impl FnMut(usize, &[M]) -> bool) {
    if legal.iter().any(Vec::is_empty) {
        return;
    }
    let mut choice = vec![0usize; legal.len()];
    let mut joint: Vec<M> = legal.iter().map(|m| m[0].clone()).collect();
    let mut number = 0;
    loop {
        if !f(number, &joint) {
            return;
        }
        number += 1;
        let Some(role) = (0..legal.len()).rev().find(|&r| choice[r] + 1 < legal[r].len()) else { return };
        choice[role] += 1;
        joint[role] = legal[role][choice[role]].clone();
        for later in role + 1..legal.len() {
            choice[later] = 0;
            joint[later] = legal[later][0].clone();
        }
    }
}

/// The choice of `role` in joint move number `number` of a state whose roles have `counts`
/// moves each, numbered as [`for_each_joint`] numbers them.
pub(crate) fn choice_of(counts: &[u32], number: usize, role: usize) -> usize {
    let stride: usize = counts[role + 1..].iter().map(|&c| c as usize).product();
    (number / stride) % counts[role] as usize
}
