//! The restrictions on GDL's keyword relations (Def. 20 and section 6): `role` only in facts,
//! `true` and `does` never in heads, `init` and `next` never in bodies, `init` independent of
//! the state and the moves, `legal`, `goal` and `terminal` independent of `does`; and the
//! operators `not`, `or`, `and`, `distinct` and `<=` never used as relations.
//!
//! Following ggp-base's validator, `base` and `input` are treated like `init`; `role` may be
//! used in bodies (every game does), and GDL-II's `sees` may depend on `does`.

use super::{for_each_atom, for_each_term, quoted, Context, Place};
use crate::ast::Term;
use crate::diag::Diagnostic;
use std::collections::BTreeMap;

/// Symbols of the syntax, which can never name a relation.
const OPERATORS: &[&str] = &["not", "or", "and", "distinct", "<="];

/// The relation names GDL gives a meaning to; as function symbols they are suspicious.
pub(crate) const RELATION_KEYWORDS: &[&str] =
    &["role", "init", "true", "next", "legal", "does", "goal", "terminal", "base", "input", "sees", "distinct"];

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    placement(cx, out);
    dependencies(cx, out);
    functions(cx, out);
}

fn placement(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let mut roles: BTreeMap<String, ()> = BTreeMap::new();
    for_each_atom(cx.description, &mut |rule, atom, place| {
        let name = atom.name.as_str();
        let head = place == Place::Head;
        if OPERATORS.contains(&name) {
            let (message, hint) = if head {
                (
                    format!("`{name}` is an operator of GDL and cannot be the head of a rule or fact"),
                    "rename this relation",
                )
            } else {
                (
                    format!("`{name}` is an operator of GDL and cannot be used as a relation"),
                    "write `(not literal)`, `(distinct term term)`, `(or literal ...)` or `(and literal ...)`",
                )
            };
            out.push(Diagnostic::error(atom.span, message, hint));
            return;
        }
        match (name, head) {
            ("role", true) if !rule.is_fact() => out.push(Diagnostic::error(
                atom.span,
                "`role` is defined by a rule, but the roles of a game are fixed",
                "declare each role with a fact `(role name)`",
            )),
            ("role", true) => {
                if let [arg] = atom.args.as_slice() {
                    match arg {
                        Term::Const(r, _) if roles.insert(r.clone(), ()).is_some() => {
                            out.push(Diagnostic::warning(
                                atom.span,
                                format!("role `{r}` is declared twice"),
                                "remove the repeated `role` fact",
                            ));
                        }
                        Term::Func(..) => out.push(Diagnostic::error(
                            arg.span(),
                            format!("a role must be a name, not the compound term `{}`", quoted(arg)),
                            "declare the role as `(role name)`",
                        )),
                        _ => {}
                    }
                }
            }
            ("true", true) => out.push(Diagnostic::error(
                atom.span,
                "`true` cannot be the head of a rule: the current state is given by `init` and `next`",
                "to say what holds in the next state, write `(next ...)`; for the initial state, `(init ...)`",
            )),
            ("does", true) => out.push(Diagnostic::error(
                atom.span,
                "`does` cannot be the head of a rule: the moves are made by the players",
                "to say which moves are allowed, write `(legal ?role ?move)`",
            )),
            ("next", false) => out.push(Diagnostic::error(
                atom.span,
                "`next` cannot be used in a rule body: it is computed from the current state and the moves",
                "to test the current state, use `(true ...)`",
            )),
            ("init" | "base" | "input", false) => out.push(Diagnostic::error(
                atom.span,
                format!("`{name}` cannot be used in a rule body"),
                format!("to test the current state, use `(true ...)`; to share facts with `{name}`, define a relation of their own"),
            )),
            _ => {}
        }
    });
}

fn dependencies(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let forbidden: &[(&str, &[&str], &str)] = &[
        (
            "init",
            &["true", "does", "next", "legal", "goal", "terminal"],
            "the initial state is fixed: define `init` from facts and relations that do not depend on the state",
        ),
        (
            "base",
            &["true", "does", "next", "legal", "goal", "terminal"],
            "`base` lists every possible proposition: define it from relations that do not depend on the state",
        ),
        (
            "input",
            &["true", "does", "next", "legal", "goal", "terminal"],
            "`input` lists every possible move: define it from relations that do not depend on the state",
        ),
        ("legal", &["does"], "legal moves depend on the current state (`true`), never on the moves being made"),
        ("goal", &["does"], "goals depend on the current state (`true`), never on the moves being made"),
        ("terminal", &["does"], "termination depends on the current state (`true`), never on the moves being made"),
    ];
    for &(keyword, targets, hint) in forbidden {
        let Some(target) = targets.iter().find(|t| cx.deps.depends_on(keyword, t)) else {
            continue;
        };
        let Some((path, span)) = cx.use_path(keyword, target) else {
            continue;
        };
        out.push(Diagnostic::error(
            span,
            format!("`{keyword}` must not depend on `{target}`, but it does through {}", path.join(" -> ")),
            hint,
        ));
    }
}

