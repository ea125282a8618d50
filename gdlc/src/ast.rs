//! The abstract syntax tree of a game description, shared by the prefix (KIF) and infix syntaxes.
//!
//! Every symbol is stored in lower case (GDL is case-insensitive), and every node carries the byte
//! span of the text it came from so that diagnostics can point at it.

use std::collections::BTreeSet;
use std::fmt;

/// A half-open byte range `start..end` into the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
}

/// A term: a variable, a constant (object or relation constant of arity zero) or a function
/// application.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    Var(String, Span),
    Const(String, Span),
    Func(String, Vec<Term>, Span),
}

impl Term {
    pub fn span(&self) -> Span {
        match self {
            Term::Var(_, s) | Term::Const(_, s) | Term::Func(_, _, s) => *s,
        }
    }

    /// Calls `f` on every variable name in this term, left to right.
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a str, Span)) {
        match self {
            Term::Var(v, s) => f(v, *s),
            Term::Const(..) => {}
            Term::Func(_, args, _) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }

    /// Adds the names of this term's variables to `out`.
    pub fn vars_into(&self, out: &mut BTreeSet<String>) {
        self.for_each_var(&mut |v, _| {
            out.insert(v.to_string());
        });
    }

    /// The names of this term's variables.
    pub fn vars(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.vars_into(&mut out);
        out
    }

    pub fn is_ground(&self) -> bool {
        match self {
            Term::Var(..) => false,
            Term::Const(..) => true,
            Term::Func(_, args, _) => args.iter().all(Term::is_ground),
        }
    }

    /// Whether `self` and `other` are written alike, wherever they are written (their spans
    /// apart).
    pub fn same_as(&self, other: &Term) -> bool {
        match (self, other) {
            (Term::Var(x, _), Term::Var(y, _)) | (Term::Const(x, _), Term::Const(y, _)) => x == y,
            (Term::Func(f, xs, _), Term::Func(g, ys, _)) => {
                f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| x.same_as(y))
            }
            _ => false,
        }
    }

    fn clear_spans(&mut self) {
        match self {
            Term::Var(_, s) | Term::Const(_, s) => *s = Span::default(),
            Term::Func(_, args, s) => {
                *s = Span::default();
                args.iter_mut().for_each(Term::clear_spans);
            }
        }
    }
}

/// An atomic sentence `(name arg ...)`, such as `(legal ?p (mark ?x ?y))` or `terminal`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    pub name: String,
    pub args: Vec<Term>,
    pub span: Span,
}

impl Atom {
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a str, Span)) {
        self.args.iter().for_each(|a| a.for_each_var(f));
    }

    /// The names of this atom's variables.
    pub fn vars(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.args.iter().for_each(|a| a.vars_into(&mut out));
        out
    }

    pub fn arity(&self) -> usize {
        self.args.len()
    }

    /// Whether `self` and `other` are written alike, wherever they are written (their spans
    /// apart).
    pub fn same_as(&self, other: &Atom) -> bool {
        self.name == other.name
            && self.args.len() == other.args.len()
            && self.args.iter().zip(&other.args).all(|(x, y)| x.same_as(y))
    }

    fn clear_spans(&mut self) {
        self.span = Span::default();
        self.args.iter_mut().for_each(Term::clear_spans);
    }
}

/// A literal of a rule body.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Literal {
    Atom(Atom),
    /// `(not L)`; in valid GDL `L` is an atom (or, as a tolerated form, `distinct`).
    Not(Box<Literal>, Span),
    Distinct(Term, Term, Span),
    Or(Vec<Literal>, Span),
    And(Vec<Literal>, Span),
}

impl Literal {
    pub fn span(&self) -> Span {
        match self {
            Literal::Atom(a) => a.span,
            Literal::Not(_, s) | Literal::Distinct(_, _, s) | Literal::Or(_, s) | Literal::And(_, s) => *s,
        }
    }

    /// Calls `f` on every atom inside this literal, with whether it occurs under a negation.
    pub fn for_each_atom<'a>(&'a self, negated: bool, f: &mut impl FnMut(&'a Atom, bool)) {
        match self {
            Literal::Atom(a) => f(a, negated),
            Literal::Not(l, _) => l.for_each_atom(!negated, f),
            Literal::Distinct(..) => {}
            Literal::Or(ls, _) | Literal::And(ls, _) => ls.iter().for_each(|l| l.for_each_atom(negated, f)),
        }
    }

    /// Calls `f` on every variable name in this literal.
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a str, Span)) {
        match self {
            Literal::Atom(a) => a.for_each_var(f),
            Literal::Not(l, _) => l.for_each_var(f),
            Literal::Distinct(a, b, _) => {
                a.for_each_var(f);
                b.for_each_var(f);
            }
            Literal::Or(ls, _) | Literal::And(ls, _) => ls.iter().for_each(|l| l.for_each_var(f)),
        }
    }

    /// The names of this literal's variables.
    pub fn vars(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.for_each_var(&mut |v, _| {
            out.insert(v.to_string());
        });
        out
    }

    fn clear_spans(&mut self) {
        match self {
            Literal::Atom(a) => a.clear_spans(),
            Literal::Not(l, s) => {
                *s = Span::default();
                l.clear_spans();
            }
            Literal::Distinct(a, b, s) => {
                *s = Span::default();
                a.clear_spans();
                b.clear_spans();
            }
            Literal::Or(ls, s) | Literal::And(ls, s) => {
                *s = Span::default();
                ls.iter_mut().for_each(Literal::clear_spans);
            }
        }
    }
}

/// A rule `(<= head body ...)`; a fact is a rule with an empty body.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    pub head: Atom,
    pub body: Vec<Literal>,
    pub span: Span,
}

impl Rule {
    pub fn is_fact(&self) -> bool {
        self.body.is_empty()
    }

    /// Calls `f` on every atom of the body, with whether it occurs under a negation.
    pub fn for_each_body_atom<'a>(&'a self, f: &mut impl FnMut(&'a Atom, bool)) {
        self.body.iter().for_each(|l| l.for_each_atom(false, f));
    }
}

/// A whole game description: its rules and facts in source order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Description {
    pub rules: Vec<Rule>,
}

impl Description {
    /// Sets every span to zero, so that two descriptions can be compared by structure alone.
    pub fn clear_spans(&mut self) {
        for r in &mut self.rules {
            r.span = Span::default();
            r.head.clear_spans();
            r.body.iter_mut().for_each(Literal::clear_spans);
        }
    }

    /// The role names in the order of their `role` facts.
    pub fn roles(&self) -> Vec<String> {
        self.rules
            .iter()
            .filter(|r| r.head.name == "role" && r.is_fact() && r.head.args.len() == 1)
            .filter_map(|r| match &r.head.args[0] {
                Term::Const(name, _) => Some(name.clone()),
                _ => None,
            })
            .collect()
    }
}

impl fmt::Display for Term {
    /// Prints the term in canonical prefix KIF: `(cell 1 1 b)`, `?x`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Var(v, _) => write!(f, "?{v}"),
            Term::Const(c, _) => f.write_str(c),
            Term::Func(name, args, _) => {
                write!(f, "({name}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.args.is_empty() {
            return f.write_str(&self.name);
        }
        write!(f, "({}", self.name)?;
        for a in &self.args {
            write!(f, " {a}")?;
        }
        f.write_str(")")
    }
}
