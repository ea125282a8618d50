//! What `gdl!` expands to: the game's text, checked, grounded and compiled by [`crate::generate`]
//! while the calling crate compiles, into the same items `gdlc compile` writes (a `State`, a
//! `Move`, `legal`, `next`, `terminal`, `goals` and a `Game` implementing `gdl_runtime::Game`).

use crate::parse::decode;
use proc_macro2::TokenStream;
use quote::quote;
use std::path::Path;

/// Compiles the game in `source` into a module's items, or returns every error, each rendered
/// on its own (`FILE:LINE:COL: message`, with `file` naming the source, and no `error:`, which
/// rustc writes before it, then the source line with carets), so that the macro reports each
/// as a `compile_error!` of its own.
pub fn embed_source(source: &str, file: &str) -> Result<TokenStream, Vec<String>> {
    crate::generate(source, &crate::codegen::Options::default()).map_err(|error| {
        error.diagnostics().iter().map(|d| d.render_unlabelled(file, source).trim_end().to_string()).collect()
    })
}

/// Like [`embed_source`] for a file; the expansion also includes the file, so that cargo
/// rebuilds the crate when the game changes.
pub fn embed_file(path: &Path) -> Result<TokenStream, Vec<String>> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| vec![format!("{file}: cannot read the game: {e}")])?;
    let source = decode(&bytes).map_err(|d| vec![d.render_unlabelled(&file, &String::from_utf8_lossy(&bytes))])?;
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
        assert_eq!(err.len(), 1, "{err:?}");
        assert!(err[0].starts_with("g.kif:2:") && !err[0].contains("error:"), "{err:?}");
        // The message shows the offending part of the text, which the macro's span cannot.
        assert!(err[0].contains("2 | (<= (legal r ?m) (true p))\n") && err[0].contains("|              ^^"), "{err:?}");
    }
}
