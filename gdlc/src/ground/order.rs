//! The evaluation order of derived propositions (petgraph): strongly connected components of
//! the ground dependency graph, every component after those it depends on. A component with
//! a cycle is a recursive group, evaluated by iterating to its least fixpoint.

use super::Node;
use petgraph::algo::kosaraju_scc;
use petgraph::graph::{DiGraph, NodeIndex};

/// A strongly connected component of derived propositions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Component {
    /// Node indices, sorted.
    pub nodes: Vec<u32>,
    /// Whether the nodes depend on each other (or one on itself).
    pub cyclic: bool,
}

/// The components of `nodes` in evaluation order.
pub fn components(nodes: &[Node]) -> Vec<Component> {
    let mut graph: DiGraph<(), ()> = DiGraph::with_capacity(nodes.len(), 0);
    for _ in nodes {
        graph.add_node(());
    }
    let mut self_loop = vec![false; nodes.len()];
    for (head, node) in nodes.iter().enumerate() {
        for body in node.nodes_read() {
            if body as usize == head {
                self_loop[head] = true;
            }
            graph.add_edge(NodeIndex::new(body as usize), NodeIndex::new(head), ());
        }
    }
    // Kosaraju's algorithm is iterative (no stack overflow on long chains) and yields the
    // components in reverse topological order of the edges, which point from body to head.
    let mut sccs = kosaraju_scc(&graph);
    sccs.reverse();
    sccs.into_iter()
        .map(|scc| {
            let mut nodes: Vec<u32> = scc.into_iter().map(|n| n.index() as u32).collect();
            nodes.sort_unstable();
            let cyclic = nodes.len() > 1 || self_loop[nodes[0] as usize];
            Component { nodes, cyclic }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::{Lit, Prop};

    fn node(bodies: &[u32]) -> Node {
        Node { name: String::new(), rules: bodies.iter().map(|&b| vec![Lit::pos(Prop::Node(b))]).collect() }
    }

    #[test]
    fn dependencies_come_first_and_cycles_are_grouped() {
        // 0 <- 1, 1 <- 2 | 3, 2 <- 1, 3 <- (nothing), 4 <- 4.
        let nodes = vec![node(&[1]), node(&[2, 3]), node(&[1]), node(&[]), node(&[4])];
        let order = components(&nodes);
        let position = |n: u32| order.iter().position(|c| c.nodes.contains(&n)).unwrap();
        assert!(position(3) < position(1));
        assert!(position(1) < position(0));
        assert_eq!(position(1), position(2));
        let cycle = &order[position(1)];
        assert_eq!(cycle, &Component { nodes: vec![1, 2], cyclic: true });
        assert!(order[position(4)].cyclic);
        assert!(!order[position(3)].cyclic);
        assert_eq!(order.iter().map(|c| c.nodes.len()).sum::<usize>(), 5);
    }
}
