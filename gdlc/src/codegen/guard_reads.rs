//! Which nodes a value reads only when a role's guard holds: chess's `terminal` reads
//! `(stuck white)`, which is `(control white)` and no legal move of white's, so white's whole
//! search for a legal move is needed only on white's turn. `random_step` computes such nodes
//! behind the guard, with the role's other guarded nodes, and not on the other roles' turns.

use crate::ground::{Ground, Lit, Prop, Value};

/// When a value needs a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Need {
    /// Whatever the guards.
    Always,
    /// Only when the guard of one of the roles holds, as bits (chess_200's second source of
    /// check, read by the search for a legal move of each side, on both sides' turns).
    Roles(u64),
}

impl Need {
    /// Only when role `role`'s guard holds; a role past the 64th is not told apart.
    fn role(role: usize) -> Need {
        match role < 64 {
            true => Need::Roles(1 << role),
            false => Need::Always,
        }
    }

    /// The need of a node needed both when `self` and when `other` says.
    fn join(self, other: Need) -> Need {
        match (self, other) {
            (Need::Roles(a), Need::Roles(b)) => Need::Roles(a | b),
            _ => Need::Always,
        }
    }

    /// The role whose guard alone the node is needed behind, when there is one.
    pub(super) fn only_role(self) -> Option<usize> {
        match self {
            Need::Roles(roles) if roles.count_ones() == 1 => Some(roles.trailing_zeros() as usize),
            _ => None,
        }
    }
}

/// When `values` need each node: `None` for the nodes they do not read. A node is needed only
/// under the guards of some roles when every rule through which it is reached has the guard of
/// one of them among its literals, or belongs to a node needed only under those guards. The nodes of one unit of
/// evaluation (`unit`: a group of node words, computed whole) share their need; the nodes for
/// which `given` holds (the move table's) are not followed. Nodes in recursive groups are
/// settled by iterating to a fixpoint.
pub(super) fn needs(
    ground: &Ground,
    values: &[Value],
    guards: &[Option<Lit>],
    unit: &[Option<u32>],
    given: impl Fn(u32) -> bool,
) -> Vec<Option<Need>> {
    let mut need: Vec<Option<Need>> = vec![None; ground.nodes.len()];
    for value in values {
        if let Value::Lit(Lit { prop: Prop::Node(n), .. }) = *value {
            need[n as usize] = Some(Need::Always);
        }
    }
    let units = unit.iter().flatten().max().map_or(0, |&u| u as usize + 1);
    loop {
        let before = need.clone();
        // Readers come after what they read, so one pass downwards settles a program without
        // cycles; the loop settles the rest.
        for n in (0..ground.nodes.len()).rev() {
            let Some(own) = need[n] else { continue };
            if given(n as u32) {
                continue;
            }
            for rule in &ground.nodes[n].rules {
                let through = match own {
                    Need::Always => guarded_by(rule, guards).map_or(Need::Always, Need::role),
                    role => role,
                };
                for lit in rule {
                    if let Prop::Node(m) = lit.prop {
                        let slot = &mut need[m as usize];
                        *slot = Some(slot.map_or(through, |had| had.join(through)));
                    }
                }
            }
        }
        let mut of_unit: Vec<Option<Need>> = vec![None; units];
        for (n, u) in unit.iter().enumerate() {
            if let (Some(u), Some(had)) = (u, need[n]) {
                let slot = &mut of_unit[*u as usize];
                *slot = Some(slot.map_or(had, |other| other.join(had)));
            }
        }
        for (n, u) in unit.iter().enumerate() {
            if let Some(u) = u {
                need[n] = of_unit[*u as usize].or(need[n]);
            }
        }
        if need == before {
            return need;
        }
    }
}

/// The role whose guard is a literal of `rule`, when one is (the first such role).
fn guarded_by(rule: &[Lit], guards: &[Option<Lit>]) -> Option<usize> {
    guards.iter().position(|guard| guard.is_some_and(|g| rule.contains(&g)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two roles taking turns; each has a legal move when its cell is open (blank or half
    /// full), and the game ends when the role to move has none.
    const TURNS: &str = "
        (role a) (role b)
        (init (control a)) (init (cell a blank)) (init (cell b blank))
        (<= (next (control b)) (true (control a)))
        (<= (next (control a)) (true (control b)))
        (<= (next (cell ?r full)) (does ?r fill) (true (cell ?r half)))
        (<= (next (cell ?r ?c)) (true (cell ?r ?c)) (not (does ?r fill)))
        (<= (open ?r) (true (cell ?r blank)))
        (<= (open ?r) (true (cell ?r half)))
        (<= (next (cell ?r half)) (does ?r fill) (true (cell ?r blank)))
        (<= (legal ?r fill) (true (control ?r)) (open ?r))
        (<= (legal ?r noop) (role ?r) (not (true (control ?r))))
        (<= (stuck ?r) (true (control ?r)) (not (open ?r)))
        (<= terminal (stuck ?r))
        (<= (goal ?r 50) (role ?r))";

    #[test]
    fn a_terminal_that_reads_a_roles_moves_on_its_turn_needs_them_only_then() {
        let ground = crate::compile::ground_source(TURNS, &Default::default()).expect("grounds");
        let index = |name: &str| ground.nodes.iter().position(|n| n.name == name).expect(name);
        let base = |name: &str| ground.base.iter().position(|b| b == name).expect(name) as u32;
        let guards: Vec<Option<Lit>> =
            ["(control a)", "(control b)"].iter().map(|c| Some(Lit::pos(Prop::Base(base(c))))).collect();
        let no_units = vec![None; ground.nodes.len()];
        let need = needs(&ground, &[ground.terminal], &guards, &no_units, |_| false);
        assert_eq!(need[index("(stuck a)")], Some(Need::Always));
        assert_eq!(need[index("(open a)")], Some(Need::Roles(0b01)));
        assert_eq!(need[index("(open b)")], Some(Need::Roles(0b10)));
        // Computed whole with `(open a)`, `(open b)` is needed on both turns, and on no other.
        let mut one_unit = no_units.clone();
        one_unit[index("(open a)")] = Some(0);
        one_unit[index("(open b)")] = Some(0);
        let need = needs(&ground, &[ground.terminal], &guards, &one_unit, |_| false);
        assert_eq!(need[index("(open b)")], Some(Need::Roles(0b11)));
        // Without guards, everything the terminal reads is needed always.
        let need = needs(&ground, &[ground.terminal], &[None, None], &no_units, |_| false);
        assert_eq!(need[index("(open a)")], Some(Need::Always));
    }
}
