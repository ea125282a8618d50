//! The deferred relations of a game as data: each relation's rules, ordered for every pattern
//! of bound arguments it is called with, their goals, and the compound terms they build.

use super::tables::{Indexes, Table};

/// The checks of one game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deferred {
    /// The deferred relations, numbered by their index: the relations that check atoms and
    /// [`Goal::Call`]s name.
    pub relations: Vec<Relation>,
    /// The tables of rows that [`Goal::Table`]s look up, numbered by their index.
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
    /// The function symbol, numbered by the compiler.
    pub functor: u32,
    /// The arguments in the prover's encoding of arguments: symbols, variables (with
    /// [`super::VAR`]) and earlier patterns (with [`super::FUNC`]).
    pub args: Vec<u32>,
}

/// A deferred relation: its rules, ordered for each pattern of bound arguments it is called
/// with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Relation {
    /// The number of its arguments.
    pub arity: u32,
    /// Whether the relation depends on itself.
    pub recursive: bool,
    /// Whether its calls are tabled (see the module's documentation): its recursive group is
    /// called with free arguments somewhere.
    pub tabled: bool,
    /// Its rules ordered for each pattern of bound arguments it is called with; a call uses the
    /// variant that needs the most of the arguments the call binds, and no others.
    pub variants: Vec<Variant>,
}

/// A relation's rules ordered for one pattern of bound arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Variant {
    /// Bit `i` is set when argument `i` is bound by the caller.
    pub bound: u64,
    /// The relation's rules, each with its body ordered for these bound arguments.
    pub rules: Vec<Rule>,
}

/// One rule of a deferred relation: a head to match a call's arguments against and a body of
/// goals solved in order, depth-first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rule {
    /// How many variables the rule has.
    pub vars: u32,
    /// The head's arguments, one per argument of the relation, in the prover's encoding of
    /// arguments (symbols, variables and patterns).
    pub head: Vec<u32>,
    /// The body's goals, in the order they are solved.
    pub goals: Vec<Goal>,
}

/// One goal of a rule's body. Arguments are in the prover's encoding of arguments (symbols,
/// variables and patterns); those of a negative goal are ground when it is reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Goal {
    /// A (negated) call of another check relation.
    Call {
        /// The relation called, an index into [`Deferred::relations`].
        relation: u32,
        /// False for a negated call, which holds when the call has no answer.
        positive: bool,
        /// The arguments of the call, one per argument of the relation.
        args: Vec<u32>,
    },
    /// A (negated) lookup in a table: a static relation, or the state's facts of one shape.
    Table {
        /// The table looked up, an index into [`Deferred::tables`].
        table: u32,
        /// False for a negated lookup, which holds when no row matches.
        positive: bool,
        /// The arguments matched against a row's columns, one per column of the table.
        args: Vec<u32>,
    },
    /// `distinct` (positive) or equality (negative) of two arguments.
    Distinct {
        /// True for `distinct`, false for equality.
        positive: bool,
        /// The first argument.
        a: u32,
        /// The second argument.
        b: u32,
    },
}
