//! A state and a move of a game in the lifted form: ground terms in the flat prefix encoding,
//! which holds terms that no rule names as well as those the game's store has.

use super::store::{FlatCache, TermId, TermRead};
use std::sync::Arc;

/// A game state: its facts, each a ground term in the flat prefix encoding (`sym, arity,
/// args...`), sorted, back to back.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State(pub(super) Arc<[u32]>);

impl State {
    /// The state whose facts are the terms `ids` of `store`, written by `flats`: sorted, each
    /// once.
    pub(super) fn of_terms(
        ids: impl ExactSizeIterator<Item = TermId>,
        store: &impl TermRead,
        flats: &FlatCache,
    ) -> State {
        let mut words = Vec::new();
        let mut facts: Vec<(usize, usize)> = Vec::with_capacity(ids.len());
        for id in ids {
            let from = words.len();
            flats.encode(store, id, &mut words);
            facts.push((from, words.len()));
        }
        facts.sort_unstable_by(|a, b| words[a.0..a.1].cmp(&words[b.0..b.1]));
        let mut flat = Vec::with_capacity(words.len());
        let mut last: Option<&[u32]> = None;
        for &(from, to) in facts.iter() {
            let fact = &words[from..to];
            if last != Some(fact) {
                flat.extend_from_slice(fact);
                last = Some(fact);
            }
        }
        State(flat.into())
    }

    /// The facts, each in the flat prefix encoding.
    pub(super) fn facts(&self) -> impl Iterator<Item = &[u32]> + '_ {
        let mut rest: &[u32] = &self.0;
        std::iter::from_fn(move || {
            if rest.is_empty() {
                return None;
            }
            let (fact, after) = rest.split_at(flat_len(rest));
            rest = after;
            Some(fact)
        })
    }
}

/// The number of words of the term at the start of `flat`, in the flat prefix encoding.
fn flat_len(flat: &[u32]) -> usize {
    let mut at = 0;
    // The terms still to be read whole: one to begin with, and each function's arguments.
    let mut pending = 1usize;
    while pending > 0 {
        pending = pending - 1 + flat[at + 1] as usize;
        at += 2;
    }
    at
}

/// A move: a ground term in the flat prefix encoding.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move(pub(super) Box<[u32]>);
