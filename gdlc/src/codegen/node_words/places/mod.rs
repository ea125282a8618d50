//! Where things are on the board: the coordinates that name a place (a bit within a state
//! word), the place of every base fact and node that has one (of the moves: `moves.rs`), and
//! the shapes of a node's rules relative to its place.

mod moves;
pub(super) use moves::move_places;

use super::{Board, GROUP_MIN};
use crate::ground::{Ground, Prop};
use gdl_runtime::kif::{self, Sx};
use std::collections::{BTreeMap, BTreeSet};

/// The most atoms of a node's name searched for coordinates.
const MAX_NAME_ATOMS: usize = 8;

/// The place of every base fact on a board, when it has one, and the coordinates that name
/// each place. A relation's facts are on a board when leaving out one argument (the colour, the
/// mark), or two (a player and a piece), or three (and its promotion), leaves coordinates of
/// at least two atoms that name one bit within a word for each value of the arguments left
/// out, every value's board the same cells at the same distances
/// (two colours of a small board may share a word, one after the other). A place is the bit of
/// the coordinates in the board of the value that comes first; a template reads another
/// value's board shifted by the distance between the two. Coordinates must name one place for
/// every such relation. A board wider than a word (hex's 81 cells) takes whole words from a
/// word's start: its places repeat from one word to the next, and coordinates also name the
/// word of the board they are in, which tells apart moves at the same place.
pub(super) fn board(base: &[String]) -> (Vec<Option<u32>>, Coordinates) {
    let mut relations: BTreeMap<String, Vec<(usize, Vec<String>)>> = BTreeMap::new();
    for (i, name) in base.iter().enumerate() {
        if !name.is_empty() {
            relations.entry(head_of(name)).or_default().push((i, atoms_of(name)));
        }
    }
    let mut places: BTreeMap<Vec<String>, BTreeSet<(u32, u32)>> = BTreeMap::new();
    let mut facts_at: BTreeMap<Vec<String>, Vec<usize>> = BTreeMap::new();
    for facts in relations.values() {
        let arity = facts[0].1.len();
        if arity < 3 || facts.iter().any(|(_, atoms)| atoms.len() != arity) {
            continue;
        }
        // The argument left out: of those that leave every value the same board, the one with
        // the fewest values; else a pair of them (a player and a piece), or three; with the place
        // of every coordinates.
        let best_of = |sets: &mut dyn Iterator<Item = Vec<usize>>| {
            let mut best: Option<LeftOut> = None;
            for left_out in sets {
                let Some(at) = boards_by(facts, &left_out) else { continue };
                let values: BTreeSet<Vec<&String>> =
                    facts.iter().map(|(_, atoms)| left_out.iter().map(|&j| &atoms[j]).collect()).collect();
                if best.as_ref().is_none_or(|(v, _, _)| values.len() < *v) {
                    best = Some((values.len(), left_out, at));
                }
            }
            best
        };
        let mut best = best_of(&mut (0..arity).map(|j| vec![j]));
        // Boards that span words by one argument left out may each be one word by two (a
        // player's pieces: `(cell ?x ?y ?player ?piece)`), when two leave coordinates of two
        // atoms or more.
        if arity >= 4 && best.as_ref().is_none_or(|(_, left_out, _)| board_words(facts, left_out) > 1) {
            let pairs = (0..arity).flat_map(|a| (a + 1..arity).map(move |b| vec![a, b]));
            let pair = best_of(&mut pairs.filter(|left_out| board_words(facts, left_out) == 1));
            best = pair.or(best);
        }
        // Boards that span many words by one argument left out, and no word by two, may span
        // two by three (a player, a piece and its promotion: shogi's 81 cells), when three leave
        // coordinates of two atoms or more.
        let words = best.as_ref().map_or(usize::MAX, |(_, left_out, _)| board_words(facts, left_out));
        if arity >= 5 && words > 2 {
            let triples =
                (0..arity).flat_map(|a| (a + 1..arity).flat_map(move |b| (b + 1..arity).map(move |c| vec![a, b, c])));
            let triple = best_of(&mut triples.filter(|left_out| board_words(facts, left_out) <= 2));
            best = triple.or(best);
        }
        let Some((_, left_out, at)) = best else { continue };
        let value_of = |atoms: &[String]| -> Vec<String> { left_out.iter().map(|&j| atoms[j].clone()).collect() };
        let key_of = |atoms: &[String]| -> Vec<String> {
            (0..atoms.len()).filter(|j| !left_out.contains(j)).map(|j| atoms[j].clone()).collect()
        };
        // A board wider than a word goes on in the words after its first.
        let mut first_word: BTreeMap<Vec<String>, usize> = BTreeMap::new();
        for (i, atoms) in facts {
            let word = first_word.entry(value_of(atoms)).or_insert(i / 64);
            *word = (*word).min(i / 64);
        }
        for (i, atoms) in facts {
            let key = key_of(atoms);
            let word = (i / 64 - first_word[&value_of(atoms)]) as u32;
            places.entry(key.clone()).or_default().insert((at[&key], word));
            facts_at.entry(key).or_default().push(*i);
        }
    }
    let mut base_place = vec![None; base.len()];
    let mut coordinates = Coordinates::new();
    for (key, at) in places {
        if let [(p, word)] = at.iter().copied().collect::<Vec<_>>()[..] {
            for &i in &facts_at[&key] {
                base_place[i] = Some(p);
            }
            coordinates.insert(key, (p, word));
        }
    }
    // The word matters only where two coordinates share a place.
    let distinct: BTreeSet<u32> = coordinates.values().map(|&(p, _)| p).collect();
    if distinct.len() == coordinates.len() {
        coordinates.values_mut().for_each(|(_, word)| *word = 0);
    }
    (base_place, coordinates)
}

