//! The lifted form: a game evaluated over its rules as written, with variables, rather than
//! over a ground program. It is what gdlc generates for a game too large to ground (or when
//! asked for it with `--form lifted`): each rule becomes a generated function of nested loops
//! over the facts of the relations its body reads (a join, in the order and through the
//! indexes the interpreter's planner chose), and this module runs those functions bottom-up,
//! component by component and semi-naive within recursive ones, as the interpreter does,
//! skipping the components that no rule able to fire in the evaluation reads ([`Demand`]).
//!
//! A game in this form is a [`Program`] of static data (symbols, terms, the facts of the static
//! relations, the components of each query) that generated code writes, loaded once into a
//! [`LiftedGame`], which implements [`crate::Game`]. States and moves are sets of ground terms
//! in a flat encoding ([`State`], [`Move`]), so that a state may hold terms no rule names.

mod bits;
mod demand;
mod dense;
mod game;
pub mod hash;
mod state;
pub mod store;
mod table;
mod term_ids;

pub use bits::{OnBits, Unmapped};
pub use demand::{Demand, Guard};
pub use game::LiftedGame;
pub use state::{Move, State};
pub use table::{Candidates, Chain, Facts, Groups, Table};

use store::{Overlay, TermId};

/// Facts that joins derived, to be added to the tables once the joins that read those tables
/// are done: each fact's relation, and its arguments back to back.
#[derive(Default, Debug)]
pub struct Derived {
    /// For each fact, its relation and the end of its arguments in `data`.
    facts: Vec<(usize, usize)>,
    data: Vec<TermId>,
}

impl Derived {
    /// Adds a fact of `relation`.
    #[inline]
    pub fn push(&mut self, relation: usize, fact: &[TermId]) {
        store::append_words(&mut self.data, fact);
        self.facts.push((relation, self.data.len()));
    }
}

/// The working data of one evaluation: the terms made so far (on top of the game's), the
/// tables of the relations computed in this evaluation, and the game's static relations.
pub struct Eval<'g> {
    /// The terms of the game and those made in this evaluation.
    pub store: Overlay<'g>,
    /// The facts of each relation computed in this evaluation, by relation.
    pub tables: Vec<Table>,
    /// The facts of each static relation, by relation, computed when the game was loaded.
    pub fixed: &'g [Table],
}

impl Eval<'_> {
    /// The facts of `output`.
    pub fn output(&self, output: Output) -> &Table {
        if output.fixed {
            &self.fixed[output.relation]
        } else {
            &self.tables[output.relation]
        }
    }
}

/// A rule's join as gdlc generates it: appends to the third argument the heads of every way the
/// rule's body matches the facts known. For a delta variant (a rule of a recursive component
/// whose first literal reads only the facts of the last round) the second argument is the
/// range of those facts; a plain rule ignores it.
pub type Join = fn(&mut Eval<'_>, (usize, usize), &mut Derived);

/// A strongly connected component of relations and the joins of the rules that define them, in
/// the order a query evaluates components.
#[derive(Debug)]
pub struct Component {
    /// Its relations.
    pub relations: &'static [usize],
    /// The join of each of its rules.
    pub rules: &'static [Join],
    /// For a recursive component, the delta variants of its rules: the relation whose new facts
    /// each one's first literal ranges over, and its join, in the order of the rules.
    pub variants: &'static [(usize, Join)],
    /// Whether a relation of the component reads itself through its rules.
    pub recursive: bool,
    /// The indexes its joins look facts up by in the tables of this evaluation: a relation and
    /// the argument positions of the index.
    pub indexes: &'static [(usize, &'static [usize])],
    /// What its rules that read relations of the evaluation need, for the pass that skips the
    /// components no rule able to fire reads (see the module `demand`).
    pub demands: &'static [Demand],
}

/// The buffers of [`run`], kept on each thread between runs so that a run allocates nothing
/// once they have grown.
#[derive(Default)]
struct Scratch {
    derived: Derived,
    /// Each relation of the component, and how many of its facts the last round saw.
    seen: Vec<(usize, usize)>,
    /// The relations that got new facts in the last round, sorted.
    changed: Vec<usize>,
    /// Each relation that got new facts, and the positions of those facts.
    ranges: Vec<(usize, (usize, usize))>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// Computes every relation of `component`, all it reads being computed.
pub fn run(eval: &mut Eval<'_>, component: &Component) {
    SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut scratch) => run_with(eval, component, &mut scratch),
        // A run within a run (no generated join makes one) gets buffers of its own.
        Err(_) => run_with(eval, component, &mut Scratch::default()),
    });
}

/// [`run`] with `scratch`'s buffers.
fn run_with(eval: &mut Eval<'_>, component: &Component, scratch: &mut Scratch) {
    for &(rel, positions) in component.indexes {
        eval.tables[rel].index_for_reading(positions);
    }
    let Scratch { derived, seen, changed, ranges } = scratch;
    if !component.recursive {
        for join in component.rules {
            join(eval, (0, 0), derived);
        }
        add(eval, derived, None);
        return;
    }
    seen.clear();
    seen.extend(component.relations.iter().map(|&r| (r, eval.tables[r].len())));
    for join in component.rules {
        join(eval, (0, 0), derived);
    }
    add(eval, derived, Some(changed));
    // Semi-naive rounds: each recursive literal in turn ranges over the last round's facts,
    // and only the variants that read a relation with new facts run.
    while !changed.is_empty() {
        ranges.clear();
        for &rel in changed.iter() {
            let hi = eval.tables[rel].len();
            let lo = match seen.iter_mut().find(|(r, _)| *r == rel) {
                Some((_, len)) => std::mem::replace(len, hi),
                None => 0,
            };
            ranges.push((rel, (lo, hi)));
        }
        for &(rel, join) in component.variants {
            if let Some(&(_, range)) = ranges.iter().find(|(r, _)| *r == rel) {
                join(eval, range, derived);
            }
        }
        add(eval, derived, Some(changed));
    }
}

