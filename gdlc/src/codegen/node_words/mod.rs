//! Node words: the derived propositions of one relation that sit at the places of a board
//! (reversi's `hasOtherColorInDir` of every cell for one direction), evaluated 64 at a time as
//! one word whose bit `p` is the node at place `p`.
//!
//! A node's place is the bit, within its state word, of the board's base facts at the same
//! coordinates: `(hasothercolorindir 3 4 n)` sits where `(cell 3 4 black)` does. Nodes of one
//! relation with the same rest of their names (`n`) form a group; nodes whose places come from
//! their rules instead, by their first rules' shapes relative to their places. A candidate of
//! fewer members than a group needs joins a larger one whose rules differ only in distances (a
//! torus's moves across its edge, with the moves of their direction); one that joins none is
//! still a group from four members on, when its word pays (shogi's long moves). Each
//! distinct shape among its members' rules is a template: the `&` of the state words and group
//! words it reads, shifted onto the places, masked by the members that have that rule. A group
//! that reads itself (a ray of cells, each reading the next) is iterated until its word stops
//! changing: when its members are not recursive the rules have one model and iteration reaches
//! it, after at most as many rounds as the longest chain of members plus one. A ray whose one
//! template reads its word at one distance is computed by doubling instead, in log2 of that
//! chain steps, and costed so (see [`WordGroup::ray`]). Groups that hold
//! a recursive group of the ground program between them (which cells a piece is connected to:
//! a flood fill) are iterated together from empty words: their members read one another only
//! positively, so iteration reaches the least fixpoint, which is the rules' meaning.
//!
//! A node that is the next value of a base fact may also sit at that fact's own bit, off any
//! board: the next values of a counter (`(next (box_count xplayer 3))`, which reads
//! `(box_count xplayer 2)`) are then one word whose templates shift the counter's facts, and
//! the next state copies the word in one operation instead of setting each bit.
//!
//! The analysis is here: [`find`] chooses the groups and their templates from the candidates
//! of `candidates.rs`; `places.rs` finds the board and every node's place; `emit.rs` writes
//! the groups' words and the reads of their members, `families.rs` the rules over members
//! tested a word at a time, and `lazy.rs` the loops made only where their one reader needs
//! them.

mod candidates;
mod emit;
pub(super) use emit::SparseAtoms;
mod factor;
mod families;
mod gathers;
mod lazy;
#[cfg(test)]
mod move_tests;
mod move_words;
mod places;
mod quiet;
#[cfg(test)]
mod ray_tests;
mod switch;
#[cfg(test)]
mod tests;
mod transpose;
mod turns;
pub(super) use transpose::transposed;

use crate::ground::{Ground, Lit, Prop, Value};
use candidates::{
    gathered_candidates, shaped_candidates, template_candidates, with_directions, with_small_ones_merged,
    without_failed,
};
use places::{board, head_of, move_places, places, Places};
use std::collections::{BTreeMap, BTreeSet};

/// The fewest members of a group.
const GROUP_MIN: usize = 8;

/// The fewest members of a group of nodes placed by their rules' shapes that no larger group
/// took in (shogi's long moves of one direction and length, a few to each).
const SMALL_GROUP_MIN: usize = 4;

/// The rounds a group that reads itself is assumed to take, when weighing it against its
/// members evaluated one by one.
const ASSUMED_ROUNDS: usize = 6;

/// What a step of a ray's doubling costs, in literals: `w |= p & (w >> d)` and `p &= p >> d`.
const DOUBLING_STEP_COST: usize = 4;

/// The most templates of a group outside its `match`es on the kind of move played (see
/// `switch.rs`): each is a term of its word's expression.
const MAX_TEMPLATES: usize = 512;

/// The most templates of a group in all: each is written once, in an arm of a `match` or not.
const MAX_ALL_TEMPLATES: usize = 4 * MAX_TEMPLATES;

/// A literal of a template, as a word whose bit `p` is the literal's value for the member at
/// place `p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum WordLit {
    /// State word `word` shifted right by `shift` (left when negative).
    Base { word: u32, shift: i32, positive: bool },
    /// Group `group`'s word shifted right by `shift` (left when negative).
    Group { group: u32, shift: i32, positive: bool },
    /// Whether a role played a move of kind `kind` (see [`NodeWords::move_kinds`]) at the
    /// place `shift` past the member's: the kind's word of the move played, shifted.
    Does { kind: u32, shift: i32, positive: bool },
    /// A node that the move table gives (see [`super::move_tables`]): the joint move's row of
    /// the node table, word `word`, shifted right by `shift` (left when negative). Read only
    /// after the move, where the row is known.
    Table { word: u32, shift: i32, positive: bool },
    /// The same literal for every member: all ones when it holds, else zero.
    Fixed(Lit),
    /// Group `group`'s bits at the places `from`, moved in order to the places `to`: the
    /// members at `to` read members of that group that sit at other places in the same order,
    /// at distances that differ member by member (see [`gathers::with_gathers`]).
    Gather { group: u32, from: u64, to: u64, positive: bool },
}

