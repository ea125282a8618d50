//! The deferred relations of a game as data: each relation's rules, ordered for every pattern
//! of bound arguments it is called with, their goals, and the compound terms they build.

use super::tables::{Indexes, Table};

/// The checks of one game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checks {
    pub relations: Vec<Relation>,
    pub tables: Vec<Table>,
    /// The ground atoms the program reads: a relation and its ground arguments (symbols, or
    /// compound terms of `patterns` without variables).
    pub atoms: Vec<(u32, Vec<u32>)>,
    /// The compound terms of the rules and atoms; an argument refers only to earlier ones.
    pub patterns: Vec<Pattern>,
    /// Orders of static tables' rows by the columns searches bind, built when first needed.
    pub indexes: Indexes,
}

/// A compound term of a rule: a function symbol applied to arguments (symbols, variables or
/// earlier patterns).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pattern {
    pub functor: u32,
    pub args: Vec<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Relation {
    pub arity: u32,
    /// Whether the relation depends on itself.
    pub recursive: bool,
    /// Whether its calls are tabled (see the module's documentation): its recursive group is
    /// called with free arguments somewhere.
    pub tabled: bool,
    pub variants: Vec<Variant>,
}

/// A relation's rules ordered for one pattern of bound arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Variant {
    /// Bit `i` is set when argument `i` is bound by the caller.
    pub bound: u64,
    pub rules: Vec<Rule>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rule {
    /// How many variables the rule has.
    pub vars: u32,
    pub head: Vec<u32>,
    pub goals: Vec<Goal>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Goal {
    /// A (negated) call of another check relation.
    Call { relation: u32, positive: bool, args: Vec<u32> },
    /// A (negated) lookup in a table: a static relation, or the state's facts of one shape.
    Table { table: u32, positive: bool, args: Vec<u32> },
    /// `distinct` (positive) or equality (negative) of two arguments.
    Distinct { positive: bool, a: u32, b: u32 },
}
