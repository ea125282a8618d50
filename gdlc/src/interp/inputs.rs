//! The state and the joint move as the rules read them: every `true` and `does` atom whose last
//! argument is a function term reads a relation of its own, one per function and arity, with
//! the function's arguments as its last arguments: `(true (cell ?x ?y b))` reads
//! `((true cell 3) ?x ?y b)`, and `(true shoot)` the relation `(true shoot 0)` of no arguments.
//!
//! The engine indexes a relation by its arguments, not by the parts of a function term, so
//! `(true (cell ?x ?y b))` with `?x` and `?y` bound looked through every fact of the state; the
//! relation of its own is indexed by `?x` and `?y`, and its size says how many `cell` facts a
//! state has. Loading a state puts each fact into `true` and into the relation of its function.

use crate::ast::{Atom, Description, Literal, Rule, Term};
use crate::datalog::compile::{RelId, Relations};
use crate::datalog::eval::Table;
use crate::datalog::store::{Sym, Symbols, TermId, TermRead};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

/// The relations through which the rules read the state and the joint move.
pub(super) const INPUTS: [&str; 2] = ["true", "does"];

/// A relation of the facts of an input (`true` or `does`) whose last argument is a term of one
/// function and arity.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Split {
    /// `true` or `does`.
    pub input: String,
    pub function: String,
    pub arity: usize,
}

impl Split {
    /// Its name, which holds parentheses and spaces, so no symbol of a game can spell it.
    pub(super) fn name(&self) -> String {
        format!("({} {} {})", self.input, self.function, self.arity)
    }

    /// The number of its arguments.
    pub(super) fn width(&self) -> usize {
        input_arity(&self.input) - 1 + self.arity
    }
}

fn input_arity(input: &str) -> usize {
    if input == "does" {
        2
    } else {
        1
    }
}

/// Where the facts of the state and the joint move go: the relations `true` and `does`, and
/// the relations of their splits.
#[derive(Default)]
pub(crate) struct Inputs {
    pub(crate) true_: RelId,
    pub(crate) does: RelId,
    /// The split of `true`, then of `does`, for each function and arity.
    pub(crate) splits: [FxHashMap<(Sym, usize), RelId>; 2],
    /// Whether a rule reads `true`, then `does`, itself (with a variable as its last
    /// argument): when none does, its facts go only to the splits.
    pub(crate) read_whole: [bool; 2],
}

impl Inputs {
    pub(super) fn new(
        program: &Description,
        splits: &[Split],
        symbols: &mut Symbols,
        relations: &mut Relations,
    ) -> Inputs {
        let mut by_input = [FxHashMap::default(), FxHashMap::default()];
        for split in splits {
            let rel = relations.id(&split.name(), split.width());
            let k = usize::from(split.input == "does");
            by_input[k].insert((symbols.intern(&split.function), split.arity), rel);
        }
        let mut read_whole = [false; 2];
        for rule in &program.rules {
            rule.for_each_body_atom(&mut |atom, _| {
                if let Some(k) = INPUTS.iter().position(|&input| input == atom.name) {
                    read_whole[k] = true;
                }
            });
        }
        Inputs { true_: relations.id("true", 1), does: relations.id("does", 2), splits: by_input, read_whole }
    }

