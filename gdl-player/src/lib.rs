//! gdl-player: what plays a game of the core runtime's [`Game`] interface, compiled or
//! interpreted. The [`player`]s choose moves (with [`belief`] states for GDL-II); [`protocol`],
//! [`http`], [`server`] and [`session`] serve the GGP player protocol; [`manager`] runs matches
//! between players; [`driver`] is the command line of every per-game binary, with [`trace`]
//! (match traces) and [`rename`] (symbols spelled as a match spells them); [`realtime`] holds
//! the rtGDL counterparts.
//!
//! [`Game`]: gdl_runtime::Game

// Every public item is documented, and this keeps it so under `cargo clippy -- -D warnings`.
#![warn(missing_docs)]

pub mod belief;
pub mod driver;
pub mod http;
pub mod log;
pub mod manager;
pub mod player;
pub mod protocol;
pub mod realtime;
pub mod rename;
pub mod server;
pub mod session;
pub mod trace;
mod turns;
