//! Node words: the derived propositions of one relation that sit at the places of a board
//! (reversi's `hasOtherColorInDir` of every cell for one direction), evaluated 64 at a time as
//! one word whose bit `p` is the node at place `p`.
//!
//! A node's place is the bit, within its state word, of the board's base facts at the same
//! coordinates: `(hasothercolorindir 3 4 n)` sits where `(cell 3 4 black)` does. Nodes of one
//! relation with the same rest of their names (`n`) form a group; nodes whose places come from
//! their rules instead, by their first rules' shapes relative to their places. Each
//! distinct shape among its members' rules is a template: the `&` of the state words and group
//! words it reads, shifted onto the places, masked by the members that have that rule. A group
//! that reads itself (a ray of cells, each reading the next) is iterated until its word stops
//! changing: its members are not recursive, so the rules have one model and iteration reaches
//! it, after at most as many rounds as the longest chain of members plus one.

use crate::ground::{Ground, Lit, Prop};
use gdl_runtime::kif::{self, Sx};
use std::collections::{BTreeMap, BTreeSet};

/// The fewest members of a group.
const GROUP_MIN: usize = 8;

/// The rounds a group that reads itself is assumed to take, when weighing it against its
/// members evaluated one by one.
const ASSUMED_ROUNDS: usize = 6;

/// The most templates of a group: each is a term of its word's expression.
const MAX_TEMPLATES: usize = 64;

/// The most atoms of a node's name searched for coordinates.
const MAX_NAME_ATOMS: usize = 8;

/// A literal of a template, as a word whose bit `p` is the literal's value for the member at
/// place `p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum WordLit {
    /// State word `word` shifted right by `shift` (left when negative).
    Base { word: u32, shift: i32, positive: bool },
    /// Group `group`'s word shifted right by `shift` (left when negative).
    Group { group: u32, shift: i32, positive: bool },
    /// Whether a role played a move of kind `kind` (see [`NodeWords::move_kinds`]) at the
    /// place `shift` past the member's: the kind's word of the move played, shifted.
    Does { kind: u32, shift: i32, positive: bool },
    /// The same literal for every member: all ones when it holds, else zero.
    Fixed(Lit),
}

/// Moves of one role that name places of the board alike (`(mark x y)`): the word of a move
/// played has the bit of its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveKind {
    pub role: u32,
    /// The moves, by index into the ground program's moves, with their places.
    pub places: Vec<(u32, u32)>,
}

/// A shape of rule among a group's members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    pub literals: Vec<WordLit>,
    /// The places of the members that have a rule of this shape.
    pub mask: u64,
}

/// Nodes evaluated as one word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WordGroup {
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

/// The groups of a ground program, and how its nodes are evaluated around them.
#[derive(Clone, Debug, Default)]
pub struct NodeWords {
    pub groups: Vec<WordGroup>,
    /// For every node, its group and place, when it is in one.
    pub member: Vec<Option<(u32, u32)>>,
    /// For every node, its place in an evaluation order in which each group's members come
    /// together, after everything any of them reads.
    pub rank: Vec<u32>,
    /// The kinds of moves that templates read.
    pub move_kinds: Vec<MoveKind>,
}

impl NodeWords {
    /// No groups: every node evaluated by itself, in the ground program's order.
    pub fn none(nodes: usize) -> NodeWords {
        NodeWords {
            groups: Vec::new(),
            member: vec![None; nodes],
            rank: (0..nodes as u32).collect(),
            move_kinds: Vec::new(),
        }
    }
}

/// By role and move, the move's kind and place.
type MovePlaces = BTreeMap<(u32, u32), (u32, u32)>;

/// Where things are on the board: base facts, and the moves of each role.
struct Board {
    /// The place of every base fact, when it is on the board.
    base: Vec<Option<u32>>,
    moves: MovePlaces,
}

