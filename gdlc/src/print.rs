//! Printing a description in either syntax (`gdlc fmt`); reading the output back gives the same AST.

use crate::ast::{Atom, Description, Literal, Term};
use crate::parse::Syntax;
use std::fmt::Write as _;

/// Prints `description` in `syntax`, one rule per line (rule bodies indented one literal per line).
pub fn print(description: &Description, syntax: Syntax) -> String {
    let mut out = String::new();
    for rule in &description.rules {
        match syntax {
            Syntax::Kif => {
                if rule.body.is_empty() {
                    let _ = writeln!(out, "{}", rule.head);
                } else {
                    let _ = write!(out, "(<= {}", rule.head);
                    for l in &rule.body {
                        let _ = write!(out, "\n    {}", kif_literal(l));
                    }
                    out.push_str(")\n");
                }
            }
            Syntax::Infix => {
                out.push_str(&infix_atom(&rule.head));
                for (i, l) in rule.body.iter().enumerate() {
                    out.push_str(if i == 0 { " :-\n    " } else { " &\n    " });
                    out.push_str(&infix_literal(l));
                }
                out.push('\n');
            }
        }
    }
    out
}

/// Every rule of `rules` in KIF on a line of its own, its literals apart by single spaces: how
/// the tests of the passes that rewrite rules compare them.
#[cfg(test)]
pub(crate) fn kif_lines(rules: Vec<crate::ast::Rule>) -> Vec<String> {
    rules
        .into_iter()
        .map(|rule| print(&Description { rules: vec![rule] }, Syntax::Kif).trim_end().replace("\n    ", " "))
        .collect()
}

fn kif_literal(l: &Literal) -> String {
    match l {
        Literal::Atom(a) => a.to_string(),
        Literal::Not(l, _) => format!("(not {})", kif_literal(l)),
        Literal::Distinct(a, b, _) => format!("(distinct {a} {b})"),
        Literal::Or(ls, _) => format!("(or {})", ls.iter().map(kif_literal).collect::<Vec<_>>().join(" ")),
        Literal::And(ls, _) => format!("(and {})", ls.iter().map(kif_literal).collect::<Vec<_>>().join(" ")),
    }
}

fn infix_literal(l: &Literal) -> String {
    match l {
        Literal::Atom(a) => infix_atom(a),
        Literal::Not(l, _) => format!("~{}", infix_literal(l)),
        Literal::Distinct(a, b, _) => format!("distinct({}, {})", infix_term(a), infix_term(b)),
        Literal::Or(ls, _) => format!("({})", ls.iter().map(infix_disjunct).collect::<Vec<_>>().join(" | ")),
        // A conjunction is a group with one disjunct, which reads back as `and`.
        Literal::And(..) => format!("({})", infix_disjunct(l)),
    }
}

/// A disjunct of an `or`: a conjunction is written without its own parentheses.
fn infix_disjunct(l: &Literal) -> String {
    match l {
        Literal::And(ls, _) => ls.iter().map(infix_literal).collect::<Vec<_>>().join(" & "),
        other => infix_literal(other),
    }
}

fn infix_atom(a: &Atom) -> String {
    let mut s = infix_name(&a.name);
    if !a.args.is_empty() {
        s.push('(');
        s.push_str(&a.args.iter().map(infix_term).collect::<Vec<_>>().join(", "));
        s.push(')');
    }
    s
}

fn infix_term(t: &Term) -> String {
    match t {
        Term::Var(v, _) => infix_var(v),
        Term::Const(c, _) => infix_name(c),
        Term::Func(name, args, _) => {
            format!("{}({})", infix_name(name), args.iter().map(infix_term).collect::<Vec<_>>().join(", "))
        }
    }
}

/// A constant is written bare when it is a plain lower-case identifier or a decimal number
/// (an rtGDL lifetime such as `1.0`), quoted otherwise.
fn infix_name(name: &str) -> String {
    if let Some((whole, fraction)) = name.split_once('.') {
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if digits(whole) && digits(fraction) {
            return name.to_string();
        }
    }
    let mut chars = name.chars();
    let plain = chars.next().is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("'{}'", name.replace('\'', "''"))
    }
}

/// A variable is written capitalized when that spells it, and as `?name` otherwise.
fn infix_var(name: &str) -> String {
    let mut chars = name.chars();
    let plain = chars.next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        let mut s = name.to_string();
        s[..1].make_ascii_uppercase();
        s
    } else {
        format!("?{name}")
    }
}
