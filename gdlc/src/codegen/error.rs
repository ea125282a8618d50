//! Why a grounded game cannot be generated in the form asked for.

use std::fmt;

/// Why [`super::generate_module`] refused a grounded game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The game has `relations` relations checked at run time, which only the table form of a
    /// turn-based game supports.
    DeferredNeedTables { relations: usize },
    /// The module of an rtGDL game cannot be generated: its reason.
    RealTime(String),
    /// The lifted form was asked for from a ground program; it is generated from the rules.
    LiftedFromGround,
    /// The lifted form was asked for an rtGDL game, which it does not play.
    LiftedRealTime,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::DeferredNeedTables { relations } => write!(
                f,
                "this game is compiled with {relations} relations checked at run time, which only the table form of \
                 a turn-based game supports (use --form auto or --form tables)"
            ),
            Error::RealTime(reason) => f.write_str(reason),
            Error::LiftedFromGround => {
                f.write_str("the lifted form is generated from a game's rules, not from its ground program")
            }
            Error::LiftedRealTime => f.write_str("the lifted form does not play rtGDL games (use --form auto)"),
        }
    }
}

impl std::error::Error for Error {}
