//! The order of evaluation around node words (petgraph): each group of
//! [`super::node_words`] is evaluated whole, so it is one unit beside the recursive groups and
//! the single nodes, and the units must be ordered so that each comes after every unit it reads.
//! Groups that hold the nodes of one recursive group between them are evaluated together, in
//! one loop to their least fixpoint, so they are one unit.

use crate::ground::{Ground, Prop};
use petgraph::graph::{DiGraph, NodeIndex};
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

/// For every group, the first of the groups it is evaluated with: groups that hold nodes of one
/// recursive group of the ground program are evaluated together.
pub(super) fn joined(ground: &Ground, member: &[Option<(u32, u32)>], groups: usize) -> Vec<usize> {
    let mut first: Vec<usize> = (0..groups).collect();
    loop {
        let mut changed = false;
        for &(start, end) in &ground.cycles {
            let held: BTreeSet<usize> =
                member[start as usize..end as usize].iter().flatten().map(|&(g, _)| first[g as usize]).collect();
            let Some(&lowest) = held.first() else { continue };
            for f in first.iter_mut() {
                if held.contains(f) && *f != lowest {
                    *f = lowest;
                    changed = true;
                }
            }
        }
        if !changed {
            return first;
        }
    }
}

/// The groups that hold some nodes of a recursive group of the ground program whose other
/// nodes are in no group: the loop of the groups cannot evaluate those.
pub(super) fn partial_cycles(ground: &Ground, member: &[Option<(u32, u32)>]) -> BTreeSet<usize> {
    let mut partial = BTreeSet::new();
    for &(start, end) in &ground.cycles {
        let held = &member[start as usize..end as usize];
        if held.iter().any(Option::is_none) {
            partial.extend(held.iter().flatten().map(|&(g, _)| g as usize));
        }
    }
    partial
}

/// The unit every node is evaluated in: its group (the first of the groups it is evaluated
/// with, as [`joined`] gives it), its recursive group, or itself.
fn units(ground: &Ground, member: &[Option<(u32, u32)>], first: &[usize]) -> Vec<usize> {
    let groups = first.len();
    let mut unit: Vec<usize> = (ground.cycle_of().into_iter().enumerate())
        .map(|(i, cycle)| match cycle {
            Some(c) => groups + c,
            None => groups + ground.cycles.len() + i,
        })
        .collect();
    for (i, m) in member.iter().enumerate() {
        if let Some((g, _)) = m {
            unit[i] = first[*g as usize];
        }
    }
    unit
}

/// The edges between units: from each unit a node reads to the node's.
fn unit_edges(ground: &Ground, unit: &[usize]) -> BTreeSet<(usize, usize)> {
    let mut edges = BTreeSet::new();
    for (i, node) in ground.nodes.iter().enumerate() {
        for lit in node.rules.iter().flatten() {
            if let Prop::Node(m) = lit.prop {
                if unit[m as usize] != unit[i] {
                    edges.insert((unit[m as usize], unit[i]));
                }
            }
        }
    }
    edges
}

/// The groups that some other unit both reads and is read by (through a chain of nodes), so
/// that no order evaluates them whole.
pub(super) fn entangled(ground: &Ground, member: &[Option<(u32, u32)>], groups: usize) -> BTreeSet<usize> {
    let first = joined(ground, member, groups);
    let unit = units(ground, member, &first);
    let count = groups + ground.cycles.len() + ground.nodes.len();
    let mut graph: DiGraph<(), ()> = DiGraph::with_capacity(count, 0);
    for _ in 0..count {
        graph.add_node(());
    }
    for (from, to) in unit_edges(ground, &unit) {
        graph.add_edge(NodeIndex::new(from), NodeIndex::new(to), ());
    }
    petgraph::algo::kosaraju_scc(&graph)
        .into_iter()
        .filter(|scc| scc.len() > 1)
        .flatten()
        .map(NodeIndex::index)
        .filter(|&u| u < groups)
        .flat_map(|u| first.iter().enumerate().filter(move |&(_, &f)| f == u).map(|(g, _)| g))
        .collect()
}

