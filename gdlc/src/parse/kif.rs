//! The prefix KIF reader: a pest grammar for s-expressions, after a scan that reports
//! unbalanced or too deeply nested parentheses precisely.

use super::{check_pair_depth, pest_error, SExpr, MAX_NESTING};
use crate::ast::Span;
use crate::diag::Diagnostic;
use pest::iterators::Pair;
use pest::Parser as _;

#[derive(pest_derive::Parser)]
#[grammar = "parse/kif.pest"]
struct KifParser;

/// Reads every top-level s-expression of a KIF text.
pub(super) fn read(source: &str) -> Result<Vec<SExpr>, Diagnostic> {
    check_parentheses(source)?;
    let file = KifParser::parse(Rule::file, source)
        .map_err(|e| pest_error(e, "prefix KIF", "expected a symbol, a ?variable or a parenthesized list"))?
        .next()
        .expect("the grammar's file rule always yields one pair");
    check_pair_depth(&file, MAX_NESTING + 1)?;
    Ok(file.into_inner().filter(|p| p.as_rule() != Rule::EOI).map(convert).collect())
}

fn convert(pair: Pair<'_, Rule>) -> SExpr {
    let span = Span::new(pair.as_span().start(), pair.as_span().end());
    match pair.as_rule() {
        Rule::list => SExpr::List(pair.into_inner().map(convert).collect(), span),
        Rule::variable => SExpr::Var(pair.as_str()[1..].to_string(), span),
        Rule::symbol => SExpr::Sym(pair.as_str().to_string(), span),
        other => unreachable!("the KIF grammar yields no {other:?} inside a file"),
    }
}

/// Finds the first unbalanced parenthesis, or nesting deeper than [`MAX_NESTING`].
fn check_parentheses(source: &str) -> Result<(), Diagnostic> {
    let mut open: Vec<usize> = Vec::new();
    let mut in_comment = false;
    for (i, b) in source.bytes().enumerate() {
        match b {
            b'\n' => in_comment = false,
            _ if in_comment => {}
            b';' => in_comment = true,
            b'(' => {
                if open.len() == MAX_NESTING {
                    return Err(Diagnostic::error(
                        Span::new(i, i + 1),
                        format!("parentheses nested deeper than {MAX_NESTING} levels"),
                        "game descriptions are shallow; this input is probably not GDL",
                    ));
                }
                open.push(i);
            }
            // The guard pops the `(` this `)` closes; it fails (and the byte is done) when there is one.
            b')' if open.pop().is_none() => {
                return Err(Diagnostic::error(
                    Span::new(i, i + 1),
                    "unbalanced parentheses: this `)` closes nothing",
                    "remove it, or add the `(` it was meant to close",
                ));
            }
            _ => {}
        }
    }
    match open.last() {
        Some(&i) => Err(Diagnostic::error(
            Span::new(i, i + 1),
            "unbalanced parentheses: this `(` is never closed",
            "add the missing `)`",
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lists_symbols_and_variables_as_written() {
        let e = read("(Cell ?X b) ; comment\nterminal").unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].to_string(), "(Cell ?X b)");
        assert_eq!(e[1].to_string(), "terminal");
    }

    #[test]
    fn reports_an_unclosed_parenthesis_where_it_opens() {
        let d = read("(role x)\n(init (p)").unwrap_err();
        assert_eq!(d.span.start, 9);
        assert!(d.message.contains("never closed"));
    }

    #[test]
    fn reports_a_stray_closing_parenthesis() {
        let d = read("(role x))").unwrap_err();
        assert_eq!(d.span.start, 8);
    }

    #[test]
    fn refuses_deep_nesting_without_overflowing() {
        let src = "(".repeat(100_000);
        assert!(read(&src).unwrap_err().message.contains("nested deeper"));
    }

    #[test]
    fn parentheses_in_comments_do_not_count() {
        assert!(read("; ((( \n(role x)").is_ok());
    }
}