fn functions(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for_each_term(cx.description, &mut |term| {
        let Term::Func(name, _, span) = term else {
            return;
        };
        if name == "does" {
            out.push(Diagnostic::error(
                *span,
                format!("`does` is used as a function in `{}`", quoted(term)),
                "`does` is a relation: write `(does ?role ?move)` as a literal of the rule body",
            ));
        } else if RELATION_KEYWORDS.contains(&name.as_str()) || OPERATORS.contains(&name.as_str()) {
            out.push(Diagnostic::warning(
                *span,
                format!("the keyword `{name}` is used as a function in `{}`", quoted(term)),
                format!("`{name}` has a meaning of its own in GDL; a function of another name avoids confusion"),
            ));
        }
    });
}

#[cfg(test)]
mod tests {
    use crate::check::tests::{render, GOOD};

    #[test]
    fn role_must_be_a_fact() {
        let src = format!("{GOOD}(<= (role y) (true (cell a)))\n");
        assert_eq!(
            render(&src),
            "bad.kif:9:5: error: `role` is defined by a rule, but the roles of a game are fixed\n  \
             hint: declare each role with a fact `(role name)`\n"
        );
    }

    #[test]
    fn true_and_does_are_never_heads() {
        let src = format!("{GOOD}(<= (true (cell b)) (succ a b))\n(does x (go a))\n");
        assert_eq!(
            render(&src),
            "bad.kif:9:5: error: `true` cannot be the head of a rule: the current state is given by `init` and \
             `next`\n  hint: to say what holds in the next state, write `(next ...)`; for the initial state, \
             `(init ...)`\n\
             bad.kif:10:1: error: `does` cannot be the head of a rule: the moves are made by the players\n  \
             hint: to say which moves are allowed, write `(legal ?role ?move)`\n"
        );
    }

    #[test]
    fn next_and_init_are_never_in_bodies() {
        let src = format!("{GOOD}(<= (p ?x) (next (cell ?x)) (init (cell ?x)))\n");
        assert_eq!(
            render(&src),
            "bad.kif:9:12: error: `next` cannot be used in a rule body: it is computed from the current state and \
             the moves\n  hint: to test the current state, use `(true ...)`\n\
             bad.kif:9:29: error: `init` cannot be used in a rule body\n  hint: to test the current state, use \
             `(true ...)`; to share facts with `init`, define a relation of their own\n"
        );
    }

    #[test]
    fn init_does_not_depend_on_the_state() {
        let src = format!("{GOOD}(<= (init (cell ?x)) (p ?x))\n(<= (p ?x) (true (cell ?x)))\n");
        assert_eq!(
            render(&src),
            "bad.kif:9:22: error: `init` must not depend on `true`, but it does through init -> p -> true\n  \
             hint: the initial state is fixed: define `init` from facts and relations that do not depend on the \
             state\n"
        );
    }

    #[test]
    fn legal_goal_and_terminal_do_not_depend_on_does() {
        let src = format!("{GOOD}(<= terminal (moved a))\n(<= (moved ?n) (does x (go ?n)))\n");
        assert_eq!(
            render(&src),
            "bad.kif:9:14: error: `terminal` must not depend on `does`, but it does through terminal -> moved -> \
             does\n  hint: termination depends on the current state (`true`), never on the moves being made\n"
        );
    }

    #[test]
    fn operators_are_not_relations_and_does_is_not_a_function() {
        let src = format!("{GOOD}(distinct a b)\n(<= (p ?n) (succ ?n (does x a)) not)\n(succ (true a) b)\n");
        assert_eq!(
            render(&src),
            "bad.kif:9:1: error: `distinct` is an operator of GDL and cannot be the head of a rule or fact\n  \
             hint: rename this relation\n\
             bad.kif:10:21: error: `does` is used as a function in `(does x a)`\n  \
             hint: `does` is a relation: write `(does ?role ?move)` as a literal of the rule body\n\
             bad.kif:10:33: error: `not` is an operator of GDL and cannot be used as a relation\n  \
             hint: write `(not literal)`, `(distinct term term)`, `(or literal ...)` or `(and literal ...)`\n\
             bad.kif:11:7: warning: the keyword `true` is used as a function in `(true a)`\n  \
             hint: `true` has a meaning of its own in GDL; a function of another name avoids confusion\n"
        );
    }

    #[test]
    fn gdl2_sees_may_depend_on_does() {
        let src = format!("{GOOD}(role random)\n(<= (sees x (moved ?n)) (does x (go ?n)))\n");
        assert_eq!(render(&src), "");
    }
}
