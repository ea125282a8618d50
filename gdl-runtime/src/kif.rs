//! A small reader for the KIF s-expressions that cross process boundaries: moves in traces and
//! in player messages. It normalizes to canonical form (lower case, single spaces).

use std::fmt;

/// The deepest nesting accepted, so that hostile input cannot overflow the stack.
pub const MAX_DEPTH: usize = 256;

/// A symbol (variables keep their `?`) or a parenthesized list.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sx {
    /// A symbol, number or variable, spelled as the text spells it (`cellHolds`, `?x`, `100`).
    Atom(String),
    /// The expressions between a pair of parentheses, in order; `()` is the empty list.
    List(Vec<Sx>),
}

impl fmt::Display for Sx {
    /// Prints canonical KIF: `(mark 1 1)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sx::Atom(a) => f.write_str(a),
            Sx::List(items) => {
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

/// Reads every s-expression in `text`, keeping the spelling of symbols.
pub fn parse_all(text: &str) -> Result<Vec<Sx>, String> {
    let mut stack: Vec<Vec<Sx>> = vec![Vec::new()];
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '(' => {
                if stack.len() > MAX_DEPTH {
                    return Err(format!("nested deeper than {MAX_DEPTH} levels at byte {i}"));
                }
                stack.push(Vec::new());
            }
            ')' => {
                if stack.len() == 1 {
                    return Err(format!("unbalanced `)` at byte {i}"));
                }
                let list = stack.pop().expect("checked above");
                stack.last_mut().expect("the top level stays").push(Sx::List(list));
            }
            ';' => while chars.next_if(|&(_, c)| c != '\n').is_some() {},
            c if c.is_whitespace() => {}
            _ => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_whitespace() || d == '(' || d == ')' || d == ';' {
                        break;
                    }
                    end = j + d.len_utf8();
                    chars.next();
                }
                stack.last_mut().expect("the top level stays").push(Sx::Atom(text[i..end].to_string()));
            }
        }
    }
    if stack.len() > 1 {
        return Err("unbalanced parentheses: a `(` is never closed".to_string());
    }
    Ok(stack.pop().expect("the top level stays"))
}

/// Reads exactly one s-expression.
pub fn parse_one(text: &str) -> Result<Sx, String> {
    let mut all = parse_all(text)?;
    match all.len() {
        1 => Ok(all.pop().expect("one")),
        0 => Err("expected a term, found nothing".to_string()),
        n => Err(format!("expected one term, found {n}")),
    }
}

impl Sx {
    /// The same expression with every symbol in lower case.
    pub fn to_lowercase(&self) -> Sx {
        match self {
            Sx::Atom(a) => Sx::Atom(a.to_lowercase()),
            Sx::List(items) => Sx::List(items.iter().map(Sx::to_lowercase).collect()),
        }
    }
}

/// The canonical form of one term: lower case, single spaces.
pub fn canonical(text: &str) -> Result<String, String> {
    Ok(parse_one(text)?.to_lowercase().to_string())
}

/// The index in `terms` (terms printed in KIF with single spaces, sorted by bytes) of the term
/// `text` reads as: the one spelled the same way, or else the only one that differs from it in
/// letter case alone. A game read in any case has its terms in lower case, and a manager that
/// upper-cases every message still finds them; a game read with names kept apart by case
/// (`nextFile` and `nextfile` two names) finds the exact spelling first. `None` when `text` is
/// not one term, or matches none or several.
pub fn find_term<S: AsRef<str>>(text: &str, terms: &[S]) -> Option<usize> {
    let spelled = parse_one(text).ok()?.to_string();
    if let Ok(index) = terms.binary_search_by(|t| t.as_ref().cmp(spelled.as_str())) {
        return Some(index);
    }
    let lower = spelled.to_lowercase();
    let mut matches = terms.iter().enumerate().filter(|(_, t)| t.as_ref().to_lowercase() == lower);
    match (matches.next(), matches.next()) {
        (Some((index, _)), None) => Some(index),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonicalizes_case_and_spacing() {
        assert_eq!(canonical("( MARK  1\n1 )").unwrap(), "(mark 1 1)");
        assert_eq!(canonical(" noop ").unwrap(), "noop");
    }

    #[test]
    fn finds_a_term_by_its_spelling_then_in_any_case() {
        let folded = ["(mark 1 1)", "noop"];
        assert_eq!(find_term("( MARK  1\n1 )", &folded), Some(0));
        assert_eq!(find_term("NOOP", &folded), Some(1));
        assert_eq!(find_term("(mark 1 2)", &folded), None);
        // Names kept apart by case: the exact spelling wins, and a spelling that matches two
        // terms in any case but neither exactly is no move.
        let kept = ["(move B)", "(move b)", "(step A)"];
        assert_eq!(find_term("(move b)", &kept), Some(1));
        assert_eq!(find_term("(move B)", &kept), Some(0));
        assert_eq!(find_term("(MOVE b)", &kept), None);
        assert_eq!(find_term("(STEP a)", &kept), Some(2));
        assert_eq!(find_term("(a", &kept), None);
    }

    #[test]
    fn rejects_bad_input_without_panicking() {
        assert!(canonical("(a").is_err());
        assert!(canonical("a)").is_err());
        assert!(canonical("a b").is_err());
        assert!(canonical("").is_err());
        assert!(canonical(&"(".repeat(100_000)).is_err());
    }
}
