//! The node arrays of a long function kept from one call to the next, in a thread-local, so
//! that a call clears only the entries it may read before it writes them rather than the whole
//! arrays (clearing them took 7-10% of chess_200's and shogi_ctk's steps). Which entries those
//! are is found by reading the function's statements in order, as they are written.

use crate::codegen::tokens::statements;
use proc_macro2::{Delimiter, Literal, TokenStream, TokenTree};
use quote::quote;
use reads::read_first;
use std::collections::BTreeSet;

mod reads;

/// The fewest bytes of arrays for which a function keeps them between calls: below, clearing
/// them costs about what reaching the thread-local does.
const MIN_BYTES: usize = 1024;

/// The most statements a call clears its entries with (a store, or a `fill` of a run of them);
/// a function that would need more, or would clear over half of its arrays' bytes, zeroes its
/// arrays whole, as before.
const MAX_CLEARS: usize = 64;

/// The fewest consecutive entries cleared by one `fill` rather than one store each.
const MIN_RUN: u32 = 4;

/// An entry of a function's arrays: `g[index]` when `words`, else `n[index]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    words: bool,
    index: u32,
}

/// The items of `functions` with the arrays of every long function kept between its calls,
/// where reading its statements finds few entries it may read before it writes them.
pub(crate) fn keep_arrays(functions: TokenStream) -> TokenStream {
    let mut trees: Vec<TokenTree> = functions.into_iter().collect();
    let mut at = 0;
    while at < trees.len() {
        let body = match function_body(&trees, at) {
            Some(body) => body,
            None => {
                at += 1;
                continue;
            }
        };
        if let TokenTree::Group(group) = &trees[body] {
            if let Some(kept) = kept_arrays(&group.stream()) {
                let mut replaced = proc_macro2::Group::new(Delimiter::Brace, kept);
                replaced.set_span(group.span());
                trees[body] = TokenTree::Group(replaced);
            }
        }
        at = body + 1;
    }
    trees.into_iter().collect()
}

/// The index of the body of the function whose item starts with the keyword `fn` at `at`.
fn function_body(trees: &[TokenTree], at: usize) -> Option<usize> {
    let is_fn = matches!(&trees[at], TokenTree::Ident(i) if i == "fn");
    let named = matches!(trees.get(at + 1), Some(TokenTree::Ident(_)));
    if !is_fn || !named {
        return None;
    }
    (at + 2..trees.len()).find(|&k| matches!(&trees[k], TokenTree::Group(g) if g.delimiter() == Delimiter::Brace))
}

/// The lengths of the arrays `n` and `g` a function's body declares first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Lengths {
    nodes: Option<usize>,
    words: Option<usize>,
}

impl Lengths {
    fn bytes(self) -> usize {
        self.nodes.unwrap_or(0) + 8 * self.words.unwrap_or(0)
    }

    fn of(self, words: bool) -> Option<usize> {
        if words {
            self.words
        } else {
            self.nodes
        }
    }
}

/// The body `body` with its arrays kept between calls, when it declares them first, they are
/// long and few of their entries may be read before they are written.
fn kept_arrays(body: &TokenStream) -> Option<TokenStream> {
    let mut statements = statements(body).into_iter().peekable();
    let mut lengths = Lengths::default();
    let mut notes = Vec::new();
    while let Some(statement) = statements.peek() {
        match declaration(statement) {
            Some((false, len)) if lengths.nodes.is_none() && lengths.words.is_none() => lengths.nodes = Some(len),
            Some((true, len)) if lengths.words.is_none() => lengths.words = Some(len),
            None if is_note(statement) => notes.push(statement.clone()),
            _ => break,
        }
        statements.next();
    }
    if lengths.bytes() < MIN_BYTES {
        return None;
    }
    let rest: Vec<Vec<TokenTree>> = statements.collect();
    let rest: TokenStream = rest.into_iter().flatten().collect();
    // Arrays that no part takes stay local: LLVM keeps their entries in registers and drops
    // the stores no one reads, which a thread-local's entries do not allow (skirmishNew, whose
    // step is not in parts, played 0.86x with its arrays kept).
    let lent = Lent { nodes: borrows(&rest, "n"), words: borrows(&rest, "g") };
    if !lent.nodes && !lent.words {
        return None;
    }
    let cleared = read_first(&rest, lengths)?;
    let bytes: usize = cleared.iter().map(|entry| if entry.words { 8 } else { 1 }).sum();
    let clears = clears(&cleared);
    if clears.len() > MAX_CLEARS || 2 * bytes > lengths.bytes() {
        return None;
    }
    let notes: TokenStream = notes.into_iter().flatten().collect();
    Some(thread_local_arrays(lengths, lent, &clears, notes, rest))
}

/// Which of the arrays `n` and `g` a function lends to its parts (as `&mut n`).
#[derive(Clone, Copy)]
struct Lent {
    nodes: bool,
    words: bool,
}

