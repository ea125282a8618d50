//! gdlc: a compiler from the Game Description Language to specialized Rust.
//!
//! The pipeline is a series of small passes: [`parse`] reads either syntax into the [`ast`],
//! [`check`] enforces the specification's restrictions, [`graph`] orders relations into strata,
//! [`ground`] turns a checked game into a propositional program and [`codegen`] into Rust, and
//! [`interp`] evaluates it as the reference semantics. The grounder and the interpreter evaluate
//! rules with the Datalog engine of [`datalog`]; [`engine`] plays a ground program as data, with
//! no Rust built. The pipeline fails with an [`Error`]. [`load`]
//! reads a game file through the front end. The command line is the gdlc-cli crate's.

pub mod ast;
pub mod check;
pub mod codegen;
pub mod compile;
pub mod datalog;
pub mod diag;
pub mod embed;
pub mod engine;
mod error;
pub mod graph;
pub mod ground;
pub mod interp;
pub mod load;
pub mod parse;
pub mod print;
pub mod realtime;
pub use compile::{compile, generate};
pub use error::Error;
pub mod split;
mod unify;