impl WordLit {
    /// The group whose word the literal reads, when it reads one.
    pub(super) fn group(&self) -> Option<u32> {
        match *self {
            WordLit::Group { group, .. } | WordLit::Gather { group, .. } => Some(group),
            _ => None,
        }
    }
}

/// Moves of one role that name places of the board alike (`(mark x y)`): the word of a move
/// played has the bit of its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct MoveKind {
    pub role: u32,
    /// The moves, by index into the ground program's moves, with their places.
    pub places: Vec<(u32, u32)>,
}

impl MoveKind {
    /// For each of the game's `moves`, the word of its place: the place's bit for the kind's
    /// moves, else none.
    pub(super) fn place_words(&self, moves: usize) -> Vec<u64> {
        let mut words = vec![0u64; moves];
        for &(m, place) in &self.places {
            words[m as usize] = 1 << place;
        }
        words
    }
}

/// A shape of rule among a group's members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Template {
    pub literals: Vec<WordLit>,
    /// The places of the members that have a rule of this shape.
    pub mask: u64,
}

impl Template {
    /// What computing the template costs: a literal each, and its mask.
    pub(super) fn cost(&self) -> usize {
        self.literals.len() + 1
    }

    /// The template where `value` gives the values of some of its literals: none when one of
    /// them is false, else the template without those that are true.
    pub(super) fn assuming(&self, value: impl Fn(WordLit) -> Option<bool>) -> Option<Template> {
        if self.literals.iter().any(|&lit| value(lit) == Some(false)) {
            return None;
        }
        let literals = self.literals.iter().copied().filter(|&lit| value(lit).is_none()).collect();
        Some(Template { literals, mask: self.mask })
    }
}

/// Nodes evaluated as one word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct WordGroup {
    /// The member nodes, sorted.
    pub members: Vec<u32>,
    pub templates: Vec<Template>,
    /// Whether a template reads the group's own word, so that it is iterated.
    pub reads_itself: bool,
    /// Whether the members are evaluated one by one (in the arms of the moves that guard
    /// them), each setting its bit, rather than by templates: a group that other groups read.
    pub gathered: bool,
    /// The most members in a row of which each reads the next (0 when none reads another).
    pub chain: u32,
}

impl WordGroup {
    /// When the group (group `g`) is a ray whose word is computed by doubling (see `emit.rs`):
    /// the one template that reads the group's word, which it reads once, positively, at one
    /// distance; with that distance.
    pub(super) fn ray(&self, g: u32) -> Option<(&Template, i32)> {
        let reads_own = |lit: &&WordLit| matches!(lit, WordLit::Group { group, .. } if *group == g);
        let mut readers = self.templates.iter().filter(|t| t.literals.iter().any(|l| reads_own(&l)));
        let (Some(ray), None) = (readers.next(), readers.next()) else { return None };
        let mut own = ray.literals.iter().filter(reads_own);
        match (own.next(), own.next()) {
            (Some(&WordLit::Group { shift, positive: true, .. }), None) => Some((ray, shift)),
            _ => None,
        }
    }

    /// The doubling steps of a ray's word: runs twice as long at each step, so that the
    /// longest chain of members that read one another is covered.
    pub(super) fn doubling_steps(&self) -> u32 {
        32 - self.chain.leading_zeros()
    }
}

/// The groups of a ground program, and how its nodes are evaluated around them.
#[derive(Clone, Debug, Default)]
pub(super) struct NodeWords {
    pub groups: Vec<WordGroup>,
    /// For every node, its group and place, when it is in one.
    pub member: Vec<Option<(u32, u32)>>,
    /// For every node, its place in an evaluation order in which each group's members come
    /// together, after everything any of them reads.
    pub rank: Vec<u32>,
    /// The kinds of moves that templates read.
    pub move_kinds: Vec<MoveKind>,
    /// By role and move, the kind and place of every move that names a place.
    pub move_places: MovePlaces,
    /// Sets of groups evaluated together in one loop from empty words, because they hold
    /// recursive groups of the ground program between them.
    pub loops: Vec<Vec<u32>>,
    /// For every group, the loop it is evaluated in, when its members are recursive.
    pub loop_of: Vec<Option<u32>>,
}