/// Adds the derived facts to their tables. With `changed`, sets it to the relations that got
/// new ones, sorted: what the next round of a recursive component needs; a component that no
/// round runs again passes `None`, and the code of each call, in line, does only what it needs.
#[inline(always)]
fn add(eval: &mut Eval<'_>, derived: &mut Derived, mut changed: Option<&mut Vec<usize>>) {
    if let Some(changed) = changed.as_deref_mut() {
        changed.clear();
    }
    let (facts, mut start, mut k) = (&derived.facts, 0, 0);
    while let Some(&(rel, end)) = facts.get(k) {
        let table = &mut eval.tables[rel];
        let (new, next, next_start) = if table.takes_runs() {
            // The facts of a bag derived one after another go in together.
            let run = facts[k..].iter().take_while(|&&(r, _)| r == rel).count();
            let run_end = facts[k + run - 1].1;
            table.push_run(&derived.data[start..run_end], end - start, run);
            (true, k + run, run_end)
        } else {
            (table.insert(&derived.data[start..end]), k + 1, end)
        };
        (k, start) = (next, next_start);
        if let Some(changed) = changed.as_deref_mut() {
            if new && changed.last() != Some(&rel) {
                changed.push(rel);
            }
        }
    }
    derived.facts.clear();
    derived.data.clear();
    if let Some(changed) = changed {
        changed.sort_unstable();
        changed.dedup();
    }
}

/// Where the rules read the state and the joint move from: the relations `true` and `does`,
/// and for each function of a fact or move that rules read by its arguments, a relation of
/// their own (`(true (cell ?x ?y b))` reads the relation of `cell`/3, with `?x`, `?y` and `b`
/// as its arguments; the role comes first for `does`).
#[derive(Debug)]
pub struct Inputs {
    /// The relation `true`.
    pub true_: usize,
    /// The relation `does`.
    pub does: usize,
    /// Whether a rule reads `true`, then `does`, as a whole: when none does, facts go only to
    /// the relations of their functions (a constant is a function of no arguments).
    pub read_whole: [bool; 2],
    /// For `true`, then `does`: the relation of each function, as its symbol, its arity and
    /// the relation.
    pub splits: [&'static [(u32, usize, usize)]; 2],
}

/// A relation whose facts answer a query, and whether it is static (its facts computed at
/// load, read from the game's tables rather than the evaluation's).
#[derive(Clone, Copy, Debug)]
pub struct Output {
    /// The relation.
    pub relation: usize,
    /// Whether it is static.
    pub fixed: bool,
}

/// The relations whose facts answer the queries.
#[derive(Debug)]
pub struct Outputs {
    /// `legal`/2.
    pub legal: Output,
    /// `next`/1.
    pub next: Output,
    /// `terminal`/0.
    pub terminal: Output,
    /// `goal`/2.
    pub goal: Output,
    /// `sees`/2.
    pub sees: Output,
}

/// The components each query evaluates, in order.
#[derive(Debug)]
pub struct Queries {
    /// The legal moves.
    pub legal: &'static [Component],
    /// The next state.
    pub next: &'static [Component],
    /// Whether the state is terminal.
    pub terminal: &'static [Component],
    /// The goal values.
    pub goal: &'static [Component],
    /// The percepts (GDL-II).
    pub sees: &'static [Component],
    /// Whether one engine answers `terminal`, `legal` and `next`, so that a random step
    /// evaluates them in one evaluation, each component once.
    pub shared_step: bool,
}

impl Queries {
    /// Whether a rule of some query's components reads `relation` (each such rule lists what
    /// it reads in its component's demands).
    pub fn read_by_rules(&self, relation: usize) -> bool {
        let queries = [self.legal, self.next, self.terminal, self.goal, self.sees];
        let mut demands = queries.into_iter().flatten().flat_map(|component| component.demands);
        demands.any(|demand| demand.reads.contains(&relation))
    }
}

/// A game in the lifted form, as generated code writes it.
#[derive(Debug)]
pub struct Program {
    /// Every symbol of the game, by its number.
    pub names: &'static [&'static str],
    /// Every term gdlc interned, as [`store::Terms::from_flat`] reads them, packed by
    /// [`crate::program::words_to_text`].
    pub terms: &'static str,
    /// The number of relations.
    pub relations: usize,
    /// The facts of the static relations, packed by [`crate::program::words_to_text`]: for each
    /// relation its number, the number of its arguments and of its facts, then the arguments
    /// (term ids) of its facts one after the other.
    pub fixed: &'static str,
    /// The indexes the joins look static facts up by: a relation and its argument positions.
    pub fixed_indexes: &'static [(usize, &'static [usize])],
    /// The roles' names, in the order of the game's `role` facts.
    pub roles: &'static [&'static str],
    /// The roles' terms.
    pub role_terms: &'static [TermId],
    /// The terms of the initial state's facts.
    pub initial: &'static [TermId],
    /// Where the rules read the state and the moves from.
    pub inputs: Inputs,
    /// The relations that answer the queries.
    pub outputs: Outputs,
    /// The components of each query.
    pub queries: Queries,
    /// Whether the game has `sees` rules or a `random` role (GDL-II).
    pub gdl_ii: bool,
    /// The role `random` that the game manager plays, if the game has it.
    pub random_role: Option<usize>,
}
