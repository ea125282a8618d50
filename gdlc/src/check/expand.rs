//! Expansion of `or` (and the `and` groups inside it): a rule body with disjunctions stands for
//! the set of plain conjunctive bodies, one per choice of a disjunct in every `or` (Def. 18).

use crate::ast::Literal;

/// The conjunctive bodies a body stands for, with every `or` expanded and every `and` spliced
/// into the surrounding conjunction. Each result holds only atoms, `not` and `distinct`
/// literals (a `not` is kept whole, whatever it contains). Disjuncts vary rightmost-fastest,
/// so `a (or b c) (or d e)` gives `a b d`, `a b e`, `a c d`, `a c e`.
///
/// The number of results is the product of the `or` sizes, which can be exponential in the
/// size of the body: call [`expansion_count`] first when the input is untrusted.
pub fn expand_or(body: &[Literal]) -> Vec<Vec<Literal>> {
    expansions(body).into_iter().map(|c| c.into_iter().cloned().collect()).collect()
}

/// Like [`expand_or`], but borrowing the literals of `body` instead of cloning them.
pub fn expansions(body: &[Literal]) -> Vec<Vec<&Literal>> {
    // An empty `or` (which the parser never produces) empties the whole product; return early
    // so that the factors before it are not multiplied out for nothing.
    if expansion_count(body) == 0 {
        return Vec::new();
    }
    let mut result: Vec<Vec<&Literal>> = vec![Vec::new()];
    for literal in body {
        let alternatives = alternatives(literal);
        // One alternative extends every result in place: copying them for each literal of a
        // long body was quadratic in its length.
        if let [only] = alternatives.as_slice() {
            result.iter_mut().for_each(|partial| partial.extend(only.iter().copied()));
            continue;
        }
        result = result
            .iter()
            .flat_map(|partial| alternatives.iter().map(move |alt| partial.iter().chain(alt.iter()).copied().collect()))
            .collect();
    }
    result
}

fn alternatives(literal: &Literal) -> Vec<Vec<&Literal>> {
    match literal {
        Literal::Or(ls, _) => ls.iter().flat_map(alternatives).collect(),
        Literal::And(ls, _) => expansions(ls),
        Literal::Atom(_) | Literal::Not(..) | Literal::Distinct(..) => vec![vec![literal]],
    }
}

/// How many bodies [`expand_or`] would return, saturating at `usize::MAX`; cheap to compute.
pub fn expansion_count(body: &[Literal]) -> usize {
    body.iter().map(literal_count).fold(1, usize::saturating_mul)
}

fn literal_count(literal: &Literal) -> usize {
    match literal {
        Literal::Or(ls, _) => ls.iter().map(literal_count).fold(0, usize::saturating_add),
        Literal::And(ls, _) => expansion_count(ls),
        Literal::Atom(_) | Literal::Not(..) | Literal::Distinct(..) => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, Syntax};

    fn bodies(src: &str) -> Vec<String> {
        let d = parse(src, Syntax::Kif).description;
        let body = &d.rules[0].body;
        let out: Vec<String> = expand_or(body)
            .iter()
            .map(|c| c.iter().map(crate::check::literal_text).collect::<Vec<_>>().join(" "))
            .collect();
        assert_eq!(out.len(), expansion_count(body));
        out
    }

    #[test]
    fn expands_every_or_rightmost_fastest() {
        assert_eq!(bodies("(<= p a (or b c) (or d e))"), ["a b d", "a b e", "a c d", "a c e"]);
    }

    #[test]
    fn splices_and_and_flattens_nested_or() {
        assert_eq!(bodies("(<= p (or (and a (or b c)) d) e)"), ["a b e", "a c e", "d e"]);
    }

    #[test]
    fn keeps_negations_whole() {
        assert_eq!(bodies("(<= p (not (or a b)) (distinct ?x c))"), ["(not (or a b)) (distinct ?x c)"]);
    }

    #[test]
    fn an_empty_or_has_no_expansions() {
        let d = parse(&format!("(<= p {})", "(or a b) ".repeat(80)), Syntax::Kif).description;
        let mut body = d.rules[0].body.clone();
        body.push(Literal::Or(Vec::new(), crate::ast::Span::default()));
        assert_eq!(expansion_count(&body), 0);
        assert!(expansions(&body).is_empty());
    }

    #[test]
    fn counts_without_expanding() {
        let d = parse(&format!("(<= p {})", "(or a b) ".repeat(80)), Syntax::Kif).description;
        assert_eq!(expansion_count(&d.rules[0].body), usize::MAX);
        assert_eq!(expansion_count(&[]), 1);
    }
}
