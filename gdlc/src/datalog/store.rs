//! Interned symbols and hash-consed ground terms: the runtime's store
//! ([`gdl_runtime::lifted::store`]), which the lifted form's generated code shares, so that the
//! terms gdlc interns are the terms that code reads.

pub(crate) use gdl_runtime::lifted::store::*;
