//! A grounded game as a [`ProgramGame`]: the table form's program ([`codegen::program`]) with
//! the names of its roles, facts and moves, played at once with no Rust built. The pipeline
//! from a game's text is [`crate::compile::load_engine`].

use crate::codegen;
use crate::ground::Ground;
use gdl_runtime::engine::{EngineError, Names, ProgramGame};
use std::fmt;

/// Why a game cannot be played through a [`ProgramGame`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The game is rtGDL, whose lifetimes the program does not keep: play it through
    /// `gdlc::interp::realtime` (callers may ask [`crate::realtime::is_realtime`] first).
    RealTime,
    /// The program and the names the grounder gave do not fit together (a grounder bug).
    Invalid(EngineError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::RealTime => f.write_str("an rtGDL game cannot be played from its ground program"),
            Error::Invalid(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::RealTime => None,
            Error::Invalid(error) => Some(error),
        }
    }
}

/// The names of a laid-out ground program's roles, facts, moves and percepts: what the
/// generated module's constant tables hold.
pub fn names(ground: &Ground) -> Names {
    Names {
        roles: ground.roles.clone(),
        base: ground.base.clone(),
        moves: ground.moves.clone(),
        role_moves: ground.inputs.clone(),
        initial: ground.initial.clone(),
        percepts: ground.percepts.clone(),
        random_role: ground.random_role,
        gdl_ii: ground.gdl_ii,
    }
}

/// The game of a laid-out (turn-based) ground program, evaluated as the table form evaluates
/// it.
pub fn program_game(ground: &Ground) -> Result<ProgramGame, Error> {
    ProgramGame::new(codegen::program::program(ground), names(ground)).map_err(Error::Invalid)
}

/// The state changes a second of a game's two engines, measured one after the other on random
/// playouts ([`gdl_runtime::bench::state_changes_per_sec`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Race {
    /// The program engine's rate.
    pub program: f64,
    /// The interpreter's rate.
    pub interpreter: f64,
}

impl Race {
    /// Whether the interpreter made more state changes than the program engine.
    pub fn interpreter_wins(&self) -> bool {
        self.interpreter > self.program
    }
}

/// Whether the interpreter might beat the program engine of `game`, so that a player should
/// race them: a program that proves atoms at run time (chess's threats) searches them top down
/// atom by atom, where the interpreter evaluates a state's relations bottom up all at once. A
/// program without them is evaluated incrementally, orders of magnitude past the interpreter.
pub fn worth_racing(game: &ProgramGame) -> bool {
    !game.program().deferred.atoms.is_empty() || !game.program().is_incremental()
}

/// Races the program engine `program` and `interpreter`, an engine of the same game, for
/// `each` apiece on one thread.
pub fn race<I: gdl_runtime::Game>(program: &ProgramGame, interpreter: &I, each: std::time::Duration) -> Race {
    const SEED: u64 = 0x5eed;
    Race {
        program: gdl_runtime::bench::state_changes_per_sec(program, each, SEED),
        interpreter: gdl_runtime::bench::state_changes_per_sec(interpreter, each, SEED),
    }
}