/// The groups of `ground`'s nodes. No node of `never` is in one (nodes that are recursive or
/// evaluated in other ways); nodes of `gathered_only` (those the moves guard) are only in
/// gathered groups.
pub fn find(ground: &Ground, never: &[bool], gathered_only: &[bool]) -> NodeWords {
    let n = ground.nodes.len();
    let (base_place, coordinates) = board(&ground.base);
    if coordinates.is_empty() {
        return NodeWords::none(n);
    }
    let (moves, move_kinds) = move_places(ground, &coordinates);
    let board = Board { base: base_place, moves };
    let heads: Vec<String> = ground.nodes.iter().map(|node| head_of(&node.name)).collect();
    let (place, rest) = places(ground, never, &heads, &board, &coordinates);
    let templated = |i: usize| !gathered_only[i];
    let mut candidates: Vec<(Vec<u32>, bool)> = template_candidates(ground, &heads, &place, &rest, &board, &templated)
        .into_iter()
        .filter(|members| members.len() >= GROUP_MIN)
        .map(|members| (members, false))
        .collect();
    let gathering = |i: usize| gathered_only[i] && !never[i];
    candidates
        .extend(gathered_candidates(&heads, &place, &rest, &gathering).into_iter().map(|members| (members, true)));
    candidates.sort();
    // Drop the candidates that do not pay, gathered ones that no group reads, and those that
    // the order of evaluation cannot put together, until those left all do.
    loop {
        let mut member = vec![None; n];
        for (g, (members, _)) in candidates.iter().enumerate() {
            for &m in members {
                member[m as usize] = Some((g as u32, place[m as usize].unwrap_or(0)));
            }
        }
        let groups: Vec<WordGroup> = candidates
            .iter()
            .enumerate()
            .map(|(g, (members, gathered))| match gathered {
                false => group(ground, g as u32, members, &member, &board),
                true => {
                    let members = members.clone();
                    WordGroup { members, templates: Vec::new(), reads_itself: false, gathered: true, chain: 0 }
                }
            })
            .collect();
        let mut read = vec![false; groups.len()];
        for lit in groups.iter().flat_map(|g| &g.templates).flat_map(|t| &t.literals) {
            if let WordLit::Group { group, .. } = lit {
                read[*group as usize] = true;
            }
        }
        let keep: Vec<bool> = groups
            .iter()
            .enumerate()
            .map(|(g, group)| if group.gathered { read[g] } else { pays(ground, group) })
            .collect();
        if keep.iter().all(|&k| k) {
            let entangled = super::word_order::entangled(ground, &member, groups.len());
            if entangled.is_empty() {
                let rank = super::word_order::rank(ground, &member, groups.len());
                return NodeWords { groups, member, rank, move_kinds };
            }
            candidates =
                candidates.into_iter().enumerate().filter(|(g, _)| !entangled.contains(g)).map(|(_, c)| c).collect();
            continue;
        }
        candidates = candidates.into_iter().zip(keep).filter(|(_, k)| *k).map(|(c, _)| c).collect();
    }
}

/// Nodes of one relation with one rest of their names (or, when their names do not give their
/// places, whose first rules have one shape relative to their places), at distinct places:
/// the candidate groups evaluated by templates (of any size), of the nodes
/// `templated` selects.
fn template_candidates(
    ground: &Ground,
    heads: &[String],
    place: &[Option<u32>],
    rest: &[Option<Vec<String>>],
    board: &Board,
    templated: &dyn Fn(usize) -> bool,
) -> Vec<Vec<u32>> {
    let n = ground.nodes.len();
    // Candidates: nodes of one relation with one rest of their names, or whose first rules
    // have one shape, at distinct places. A node the first rule reads is named by its relation
    // and the rest of its name when its name gives its place, else by its class: nodes reading
    // different kinds of node at the same distance (a ray's first cells in different
    // directions) differ.
    let mut classes: BTreeMap<(String, Vec<String>), usize> = BTreeMap::new();
    let mut class: Vec<Option<usize>> = vec![None; n];
    let mut by_shape: Vec<Vec<u32>> = Vec::new();
    for i in 0..n {
        let Some(p) = place[i] else { continue };
        let name = |m: usize| match &rest[m] {
            Some(rest) => Some(format!("{} {}", heads[m], rest.join(" "))),
            None => class[m].map(|c| c.to_string()),
        };
        // Nodes whose names give their places are grouped by the rest of their names alone:
        // their rules' shapes become the group's templates.
        let shape = match rest[i] {
            Some(_) => Vec::new(),
            None => first_rule_shape(ground, i, p, &|m| place[m], &name, board),
        };
        let next = classes.len();
        let c = *classes.entry((heads[i].clone(), shape)).or_insert(next);
        if c == by_shape.len() {
            by_shape.push(Vec::new());
        }
        by_shape[c].push(i as u32);
        class[i] = Some(c);
    }
    let mut candidates: Vec<Vec<u32>> = Vec::new();
    for members in by_shape {
        let members: Vec<u32> = members.into_iter().filter(|&m| templated(m as usize)).collect();
        // Members at the same place are told apart by the rest of their names when that
        // separates them all (the directions of `hasOtherColorInDir`); else a member at a place
        // already taken goes to the next candidate of the same shape.
        let mut by_rest: BTreeMap<&[String], (u64, Vec<u32>)> = BTreeMap::new();
        let mut separated = true;
        for &m in &members {
            let bit = 1u64 << place[m as usize].unwrap_or(0);
            let (taken, group) = by_rest.entry(rest[m as usize].as_deref().unwrap_or_default()).or_default();
            separated &= *taken & bit == 0;
            *taken |= bit;
            group.push(m);
        }
        if separated {
            candidates.extend(by_rest.into_values().map(|(_, group)| group));
            continue;
        }
        let mut split: Vec<(u64, Vec<u32>)> = Vec::new();
        for m in members {
            let bit = 1u64 << place[m as usize].unwrap_or(0);
            match split.iter_mut().find(|(taken, _)| taken & bit == 0) {
                Some((taken, group)) => {
                    *taken |= bit;
                    group.push(m);
                }
                None => split.push((bit, vec![m])),
            }
        }
        candidates.extend(split.into_iter().map(|(_, group)| group));
    }
    candidates
}

