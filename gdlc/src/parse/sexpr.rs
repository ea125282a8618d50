//! S-expressions, the common output of both readers, and their interpretation as GDL sentences.

use super::{Case, Parsed, KEYWORDS};
use crate::ast::{Atom, Description, Literal, Rule, Span, Term};
use crate::diag::Diagnostic;
use std::fmt;

/// A symbol, a variable (its name without `?`) or a parenthesized list. The readers keep names
/// as written; [`fold_case`] then reads them in the [`Case`] asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SExpr {
    Sym(String, Span),
    Var(String, Span),
    List(Vec<SExpr>, Span),
}

impl SExpr {
    pub fn span(&self) -> Span {
        match self {
            SExpr::Sym(_, s) | SExpr::Var(_, s) | SExpr::List(_, s) => *s,
        }
    }
}

impl fmt::Display for SExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SExpr::Sym(s, _) => f.write_str(s),
            SExpr::Var(v, _) => write!(f, "?{v}"),
            SExpr::List(items, _) => {
                f.write_str("(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Reads the names of `expr` in `case`: with [`Case::Insensitive`] every name in lower case,
/// with [`Case::Sensitive`] only the keywords ([`KEYWORDS`]), which are read in any case.
pub(super) fn fold_case(expr: &mut SExpr, case: Case) {
    match expr {
        SExpr::Sym(name, _) | SExpr::Var(name, _) if case == Case::Insensitive => *name = name.to_lowercase(),
        SExpr::Sym(name, _) if KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(name)) => *name = name.to_lowercase(),
        SExpr::Sym(..) | SExpr::Var(..) => {}
        SExpr::List(items, _) => items.iter_mut().for_each(|item| fold_case(item, case)),
    }
}

/// Interprets top-level s-expressions as rules and facts, collecting every problem found.
pub(super) fn to_description(exprs: &[SExpr]) -> Parsed {
    let mut reader = Reader { diagnostics: Vec::new() };
    let rules = exprs.iter().filter_map(|e| reader.sentence(e)).collect();
    Parsed { description: Description { rules }, diagnostics: reader.diagnostics }
}

struct Reader {
    diagnostics: Vec<Diagnostic>,
}

impl Reader {
    fn error(&mut self, span: Span, message: impl Into<String>, hint: &str) {
        self.diagnostics.push(Diagnostic::error(span, message, hint));
    }

    fn empty_parens_warning(&mut self, name: &str, span: Span, what: &str) {
        self.diagnostics.push(Diagnostic::warning(
            span,
            format!("zero-arity {what} `{name}` is written with parentheses"),
            format!("write `{name}` without parentheses; it is read as `{name}`"),
        ));
    }

    fn sentence(&mut self, e: &SExpr) -> Option<Rule> {
        if let SExpr::List(items, span) = e {
            if let Some(SExpr::Sym(op, _)) = items.first() {
                if op == "<=" {
                    let Some(head) = items.get(1) else {
                        self.error(*span, "a rule `(<= ...)` without a head", "write `(<= head body ...)`");
                        return None;
                    };
                    let head = self.atom(head)?;
                    let body: Option<Vec<Literal>> = items[2..].iter().map(|l| self.literal(l)).collect();
                    return Some(Rule { head, body: body?, span: *span });
                }
            }
        }
        let head = self.atom(e)?;
        Some(Rule { head, body: Vec::new(), span: e.span() })
    }

    fn atom(&mut self, e: &SExpr) -> Option<Atom> {
        match e {
            SExpr::Sym(name, span) => Some(Atom { name: name.clone(), args: Vec::new(), span: *span }),
            SExpr::Var(v, span) => {
                self.error(
                    *span,
                    format!("a variable `?{v}` cannot stand as a sentence"),
                    "a sentence is a relation constant or `(relation arg ...)`",
                );
                None
            }
            SExpr::List(items, span) => match items.first() {
                None => {
                    self.error(*span, "an empty list `()` is not a sentence", "remove it");
                    None
                }
                Some(SExpr::Sym(name, _)) => {
                    if items.len() == 1 {
                        self.empty_parens_warning(name, *span, "relation");
                    }
                    let args: Option<Vec<Term>> = items[1..].iter().map(|t| self.term(t)).collect();
                    Some(Atom { name: name.clone(), args: args?, span: *span })
                }
                Some(other) => {
                    self.error(
                        other.span(),
                        format!("a sentence must start with a relation name, not `{other}`"),
                        "write `(relation arg ...)`",
                    );
                    None
                }
            },
        }
    }

    fn literal(&mut self, e: &SExpr) -> Option<Literal> {
        if let SExpr::List(items, span) = e {
            if let Some(SExpr::Sym(op, _)) = items.first() {
                let args = &items[1..];
                match op.as_str() {
                    "not" => {
                        if args.len() != 1 {
                            self.error(
                                *span,
                                format!("`not` takes one literal, not {}", args.len()),
                                "write `(not literal)`",
                            );
                            return None;
                        }
                        return Some(Literal::Not(Box::new(self.literal(&args[0])?), *span));
                    }
                    "distinct" => {
                        if args.len() != 2 {
                            self.error(
                                *span,
                                format!("`distinct` takes two terms, not {}", args.len()),
                                "write `(distinct term term)`",
                            );
                            return None;
                        }
                        let (a, b) = (self.term(&args[0])?, self.term(&args[1])?);
                        return Some(Literal::Distinct(a, b, *span));
                    }
                    "or" | "and" => {
                        if args.is_empty() {
                            self.error(
                                *span,
                                format!("`{op}` needs at least one literal"),
                                "remove it or add literals",
                            );
                            return None;
                        }
                        let mut parts: Option<Vec<Literal>> = args.iter().map(|l| self.literal(l)).collect();
                        // A one-literal `and` or `or` is that literal.
                        if let Some(p) = parts.as_mut().filter(|p| p.len() == 1) {
                            return p.pop();
                        }
                        return Some(if op == "or" { Literal::Or(parts?, *span) } else { Literal::And(parts?, *span) });
                    }
                    _ => {}
                }
            }
        }
        Some(Literal::Atom(self.atom(e)?))
    }

    fn term(&mut self, e: &SExpr) -> Option<Term> {
        match e {
            SExpr::Sym(name, span) => Some(Term::Const(name.clone(), *span)),
            SExpr::Var(v, span) => Some(Term::Var(v.clone(), *span)),
            SExpr::List(items, span) => match items.first() {
                None => {
                    self.error(*span, "an empty list `()` is not a term", "remove it");
                    None
                }
                Some(SExpr::Sym(name, _)) => {
                    if items.len() == 1 {
                        self.empty_parens_warning(name, *span, "function");
                        return Some(Term::Const(name.clone(), *span));
                    }
                    let args: Option<Vec<Term>> = items[1..].iter().map(|t| self.term(t)).collect();
                    Some(Term::Func(name.clone(), args?, *span))
                }
                Some(other) => {
                    self.error(
                        other.span(),
                        format!("a term must start with a function name, not `{other}`"),
                        "write `(function arg ...)`",
                    );
                    None
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ast::Literal;
    use crate::parse::{parse, Syntax};

    #[test]
    fn reads_rules_facts_and_special_literals() {
        let p = parse("(role x) (<= (p ?y) (q ?y) (not (r ?y)) (distinct ?y a) (or s (and t u)))", Syntax::Kif);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let rules = &p.description.rules;
        assert_eq!(rules.len(), 2);
        assert!(rules[0].is_fact());
        assert!(matches!(rules[1].body[1], Literal::Not(..)));
        assert!(matches!(rules[1].body[2], Literal::Distinct(..)));
        assert!(matches!(rules[1].body[3], Literal::Or(..)));
    }

    #[test]
    fn empty_parentheses_are_a_warning_with_the_intended_meaning() {
        let p = parse("(<= (open2) (true (cell ?x)))", Syntax::Kif);
        assert_eq!(p.diagnostics.len(), 1);
        assert!(!p.diagnostics[0].is_error());
        assert_eq!(p.description.rules[0].head.to_string(), "open2");
    }

    #[test]
    fn all_errors_are_reported() {
        let p = parse("(?x) () (not a b)", Syntax::Kif);
        assert_eq!(p.diagnostics.iter().filter(|d| d.is_error()).count(), 2, "{:?}", p.diagnostics);
    }
}
