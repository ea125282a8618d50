//! Keyed runs: nodes every rule of which reads, as true, a fact of a relation that holds for
//! at most a few facts at a time are evaluated from the facts of it that hold. amazons'
//! `(justMoved ?x ?y)` is set by the move alone, one cell a turn and none on the next; the
//! cells an arrow can reach from it, one node per direction and cell with a rule per cell it
//! may come from, were every rule tested in every state, although only the rules of the one
//! cell that holds, if any, can hold.
//!
//! A relation is *few-valued* when every rule of every fact's next value reads the move of
//! some role (no fact is kept from one state to the next by itself), and the joint moves set
//! at most a few of them ([`FEW_FACTS`] in all, as in the initial state). A node is keyed by
//! it when every rule reads one of its facts as true. A run of keyed nodes is written, for each
//! of the relation's state words, as a test that the word has one of its facts, inside it a
//! test of each fact whose block or-s into each node the rest of its rules that read that fact;
//! its nodes start false, as every node of a function's array does.
//!
//! The joint move keys nodes the same way, after the move is drawn: when every rule of a node
//! reads some role's move as played (checkers' "the cell the move jumps over", a rule per
//! jump), a `match` on each role's move or-s in the rest of the rules that read that move, of
//! which exactly one is played, instead of testing every rule's move. A rule that reads no move
//! but a node that only a few moves can make true (battle's "this piece moves from that cell to
//! this one and is not blocked") is written whole in the arm of each of those moves.

use super::guards::cluster;
use super::Body;
use crate::codegen::cones::Cones;
use crate::codegen::tables::hex;
use crate::ground::{Ground, Lit, Prop, Value};
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};

/// The most facts of a few-valued relation that may hold at once.
const FEW_FACTS: usize = 2;

/// The fewest facts a relation has for its nodes to be keyed by it: with fewer, a test of each
/// fact costs no more than the loop over the set bits.
const FACTS_MIN: usize = 8;

/// The fewest nodes of a run keyed by one relation.
const RUN_MIN: usize = 8;

/// The fewest rules of a keyed run: a run is a function of its own, whose call and tests cost
/// more than a few rules' bit tests (kitten_escapes_from_fire's 52 nodes of three one-fact
/// rules ran 0.73x as fast keyed).
const RUN_RULES_MIN: usize = 256;

/// The most joint moves a set of moves that can make a node true is kept for; past it the
/// node counts as made true by any move.
const MAX_SETTERS: usize = 1 << 16;

/// The most moves that may make true a node through which a rule is keyed by the joint move
/// ([`Key::MovesThrough`]): the rule is written in the arm of each.
const THROUGH_SETTERS: usize = 4;

/// What keys a run: a few-valued relation (its index), the joint move (every rule reads some
/// role's move, of which exactly one is played), or the joint move through nodes (every rule
/// reads a node that at most [`THROUGH_SETTERS`] moves can make true, each rule of which reads
/// one: battle's "a piece of this kind arrives on this cell", a rule per cell it may come from,
/// reading "the move from that cell to this one is played and not blocked"). Nodes keyed
/// through nodes that are keyed so themselves are a run of the next level, after them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Key {
    Relation(u32),
    Moves,
    MovesThrough(u32),
}

/// The few-valued relations of a game, by their facts.
#[derive(Debug, Default)]
pub(crate) struct Keys {
    /// For every base fact, the few-valued relation it is a fact of (an index), if any.
    relation_of: Vec<Option<u32>>,
    /// For every node, the moves that can make it true when they are at most
    /// [`THROUGH_SETTERS`] (see [`node_setters`]).
    setters: Vec<Option<BTreeSet<Prop>>>,
}

impl Keys {
    /// The few-valued relations of `ground`'s base facts.
    pub(crate) fn new(ground: &Ground) -> Keys {
        let mut by_relation: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for (b, name) in ground.base.iter().enumerate().filter(|(_, name)| !name.is_empty()) {
            let (head, args) = crate::ground::layout::split(name);
            by_relation.entry(format!("{head}/{}", args.len())).or_default().push(b as u32);
        }
        let candidates: Vec<Vec<u32>> = by_relation.into_values().filter(|facts| facts.len() >= FACTS_MIN).collect();
        let values: Vec<Value> = candidates.iter().flatten().map(|&b| ground.next[b as usize]).collect();
        let setters = Setters::of(ground, &values);
        let mut relation_of = vec![None; ground.base.len()];
        let mut next_relation = 0;
        for facts in candidates {
            if few_valued(ground, &setters, &facts) {
                facts.iter().for_each(|&b| relation_of[b as usize] = Some(next_relation));
                next_relation += 1;
            }
        }
        Keys { relation_of, setters: node_setters(ground) }
    }

