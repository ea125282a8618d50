//! gdlc-cli: the `gdlc` command line over the gdlc library. [`check`] is `gdlc check` within
//! its budget, [`analyze`] is `gdlc analyze`, [`commands`] holds what the other subcommands do, [`serve`] the player
//! (`gdlc serve`), [`play`] the game manager (`gdlc match`),
//! [`compiled`] the compiled engine (a game file to its per-game binary) and [`native`] the
//! cargo projects and cache of those binaries, [`phase`] the feedback on long work, [`view`]
//! the page of a match (`gdlc view`); `main.rs`
//! only reads the command line.

pub mod analyze;
pub mod check;
pub mod commands;
pub mod compiled;
pub mod native;
mod pgo;
pub mod phase;
pub mod play;
pub mod serve;
pub mod view;
