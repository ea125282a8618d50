//! Guarded runs: nodes every rule of which reads one fact of the state (a player's legal moves
//! all read whose turn it is) are false when that fact is, so a function evaluates them inside
//! one test of it. In checkers, `random_step` then evaluates the legal moves of the player to
//! move only, rather than both players'.
//!
//! The nodes a function evaluates come in an order in which each follows what it reads. Within
//! a stretch of nodes evaluated one by one, [`cluster`] reorders them so that nodes with the
//! same guard come together, still each after what it reads; runs of at least
//! [`RUN_MIN_LITERALS`] literals then go inside one `if`.

use crate::ground::{Ground, Lit, Prop};
use std::collections::{BTreeMap, BTreeSet};

/// The fewest nodes whose rules all read a fact for that fact to guard them.
const RUN_MIN: usize = 8;

/// The fewest literals in the rules of a run of nodes with one guard for the run to be
/// evaluated inside a test of it. A test of a fact that changes from state to state (a cell's
/// piece) is a branch the processor mispredicts often, a cost only long runs repay:
/// chineseCheckers4, whose runs guarded by cells were short, ran at 0.58x with runs of four
/// nodes.
const RUN_MIN_LITERALS: usize = 256;

/// `stretch`, nodes evaluated one by one (each after the nodes of it that it reads), as runs
/// in evaluation order, each with the fact that guards it when it is evaluated inside a test of
/// it: the nodes clustered by guard when that gives at least one such run, else as they come.
pub(crate) fn runs(ground: &Ground, implied: &[Vec<Lit>], stretch: &[u32]) -> Vec<(Option<Lit>, Vec<u32>)> {
    let mut guards = guards(implied, stretch);
    // Guards of too few literals in all are not worth bringing their nodes together.
    let mut total: BTreeMap<Lit, usize> = BTreeMap::new();
    for (&n, guard) in stretch.iter().zip(&guards) {
        if let Some(fact) = guard {
            *total.entry(*fact).or_default() += literals(ground, &[n]);
        }
    }
    for guard in &mut guards {
        *guard = guard.filter(|fact| total[fact] >= RUN_MIN_LITERALS);
    }
    let guard_of: BTreeMap<u32, Option<Lit>> = stretch.iter().copied().zip(guards.iter().copied()).collect();
    let order = cluster(ground, stretch, &guards);
    let mut runs: Vec<(Option<Lit>, Vec<u32>)> = Vec::new();
    for chunk in order.chunk_by(|a, b| guard_of[a] == guard_of[b]) {
        let guard = guard_of[&chunk[0]].filter(|_| literals(ground, chunk) >= RUN_MIN_LITERALS);
        match runs.last_mut() {
            Some((None, run)) if guard.is_none() => run.extend(chunk),
            _ => runs.push((guard, chunk.to_vec())),
        }
    }
    match runs.iter().any(|(guard, _)| guard.is_some()) {
        true => runs,
        false => vec![(None, stretch.to_vec())],
    }
}

/// The literals of the rules of `nodes`.
fn literals(ground: &Ground, nodes: &[u32]) -> usize {
    nodes.iter().map(|&n| ground.nodes[n as usize].rules.iter().map(Vec::len).sum::<usize>()).sum()
}

/// For every node of `ground`, the facts of the state without which it cannot hold, among
/// those that at least [`RUN_MIN`] nodes' rules all read: the facts every one of its rules
/// reads, or that a node every one of its rules reads cannot hold without. A player's legal
/// moves all read whose turn it is; "the player has a legal move", a rule per legal move,
/// cannot hold either when it is not the player's turn.
pub(crate) fn implied_facts(ground: &Ground, cycle_of: &[Option<usize>]) -> Vec<Vec<Lit>> {
    let direct: Vec<Vec<Lit>> = (0..ground.nodes.len() as u32).map(|n| common_facts(ground, n)).collect();
    let mut count: BTreeMap<Lit, usize> = BTreeMap::new();
    direct.iter().flatten().for_each(|&lit| *count.entry(lit).or_default() += 1);
    let candidate = |lit: &Lit| count.get(lit).is_some_and(|&c| c >= RUN_MIN);
    let mut implied: Vec<Vec<Lit>> = Vec::with_capacity(ground.nodes.len());
    for (n, node) in ground.nodes.iter().enumerate() {
        // Nodes read before their values are known (in a recursive group) give nothing.
        let known = |m: u32| (m as usize) < n && cycle_of[n].is_none();
        let mut facts: Option<BTreeSet<Lit>> = None;
        for rule in &node.rules {
            let mut of_rule = BTreeSet::new();
            for lit in rule.iter().filter(|lit| lit.positive) {
                match lit.prop {
                    Prop::Base(_) if candidate(lit) => {
                        of_rule.insert(*lit);
                    }
                    Prop::Node(m) if known(m) => of_rule.extend(implied[m as usize].iter().copied()),
                    _ => {}
                }
            }
            facts = Some(match facts {
                None => of_rule,
                Some(facts) => facts.intersection(&of_rule).copied().collect(),
            });
            if facts.as_ref().is_some_and(BTreeSet::is_empty) {
                break;
            }
        }
        implied.push(facts.unwrap_or_default().into_iter().collect());
    }
    implied
}