/// The nodes that `gathering` selects, by relation and the rest of their names, at distinct
/// places: the candidate gathered groups.
fn gathered_candidates(
    heads: &[String],
    place: &[Option<u32>],
    rest: &[Option<Vec<String>>],
    gathering: &dyn Fn(usize) -> bool,
) -> Vec<Vec<u32>> {
    // By relation and rest of name: the places taken, and the members.
    type Gathering<'a> = BTreeMap<(&'a str, &'a [String]), (u64, Vec<u32>)>;
    let mut gathered: Gathering = BTreeMap::new();
    let mut clash = BTreeSet::new();
    for i in (0..heads.len()).filter(|&i| gathering(i)) {
        let Some(p) = place[i] else { continue };
        let key = (heads[i].as_str(), rest[i].as_deref().unwrap_or_default());
        let (taken, group) = gathered.entry(key).or_default();
        if *taken >> p & 1 != 0 {
            clash.insert(key);
        }
        *taken |= 1 << p;
        group.push(i as u32);
    }
    gathered
        .into_iter()
        .filter(|(key, (_, group))| !clash.contains(key) && group.len() >= GROUP_MIN)
        .map(|(_, (_, group))| group)
        .collect()
}

/// The group of `members` (group `g`): the templates of their rules.
fn group(ground: &Ground, g: u32, members: &[u32], member: &[Option<(u32, u32)>], board: &Board) -> WordGroup {
    let mut templates: BTreeMap<Vec<WordLit>, u64> = BTreeMap::new();
    for &m in members {
        let p = member[m as usize].map_or(0, |(_, p)| p) as i32;
        for rule in &ground.nodes[m as usize].rules {
            let mut literals: Vec<WordLit> = rule
                .iter()
                .map(|&lit| match lit.prop {
                    Prop::Base(b) if board.base[b as usize].is_some() => {
                        WordLit::Base { word: b / 64, shift: (b % 64) as i32 - p, positive: lit.positive }
                    }
                    Prop::Does(r, m) => match board.moves.get(&(r, m)) {
                        Some(&(kind, q)) => WordLit::Does { kind, shift: q as i32 - p, positive: lit.positive },
                        None => WordLit::Fixed(lit),
                    },
                    Prop::Node(k) => match member[k as usize] {
                        Some((h, q)) => WordLit::Group { group: h, shift: q as i32 - p, positive: lit.positive },
                        None => WordLit::Fixed(lit),
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

/// Whether evaluating `group` as a word costs at most half of evaluating its members one by one.
fn pays(ground: &Ground, group: &WordGroup) -> bool {
    let one_by_one: usize =
        group.members.iter().flat_map(|&m| &ground.nodes[m as usize].rules).map(|r| r.len() + 1).sum();
    let rounds = if group.reads_itself { ASSUMED_ROUNDS } else { 1 };
    let as_word: usize = group.templates.iter().map(|t| t.literals.len() + 1).sum::<usize>() * rounds;
    group.templates.len() <= MAX_TEMPLATES && 2 * as_word <= one_by_one
}

/// The place of every move of each role that names one (the first coordinates among the
/// atoms of its name, longest first), and its kind: the role, and the rest of the name.
fn move_places(ground: &Ground, coordinates: &BTreeMap<Vec<String>, u32>) -> (MovePlaces, Vec<MoveKind>) {
    let lengths: BTreeSet<usize> = coordinates.keys().map(Vec::len).collect();
    let mut kinds: BTreeMap<(u32, String, Vec<String>), u32> = BTreeMap::new();
    let mut move_kinds: Vec<MoveKind> = Vec::new();
    let mut places = BTreeMap::new();
    for (role, moves) in ground.inputs.iter().enumerate() {
        for &m in moves {
            let name = &ground.moves[m as usize];
            let atoms = atoms_of(name);
            if atoms.len() > MAX_NAME_ATOMS {
                continue;
            }
            let mut found: Option<(Vec<usize>, u32)> = None;
            for &len in lengths.iter().rev() {
                subsequences(atoms.len(), len, &mut Vec::new(), 0, &mut |at| {
                    if found.is_none() {
                        let key: Vec<String> = at.iter().map(|&k| atoms[k].clone()).collect();
                        found = coordinates.get(&key).map(|&q| (at.to_vec(), q));
                    }
                });
                if found.is_some() {
                    break;
                }
            }
            let Some((at, q)) = found else { continue };
            let rest: Vec<String> =
                atoms.iter().enumerate().filter(|(j, _)| !at.contains(j)).map(|(_, a)| a.clone()).collect();
            let next = kinds.len() as u32;
            let kind = *kinds.entry((role as u32, head_of(name), rest)).or_insert(next);
            if kind as usize == move_kinds.len() {
                move_kinds.push(MoveKind { role: role as u32, places: Vec::new() });
            }
            move_kinds[kind as usize].places.push((m, q));
            places.insert((role as u32, m), (kind, q));
        }
    }
    (places, move_kinds)
}

/// The place of every base fact on a board, when it has one, and the coordinates that name
/// each place. A relation's facts are on a board when leaving out one argument (the colour, the
/// mark) leaves coordinates of at least two atoms that name one bit within a word, the same
/// for every value of the argument left out and for every such relation.
fn board(base: &[String]) -> (Vec<Option<u32>>, BTreeMap<Vec<String>, u32>) {
    let mut relations: BTreeMap<String, Vec<(usize, Vec<String>)>> = BTreeMap::new();
    for (i, name) in base.iter().enumerate() {
        if !name.is_empty() {
            relations.entry(head_of(name)).or_default().push((i, atoms_of(name)));
        }
    }
    let mut places: BTreeMap<Vec<String>, BTreeSet<u32>> = BTreeMap::new();
    let mut facts_at: BTreeMap<Vec<String>, Vec<usize>> = BTreeMap::new();
    for facts in relations.values() {
        let arity = facts[0].1.len();
        if arity < 3 || facts.iter().any(|(_, atoms)| atoms.len() != arity) {
            continue;
        }
        // The argument left out: of those that leave one place per coordinates, the one with
        // the fewest values.
        let mut best: Option<(usize, usize)> = None;
        for j in 0..arity {
            let mut at: BTreeMap<Vec<String>, BTreeSet<u32>> = BTreeMap::new();
            let mut values = BTreeSet::new();
            for (i, atoms) in facts {
                let mut key = atoms.clone();
                values.insert(key.remove(j));
                at.entry(key).or_default().insert(*i as u32 % 64);
            }
            if values.len() > 1 && at.values().all(|p| p.len() == 1) && best.is_none_or(|(_, v)| values.len() < v) {
                best = Some((j, values.len()));
            }
        }
        let Some((j, _)) = best else { continue };
        for (i, atoms) in facts {
            let mut key = atoms.clone();
            key.remove(j);
            places.entry(key.clone()).or_default().insert(*i as u32 % 64);
            facts_at.entry(key).or_default().push(*i);
        }
    }
    let mut base_place = vec![None; base.len()];
    let mut coordinates = BTreeMap::new();
    for (key, at) in places {
        if let [p] = at.iter().copied().collect::<Vec<_>>()[..] {
            for &i in &facts_at[&key] {
                base_place[i] = Some(p);
            }
            coordinates.insert(key, p);
        }
    }
    (base_place, coordinates)
}

/// How the nodes of a relation get their places.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum PlaceBy {
    /// From the coordinates at these positions among the atoms of the name.
    Name(Vec<usize>),
    /// From the first literal of the first rule: a base fact's place, or a node's.
    FirstLiteral,
}

/// Every node's place, when it has one. The nodes of each relation (in the order the ground
/// program first evaluates them) are placed in the way, among those their names and rules
/// allow, that puts the most of them in groups: `((aux 1) 3 3 5 4)`, a part of a rule split by
/// decomposition, is placed by the cell its first rule reads, not by the first pair of its
/// arguments.
fn places(
    ground: &Ground,
    excluded: &[bool],
    heads: &[String],
    board: &Board,
    coordinates: &BTreeMap<Vec<String>, u32>,
) -> (Vec<Option<u32>>, Vec<Option<Vec<String>>>) {
    let lengths: BTreeSet<usize> = coordinates.keys().map(Vec::len).collect();
    let mut of_head: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut head_order: Vec<&str> = Vec::new();
    for (i, head) in heads.iter().enumerate() {
        if excluded[i] || ground.nodes[i].rules.is_empty() {
            continue;
        }
        let nodes = of_head.entry(head).or_default();
        if nodes.is_empty() {
            head_order.push(head);
        }
        nodes.push(i);
    }
    let mut place: Vec<Option<u32>> = vec![None; ground.nodes.len()];
    let mut rest: Vec<Option<Vec<String>>> = vec![None; ground.nodes.len()];
    for head in head_order {
        let nodes = &of_head[head];
        if nodes.len() < GROUP_MIN {
            continue;
        }
        let atoms: Vec<Vec<String>> = nodes.iter().map(|&i| atoms_of(&ground.nodes[i].name)).collect();
        let mut options: BTreeSet<PlaceBy> = BTreeSet::new();
        for names in atoms.iter().take(16).filter(|a| a.len() <= MAX_NAME_ATOMS) {
            for &len in &lengths {
                subsequences(names.len(), len, &mut Vec::new(), 0, &mut |at| {
                    let key: Vec<String> = at.iter().map(|&k| names[k].clone()).collect();
                    if coordinates.contains_key(&key) {
                        options.insert(PlaceBy::Name(at.to_vec()));
                    }
                });
            }
        }
        options.insert(PlaceBy::FirstLiteral);
        // The best way yet: its score (nodes in groups, less a group's fewest members for each
        // group), and the places it gives.
        type Placing = (i64, PlaceBy, Vec<Option<u32>>);
        let mut best: Option<Placing> = None;
        for option in options {
            let mut local: BTreeMap<usize, u32> = BTreeMap::new();
            for (k, &i) in nodes.iter().enumerate() {
                let at = match &option {
                    PlaceBy::Name(at) => {
                        let key: Option<Vec<String>> = at.iter().map(|&j| atoms[k].get(j).cloned()).collect();
                        key.and_then(|key| coordinates.get(&key).copied())
                    }
                    PlaceBy::FirstLiteral => ground.nodes[i].rules[0].first().and_then(|lit| match lit.prop {
                        Prop::Base(b) => board.base[b as usize],
                        Prop::Does(r, m) => board.moves.get(&(r, m)).map(|&(_, q)| q),
                        Prop::Node(m) if heads[m as usize] == head => local.get(&(m as usize)).copied(),
                        Prop::Node(m) => place[m as usize],
                        _ => None,
                    }),
                };
                if let Some(p) = at {
                    local.insert(i, p);
                }
            }
            let lookup = |m: usize| if heads[m] == head { local.get(&m).copied() } else { place[m] };
            let name = |m: usize| Some(heads[m].clone());
            // By shape, how many nodes are at each place. Nodes placed by their names are
            // grouped by the rest of their names (see `template_candidates`).
            let mut shapes: BTreeMap<Vec<String>, BTreeMap<u32, usize>> = BTreeMap::new();
            for (k, &i) in nodes.iter().enumerate() {
                let Some(&p) = local.get(&i) else { continue };
                let shape = match &option {
                    PlaceBy::Name(used) => rest_of(&atoms[k], used),
                    PlaceBy::FirstLiteral => first_rule_shape(ground, i, p, &lookup, &name, board),
                };
                *shapes.entry(shape).or_default().entry(p).or_default() += 1;
            }
            // The most nodes in groups, in the fewest groups: a shape makes as many groups as
            // it has nodes at one place, and each group is weighed as the fewest members a
            // group may have.
            let mut score = 0i64;
            for at in shapes.values() {
                let (count, parts) = (at.values().sum::<usize>(), at.values().copied().max().unwrap_or(1));
                if count >= GROUP_MIN * parts {
                    score += count as i64 - (GROUP_MIN * parts) as i64;
                }
            }
            if best.as_ref().is_none_or(|(best, _, _)| score > *best) {
                best = Some((score, option, nodes.iter().map(|&i| local.get(&i).copied()).collect()));
            }
        }
        if let Some((_, option, at)) = best {
            for (k, (&i, p)) in nodes.iter().zip(at).enumerate() {
                place[i] = p;
                if let PlaceBy::Name(used) = &option {
                    rest[i] = Some(rest_of(&atoms[k], used));
                }
            }
        }
    }
    (place, rest)
}

/// The atoms of a name that are not its coordinates (`n` of `(hasothercolorindir 3 4 n)`),
/// given the positions `used` of its coordinates.
fn rest_of(atoms: &[String], used: &[usize]) -> Vec<String> {
    atoms.iter().enumerate().filter(|(j, _)| !used.contains(j)).map(|(_, a)| a.clone()).collect()
}

/// The shape of node `i`'s first rule relative to its place `p`: a board fact by its word and
/// distance, a placed node by its `name` and distance, anything else as itself.
fn first_rule_shape(
    ground: &Ground,
    i: usize,
    p: u32,
    place: &dyn Fn(usize) -> Option<u32>,
    name: &dyn Fn(usize) -> Option<String>,
    board: &Board,
) -> Vec<String> {
    let shift = |q: u32| q as i64 - p as i64;
    let mut shape: Vec<String> = ground.nodes[i].rules[0]
        .iter()
        .map(|lit| match lit.prop {
            Prop::Base(b) if board.base[b as usize].is_some() => {
                format!("b{} {} {}", b / 64, shift(b % 64), lit.positive)
            }
            Prop::Does(r, m) => match board.moves.get(&(r, m)) {
                Some(&(kind, q)) => format!("d{} {} {}", kind, shift(q), lit.positive),
                None => format!("f{lit:?}"),
            },
            Prop::Node(m) => match (place(m as usize), name(m as usize)) {
                (Some(q), Some(name)) => format!("n{} {} {}", name, shift(q), lit.positive),
                _ => format!("f{lit:?}"),
            },
            _ => format!("f{lit:?}"),
        })
        .collect();
    shape.sort();
    shape
}

/// Calls `visit` with every increasing sequence of `len` positions below `count`.
fn subsequences(count: usize, len: usize, at: &mut Vec<usize>, from: usize, visit: &mut dyn FnMut(&[usize])) {
    if at.len() == len {
        visit(at);
        return;
    }
    for i in from..count {
        at.push(i);
        subsequences(count, len, at, i + 1, visit);
        at.pop();
    }
}

/// The relation of an atom in canonical KIF: its first item.
fn head_of(name: &str) -> String {
    crate::ground::layout::split(name).0
}

/// The atoms of an atom's arguments, in order, nested terms flattened.
fn atoms_of(name: &str) -> Vec<String> {
    fn flatten(sx: &Sx, out: &mut Vec<String>) {
        match sx {
            Sx::Atom(a) => out.push(a.clone()),
            Sx::List(items) => items.iter().for_each(|item| flatten(item, out)),
        }
    }
    let mut out = Vec::new();
    if let Ok(Sx::List(items)) = kif::parse_one(name) {
        items.iter().skip(1).for_each(|item| flatten(item, &mut out));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 6x6 board of blank cells on which the one role marks a cell `x` per step: the rules
    /// that the test games below add to.
    const BOARD: &str = "
        (role p)
        (index 1) (index 2) (index 3) (index 4) (index 5) (index 6)
        (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
        (<= (init (cell ?x ?y b)) (index ?x) (index ?y))
        (<= (legal p (mark ?x ?y)) (true (cell ?x ?y b)))
        (<= (next (cell ?x ?y x)) (does p (mark ?x ?y)))
        (<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)) (does p (mark ?u ?v)) (distinct ?x ?u))
        (<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)) (does p (mark ?u ?v)) (distinct ?y ?v))";

    /// `BOARD` with `rules`, grounded.
    fn ground_of(rules: &str) -> Ground {
        crate::codegen::ground_source(&format!("{BOARD}{rules}"), &Default::default()).expect("grounds")
    }

    /// `(reach x y)` on `BOARD`: a run of `x` marks from cell `(x, y)` along its row, each
    /// cell's node reading the next cell's.
    const RUNS: &str = "
        (<= (reach ?x ?y) (true (cell ?x ?y x)) (succ ?y ?z) (true (cell ?x ?z x)))
        (<= (reach ?x ?y) (true (cell ?x ?y x)) (succ ?y ?z) (reach ?x ?z))
        (<= (open ?x ?y) (true (cell ?x ?y b)) (succ ?y ?z) (not (reach ?x ?z)))
        (<= terminal (reach ?x 1))
        (<= (goal p 100) (open ?x ?y))
        (<= (goal p 0) (not terminal))";

    fn runs() -> Ground {
        ground_of(RUNS)
    }

    /// Every node's value in `state` (bits by base fact) after the moves `joint` (by role), one
    /// by one in the ground order.
    fn one_by_one(ground: &Ground, state: &[bool], joint: &[u32]) -> Vec<bool> {
        let mut value = vec![false; ground.nodes.len()];
        for (n, node) in ground.nodes.iter().enumerate() {
            value[n] = node.rules.iter().any(|rule| {
                rule.iter().all(|lit| {
                    let holds = match lit.prop {
                        Prop::Base(b) => state[b as usize],
                        Prop::Node(m) => value[m as usize],
                        Prop::Does(r, m) => joint[r as usize] == m,
                        Prop::Check(_) => false,
                    };
                    holds == lit.positive
                })
            });
        }
        value
    }

    /// Every group's word in `state` after `joint`, by its templates (a gathered group's from
    /// its members' values), groups in the order of their ranks.
    fn as_words(words: &NodeWords, state: &[bool], joint: &[u32], value: &[bool]) -> Vec<u64> {
        let state_words: Vec<u64> = (0..state.len().div_ceil(64))
            .map(|w| (0..64).filter(|&b| state.get(64 * w + b) == Some(&true)).fold(0, |word, b| word | 1 << b))
            .collect();
        let shifted = |word: u64, shift: i32| if shift >= 0 { word >> shift } else { word << -shift };
        let mut order: Vec<usize> = (0..words.groups.len()).collect();
        order.sort_by_key(|&g| words.rank[words.groups[g].members[0] as usize]);
        let mut group_words = vec![0u64; words.groups.len()];
        for g in order {
            if words.groups[g].gathered {
                let members = words.groups[g].members.iter().filter(|&&m| value[m as usize]);
                group_words[g] = members.fold(0, |word, &m| word | 1 << words.member[m as usize].map_or(0, |(_, p)| p));
                continue;
            }
            loop {
                let word = words.groups[g].templates.iter().fold(0, |word, template| {
                    word | template.literals.iter().fold(template.mask, |acc, &lit| {
                        acc & match lit {
                            WordLit::Base { word, shift, positive } => {
                                let w = shifted(state_words[word as usize], shift);
                                if positive {
                                    w
                                } else {
                                    !w
                                }
                            }
                            WordLit::Group { group, shift, positive } => {
                                let w = shifted(group_words[group as usize], shift);
                                if positive {
                                    w
                                } else {
                                    !w
                                }
                            }
                            WordLit::Does { kind, shift, positive } => {
                                let kind = &words.move_kinds[kind as usize];
                                let played = joint[kind.role as usize];
                                let at = kind.places.iter().find(|&&(m, _)| m == played);
                                let w = shifted(at.map_or(0, |&(_, p)| 1 << p), shift);
                                if positive {
                                    w
                                } else {
                                    !w
                                }
                            }
                            WordLit::Fixed(lit) => {
                                let holds = match lit.prop {
                                    Prop::Base(b) => state[b as usize],
                                    Prop::Node(m) => value[m as usize],
                                    _ => false,
                                } == lit.positive;
                                if holds {
                                    u64::MAX
                                } else {
                                    0
                                }
                            }
                        }
                    })
                });
                if word == group_words[g] {
                    break;
                }
                group_words[g] = word;
            }
        }
        group_words
    }

    #[test]
    fn a_row_of_runs_is_one_word_that_reads_itself() {
        let ground = runs();
        let words = find(&ground, &vec![false; ground.nodes.len()], &vec![false; ground.nodes.len()]);
        let reach: Vec<usize> =
            (0..ground.nodes.len()).filter(|&n| ground.nodes[n].name.starts_with("(reach")).collect();
        assert!(reach.len() >= 24, "{} reach nodes", reach.len());
        let (g, _) = words.member[reach[0]].expect("reach nodes are in a group");
        assert!(reach.iter().all(|&n| words.member[n].map(|(h, _)| h) == Some(g)));
        assert!(words.groups[g as usize].reads_itself);
        // Each sits where its cell does.
        for &n in &reach {
            let cell = ground.nodes[n].name.replace("(reach", "(cell").replace(')', " b)");
            let b = ground.base.iter().position(|f| *f == cell).expect("the cell is a base fact");
            assert_eq!(words.member[n].map(|(_, p)| p), Some(b as u32 % 64), "{}", ground.nodes[n].name);
        }
        // Members of a group come together in the order of evaluation.
        let mut ranks: Vec<u32> = reach.iter().map(|&n| words.rank[n]).collect();
        ranks.sort_unstable();
        assert_eq!(ranks.last().unwrap() - ranks[0], ranks.len() as u32 - 1);
    }

    /// `(near x y)` on `BOARD`: it holds when the cell beside `(x, y)` along its column, on
    /// either side, is blank; cells at the ends of a column have one of the two rules only.
    const NEAR: &str = "
        (<= (near ?x ?y) (true (cell ?x ?y x)) (succ ?y ?z) (true (cell ?x ?z b)))
        (<= (near ?x ?y) (true (cell ?x ?y x)) (succ ?z ?y) (true (cell ?x ?z b)))
        (<= terminal (not (near 1 1)) (near 6 6))
        (<= (goal p 100) (near ?x ?y))
        (<= (goal p 0) (not terminal))";

    #[test]
    fn nodes_placed_by_their_names_form_one_group_whatever_their_first_rules() {
        let ground = ground_of(NEAR);
        let words = find(&ground, &vec![false; ground.nodes.len()], &vec![false; ground.nodes.len()]);
        let near: Vec<usize> = (0..ground.nodes.len()).filter(|&n| ground.nodes[n].name.starts_with("(near")).collect();
        assert_eq!(near.len(), 36);
        // The first rules of the first and last cells of a column have different shapes.
        let first = |y: &str| {
            let n = near.iter().find(|&&n| ground.nodes[n].name == format!("(near 2 {y})")).expect("a near node");
            ground.nodes[*n].rules.len()
        };
        assert_eq!((first("1"), first("3"), first("6")), (1, 2, 1));
        let (g, _) = words.member[near[0]].expect("near nodes are in a group");
        assert!(near.iter().all(|&n| words.member[n].map(|(h, _)| h) == Some(g)));
        // One template for each of the two rules.
        assert_eq!(words.groups[g as usize].templates.len(), 2);
    }

    #[test]
    fn words_agree_with_the_nodes_one_by_one() {
        let ground = runs();
        let words = find(&ground, &vec![false; ground.nodes.len()], &vec![false; ground.nodes.len()]);
        assert!(!words.groups.is_empty());
        // The next state's marks read the move played as a word.
        let literals = words.groups.iter().flat_map(|g| &g.templates).flat_map(|t| &t.literals);
        assert!(literals.into_iter().any(|l| matches!(l, WordLit::Does { .. })));
        // States from a fixed pseudo-random sequence: each cell blank or marked.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            let state: Vec<bool> = (0..ground.base.len())
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    !seed.is_multiple_of(3)
                })
                .collect();
            let inputs = &ground.inputs[0];
            let joint = [inputs[seed as usize % inputs.len()]];
            let value = one_by_one(&ground, &state, &joint);
            let group_words = as_words(&words, &state, &joint, &value);
            for (n, member) in words.member.iter().enumerate() {
                if let Some((g, p)) = member {
                    assert_eq!(group_words[*g as usize] >> p & 1 != 0, value[n], "{}", ground.nodes[n].name);
                }
            }
        }
    }

    #[test]
    fn coordinates_name_the_places_of_a_board() {
        let base: Vec<String> =
            ["(cell 1 1 b)", "(cell 1 2 b)", "(cell 1 1 x)", "(cell 1 2 x)", "(control p)", "(step 1)"]
                .iter()
                .map(ToString::to_string)
                .collect();
        // The same coordinates at different bits of one word name no place.
        let (place, coordinates) = board(&base);
        assert!(place.iter().all(Option::is_none));
        assert!(coordinates.is_empty());
        // A colour a word further on: the same bit of each word.
        let mut padded = base.clone();
        padded.splice(2..2, (0..62).map(|_| String::new()));
        let (place, coordinates) = board(&padded);
        assert_eq!(place[64], Some(0));
        assert_eq!(coordinates.get(&vec!["1".to_string(), "2".to_string()]), Some(&1));
    }
}