    /// What keys node `n`: the joint move when every rule of it reads some role's move as
    /// played, else a few-valued relation a fact of which every rule reads as true (the least
    /// such relation when there are several), else the joint move through the nodes its rules
    /// read (at level 0; [`runs`] sets the level).
    fn key_of(&self, ground: &Ground, n: u32) -> Option<Key> {
        let rules = &ground.nodes[n as usize].rules;
        if ground.nodes[n as usize].made_by_moves_alone() {
            return Some(Key::Moves);
        }
        let mut common: Option<BTreeSet<u32>> = None;
        for rule in rules {
            let of_rule: BTreeSet<u32> = rule.iter().filter_map(|&lit| self.relation_read(lit)).collect();
            common = Some(match common {
                None => of_rule,
                Some(common) => common.intersection(&of_rule).copied().collect(),
            });
        }
        if let Some(relation) = common.and_then(|common| common.first().copied()) {
            return Some(Key::Relation(relation));
        }
        let through = |rule: &Vec<Lit>| self.through(rule).is_some();
        (!rules.is_empty() && rules.iter().all(through)).then_some(Key::MovesThrough(0))
    }

    /// The few-valued relation of `lit`'s fact when it reads one as true.
    fn relation_read(&self, lit: Lit) -> Option<u32> {
        match lit.prop {
            Prop::Base(b) if lit.positive => self.relation_of.get(b as usize).copied().flatten(),
            _ => None,
        }
    }

    /// The position in `rule` of the literal that keys it for `key`: its first fact of the
    /// relation read as true, or its first move read as played (none for
    /// [`Key::MovesThrough`], whose rules are written whole).
    pub(crate) fn key_in(&self, rule: &[Lit], key: Key) -> Option<usize> {
        rule.iter().position(|&lit| match key {
            Key::Relation(relation) => self.relation_read(lit) == Some(relation),
            Key::Moves => lit.is_move_played(),
            Key::MovesThrough(_) => false,
        })
    }

    /// The moves through which `rule` is keyed by the joint move: of the nodes it reads as
    /// true that at most [`THROUGH_SETTERS`] moves can make true, those of the one with the
    /// fewest.
    pub(crate) fn through(&self, rule: &[Lit]) -> Option<&BTreeSet<Prop>> {
        let reads = rule.iter().filter(|lit| lit.positive).filter_map(|lit| match lit.prop {
            Prop::Node(m) => self.setters.get(m as usize).and_then(Option::as_ref),
            _ => None,
        });
        reads.min_by_key(|setters| setters.len())
    }
}

/// For every node, the moves that can make it true, when at most [`THROUGH_SETTERS`] can: the
/// union over its rules of the move each reads as played, or else of the moves of a node it
/// reads as true (the one with the fewest). Nodes in recursive groups have none.
fn node_setters(ground: &Ground) -> Vec<Option<BTreeSet<Prop>>> {
    let cycle_of = ground.cycle_of();
    let mut setters: Vec<Option<BTreeSet<Prop>>> = Vec::with_capacity(ground.nodes.len());
    for (n, node) in ground.nodes.iter().enumerate() {
        let of_rule = |rule: &Vec<Lit>| -> Option<BTreeSet<Prop>> {
            if let Some(lit) = rule.iter().find(|lit| lit.is_move_played()) {
                return Some(BTreeSet::from([lit.prop]));
            }
            let reads = rule.iter().filter(|lit| lit.positive).filter_map(|lit| match lit.prop {
                // Nodes read are numbered before the reader, outside recursive groups.
                Prop::Node(m) if (m as usize) < setters.len() => setters[m as usize].as_ref(),
                _ => None,
            });
            reads.min_by_key(|set| set.len()).cloned()
        };
        let mut all = BTreeSet::new();
        let mut known = cycle_of[n].is_none() && !node.rules.is_empty();
        for rule in &node.rules {
            match of_rule(rule) {
                Some(set) if known => all.extend(set),
                _ => known = false,
            }
            known &= all.len() <= THROUGH_SETTERS;
            if !known {
                break;
            }
        }
        setters.push(known.then_some(all));
    }
    setters
}

