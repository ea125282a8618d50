//! Who reads each derived proposition of a ground program: the rules that read it, and whether
//! an output value does.

use super::{Ground, Lit, Node, Prop, Value};

/// For every node, the rules that read it: the reading node and the rule's index.
pub(crate) struct Readers {
    of: Vec<Vec<(u32, u32)>>,
}

impl Readers {
    pub(crate) fn new(ground: &Ground) -> Readers {
        Readers::of_nodes(&ground.nodes)
    }

    /// The readers of every node of `nodes`.
    pub(crate) fn of_nodes(nodes: &[Node]) -> Readers {
        let mut of = vec![Vec::new(); nodes.len()];
        for (head, node) in nodes.iter().enumerate() {
            for (r, rule) in node.rules.iter().enumerate() {
                for lit in rule {
                    if let Prop::Node(m) = lit.prop {
                        if of[m as usize].last() != Some(&(head as u32, r as u32)) {
                            of[m as usize].push((head as u32, r as u32));
                        }
                    }
                }
            }
        }
        Readers { of }
    }

    /// The rules that read node `n`, each once, as its node and its index among that node's
    /// rules.
    pub(crate) fn rules_reading(&self, n: u32) -> &[(u32, u32)] {
        &self.of[n as usize]
    }

    /// The nodes whose rules read node `n`.
    pub(crate) fn reading(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        self.of[n as usize].iter().map(|&(head, _)| head)
    }
}

/// The nodes that one of `values` is: read by a value rather than by a rule.
pub(crate) fn read_by_values<'a>(nodes: usize, values: impl IntoIterator<Item = &'a Value>) -> Vec<bool> {
    let mut read = vec![false; nodes];
    for value in values {
        if let Value::Lit(Lit { prop: Prop::Node(n), .. }) = *value {
            read[n as usize] = true;
        }
    }
    read
}
