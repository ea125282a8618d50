//! The facts of one relation, with hash indexes on the argument positions that rules look
//! facts up by: what the interpreter, the grounder's fixpoint and the lifted form's generated
//! joins all store relations in.
//!
//! Facts lie back to back in one vector (every fact of a relation has its number of
//! arguments), and the set that keeps them unique is a table of their positions, open
//! addressing with linear probing. An index chains the facts that share its key, and finds the
//! first of each chain through a set of the same kind. Adding a fact allocates nothing but the
//! growth of those vectors, and a table cleared for the next state keeps its memory.

use super::dense::{DenseIndex, DenseSet};
use super::store::{append_words, with_words, TermId};

/// Tables with fewer facts than this, complete before the rules that read them run, are not
/// indexed: trying every fact costs less than building an index.
const SMALL_TABLE: usize = 16;

/// Tables that have never held this many facts keep no set: a new fact is compared with each,
/// which costs less than hashing it and probing a set that is rarely in the cache.
const LINEAR: usize = 8;

/// Tables loaded with facts known new ([`Table::insert_new`]: a state's) keep no set below this
/// many facts: no fact is compared with them as they are loaded, and a rule that asks whether
/// one holds tries them one by one.
const LOADED_LINEAR: usize = 32;

/// The end of a chain.
const EMPTY: u32 = u32::MAX;

/// An empty slot of a set. A full slot holds a position (of a fact, or of a group) in its low
/// half and a tag of its hash in its high half: a probe that meets another key's slot tells it
/// apart by the tag, mostly without reading that key's fact, which lies elsewhere in memory.
const EMPTY_SLOT: u64 = u64::MAX;

/// A full slot: the position `at` with the tag of `hash`.
#[inline]
fn slot_entry(hash: u64, at: u32) -> u64 {
    (u64::from(tag(hash)) << 32) | u64::from(at)
}

/// The tag of a hash in a slot: its low half, which [`first_slot`] does not take the slot from.
/// A position of `u32::MAX` never occurs (tables are smaller), so no tag makes [`EMPTY_SLOT`].
#[inline]
fn tag(hash: u64) -> u32 {
    hash as u32
}

/// Whether the full slot `entry` may hold the key of `hash`: its tag is that of the hash.
#[inline]
fn tag_matches(entry: u64, hash: u64) -> bool {
    (entry >> 32) as u32 == tag(hash)
}

/// Puts position `at`, whose key's hash is `hash`, in the first empty slot its hash leads to:
/// how a set that grew takes back the keys it held, each known to be there once.
#[inline]
fn place(slots: &mut [u64], hash: u64, at: u32) {
    let mask = slots.len() - 1;
    let mut slot = first_slot(hash, slots.len());
    while slots[slot] != EMPTY_SLOT {
        slot = (slot + 1) & mask;
    }
    slots[slot] = slot_entry(hash, at);
}

/// The position a full slot holds.
#[inline]
fn position(entry: u64) -> u32 {
    entry as u32
}

/// The facts of one relation, with hash indexes on the combinations of argument positions
/// that rules look facts up by. The fields that adding a fact reads first fill the first cache
/// line: a join touches many tables, and each table then costs one line until it is hashed.
#[derive(Default, Clone, Debug)]
#[repr(C, align(64))]
pub struct Table {
    /// The facts' arguments, `width` per fact, in the order the facts were added.
    data: Vec<TermId>,
    /// The number of facts.
    len: usize,
    /// The indexes, each on its combination of positions.
    indexes: Vec<Index>,
    /// The number of arguments of each fact, set by the first fact added.
    width: u32,
    /// Whether the table keeps its set of facts, `slots` (see [`Table::hashed`]).
    has_set: bool,
    /// Whether [`Table::freeze`] built array lookups that a change must drop.
    frozen: bool,
    /// Whether the table keeps every fact added, the same one as often as it comes (see
    /// [`Table::bag`]).
    bag: bool,
    /// The set of facts: the position of a fact, with its tag, in each slot its hash leads to,
    /// or [`EMPTY_SLOT`]; a power of two long, at most half full. Empty until the table first
    /// holds [`LINEAR`] facts, and kept from then on, when cleared for another evaluation too
    /// (its relation tends to be that large): see [`Table::hashed`].
    slots: Vec<u64>,
    /// The set of facts as an array, for a table frozen with few values at each position (see
    /// [`Table::freeze`]).
    dense: Option<DenseSet>,
}

