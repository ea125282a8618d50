//! The generated game functions, `legal`, `next`, `terminal` and `goals`: each evaluates, in
//! order, only the derived propositions its outputs need, as straight-line boolean code over
//! the state's words and the joint move. Recursive groups loop to their least fixpoint.

use super::tables::{hex, words};
use crate::ground::{Ground, Lit, Prop, Value};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use std::cell::RefCell;

/// The fewest moves of one role for which an "any of these moves" proposition is generated
/// as a lookup in a constant bit set rather than as comparisons.
const MOVE_SET_MIN: usize = 4;

/// The most rules and literals of a node computed as one expression.
const SHORT_RULES: usize = 8;
const SHORT_LITERALS: usize = 32;

/// A node's value as generated code.
enum Expr {
    /// One expression.
    Short(TokenStream),
    /// The rules' conjunctions, to be or-ed together one statement each.
    Long(Vec<TokenStream>),
}

pub fn generate_functions(ground: &Ground) -> TokenStream {
    let emitter = Emitter::new(ground);
    let legal = emitter.generate_legal_fns();
    let next = emitter.generate_next_fn();
    let terminal = emitter.generate_terminal_fn();
    let goals = emitter.generate_goals_fn();
    quote! {
        #legal
        #next
        #terminal
        #goals
    }
}

struct Emitter<'g> {
    ground: &'g Ground,
    /// The recursive group of every node, as an index into `ground.cycles`.
    cycle_of: Vec<Option<usize>>,
    /// The function being generated keeps node values in a local array `n`: the slot of every
    /// node it computes (`u32::MAX` for the others). One array rather than a `let` per node
    /// keeps functions of thousands of nodes within what rustc and LLVM handle well.
    slots: RefCell<Vec<u32>>,
}

impl<'g> Emitter<'g> {
    fn new(ground: &'g Ground) -> Self {
        let mut cycle_of = vec![None; ground.nodes.len()];
        for (c, &(start, end)) in ground.cycles.iter().enumerate() {
            for slot in &mut cycle_of[start as usize..end as usize] {
                *slot = Some(c);
            }
        }
        Emitter { ground, cycle_of, slots: RefCell::new(vec![u32::MAX; ground.nodes.len()]) }
    }

