//! Definitions: a game has `role` facts and rules for `legal`, `goal` and `terminal` (it cannot
//! be played without them), and a relation used in a body but defined nowhere is warned about
//! (it is simply always false).

use super::{for_each_atom, quoted, Context, Place};
use crate::ast::Span;
use crate::diag::Diagnostic;
use std::collections::BTreeSet;

/// Relations whose facts come from the game's progress, not from rules.
const INPUTS: &[&str] = &["true", "does"];

/// Reported by `keywords`, which never lets them stand as relations.
const OPERATORS: &[&str] = &["not", "or", "and", "distinct", "<="];

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let required = [
        ("role", "the game has no `role` facts", "declare every player with a fact `(role name)`"),
        (
            "legal",
            "the game has no rules for `legal`",
            "add rules `(<= (legal ?role ?move) ...)` giving each role's moves",
        ),
        (
            "goal",
            "the game has no rules for `goal`",
            "add rules `(<= (goal ?role value) ...)` giving each role's reward",
        ),
        ("terminal", "the game has no rules for `terminal`", "add rules `(<= terminal ...)` saying when the game ends"),
    ];
    for (name, message, hint) in required {
        if !cx.is_defined(name) {
            out.push(Diagnostic::error(Span::default(), message, hint));
        }
    }

    let mut warned: BTreeSet<&str> = BTreeSet::new();
    for_each_atom(cx.description, &mut |_, atom, place| {
        let name = atom.name.as_str();
        if place == Place::Head || INPUTS.contains(&name) || OPERATORS.contains(&name) || cx.is_defined(name) {
            return;
        }
        if warned.insert(name) {
            out.push(Diagnostic::warning(
                atom.span,
                format!("relation `{name}` is never defined, so `{}` is always false", quoted(atom)),
                format!("define `{name}` with a rule or a fact, or check its spelling"),
            ));
        }
    });
}

#[cfg(test)]
mod tests {
    use crate::check::tests::{render, GOOD};

    #[test]
    fn a_game_needs_roles_legal_goal_and_terminal() {
        assert_eq!(
            render("(init (cell a))"),
            "bad.kif:1:1: error: the game has no `role` facts\n  hint: declare every player with a fact `(role name)`\n\
             bad.kif:1:1: error: the game has no rules for `legal`\n  hint: add rules `(<= (legal ?role ?move) ...)` \
             giving each role's moves\n\
             bad.kif:1:1: error: the game has no rules for `goal`\n  hint: add rules `(<= (goal ?role value) ...)` \
             giving each role's reward\n\
             bad.kif:1:1: error: the game has no rules for `terminal`\n  hint: add rules `(<= terminal ...)` saying \
             when the game ends\n"
        );
    }

    #[test]
    fn undefined_relations_are_warned_about_once() {
        let src = format!("{GOOD}(<= (p ?n) (succ ?n ?m) (not (ajd ?m)))\n(<= q (ajd a))\n");
        assert_eq!(
            render(&src),
            "bad.kif:9:30: warning: relation `ajd` is never defined, so `(ajd ?m)` is always false\n  \
             hint: define `ajd` with a rule or a fact, or check its spelling\n"
        );
    }
}