/// For each of `nodes`, its guard: of the facts it cannot hold without (`implied`, by node),
/// the one that the most of `nodes` share, the least fact among equals, so that the nodes of
/// one player's turn share one.
fn guards(implied: &[Vec<Lit>], nodes: &[u32]) -> Vec<Option<Lit>> {
    let mut count: BTreeMap<Lit, usize> = BTreeMap::new();
    nodes.iter().flat_map(|&n| &implied[n as usize]).for_each(|&lit| *count.entry(lit).or_default() += 1);
    nodes
        .iter()
        .map(|&n| {
            let facts = implied[n as usize].iter().copied();
            let best = facts.max_by(|a, b| count[a].cmp(&count[b]).then(b.cmp(a)));
            best.filter(|lit| count[lit] >= RUN_MIN)
        })
        .collect()
}

/// The facts of the state that every rule of node `n` reads as true (none for a node without
/// rules).
fn common_facts(ground: &Ground, n: u32) -> Vec<Lit> {
    let rules = &ground.nodes[n as usize].rules;
    let Some((first, rest)) = rules.split_first() else { return Vec::new() };
    let is_fact = |lit: &&Lit| lit.positive && matches!(lit.prop, Prop::Base(_));
    first.iter().filter(is_fact).filter(|lit| rest.iter().all(|rule| rule.contains(lit))).copied().collect()
}

