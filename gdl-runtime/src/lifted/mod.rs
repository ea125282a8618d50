//! The lifted form: games evaluated over their rules as written, with variables, rather than
//! over a ground program. Its term store and tables are those of gdlc's interpreter, so that
//! the terms gdlc interns are the terms generated code reads.

pub mod hash;
pub mod store;
mod table;

pub use table::{Candidates, Table};