impl NodeWords {
    /// No groups: every node evaluated by itself, in the ground program's order.
    pub(super) fn none(nodes: usize) -> NodeWords {
        NodeWords {
            groups: Vec::new(),
            member: vec![None; nodes],
            rank: (0..nodes as u32).collect(),
            move_kinds: Vec::new(),
            move_places: MovePlaces::new(),
            loops: Vec::new(),
            loop_of: Vec::new(),
        }
    }
}

/// By role and move, the move's kind and place.
pub(super) type MovePlaces = BTreeMap<(u32, u32), (u32, u32)>;

/// Where things are on the board: base facts, and the moves of each role.
struct Board {
    /// The place of every base fact, when it is on the board.
    base: Vec<Option<u32>>,
    moves: MovePlaces,
    /// For every node that is the next value of a base fact (named `(next FACT)`), that fact.
    own: Vec<Option<u32>>,
    /// The relation of every base fact, numbered.
    relation: Vec<u32>,
    /// The number of base facts of every relation, by its number.
    facts_of: Vec<usize>,
    /// For every node that the move table gives, its bit in the table's row (empty while the
    /// table is being laid out).
    table: Vec<Option<u32>>,
}

impl Board {
    /// The place of base fact `b` in the rules of node `i`: its place on the board, or its own
    /// bit when `i` is the next value of a fact of the same relation, so that a counter's
    /// `(next (count 4))` reads `(count 3)` one bit below its own, or at the same bit of a
    /// relation of many facts, so that hex's `(next (owner 7 red))` reads `(step 7)` where the
    /// step counter's word has it. Other facts (whose turn it is, a step read by the next
    /// values of a whole board) are read as the same fact for every member.
    fn base_place(&self, i: usize, b: u32) -> Option<u32> {
        self.base[b as usize].or_else(|| {
            let own = self.own[i]?;
            let relation = self.relation[b as usize];
            let aligned = b % 64 == own % 64 && self.facts_of[relation as usize] >= GROUP_MIN;
            (self.relation[own as usize] == relation || aligned).then_some(b % 64)
        })
    }
}

/// For every node that is the next value of a base fact and named after it, that fact.
fn own_facts(ground: &Ground) -> Vec<Option<u32>> {
    let mut own = vec![None; ground.nodes.len()];
    for (b, value) in ground.next.iter().enumerate() {
        if let Value::Lit(Lit { prop: Prop::Node(n), positive: true }) = *value {
            if own[n as usize].is_none() && ground.nodes[n as usize].name == format!("(next {})", ground.base[b]) {
                own[n as usize] = Some(b as u32);
            }
        }
    }
    own
}

/// Every base fact's relation, numbered in order of first appearance.
fn relations(base: &[String]) -> Vec<u32> {
    let mut numbers: BTreeMap<String, u32> = BTreeMap::new();
    base.iter()
        .map(|name| {
            let next = numbers.len() as u32;
            *numbers.entry(head_of(name)).or_insert(next)
        })
        .collect()
}

