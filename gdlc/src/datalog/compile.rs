//! Turns the AST's rules into the engine's form: relations numbered, disjunctions expanded
//! into several rules (disjunctive normal form), variables numbered and body literals ordered so
//! that every negation and `distinct` is tested only once its variables are bound.

use super::store::{Node, Sym, Symbols, TermId, Terms};
use super::Error;
use crate::ast::{Atom, Description, Literal, Span, Term};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

pub(crate) type RelId = usize;
pub(crate) type VarId = u16;

/// A term pattern of a rule: variables are numbered per rule; ground parts are interned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PTerm {
    Var(VarId),
    Ground(TermId),
    Func(Sym, Box<[PTerm]>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pattern {
    pub rel: RelId,
    pub args: Box<[PTerm]>,
}

/// One literal of a compiled body, in evaluation order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CLit {
    Pos(Pattern),
    Neg(Pattern),
    Distinct(PTerm, PTerm),
    Equal(PTerm, PTerm),
}

#[derive(Clone, Debug)]
pub(crate) struct CRule {
    pub head: Pattern,
    pub body: Vec<CLit>,
    pub num_vars: usize,
    /// For semi-naive evaluation: the same rule once for each positive literal that is
    /// recursive with the head, with that literal first (it ranges over the last round's new
    /// facts, the fewest) and the rest ordered after it.
    pub delta_variants: Vec<CRule>,
    /// Where the rule is written (the default span for a rule a pass wrote).
    pub span: Span,
}

/// How much an argument narrows a lookup: `distinct` when it is ground, less when it is
/// partly ground, nothing when it is free.
pub(crate) fn arg_selectivity(arg: &Term, bound: &BTreeSet<&str>, distinct: f64) -> f64 {
    let (mut total, mut known) = (0usize, 0usize);
    arg.for_each_var(&mut |v, _| {
        total += 1;
        known += usize::from(bound.contains(v));
    });
    if total == known {
        distinct.max(1.0)
    } else if known == 0 && !matches!(arg, Term::Func(..)) {
        1.0
    } else {
        // A function term with some ground parts: assume each ground part narrows equally.
        let parts = total + usize::from(matches!(arg, Term::Func(..)));
        distinct.max(1.0).powf((known + 1) as f64 / (parts + 1) as f64)
    }
}

/// Relations named by `(name, arity)`.
#[derive(Default, Debug, Clone)]
pub(crate) struct Relations {
    pub keys: Vec<(String, usize)>,
    ids: FxHashMap<(String, usize), RelId>,
}

impl Relations {
    pub(crate) fn id(&mut self, name: &str, arity: usize) -> RelId {
        let key = (name.to_string(), arity);
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        self.keys.push(key.clone());
        self.ids.insert(key, self.keys.len() - 1);
        self.keys.len() - 1
    }

    pub(crate) fn get(&self, name: &str, arity: usize) -> Option<RelId> {
        self.ids.get(&(name.to_string(), arity)).copied()
    }

    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }
}

/// A body literal before ordering.
pub(crate) enum Basic<'a> {
    Pos(&'a Atom),
    Neg(&'a Atom),
    Distinct(&'a Term, &'a Term),
    Equal(&'a Term, &'a Term),
}

/// Expands a literal into disjunctive normal form: a list of alternative conjunctions.
pub(crate) fn dnf(literal: &Literal, negated: bool) -> Vec<Vec<Basic<'_>>> {
    match literal {
        Literal::Atom(a) => vec![vec![if negated { Basic::Neg(a) } else { Basic::Pos(a) }]],
        Literal::Not(inner, _) => dnf(inner, !negated),
        Literal::Distinct(a, b, _) => vec![vec![if negated { Basic::Equal(a, b) } else { Basic::Distinct(a, b) }]],
        Literal::Or(parts, _) if !negated => parts.iter().flat_map(|p| dnf(p, false)).collect(),
        Literal::And(parts, _) if negated => parts.iter().flat_map(|p| dnf(p, true)).collect(),
        Literal::Or(parts, _) | Literal::And(parts, _) => product(parts.iter().map(|p| dnf(p, negated))),
    }
}

/// The conjunction of several DNFs, as one DNF.
pub(crate) fn product<'a>(factors: impl Iterator<Item = Vec<Vec<Basic<'a>>>>) -> Vec<Vec<Basic<'a>>> {
    let mut acc: Vec<Vec<Basic<'a>>> = vec![Vec::new()];
    for mut factor in factors {
        // A factor of one alternative extends every conjunction in place: copying them for each
        // literal of a long body was quadratic in its length.
        if factor.len() == 1 {
            let only = factor.pop().unwrap_or_default();
            for conjunction in &mut acc {
                conjunction.extend(only.iter().map(Basic::copy));
            }
            continue;
        }
        let mut next = Vec::with_capacity(acc.len() * factor.len());
        for left in &acc {
            for right in &factor {
                next.push(left.iter().chain(right.iter()).map(Basic::copy).collect());
            }
        }
        acc = next;
    }
    acc
}

