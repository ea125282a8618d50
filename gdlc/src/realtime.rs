//! The rtGDL front end (Kowalski and Kisielewicz 2016): recognizing a real-time game, checking
//! its timed facts, and erasing the lifetimes into a plain GDL game that the interpreter and
//! the grounder evaluate unchanged.
//!
//! A game is rtGDL when some `init` gives a fact a lifetime: `(init T F)` with `T` a number or
//! `infinity`. Then every `init`, `true` and `next` must carry a lifetime and `expired` is a
//! keyword; a plain game with a two-argument `true` is still refused by the plain checks.
//!
//! Lifetimes are data that flow, never terms that rules compute with (the paper: "numbers are
//! treated like standard terms", and the example only copies them), so gdlc supports this
//! fragment, and says so when a game leaves it:
//! - `(init T F)`: `T` a positive number or `infinity`;
//! - `(next T F)`: `T` a positive number, `infinity`, or the variable `?t` of one positive
//!   `(true ?t G)` of the rule's body (outside `or` and `not`): `F` then lives as long as `G`
//!   has left;
//! - `(true ?t F)` in a body: `?t` a variable used nowhere else, or only copied into `next`;
//! - `(expired F)`: in bodies only.
//!
//! The erased game replaces `(true ?t F)` by `(true F)` and `(expired F)` by
//! `(true (rtgdl:expired F))`; each `init`/`next` rule becomes two rules with the same body,
//! one deriving `F`, the other a lifetime marker `(rtgdl:lifetime F (rtgdl:const T))` or
//! `(rtgdl:lifetime F (rtgdl:copy G))`. The real-time engines read the markers of each next
//! state to give its facts their lifetimes, and set the expired facts themselves. Symbols
//! starting with `rtgdl:` are reserved.

use crate::ast::{Atom, Description, Literal, Rule, Span, Term};
use crate::diag::Diagnostic;
use gdl_runtime::realtime::Time;
use std::collections::BTreeMap;

/// The function symbol of a lifetime marker: `(rtgdl:lifetime F SOURCE)`.
pub const LIFETIME: &str = "rtgdl:lifetime";
/// A constant lifetime source: `(rtgdl:const T)`.
pub const CONST: &str = "rtgdl:const";
/// A copied lifetime source: `(rtgdl:copy G)`.
pub const COPY: &str = "rtgdl:copy";
/// The wrapper of an expired fact in the erased state: `(rtgdl:expired F)`.
pub const EXPIRED: &str = "rtgdl:expired";
/// The prefix reserved for the erased game's symbols.
const RESERVED: &str = "rtgdl:";

const TIMED_KEYWORDS: [&str; 3] = ["init", "true", "next"];

/// A lifetime written in a game: a number or `infinity`.
fn written_lifetime(term: &Term) -> Option<&str> {
    match term {
        Term::Const(c, _)
            if c == "infinity"
                || c.starts_with(|ch: char| ch.is_ascii_digit() || ch == '-' || ch == '+' || ch == '.') =>
        {
            Some(c)
        }
        _ => None,
    }
}

/// Whether a description is an rtGDL game: some `init` gives a fact a lifetime.
pub fn is_realtime(description: &Description) -> bool {
    description
        .rules
        .iter()
        .any(|r| r.head.name == "init" && r.head.args.len() == 2 && written_lifetime(&r.head.args[0]).is_some())
}

/// Why a written lifetime is not one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LifetimeError {
    /// A term that is not a number or `infinity`.
    NotALifetime { term: String },
    /// Not a time: the runtime's reason.
    Unreadable(String),
    /// The time zero, written as `text`.
    Zero { text: String },
}

impl std::fmt::Display for LifetimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LifetimeError::NotALifetime { term } => write!(f, "`{term}` is not a lifetime"),
            LifetimeError::Unreadable(reason) => write!(f, "the lifetime {reason}"),
            LifetimeError::Zero { text } => {
                write!(f, "the lifetime `{text}` is zero; a fact must live for a positive time")
            }
        }
    }
}

impl std::error::Error for LifetimeError {}