/// The groups of `ground`'s nodes. No node of `never` is in one (nodes evaluated in other
/// ways); nodes of `gathered_only` (those the moves guard) are only in gathered groups.
pub(super) fn find(
    ground: &Ground,
    never: &[bool],
    gathered_only: &[bool],
    table_bit: &[Option<u32>],
    family_cost: &[Option<usize>],
) -> NodeWords {
    let n = ground.nodes.len();
    let Some(Placed { mut board, move_kinds, heads, coordinates }) = placed(ground) else {
        return NodeWords::none(n);
    };
    board.table = table_bit.to_vec();
    let Places { place, rest, direction } = places(ground, never, &heads, &board, &coordinates);
    let templated = |i: usize| !gathered_only[i];
    let shaped = shaped_candidates(ground, &heads, &place, &rest, &board, &templated);
    let shaped = with_directions(shaped, &rest, &direction);
    // The members that small candidates brought to a larger one: a group that does not pay
    // with them is tried again without them before it is dropped.
    let (merged, mut joined) = with_small_ones_merged(shaped, &heads, &place);
    let mut candidates: Vec<(Vec<u32>, bool)> =
        merged.into_iter().filter(|members| members.len() >= SMALL_GROUP_MIN).map(|members| (members, false)).collect();
    let gathering = |i: usize| gathered_only[i] && !never[i];
    candidates
        .extend(gathered_candidates(&heads, &place, &rest, &gathering).into_iter().map(|members| (members, true)));
    candidates.sort();
    let in_cycle = ground.in_cycle();
    let no_table = vec![None; n];
    // Drop the candidates that do not pay, gathered ones that no group reads, those that hold
    // part of a recursive group, and those that the order of evaluation cannot put together,
    // until those left all do.
    loop {
        let mut member = vec![None; n];
        for (g, (members, _)) in candidates.iter().enumerate() {
            for &m in members {
                member[m as usize] = Some((g as u32, place[m as usize].unwrap_or(0)));
            }
        }
        // Every candidate's group, and whether it pays (`None` for gathered ones, which are kept
        // when another group reads them).
        let (groups, paid): (Vec<WordGroup>, Vec<Option<bool>>) = candidates
            .iter()
            .enumerate()
            .map(|(g, (members, gathered))| match gathered {
                false => {
                    // Nodes of the move table read as its row's words when that makes fewer
                    // templates (their bits follow the places), else one by one.
                    let by_row = group(ground, g as u32, members, &member, &board, table_bit);
                    let reads_row = (by_row.templates.iter().flat_map(|t| &t.literals))
                        .any(|lit| matches!(lit, WordLit::Table { .. }));
                    let chosen = if !reads_row {
                        by_row
                    } else {
                        let one_by_one = group(ground, g as u32, members, &member, &board, &no_table);
                        if by_row.templates.len() < one_by_one.templates.len() {
                            by_row
                        } else {
                            one_by_one
                        }
                    };
                    // A group that does not pay may with the members that read another group
                    // at their own distances, in order, reading it moved to their places.
                    let group_pays = |group: &WordGroup| {
                        pays(ground, g as u32, group, &move_kinds, &in_cycle, family_cost, table_bit)
                    };
                    if group_pays(&chosen) {
                        return (chosen, Some(true));
                    }
                    match gathers::with_gathers(&chosen, g as u32).filter(group_pays) {
                        Some(gathered) => (gathered, Some(true)),
                        None => (chosen, Some(false)),
                    }
                }
                true => {
                    let members = members.clone();
                    let group =
                        WordGroup { members, templates: Vec::new(), reads_itself: false, gathered: true, chain: 0 };
                    (group, None)
                }
            })
            .unzip();
        let mut read = vec![false; groups.len()];
        for lit in groups.iter().flat_map(|g| &g.templates).flat_map(|t| &t.literals) {
            if let Some(group) = lit.group() {
                read[group as usize] = true;
            }
        }
        let keep: Vec<bool> = paid.iter().enumerate().map(|(g, paid)| paid.unwrap_or(read[g])).collect();
        if keep.iter().all(|&k| k) {
            let mut dropped = super::word_order::partial_cycles(ground, &member);
            if dropped.is_empty() {
                dropped = super::word_order::entangled(ground, &member, groups.len());
            }
            if dropped.is_empty() {
                let rank = super::word_order::rank(ground, &member, groups.len());
                let (loops, loop_of) = loops(ground, &member, &groups, &in_cycle);
                let move_places = board.moves;
                let mut groups = groups;
                move_words::read_moves(&mut groups);
                return NodeWords { groups, member, rank, move_kinds, move_places, loops, loop_of };
            }
            let keep: Vec<bool> = (0..candidates.len()).map(|g| !dropped.contains(&g)).collect();
            candidates = without_failed(candidates, &keep, &mut joined);
            continue;
        }
        candidates = without_failed(candidates, &keep, &mut joined);
    }
}

/// The board of a ground program, with what is placed on it.
struct Placed {
    board: Board,
    move_kinds: Vec<MoveKind>,
    /// Every node's relation, by which nodes are placed and grouped: the next values of a
    /// relation's facts apart from its other nodes.
    heads: Vec<String>,
    coordinates: places::Coordinates,
}