/// Every node's place in an order of the units that follows their edges, taking among the
/// units ready the one with the first node, so that the order stays close to the ground
/// program's.
pub(super) fn rank(ground: &Ground, member: &[Option<(u32, u32)>], groups: usize) -> Vec<u32> {
    let unit = units(ground, member, &joined(ground, member, groups));
    let count = groups + ground.cycles.len() + ground.nodes.len();
    let mut nodes_of: Vec<Vec<u32>> = vec![Vec::new(); count];
    for (i, &u) in unit.iter().enumerate() {
        nodes_of[u].push(i as u32);
    }
    let mut waiting = vec![0usize; count];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (from, to) in unit_edges(ground, &unit) {
        waiting[to] += 1;
        readers[from].push(to);
    }
    let mut ready: BinaryHeap<Reverse<(u32, usize)>> = (0..count)
        .filter(|&u| waiting[u] == 0 && !nodes_of[u].is_empty())
        .map(|u| Reverse((nodes_of[u][0], u)))
        .collect();
    let mut rank = vec![0u32; ground.nodes.len()];
    let mut next = 0u32;
    while let Some(Reverse((_, u))) = ready.pop() {
        for &i in &nodes_of[u] {
            rank[i as usize] = next;
            next += 1;
        }
        for &r in &readers[u] {
            waiting[r] -= 1;
            if waiting[r] == 0 {
                ready.push(Reverse((nodes_of[r][0], r)));
            }
        }
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::{Lit, Node};

    /// A one-role game whose nodes are replaced by `reads`: node `i` has one rule reading the
    /// nodes `reads[i]`.
    fn ground_of(reads: &[&[u32]]) -> Ground {
        let text =
            "(role a) (init c) (<= (legal a x) (true c)) (<= (next c) (true c)) (<= terminal (true c)) (goal a 0)";
        let description = crate::parse::parse(text, crate::parse::Syntax::Kif).description;
        let mut ground = crate::ground::ground(&description, &Default::default()).expect("grounds");
        ground.nodes = reads
            .iter()
            .enumerate()
            .map(|(i, reads)| Node {
                name: format!("(n {i})"),
                rules: vec![reads.iter().map(|&m| Lit::pos(Prop::Node(m))).collect()],
            })
            .collect();
        ground.cycles = Vec::new();
        ground
    }

    /// Group 0 holds `members`, each at its own place.
    fn grouped(nodes: usize, members: &[usize]) -> Vec<Option<(u32, u32)>> {
        let mut member = vec![None; nodes];
        for (place, &m) in members.iter().enumerate() {
            member[m] = Some((0, place as u32));
        }
        member
    }

    #[test]
    fn a_group_comes_whole_after_what_it_reads() {
        // 1 and 2 read 0; 3 reads 1 and 2; 4 reads 0 and comes between them in the ground order.
        let ground = ground_of(&[&[], &[0], &[0], &[1, 2], &[0]]);
        let member = grouped(5, &[1, 3]);
        assert!(entangled(&ground, &member, 1).is_empty());
        let rank = rank(&ground, &member, 1);
        assert_eq!(rank[3], rank[1] + 1, "members together: {rank:?}");
        assert!(rank[0] < rank[1] && rank[2] < rank[1], "after what they read: {rank:?}");
        let mut sorted = rank.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_group_read_through_a_node_it_feeds_is_entangled() {
        // 2 reads group member 1, and group member 3 reads 2: no order evaluates 1 and 3 together.
        let ground = ground_of(&[&[], &[0], &[1], &[2]]);
        assert_eq!(entangled(&ground, &grouped(4, &[1, 3]), 1), BTreeSet::from([0]));
        assert!(entangled(&ground, &grouped(4, &[1, 2]), 1).is_empty());
    }

    #[test]
    fn groups_that_share_a_recursive_group_are_one_unit() {
        // 1 and 2 read each other (a recursive group); 3 reads 1; 0 is read by 1.
        let mut ground = ground_of(&[&[], &[0, 2], &[1], &[1]]);
        ground.cycles = vec![(1, 3)];
        // Group 0 holds node 1, group 1 node 2: one unit, after 0 and before 3.
        let mut member = vec![None; 4];
        member[1] = Some((0, 0));
        member[2] = Some((1, 0));
        assert_eq!(joined(&ground, &member, 2), vec![0, 0]);
        assert!(partial_cycles(&ground, &member).is_empty());
        assert!(entangled(&ground, &member, 2).is_empty());
        let rank = rank(&ground, &member, 2);
        assert_eq!(rank[1].abs_diff(rank[2]), 1, "{rank:?}");
        assert!(rank[0] < rank[1] && rank[3] > rank[2], "{rank:?}");
        // With node 2 in no group, group 0 holds part of the recursive group.
        member[2] = None;
        assert_eq!(partial_cycles(&ground, &member), BTreeSet::from([0]));
    }
}