    /// The relations that the state (`k` 0) or the joint move (`k` 1) is loaded into: `true` or
    /// `does`, and the splits of its functions.
    pub(crate) fn loaded_into(&self, k: usize) -> impl Iterator<Item = RelId> + '_ {
        std::iter::once([self.true_, self.does][k]).chain(self.splits[k].values().copied())
    }

    /// Adds `(true fact)`.
    pub(super) fn add_true(&self, tables: &mut [Table], terms: &impl TermRead, fact: TermId) {
        if self.read_whole[0] {
            tables[self.true_].insert(&[fact]);
        }
        self.add_split(0, tables, terms, &[], fact);
    }

    /// Adds `(does role action)`.
    pub(super) fn add_does(&self, tables: &mut [Table], terms: &impl TermRead, role: TermId, action: TermId) {
        if self.read_whole[1] {
            tables[self.does].insert(&[role, action]);
        }
        self.add_split(1, tables, terms, &[role], action);
    }

    fn add_split(&self, k: usize, tables: &mut [Table], terms: &impl TermRead, outer: &[TermId], last: TermId) {
        let node = terms.node(last);
        if let Some(&rel) = self.splits[k].get(&(node.sym, node.args.len())) {
            let fact: Vec<TermId> = outer.iter().chain(node.args.iter()).copied().collect();
            tables[rel].insert(&fact);
        }
    }
}

/// The rules with their `true` and `does` atoms split by function, and the relations they read.
pub(super) fn split(description: &Description) -> (Description, Vec<Split>) {
    let mut used = BTreeSet::new();
    let rules = description
        .rules
        .iter()
        .map(|rule| Rule {
            head: rule.head.clone(),
            body: rule.body.iter().map(|l| split_literal(l, &mut used)).collect(),
            span: rule.span,
        })
        .collect();
    (Description { rules }, used.into_iter().collect())
}

fn split_literal(literal: &Literal, used: &mut BTreeSet<Split>) -> Literal {
    match literal {
        Literal::Atom(atom) => Literal::Atom(split_atom(atom, used)),
        Literal::Not(inner, span) => Literal::Not(Box::new(split_literal(inner, used)), *span),
        Literal::Distinct(..) => literal.clone(),
        Literal::Or(parts, span) => Literal::Or(parts.iter().map(|l| split_literal(l, used)).collect(), *span),
        Literal::And(parts, span) => Literal::And(parts.iter().map(|l| split_literal(l, used)).collect(), *span),
    }
}

fn split_atom(atom: &Atom, used: &mut BTreeSet<Split>) -> Atom {
    let input = atom.name.as_str();
    if !INPUTS.contains(&input) || atom.args.len() != input_arity(input) {
        return atom.clone();
    }
    let (function, inner, outer) = match atom.args.split_last() {
        Some((Term::Func(function, inner, _), outer)) => (function, &inner[..], outer),
        // A constant is a function of no arguments: `(true shoot)` tests whether the relation
        // `(true shoot 0)` has its one fact, and rules that read `true` only so need not have
        // every fact of the state loaded into `true` as well.
        Some((Term::Const(constant, _), outer)) => (constant, &[][..], outer),
        _ => return atom.clone(),
    };
    let split = Split { input: input.to_string(), function: function.clone(), arity: inner.len() };
    let name = split.name();
    used.insert(split);
    Atom { name, args: outer.iter().chain(inner).cloned().collect(), span: atom.span }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, Syntax};

    fn text(literal: &Literal) -> String {
        match literal {
            Literal::Atom(a) => a.to_string(),
            Literal::Not(inner, _) => format!("~{}", text(inner)),
            _ => String::new(),
        }
    }

    #[test]
    fn true_and_does_atoms_read_a_relation_per_function() {
        let d = parse(
            "(<= (p ?x) (true (cell ?x b)) (not (true (cell ?x x))) (does r (mark ?x)) (true ?y) (true c))",
            Syntax::Kif,
        )
        .description;
        let (split, used) = split(&d);
        let body: Vec<String> = split.rules[0].body.iter().map(text).collect();
        assert_eq!(
            body,
            ["((true cell 2) ?x b)", "~((true cell 2) ?x x)", "((does mark 1) r ?x)", "(true ?y)", "(true c 0)"]
        );
        let names: Vec<String> = used.iter().map(Split::name).collect();
        assert_eq!(names, ["(does mark 1)", "(true c 0)", "(true cell 2)"]);
        assert_eq!((used[0].width(), used[1].width(), used[2].width()), (2, 0, 2));
    }
}