/// The board of `ground`: the places of its base facts and moves; `None` when it has no board
/// and no next values of facts to place.
fn placed(ground: &Ground) -> Option<Placed> {
    let (base_place, coordinates) = board(&ground.base);
    let own = own_facts(ground);
    if coordinates.is_empty() && own.iter().all(Option::is_none) {
        return None;
    }
    let (moves, move_kinds) = move_places(ground, &coordinates, &base_place);
    // The nodes of next facts are told apart by the facts' relation, and other nodes by their
    // relation and the number of atoms in their names, so that each kind is placed in the way
    // that suits it: shogi's `(legal black (drop gold 1 a))` by its cell, its moves by theirs.
    let heads: Vec<String> = ground
        .nodes
        .iter()
        .zip(&own)
        .map(|(node, own)| match own {
            Some(b) => format!("next {}", head_of(&ground.base[*b as usize])),
            None => format!("{} /{}", head_of(&node.name), places::atoms_of(&node.name).len()),
        })
        .collect();
    let relation = relations(&ground.base);
    let mut facts_of = vec![0; relation.iter().max().map_or(0, |&r| r as usize + 1)];
    relation.iter().for_each(|&r| facts_of[r as usize] += 1);
    let board = Board { base: base_place, moves, own, relation, facts_of, table: Vec::new() };
    Some(Placed { board, move_kinds, heads, coordinates })
}

/// Of the nodes `nodes`, the groups that sit at places of a board as node words would (at
/// least [`GROUP_MIN`] nodes of a relation, at distinct places), each as its members with
/// their places: the move table keeps each such group's places' distances in its row, so that
/// templates read the group as one word of the row.
pub(super) fn placed_groups(ground: &Ground, nodes: &[u32]) -> Vec<Vec<(u32, u32)>> {
    let Some(Placed { board, heads, coordinates, .. }) = placed(ground) else {
        return Vec::new();
    };
    let mut excluded = vec![true; ground.nodes.len()];
    nodes.iter().for_each(|&n| excluded[n as usize] = false);
    let Places { place, rest, .. } = places(ground, &excluded, &heads, &board, &coordinates);
    let included = |i: usize| !excluded[i];
    (template_candidates(ground, &heads, &place, &rest, &board, &included).into_iter())
        .filter(|members| members.len() >= GROUP_MIN)
        .map(|members| members.into_iter().map(|m| (m, place[m as usize].unwrap_or(0))).collect())
        .collect()
}

/// The group of `members` (group `g`): the templates of their rules.
fn group(
    ground: &Ground,
    g: u32,
    members: &[u32],
    member: &[Option<(u32, u32)>],
    board: &Board,
    table_bit: &[Option<u32>],
) -> WordGroup {
    let mut templates: BTreeMap<Vec<WordLit>, u64> = BTreeMap::new();
    for &m in members {
        let p = member[m as usize].map_or(0, |(_, p)| p) as i32;
        for rule in &ground.nodes[m as usize].rules {
            let mut literals: Vec<WordLit> = rule
                .iter()
                .map(|&lit| match lit.prop {
                    Prop::Base(b) if board.base_place(m as usize, b).is_some() => {
                        WordLit::Base { word: b / 64, shift: (b % 64) as i32 - p, positive: lit.positive }
                    }
                    Prop::Does(r, m) => match board.moves.get(&(r, m)) {
                        Some(&(kind, q)) => WordLit::Does { kind, shift: q as i32 - p, positive: lit.positive },
                        None => WordLit::Fixed(lit),
                    },
                    Prop::Node(k) => match (member[k as usize], table_bit[k as usize]) {
                        (Some((h, q)), _) => WordLit::Group { group: h, shift: q as i32 - p, positive: lit.positive },
                        (None, Some(t)) => {
                            WordLit::Table { word: t / 64, shift: (t % 64) as i32 - p, positive: lit.positive }
                        }
                        (None, None) => WordLit::Fixed(lit),
                    },
                    _ => WordLit::Fixed(lit),
                })
                .collect();
            literals.sort();
            literals.dedup();
            *templates.entry(literals).or_default() |= 1 << p;
        }
    }
    let reads_itself = templates.keys().flatten().any(|l| matches!(l, WordLit::Group { group, .. } if *group == g));
    // How many members in a row each read the next: members read only nodes before them.
    let mut depth: BTreeMap<u32, u32> = BTreeMap::new();
    for &m in members {
        let reads = ground.nodes[m as usize].rules.iter().flatten().filter_map(|lit| match lit.prop {
            Prop::Node(k) if member[k as usize].is_some_and(|(h, _)| h == g) => {
                Some(depth.get(&k).map_or(1, |d| d + 1))
            }
            _ => None,
        });
        depth.insert(m, reads.max().unwrap_or(0));
    }
    WordGroup {
        members: members.to_vec(),
        templates: templates.into_iter().map(|(literals, mask)| Template { literals, mask }).collect(),
        reads_itself,
        gathered: false,
        chain: depth.values().copied().max().unwrap_or(0),
    }
}

