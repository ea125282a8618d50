//! The places of the moves: each move that names a place of the board, by the coordinates
//! among the atoms of its name or by the fact it names, and its kind.

use super::{atoms_of, head_of, rest_of, rest_relative, subsequences, Coordinates, MAX_NAME_ATOMS};
use crate::codegen::node_words::{MoveKind, MovePlaces};
use crate::ground::Ground;
use std::collections::{BTreeMap, BTreeSet};

/// The most kinds of move: a move's kind and place are one `u32`, `kind * 64 + place`, and
/// `u32::MAX` is a move of no kind.
const MAX_MOVE_KINDS: usize = (u32::MAX >> 6) as usize;

/// The place of every move of each role that names one (the first coordinates among the
/// atoms of its name, longest first; the coordinates of the fact whose atoms the name repeats,
/// when one on the board does), and its kind: the role, the rest of the name (a second place
/// in it, where a piece goes, as its distance from the first), and the word of a board wider
/// than a word that the place is in.
pub(in crate::codegen::node_words) fn move_places(
    ground: &Ground,
    coordinates: &Coordinates,
    base_place: &[Option<u32>],
) -> (MovePlaces, Vec<MoveKind>) {
    let lengths: BTreeSet<usize> = coordinates.keys().map(Vec::len).collect();
    let fact_place = places_of_named_facts(&ground.base, base_place);
    let mut kinds: BTreeMap<(u32, String, Vec<String>, u32, u32), u32> = BTreeMap::new();
    let mut move_kinds: Vec<MoveKind> = Vec::new();
    let mut places = BTreeMap::new();
    for (role, moves) in ground.inputs.iter().enumerate() {
        for &m in moves {
            let name = &ground.moves[m as usize];
            let atoms = atoms_of(name);
            if atoms.len() > MAX_NAME_ATOMS {
                continue;
            }
            // dotsAndBoxes' `(draw 1 1 2 1)` draws `(line 1 1 2 1)`, whose coordinates are its
            // last three atoms; its first three are the coordinates of `(line 1 1 1 2)`.
            let named = fact_place.get(&atoms).copied();
            let mut found: Option<(Vec<usize>, (u32, u32))> = None;
            for &len in lengths.iter().rev() {
                subsequences(atoms.len(), len, &mut Vec::new(), 0, &mut |at| {
                    if found.is_none() {
                        let key: Vec<String> = at.iter().map(|&k| atoms[k].clone()).collect();
                        found = (coordinates.get(&key))
                            .filter(|&&(place, _)| named.is_none_or(|p| p == place))
                            .map(|&place| (at.to_vec(), place));
                    }
                });
                if found.is_some() {
                    break;
                }
            }
            let Some((at, (q, word))) = found else { continue };
            // The kind is keyed by `word` too, so the word `rest_relative` may add changes nothing.
            // A move that names a fact is told by its place alone, as the fact is: every draw
            // of a line is one kind, whatever atom the line's coordinates leave out.
            let rest = match second_place(&atoms, &at, coordinates) {
                _ if named.is_some() => Vec::new(),
                Some(to) => rest_relative(&atoms, &at, &to, coordinates),
                None => rest_of(&atoms, &at),
            };
            // Two moves of a kind at one place would be one bit of the kind's word: a move
            // whose place its kind already has goes to the next kind of the same key that has
            // the place free (dotsAndBoxes' `(draw 1 1 1 2)` and `(draw 1 1 2 1)`, whose first
            // three atoms name one line).
            let taken = |kind: u32| move_kinds[kind as usize].places.iter().any(|&(_, p)| p == q);
            let mut key = (role as u32, head_of(name), rest, word, 0u32);
            while kinds.get(&key).is_some_and(|&kind| taken(kind)) {
                key.4 += 1;
            }
            if kinds.len() == MAX_MOVE_KINDS && !kinds.contains_key(&key) {
                continue;
            }
            let next = kinds.len() as u32;
            let kind = *kinds.entry(key).or_insert(next);
            if kind as usize == move_kinds.len() {
                move_kinds.push(MoveKind { role: role as u32, places: Vec::new() });
            }
            move_kinds[kind as usize].places.push((m, q));
            places.insert((role as u32, m), (kind, q));
        }
    }
    (places, move_kinds)
}

/// By the atoms of their names, the places of the base facts on the board that no other fact
/// on it shares atoms with.
fn places_of_named_facts(base: &[String], base_place: &[Option<u32>]) -> BTreeMap<Vec<String>, u32> {
    let mut places: BTreeMap<Vec<String>, BTreeSet<u32>> = BTreeMap::new();
    for (name, place) in base.iter().zip(base_place) {
        if let Some(p) = *place {
            places.entry(atoms_of(name)).or_default().insert(p);
        }
    }
    let unique = |at: &BTreeSet<u32>| if at.len() == 1 { at.first().copied() } else { None };
    places.into_iter().filter_map(|(atoms, at)| Some((atoms, unique(&at)?))).collect()
}

/// The positions of a second place among the atoms of a move's name past those at `at` (the
/// cell a piece goes to): such a move's kind is told by the distance between
/// its two places, so that every move two cells up is one kind.
fn second_place(atoms: &[String], at: &[usize], coordinates: &Coordinates) -> Option<Vec<usize>> {
    let others: Vec<usize> = (0..atoms.len()).filter(|j| !at.contains(j)).collect();
    let mut found = None;
    subsequences(others.len(), at.len(), &mut Vec::new(), 0, &mut |picked| {
        if found.is_none() {
            let to: Vec<usize> = picked.iter().map(|&k| others[k]).collect();
            let key: Vec<String> = to.iter().map(|&k| atoms[k].clone()).collect();
            found = coordinates.contains_key(&key).then_some(to);
        }
    });
    found
}