/// Reads a lifetime constant, which must be a positive number of seconds or `infinity`.
pub fn parse_lifetime(text: &str) -> Result<Time, LifetimeError> {
    let time = Time::parse(text).map_err(LifetimeError::Unreadable)?;
    if time == Time::ZERO {
        return Err(LifetimeError::Zero { text: text.to_string() });
    }
    Ok(time)
}

fn walk_literals<'a>(literals: &'a [Literal], top: bool, f: &mut impl FnMut(&'a Atom, bool)) {
    for literal in literals {
        match literal {
            Literal::Atom(a) => f(a, top),
            Literal::Not(inner, _) => walk_literals(std::slice::from_ref(inner), false, f),
            Literal::Or(ls, _) => walk_literals(ls, false, f),
            Literal::And(ls, _) => walk_literals(ls, top, f),
            Literal::Distinct(..) => {}
        }
    }
}

/// Counts the occurrences of every variable in a term.
fn count_vars(term: &Term, counts: &mut BTreeMap<String, usize>) {
    term.for_each_var(&mut |v, _| *counts.entry(v.to_string()).or_default() += 1);
}

fn for_each_symbol<'a>(term: &'a Term, f: &mut impl FnMut(&'a str, Span)) {
    match term {
        Term::Var(..) => {}
        Term::Const(c, s) => f(c, *s),
        Term::Func(name, args, s) => {
            f(name, *s);
            args.iter().for_each(|a| for_each_symbol(a, f));
        }
    }
}

const HINT_FRAGMENT: &str =
    "gdlc supports lifetimes that are written (a positive number or `infinity`) or copied from \
                             a `(true ?t F)` of the same rule into `(next ?t G)`; see docs/rtgdl.md";

/// The rtGDL checks of a real-time game, before the plain checks run on its erased form.
pub fn check(description: &Description) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for rule in &description.rules {
        check_rule(rule, &mut out);
    }
    out
}

