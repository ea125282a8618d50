//! The `gdl!` macro, a thin shim over [`gdlc::embed`]: `gdl!("games/ticTacToe.kif")` (a path
//! relative to the calling crate's manifest) or `gdl!(kif = r#"..."#)` compiles the game while the
//! calling crate compiles, into the same items `gdlc compile` writes (the crate must depend on
//! `gdl-runtime`); every error becomes a `compile_error!` of its own, with `FILE:LINE:COL`.

use proc_macro::TokenStream;
use syn::parse::{Parse, ParseStream};
use syn::{LitStr, Token};

/// The two forms of the macro's input.
enum Input {
    Path(LitStr),
    Kif(LitStr),
}

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Input> {
        if input.peek(LitStr) {
            return Ok(Input::Path(input.parse()?));
        }
        let key: syn::Ident = input.parse()?;
        if key != "kif" {
            return Err(syn::Error::new(key.span(), "expected a path string or `kif = \"...\"`"));
        }
        input.parse::<Token![=]>()?;
        Ok(Input::Kif(input.parse()?))
    }
}

#[proc_macro]
pub fn gdl(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as Input);
    let (literal, result) = match &input {
        Input::Path(path) => {
            let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
            let full = std::path::Path::new(&dir).join(path.value());
            (path, gdlc::embed::embed_file(&full))
        }
        Input::Kif(text) => (text, gdlc::embed::embed_source(&text.value(), "<gdl! kif>")),
    };
    match result {
        Ok(tokens) => tokens.into(),
        Err(messages) => messages
            .iter()
            .map(|message| syn::Error::new(literal.span(), message).to_compile_error())
            .collect::<proc_macro2::TokenStream>()
            .into(),
    }
}