/// The statements that clear the entries `cleared`: a `fill` of each run of at least
/// [`MIN_RUN`] consecutive ones, a store of each other.
fn clears(cleared: &BTreeSet<Entry>) -> Vec<TokenStream> {
    let mut runs: Vec<(Entry, u32)> = Vec::new();
    for &entry in cleared {
        match runs.last_mut() {
            Some((first, len)) if first.words == entry.words && first.index + *len == entry.index => *len += 1,
            _ => runs.push((entry, 1)),
        }
    }
    let array = |words: bool| match words {
        true => (quote!(g), quote!(0)),
        false => (quote!(n), quote!(false)),
    };
    let mut statements = Vec::new();
    for (first, len) in runs {
        let (name, zero) = array(first.words);
        if len >= MIN_RUN {
            let (from, to) = (Literal::u32_unsuffixed(first.index), Literal::u32_unsuffixed(first.index + len));
            statements.push(quote!(#name[#from..#to].fill(#zero);));
        } else {
            statements.extend((first.index..first.index + len).map(|index| {
                let index = Literal::u32_unsuffixed(index);
                quote!(#name[#index] = #zero;)
            }));
        }
    }
    statements
}

/// The body that takes its arrays of lengths `lengths` from a thread-local, clears entries
/// with `clears`, and goes on with `notes` and `rest`, which lends the arrays `lent`.
fn thread_local_arrays(
    lengths: Lengths,
    lent: Lent,
    clears: &[TokenStream],
    notes: TokenStream,
    rest: TokenStream,
) -> TokenStream {
    let length = |len: Option<usize>| len.map(Literal::usize_unsuffixed);
    // A part takes the arrays as `&mut n`, a reference to the binding: the binding is mutable
    // when one is called here.
    let binding = |name: &str, lent: bool| {
        let ident = proc_macro2::Ident::new(name, proc_macro2::Span::call_site());
        match lent {
            true => quote!(mut #ident),
            false => quote!(#ident),
        }
    };
    let (ty, init, bind) = match (length(lengths.nodes), length(lengths.words)) {
        (Some(a), Some(b)) => {
            let (n, g) = (binding("n", lent.nodes), binding("g", lent.words));
            let bind = quote!(let (#n, #g) = (&mut arrays.0, &mut arrays.1););
            (quote!(([bool; #a], [u64; #b])), quote!(([false; #a], [0u64; #b])), bind)
        }
        (Some(a), None) => {
            let n = binding("n", lent.nodes);
            (quote!([bool; #a]), quote!([false; #a]), quote!(let #n = arrays;))
        }
        (None, Some(b)) => {
            let g = binding("g", lent.words);
            (quote!([u64; #b]), quote!([0u64; #b]), quote!(let #g = arrays;))
        }
        (None, None) => return rest,
    };
    quote! {
        ::std::thread_local! {
            static ARRAYS: ::core::cell::RefCell<#ty> = const { ::core::cell::RefCell::new(#init) };
        }
        #notes
        ARRAYS.with_borrow_mut(|arrays| {
            #bind
            #(#clears)*
            #rest
        })
    }
}

/// Whether `tokens` lend the array `name` to a function as `&mut name`, outside the bodies of
/// the functions they define.
fn borrows(tokens: &TokenStream, name: &str) -> bool {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut at = 0;
    while at < trees.len() {
        if let Some(body) = function_body(&trees, at) {
            at = body + 1;
            continue;
        }
        let lent = match &trees[at..] {
            [TokenTree::Punct(p), TokenTree::Ident(m), TokenTree::Ident(i), ..] => {
                p.as_char() == '&' && m == "mut" && i == name
            }
            [TokenTree::Group(group), ..] => borrows(&group.stream(), name),
            _ => false,
        };
        if lent {
            return true;
        }
        at += 1;
    }
    false
}

/// Whether `statement` declares `n` or `g` zeroed (`true` for `g`), and its length.
fn declaration(statement: &[TokenTree]) -> Option<(bool, usize)> {
    let [TokenTree::Ident(keyword), TokenTree::Ident(mutable), TokenTree::Ident(name), TokenTree::Punct(equals), TokenTree::Group(array), TokenTree::Punct(end)] =
        statement
    else {
        return None;
    };
    let shape = keyword == "let" && mutable == "mut" && equals.as_char() == '=' && end.as_char() == ';';
    let words = match name.to_string().as_str() {
        "n" => false,
        "g" => true,
        _ => return None,
    };
    let inner: Vec<TokenTree> = array.stream().into_iter().collect();
    let [TokenTree::Ident(_) | TokenTree::Literal(_), TokenTree::Punct(semi), TokenTree::Literal(len)] =
        inner.as_slice()
    else {
        return None;
    };
    let zero = inner[0].to_string() == if words { "0u64" } else { "false" };
    let len = len.to_string().parse().ok()?;
    (shape && zero && semi.as_char() == ';' && array.delimiter() == Delimiter::Bracket).then_some((words, len))
}

/// Whether `statement` is a comment marker (see `notes.rs`).
fn is_note(statement: &[TokenTree]) -> bool {
    matches!(statement.first(), Some(TokenTree::Ident(i)) if i == super::notes::MACRO)
}

#[cfg(test)]
mod tests;