fn check_rule(rule: &Rule, out: &mut Vec<Diagnostic>) {
    let mut atoms: Vec<(&Atom, bool, bool)> = vec![(&rule.head, true, true)];
    walk_literals(&rule.body, true, &mut |a, top| atoms.push((a, false, top)));
    // Reserved symbols, anywhere.
    for (atom, _, _) in &atoms {
        let mut reserved = |name: &str, span: Span| {
            if name.starts_with(RESERVED) {
                out.push(Diagnostic::error(
                    span,
                    format!("`{name}` starts with `{RESERVED}`, which gdlc reserves in rtGDL games"),
                    "rename this symbol",
                ));
            }
        };
        reserved(&atom.name, atom.span);
        atom.args.iter().for_each(|a| for_each_symbol(a, &mut reserved));
    }
    // Arities and placement of the timed keywords and `expired`.
    let mut ok = true;
    for &(atom, head, _) in &atoms {
        if TIMED_KEYWORDS.contains(&atom.name.as_str()) && atom.args.len() != 2 {
            ok = false;
            out.push(Diagnostic::error(
                atom.span,
                format!(
                    "this is an rtGDL game (an `init` gives a lifetime), so `{}` needs a lifetime and a fact, \
                     `({} T F)`, but it has {} argument(s); timed and untimed facts cannot be mixed",
                    atom.name,
                    atom.name,
                    atom.args.len()
                ),
                "write the lifetime first: a number of seconds, `infinity`, or a variable",
            ));
        }
        if atom.name == "expired" {
            if atom.args.len() != 1 {
                ok = false;
                out.push(Diagnostic::error(
                    atom.span,
                    format!("`expired` takes one fact, `(expired F)`, but it has {} argument(s)", atom.args.len()),
                    "write `(expired F)` for the fact whose lifetime just ran out",
                ));
            } else if head {
                ok = false;
                out.push(Diagnostic::error(
                    atom.span,
                    "`expired` cannot be the head of a rule: it holds when a fact's lifetime runs out",
                    "to make a fact expire, give it a lifetime in `init` or `next`",
                ));
            }
        }
    }
    if !ok {
        return;
    }
    // Lifetimes: written ones must be valid, and variables may only be copied.
    let head = &rule.head;
    let mut head_copy: Option<(&str, Span)> = None;
    if head.name == "init" || head.name == "next" {
        match &head.args[0] {
            Term::Var(v, s) if head.name == "next" => head_copy = Some((v.as_str(), *s)),
            term => match written_lifetime(term)
                .ok_or_else(|| LifetimeError::NotALifetime { term: term.to_string() })
                .and_then(parse_lifetime)
            {
                Ok(_) => {}
                Err(e) => out.push(Diagnostic::error(
                    term.span(),
                    format!("{e}; the lifetime of `{}` must be a positive number of seconds or `infinity`", head.name),
                    if head.name == "next" {
                        HINT_FRAGMENT
                    } else {
                        "write e.g. `(init 1.0 timer)` or `(init infinity (cell 1 1 b))`"
                    },
                )),
            },
        }
    }
    // Every variable's occurrences outside lifetime positions, and the positive top-level
    // `true` literals binding each lifetime variable.
    let mut elsewhere: BTreeMap<String, usize> = BTreeMap::new();
    let mut lifetime_vars: BTreeMap<String, (usize, Span)> = BTreeMap::new();
    let mut copy_sources = 0;
    for &(atom, is_head, top) in &atoms {
        let timed = TIMED_KEYWORDS.contains(&atom.name.as_str());
        for (i, arg) in atom.args.iter().enumerate() {
            if timed && i == 0 {
                match arg {
                    Term::Var(v, s) if !is_head => {
                        let entry = lifetime_vars.entry(v.clone()).or_insert((0, *s));
                        entry.0 += 1;
                        if head_copy.is_some_and(|(h, _)| h == v) {
                            let positive_top = top && !matches!(atom.name.as_str(), "next" | "init");
                            if positive_top && is_positive_at_top(&rule.body, atom) {
                                copy_sources += 1;
                            }
                        }
                    }
                    Term::Var(..) => {}
                    other if !is_head => out.push(Diagnostic::error(
                        other.span(),
                        format!("`(true {other} ...)` tests the value of a lifetime, which gdlc does not support"),
                        "write a variable, `(true ?t F)`, and copy it into `next` if the fact should keep its lifetime",
                    )),
                    _ => {}
                }
            } else {
                count_vars(arg, &mut elsewhere);
            }
        }
    }
    for literal in &rule.body {
        if let Literal::Distinct(a, b, _) = literal {
            count_vars(a, &mut elsewhere);
            count_vars(b, &mut elsewhere);
        }
    }
    walk_distincts(&rule.body, &mut elsewhere);
    for (v, (count, span)) in &lifetime_vars {
        if elsewhere.get(v).copied().unwrap_or(0) > 0 {
            out.push(Diagnostic::error(
                *span,
                format!("the lifetime variable `?{v}` is also used as a term; gdlc only copies lifetimes into `next`"),
                HINT_FRAGMENT,
            ));
        } else if *count > 1 {
            out.push(Diagnostic::error(
                *span,
                format!(
                    "the lifetime variable `?{v}` is the lifetime of several `true` literals, which compares lifetimes"
                ),
                "give each `true` its own lifetime variable",
            ));
        }
    }
    if let Some((v, span)) = head_copy {
        if copy_sources != 1 || lifetime_vars.get(v).map_or(0, |c| c.0) != 1 {
            out.push(Diagnostic::error(
                span,
                format!("the lifetime `?{v}` of `next` must be the lifetime of exactly one positive `(true ?{v} F)` of the rule's body, outside `or` and `not`"),
                HINT_FRAGMENT,
            ));
        }
    }
}

/// `distinct`s nested under `not`, `or` and `and` (top-level ones are counted by the caller).
fn walk_distincts(literals: &[Literal], counts: &mut BTreeMap<String, usize>) {
    for literal in literals {
        match literal {
            Literal::Not(inner, _) => walk_nested(inner, counts),
            Literal::Or(ls, _) | Literal::And(ls, _) => ls.iter().for_each(|l| walk_nested(l, counts)),
            _ => {}
        }
    }
}

