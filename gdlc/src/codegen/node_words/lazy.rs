//! Loops of node words computed only where their one reader asks for them. Lines of action's
//! flood fills (`connected`: one loop for each cell a fill starts from, 64 a colour) are read
//! only by "some piece of mine is not connected to this one", one test for each start. Each
//! test is written `if !n[k] && <a piece on the start> { <its loop> n[k] = <test> != 0; }`: a
//! start without a piece costs no fill, and once one test holds no other fill is made.

use super::families::WordTest;
use super::NodeWords;
use crate::codegen::emit::{Body, Emitter};
use crate::ground::{Lit, Prop, Value};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};

impl Emitter<'_> {
    /// For every loop of node words whose members one node alone reads (no output, and no
    /// other node but the loop's own members), that node, when it may compute the loop where
    /// it reads it: a node evaluated by itself, rule by rule, before the moves are known.
    pub(crate) fn find_lazy_loops(&self) -> BTreeMap<u32, u32> {
        let words = &self.words;
        if words.loops.is_empty() {
            return BTreeMap::new();
        }
        let mut readers: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
        for (r, node) in self.ground.nodes.iter().enumerate() {
            let own = loop_of_node(words, r as u32);
            for lit in node.rules.iter().flatten() {
                let Prop::Node(m) = lit.prop else { continue };
                if let Some(l) = loop_of_node(words, m).filter(|&l| own != Some(l)) {
                    readers.entry(l).or_default().insert(r as u32);
                }
            }
        }
        let read_out: BTreeSet<u32> = (self.ground.outputs())
            .filter_map(|value| match *value {
                Value::Lit(Lit { prop: Prop::Node(m), .. }) => loop_of_node(words, m),
                _ => None,
            })
            .collect();
        let computed = |l: u32| words.loops[l as usize].iter().all(|&g| !self.transposed[g as usize]);
        readers
            .into_iter()
            .filter(|&(l, _)| !read_out.contains(&l) && computed(l))
            .filter_map(|(l, readers)| match readers.into_iter().collect::<Vec<u32>>()[..] {
                [reader] if self.reads_loops_lazily(reader) => Some((l, reader)),
                _ => None,
            })
            .collect()
    }

    /// Whether node `n` may compute the loops it alone reads: it is evaluated by itself and
    /// rule by rule, is in no recursive group, and reads no move.
    fn reads_loops_lazily(&self, n: u32) -> bool {
        let i = n as usize;
        self.words.member[i].is_none() && self.cycle_of[i].is_none() && !self.reads_moves()[i] && self.rule_by_rule(n)
    }
}

/// The loop of node `m`'s group, when it is in one.
fn loop_of_node(words: &NodeWords, m: u32) -> Option<u32> {
    words.member[m as usize].and_then(|(g, _)| words.loop_of[g as usize])
}

impl Body<'_> {
    /// The loops that node `n` alone reads (see [`Emitter::lazy_loops`]) and that it computes
    /// where it reads them: those that only its rules tested a word at a time read.
    pub(crate) fn deferred_loops(&self, n: u32) -> Vec<u32> {
        let emitter = self.emitter;
        let mut loops = emitter.lazy_loops().iter().filter(|&(_, &reader)| reader == n).map(|(&l, _)| l).peekable();
        if loops.peek().is_none() {
            return Vec::new();
        }
        let rules = &emitter.ground.nodes[n as usize].rules;
        let tested = self.in_word_families(rules);
        let reads = |rule: &[Lit], l: u32| {
            rule.iter().any(|lit| matches!(lit.prop, Prop::Node(m) if loop_of_node(&emitter.words, m) == Some(l)))
        };
        loops
            .filter(|&l| {
                let mut readers = rules.iter().zip(&tested).filter(|(rule, _)| reads(rule, l));
                readers.all(|(_, &tested)| tested)
            })
            .collect()
    }

    /// The groups of the loops that a function's node statements `nodes` compute where their
    /// reader reads them, rather than at their place in the order: the deferred loops of the
    /// nodes among `nodes` evaluated by themselves (`alone`).
    pub(crate) fn lazy_groups(&self, nodes: &[u32], alone: impl Fn(u32) -> bool) -> Vec<u32> {
        let readers: BTreeSet<u32> = self.emitter.lazy_loops().values().copied().collect();
        let loops = nodes.iter().filter(|&&n| readers.contains(&n) && alone(n)).flat_map(|&n| self.deferred_loops(n));
        loops.flat_map(|l| self.emitter.words.loops[l as usize].iter().copied()).collect()
    }

    /// Statements computing node `n` into its slot, which computes the loops `loops` where it
    /// reads them: first its rules and tests that read none of them; then, while it does not
    /// hold, each test that reads them, inside a test of its other literals, after the loops.
    pub(crate) fn lazy_node(&self, n: u32, loops: &[u32]) -> TokenStream {
        let emitter = self.emitter;
        let slot = self.slots.of(n);
        let (tests, rest) = self.word_family_tests(&emitter.ground.nodes[n as usize].rules);
        let reads = |test: &WordTest, l: u32| emitter.words.loops[l as usize].iter().any(|g| test.groups.contains(g));
        let (lazy, now): (Vec<WordTest>, Vec<WordTest>) =
            tests.into_iter().partition(|test| loops.iter().any(|&l| reads(test, l)));
        // With nothing before it, the first test that fills sets the node: it needs no test
        // of the node, nor the node cleared first unless it has literals to test.
        let nothing_before = rest.is_empty() && now.is_empty();
        let unconditional = nothing_before && lazy.first().is_some_and(|test| test.fixed.is_empty());
        let store =
            (!unconditional).then(|| self.rules_expr(&rest, now.iter().map(WordTest::test).collect()).store(&slot));
        let lazy = lazy.iter().enumerate().map(|(i, test)| {
            let fills = loops.iter().filter(|&&l| reads(test, l)).map(|&l| {
                let notes = emitter.words.loops[l as usize].iter().map(|&g| self.group_note(g));
                let words = self.loop_words(l);
                quote!(#(#notes)* #words)
            });
            let unset = (i > 0 || !nothing_before).then(|| quote!(!n[#slot]));
            // A condition alone is not put in parentheses, which rustc would warn of.
            let fixed: Vec<TokenStream> = match (&unset, &test.fixed[..]) {
                (None, [one]) => vec![one.clone()],
                _ => test.fixed.iter().map(|f| quote!((#f))).collect(),
            };
            let conditions: Vec<TokenStream> = unset.into_iter().chain(fixed).collect();
            let word = &test.word;
            let body = quote!(#(#fills)* n[#slot] = #word != 0;);
            match conditions.is_empty() {
                true => body,
                false => quote!(if #(#conditions)&&* { #body }),
            }
        });
        quote!(#store #(#lazy)*)
    }
}