/// Arguments left out of a relation's facts to leave coordinates: the number of their values,
/// their positions, and the place of every coordinates.
type LeftOut = (usize, Vec<usize>, BTreeMap<Vec<String>, u32>);

/// The most words that the facts of one value of the arguments `left_out` span.
fn board_words(facts: &[(usize, Vec<String>)], left_out: &[usize]) -> usize {
    let mut words: BTreeMap<Vec<&String>, BTreeSet<usize>> = BTreeMap::new();
    for (i, atoms) in facts {
        words.entry(left_out.iter().map(|&j| &atoms[j]).collect()).or_default().insert(i / 64);
    }
    words.values().map(BTreeSet::len).max().unwrap_or(0)
}

/// The boards of `facts` with the arguments `left_out` left out: for every coordinates (the other
/// arguments), its bit, when there are two values or more and the coordinates name one bit
/// in every value's board; or else its bit in the first value's board, when each value's bits
/// are the first value's moved by one distance, no two values' bits interleave, and the first
/// value's bits are distinct. A value may miss coordinates that others have (a hole of the
/// layout): their bit is then another value's, moved back by that value's distance.
fn boards_by(facts: &[(usize, Vec<String>)], left_out: &[usize]) -> Option<BTreeMap<Vec<String>, u32>> {
    let mut by_value: BTreeMap<Vec<&String>, BTreeMap<Vec<String>, u32>> = BTreeMap::new();
    let mut aligned: BTreeMap<Vec<String>, BTreeSet<u32>> = BTreeMap::new();
    for (i, atoms) in facts {
        let key: Vec<String> = (0..atoms.len()).filter(|j| !left_out.contains(j)).map(|j| atoms[j].clone()).collect();
        let value: Vec<&String> = left_out.iter().map(|&j| &atoms[j]).collect();
        aligned.entry(key.clone()).or_default().insert(*i as u32 % 64);
        by_value.entry(value).or_default().insert(key, *i as u32 % 64);
    }
    if by_value.len() < 2 {
        return None;
    }
    if aligned.values().all(|bits| bits.len() == 1) {
        return Some(aligned.into_iter().filter_map(|(key, bits)| Some((key, bits.first().copied()?))).collect());
    }
    // The first value: the one whose board starts at the lowest bit.
    let first = by_value.values().min_by_key(|board| board.values().min().copied())?;
    let distinct: BTreeSet<u32> = first.values().copied().collect();
    if distinct.len() != first.len() {
        return None;
    }
    // Each value's board is a run of bits apart from the others' (the layout's block of a
    // colour), not a row of the board that other rows interleave; boards in different words
    // are apart.
    let mut span_of: BTreeMap<Vec<&String>, (usize, usize)> = BTreeMap::new();
    for (i, atoms) in facts {
        let span = span_of.entry(left_out.iter().map(|&j| &atoms[j]).collect()).or_insert((*i, *i));
        *span = (span.0.min(*i), span.1.max(*i));
    }
    let mut spans: Vec<(usize, usize)> = span_of.into_values().collect();
    spans.sort_unstable();
    if spans.windows(2).any(|pair| pair[0].1 >= pair[1].0) {
        return None;
    }
    // A value's board may miss cells of another's (the layout's holes: discs on the middle
    // columns only); each is moved by its distance onto the places of the boards placed
    // before it, with which it must share a cell, and the union of the boards is the board.
    let mut union = first.clone();
    let mut pending: Vec<&BTreeMap<Vec<String>, u32>> = by_value.values().collect();
    while !pending.is_empty() {
        let before = pending.len();
        let mut unplaced = Vec::new();
        for board in pending {
            let Some(distance) =
                board.iter().find_map(|(key, &bit)| Some(i64::from(bit) - i64::from(*union.get(key)?)))
            else {
                unplaced.push(board);
                continue;
            };
            for (key, &bit) in board {
                let place = u32::try_from(i64::from(bit) - distance).ok().filter(|&p| p < 64)?;
                if *union.entry(key.clone()).or_insert(place) != place {
                    return None;
                }
            }
        }
        if unplaced.len() == before {
            return None;
        }
        pending = unplaced;
    }
    let distinct: BTreeSet<u32> = union.values().copied().collect();
    (distinct.len() == union.len()).then_some(union)
}

