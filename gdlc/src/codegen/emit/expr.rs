//! Nodes' values and literals as Rust expressions over the state's words `s.0`, the joint
//! move, the node array `n`, the node words `g` and the move table row `mt`.

use super::{Body, Emitter};
use crate::codegen::families::family_expr;
use crate::codegen::tables::hex;
use crate::ground::{Lit, Prop, Value};
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::collections::BTreeMap;

/// The fewest moves of one role for which an "any of these moves" proposition is generated
/// as a lookup in a constant bit set rather than as comparisons.
const MOVE_SET_MIN: usize = 4;

/// The most rules and literals of a node computed as one expression.
const SHORT_RULES: usize = 8;
const SHORT_LITERALS: usize = 32;

/// A node's value as generated code.
pub(crate) enum Expr {
    /// A value known when the code is generated: `true` when some rule's literals all hold
    /// wherever the node is computed, `false` when it has no rule left.
    Const(bool),
    /// One expression.
    Short(TokenStream),
    /// The rules' conjunctions, to be or-ed together one statement each.
    Long(Vec<TokenStream>),
}

impl Expr {
    /// The rules' conjunctions: the one expression, or each rule's.
    pub(crate) fn disjuncts(self) -> Vec<TokenStream> {
        match self {
            Expr::Const(value) => vec![quote!(#value)],
            Expr::Short(expr) => vec![expr],
            Expr::Long(disjuncts) => disjuncts,
        }
    }

    /// Statements that or the value into slot `slot` of the node array `n`.
    pub(crate) fn or_into(self, slot: &Literal) -> TokenStream {
        let disjuncts = self.disjuncts();
        quote!(#(n[#slot] |= #disjuncts;)*)
    }

    /// Statements that store the value in slot `slot` of `n`, which starts false: assigned
    /// when it is one expression, else or-ed in rule by rule.
    pub(crate) fn store(self, slot: &Literal) -> TokenStream {
        match self {
            Expr::Const(value) => quote!(n[#slot] = #value;),
            Expr::Short(expr) => quote!(n[#slot] = #expr;),
            long => long.or_into(slot),
        }
    }
}

impl Body<'_> {
    /// A node's value: the disjunction of its rules, each the conjunction of its literals; one
    /// expression when it is short, else one expression per rule (a long chain of `||` would
    /// nest too deeply for rustc). Rules that differ only by the move they need (frame rules
    /// ground to one rule per move that leaves a fact alone) are merged into one conjunction
    /// with a test of the joint move against a set of moves, or of the move table's row
    /// against a mask when what they differ by is a node of the move table (chineseCheckers6's
    /// "some role moves from b to e").
    pub(crate) fn node_expr(&self, n: u32) -> Expr {
        let emitter = self.emitter;
        let rules = &emitter.ground.nodes[n as usize].rules;
        if let Some(table) = emitter.truth_table(n) {
            return Expr::Short(table.expr(emitter.notes));
        }
        let (rules, mut disjuncts) = match emitter.families.get(n as usize) {
            Some(f) if !f.families.is_empty() => (&rules[f.rules..], f.families.iter().map(family_expr).collect()),
            _ => (&rules[..], Vec::<TokenStream>::new()),
        };
        let (by_words, rest) = self.word_families(rules);
        disjuncts.extend(by_words);
        self.rules_expr(&rest, disjuncts)
    }

    /// The value of `rules` or-ed with `disjuncts` (already generated), as [`node_expr`] gives
    /// it.
    ///
    /// [`node_expr`]: Self::node_expr
    pub(crate) fn rules_expr(&self, rules: &[Vec<Lit>], mut disjuncts: Vec<TokenStream>) -> Expr {
        for (rest, moves) in merge_move_rules(rules, |node| self.row_bit(node)) {
            let mut conjuncts = self.conjuncts(&rest);
            if !moves.is_empty() {
                conjuncts.push(self.emitter.moves_test(&moves));
            }
            if conjuncts.is_empty() {
                return Expr::Const(true);
            }
            disjuncts.push(join(&conjuncts, quote!(&)));
        }
        let literals: usize = rules.iter().map(Vec::len).sum();
        if disjuncts.is_empty() {
            Expr::Const(false)
        } else if disjuncts.len() == 1 || (disjuncts.len() <= SHORT_RULES && literals <= SHORT_LITERALS) {
            Expr::Short(join(&disjuncts, quote!(|)))
        } else {
            Expr::Long(disjuncts)
        }
    }

    /// The literals of a rule as tests to join with `&` (no short-circuit, so no branches):
    /// the base literals of one state word become one mask comparison, the
    /// others one test each. Inside a test of a literal (`Body::where_holds`), that literal is
    /// left out, and a rule that needs it false is `false`.
    pub(crate) fn conjuncts(&self, rule: &[Lit]) -> Vec<TokenStream> {
        if rule.iter().any(|&lit| self.known(lit) == Some(false)) {
            return vec![quote!(false)];
        }
        // (word, mask of the literals' bits, bits that must be set), in order of first use.
        let mut words: Vec<(u32, u64, u64)> = Vec::new();
        let mut others = Vec::new();
        for &lit in rule.iter().filter(|&&lit| self.known(lit).is_none()) {
            match lit.prop {
                Prop::Base(i) => {
                    let (w, bit) = (i / 64, 1u64 << (i % 64));
                    let at = match words.iter().position(|&(word, _, _)| word == w) {
                        Some(at) => at,
                        None => {
                            words.push((w, 0, 0));
                            words.len() - 1
                        }
                    };
                    words[at].1 |= bit;
                    if lit.positive {
                        words[at].2 |= bit;
                    }
                }
                _ => {
                    others.push(self.lit(lit));
                }
            }
        }
        let mut out: Vec<TokenStream> = words
            .into_iter()
            .map(|(w, mask, set)| {
                let w = Literal::usize_unsuffixed(w as usize);
                if set == 0 {
                    let mask = hex(mask);
                    quote!(s.0[#w] & #mask == 0)
                } else if set == mask {
                    let mask = hex(mask);
                    quote!(s.0[#w] & #mask == #mask)
                } else {
                    let (mask, set) = (hex(mask), hex(set));
                    quote!(s.0[#w] & #mask == #set)
                }
            })
            .collect();
        out.extend(others);
        out
    }

    /// A value as an expression.
    pub(crate) fn value(&self, value: Value) -> TokenStream {
        match value {
            Value::Const(true) => quote!(true),
            Value::Const(false) => quote!(false),
            Value::Lit(lit) => self.lit(lit),
        }
    }

    /// A literal as an expression that needs no parentheses inside `&&` and `||`.
    pub(crate) fn lit(&self, lit: Lit) -> TokenStream {
        if let Some(value) = self.known(lit) {
            return quote!(#value);
        }
        let positive = lit.positive;
        match lit.prop {
            Prop::Base(i) => {
                let (w, mask) = (Literal::usize_unsuffixed(i as usize / 64), hex(1 << (i % 64)));
                if positive {
                    quote!(s.0[#w] & #mask != 0)
                } else {
                    quote!(s.0[#w] & #mask == 0)
                }
            }
            Prop::Does(r, m) => {
                let (r, m) = (Literal::usize_unsuffixed(r as usize), Literal::u32_unsuffixed(m));
                if positive {
                    quote!(joint[#r].0 == #m)
                } else {
                    quote!(joint[#r].0 != #m)
                }
            }
            Prop::Node(node) if self.row_bit(node).is_some() => {
                let bit = self.row_bit(node).unwrap_or_default() as usize;
                let (w, mask) = (Literal::usize_unsuffixed(bit / 64), hex(1 << (bit % 64)));
                if positive {
                    quote!(mt[#w] & #mask != 0)
                } else {
                    quote!(mt[#w] & #mask == 0)
                }
            }
            Prop::Node(node) if self.emitter.words.member[node as usize].is_some() => {
                // A mask, not a shift: rustc resolves `u64 >> {integer}` among many impls, and
                // takes seconds over the thousands of reads of a large module.
                let (g, place) = self.emitter.words.member[node as usize].unwrap_or_default();
                let (k, mask) = (self.slots.word(g), hex(1 << place));
                if positive {
                    quote!(g[#k] & #mask != 0)
                } else {
                    quote!(g[#k] & #mask == 0)
                }
            }
            Prop::Node(node) => {
                let slot = self.slots.of(node);
                if positive {
                    quote!(n[#slot])
                } else {
                    quote!(!n[#slot])
                }
            }
            // `generate_module` gives games with checked relations the table form only.
            Prop::Deferred(_) => unreachable!("checked relations in the straight-line form"),
        }
    }
}

impl Emitter<'_> {
    /// Whether node `n` is evaluated rule by rule: it has no word families and no truth table.
    pub(crate) fn rule_by_rule(&self, n: u32) -> bool {
        self.families.get(n as usize).is_none_or(|f| f.families.is_empty()) && self.truth_table(n).is_none()
    }

    /// Whether the joint move is one of `moves` (sorted): for each role, a comparison when it
    /// has few of them, else a lookup in a constant bit set; for the nodes of the move table,
    /// one mask test of each word of `mt` they sit in.
    fn moves_test(&self, moves: &[MoveLit]) -> TokenStream {
        let mut tests = Vec::new();
        let mut words: Vec<(u32, u64)> = Vec::new();
        for &m in moves {
            if let MoveLit::TableBit(bit) = m {
                match words.last_mut() {
                    Some((w, mask)) if *w == bit / 64 => *mask |= 1 << (bit % 64),
                    _ => words.push((bit / 64, 1 << (bit % 64))),
                }
            }
        }
        tests.extend(words.into_iter().map(|(w, mask)| {
            let (w, mask) = (Literal::usize_unsuffixed(w as usize), hex(mask));
            quote!(mt[#w] & #mask != 0)
        }));
        let moves: Vec<(u32, u32)> = moves
            .iter()
            .filter_map(|&m| match m {
                MoveLit::Does(r, m) => Some((r, m)),
                MoveLit::TableBit(_) => None,
            })
            .collect();
        for role in 0..self.ground.roles.len() as u32 {
            let of_role: Vec<usize> = moves.iter().filter(|&&(r, _)| r == role).map(|&(_, m)| m as usize).collect();
            let r = Literal::usize_unsuffixed(role as usize);
            if of_role.len() < MOVE_SET_MIN {
                tests.extend(of_role.iter().map(|&m| {
                    let m = Literal::u32_unsuffixed(m as u32);
                    quote!(joint[#r].0 == #m)
                }));
                continue;
            }
            let indices = self.ground.moves.len() + usize::from(self.room_for_no_move);
            let mut bits = vec![0u64; indices.div_ceil(64).max(1)];
            for &m in &of_role {
                bits[m / 64] |= 1 << (m % 64);
            }
            let note = self.note(|_| {
                let first = of_role.first().map(|&m| self.ground.moves[m].as_str()).unwrap_or_default();
                format!(
                    "SET: {} moves of {}, from {first}, by bit of move index.",
                    of_role.len(),
                    self.ground.roles[role as usize]
                )
            });
            let len = Literal::usize_unsuffixed(bits.len());
            let bits = bits.into_iter().map(hex);
            tests.push(quote! {{
                #note
                const SET: [u64; #len] = [#(#bits),*];
                let m = joint[#r].0 as usize;
                SET[m / 64] >> (m % 64) & 1 != 0
            }});
        }
        join(&tests, quote!(|))
    }
}

/// A positive literal that reads only the joint move: the move (role, move) of a `does`, or
/// the bit of a node of the move table in the joint move's row `mt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum MoveLit {
    Does(u32, u32),
    TableBit(u32),
}

/// A rule's literals other than its move literal, and the move literals that complete it.
type MergedRule = (Vec<Lit>, Vec<MoveLit>);

/// The rules of a node with every group of rules that are the same but for one positive move
/// literal merged: pairs of the other literals and the move literals that complete them,
/// sorted. A move literal is a `does`, or a node of the move table (whose bit `table_bit`
/// gives where the row `mt` is read). A rule without exactly one positive move literal stays
/// as it is, with no move literals. Groups keep the order of their first rule.
fn merge_move_rules(rules: &[Vec<Lit>], table_bit: impl Fn(u32) -> Option<u32>) -> Vec<MergedRule> {
    let move_lit = |l: &Lit| match l.prop {
        Prop::Does(r, m) if l.positive => Some(MoveLit::Does(r, m)),
        Prop::Node(n) if l.positive => table_bit(n).map(MoveLit::TableBit),
        _ => None,
    };
    let mut merged: Vec<MergedRule> = Vec::new();
    let mut group_of: BTreeMap<Vec<Lit>, usize> = BTreeMap::new();
    for rule in rules {
        // One `does` is merged on, else one node of the move table.
        let moves: Vec<(usize, MoveLit)> =
            rule.iter().enumerate().filter_map(|(i, l)| move_lit(l).map(|m| (i, m))).collect();
        let does: Vec<(usize, MoveLit)> =
            moves.iter().copied().filter(|(_, m)| matches!(m, MoveLit::Does(..))).collect();
        let chosen = match (does.as_slice(), moves.as_slice()) {
            ([one], _) | ([], [one]) => Some(*one),
            _ => None,
        };
        let Some((at, mv)) = chosen else {
            merged.push((rule.clone(), Vec::new()));
            continue;
        };
        let rest: Vec<Lit> = rule.iter().enumerate().filter(|&(i, _)| i != at).map(|(_, l)| *l).collect();
        match group_of.get(&rest) {
            Some(&g) => merged[g].1.push(mv),
            None => {
                group_of.insert(rest.clone(), merged.len());
                merged.push((rest, vec![mv]));
            }
        }
    }
    for (_, moves) in &mut merged {
        moves.sort_unstable();
        moves.dedup();
    }
    merged
}

/// A word shifted right by `by` bits (left when negative), in parentheses unless unshifted,
/// to be an operand of `&` or `|`.
pub(crate) fn shifted(word: TokenStream, by: i32) -> TokenStream {
    match by {
        0 => word,
        _ => {
            let shift = shift_expr(word, by);
            quote!((#shift))
        }
    }
}

/// A word shifted right by `by` bits (left when negative), as a bare expression. Shifts take
/// `u32` literals: rustc resolves `u64 >> {integer}` among the impls of every integer type,
/// which takes seconds over the thousands of shifts of a large module.
pub(crate) fn shift_expr(word: TokenStream, by: i32) -> TokenStream {
    let amount = Literal::u32_suffixed(by.unsigned_abs());
    match by {
        0 => word,
        by if by > 0 => quote!(#word >> #amount),
        _ => quote!(#word << #amount),
    }
}

/// `parts` joined by the non-short-circuit operator `op`, each in parentheses when there are
/// several (comparisons bind more loosely than `&` and `|`).
pub(crate) fn join(parts: &[TokenStream], op: TokenStream) -> TokenStream {
    match parts {
        [one] => one.clone(),
        _ => {
            let mut out = TokenStream::new();
            for (i, part) in parts.iter().enumerate() {
                if i > 0 {
                    out.extend(op.clone());
                }
                out.extend(quote!((#part)));
            }
            out
        }
    }
}
