//! Termination (Def. 21): a cycle of non-terminal states reachable from the initial state is
//! an infinite sequence of legal moves that never reaches a terminal state. A depth-first
//! search over the expanded non-terminal nodes finds one when the graph has one; the line to
//! it is the search's path, then the edge back to the state the loop starts from.

use super::explore::{Graph, NONE};

/// A line from the initial state around a cycle of non-terminal states, as `(node, number)`
/// steps, with the step at which the loop starts; `None` when the expanded graph has none.
pub(crate) fn find_cycle(graph: &Graph) -> Option<(Vec<(u32, u32)>, usize)> {
    let expanded = graph.expanded();
    let open = |node: u32| node != NONE && (node as usize) < expanded && !graph.terminal[node as usize];
    if !open(0) {
        return None;
    }
    // 0: not visited; 1: on the path; 2: done.
    let mut colour = vec![0u8; expanded];
    colour[0] = 1;
    // Each node of the path and the number of the next edge to follow from it.
    let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
    while let Some(top) = stack.last_mut() {
        let (node, cursor) = *top;
        let edges = graph.edges_of(node as usize);
        if cursor == edges.len() {
            colour[node as usize] = 2;
            stack.pop();
            continue;
        }
        top.1 += 1;
        let target = edges[cursor];
        if !open(target) {
            continue;
        }
        match colour[target as usize] {
            0 => {
                colour[target as usize] = 1;
                stack.push((target, 0));
            }
            1 => {
                let from = stack.iter().position(|&(n, _)| n == target).unwrap_or(0);
                let line = stack.iter().map(|&(n, next)| (n, (next - 1) as u32)).collect();
                return Some((line, from));
            }
            _ => {}
        }
    }
    None
}
