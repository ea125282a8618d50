//! The error of the library's pipeline: what [`crate::compile()`] and
//! [`crate::compile::ground_source`] fail with, one variant per stage, so that the CLI, the
//! `gdl!` macro and the player match on the kind of failure, never on its text.

use crate::diag::Diagnostic;
use std::fmt;

/// Why a game's text could not be compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The parser or the checks found errors; each diagnostic has its span.
    Diagnostics(Vec<Diagnostic>),
    /// The checked game cannot be grounded.
    Ground(crate::ground::Error),
    /// The grounded game cannot be generated in the form asked for.
    Codegen(crate::codegen::Error),
    /// The reference interpreter cannot load the game.
    Interp(crate::interp::Error),
    /// The ground program cannot be played as data ([`crate::engine`]).
    Engine(crate::engine::Error),
}

/// The hint under a grounding error.
const GROUND_HINT: &str = "the compiler grounds every rule; see `gdlc compile --max-instances` in docs/cli.md, or play it with `--engine interp`";

/// The hint under an error of the engine over the ground program.
const ENGINE_HINT: &str = "play the game through the interpreter";

/// The hint under a code generation error.
const CODEGEN_HINT: &str = "see docs/rtgdl.md";

impl Error {
    /// Whether the game is valid but too large to ground, which the CLI and the player answer
    /// by playing it through the interpreter.
    pub fn is_too_large_to_ground(&self) -> bool {
        matches!(self, Error::Ground(error) if error.is_too_large())
    }

    /// The error as diagnostics, located where the input says (the start of the game
    /// otherwise), to render as `FILE:LINE:COL: error: ...` or to turn into `compile_error!`s.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            Error::Diagnostics(diagnostics) => diagnostics.clone(),
            Error::Ground(error) => vec![Diagnostic::error(error.span(), error.to_string(), GROUND_HINT)],
            Error::Codegen(error) => vec![Diagnostic::error(Default::default(), error.to_string(), CODEGEN_HINT)],
            Error::Interp(error) => vec![Diagnostic::error(error.span(), error.to_string(), "")],
            Error::Engine(error) => vec![Diagnostic::error(Default::default(), error.to_string(), ENGINE_HINT)],
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Diagnostics(diagnostics) => {
                let messages: Vec<&str> = diagnostics.iter().map(|d| d.message.as_str()).collect();
                f.write_str(&messages.join("\n"))
            }
            Error::Ground(error) => error.fmt(f),
            Error::Codegen(error) => error.fmt(f),
            Error::Interp(error) => error.fmt(f),
            Error::Engine(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Diagnostics(_) => None,
            Error::Ground(error) => Some(error),
            Error::Codegen(error) => Some(error),
            Error::Interp(error) => Some(error),
            Error::Engine(error) => Some(error),
        }
    }
}

impl From<crate::ground::Error> for Error {
    fn from(error: crate::ground::Error) -> Error {
        Error::Ground(error)
    }
}

impl From<crate::codegen::Error> for Error {
    fn from(error: crate::codegen::Error) -> Error {
        Error::Codegen(error)
    }
}

impl From<crate::engine::Error> for Error {
    fn from(error: crate::engine::Error) -> Error {
        Error::Engine(error)
    }
}

impl From<crate::interp::Error> for Error {
    fn from(error: crate::interp::Error) -> Error {
        Error::Interp(error)
    }
}
