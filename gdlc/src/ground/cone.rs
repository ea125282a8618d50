//! The cone of influence of a ground program's values: the derived propositions they read,
//! directly or through other propositions, in evaluation order. Code generation writes each
//! function over its cone; the unreachable-facts pass evaluates abstract states over them.

use super::{Ground, Lit, Prop, Value};

/// The nodes that `values` depend on, sorted (the ground program's evaluation order).
pub(crate) fn cone<'a>(ground: &Ground, values: impl IntoIterator<Item = &'a Value>) -> Vec<u32> {
    cone_through(ground, values, |_| true)
}

/// The nodes that `values` reach, sorted, following the rules of only the nodes for which
/// `descend` holds (the others are reached, but what they read is not).
pub(crate) fn cone_through<'a>(
    ground: &Ground,
    values: impl IntoIterator<Item = &'a Value>,
    descend: impl Fn(u32) -> bool,
) -> Vec<u32> {
    let roots = values.into_iter().filter_map(|v| match v {
        Value::Lit(Lit { prop: Prop::Node(n), .. }) => Some(*n),
        _ => None,
    });
    let mut reached = Vec::new();
    ConeWalk::new(ground.nodes.len()).walk(ground, roots, descend, |n| reached.push(n));
    reached.sort_unstable();
    reached
}

/// A walk over the nodes that some roots reach, made again and again from other roots: the
/// nodes of each walk are stamped with its number, so that a walk costs the size of its cone,
/// with nothing allocated or cleared between walks.
pub(crate) struct ConeWalk {
    stamp: Vec<usize>,
    walks: usize,
    stack: Vec<u32>,
}

impl ConeWalk {
    /// A walker over a ground program of `nodes` nodes.
    pub(crate) fn new(nodes: usize) -> Self {
        ConeWalk { stamp: vec![usize::MAX; nodes], walks: 0, stack: Vec::new() }
    }

    /// Calls `visit` once with every node that `roots` reach in `ground`, following the rules of
    /// only the nodes for which `descend` holds (the others are visited, but what they read is
    /// not).
    pub(crate) fn walk(
        &mut self,
        ground: &Ground,
        roots: impl IntoIterator<Item = u32>,
        descend: impl Fn(u32) -> bool,
        mut visit: impl FnMut(u32),
    ) {
        let walk = self.walks;
        self.walks += 1;
        self.stack.extend(roots);
        while let Some(n) = self.stack.pop() {
            if std::mem::replace(&mut self.stamp[n as usize], walk) == walk {
                continue;
            }
            visit(n);
            if !descend(n) {
                continue;
            }
            self.stack.extend(ground.nodes[n as usize].rules.iter().flatten().filter_map(|lit| match lit.prop {
                Prop::Node(m) => Some(m),
                _ => None,
            }));
        }
    }
}
