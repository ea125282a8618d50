//! What `gdl!` expands to: the game's text, checked, grounded and compiled by [`crate::generate`]
//! while the calling crate compiles, into the same items `gdlc compile` writes (a `State`, a
//! `Move`, `legal`, `next`, `terminal`, `goals` and a `Game` implementing `gdl_runtime::Game`).

use crate::diag::render_all;
use crate::parse::decode;
use proc_macro2::TokenStream;
use quote::quote;
use std::path::Path;

/// Compiles the game in `source` into a module's items, or returns the rendered diagnostics
/// (`FILE:LINE:COL: error: ...`), with `file` naming the source in them.
pub fn embed_source(source: &str, file: &str) -> Result<TokenStream, String> {
    crate::generate(source, &crate::codegen::Options::default())
        .map_err(|error| render_all(&error.diagnostics(), file, source).trim_end().to_string())
}

/// Like [`embed_source`] for a file; the expansion also includes the file, so that cargo
/// rebuilds the crate when the game changes.
pub fn embed_file(path: &Path) -> Result<TokenStream, String> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("{file}: error: cannot read the game: {e}"))?;
    let source = decode(&bytes).map_err(|d| d.render(&file, &String::from_utf8_lossy(&bytes)))?;
    let items = embed_source(source, &file)?;
    Ok(quote! {
        const _: &str = include_str!(#file);
        #items
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_valid_game_expands_to_a_compiled_game() {
        let tokens = embed_source("(role r) (init p) (legal r a) (<= terminal (true p)) (goal r 0)", "g.kif").unwrap();
        let text = tokens.to_string();
        assert!(text.contains("pub struct State") && text.contains("impl :: gdl_runtime :: Game for Game"), "{text}");
    }

    #[test]
    fn an_invalid_game_gives_located_diagnostics() {
        let err =
            embed_source("(role r) (init p) (goal r 0) (<= terminal (true p))\n(<= (legal r ?m) (true p))", "g.kif")
                .unwrap_err();
        assert!(err.contains("g.kif:2:") && err.contains("error:"), "{err}");
    }
}