/// The loops of groups whose members are recursive (see [`NodeWords::loops`]), and every
/// group's loop.
fn loops(
    ground: &Ground,
    member: &[Option<(u32, u32)>],
    groups: &[WordGroup],
    in_cycle: &[bool],
) -> (Vec<Vec<u32>>, Vec<Option<u32>>) {
    let first = super::word_order::joined(ground, member, groups.len());
    let mut by_first: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
    for (g, group) in groups.iter().enumerate() {
        if group.members.iter().any(|&m| in_cycle[m as usize]) {
            by_first.entry(first[g]).or_default().push(g as u32);
        }
    }
    let mut loop_of = vec![None; groups.len()];
    let loops: Vec<Vec<u32>> = by_first.into_values().collect();
    for (l, members) in loops.iter().enumerate() {
        members.iter().for_each(|&g| loop_of[g as usize] = Some(l as u32));
    }
    (loops, loop_of)
}

/// When every rule of every member of `group` reads a move as played, and every template tests
/// one move whole (a move no kind places): the number of moves the members' rules read. One
/// by one, such members are evaluated (when they are many: `emit/keyed.rs`) in the arms of a
/// `match` on the moves played, the rules of the played move alone, where the word tests every
/// template's move (checkers' "this cell is not jumped over", for each jump of three cells).
fn moves_tested_whole(ground: &Ground, group: &WordGroup) -> Option<usize> {
    let keyed = |m: &u32| ground.nodes[*m as usize].made_by_moves_alone();
    let tests_a_move = |template: &Template| {
        template.literals.iter().any(|lit| matches!(lit, WordLit::Fixed(lit) if lit.is_move_played()))
    };
    if !group.members.iter().all(keyed) || !group.templates.iter().all(tests_a_move) {
        return None;
    }
    let rules = group.members.iter().flat_map(|&m| &ground.nodes[m as usize].rules);
    let moves: BTreeSet<Lit> = rules.flat_map(|rule| rule.iter().copied().filter(Lit::is_move_played)).collect();
    Some(moves.len())
}

/// Whether evaluating `group` as a word costs at most half of evaluating its members one by one:
/// by their rule families, for those that have some, else rule by rule, the rules that differ
/// only in one node of the move table counted once (they are one mask test of its row).
/// A group of recursive members is iterated either way, so its rounds are not counted; a ray
/// costs its doubling steps, each a few operations, rather than rounds of all its templates. The
/// word costs what `switch.rs` writes: only one arm of a `match` on the kind of move played.
fn pays(
    ground: &Ground,
    g: u32,
    group: &WordGroup,
    move_kinds: &[MoveKind],
    in_cycle: &[bool],
    family_cost: &[Option<usize>],
    table_bit: &[Option<u32>],
) -> bool {
    let in_table = |lit: &Lit| matches!(lit.prop, Prop::Node(k) if table_bit[k as usize].is_some());
    let by_rules = |m: u32| -> usize {
        let shapes: BTreeMap<Vec<Lit>, usize> = (ground.nodes[m as usize].rules.iter())
            .map(|rule| match rule.iter().filter(|lit| in_table(lit)).count() {
                1 => (rule.iter().filter(|lit| !in_table(lit)).copied().collect(), rule.len()),
                _ => (rule.clone(), rule.len()),
            })
            .collect();
        shapes.values().map(|len| len + 1).sum()
    };
    let one_by_one: usize = group.members.iter().map(|&m| family_cost[m as usize].unwrap_or_else(|| by_rules(m))).sum();
    let recursive = group.members.iter().any(|&m| in_cycle[m as usize]);
    let (cost, outside) = switch::word_cost(&group.templates, move_kinds);
    let word = match (group.reads_itself && !recursive, group.ray(g)) {
        (false, _) => cost,
        (true, Some(_)) => cost + DOUBLING_STEP_COST * group.doubling_steps() as usize,
        (true, None) => cost * ASSUMED_ROUNDS,
    };
    // Members keyed by the moves cost, one by one, the rules of the move played: about their
    // cost over the number of moves they read.
    if moves_tested_whole(ground, group).is_some_and(|moves| cost * moves > one_by_one) {
        return false;
    }
    outside <= MAX_TEMPLATES && group.templates.len() <= MAX_ALL_TEMPLATES && 2 * word <= one_by_one
}
