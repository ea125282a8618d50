//! Runs: a family whose literals are equally spaced facts that all hold (a line of four of
//! connectFour) is tested by shifts by doubling, as bitboard line tests are written by hand;
//! two nodes of runs with the same literals in two words (a line of red and a line of black)
//! are twins, tested together in one [`Pair`](gdl_runtime::pair::Pair).

use super::Family;
use crate::codegen::emit::{Body, Emitter};
use crate::codegen::tables::hex;
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::collections::BTreeMap;

/// How a family that is a run of equally spaced facts that all hold (a line of four of
/// connectFour: offsets 0, d, 2d, 3d) is tested, as bitboard line tests are written by hand:
/// `run &= run >> by` for each of `doubling` (two shifts for four facts, not three), then once
/// more by `last` when the doubling falls short of the run.
pub(crate) struct RunShifts {
    doubling: Vec<u32>,
    last: Option<u32>,
    /// The distance from a run's first fact to its last.
    span: u32,
}

impl RunShifts {
    /// Whether the facts of every anchor of `anchors` stay within the anchors' word.
    pub(crate) fn fits(&self, anchors: u64) -> bool {
        self.span < 64 && anchors >> (64 - self.span) == 0
    }
}

/// The shifts that test `family` as a run, or `None` for a family of another form.
pub(crate) fn run_shifts(family: &Family) -> Option<RunShifts> {
    let offsets: Vec<u32> =
        family.literals.iter().map(|&(offset, positive)| positive.then_some(offset)).collect::<Option<_>>()?;
    let len = offsets.len() as u32;
    let step = *offsets.get(1)?;
    let spaced = offsets.iter().enumerate().all(|(i, &offset)| offset == step * i as u32);
    if len < 3 || step == 0 || !spaced {
        return None;
    }
    // `covered` facts from each bit hold in `run`; doubling it while it stays within `len`.
    let (mut doubling, mut covered) = (Vec::new(), 1);
    while covered * 2 <= len {
        doubling.push(step * covered);
        covered *= 2;
    }
    let last = (covered < len).then_some(step * (len - covered));
    Some(RunShifts { doubling, last, span: step * (len - 1) })
}

/// [`family_word`] for a run (see [`run_shifts`]) whose facts stay within word `k` for every
/// anchor: its shifts by doubling, masked by the anchors. `None` for a family of another form.
pub(crate) fn run_in_word(family: &Family, k: usize) -> Option<TokenStream> {
    let run = run_shifts(family).filter(|run| run.fits(family.anchors[k]))?;
    let w = Literal::usize_unsuffixed(k);
    let shift = |by: &u32| Literal::u32_unsuffixed(*by);
    let doubling = run.doubling.iter().map(shift);
    let anchors = hex(family.anchors[k]);
    let last = match run.last.as_ref().map(shift) {
        None => quote!(run & #anchors),
        Some(by) => quote!(run & (run >> #by) & #anchors),
    };
    Some(quote!({ let run = s.0[#w]; #(let run = run & (run >> #doubling);)* #last }))
}

/// The runs (see [`run_shifts`]) of two families with the same literals, `low`'s in its word
/// and `high`'s in its, tested in one [`Pair`](gdl_runtime::pair::Pair): the same shifts as
/// [`run_in_word`]'s, each on both words at once, masked by each word's anchors.
pub(crate) fn run_in_pair((low, l): (&Family, usize), (high, h): (&Family, usize)) -> TokenStream {
    let run = run_shifts(low).expect("a pair is tested only as a run");
    let pair = quote!(::gdl_runtime::pair::Pair);
    let anchors = {
        let (low, high) = (hex(low.anchors[l]), hex(high.anchors[h]));
        quote!(#pair::new(#low, #high))
    };
    let (l, h) = (Literal::usize_unsuffixed(l), Literal::usize_unsuffixed(h));
    let shift = |by: &u32| Literal::i32_unsuffixed(*by as i32);
    let doubling = run.doubling.iter().map(shift);
    let last = match run.last.as_ref().map(shift) {
        None => quote!(run.and(#anchors)),
        Some(by) => quote!(run.and(run.shr::<#by>()).and(#anchors)),
    };
    quote!({ let run = #pair::new(s.0[#l], s.0[#h]); #(let run = run.and(run.shr::<#doubling>());)* #last })
}

impl Emitter<'_> {
    /// A node whose value is only runs (see [`run_shifts`]) within one state word, as
    /// connectFour's "a line of red" is: that word and the runs' families.
    pub(crate) fn run_node(&self, n: u32) -> Option<(usize, &[Family])> {
        let node = self.families.get(n as usize)?;
        let whole = node.rules == self.ground.nodes[n as usize].rules.len();
        if node.families.is_empty()
            || !whole
            || self.cycle_of[n as usize].is_some()
            || self.words.member[n as usize].is_some()
        {
            return None;
        }
        let mut word = None;
        for family in &node.families {
            let run = run_shifts(family)?;
            let mut words = family.anchors.iter().enumerate().filter(|(_, &anchors)| anchors != 0);
            let (k, &anchors) = words.next()?;
            if words.next().is_some() || !run.fits(anchors) || *word.get_or_insert(k) != k {
                return None;
            }
        }
        Some((word?, &node.families))
    }

    /// Twin nodes among `nodes`: two nodes of runs (see [`Emitter::run_node`]) with the same
    /// literals in two words (a line of red and a line of black), tested together in one
    /// [`Pair`](gdl_runtime::pair::Pair) where the first is. The first maps to its twin, the
    /// second to `None`. They read only the state, so the second may be computed early.
    pub(crate) fn twins(&self, nodes: &[u32]) -> BTreeMap<u32, Option<u32>> {
        let runs: Vec<(u32, usize, &[Family])> =
            nodes.iter().filter_map(|&n| self.run_node(n).map(|(word, families)| (n, word, families))).collect();
        let same =
            |a: &[Family], b: &[Family]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.literals == y.literals);
        let mut twins = BTreeMap::new();
        for (i, &(n, word, families)) in runs.iter().enumerate() {
            if twins.contains_key(&n) {
                continue;
            }
            let twin = runs[i + 1..]
                .iter()
                .find(|&&(m, other, theirs)| other != word && !twins.contains_key(&m) && same(families, theirs));
            if let Some(&(m, _, _)) = twin {
                twins.insert(n, Some(m));
                twins.insert(m, None);
            }
        }
        twins
    }
}

impl Body<'_> {
    /// Twin nodes `n` and `m` (see [`Emitter::twins`]) stored from one
    /// [`Pair`](gdl_runtime::pair::Pair), `n`'s word in its low lane.
    pub(crate) fn twin_runs(&self, n: u32, m: u32) -> TokenStream {
        let ((low, ours), (high, theirs)) =
            (self.emitter.run_node(n).expect("a run node"), self.emitter.run_node(m).expect("a run node"));
        let runs: Vec<TokenStream> = ours.iter().zip(theirs).map(|(a, b)| run_in_pair((a, low), (b, high))).collect();
        let (first, rest) = runs.split_first().expect("a run node has families");
        let (n, m) = (self.slots.of(n), self.slots.of(m));
        quote! {{
            let [low, high] = #first #(.or(#rest))*.lanes();
            n[#n] = low != 0;
            n[#m] = high != 0;
        }}
    }
}
