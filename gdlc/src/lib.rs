//! gdlc: a compiler from the Game Description Language to specialized Rust.
//!
//! The pipeline is a series of small passes: [`parse`] reads either syntax into the [`ast`],
//! [`check`] enforces the specification's restrictions, [`graph`] orders relations into strata,
//! and [`interp`] evaluates a checked game as the reference semantics. [`load`] reads a game
//! file through the front end. The command line is the gdlc-cli crate's.

pub mod ast;
pub mod check;
pub mod codegen;
pub mod diag;
pub mod embed;
pub mod graph;
pub mod ground;
pub mod interp;
pub mod load;
pub mod parse;
pub mod print;
pub mod realtime;
pub use codegen::generate;
pub mod split;
