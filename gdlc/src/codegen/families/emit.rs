//! The generated code of rule families: a family tested a word at a time, each state word
//! shifted so that every literal's facts line up with the anchors.

use super::runs::{run_in_pair, run_in_word, run_shifts};
use super::Family;
use crate::codegen::emit::join;
use crate::codegen::tables::hex;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// Whether some rule of a family holds: per state word with anchors, the `&` of the state
/// shifted so that each literal's facts line up with the anchors, and of the anchors. A run
/// (see [`run_in_word`]) tests its words two at a time, as one [`Pair`](gdl_runtime::pair::Pair).
pub(crate) fn family_expr(family: &Family) -> TokenStream {
    let words: Vec<usize> = family.anchors.iter().enumerate().filter(|(_, &mask)| mask != 0).map(|(k, _)| k).collect();
    let (paired, single): (Vec<usize>, Vec<usize>) = match run_shifts(family) {
        Some(run) => words.iter().partition(|&&k| run.fits(family.anchors[k])),
        None => (Vec::new(), words),
    };
    let pairs = paired.chunks_exact(2);
    let mut single: Vec<usize> = pairs.remainder().iter().copied().chain(single).collect();
    single.sort_unstable();
    let mut tests: Vec<TokenStream> =
        pairs.map(|pair| run_in_pair((family, pair[0]), (family, pair[1]))).map(|run| quote!(#run.any())).collect();
    if !single.is_empty() {
        let terms: Vec<TokenStream> = single.iter().map(|&k| family_word(family, k)).collect();
        let any = join(&terms, quote!(|));
        tests.push(quote!(#any != 0));
    }
    match tests.as_slice() {
        [test] => test.clone(),
        _ => {
            let tests = tests.iter().map(|test| quote!((#test)));
            quote!(#(#tests)|*)
        }
    }
}

/// The anchors of word `k` of a family whose rule holds: the `&` of the state shifted so that
/// each literal's facts line up with the anchors, and of the anchors.
pub(crate) fn family_word(family: &Family, k: usize) -> TokenStream {
    let words = family.anchors.len();
    if let Some(run) = run_in_word(family, k) {
        return run;
    }
    let mut factors: Vec<TokenStream> = family
        .literals
        .iter()
        .map(|&(offset, positive)| {
            let word = shifted_word(k, offset as usize, words, family.anchors[k]);
            if positive {
                word
            } else {
                quote!(!#word)
            }
        })
        .collect();
    factors.push(hex(family.anchors[k]));
    join(&factors, quote!(&))
}

/// Word `k` of the state shifted right by `offset` bits (as one number of `words` words), so
/// that the fact `offset` bits past a bit of word `k` lands on that bit. Only the bits of
/// `needed` are used, so a word whose bits all land outside it is left out.
fn shifted_word(k: usize, offset: usize, words: usize, needed: u64) -> TokenStream {
    let (q, r) = (offset / 64, offset % 64);
    let (lo, hi) = (k + q, k + q + 1);
    // Word `lo` lands on bits `0..64 - r` of the result, word `hi` on bits `64 - r..64`.
    let from_low = r == 0 || needed & (u64::MAX >> r) != 0;
    let from_high = r != 0 && needed >> (64 - r) != 0;
    let low = (lo < words && from_low).then(|| {
        let lo = Literal::usize_unsuffixed(lo);
        if r == 0 {
            quote!(s.0[#lo])
        } else {
            let r = Literal::usize_unsuffixed(r);
            quote!((s.0[#lo] >> #r))
        }
    });
    let high = (from_high && hi < words).then(|| {
        let (hi, l) = (Literal::usize_unsuffixed(hi), Literal::usize_unsuffixed(64 - r));
        quote!((s.0[#hi] << #l))
    });
    match (low, high) {
        (Some(low), Some(high)) => quote!((#low | #high)),
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => quote!(0u64),
    }
}
