//! Reading written tokens back, for the passes that rework a function after it is written (the
//! parts of a long function in `emit/nodes.rs`, the arrays kept between calls in `scratch/`): a
//! block's statements one by one, and whether tokens name an identifier.

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// The statements of a block, each with its closing `;` or block.
pub(crate) fn statements(tokens: &TokenStream) -> Vec<Vec<TokenTree>> {
    let mut statements = Vec::new();
    let mut statement: Vec<TokenTree> = Vec::new();
    let mut trees = tokens.clone().into_iter().peekable();
    while let Some(tree) = trees.next() {
        let end = match &tree {
            TokenTree::Punct(p) => p.as_char() == ';',
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {
                ends_at_block(without_attributes(&statement))
                    && !matches!(trees.peek(), Some(TokenTree::Ident(i)) if i == "else")
            }
            _ => false,
        };
        statement.push(tree);
        if end {
            statements.push(std::mem::take(&mut statement));
        }
    }
    if !statement.is_empty() {
        statements.push(statement);
    }
    statements
}

/// Whether a statement that begins with `start` ends at its (last) block: an `if`, a loop, a
/// `match`, an item `fn`, a block, or a macro called with braces.
fn ends_at_block(start: &[TokenTree]) -> bool {
    match start {
        [] => true,
        [TokenTree::Ident(i), ..] if ["if", "loop", "while", "for", "match", "fn", "unsafe"].iter().any(|k| i == k) => {
            true
        }
        [TokenTree::Ident(_), TokenTree::Punct(p)] => p.as_char() == '!',
        _ => false,
    }
}

/// `statement` without its leading attributes (`#[...]`).
pub(crate) fn without_attributes(mut statement: &[TokenTree]) -> &[TokenTree] {
    while let [TokenTree::Punct(p), TokenTree::Group(g), rest @ ..] = statement {
        if p.as_char() != '#' || g.delimiter() != Delimiter::Bracket {
            break;
        }
        statement = rest;
    }
    statement
}

/// Whether `tokens` name any of the identifiers `names`, in any group.
pub(crate) fn mentions(tokens: impl IntoIterator<Item = TokenTree>, names: &[&str]) -> bool {
    tokens.into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => names.iter().any(|name| ident == name),
        TokenTree::Group(group) => mentions(group.stream(), names),
        _ => false,
    })
}
