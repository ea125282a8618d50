//! Names that differ only in letter case. GDL reads names in any case (section 2 of the
//! specification), and gdlc stores them in lower case, so `nextFile` and `nextfile` are one
//! name here; ggp-base, whose `GameServer` runs most matches, keeps them apart, and a game that
//! spells one name two ways plays differently there (alexChess's rooks never move under
//! ggp-base), as it does in gdlc with `--case-sensitive`. This check warns where a name is spelled a second way, naming both spellings and
//! where the first stands. Only prefix KIF is read: in infix, letter case tells variables from
//! constants. The keywords are left out, since every engine reads them in any case.

use crate::ast::Span;
use crate::diag::{line_col, Diagnostic};
use crate::parse::{Case, KEYWORDS};
use std::collections::BTreeMap;

/// A warning at each place where a name of `source` (prefix KIF) is spelled another way than
/// where it first stands; its hint says how gdlc reads the two under `case`.
pub(crate) fn letter_case(source: &str, case: Case) -> Vec<Diagnostic> {
    let hint = match case {
        Case::Insensitive => {
            "gdlc reads both as one name, but ggp-base and other engines that keep letter case read two \
             (as gdlc does with --case-sensitive); spell the name one way everywhere"
        }
        Case::Sensitive => {
            "with --case-sensitive gdlc reads two names, as ggp-base does, but the specification reads \
             one; spell the name one way everywhere"
        }
    };
    // For every name in lower case, its first spelling and where that stands.
    let mut first: BTreeMap<String, (&str, usize)> = BTreeMap::new();
    let mut warned: BTreeMap<(String, &str), ()> = BTreeMap::new();
    let mut out = Vec::new();
    for (at, token) in symbols(source) {
        let lower = token.to_lowercase();
        if KEYWORDS.contains(&lower.as_str()) {
            continue;
        }
        match first.get(&lower) {
            None => {
                first.insert(lower, (token, at));
            }
            Some(&(spelled, where_first)) if spelled != token => {
                if warned.insert((lower.clone(), token), ()).is_none() {
                    let (line, col) = line_col(source, where_first);
                    out.push(Diagnostic::warning(
                        Span::new(at, at + token.len()),
                        format!("`{token}` differs only in letter case from `{spelled}` (at {line}:{col})"),
                        hint,
                    ));
                }
            }
            Some(_) => {}
        }
    }
    out
}

/// Every symbol of prefix KIF with its byte offset: the tokens between parentheses, white space
/// and comments, but variables (`?x`) and quoted strings.
fn symbols(source: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut tokens = Vec::new();
    let bytes = source.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += 1;
                }
                i += 1;
            }
            b'(' | b')' => i += 1,
            b if b.is_ascii_whitespace() => i += 1,
            _ => {
                let start = i;
                while i < bytes.len()
                    && !matches!(bytes[i], b'(' | b')' | b';' | b'"')
                    && !bytes[i].is_ascii_whitespace()
                {
                    i += 1;
                }
                if bytes[start] != b'?' {
                    tokens.push((start, &source[start..i]));
                }
            }
        }
    }
    tokens.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_spelled_two_ways_is_warned_about_once_per_spelling() {
        let src = "(role white)\n(<= (nextFile ?x ?y) (succ ?x ?y))\n; nextfile in a comment\n\
                   (<= (legal white (go ?x)) (nextfile ?x ?y))\n(<= (legal white (go ?y)) (NEXTFILE ?x ?y))\n\
                   (<= (legal white stay) (nextfile a b))\n(ROLE black) (TRUE x)";
        let warnings = letter_case(src, Case::Insensitive);
        let messages: Vec<&str> = warnings.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "`nextfile` differs only in letter case from `nextFile` (at 2:6)",
                "`NEXTFILE` differs only in letter case from `nextFile` (at 2:6)",
            ]
        );
        assert_eq!(&src[warnings[0].span.start..warnings[0].span.end], "nextfile");
        assert!(letter_case("(role x) (init (cell a)) (<= (legal x go) (true (cell a)))", Case::Insensitive).is_empty());
    }
}
