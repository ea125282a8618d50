//! Which derived propositions a set of outputs needs: the cone of influence that each
//! generated function evaluates, in evaluation order; and which nodes are recursive or read
//! the joint move.

use crate::ground::{Ground, Prop, Value};

/// The dependencies between the nodes of a ground program.
pub(super) struct Cones<'g> {
    ground: &'g Ground,
}

impl<'g> Cones<'g> {
    pub(super) fn new(ground: &'g Ground) -> Self {
        Cones { ground }
    }

    /// The nodes that `values` depend on, sorted (the ground program's evaluation order).
    pub(super) fn cone(&self, values: &[Value]) -> Vec<u32> {
        self.cone_through(values, |_| true)
    }

    /// The nodes that `values` reach, sorted, following the rules of only the nodes for which
    /// `descend` holds (the others are reached, but what they read is not).
    pub(super) fn cone_through(&self, values: &[Value], descend: impl Fn(u32) -> bool) -> Vec<u32> {
        crate::ground::cone::cone_through(self.ground, values, descend)
    }
}

/// For every node, whether its value can depend on the joint move: it reads a move, or a node
/// that does. A checked relation reads the state alone.
pub(super) fn reads_moves(ground: &Ground) -> Vec<bool> {
    let mut reads: Vec<bool> = ground
        .nodes
        .iter()
        .map(|node| node.rules.iter().flatten().any(|lit| matches!(lit.prop, Prop::Does(..))))
        .collect();
    mark_readers(ground, &mut reads);
    reads
}

/// Marks every node that reads a marked node, until nothing changes.
pub(super) fn mark_readers(ground: &Ground, marked: &mut [bool]) {
    // Nodes come in evaluation order, so one pass settles all but recursive groups, whose
    // members may come before what they depend on; repeat until nothing changes.
    let mut changed = true;
    while changed {
        changed = false;
        for (n, node) in ground.nodes.iter().enumerate() {
            if !marked[n]
                && node.rules.iter().flatten().any(|lit| matches!(lit.prop, Prop::Node(m) if marked[m as usize]))
            {
                marked[n] = true;
                changed = true;
            }
        }
    }
}
