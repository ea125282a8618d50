//! Reading game descriptions: both syntaxes are parsed by pest into s-expressions, which one
//! reader turns into the shared [`Description`] AST.

mod infix;
mod kif;
mod sexpr;

use crate::ast::{Description, Span};
use crate::diag::Diagnostic;

pub use sexpr::SExpr;

/// The deepest nesting of parentheses accepted; deeper input is refused with a diagnostic
/// instead of risking a stack overflow in the recursive passes.
pub const MAX_NESTING: usize = 256;

/// The two concrete syntaxes of GDL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// Prefix KIF: `(<= (legal ?p (mark ?x ?y)) ...)`.
    Kif,
    /// The Stanford notes' infix form: `legal(W, mark(X, Y)) :- true(cell(X, Y, b))`.
    Infix,
}

/// How names are read. The specification reads names in any letter case, and so does gdlc by
/// default; ggp-base, whose `GameServer` runs most matches, keeps names that differ in case
/// apart (reading keywords in any case). A game that spells one name two ways (alexChess's
/// `nextFile` and `nextfile`) is a different game under each reading.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Case {
    /// Every name in lower case: `nextFile` and `nextfile` are one name.
    #[default]
    Insensitive,
    /// Names kept as written, keywords read in any case: `nextFile` and `nextfile` are two.
    Sensitive,
}

/// The words of GDL, GDL-II and the rules' connectives, which are read in any letter case.
pub const KEYWORDS: [&str; 17] = [
    "role", "init", "true", "does", "next", "legal", "goal", "terminal", "distinct", "not", "or", "and", "base",
    "input", "sees", "random", "<=",
];

/// The result of parsing: the description read so far and every diagnostic found on the way.
/// The description is complete only when no diagnostic is an error.
#[derive(Debug, Default)]
pub struct Parsed {
    pub description: Description,
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Decodes a file's bytes as UTF-8 text, or explains where it is not.
pub fn decode(bytes: &[u8]) -> Result<&str, Diagnostic> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        Diagnostic::error(
            Span::new(at, at + 1),
            format!("the file is not UTF-8 text (invalid byte 0x{:02x})", bytes[at]),
            "a game description must be a text file in prefix KIF or infix GDL",
        )
    })
}

/// Guesses the syntax from the first character that is neither white space nor in a comment:
/// prefix KIF starts with `(`, infix with a name.
pub fn detect_syntax(source: &str) -> Syntax {
    let mut rest = source;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        if rest.starts_with(';') || rest.starts_with('%') {
            rest = rest.find('\n').map_or("", |i| &rest[i..]);
            continue;
        }
        return if rest.is_empty() || rest.starts_with('(') { Syntax::Kif } else { Syntax::Infix };
    }
}

/// Parses a description written in `syntax`, its names read in any case.
pub fn parse(source: &str, syntax: Syntax) -> Parsed {
    parse_in(source, syntax, Case::Insensitive)
}

/// Parses a description written in `syntax`, its names read in `case`.
pub fn parse_in(source: &str, syntax: Syntax, case: Case) -> Parsed {
    let exprs = match syntax {
        Syntax::Kif => kif::read(source),
        Syntax::Infix => infix::read(source),
    };
    match exprs {
        Ok(mut exprs) => {
            exprs.iter_mut().for_each(|e| sexpr::fold_case(e, case));
            sexpr::to_description(&exprs)
        }
        Err(d) => Parsed { description: Description::default(), diagnostics: vec![d] },
    }
}

/// Parses a description in whichever syntax it is written in, its names read in any case.
pub fn parse_auto(source: &str) -> Parsed {
    parse(source, detect_syntax(source))
}

/// Parses a description in whichever syntax it is written in, its names read in `case`.
pub fn parse_auto_in(source: &str, case: Case) -> Parsed {
    parse_in(source, detect_syntax(source), case)
}

/// Refuses a parse tree deeper than `limit` pairs, measured without recursion, before the
/// recursive conversions walk it. The scans before parsing already refuse deep nesting with a
/// precise message; this is the backstop that keeps a gap in them from overflowing the stack.
fn check_pair_depth<R: pest::RuleType>(root: &pest::iterators::Pair<'_, R>, limit: usize) -> Result<(), Diagnostic> {
    let mut depth = 0usize;
    for token in root.clone().tokens() {
        match token {
            pest::Token::Start { pos, .. } => {
                depth += 1;
                if depth > limit {
                    let at = pos.pos();
                    return Err(Diagnostic::error(
                        Span::new(at, at + 1),
                        format!("expressions nested deeper than {MAX_NESTING} levels"),
                        "game descriptions are shallow; this input is probably not GDL",
                    ));
                }
            }
            pest::Token::End { .. } => depth -= 1,
        }
    }
    Ok(())
}

/// Converts a pest error into a diagnostic at its position.
fn pest_error<R: pest::RuleType>(err: pest::error::Error<R>, what: &str, hint: &str) -> Diagnostic {
    let (start, end) = match err.location {
        pest::error::InputLocation::Pos(p) => (p, p + 1),
        pest::error::InputLocation::Span((s, e)) => (s, e),
    };
    let message = match &err.variant {
        pest::error::ErrorVariant::ParsingError { .. } => format!("syntax error in {what}"),
        pest::error::ErrorVariant::CustomError { message } => message.clone(),
    };
    Diagnostic::error(Span::new(start, end), message, hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_syntax_after_comments() {
        assert_eq!(detect_syntax("; c\n (role x)"), Syntax::Kif);
        assert_eq!(detect_syntax("% c\nrole(x)"), Syntax::Infix);
        assert_eq!(detect_syntax(""), Syntax::Kif);
    }

    #[test]
    fn names_are_folded_or_kept_and_keywords_read_in_any_case() {
        let kif = "(ROLE White) (<= (LEGAL White (Move ?X)) (TRUE (cell ?X)) (NOT (Blocked ?x)))";
        let infix = "role(white) legal(white, move(X)) :- true(cellAt(X)) & ~blocked(X)";
        let printed = |source: &str, case: Case| {
            let parsed = parse_auto_in(source, case);
            assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
            crate::print::print(&parsed.description, Syntax::Kif)
        };
        let folded = printed(kif, Case::Insensitive);
        assert!(folded.contains("(legal white (move ?x))") && folded.contains("(not (blocked ?x))"), "{folded}");
        let kept = printed(kif, Case::Sensitive);
        assert!(kept.contains("(role White)"), "{kept}");
        assert!(kept.contains("(legal White (Move ?X))") && kept.contains("(not (Blocked ?x))"), "{kept}");
        assert!(printed(infix, Case::Sensitive).contains("(true (cellAt ?X))"));
        assert!(printed(infix, Case::Insensitive).contains("(true (cellat ?x))"));
    }

    #[test]
    fn non_utf8_is_a_diagnostic() {
        let d = decode(b"(role x)\xff").unwrap_err();
        assert_eq!(d.span.start, 8);
        assert!(d.message.contains("0xff"));
    }
}
