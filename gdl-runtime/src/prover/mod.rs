//! The prover: the relations of a compiled game that are deferred to run time and proved there
//! top-down, because grounding them would be too large. The ground program asks for a check atom (a relation
//! with ground arguments) as one of its literals; the check's rules are searched depth-first
//! against the current state, the way a Prolog prover would, with static relations and the
//! state's facts as sorted tables.
//!
//! Terms are symbols numbered by the compiler (`u32`, below [`FUNC`]); an argument of a rule
//! with bit 31 set is a variable of the rule, numbered by the low bits, and one with bit 30 set
//! is a compound term, an index into [`Deferred::patterns`] (a function symbol and arguments in
//! the same encoding). While a search runs, the compound terms it builds are interned, so two
//! equal ground terms have the same value and compare as numbers; matching a rule's term
//! against a value takes the value apart (unification of a pattern with a ground term).
//!
//! The compiler orders every rule body for each pattern of bound arguments the relation is
//! called with (a *variant*), so that a negation, a `distinct` and a table's arguments are
//! ground when they are reached. A recursive relation called with all its arguments bound
//! fails on a call that repeats one of its callers, so the search ends: a shortest proof never
//! repeats a goal. The relations of a recursive group that is also called with free arguments
//! are *tabled* instead: each call is evaluated to its answers before they are handed on and
//! they are kept, a call that repeats one in progress reads the answers found so far, and the
//! first call of the group that such a repeat reads (its leader) evaluates its rules again
//! until no new answer appears, in the manner of SLG resolution. GDL's recursion restriction
//! keeps the calls and answers of such a group finite.
//!
//! The deferred relations as data are in `rules.rs` (relations, rules, goals, patterns) and
//! `tables.rs` (the rows that goals look up), the search in `search.rs`, and their encoding as
//! words, which the table form of a game stores, in `encode.rs`.

mod encode;
mod rules;
mod search;
mod tables;
#[cfg(test)]
mod tests;

pub use rules::{Deferred, Goal, Pattern, Relation, Rule, Variant};
pub use tables::{Indexes, StateRows, Table};

/// The mark of a variable argument.
pub const VAR: u32 = 1 << 31;
/// The mark of a compound argument (an index into [`Deferred::patterns`]) or, while a search
/// runs, of a compound value.
pub const FUNC: u32 = 1 << 30;
/// The value of a variable not bound yet.
const UNBOUND: u32 = u32::MAX;