/// Whether the relation of `facts` is few-valued: at most [`FEW_FACTS`] of them hold
/// initially, and after any joint move, by the moves that can make their next values true.
fn few_valued(ground: &Ground, setters: &Setters, facts: &[u32]) -> bool {
    let initial = facts.iter().filter(|b| ground.initial.binary_search(b).is_ok()).count();
    if initial > FEW_FACTS {
        return false;
    }
    // For every role, how many facts each of its moves may set.
    let mut set_by: Vec<BTreeMap<u32, usize>> = vec![BTreeMap::new(); ground.roles.len()];
    for &b in facts {
        let Some(moves) = setters.of_value(ground.next[b as usize]) else { return false };
        for (role, m) in moves {
            *set_by[role as usize].entry(m).or_default() += 1;
        }
    }
    let most: usize = set_by.iter().map(|counts| counts.values().copied().max().unwrap_or(0)).sum();
    most <= FEW_FACTS
}

/// The moves (role, move) one of which the joint move must hold for a node or value to be
/// true; `None` when no such set is known (a value that any joint move can make true).
type Moves = Option<BTreeSet<(u32, u32)>>;

/// The [`Moves`] of the nodes in the cone of some values.
struct Setters {
    of_node: BTreeMap<u32, Moves>,
}

impl Setters {
    /// The setters of every node in the cone of `values`.
    fn of(ground: &Ground, values: &[Value]) -> Setters {
        let cycle_of = ground.cycle_of();
        let mut of_node = BTreeMap::new();
        for n in Cones::new(ground).cone(values) {
            let moves = match cycle_of[n as usize] {
                Some(_) => None,
                None => of_rules(&ground.nodes[n as usize].rules, &of_node),
            };
            of_node.insert(n, moves);
        }
        Setters { of_node }
    }

    /// The moves that can make `value` true.
    fn of_value(&self, value: Value) -> Moves {
        match value {
            Value::Const(false) => Some(BTreeSet::new()),
            Value::Const(true) => None,
            Value::Lit(lit) => of_rules(&[vec![lit]], &self.of_node),
        }
    }
}

/// The moves that can make one of `rules` hold, given those of the nodes they read: a rule
/// holds only for the moves that all its literals allow; a literal of the state or a negated
/// one allows any.
fn of_rules(rules: &[Vec<Lit>], of_node: &BTreeMap<u32, Moves>) -> Moves {
    let mut all = BTreeSet::new();
    for rule in rules {
        let mut allowed: Moves = None;
        for &lit in rule.iter().filter(|lit| lit.positive) {
            let moves = match lit.prop {
                Prop::Does(r, m) => Some(BTreeSet::from([(r, m)])),
                Prop::Node(k) => of_node.get(&k).cloned().flatten(),
                Prop::Base(_) | Prop::Deferred(_) => None,
            };
            allowed = match (allowed, moves) {
                (None, moves) => moves,
                (Some(allowed), None) => Some(allowed),
                (Some(allowed), Some(moves)) => Some(allowed.intersection(&moves).copied().collect()),
            };
        }
        all.extend(allowed?);
        if all.len() > MAX_SETTERS {
            return None;
        }
    }
    Some(all)
}

