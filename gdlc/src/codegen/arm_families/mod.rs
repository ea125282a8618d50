//! Families of move arms: moves whose conditional frame rules are one set of rules moved along
//! the board (ticTacToe's marks, connectFour's drops). `next` evaluates such a family with
//! word operations on the one bit of the played move's anchor, looked up in a table, instead
//! of one `match` arm per move, whose jump a random move mispredicts on every step.
//!
//! The analysis is here: which moves form families ([`RoleArms::plan`]) and how a family's
//! sets merge along the board; `copy_groups.rs` finds the families that only copy bits and
//! tabulates them; `emit.rs` writes the tables and the word operations.

mod copy_groups;
mod emit;
#[cfg(test)]
mod tests;

use super::move_tables::ConditionalSet;
use crate::ground::{Lit, Prop};
use copy_groups::{CopyGroup, Owner, Rows};
use std::collections::BTreeMap;

/// The fewest moves that make a family.
const ARM_FAMILY_MIN: usize = 2;

/// The most literals one arm family may test: its word operations test the literals of all
/// its sets, which a `match` arm tests too, but as more instructions (shifts of whole words).
const ARM_FAMILY_LITERALS: usize = 64;

/// A bit relative to a move's anchor: how many words after the anchor's word, and how many
/// bits past the anchor's bit within that word (negative: before it).
type Offset = (i32, i32);

/// A test of the state relative to the anchor: a conjunction of base literals, negated as a
/// whole when `negated` (a negated derived proposition).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Term {
    negated: bool,
    literals: Vec<(Offset, bool)>,
}

/// A conditional set relative to the anchor: the bit it sets, and the terms of its condition.
type RelativeSet = (Offset, Vec<Term>);

/// Moves by the shape of their arms: the anchors' state word and the relative sets, to each
/// move with its anchor's bit.
type Shapes = BTreeMap<(usize, Vec<RelativeSet>), Vec<(u32, u32)>>;

/// Moves of one role whose arms are the same relative sets, each at its own anchor.
#[derive(Debug)]
struct ArmFamily {
    /// The state word of the anchors.
    word: usize,
    sets: Vec<RelativeSet>,
    /// The moves, with their anchor's bit within `word`.
    members: Vec<(u32, u32)>,
}

impl ArmFamily {
    fn literals(&self) -> usize {
        self.sets.iter().flat_map(|(_, terms)| terms).map(|t| t.literals.len()).sum()
    }
}

/// How one role's conditional frame rules are evaluated: the families, and the moves whose
/// arms stay in the `match`.
#[derive(Debug, Default)]
pub(super) struct RoleArms {
    families: Vec<ArmFamily>,
    /// Runs of consecutive `families` that copy bits between the same places, evaluated by
    /// tables (see [`CopyGroup`]).
    copy_groups: Vec<CopyGroup>,
    /// For every move, whether a family evaluates its arm.
    in_family: Vec<bool>,
}

impl RoleArms {
    /// Groups the moves of one role's `arms` (its conditional sets by move) into families.
    /// `flat` gives the base literals of every derived proposition that is one conjunction
    /// of them; a condition that reads any other proposition keeps its move in the `match`.
    pub(super) fn plan(role: usize, arms: &[Vec<ConditionalSet>], flat: &[Option<Vec<Lit>>]) -> RoleArms {
        let mut groups = Shapes::new();
        for (mv, sets) in arms.iter().enumerate() {
            if let Some((word, bit, relative)) = relative_arm(sets, flat) {
                groups.entry((word, relative)).or_default().push((mv as u32, bit));
            }
        }
        let mut families: Vec<ArmFamily> = groups
            .into_iter()
            .filter(|(_, members)| members.len() >= ARM_FAMILY_MIN)
            .map(|((word, sets), members)| ArmFamily { word, sets, members })
            .collect();
        families.retain(|f| f.literals() <= ARM_FAMILY_LITERALS);
        // The table numbers families in a byte, from 1.
        families.truncate(u8::MAX as usize);
        let (families, copy_groups) = CopyGroup::gather(role, families);
        let mut in_family = vec![false; arms.len()];
        for family in &families {
            for &(mv, _) in &family.members {
                in_family[mv as usize] = true;
            }
        }
        RoleArms { families, copy_groups, in_family }
    }