/// `nodes` (each after the nodes of `nodes` it reads) reordered so that nodes with the same
/// guard (or key, `keyed.rs`) come together: of the nodes whose reads are all placed, the next
/// is the first with the guard of the last one placed, else the first.
pub(super) fn cluster<K: Ord + Copy>(ground: &Ground, nodes: &[u32], guards: &[Option<K>]) -> Vec<u32> {
    let position: BTreeMap<u32, usize> = nodes.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut waiting = vec![0usize; nodes.len()];
    for (i, &n) in nodes.iter().enumerate() {
        let reads: BTreeSet<usize> = ground.nodes[n as usize]
            .rules
            .iter()
            .flatten()
            .filter_map(|lit| match lit.prop {
                Prop::Node(m) => position.get(&m).copied(),
                _ => None,
            })
            .collect();
        waiting[i] = reads.len();
        reads.into_iter().for_each(|r| readers[r].push(i));
    }
    let mut ready: BTreeSet<usize> = (0..nodes.len()).filter(|&i| waiting[i] == 0).collect();
    let mut ready_by_guard: BTreeMap<Option<K>, BTreeSet<usize>> = BTreeMap::new();
    ready.iter().for_each(|&i| {
        ready_by_guard.entry(guards[i]).or_default().insert(i);
    });
    let mut order = Vec::with_capacity(nodes.len());
    let mut current: Option<K> = None;
    while let Some(&first) = ready.first() {
        let same = current.and_then(|_| ready_by_guard.get(&current).and_then(|set| set.first().copied()));
        let i = same.unwrap_or(first);
        ready.remove(&i);
        if let Some(set) = ready_by_guard.get_mut(&guards[i]) {
            set.remove(&i);
        }
        current = guards[i];
        order.push(nodes[i]);
        for &r in &readers[i] {
            waiting[r] -= 1;
            if waiting[r] == 0 {
                ready.insert(r);
                ready_by_guard.entry(guards[r]).or_default().insert(r);
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::Node;

    fn base(i: u32) -> Lit {
        Lit::pos(Prop::Base(i))
    }

    fn node(m: u32) -> Lit {
        Lit::pos(Prop::Node(m))
    }

    /// A ground program of `nodes` alone.
    fn ground_of(nodes: Vec<Node>) -> Ground {
        let text =
            "(role a) (init c) (<= (legal a x) (true c)) (<= (next c) (true c)) (<= terminal (true c)) (goal a 0)";
        let description = crate::parse::parse(text, crate::parse::Syntax::Kif).description;
        let mut ground = crate::ground::ground(&description, &Default::default()).expect("grounds");
        ground.nodes = nodes;
        ground.cycles = Vec::new();
        ground
    }

    /// Ten moves of each of two players, each reading its player's turn (fact 0 or 1) and
    /// `cells` cells, then "the player has a move" of each: every one guarded by its player's
    /// turn, the last two through the moves they read.
    fn players_of(cells: u32) -> Ground {
        let rule = |i: u32| std::iter::once(base(i % 2)).chain((0..cells).map(|c| base(10 + 20 * c + i))).collect();
        let mut nodes: Vec<Node> =
            (0..20).map(|i| Node { name: format!("(legal {i})"), rules: vec![rule(i)] }).collect();
        for player in 0..2 {
            let rules = (0..20).filter(|i| i % 2 == player).map(|i| vec![node(i)]).collect();
            nodes.push(Node { name: format!("(has_move {player})"), rules });
        }
        ground_of(nodes)
    }

    fn two_players() -> Ground {
        players_of(1)
    }

    #[test]
    fn a_node_is_guarded_by_a_fact_all_its_rules_read_or_imply() {
        let ground = two_players();
        let implied = implied_facts(&ground, &[None; 22]);
        for (n, facts) in implied.iter().enumerate() {
            let player = if n < 20 { n as u32 % 2 } else { n as u32 - 20 };
            assert_eq!(facts, &vec![base(player)], "node {n}");
        }
        let nodes: Vec<u32> = (0..22).collect();
        let guards = guards(&implied, &nodes);
        assert!(guards.iter().enumerate().all(|(n, g)| *g == Some(implied[n][0])));
    }

    #[test]
    fn a_fact_few_nodes_read_guards_none() {
        let mut ground = two_players();
        ground.nodes.truncate(6);
        let implied = implied_facts(&ground, &[None; 6]);
        assert!(implied.iter().all(Vec::is_empty), "{implied:?}");
    }

    #[test]
    fn clustering_brings_a_guard_together_and_keeps_reads_first() {
        let ground = two_players();
        let implied = implied_facts(&ground, &[None; 22]);
        let nodes: Vec<u32> = (0..22).collect();
        let guards = guards(&implied, &nodes);
        let order = cluster(&ground, &nodes, &guards);
        let at: BTreeMap<u32, usize> = order.iter().enumerate().map(|(i, &n)| (n, i)).collect();
        assert_eq!(at.len(), 22);
        for n in 0..20 {
            assert!(at[&n] < at[&(20 + n % 2)], "node {n} after its reader");
        }
        let runs = order.windows(2).filter(|w| guards[w[0] as usize] != guards[w[1] as usize]).count() + 1;
        assert_eq!(runs, 2, "{order:?}");
    }

    /// Runs with enough literals go inside a test of their guard, in an order in which each
    /// player's nodes come together; with too few, the nodes stay as they came, unguarded.
    #[test]
    fn long_runs_are_guarded_and_short_ones_left_as_they_came() {
        let nodes: Vec<u32> = (0..22).collect();
        let ground = players_of(30);
        let implied = implied_facts(&ground, &[None; 22]);
        let planned = runs(&ground, &implied, &nodes);
        let guarded: Vec<(Option<Lit>, usize)> = planned.iter().map(|(g, run)| (*g, run.len())).collect();
        assert_eq!(guarded, vec![(Some(base(0)), 11), (Some(base(1)), 11)]);

        let ground = two_players();
        let implied = implied_facts(&ground, &[None; 22]);
        assert_eq!(runs(&ground, &implied, &nodes), vec![(None, nodes.clone())]);
    }
}