/// `stretch`, nodes evaluated one by one (each after the nodes of it that it reads), as runs
/// in evaluation order, each with what keys it, if anything. A node is keyed when `plain` says
/// it is evaluated rule by rule and it reads no node with the same key in the stretch (a keyed
/// node's value is known only after its whole run); runs of fewer than [`RUN_MIN`] nodes or
/// [`RUN_RULES_MIN`] rules are not keyed.
pub(crate) fn runs(
    ground: &Ground,
    keys: &Keys,
    stretch: &[u32],
    plain: &dyn Fn(u32) -> bool,
) -> Vec<(Option<Key>, Vec<u32>)> {
    let mut key: BTreeMap<u32, Option<Key>> =
        stretch.iter().map(|&n| (n, plain(n).then(|| keys.key_of(ground, n)).flatten())).collect();
    if key.values().all(Option::is_none) {
        return vec![(None, stretch.to_vec())];
    }
    // The level of each node keyed through nodes: one past the highest of those it reads.
    for &n in stretch {
        if let Some(Key::MovesThrough(_)) = key[&n] {
            let level = |lit: &Lit| match lit.prop {
                Prop::Node(m) => match key.get(&m) {
                    Some(Some(Key::MovesThrough(level))) => Some(level + 1),
                    _ => None,
                },
                _ => None,
            };
            let own = ground.nodes[n as usize].rules.iter().flatten().filter_map(level).max().unwrap_or(0);
            key.insert(n, Some(Key::MovesThrough(own)));
        }
    }
    loop {
        let reads_keyed = |n: u32, own: Key| {
            ground.nodes[n as usize].rules.iter().flatten().any(|lit| match lit.prop {
                Prop::Node(m) => key.get(&m).copied().flatten() == Some(own),
                _ => false,
            })
        };
        let demoted: Vec<u32> = key.iter().filter_map(|(&n, &k)| k.filter(|&r| reads_keyed(n, r)).map(|_| n)).collect();
        if demoted.is_empty() {
            break;
        }
        demoted.iter().for_each(|n| {
            key.insert(*n, None);
        });
    }
    let keys_of: Vec<Option<Key>> = stretch.iter().map(|n| key[n]).collect();
    let order = cluster(ground, stretch, &keys_of);
    let rules = |run: &[u32]| run.iter().map(|&n| ground.nodes[n as usize].rules.len()).sum::<usize>();
    let worth = |run: &[u32]| key[&run[0]].is_some() && run.len() >= RUN_MIN && rules(run) >= RUN_RULES_MIN;
    if !order.chunk_by(|a, b| key[a] == key[b]).any(worth) {
        // Left in its order, which the guards of `guards.rs` then cluster.
        return vec![(None, stretch.to_vec())];
    }
    let mut runs: Vec<(Option<Key>, Vec<u32>)> = Vec::new();
    for chunk in order.chunk_by(|a, b| key[a] == key[b]) {
        let own = key[&chunk[0]].filter(|_| worth(chunk));
        match runs.last_mut() {
            Some((None, run)) if own.is_none() => run.extend(chunk),
            _ => runs.push((own, chunk.to_vec())),
        }
    }
    runs
}

