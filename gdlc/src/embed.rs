//! What `gdl!` expands to before the code generator exists: the game's text, parsed and checked
//! at compile time, and loaded into the reference interpreter when the program runs.

use crate::diag::render_all;
use crate::parse::decode;
use proc_macro2::TokenStream;
use quote::quote;
use std::path::Path;

/// Checks the game in `source` and returns an expression of type
/// `Result<gdlc::interp::Interpreter, String>`, or the rendered diagnostics.
pub fn embed_source(source: &str, file: &str) -> Result<TokenStream, String> {
    check(source, file)?;
    Ok(quote! {
        ::gdlc::interp::Interpreter::new(&::gdlc::parse::parse_auto(#source).description)
    })
}

/// Like [`embed_source`] for a file, which the expansion includes so that cargo rebuilds the
/// crate when the file changes.
pub fn embed_file(path: &Path) -> Result<TokenStream, String> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("{file}: error: cannot read the game: {e}"))?;
    let source = decode(&bytes).map_err(|d| d.render(&file, &String::from_utf8_lossy(&bytes)))?;
    check(source, &file)?;
    Ok(quote! {
        ::gdlc::interp::Interpreter::new(&::gdlc::parse::parse_auto(include_str!(#file)).description)
    })
}

fn check(source: &str, file: &str) -> Result<(), String> {
    let mut diagnostics = crate::check::parse_and_check(source).diagnostics;
    diagnostics.retain(|d| d.is_error());
    if diagnostics.is_empty() {
        Ok(())
    } else {
        Err(render_all(&diagnostics, file, source).trim_end().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_valid_game_expands_to_an_interpreter() {
        let tokens = embed_source("(role r) (init p) (legal r a) (<= terminal (true p)) (goal r 0)", "g.kif").unwrap();
        assert!(tokens.to_string().contains("Interpreter :: new"), "{tokens}");
    }

    #[test]
    fn an_invalid_game_gives_located_diagnostics() {
        let err =
            embed_source("(role r) (init p) (goal r 0) (<= terminal (true p))\n(<= (legal r ?m) (true p))", "g.kif")
                .unwrap_err();
        assert!(err.contains("g.kif:2:") && err.contains("error:"), "{err}");
    }
}