    /// `legal(state, role, out)`, dispatching to one function per role.
    fn generate_legal_fns(&self) -> TokenStream {
        let mut fns = Vec::new();
        let mut arms = Vec::new();
        for (role, moves) in self.ground.legal.iter().enumerate() {
            let name = format_ident!("legal_{}", role);
            let values: Vec<Value> = moves.iter().map(|&(_, v)| v).collect();
            let nodes = self.evaluate(&values);
            let pushes = moves.iter().filter(|(_, v)| *v != Value::Const(false)).map(|&(m, v)| {
                let m = Literal::u32_unsuffixed(m);
                match v {
                    Value::Const(_) => quote!(out.push(Move(#m));),
                    Value::Lit(lit) => {
                        let cond = self.lit(lit);
                        quote!(if #cond { out.push(Move(#m)); })
                    }
                }
            });
            let role_name = &self.ground.roles[role];
            let doc = format!("Appends the legal moves of `{role_name}` in `s` to `out`.");
            fns.push(quote! {
                #[doc = #doc]

                fn #name(s: &State, out: &mut Vec<Move>) {
                    #nodes
                    #(#pushes)*
                }
            });
            let r = Literal::usize_unsuffixed(role);
            arms.push(quote!(#r => #name(s, out),));
        }
        quote! {
            /// Appends `role`'s legal moves in `s` to `out`, in the order of [`MOVES`].
            pub fn legal(s: &State, role: usize, out: &mut Vec<Move>) {
                match role {
                    #(#arms)*
                    _ => {}
                }
            }
            #(#fns)*
        }
    }

    /// `next(state, joint)`: the state after every role plays its move of `joint`.
    fn generate_next_fn(&self) -> TokenStream {
        let nodes = self.evaluate(&self.ground.next);
        let words = words(self.ground.base.len());
        let mut always = vec![0u64; words];
        let mut sets = Vec::new();
        for (i, v) in self.ground.next.iter().enumerate() {
            let (w, bit) = (i / 64, i % 64);
            match *v {
                Value::Const(false) => {}
                Value::Const(true) => always[w] |= 1 << bit,
                // A fact that persists exactly when it holds: copy its bit.
                Value::Lit(Lit { prop: Prop::Base(b), positive: true }) if b as usize == i => {
                    let (wl, mask) = (Literal::usize_unsuffixed(w), hex(1 << bit));
                    sets.push(quote!(w[#wl] |= s.0[#wl] & #mask;));
                }
                Value::Lit(lit) => {
                    let (wl, bl) = (Literal::usize_unsuffixed(w), Literal::usize_unsuffixed(bit));
                    let cond = self.lit(lit);
                    sets.push(quote!(w[#wl] |= u64::from(#cond) << #bl;));
                }
            }
        }
        let always = always.into_iter().map(hex);
        quote! {
            /// The state after every role plays its move of `joint` (one per role, in role order).

            pub fn next(s: &State, joint: &[Move]) -> State {
                let joint: &[Move; ROLES.len()] = joint.try_into().expect("one move per role");
                #nodes
                let mut w: [u64; WORDS] = [#(#always),*];
                #(#sets)*
                State(w)
            }
        }
    }

    fn generate_terminal_fn(&self) -> TokenStream {
        let value = self.ground.terminal;
        let nodes = self.evaluate(&[value]);
        let result = self.value(value);
        quote! {
            /// Whether `s` is terminal.

            pub fn terminal(s: &State) -> bool {
                #nodes
                #result
            }
        }
    }

    fn generate_goals_fn(&self) -> TokenStream {
        let values: Vec<Value> = self.ground.goals.iter().flatten().map(|&(_, v)| v).collect();
        let nodes = self.evaluate(&values);
        let roles = self.ground.goals.iter().enumerate().map(|(role, goals)| {
            let r = Literal::usize_unsuffixed(role);
            // Smallest value first, so that the largest value the relation gives is the last
            // written and counts. Flat statements rather than an `else if` chain, which would
            // nest as deeply as the game has goal values.
            let sets = goals.iter().rev().map(|&(value, v)| {
                let value = Literal::u32_unsuffixed(value);
                match v {
                    Value::Const(true) => quote!(out[#r] = Some(#value);),
                    Value::Const(false) => quote!(),
                    Value::Lit(lit) => {
                        let cond = self.lit(lit);
                        quote!(if #cond { out[#r] = Some(#value); })
                    }
                }
            });
            quote!(out[#r] = None; #(#sets)*)
        });
        quote! {
            /// Fills `out[r]` with role `r`'s goal value in `s` (the largest the goal relation
            /// gives, `None` when it gives none).

            pub fn goals(s: &State, out: &mut [Option<u32>]) {
                #nodes
                #(#roles)*
            }
        }
    }

    /// Statements computing, in evaluation order, every node that `values` need, into the
    /// local array `n`.
    fn evaluate(&self, values: &[Value]) -> TokenStream {
        let needed = self.cone(values);
        {
            let mut slots = self.slots.borrow_mut();
            slots.iter_mut().for_each(|s| *s = u32::MAX);
            for (slot, &n) in needed.iter().enumerate() {
                slots[n as usize] = slot as u32;
            }
        }
        if needed.is_empty() {
            return TokenStream::new();
        }
        let len = Literal::usize_unsuffixed(needed.len());
        let mut out = vec![quote!(let mut n = [false; #len];)];
        let mut i = 0;
        while i < needed.len() {
            let n = needed[i];
            match self.cycle_of[n as usize] {
                None => {
                    let slot = self.slot(n);
                    out.push(match self.node_expr(n) {
                        Expr::Short(expr) => quote!(n[#slot] = #expr;),
                        Expr::Long(disjuncts) => quote!(#(n[#slot] |= #disjuncts;)*),
                    });
                    i += 1;
                }
                Some(c) => {
                    let (_, end) = self.ground.cycles[c];
                    let group: Vec<u32> = needed[i..].iter().copied().take_while(|&m| m < end).collect();
                    i += group.len();
                    out.push(self.cycle(&group));
                }
            }
        }
        quote!(#(#out)*)
    }

    fn slot(&self, node: u32) -> Literal {
        Literal::u32_unsuffixed(self.slots.borrow()[node as usize])
    }

    /// A recursive group: every node starts false and the rules are applied until nothing changes.
    fn cycle(&self, group: &[u32]) -> TokenStream {
        let updates = group.iter().map(|&n| {
            let slot = self.slot(n);
            let disjuncts = match self.node_expr(n) {
                Expr::Short(expr) => vec![expr],
                Expr::Long(disjuncts) => disjuncts,
            };
            quote! {
                if !n[#slot] && (#(#disjuncts)||*) {
                    n[#slot] = true;
                    changed = true;
                }
            }
        });
        quote! {
            loop {
                let mut changed = false;
                #(#updates)*
                if !changed {
                    break;
                }
            }
        }
    }

    /// The nodes that `values` depend on, sorted (evaluation order).
    fn cone(&self, values: &[Value]) -> Vec<u32> {
        let mut seen = vec![false; self.ground.nodes.len()];
        let mut stack: Vec<u32> = values
            .iter()
            .filter_map(|v| match v {
                Value::Lit(Lit { prop: Prop::Node(n), .. }) => Some(*n),
                _ => None,
            })
            .collect();
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut seen[n as usize], true) {
                continue;
            }
            for lit in self.ground.nodes[n as usize].rules.iter().flatten() {
                if let Prop::Node(m) = lit.prop {
                    stack.push(m);
                }
            }
        }
        (0..self.ground.nodes.len() as u32).filter(|&n| seen[n as usize]).collect()
    }

    /// A node's value: the disjunction of its rules, each the conjunction of its literals; one
    /// expression when it is short, else one expression per rule (a long chain of `||` would
    /// nest too deeply for rustc).
    fn node_expr(&self, n: u32) -> Expr {
        let rules = &self.ground.nodes[n as usize].rules;
        if let Some(set) = self.move_set(rules) {
            return Expr::Short(set);
        }
        let disjuncts: Vec<TokenStream> = rules
            .iter()
            .map(|rule| {
                if rule.is_empty() {
                    return quote!(true);
                }
                let conjuncts = rule.iter().map(|&l| self.lit(l));
                quote!(#(#conjuncts)&&*)
            })
            .collect();
        let literals: usize = rules.iter().map(Vec::len).sum();
        if disjuncts.is_empty() {
            Expr::Short(quote!(false))
        } else if disjuncts.len() <= SHORT_RULES && literals <= SHORT_LITERALS {
            Expr::Short(quote!(#(#disjuncts)||*))
        } else {
            Expr::Long(disjuncts)
        }
    }

    /// A lookup in a constant bit set for a node that holds when one role plays any of several
    /// moves.
    fn move_set(&self, rules: &[Vec<Lit>]) -> Option<TokenStream> {
        if rules.len() < MOVE_SET_MIN {
            return None;
        }
        let mut role = None;
        let mut moves = Vec::new();
        for rule in rules {
            let [Lit { prop: Prop::Does(r, m), positive: true }] = rule.as_slice() else { return None };
            if role.is_some_and(|seen| seen != *r) {
                return None;
            }
            role = Some(*r);
            moves.push(*m as usize);
        }
        let mut bits = vec![0u64; self.ground.moves.len().div_ceil(64).max(1)];
        for m in moves {
            bits[m / 64] |= 1 << (m % 64);
        }
        let len = Literal::usize_unsuffixed(bits.len());
        let bits = bits.into_iter().map(hex);
        let r = Literal::usize_unsuffixed(role? as usize);
        Some(quote! {{
            const SET: [u64; #len] = [#(#bits),*];
            let m = joint[#r].0 as usize;
            SET[m / 64] >> (m % 64) & 1 != 0
        }})
    }

    fn value(&self, value: Value) -> TokenStream {
        match value {
            Value::Const(true) => quote!(true),
            Value::Const(false) => quote!(false),
            Value::Lit(lit) => self.lit(lit),
        }
    }

    /// A literal as an expression that needs no parentheses inside `&&` and `||`.
    fn lit(&self, lit: Lit) -> TokenStream {
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
            Prop::Node(node) => {
                let slot = self.slot(node);
                if positive {
                    quote!(n[#slot])
                } else {
                    quote!(!n[#slot])
                }
            }
        }
    }
}
