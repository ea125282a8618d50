//! The candidate groups of node words: nodes of one relation at distinct places, by the rest
//! of their names or the shape of their first rules; small ones joined to larger ones of the
//! same shape (a torus's moves across its edge); and those kept when others fail.

use super::places::first_rule_shape;
use super::{Board, GROUP_MIN};
use crate::ground::Ground;
use std::collections::{BTreeMap, BTreeSet};

/// Nodes of one relation with one rest of their names (or, when their names do not give their
/// places, whose first rules have one shape relative to their places), at distinct places:
/// the candidate groups evaluated by templates (of any size), of the nodes
/// `templated` selects.
pub(super) fn template_candidates(
    ground: &Ground,
    heads: &[String],
    place: &[Option<u32>],
    rest: &[Option<Vec<String>>],
    board: &Board,
    templated: &dyn Fn(usize) -> bool,
) -> Vec<Vec<u32>> {
    shaped_candidates(ground, heads, place, rest, board, templated).into_iter().map(|(members, _)| members).collect()
}

/// The candidates of [`template_candidates`], each with the shape of its members' first rules
/// without the distances (empty for members placed by their names).
pub(super) fn shaped_candidates(
    ground: &Ground,
    heads: &[String],
    place: &[Option<u32>],
    rest: &[Option<Vec<String>>],
    board: &Board,
    templated: &dyn Fn(usize) -> bool,
) -> Vec<(Vec<u32>, Vec<String>)> {
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
    let mut skeletons: Vec<Vec<String>> = vec![Vec::new(); by_shape.len()];
    for ((_, shape), &c) in &classes {
        skeletons[c] = shape.iter().map(|item| without_distance(item)).collect();
    }
    let mut candidates: Vec<(Vec<u32>, Vec<String>)> = Vec::new();
    for (members, skeleton) in by_shape.into_iter().zip(skeletons) {
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
            candidates.extend(by_rest.into_values().map(|(_, group)| (group, skeleton.clone())));
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
        candidates.extend(split.into_iter().map(|(_, group)| (group, skeleton.clone())));
    }
    candidates
}

/// An item of a rule's shape without its distance: `b0 -9 true` is `b0 true`.
fn without_distance(item: &str) -> String {
    let words: Vec<&str> = item.split(' ').collect();
    match item.chars().next() {
        Some('b' | 'd' | 'n') if words.len() >= 3 => {
            let mut kept = words[..words.len() - 2].to_vec();
            kept.push(words[words.len() - 1]);
            kept.join(" ")
        }
        _ => item.to_string(),
    }
}

/// `candidates` with the shape of those placed by their names by two cells: the rest of
/// their names without the distance in bits, and the direction around the board.
pub(super) fn with_directions(
    candidates: Vec<(Vec<u32>, Vec<String>)>,
    rest: &[Option<Vec<String>>],
    direction: &[Option<Vec<i64>>],
) -> Vec<(Vec<u32>, Vec<String>)> {
    let shape = |m: u32| -> Option<Vec<String>> {
        let direction = direction[m as usize].as_ref()?;
        let rest = rest[m as usize].as_ref()?;
        let mut shape: Vec<String> = rest.iter().filter(|item| !item.starts_with("#distance ")).cloned().collect();
        shape.push(format!("#direction {direction:?}"));
        Some(shape)
    };
    (candidates.into_iter())
        .map(|(members, skeleton)| match members.first().and_then(|&m| shape(m)) {
            Some(shape) if skeleton.is_empty() => (members, shape),
            _ => (members, skeleton),
        })
        .collect()
}

/// `candidates` with each one of fewer than [`GROUP_MIN`] members merged into the largest
/// candidate of its relation at other places whose rules have the same shape but for the
/// distances: a torus's moves across its edge (four of each direction) join the moves of the
/// same direction that stay on the board. Also the members so moved.
pub(super) fn with_small_ones_merged(
    mut candidates: Vec<(Vec<u32>, Vec<String>)>,
    heads: &[String],
    place: &[Option<u32>],
) -> (Vec<Vec<u32>>, BTreeSet<u32>) {
    let places = |members: &[u32]| members.iter().fold(0u64, |bits, &m| bits | 1 << place[m as usize].unwrap_or(0));
    let mut moved = BTreeSet::new();
    for small in 0..candidates.len() {
        let (members, skeleton) = &candidates[small];
        if members.is_empty() || members.len() >= GROUP_MIN || skeleton.is_empty() {
            continue;
        }
        let head = &heads[members[0] as usize];
        let taken = places(members);
        let into = (0..candidates.len())
            .filter(|&c| c != small && candidates[c].0.len() >= GROUP_MIN && candidates[c].1 == *skeleton)
            .filter(|&c| heads[candidates[c].0[0] as usize] == *head && places(&candidates[c].0) & taken == 0)
            .max_by_key(|&c| (candidates[c].0.len(), std::cmp::Reverse(c)));
        if let Some(into) = into {
            let members = std::mem::take(&mut candidates[small].0);
            moved.extend(members.iter().copied());
            candidates[into].0.extend(members);
            candidates[into].0.sort_unstable();
        }
    }
    let merged = candidates.into_iter().map(|(members, _)| members).filter(|members| !members.is_empty()).collect();
    (merged, moved)
}

/// The nodes that `gathering` selects, by relation and the rest of their names, at distinct
/// places: the candidate gathered groups.
pub(super) fn gathered_candidates(
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

/// The `candidates` that `keep` keeps; of the others, those that members of small candidates
/// joined (`joined`) are kept without them, to be tried again.
pub(super) fn without_failed(
    candidates: Vec<(Vec<u32>, bool)>,
    keep: &[bool],
    joined: &mut BTreeSet<u32>,
) -> Vec<(Vec<u32>, bool)> {
    let mut kept = Vec::new();
    for ((members, gathered), &keep) in candidates.into_iter().zip(keep) {
        if keep {
            kept.push((members, gathered));
        } else if members.iter().any(|m| joined.contains(m)) {
            let own: Vec<u32> = members.iter().filter(|m| !joined.contains(m)).copied().collect();
            for m in &members {
                joined.remove(m);
            }
            if own.len() >= GROUP_MIN {
                kept.push((own, gathered));
            }
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_candidates_join_the_largest_of_their_relation_and_shape_at_other_places() {
        // Nodes 0-7 at places 0-7, nodes 8-9 at places 8-9 (a torus's moves across its edge) of
        // the same shape, node 10 at place 0, taken; node 11 of another relation; nodes 12-13 of
        // another shape; node 14 of no shape (placed by its name alone).
        let heads: Vec<String> = (0..15).map(|n| if n == 11 { "b" } else { "a" }.to_string()).collect();
        let place: Vec<Option<u32>> = (0..15).map(|n| Some(if n == 10 { 0 } else { n % 64 })).collect();
        let shape = |s: &str| vec![s.to_string()];
        let candidates = vec![
            ((0..8).collect(), shape("right")),
            (vec![8, 9], shape("right")),
            (vec![10], shape("right")),
            (vec![11], shape("right")),
            (vec![12, 13], shape("up")),
            (vec![14], Vec::new()),
        ];
        let (merged, moved) = with_small_ones_merged(candidates, &heads, &place);
        let expected: Vec<Vec<u32>> = vec![(0..10).collect(), vec![10], vec![11], vec![12, 13], vec![14]];
        assert_eq!(merged, expected);
        assert_eq!(moved, BTreeSet::from([8, 9]));
    }
}