impl Body<'_> {
    /// Statements computing `run`, nodes keyed by `key`: the rest of each rule (its keying
    /// literal left out) or-ed into its node in an arm for the fact or move that keys it.
    pub(super) fn keyed_run(&self, key: Key, run: &[u32]) -> TokenStream {
        let emitter = self.emitter;
        // The statements of every keying literal's arm.
        let mut arms: BTreeMap<Prop, Vec<TokenStream>> = BTreeMap::new();
        for &n in run {
            let slot = self.slots.of(n);
            let mut rests: BTreeMap<Prop, Vec<Vec<Lit>>> = BTreeMap::new();
            for rule in &emitter.ground.nodes[n as usize].rules {
                if matches!(key, Key::MovesThrough(_)) {
                    // The whole rule, in the arm of every move that can make its node true.
                    for &prop in emitter.keys.through(rule).into_iter().flatten() {
                        rests.entry(prop).or_default().push(rule.clone());
                    }
                    continue;
                }
                let Some(k) = emitter.keys.key_in(rule, key) else { continue };
                let rest: Vec<Lit> = rule.iter().enumerate().filter(|&(i, _)| i != k).map(|(_, &lit)| lit).collect();
                rests.entry(rule[k].prop).or_default().push(rest);
            }
            for (prop, rules) in rests {
                arms.entry(prop).or_default().push(self.rules_expr(&rules, Vec::new()).or_into(&slot));
            }
        }
        let notes = run.iter().map(|&n| emitter.note_node(|| format!("n[{}] (keyed)", self.slots.of(n)), n));
        let dispatch = match key {
            Key::Relation(_) => facts_held(arms),
            Key::Moves | Key::MovesThrough(_) => moves_played(arms),
        };
        // In a function of its own, which takes the node array by reference: LLVM does not
        // then promote the array's slots to registers across the run's many blocks.
        self.part(vec![quote!({ #(#notes)* #dispatch })])
    }
}

/// For each state word of the facts of `arms`, a test that some of them hold, inside it a test
/// of each fact with its arm. Not a loop over the set bits: LLVM promotes the node slots that a
/// loop's arms write to registers across the loop, which took gt_attrition's build past eight
/// minutes.
fn facts_held(arms: BTreeMap<Prop, Vec<TokenStream>>) -> TokenStream {
    let mut by_word: BTreeMap<u32, Vec<(u32, Vec<TokenStream>)>> = BTreeMap::new();
    for (prop, statements) in arms {
        if let Prop::Base(fact) = prop {
            by_word.entry(fact / 64).or_default().push((fact % 64, statements));
        }
    }
    let tests = by_word.into_iter().map(|(w, arms)| {
        let mask = hex(arms.iter().fold(0u64, |mask, &(bit, _)| mask | 1 << bit));
        let w = Literal::u32_unsuffixed(w);
        let arms = arms.into_iter().map(|(bit, statements)| {
            let bit = hex(1 << bit);
            quote!(if held & #bit != 0 { #(#statements)* })
        });
        quote! {
            let held = s.0[#w] & #mask;
            if held != 0 {
                #(#arms)*
            }
        }
    });
    quote!(#(#tests)*)
}

/// The arms of a `match` on one role's move: by the text of their statements, the moves that
/// have them and the statements.
type MoveArms = BTreeMap<String, (Vec<u32>, Vec<TokenStream>)>;

/// For each role whose moves key some of `arms`, a `match` on its move played, the moves whose
/// arms are the same in one arm.
fn moves_played(arms: BTreeMap<Prop, Vec<TokenStream>>) -> TokenStream {
    // For every role, its arms' statements (by their text) with the moves that have them.
    let mut by_role: BTreeMap<u32, MoveArms> = BTreeMap::new();
    for (prop, statements) in arms {
        if let Prop::Does(role, m) = prop {
            let text = statements.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ");
            let (moves, _) = by_role.entry(role).or_default().entry(text).or_insert_with(|| (Vec::new(), statements));
            moves.push(m);
        }
    }
    let matches = by_role.into_iter().map(|(role, arms)| {
        let mut arms: Vec<(Vec<u32>, Vec<TokenStream>)> = arms.into_values().collect();
        arms.sort_by_key(|(moves, _)| moves[0]);
        let arms = arms.into_iter().map(|(moves, statements)| {
            let moves = moves.into_iter().map(Literal::u32_unsuffixed);
            quote!(#(#moves)|* => { #(#statements)* })
        });
        let r = Literal::usize_unsuffixed(role as usize);
        quote! {
            match joint[#r].0 {
                #(#arms)*
                _ => {}
            }
        }
    });
    quote!(#(#matches)*)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`CELLS`] cells in a row; a player picks one, which is `(picked ?x)` in the next state
    /// only (and `(mark ?x)` from then on). An unmarked cell beside the one picked cannot be
    /// picked, nor one `twice` picked, whose rule reads a picked cell and a node beside it.
    const PICKS: &str = "
        (role a) (role b)
        (init (control a))
        (<= (legal ?r (pick ?x)) (true (control ?r)) (cell ?x) (not (near ?x)) (not (twice ?x))
            (not (true (mark ?x))))
        (<= (legal a noop) (true (control b)))
        (<= (legal b noop) (true (control a)))
        (<= (next (picked ?x)) (does ?r (pick ?x)))
        (<= (next (mark ?x)) (does ?r (pick ?x)))
        (<= (next (mark ?x)) (true (mark ?x)))
        (<= (chosen ?x) (does ?r (pick ?x)) (not (true (mark ?x))))
        (<= (chosen ?x) (does ?r (pick ?x)) (true (control a)))
        (<= (next (seen ?x)) (chosen ?y) (succ ?x ?y) (not (true (picked ?y))))
        (<= (next (seen ?x)) (chosen ?y) (succ ?y ?x) (not (true (picked ?y))))
        (<= (next (control a)) (true (control b)))
        (<= (next (control b)) (true (control a)))
        (<= (near ?y) (true (picked ?x)) (succ ?x ?y) (not (true (mark ?y))))
        (<= (near ?y) (true (picked ?x)) (succ ?y ?x) (not (true (mark ?y))))
        (<= (twice ?y) (true (picked ?y)) (near ?y))
        (<= terminal (not open))
        (<= open (cell ?x) (not (true (mark ?x))))
        (goal a 50) (goal b 50)";

    /// Enough cells for the run of `near` nodes, two rules each, to have [`RUN_RULES_MIN`].
    const CELLS: usize = RUN_RULES_MIN / 2 + 2;

    /// [`PICKS`] with its cells and their order.
    fn picks_text() -> String {
        let cells: String = (1..=CELLS).map(|x| format!("(cell {x}) ")).collect();
        let order: String = (1..CELLS).map(|x| format!("(succ {x} {}) ", x + 1)).collect();
        format!("{PICKS} {cells} {order}")
    }

    fn picks() -> Ground {
        let description = crate::parse::parse(&picks_text(), crate::parse::Syntax::Kif).description;
        crate::ground::ground(&description, &Default::default()).expect("grounds")
    }

    /// The nodes of `ground` whose names start with `prefix`.
    fn named(ground: &Ground, prefix: &str) -> Vec<u32> {
        (0..ground.nodes.len() as u32).filter(|&n| ground.nodes[n as usize].name.starts_with(prefix)).collect()
    }

    #[test]
    fn a_relation_only_the_moves_set_is_few_valued_and_a_kept_one_is_not() {
        let ground = picks();
        let keys = Keys::new(&ground);
        let relation = |prefix: &str| -> Vec<Option<u32>> {
            (ground.base.iter().zip(&keys.relation_of))
                .filter(|(name, _)| name.starts_with(prefix))
                .map(|(_, relation)| *relation)
                .collect()
        };
        let picked = relation("(picked ");
        assert_eq!(picked.len(), CELLS);
        assert!(picked.iter().all(|r| *r == Some(0)), "{picked:?}");
        let mark = relation("(mark ");
        assert_eq!(mark.len(), CELLS);
        assert!(mark.iter().all(Option::is_none), "{mark:?}");
    }

    #[test]
    fn nodes_that_read_a_picked_cell_are_one_keyed_run_and_their_readers_are_not() {
        let ground = picks();
        let keys = Keys::new(&ground);
        let near = named(&ground, "(near ");
        let twice = named(&ground, "(twice ");
        let names: Vec<&str> = ground.nodes.iter().map(|n| n.name.as_str()).collect();
        assert!(near.len() == CELLS && twice.len() == CELLS, "{names:?}");
        let stretch: Vec<u32> = (0..ground.nodes.len() as u32).collect();
        let runs = runs(&ground, &keys, &stretch, &|_| true);
        let by_fact = |(key, _): &&(Option<Key>, Vec<u32>)| matches!(key, Some(Key::Relation(_)));
        let keyed: Vec<u32> = runs.iter().filter(by_fact).flat_map(|(_, run)| run.clone()).collect();
        assert_eq!(keyed, near, "{runs:?}");
        // The next values of the picked cells, each a rule per role reading its move, are keyed
        // by the joint move.
        let picked = named(&ground, "(next (picked ");
        let by_move: Vec<u32> =
            runs.iter().filter(|(key, _)| *key == Some(Key::Moves)).flat_map(|(_, run)| run.clone()).collect();
        assert!(!picked.is_empty() && picked.iter().all(|n| by_move.contains(n)), "{runs:?}");
        // A cell is seen next when one beside it is chosen, by either role's pick of it: every
        // rule of its next value reads a node that two moves make true, and is written in the
        // arm of each.
        let seen = named(&ground, "(next (seen ");
        let through: Vec<u32> = runs
            .iter()
            .filter(|(key, _)| matches!(key, Some(Key::MovesThrough(_))))
            .flat_map(|(_, run)| run.clone())
            .collect();
        assert_eq!(seen.len(), CELLS, "{names:?}");
        assert!(seen.iter().all(|n| through.contains(n)), "{runs:?}");
        for rule in seen.iter().flat_map(|&n| &ground.nodes[n as usize].rules) {
            let setters = keys.through(rule).expect("a node a pick makes true");
            assert_eq!(setters.len(), 2, "{setters:?}");
        }
        // Every node is in one run, each after the nodes it reads.
        let order: Vec<u32> = runs.iter().flat_map(|(_, run)| run.clone()).collect();
        assert_eq!(order.len(), stretch.len());
        let at: BTreeMap<u32, usize> = order.iter().enumerate().map(|(i, &n)| (n, i)).collect();
        for &n in &twice {
            assert!(near.iter().all(|m| at[m] < at[&n]), "twice {n} before a near node");
        }
        // No run is keyed when the nodes are not evaluated rule by rule.
        assert!(super::runs(&ground, &keys, &stretch, &|_| false).iter().all(|(key, _)| key.is_none()));
        // Nor a run of too few rules, which is left in its order.
        let few: Vec<u32> = near.iter().rev().take(RUN_MIN).copied().collect();
        assert_eq!(super::runs(&ground, &keys, &few, &|_| true), vec![(None, few.clone())]);
    }
}
