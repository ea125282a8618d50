//! The relation dependency graph: which relation's rules use which, strongly connected
//! components, strata and an evaluation order (petgraph).

use crate::ast::Description;
use petgraph::algo::kosaraju_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{Dfs, EdgeRef};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// Relation names as nodes; an edge `body -> head` for every use of `body` in a rule for `head`,
/// marked `true` when the use is under a negation.
pub struct Dependencies {
    graph: DiGraph<String, bool>,
    index: BTreeMap<String, NodeIndex>,
    /// The strongly connected component of every node, numbered in reverse topological order.
    component: Vec<usize>,
    /// Whether every node is in a cycle (a component of several nodes, or one that uses itself).
    recursive: Vec<bool>,
}

impl Dependencies {
    pub fn build(description: &Description) -> Dependencies {
        let mut deps = Dependencies {
            graph: DiGraph::new(),
            index: BTreeMap::new(),
            component: Vec::new(),
            recursive: Vec::new(),
        };
        // Looking edges up in a set, not among a node's edges: a relation can have thousands.
        let mut edges: HashSet<(NodeIndex, NodeIndex, bool)> = HashSet::new();
        for rule in &description.rules {
            let head = deps.node(&rule.head.name);
            rule.for_each_body_atom(&mut |atom, negated| {
                let body = deps.node(&atom.name);
                if edges.insert((body, head, negated)) {
                    deps.graph.add_edge(body, head, negated);
                }
            });
        }
        // The components once, so that `same_component` and `is_recursive` need no search.
        let n = deps.graph.node_count();
        deps.component = vec![0; n];
        deps.recursive = vec![false; n];
        for (c, nodes) in kosaraju_scc(&deps.graph).into_iter().enumerate() {
            let cyclic = nodes.len() > 1;
            for &v in &nodes {
                deps.component[v.index()] = c;
                deps.recursive[v.index()] = cyclic || deps.graph.contains_edge(v, v);
            }
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
        // Kosaraju (iterative, unlike petgraph's recursive Tarjan, which overflowed the stack on a
        // long chain of relations) yields components in reverse topological order of the edges.
        let mut sccs = kosaraju_scc(&self.graph);
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
        self.index.get(relation).is_some_and(|n| self.recursive[n.index()])
    }

    /// Whether `a` and `b` are in the same strongly connected component (mutually recursive).
    pub fn same_component(&self, a: &str, b: &str) -> bool {
        match (self.index.get(a), self.index.get(b)) {
            (Some(&x), Some(&y)) if x == y => self.recursive[x.index()],
            (Some(&x), Some(&y)) => self.component[x.index()] == self.component[y.index()],
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

    /// Every relation that depends on one of `bodies`, the `bodies` included: one search for
    /// what [`depends_on`](Self::depends_on) answers one pair at a time.
    pub fn dependents_of(&self, bodies: &[&str]) -> BTreeSet<String> {
        self.closure(bodies, petgraph::Direction::Outgoing)
    }

    /// Every relation that one of `heads` depends on, the `heads` included.
    pub fn dependencies_of(&self, heads: &[&str]) -> BTreeSet<String> {
        self.closure(heads, petgraph::Direction::Incoming)
    }

    fn closure(&self, start: &[&str], direction: petgraph::Direction) -> BTreeSet<String> {
        let mut stack: Vec<NodeIndex> = start.iter().filter_map(|n| self.index.get(*n).copied()).collect();
        let mut seen: BTreeSet<NodeIndex> = stack.iter().copied().collect();
        while let Some(n) = stack.pop() {
            for m in self.graph.neighbors_directed(n, direction) {
                if seen.insert(m) {
                    stack.push(m);
                }
            }
        }
        let mut names: BTreeSet<String> = seen.into_iter().map(|n| self.graph[n].clone()).collect();
        names.extend(start.iter().map(|s| s.to_string()));
        names
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
        // A use lies on a cycle exactly when both its ends are in one component: search for a
        // path only then (a search for every negated use was quadratic in the size of the rules).
        for e in self.graph.edge_references().filter(|e| *e.weight()) {
            let (body, head) = (e.source(), e.target());
            if self.component[body.index()] != self.component[head.index()] {
                continue;
            }
            if let Some(path) = self.path(head, body) {
                let mut names = vec![self.graph[body].clone()];
                names.extend(path.into_iter().map(|n| self.graph[n].clone()));
                return Some(names);
            }
        }
        None
    }

    /// The relations negated on a cycle of uses, each once, in the order of the rules that
    /// negate them: a negated use whose two ends are in one component lies on a cycle.
    pub fn negated_on_cycles(&self) -> Vec<String> {
        let mut seen = BTreeSet::new();
        self.graph
            .edge_references()
            .filter(|e| *e.weight() && self.component[e.source().index()] == self.component[e.target().index()])
            .filter(|e| seen.insert(e.source()))
            .map(|e| self.graph[e.source()].clone())
            .collect()
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
        for component in kosaraju_scc(&self.graph).into_iter().rev() {
            // An edge from outside is one between components: `self.component` says so at once,
            // where searching the component for its source was quadratic in a long cycle.
            let level = component
                .iter()
                .flat_map(|&n| self.graph.edges_directed(n, petgraph::Direction::Incoming))
                .filter(|e| self.component[e.source().index()] != self.component[e.target().index()])
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
    fn closures_agree_with_depends_on() {
        let d = deps("(<= a b) (<= b c) (<= c b) (<= d (not a)) (<= e f)");
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        assert_eq!(d.dependents_of(&["c"]), names(&["a", "b", "c", "d"]));
        assert_eq!(d.dependencies_of(&["d"]), names(&["a", "b", "c", "d"]));
        assert_eq!(d.dependencies_of(&["nothing"]), names(&["nothing"]));
        for x in d.relations() {
            for y in d.relations() {
                assert_eq!(d.depends_on(x, y), d.dependents_of(&[y]).contains(x), "{x} on {y}");
            }
        }
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

    #[test]
    fn lists_every_relation_negated_on_a_cycle() {
        let d = deps("(<= p (not q)) (<= q r) (<= r (not p)) (<= s (not p)) (<= r (not q))");
        assert_eq!(d.negated_on_cycles(), vec!["q", "p"]);
        assert!(deps("(<= a b) (<= d (not a))").negated_on_cycles().is_empty());
    }

    /// Components were found by searching the graph for every query (quadratic in the number of
    /// relations for the recursion check of a long cycle), and by petgraph's recursive Tarjan,
    /// which overflowed the stack on a long chain of relations.
    #[test]
    fn a_long_cycle_is_one_component() {
        let n = 20_000;
        let src: String = (0..n).map(|i| format!("(<= (r{i} ?x) (r{} ?x))\n", (i + 1) % n)).collect();
        let d = deps(&format!("{src}(<= s (not r0)) (<= t t)"));
        let components = d.components();
        assert_eq!(components.len(), 3);
        let pos = |r: &str| components.iter().position(|c| c.iter().any(|x| x == r)).unwrap();
        assert!(pos("r0") < pos("s") && components[pos("r0")].len() == n);
        assert_eq!((d.strata()["r7"], d.strata()["s"]), (0, 1));
        assert!((0..n).all(|i| d.same_component("r0", &format!("r{i}"))));
        assert!(d.is_recursive("r5") && d.is_recursive("t") && !d.is_recursive("s"));
        assert!(!d.same_component("s", "r0") && !d.same_component("s", "s") && d.same_component("t", "t"));
        assert!(!d.same_component("x", "x"));
    }

    #[test]
    fn a_long_chain_is_ordered_without_overflowing_the_stack() {
        let n = 50_000;
        let src: String = (0..n).map(|i| format!("(<= (r{i} ?x) (r{} ?x))\n", i + 1)).collect();
        let d = deps(&src);
        let order = d.components();
        assert_eq!(order.len(), n + 1);
        assert_eq!((order[0][0].as_str(), order[n][0].as_str()), (format!("r{n}").as_str(), "r0"));
        assert!(!d.is_recursive("r0") && d.negative_cycle().is_none());
    }

    /// Many negated uses, none on a cycle: each used to search the whole graph for a path back.
    #[test]
    fn many_negations_outside_cycles_are_checked_quickly() {
        let n = 5000;
        let chain: String = (0..n).map(|i| format!("(<= c{} c{i})\n", i + 1)).collect();
        let negations: String = (0..n).map(|i| format!("(<= c0 (not t{i}))\n")).collect();
        let d = deps(&format!("{chain}{negations}"));
        assert!(d.negative_cycle().is_none());
        let d = deps(&format!("{chain}{negations}(<= t{} c{n})", n - 1));
        let cycle = d.negative_cycle().unwrap();
        assert_eq!((cycle.len(), cycle[0].as_str(), cycle[1].as_str()), (n + 3, format!("t{}", n - 1).as_str(), "c0"));
    }
}