    /// Points every word of the roles' copy groups at the first table, over all roles, with the
    /// same rows, which it then reads (pentago's two roles rotate alike, red's cells and black's
    /// alike): one table where there were four.
    pub(super) fn share_tables(roles: &mut [RoleArms]) {
        let mut tables: Vec<(&Rows, Owner)> = Vec::new();
        let words = roles.iter().flat_map(|arms| &arms.copy_groups).flat_map(|group| &group.words);
        let reads: Vec<Owner> = words
            .map(|word| match tables.iter().find(|(rows, _)| **rows == word.rows) {
                Some(&(_, owner)) => owner,
                None => {
                    tables.push((&word.rows, word.owner));
                    word.owner
                }
            })
            .collect();
        let words = roles.iter_mut().flat_map(|arms| &mut arms.copy_groups).flat_map(|group| &mut group.words);
        for (word, reads) in words.zip(reads) {
            word.reads = reads;
        }
    }

    /// Whether a family evaluates the arm of `mv`.
    pub(super) fn in_family(&self, mv: usize) -> bool {
        self.in_family.get(mv).copied().unwrap_or(false)
    }

    /// Every move's `(family, anchor bit)`, family 0 for a move in none.
    fn rows(&self, moves: usize) -> Vec<(u8, u8)> {
        let mut rows = vec![(0u8, 0u8); moves];
        for (f, family) in self.families.iter().enumerate() {
            for &(mv, bit) in &family.members {
                rows[mv as usize] = (f as u8 + 1, bit as u8);
            }
        }
        rows
    }
}

/// A move's conditional sets relative to its anchor (its lowest set bit): the anchor's word
/// and bit, and the sets, sorted; `None` when a condition reads what is not a conjunction of
/// base literals.
fn relative_arm(sets: &[ConditionalSet], flat: &[Option<Vec<Lit>>]) -> Option<(usize, u32, Vec<RelativeSet>)> {
    let anchor = sets.iter().map(|&(i, _)| i).min()?;
    let (word, bit) = (anchor as usize / 64, anchor % 64);
    let offset = |b: u32| -> Offset { ((b / 64) as i32 - word as i32, (b % 64) as i32 - bit as i32) };
    let base = |lit: &Lit| match lit.prop {
        Prop::Base(b) => Some((offset(b), lit.positive)),
        _ => None,
    };
    let mut relative = Vec::new();
    for (target, condition) in sets {
        let mut terms = Vec::new();
        for lit in condition {
            let term = match lit.prop {
                Prop::Base(_) => Term { negated: false, literals: vec![base(lit)?] },
                Prop::Node(n) => {
                    let lits = flat.get(n as usize)?.as_ref()?;
                    Term { negated: !lit.positive, literals: lits.iter().map(base).collect::<Option<_>>()? }
                }
                _ => return None,
            };
            terms.push(term);
        }
        terms.sort();
        terms.dedup();
        relative.push((offset(*target), terms));
    }
    relative.sort();
    Some((word, bit, relative))
}

/// A family's sets with every group of sets that are one condition moved along with their
/// target merged: the target's word (relative to the anchor's), the targets' bits relative to
/// the anchor, and the condition relative to the target, as a term of the anchor's word whose
/// literals are offsets from the target. connectFour's drop sets a cell when it is empty and
/// the one below it is not, at every height: one word operation for the column, not one per
/// height. Groups keep the order of their first set.
fn merge_translates(sets: &[RelativeSet]) -> Vec<(i32, Vec<i32>, Vec<Term>)> {
    let mut merged: Vec<(i32, Vec<i32>, Vec<Term>)> = Vec::new();
    for &((dw, dp), ref terms) in sets {
        let relative: Vec<Term> = terms
            .iter()
            .map(|t| Term {
                negated: t.negated,
                literals: t.literals.iter().map(|&((lw, lp), positive)| ((lw, lp - dp), positive)).collect(),
            })
            .collect();
        match merged.iter_mut().find(|(w, _, r)| *w == dw && *r == relative) {
            Some((_, targets, _)) => targets.push(dp),
            None => merged.push((dw, vec![dp], relative)),
        }
    }
    merged
}

/// The state word `dw` words after word `word`.
fn word_at(word: usize, dw: i32) -> usize {
    (word as i32 + dw) as usize
}
