//! Why a game cannot be grounded: too large (with what went past which limit), a fallback that
//! cannot express a rule, or rules the evaluator cannot run.

use crate::ast::{Description, Span};
use std::fmt;

/// How every message of a game too large to ground begins.
const TOO_LARGE: &str = "the game is too large to ground";

/// Why grounding failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Grounding `what` went past `limit`, and deferring relations to run time did not bring
    /// it under. The span is that of the first rule of the relation, where the input has one.
    TooLarge { what: Part, limit: Limit, span: Span },
    /// The game is too large to ground, and deferring relations to run time, the fallback, cannot
    /// express what a deferred rule needs.
    Undeferrable(Undeferrable),
    /// The game has no `role` fact.
    NoRole,
    /// A rule the evaluator cannot run.
    Rules(crate::datalog::Error),
    /// Grounding stopped, as [`super::Options::lift_at_checks`] asks, once the ground program
    /// read `atoms` atoms to check at run time: the game is better compiled lifted. `known`
    /// are the terms of its base facts and moves, in KIF, for the lifted form's store.
    ChecksMany { atoms: usize, known: Vec<String> },
}

/// What grounding was deriving when it went past a limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// The facts of a relation.
    Relation(String),
    /// The instances of a rule for a relation of the game.
    RuleFor(String),
}

/// The limit that grounding went past.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Facts and rule instances derived (`--max-instances`).
    Instances(usize),
    /// Steps of joins, which grow with `--max-instances`.
    Steps(usize),
}

/// What the run-time checks cannot express.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Undeferrable {
    /// A checked relation would be called with a compound term, in canonical KIF.
    CompoundTerm(String),
    /// A checked rule reads a whole fact, `(true ?x)`.
    WholeFact,
    /// A checked rule reads a relation that depends on the state other than through `true`.
    StateDependent(String),
    /// A ground rule reads an atom of a relation that is not checked.
    NotChecked(String),
    /// No relation can be checked at run time.
    NothingToDefer,
}

impl Error {
    /// Whether the game is too large to ground (which the CLI and the player answer by playing
    /// it through the interpreter).
    pub fn is_too_large(&self) -> bool {
        matches!(self, Error::TooLarge { .. } | Error::Undeferrable(_))
    }

    /// Where in the game the problem is, where the input says.
    pub fn span(&self) -> Span {
        match self {
            Error::TooLarge { span, .. } => *span,
            Error::Rules(error) => error.span(),
            Error::Undeferrable(_) | Error::NoRole | Error::ChecksMany { .. } => Span::default(),
        }
    }

    /// The error for going past `limit` while grounding `what`, located at the first rule of
    /// its relation in `description`.
    pub(super) fn too_large(what: Part, limit: Limit, description: &Description) -> Error {
        let relation = match &what {
            Part::Relation(name) | Part::RuleFor(name) => name,
        };
        let rule = description.rules.iter().find(|rule| &rule.head.name == relation);
        Error::TooLarge { what, limit, span: rule.map_or_else(Span::default, |rule| rule.span) }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::TooLarge { what, limit: Limit::Instances(limit), .. } => write!(
                f,
                "{TOO_LARGE}: {what} goes past {limit} facts and rule instances (the limit is an option: \
                 --max-instances)"
            ),
            Error::TooLarge { what, limit: Limit::Steps(steps), .. } => write!(
                f,
                "{TOO_LARGE}: {what} takes more than {steps} steps of joins (the limit grows with --max-instances)"
            ),
            Error::Undeferrable(reason) => write!(f, "{TOO_LARGE}: {reason}"),
            Error::NoRole => f.write_str("the game has no role"),
            Error::Rules(error) => error.fmt(f),
            Error::ChecksMany { atoms, .. } => {
                write!(f, "grounding stopped: the ground program would check at least {atoms} atoms at run time")
            }
        }
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Part::Relation(name) => write!(f, "the relation `{name}`"),
            Part::RuleFor(name) => write!(f, "instantiating a rule for `{name}`"),
        }
    }
}

impl fmt::Display for Undeferrable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Undeferrable::CompoundTerm(term) => {
                write!(f, "a relation checked at run time would have to handle the compound term {term}")
            }
            Undeferrable::WholeFact => f.write_str("a checked rule reads a whole fact"),
            Undeferrable::StateDependent(relation) => write!(f, "a checked rule reads `{relation}`"),
            Undeferrable::NotChecked(relation) => write!(f, "`{relation}` is read but not checked"),
            Undeferrable::NothingToDefer => f.write_str("no relation of it can be checked at run time"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Rules(error) => Some(error),
            _ => None,
        }
    }
}

impl From<crate::datalog::Error> for Error {
    fn from(error: crate::datalog::Error) -> Error {
        Error::Rules(error)
    }
}

impl From<Undeferrable> for Error {
    fn from(reason: Undeferrable) -> Error {
        Error::Undeferrable(reason)
    }
}
