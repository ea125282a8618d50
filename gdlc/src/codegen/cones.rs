//! Which derived propositions a set of outputs needs: the cone of influence that each
//! generated function evaluates, in evaluation order.

use crate::ground::{Ground, Lit, Prop, Value};

/// The dependencies between the nodes of a ground program.
pub struct Cones<'g> {
    ground: &'g Ground,
}

impl<'g> Cones<'g> {
    pub fn new(ground: &'g Ground) -> Self {
        Cones { ground }
    }

    /// The nodes that `values` depend on, sorted (the ground program's evaluation order).
    pub fn cone(&self, values: &[Value]) -> Vec<u32> {
        let mut seen = vec![false; self.ground.nodes.len()];
        let mut stack: Vec<u32> = values
            .iter()
            .filter_map(|v| match v {
                Value::Lit(Lit { prop: Prop::Node(n), .. }) => Some(*n),
                _ => None,
            })
            .collect();
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut seen[n as usize], true) {
                continue;
            }
            for lit in self.ground.nodes[n as usize].rules.iter().flatten() {
                if let Prop::Node(m) = lit.prop {
                    stack.push(m);
                }
            }
        }
        (0..self.ground.nodes.len() as u32).filter(|&n| seen[n as usize]).collect()
    }
}