/// The facts of a table grouped by their terms at some argument positions (a group's key):
/// each group is a chain of facts in the order they were added, found by its key through an
/// open-addressing set of groups that reads each group's key from its first fact.
#[derive(Clone, Debug)]
struct Index {
    /// The positions whose terms are the key.
    positions: Box<[usize]>,
    /// The number of a group, with its tag, in each slot its key's hash leads to, or
    /// [`EMPTY_SLOT`]; a power of two long, at most half full.
    slots: Vec<u64>,
    /// The first and the last fact of each group.
    groups: Vec<(u32, u32)>,
    /// The next fact of each fact's group, or [`EMPTY`] after the last.
    next: Vec<u32>,
    /// The groups as arrays, for a table frozen with few values at the positions (see
    /// [`Table::freeze`]).
    dense: Option<DenseIndex>,
}

/// The hash of a fact, or of a key: its words mixed as [`super::hash::WordHasher`] mixes them.
#[inline]
fn hash_fact(fact: &[TermId]) -> u64 {
    let mut hash = fact.len() as u64;
    for &word in fact {
        hash = (hash.rotate_left(5) ^ u64::from(word)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    hash
}

/// Whether two short slices are equal, compared in line (a call to `memcmp` costs more than
/// the few words of a fact or a key).
#[inline]
fn same<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The first slot of a set of `len` slots (a power of two) that `hash` leads to: the hash's top
/// bits, which depend on every bit mixed in (a product's low bits depend on the low ones only).
#[inline]
fn first_slot(hash: u64, len: usize) -> usize {
    let shift = 64 - len.trailing_zeros();
    (hash >> shift) as usize & (len - 1)
}

/// Calls `f` with the terms of `fact` at `positions`.
#[inline]
fn with_key<R>(fact: &[TermId], positions: &[usize], f: impl FnOnce(&[TermId]) -> R) -> R {
    let fill = |key: &mut [TermId]| key.iter_mut().zip(positions).for_each(|(slot, &p)| *slot = fact[p]);
    with_words(positions.len(), fill, f)
}

impl Index {
    /// An empty index on `positions`.
    fn new(positions: &[usize]) -> Index {
        Index { positions: positions.into(), slots: Vec::new(), groups: Vec::new(), next: Vec::new(), dense: None }
    }

    /// The slot of the group of `key`, whose hash is `hash`, or the empty slot where it would
    /// go, in a set that has one; `data` and `width` are the table's facts.
    #[inline]
    fn slot_of(&self, data: &[TermId], width: usize, key: &[TermId], hash: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut slot = first_slot(hash, self.slots.len());
        loop {
            let entry = self.slots[slot];
            if entry == EMPTY_SLOT {
                return slot;
            }
            if tag_matches(entry, hash) {
                let first = self.groups[position(entry) as usize].0 as usize * width;
                if self.positions.iter().zip(key).all(|(&p, &k)| data[first + p] == k) {
                    return slot;
                }
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Doubles the set of groups when it would be more than half full with one more group. The
    /// test is in line, at every fact added; the growth, rare, is not.
    #[inline(always)]
    fn grow(&mut self, data: &[TermId], width: usize) {
        if (self.groups.len() + 1) * 2 > self.slots.len() {
            self.double(data, width);
        }
    }

    /// Doubles the set of groups (makes it, of 16 slots, when the index has none) and puts
    /// every group in it again.
    #[cold]
    #[inline(never)]
    fn double(&mut self, data: &[TermId], width: usize) {
        let size = (self.slots.len() * 2).max(16);
        self.slots = vec![EMPTY_SLOT; size];
        for group in 0..self.groups.len() {
            let first = self.groups[group].0 as usize * width;
            let hash = with_key(&data[first..first + width], &self.positions, hash_fact);
            place(&mut self.slots, hash, group as u32);
        }
    }

    /// Adds `fact`, the table's fact at position `at` (the facts before it are in `data`, and
    /// every one of them is in the index).
    fn add(&mut self, data: &[TermId], width: usize, fact: &[TermId], at: u32) {
        self.grow(data, width);
        let (slot, hash) = with_key(fact, &self.positions, |key| {
            let hash = hash_fact(key);
            (self.slot_of(data, width, key, hash), hash)
        });
        self.next.push(EMPTY);
        match self.slots[slot] {
            EMPTY_SLOT => {
                self.slots[slot] = slot_entry(hash, self.groups.len() as u32);
                self.groups.push((at, at));
            }
            entry => {
                let last = &mut self.groups[position(entry) as usize].1;
                self.next[*last as usize] = at;
                *last = at;
            }
        }
    }

    /// The facts whose terms at the positions are `key`.
    fn find(&self, data: &[TermId], width: usize, key: &[TermId]) -> Chain<'_> {
        let first = if self.groups.is_empty() {
            EMPTY
        } else {
            match self.slots[self.slot_of(data, width, key, hash_fact(key))] {
                EMPTY_SLOT => EMPTY,
                entry => self.groups[position(entry) as usize].0,
            }
        };
        Chain { next: &self.next, at: first }
    }

    /// Empties the index, keeping its memory.
    fn clear(&mut self) {
        if !self.groups.is_empty() {
            self.slots.fill(EMPTY_SLOT);
        }
        self.groups.clear();
        self.next.clear();
    }
}

impl Table {
    /// The number of facts.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// The number of arguments of each fact.
    #[inline]
    fn width(&self) -> usize {
        self.width as usize
    }

    /// Whether the table has no fact.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The fact at position `i` (in the order facts were added).
    #[inline]
    pub fn fact(&self, i: usize) -> &[TermId] {
        &self.data[i * self.width()..(i + 1) * self.width()]
    }

    /// The facts' arguments back to back, in the order the facts were added: for a table of
    /// one argument, its facts' terms.
    #[inline]
    pub fn words(&self) -> &[TermId] {
        &self.data
    }

    /// The facts, in the order they were added.
    #[inline]
    pub fn facts(&self) -> Facts<'_> {
        self.facts_in(0, self.len)
    }

    /// The facts at positions `from..to`.
    #[inline]
    pub fn facts_in(&self, from: usize, to: usize) -> Facts<'_> {
        Facts { table: self, next: from, end: to.min(self.len) }
    }

    /// The slot of `fact`, whose hash is `hash`, in the set: where it is, or the empty slot
    /// where it would go. Always in line: its callers are the set's hot paths, and a call
    /// costs as much as a probe that meets its fact at once.
    #[inline(always)]
    fn slot_of(&self, fact: &[TermId], hash: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut slot = first_slot(hash, self.slots.len());
        loop {
            let entry = self.slots[slot];
            if entry == EMPTY_SLOT || (tag_matches(entry, hash) && same(self.fact(position(entry) as usize), fact)) {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Doubles the set when it would be more than half full with one more fact (makes it, of 16
    /// slots or more, when the table has none), and puts every fact in it again. The test is in
    /// line, at every fact added; the growth, rare, is not.
    #[inline(always)]
    fn grow_set(&mut self) {
        if (self.len + 1) * 2 > self.slots.len() {
            self.double_set();
        }
    }

    /// The growth of [`Table::grow_set`].
    #[cold]
    #[inline(never)]
    fn double_set(&mut self) {
        // At least twice the facts and the one to come: a table loaded with facts known new
        // makes its first set when it already holds many.
        let size = (self.slots.len() * 2).max(16).max(((self.len + 1) * 2).next_power_of_two());
        self.slots = vec![EMPTY_SLOT; size];
        self.has_set = true;
        for i in 0..self.len {
            let hash = hash_fact(self.fact(i));
            place(&mut self.slots, hash, i as u32);
        }
    }

    /// A table that no rule reads, whose facts are only listed once an evaluation is done
    /// (`next`, and `legal` or `goal` where no rule reads them): a fact added is appended
    /// without a search for it among those added before, so that the same fact may be listed
    /// more than once, and counts as new.
    pub fn bag() -> Table {
        Table { bag: true, ..Table::default() }
    }

    /// Adds a fact; returns whether it is new (always, for a [`Table::bag`]). Every fact of a
    /// table has as many arguments.
    pub fn insert(&mut self, fact: &[TermId]) -> bool {
        if self.len == 0 {
            self.width = fact.len() as u32;
        }
        debug_assert_eq!(fact.len(), self.width(), "a fact of another width");
        if self.bag {
            self.push(fact);
            return true;
        }
        if !self.hashed() {
            if self.scan(fact) {
                return false;
            }
            self.push(fact);
            if self.len == LINEAR {
                // The set, empty so far, is made and takes every fact.
                self.grow_set();
            }
            return true;
        }
        self.grow_set();
        let hash = hash_fact(fact);
        let slot = self.slot_of(fact, hash);
        if self.slots[slot] != EMPTY_SLOT {
            return false;
        }
        self.slots[slot] = slot_entry(hash, self.len as u32);
        self.push(fact);
        true
    }

    /// Whether the table is a bag without index, which takes a run of facts in one copy (see
    /// [`Table::push_run`]).
    #[inline(always)]
    pub fn takes_runs(&self) -> bool {
        self.bag && self.indexes.is_empty()
    }

    /// Adds `count` facts of `width` arguments, back to back in `data`, to a bag without index
    /// (see [`Table::takes_runs`]), in one copy.
    #[inline]
    pub fn push_run(&mut self, data: &[TermId], width: usize, count: usize) {
        debug_assert!(self.takes_runs(), "a run pushed to a table that keeps a set or an index");
        debug_assert_eq!(data.len(), width * count, "facts of another width");
        if self.len == 0 {
            self.width = width as u32;
        }
        self.thaw();
        self.data.extend_from_slice(data);
        self.len += count;
    }

    /// Adds `fact`, which the caller knows the table does not have (the facts of a state or a
    /// joint move, each once, loaded into empty tables): no fact is compared with it. A small
    /// table without set, index or arrays (most of a state's) only appends it, in line.
    #[inline(always)]
    pub fn insert_new(&mut self, fact: &[TermId]) {
        if self.len == 0 {
            self.width = fact.len() as u32;
        }
        debug_assert_eq!(fact.len(), self.width(), "a fact of another width");
        debug_assert!(!self.contains(fact), "a fact the table has");
        if self.hashed() || self.frozen || !self.indexes.is_empty() || self.len + 1 == LOADED_LINEAR {
            self.insert_new_kept(fact);
            return;
        }
        append_words(&mut self.data, fact);
        self.len += 1;
    }

    /// [`Table::insert_new`] for a table that keeps a set, an index or arrays, or whose set is
    /// made with this fact.
    #[inline(never)]
    fn insert_new_kept(&mut self, fact: &[TermId]) {
        if self.hashed() {
            self.grow_set();
            place(&mut self.slots, hash_fact(fact), self.len as u32);
            self.push(fact);
            return;
        }
        self.push(fact);
        if self.len == LOADED_LINEAR {
            self.grow_set();
        }
    }

    /// Appends `fact`, known to be new, to the facts and the indexes; in line in each caller,
    /// which a call would cost as much as.
    #[inline(always)]
    fn push(&mut self, fact: &[TermId]) {
        let at = self.len as u32;
        self.thaw();
        let width = self.width();
        for index in &mut self.indexes {
            index.add(&self.data, width, fact, at);
        }
        append_words(&mut self.data, fact);
        self.len += 1;
    }

    /// Whether one of the facts is `fact`, tried one by one: how a table that keeps no set
    /// (fewer than [`LINEAR`] facts) answers.
    #[inline]
    fn scan(&self, fact: &[TermId]) -> bool {
        if self.width == 0 {
            // Facts without arguments are all the one fact.
            return self.len > 0;
        }
        self.data.chunks_exact(self.width()).any(|other| same(other, fact))
    }

    /// Whether the table keeps its set of facts (else it tries them one by one).
    #[inline]
    fn hashed(&self) -> bool {
        self.has_set
    }

    /// Removes every fact, keeping the memory and the indexed positions (their indexes emptied),
    /// for the next evaluation of the same relation.
    #[inline]
    pub fn clear(&mut self) {
        // An empty table that was never frozen has nothing to clear: its indexes are empty too.
        if self.len == 0 && !self.frozen {
            return;
        }
        if self.hashed() {
            self.slots.fill(EMPTY_SLOT);
        }
        self.thaw();
        self.len = 0;
        self.data.clear();
        self.indexes.iter_mut().for_each(Index::clear);
    }

    /// Whether the table has `fact`.
    #[inline(always)]
    pub fn contains(&self, fact: &[TermId]) -> bool {
        if let Some(dense) = &self.dense {
            return dense.contains(fact);
        }
        if !self.hashed() {
            return self.scan(fact);
        }
        self.slots[self.slot_of(fact, hash_fact(fact))] != EMPTY_SLOT
    }

    /// Indexes the facts by their terms at `positions`, unless they are already.
    pub fn ensure_index(&mut self, positions: &[usize]) {
        if self.indexes.iter().any(|index| same(&index.positions, positions)) {
            return;
        }
        let mut index = Index::new(positions);
        for i in 0..self.len {
            index.add(&self.data, self.width(), self.fact(i), i as u32);
        }
        self.indexes.push(index);
    }

    /// Indexes the facts by their terms at `positions` for rules about to read the table, unless
    /// it is small and complete: a table that has facts already is complete (a relation gets its
    /// facts from one component), and below [`SMALL_TABLE`] facts trying them all costs less.
    /// An empty table is indexed, as the component that fills it may read it.
    pub fn index_for_reading(&mut self, positions: &[usize]) {
        if !(1..SMALL_TABLE).contains(&self.len) {
            self.ensure_index(positions);
        }
    }

    /// The positions of the facts with `key` at `positions`, in the order they were added, or
    /// `None` when the table has no index on them (it was too small to need one: every fact is
    /// a candidate).
    #[inline]
    pub fn lookup(&self, positions: &[usize], key: &[TermId]) -> Option<Chain<'_>> {
        let index = self.index_on(positions)?;
        Some(index.find(&self.data, self.width(), key))
    }

    /// The index on `positions`, if the table has one.
    #[inline]
    fn index_on(&self, positions: &[usize]) -> Option<&Index> {
        self.indexes.iter().find(|index| same(&index.positions, positions))
    }

    /// The positions of the facts that may have `key` at `positions`: those the index gives,
    /// or every fact when the table has no index on them.
    #[inline(always)]
    pub fn candidates<'t>(&'t self, positions: &[usize], key: &[TermId]) -> Candidates<'t> {
        match self.index_on(positions) {
            Some(Index { dense: Some(dense), .. }) => Candidates::Run(dense.find(key).iter()),
            Some(index) => Candidates::Found(index.find(&self.data, self.width(), key)),
            None => Candidates::All(0..self.len as u32),
        }
    }

    /// Adds array lookups (see the module `dense`) beside the hash set and indexes, where the
    /// facts' terms take few values: for a static relation, whose facts are all added. Adding
    /// a fact or clearing the table drops them.
    pub fn freeze(&mut self) {
        let data = &self.data[..self.len * self.width()];
        self.dense = DenseSet::new(data, self.width());
        let width = self.width();
        for index in &mut self.indexes {
            index.dense = DenseIndex::new(data, width, &index.positions);
        }
        self.frozen = true;
    }

    /// Drops the array lookups of [`Table::freeze`].
    #[inline]
    fn thaw(&mut self) {
        if self.frozen {
            self.drop_arrays();
        }
    }

    /// The work of [`Table::thaw`], out of the way of the tables that were never frozen.
    #[cold]
    #[inline(never)]
    fn drop_arrays(&mut self) {
        self.frozen = false;
        self.dense = None;
        self.indexes.iter_mut().for_each(|index| index.dense = None);
    }
}

mod groups;
mod iter;

pub use groups::Groups;
pub use iter::{Candidates, Chain, Facts};

#[cfg(test)]
mod tests;