fn walk_nested(literal: &Literal, counts: &mut BTreeMap<String, usize>) {
    match literal {
        Literal::Distinct(a, b, _) => {
            count_vars(a, counts);
            count_vars(b, counts);
        }
        Literal::Not(inner, _) => walk_nested(inner, counts),
        Literal::Or(ls, _) | Literal::And(ls, _) => ls.iter().for_each(|l| walk_nested(l, counts)),
        Literal::Atom(_) => {}
    }
}

/// Whether `atom` is one of the positive literals of `body` outside `or` and `not`.
fn is_positive_at_top(body: &[Literal], atom: &Atom) -> bool {
    body.iter().any(|l| match l {
        Literal::Atom(a) => std::ptr::eq(a, atom),
        Literal::And(ls, _) => is_positive_at_top(ls, atom),
        _ => false,
    })
}

fn func(name: &str, args: Vec<Term>, span: Span) -> Term {
    Term::Func(name.to_string(), args, span)
}

fn erase_literal(literal: &Literal) -> Literal {
    match literal {
        Literal::Atom(a) if a.name == "true" && a.args.len() == 2 => {
            Literal::Atom(Atom { name: "true".into(), args: vec![a.args[1].clone()], span: a.span })
        }
        Literal::Atom(a) if a.name == "expired" && a.args.len() == 1 => Literal::Atom(Atom {
            name: "true".into(),
            args: vec![func(EXPIRED, vec![a.args[0].clone()], a.span)],
            span: a.span,
        }),
        Literal::Atom(a) => Literal::Atom(a.clone()),
        Literal::Not(inner, s) => Literal::Not(Box::new(erase_literal(inner)), *s),
        Literal::Or(ls, s) => Literal::Or(ls.iter().map(erase_literal).collect(), *s),
        Literal::And(ls, s) => Literal::And(ls.iter().map(erase_literal).collect(), *s),
        Literal::Distinct(a, b, s) => Literal::Distinct(a.clone(), b.clone(), *s),
    }
}

/// The fact of the positive top-level `(true ?v G)` of a body.
fn copied_fact<'a>(body: &'a [Literal], var: &str) -> Option<&'a Term> {
    body.iter().find_map(|l| match l {
        Literal::Atom(a)
            if a.name == "true" && a.args.len() == 2 && matches!(&a.args[0], Term::Var(v, _) if v == var) =>
        {
            Some(&a.args[1])
        }
        Literal::And(ls, _) => copied_fact(ls, var),
        _ => None,
    })
}

/// The plain GDL game of a checked rtGDL game, with lifetime markers (see the module's
/// documentation).
pub fn erase(description: &Description) -> Description {
    let mut rules = Vec::new();
    for rule in &description.rules {
        let body: Vec<Literal> = rule.body.iter().map(erase_literal).collect();
        let head = &rule.head;
        if (head.name == "init" || head.name == "next") && head.args.len() == 2 {
            let span = head.span;
            let fact = head.args[1].clone();
            let source = match &head.args[0] {
                Term::Var(v, _) => {
                    let copied = copied_fact(&rule.body, v).cloned().unwrap_or_else(|| Term::Var(v.clone(), span));
                    func(COPY, vec![copied], span)
                }
                lifetime => func(CONST, vec![lifetime.clone()], span),
            };
            let marker = func(LIFETIME, vec![fact.clone(), source], span);
            for arg in [fact, marker] {
                let head = Atom { name: head.name.clone(), args: vec![arg], span };
                rules.push(Rule { head, body: body.clone(), span: rule.span });
            }
        } else {
            rules.push(Rule { head: head.clone(), body, span: rule.span });
        }
    }
    // Every fact that can have a lifetime can expire: this rule puts `(rtgdl:expired F)` among
    // the base facts of the grounded game. Its own value is never used; the engines set the
    // expired facts themselves.
    let span = Span::default();
    let var = |v: &str| Term::Var(v.to_string(), span);
    rules.push(Rule {
        head: Atom { name: "next".into(), args: vec![func(EXPIRED, vec![var("f")], span)], span },
        body: vec![Literal::Atom(Atom {
            name: "true".into(),
            args: vec![func(LIFETIME, vec![var("f"), var("s")], span)],
            span,
        })],
        span,
    });
    Description { rules }
}

#[cfg(test)]
mod tests;