/// By the atoms that name a place, the place (a bit within a word) and the word of the board it
/// is in (0 unless two coordinates share a place).
pub(super) type Coordinates = BTreeMap<Vec<String>, (u32, u32)>;

/// How the nodes of a relation get their places.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum PlaceBy {
    /// From the coordinates at these positions among the atoms of the name.
    Name(Vec<usize>),
    /// From the coordinates at the first positions, with the coordinates at the second told
    /// by their distance from the first: `(move 1 2 1 4)` at cell (1, 2), grouped with every
    /// move two cells up.
    Relative(Vec<usize>, Vec<usize>),
    /// From the first literal of the first rule: a base fact's place, or a node's.
    FirstLiteral,
    /// The bit of the base fact whose next value the node is.
    OwnBit,
}

/// Every node's place, when it has one. The nodes of each relation (in the order the ground
/// program first evaluates them) are placed in the way, among those their names and rules
/// allow, that puts the most of them in groups: `((aux 1) 3 3 5 4)`, a part of a rule split by
/// decomposition, is placed by the cell its first rule reads, not by the first pair of its
/// arguments; `(legal white (move 1 2 1 4))` by its first cell, in a group with the moves of
/// the same distance between their cells.
pub(super) fn places(
    ground: &Ground,
    excluded: &[bool],
    heads: &[String],
    board: &Board,
    coordinates: &Coordinates,
) -> Places {
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
    let mut direction: Vec<Option<Vec<i64>>> = vec![None; ground.nodes.len()];
    let sides = sides(coordinates);
    let cycle_of = ground.cycle_of();
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
        let named: Vec<Vec<usize>> =
            options.iter().filter_map(|o| if let PlaceBy::Name(at) = o { Some(at.clone()) } else { None }).collect();
        // Either place may come first in the name: othello's `((aux 11) black 4 4 2 3)` is
        // grouped by its second cell, the disc placed, and the distance to its first.
        for from in &named {
            for to in named.iter().filter(|to| to.len() == from.len() && to.iter().all(|j| !from.contains(j))) {
                options.insert(PlaceBy::Relative(from.clone(), to.clone()));
            }
        }
        options.insert(PlaceBy::FirstLiteral);
        if nodes.iter().all(|&i| board.own[i].is_some()) {
            options.insert(PlaceBy::OwnBit);
        }
        // The best way yet: its score (nodes in groups, less a group's fewest members for each
        // group; then the fewer recursive groups of the ground program its groups cut across,
        // counted negative), the places it gives by node, what groups them (the rest of their
        // names, or their first rules' shapes), and the templates of its groups (the distinct
        // shapes of each group's rules, summed) once a tie has needed them. On a tie with a way
        // whose groups take more templates than half their rules (its groups would not pay:
        // see `pays`), the way of fewer templates wins: dotsAndBoxes' `(box_formed 2 3)` is one
        // group at the place of box (2, 3) or at that of its left side, but only at the side
        // are its rules' distances the same for every box; skirmishFinal3's lines between two
        // columns of a row, cut by holes, are as many in groups by their row as by their last
        // column, but only by the column is the cell each reads at the same distance.
        type Placing = ((i64, i64), PlaceBy, BTreeMap<usize, u32>, BTreeMap<usize, Vec<String>>, Option<usize>);
        let mut best: Option<Placing> = None;
        for option in options {
            let mut local: BTreeMap<usize, u32> = BTreeMap::new();
            for (k, &i) in nodes.iter().enumerate() {
                let at = match &option {
                    PlaceBy::Name(at) | PlaceBy::Relative(at, _) => {
                        place_at(&atoms[k], at, coordinates).map(|(place, _)| place)
                    }
                    PlaceBy::OwnBit => board.own[i].map(|b| b % 64),
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
            let mut cycles_of_shape: BTreeMap<Vec<String>, BTreeSet<usize>> = BTreeMap::new();
            let mut keys: BTreeMap<usize, Vec<String>> = BTreeMap::new();
            for (k, &i) in nodes.iter().enumerate() {
                let Some(&p) = local.get(&i) else { continue };
                let shape = match &option {
                    PlaceBy::Name(used) => rest_at(&atoms[k], used, coordinates),
                    PlaceBy::Relative(from, to) => rest_relative(&atoms[k], from, to, coordinates),
                    PlaceBy::FirstLiteral => first_rule_shape(ground, i, p, &lookup, &name, board),
                    // The next values of one relation share a word, whatever their rules: each
                    // shape of rule among them is a template.
                    PlaceBy::OwnBit => Vec::new(),
                };
                if let Some(c) = cycle_of[i] {
                    cycles_of_shape.entry(shape.clone()).or_default().insert(c);
                }
                keys.insert(i, shape.clone());
                *shapes.entry(shape).or_default().entry(p).or_default() += 1;
            }
            // A group that holds parts of many recursive groups joins them all in one loop.
            let cut: usize = cycles_of_shape.values().map(|cycles| cycles.len() - 1).sum();
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
            let score = (score, -(cut as i64));
            let shapes_at = |at: &BTreeMap<usize, u32>, keys: &BTreeMap<usize, Vec<String>>| {
                let lookup = |m: usize| if heads[m] == head { at.get(&m).copied() } else { place[m] };
                templates_of_groups(ground, at, keys, &lookup, &name, board)
            };
            let mut shapes = None;
            let better = match &mut best {
                None => true,
                Some((best, ..)) if score != *best => score > *best,
                Some((_, _, best_at, best_keys, best_shapes)) => {
                    let fewest = *best_shapes.get_or_insert_with(|| shapes_at(best_at, best_keys));
                    let rules: usize = best_at.keys().map(|&i| ground.nodes[i].rules.len()).sum();
                    2 * fewest > rules && {
                        let mine = shapes_at(&local, &keys);
                        shapes = Some(mine);
                        mine < fewest
                    }
                }
            };
            if better {
                best = Some((score, option, local, keys, shapes));
            }
        }
        if let Some((_, option, at, _, _)) = best {
            for (k, &i) in nodes.iter().enumerate() {
                place[i] = at.get(&i).copied();
                match &option {
                    PlaceBy::Name(used) => rest[i] = Some(rest_at(&atoms[k], used, coordinates)),
                    PlaceBy::Relative(from, to) => {
                        rest[i] = Some(rest_relative(&atoms[k], from, to, coordinates));
                        direction[i] = direction_around(&atoms[k], from, to, &sides);
                    }
                    PlaceBy::OwnBit => rest[i] = Some(Vec::new()),
                    PlaceBy::FirstLiteral => {}
                }
            }
        }
    }
    Places { place, rest, direction }
}

/// Where [`places`] puts the nodes.
pub(super) struct Places {
    /// Every node's place, when it has one.
    pub place: Vec<Option<u32>>,
    /// For a node placed by its name, the rest of its name.
    pub rest: Vec<Option<Vec<String>>>,
    /// For a node placed by two cells of its name, the steps from the first to the second along
    /// each coordinate, counted around the board (modulo its side): a move from column 8 to
    /// column 1 of eight goes one step right, as the moves that stay on the board do.
    pub direction: Vec<Option<Vec<i64>>>,
}

/// The values of each coordinate of a board, in order: by the length of a cell's coordinates,
/// for each coordinate, every value's index (numbers by their value, other atoms in the order
/// of their names: `a` to `h`).
type Sides = BTreeMap<usize, Vec<BTreeMap<String, i64>>>;

/// The [`Sides`] of the boards of `coordinates`.
fn sides(coordinates: &Coordinates) -> Sides {
    let mut values: BTreeMap<usize, Vec<BTreeSet<&str>>> = BTreeMap::new();
    for key in coordinates.keys() {
        let of_length = values.entry(key.len()).or_insert_with(|| vec![BTreeSet::new(); key.len()]);
        for (k, atom) in key.iter().enumerate() {
            of_length[k].insert(atom);
        }
    }
    let indices = |set: &BTreeSet<&str>| -> BTreeMap<String, i64> {
        let mut ordered: Vec<&str> = set.iter().copied().collect();
        if ordered.iter().all(|atom| atom.parse::<i64>().is_ok()) {
            ordered.sort_by_key(|atom| atom.parse::<i64>().unwrap_or_default());
        }
        ordered.into_iter().enumerate().map(|(index, atom)| (atom.to_string(), index as i64)).collect()
    };
    values.into_iter().map(|(len, sets)| (len, sets.iter().map(indices).collect())).collect()
}

/// The steps from the cell at `from` to the cell at `to` along each coordinate, modulo the
/// board's sides.
fn direction_around(atoms: &[String], from: &[usize], to: &[usize], sides: &Sides) -> Option<Vec<i64>> {
    let sides = sides.get(&from.len())?;
    (from.iter().zip(to).zip(sides))
        .map(|((&f, &t), index)| {
            let step = index.get(atoms.get(t)?)? - index.get(atoms.get(f)?)?;
            Some(step.rem_euclid(index.len().max(1) as i64))
        })
        .collect()
}

/// The atoms of a name that are not its coordinates (`n` of `(hasothercolorindir 3 4 n)`),
/// given the positions `used` of its coordinates; then, when the coordinates are in a word of
/// a board past its first, that word (as `#word 1`, which no atom is), so that the nodes of
/// each word of the board are grouped apart.
fn rest_at(atoms: &[String], used: &[usize], coordinates: &Coordinates) -> Vec<String> {
    let mut rest = rest_of(atoms, used);
    if let Some((_, word)) = place_at(atoms, used, coordinates) {
        if word > 0 {
            rest.push(format!("#word {word}"));
        }
    }
    rest
}

/// The place and the word of the coordinates at positions `at` among `atoms`, when they name one.
fn place_at(atoms: &[String], at: &[usize], coordinates: &Coordinates) -> Option<(u32, u32)> {
    let key: Vec<String> = at.iter().map(|&j| atoms.get(j).cloned()).collect::<Option<_>>()?;
    coordinates.get(&key).copied()
}

/// The rest of a name placed by the coordinates at `from` (see [`rest_at`]), with the
/// coordinates at `to` replaced by their distance from the place, in bits of the board.
fn rest_relative(atoms: &[String], from: &[usize], to: &[usize], coordinates: &Coordinates) -> Vec<String> {
    let bit = |at: &[usize]| -> Option<i64> {
        place_at(atoms, at, coordinates).map(|(place, word)| i64::from(word) * 64 + i64::from(place))
    };
    let (Some(from_bit), Some(to_bit)) = (bit(from), bit(to)) else {
        // Atoms at `to` that name no place stay in the rest, as for a name placed by `from`.
        return rest_at(atoms, from, coordinates);
    };
    let used: Vec<usize> = from.iter().chain(to).copied().collect();
    let mut rest = rest_of(atoms, &used);
    if from_bit >= 64 {
        rest.push(format!("#word {}", from_bit / 64));
    }
    rest.push(format!("#distance {}", to_bit - from_bit));
    rest
}

/// The atoms of a name that are not its coordinates, given the positions `used` of its
/// coordinates.
fn rest_of(atoms: &[String], used: &[usize]) -> Vec<String> {
    atoms.iter().enumerate().filter(|(j, _)| !used.contains(j)).map(|(_, a)| a.clone()).collect()
}

/// The shape of node `i`'s first rule relative to its place `p` (see [`rule_shape`]).
pub(super) fn first_rule_shape(
    ground: &Ground,
    i: usize,
    p: u32,
    place: &dyn Fn(usize) -> Option<u32>,
    name: &dyn Fn(usize) -> Option<String>,
    board: &Board,
) -> Vec<String> {
    rule_shape(&ground.nodes[i].rules[0], i, p, place, name, board)
}

/// The shape of `rule`, of node `i`, relative to the node's place `p`: a board fact by its
/// word and distance, a placed node by its `name` and distance, a node of the move table by
/// the distance of its bit in the table's row, anything else as itself.
fn rule_shape(
    rule: &[crate::ground::Lit],
    i: usize,
    p: u32,
    place: &dyn Fn(usize) -> Option<u32>,
    name: &dyn Fn(usize) -> Option<String>,
    board: &Board,
) -> Vec<String> {
    let shift = |q: u32| q as i64 - p as i64;
    let mut shape: Vec<String> = rule
        .iter()
        .map(|lit| match lit.prop {
            Prop::Base(b) if board.base_place(i, b).is_some() => {
                format!("b{} {} {}", b / 64, shift(b % 64), lit.positive)
            }
            Prop::Does(r, m) => match board.moves.get(&(r, m)) {
                Some(&(kind, q)) => format!("d{} {} {}", kind, shift(q), lit.positive),
                None => format!("f{lit:?}"),
            },
            Prop::Node(m) => {
                match (place(m as usize), name(m as usize), board.table.get(m as usize).copied().flatten()) {
                    (Some(q), Some(name), _) => format!("n{} {} {}", name, shift(q), lit.positive),
                    (None, _, Some(t)) => format!("t{} {} {}", t / 64, shift(t % 64), lit.positive),
                    _ => format!("f{lit:?}"),
                }
            }
            _ => format!("f{lit:?}"),
        })
        .collect();
    shape.sort();
    shape
}

/// The templates that the groups of the nodes placed at `at` would have, grouped by `keys`:
/// for each group, the number of distinct shapes among its members' rules (see
/// [`rule_shape`]), summed.
fn templates_of_groups(
    ground: &Ground,
    at: &BTreeMap<usize, u32>,
    keys: &BTreeMap<usize, Vec<String>>,
    place: &dyn Fn(usize) -> Option<u32>,
    name: &dyn Fn(usize) -> Option<String>,
    board: &Board,
) -> usize {
    let mut shapes: BTreeSet<(&Vec<String>, Vec<String>)> = BTreeSet::new();
    for (&i, key) in keys {
        let Some(&p) = at.get(&i) else { continue };
        for rule in &ground.nodes[i].rules {
            shapes.insert((key, rule_shape(rule, i, p, place, name, board)));
        }
    }
    shapes.len()
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
pub(super) fn head_of(name: &str) -> String {
    crate::ground::layout::split(name).0
}

/// The atoms of an atom's arguments, in order, nested terms flattened.
pub(super) fn atoms_of(name: &str) -> Vec<String> {
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
mod tests;
