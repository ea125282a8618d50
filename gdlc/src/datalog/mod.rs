//! The Datalog engine that the reference interpreter and the grounder share: [`store`] interns
//! ground terms, [`compile`] turns rules into join plans, [`eval`] runs them bottom-up. What an
//! evaluation may spend is the caller's choice (a [`eval::Budget`]): the interpreter's per-state
//! queries run unlimited, the grounder's relaxed fixpoint under its instance and work limits.

pub(crate) mod compile;
pub(crate) mod eval;
pub(crate) mod order;
pub(crate) mod stats;
pub(crate) mod store;

use crate::ast::{Atom, Description, Literal, Span, Term};
use crate::graph::Dependencies;
use compile::{CRule, RelId, Relations};
use eval::{access_paths, Component, PlannedRule};
use rustc_hash::FxHashMap;
use std::fmt;

/// The most alternatives the `or`s of one rule may expand into.
pub(crate) const MAX_EXPANSIONS: usize = 1 << 12;

/// A rule the engine cannot evaluate, with the span of the rule where the input has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The rule's `or`s expand into more than [`MAX_EXPANSIONS`] conjunctions.
    TooManyAlternatives { relation: String, span: Span },
    /// A variable of a negation or `distinct` is not bound by a positive literal.
    UnsafeTest { relation: String, span: Span },
    /// A variable of the head is not bound by a positive literal.
    UnsafeHead { relation: String, variable: String, span: Span },
}

impl Error {
    /// Where the rule is written.
    pub fn span(&self) -> Span {
        match self {
            Error::TooManyAlternatives { span, .. }
            | Error::UnsafeTest { span, .. }
            | Error::UnsafeHead { span, .. } => *span,
        }
    }

    /// The error located at the first rule of its relation in `description` when it has no
    /// span of its own (its rule was written by a pass).
    pub(crate) fn located_in(mut self, description: &Description) -> Error {
        let (Error::TooManyAlternatives { relation, span }
        | Error::UnsafeTest { relation, span }
        | Error::UnsafeHead { relation, span, .. }) = &mut self;
        if *span == Span::default() {
            if let Some(rule) = description.rules.iter().find(|rule| rule.head.name == *relation) {
                *span = rule.span;
            }
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::TooManyAlternatives { relation, .. } => {
                write!(
                    f,
                    "a rule for `{relation}` expands into more than {MAX_EXPANSIONS} alternatives through its `or`s"
                )
            }
            Error::UnsafeTest { relation, .. } => write!(
                f,
                "a rule for `{relation}` is unsafe: a variable of a negation or `distinct` is not bound by a positive \
                 literal"
            ),
            Error::UnsafeHead { relation, variable, .. } => write!(
                f,
                "a rule for `{relation}` is unsafe: its head variable `?{variable}` is not bound by a positive literal"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// The rules as the engine evaluates them: only those of relations the game uses (the checks
/// tolerate unsafe rules elsewhere), and with `(role ?r)` added where a `legal`, `goal` or
/// `sees` rule leaves its role variable free, as ggp-base reads it.
pub(crate) fn prepare(description: &Description) -> Result<Description, Error> {
    let used = crate::check::used_relations(description);
    let mut rules = Vec::new();
    for rule in description.rules.iter().filter(|r| used.contains(&r.head.name)) {
        if crate::check::expansion_count(&rule.body) > MAX_EXPANSIONS {
            return Err(Error::TooManyAlternatives { relation: rule.head.name.clone(), span: rule.span });
        }
        let mut rule = rule.clone();
        if let Some(var) = crate::check::unbound_role_variable(&rule).map(str::to_string) {
            let span = rule.head.span;
            rule.body.push(Literal::Atom(Atom { name: "role".into(), args: vec![Term::Var(var, span)], span }));
        }
        rules.push(rule);
    }
    let description = Description { rules };
    Ok(match crate::split::stratify_by_splitting(&description) {
        Some((split, _)) => split,
        None => description,
    })
}

/// Groups rules by the strongly connected components of their head relations, in evaluation
/// order. Relations and rules are looked up by name and head, not searched for per component:
/// a game of thousands of chained relations has as many components.
pub(crate) fn plan_components(deps: &Dependencies, relations: &Relations, rules: &[CRule]) -> Vec<Component> {
    let mut by_name: FxHashMap<&str, Vec<RelId>> = FxHashMap::default();
    for (rel, (name, _)) in relations.keys.iter().enumerate() {
        by_name.entry(name.as_str()).or_default().push(rel);
    }
    let mut rules_of: Vec<Vec<usize>> = vec![Vec::new(); relations.len()];
    for (i, rule) in rules.iter().enumerate() {
        rules_of[rule.head.rel].push(i);
    }
    deps.components()
        .into_iter()
        .map(|names| {
            let mut rels: Vec<RelId> =
                names.iter().filter_map(|n| by_name.get(n.as_str())).flatten().copied().collect();
            rels.sort_unstable();
            let recursive = names.len() > 1 || names.iter().any(|n| deps.is_recursive(n));
            let mut heads: Vec<usize> = rels.iter().flat_map(|&r| rules_of[r].iter().copied()).collect();
            heads.sort_unstable();
            let planned = heads
                .into_iter()
                .map(|i| PlannedRule {
                    rule: i,
                    access: access_paths(&rules[i]),
                    variant_access: rules[i].delta_variants.iter().map(access_paths).collect(),
                })
                .collect();
            Component { relations: rels, rules: planned, recursive }
        })
        .collect()
}
