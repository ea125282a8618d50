//! Why the reference interpreters cannot load a game.

use crate::ast::Span;
use crate::diag::Diagnostic;
use crate::realtime::LifetimeError;
use std::fmt;

/// Why [`super::Interpreter::new`] or [`super::realtime::RealTimeInterpreter::new`] refused a
/// game, or why an rtGDL state could not be settled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A rule the evaluator cannot run.
    Rules(crate::datalog::Error),
    /// The game has no `role` fact.
    NoRole,
    /// A relation that does not depend on the state goes past the interpreter's limits (more
    /// than `facts` facts in all, or more than `steps` steps of joins) even when computed only
    /// for the values the game asks for.
    StaticTooLarge { relation: String, facts: usize, steps: usize },
    /// Loading went past the caller's [`super::Limits`].
    Exceeded(super::Exceeded),
    /// An rtGDL game given to the plain interpreter.
    RealTimeGame,
    /// A plain game given to the real-time interpreter.
    NotRealTime,
    /// The first error of the rtGDL checks.
    RealTimeCheck(Diagnostic),
    /// A lifetime marker with a written lifetime that is not one.
    Lifetime(LifetimeError),
    /// A lifetime marker that copies the lifetime of a fact that does not hold.
    CopiedLifetimeMissing,
    /// A lifetime marker of neither form.
    MalformedMarker,
    /// A derived fact that no lifetime marker gives a lifetime.
    NoLifetime,
}

impl Error {
    /// Where in the game the problem is, where the input says.
    pub fn span(&self) -> Span {
        match self {
            Error::Rules(error) => error.span(),
            Error::RealTimeCheck(diagnostic) => diagnostic.span,
            _ => Span::default(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Rules(error) => error.fmt(f),
            Error::NoRole => f.write_str("the game has no role"),
            Error::StaticTooLarge { relation, facts, steps } => write!(
                f,
                "the relation `{relation}` does not depend on the state, but computing it bottom-up, even for only the \
                 values the game asks for, takes more than {facts} facts or {steps} steps; the interpreter cannot \
                 evaluate this game"
            ),
            Error::Exceeded(exceeded) => write!(f, "loading the game went past its limits: {exceeded}"),
            Error::RealTimeGame => f.write_str(
                "this is an rtGDL game (its facts have lifetimes); it is played through the real-time interpreter, \
                 `interp::realtime::RealTimeInterpreter`",
            ),
            Error::NotRealTime => f.write_str("this is not an rtGDL game: no `init` gives a fact a lifetime"),
            Error::RealTimeCheck(diagnostic) => f.write_str(&diagnostic.message),
            Error::Lifetime(error) => error.fmt(f),
            Error::CopiedLifetimeMissing => f.write_str("a lifetime copied from a fact that does not hold"),
            Error::MalformedMarker => f.write_str("a malformed lifetime marker"),
            Error::NoLifetime => f.write_str("a derived fact without a lifetime"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Rules(error) => Some(error),
            Error::Lifetime(error) => Some(error),
            Error::Exceeded(error) => Some(error),
            _ => None,
        }
    }
}

impl From<crate::datalog::Error> for Error {
    fn from(error: crate::datalog::Error) -> Error {
        Error::Rules(error)
    }
}

impl From<LifetimeError> for Error {
    fn from(error: LifetimeError) -> Error {
        Error::Lifetime(error)
    }
}