impl<'a> Basic<'a> {
    pub(crate) fn copy(&self) -> Basic<'a> {
        match *self {
            Basic::Pos(a) => Basic::Pos(a),
            Basic::Neg(a) => Basic::Neg(a),
            Basic::Distinct(a, b) => Basic::Distinct(a, b),
            Basic::Equal(a, b) => Basic::Equal(a, b),
        }
    }

    pub(crate) fn vars(&self) -> BTreeSet<&'a str> {
        let mut vars = BTreeSet::new();
        let mut add = |v: &'a str, _| {
            vars.insert(v);
        };
        match *self {
            Basic::Pos(a) | Basic::Neg(a) => a.for_each_var(&mut add),
            Basic::Distinct(a, b) | Basic::Equal(a, b) => {
                a.for_each_var(&mut add);
                b.for_each_var(&mut add);
            }
        }
        vars
    }
}

/// Compiles rules; shared state for numbering relations and interning ground terms.
pub(crate) struct Compiler<'s> {
    pub symbols: &'s mut Symbols,
    pub terms: &'s mut Terms,
    pub relations: &'s mut Relations,
}

impl Compiler<'_> {
    /// Compiles every rule of `description`, its bodies ordered by `cost` and `cross_penalty`
    /// (see [`super::order::order`]), or names the first rule whose variables cannot all be
    /// bound by positive literals (an unsafe rule).
    pub(crate) fn compile(
        &mut self,
        description: &Description,
        cost: &dyn Fn(&Atom, &BTreeSet<&str>) -> f64,
        cross_penalty: f64,
        recursive: &dyn Fn(&str, &str) -> bool,
    ) -> Result<Vec<CRule>, Error> {
        let mut out = Vec::new();
        for rule in &description.rules {
            let body = Literal::And(rule.body.clone(), rule.span);
            let alternatives = if rule.body.is_empty() { vec![Vec::new()] } else { dnf(&body, false) };
            for conjunction in alternatives {
                let mut compiled =
                    self.compile_rule(&rule.head, rule.span, &conjunction, (cost, cross_penalty), None)?;
                for (j, b) in conjunction.iter().enumerate() {
                    if matches!(b, Basic::Pos(a) if recursive(&rule.head.name, &a.name)) {
                        let variant =
                            self.compile_rule(&rule.head, rule.span, &conjunction, (cost, cross_penalty), Some(j))?;
                        compiled.delta_variants.push(variant);
                    }
                }
                out.push(compiled);
            }
        }
        Ok(out)
    }

    /// Compiles one conjunction of the rule at `span`, ordering its literals greedily by the
    /// cost and cross penalty of `estimates`, with literal `first` first when given.
    fn compile_rule(
        &mut self,
        head: &Atom,
        span: Span,
        body: &[Basic<'_>],
        estimates: (&super::order::Cost<'_>, f64),
        first: Option<usize>,
    ) -> Result<CRule, Error> {
        let (cost, cross_penalty) = estimates;
        let ordered = super::order::order(body, cost, cross_penalty, first);
        if !ordered.complete {
            return Err(Error::UnsafeTest { relation: head.name.clone(), span });
        }
        let bound = ordered.bound;
        let mut head_vars = BTreeSet::new();
        head.for_each_var(&mut |v, _| {
            head_vars.insert(v);
        });
        if let Some(v) = head_vars.iter().find(|v| !bound.contains(*v)) {
            return Err(Error::UnsafeHead { relation: head.name.clone(), variable: v.to_string(), span });
        }
        let mut vars: FxHashMap<String, VarId> = FxHashMap::default();
        let body = ordered
            .literals
            .into_iter()
            .map(|b| match b {
                Basic::Pos(a) => CLit::Pos(self.pattern(a, &mut vars)),
                Basic::Neg(a) => CLit::Neg(self.pattern(a, &mut vars)),
                Basic::Distinct(a, b) => CLit::Distinct(self.pterm(a, &mut vars), self.pterm(b, &mut vars)),
                Basic::Equal(a, b) => CLit::Equal(self.pterm(a, &mut vars), self.pterm(b, &mut vars)),
            })
            .collect();
        let head = self.pattern(head, &mut vars);
        Ok(CRule { head, body, num_vars: vars.len(), delta_variants: Vec::new(), span })
    }

    pub(crate) fn pattern(&mut self, atom: &Atom, vars: &mut FxHashMap<String, VarId>) -> Pattern {
        let rel = self.relations.id(&atom.name, atom.args.len());
        Pattern { rel, args: atom.args.iter().map(|t| self.pterm(t, vars)).collect() }
    }

    fn pterm(&mut self, term: &Term, vars: &mut FxHashMap<String, VarId>) -> PTerm {
        match term {
            Term::Var(v, _) => {
                let next = vars.len() as VarId;
                PTerm::Var(*vars.entry(v.clone()).or_insert(next))
            }
            Term::Const(c, _) => PTerm::Ground(self.ground_const(c)),
            Term::Func(f, args, _) => {
                let args: Box<[PTerm]> = args.iter().map(|a| self.pterm(a, vars)).collect();
                if let Some(ids) = args
                    .iter()
                    .map(|a| if let PTerm::Ground(id) = a { Some(*id) } else { None })
                    .collect::<Option<Box<[TermId]>>>()
                {
                    let sym = self.symbols.intern(f);
                    return PTerm::Ground(self.terms.intern(Node { sym, args: ids }));
                }
                PTerm::Func(self.symbols.intern(f), args)
            }
        }
    }

    pub(crate) fn ground_const(&mut self, name: &str) -> TermId {
        let sym = self.symbols.intern(name);
        self.terms.intern(Node { sym, args: Box::new([]) })
    }
}
