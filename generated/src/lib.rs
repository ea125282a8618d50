//! The bundled games of `games/`, compiled by gdlc and checked in (see `games/mod.rs`, written
//! by `cargo codegen`), plus games embedded with the `gdl!` macro.

pub mod games;
