//! Real-time (rtGDL) matches: the per-game binary's command line, the game manager that runs a
//! match on the wall clock, and a player's side of a match. The [`RealTimeGame`] interface and
//! the simulation of matches in game time are the core runtime's ([`gdl_runtime::realtime`]).
//!
//! [`RealTimeGame`]: gdl_runtime::realtime::RealTimeGame

pub mod driver;
pub mod manager;
pub mod session;
