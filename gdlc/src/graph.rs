//! The relation dependency graph: which relation's rules use which, strongly connected
//! components, strata and an evaluation order (petgraph).

use crate::ast::Description;
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{Dfs, EdgeRef};
use std::collections::BTreeMap;

/// Relation names as nodes; an edge `body -> head` for every use of `body` in a rule for `head`,
/// marked `true` when the use is under a negation.
pub struct Dependencies {
    graph: DiGraph<String, bool>,
    index: BTreeMap<String, NodeIndex>,
}

impl Dependencies {
    pub fn build(description: &Description) -> Dependencies {
        let mut deps = Dependencies { graph: DiGraph::new(), index: BTreeMap::new() };
        for rule in &description.rules {
            let head = deps.node(&rule.head.name);
            rule.for_each_body_atom(&mut |atom, negated| {
                let body = deps.node(&atom.name);
                if !deps.graph.edges_connecting(body, head).any(|e| *e.weight() == negated) {
                    deps.graph.add_edge(body, head, negated);
                }
            });
        }
        deps
    }

    fn node(&mut self, name: &str) -> NodeIndex {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.graph.add_node(name.to_string());
        self.index.insert(name.to_string(), i);
        i
    }

    /// Every relation name that occurs in a head or a body, sorted.
    pub fn relations(&self) -> impl Iterator<Item = &str> {
        self.index.keys().map(String::as_str)
    }

    /// The strongly connected components in an evaluation order: every relation comes after
    /// all relations it depends on. Within a component, names are sorted.
    pub fn components(&self) -> Vec<Vec<String>> {
        // Tarjan yields components in reverse topological order of the edges body -> head.
        let mut sccs = tarjan_scc(&self.graph);
        sccs.reverse();
        sccs.into_iter()
            .map(|c| {
                let mut names: Vec<String> = c.into_iter().map(|n| self.graph[n].clone()).collect();
                names.sort();
                names
            })
            .collect()
    }

    /// Whether `relation` uses itself, directly or through others.
    pub fn is_recursive(&self, relation: &str) -> bool {
        let Some(&n) = self.index.get(relation) else { return false };
        self.graph.neighbors(n).any(|m| self.reaches(m, n))
    }

    /// Whether `a` and `b` are in the same strongly connected component (mutually recursive).
    pub fn same_component(&self, a: &str, b: &str) -> bool {
        match (self.index.get(a), self.index.get(b)) {
            (Some(&x), Some(&y)) if x == y => self.is_recursive(a),
            (Some(&x), Some(&y)) => self.reaches(x, y) && self.reaches(y, x),
            _ => false,
        }
    }

    /// Whether `head` depends on `body`, that is, a path of uses leads from `body` to `head`.
    pub fn depends_on(&self, head: &str, body: &str) -> bool {
        match (self.index.get(head), self.index.get(body)) {
            (Some(&h), Some(&b)) => self.reaches(b, h),
            _ => false,
        }
    }

    fn reaches(&self, from: NodeIndex, to: NodeIndex) -> bool {
        let mut dfs = Dfs::new(&self.graph, from);
        while let Some(n) = dfs.next(&self.graph) {
            if n == to {
                return true;
            }
        }
        false
    }

    /// A cycle that passes through a negated use, as the relation names along it starting with
    /// the negated use's body relation, or `None` when the rules are stratified (Def. 8).
    pub fn negative_cycle(&self) -> Option<Vec<String>> {
        for e in self.graph.edge_references().filter(|e| *e.weight()) {
            let (body, head) = (e.source(), e.target());
            if let Some(path) = self.path(head, body) {
                let mut names = vec![self.graph[body].clone()];
                names.extend(path.into_iter().map(|n| self.graph[n].clone()));
                return Some(names);
            }
        }
        None
    }

    /// A shortest path of uses from `from` to `to`, both included.
    fn path(&self, from: NodeIndex, to: NodeIndex) -> Option<Vec<NodeIndex>> {
        let mut parent: BTreeMap<NodeIndex, NodeIndex> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([from]);
        let mut seen = std::collections::BTreeSet::from([from]);
        while let Some(n) = queue.pop_front() {
            if n == to {
                let mut path = vec![n];
                let mut cur = n;
                while let Some(&p) = parent.get(&cur) {
                    path.push(p);
                    cur = p;
                }
                path.reverse();
                return Some(path);
            }
            for m in self.graph.neighbors(n) {
                if seen.insert(m) {
                    parent.insert(m, n);
                    queue.push_back(m);
                }
            }
        }
        None
    }

    /// The stratum of every relation: 0 for relations that use no negation, and one more than
    /// any relation used negatively. Meaningful only when [`negative_cycle`](Self::negative_cycle)
    /// is `None`.
    pub fn strata(&self) -> BTreeMap<String, usize> {
        let mut stratum: BTreeMap<NodeIndex, usize> = BTreeMap::new();
        for component in tarjan_scc(&self.graph).into_iter().rev() {
            let level = component
                .iter()
                .flat_map(|&n| self.graph.edges_directed(n, petgraph::Direction::Incoming))
                .filter(|e| !component.contains(&e.source()))
                .map(|e| stratum.get(&e.source()).copied().unwrap_or(0) + usize::from(*e.weight()))
                .max()
                .unwrap_or(0);
            for n in component {
                stratum.insert(n, level);
            }
        }
        stratum.into_iter().map(|(n, s)| (self.graph[n].clone(), s)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, Syntax};

    fn deps(src: &str) -> Dependencies {
        Dependencies::build(&parse(src, Syntax::Kif).description)
    }

    #[test]
    fn orders_components_after_their_dependencies() {
        let d = deps("(<= a b) (<= b c) (<= c b) (<= d (not a))");
        let order = d.components();
        let pos = |r: &str| order.iter().position(|c| c.iter().any(|n| n == r)).unwrap();
        assert!(pos("c") < pos("a") && pos("a") < pos("d"));
        assert_eq!(order[pos("b")], vec!["b".to_string(), "c".to_string()]);
        assert!(d.is_recursive("b") && !d.is_recursive("a"));
        assert!(d.same_component("b", "c") && !d.same_component("a", "b"));
    }

    #[test]
    fn strata_count_negations() {
        let d = deps("(<= a b) (<= d (not a)) (<= e (not d) a)");
        let s = d.strata();
        assert_eq!((s["a"], s["d"], s["e"]), (0, 1, 2));
        assert!(d.negative_cycle().is_none());
    }

    #[test]
    fn finds_a_cycle_through_negation() {
        let d = deps("(<= p (not q)) (<= q r) (<= r p)");
        assert_eq!(d.negative_cycle().unwrap(), vec!["q", "p", "r", "q"]);
    }
}
