//! The forms of literals and values: `not` applies to one atomic sentence (Def. 4);
//! `(not (distinct s t))`, which means `s = t`, is tolerated with a warning; and goal values
//! in `goal` heads should be integers from 0 to 100 (section 6.8).

use super::{for_each_literal, quoted, Context, LiteralText};
use crate::ast::{Literal, Term};
use crate::diag::Diagnostic;

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for rule in &cx.description.rules {
        for_each_literal(&rule.body, &mut |l| {
            let Literal::Not(inner, span) = l else { return };
            match &**inner {
                Literal::Atom(_) => {}
                Literal::Distinct(a, b, _) => out.push(Diagnostic::warning(
                    *span,
                    format!(
                        "`{}` is not standard GDL; it is read as `{}` equals `{}`",
                        quoted(&LiteralText(l)),
                        quoted(a),
                        quoted(b)
                    ),
                    "write the same term in both places instead, or test equality with a relation like `(same ?x ?x)`",
                )),
                Literal::Not(..) | Literal::Or(..) | Literal::And(..) => out.push(Diagnostic::error(
                    *span,
                    format!("`not` must apply to an atomic sentence, not to `{}`", quoted(&LiteralText(inner))),
                    "negate each atom on its own, or define a relation for the compound condition and negate that",
                )),
            }
        });
        if rule.head.name == "goal" {
            if let [_, value] = rule.head.args.as_slice() {
                let valid = match value {
                    Term::Var(..) => true,
                    Term::Const(c, _) => c.parse::<u32>().is_ok_and(|v| v <= 100),
                    Term::Func(..) => false,
                };
                if !valid {
                    out.push(Diagnostic::warning(
                        value.span(),
                        format!("the goal value `{}` is not an integer from 0 to 100", quoted(value)),
                        "goal values are integers from 0 (worst) to 100 (best)",
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::check::tests::{render, GOOD};

    #[test]
    fn negation_applies_to_atoms() {
        let src = format!("{GOOD}(<= (p ?n) (succ ?n ?m) (not (or (succ ?m a) (succ a ?m))))\n");
        assert_eq!(
            render(&src),
            "bad.kif:9:25: error: `not` must apply to an atomic sentence, not to `(or (succ ?m a) (succ a ?m))`\n  \
             hint: negate each atom on its own, or define a relation for the compound condition and negate that\n"
        );
    }

    #[test]
    fn negated_distinct_is_a_warning() {
        let src = format!("{GOOD}(<= (p ?n) (succ ?n ?m) (not (distinct ?m b)))\n");
        assert_eq!(
            render(&src),
            "bad.kif:9:25: warning: `(not (distinct ?m b))` is not standard GDL; it is read as `?m` equals `b`\n  \
             hint: write the same term in both places instead, or test equality with a relation like `(same ?x ?x)`\n"
        );
    }

    #[test]
    fn goal_values_are_integers_up_to_100() {
        let src = format!("{GOOD}(goal x high)\n(goal x 101)\n(goal x (f 1))\n(goal x 050)\n");
        assert_eq!(
            render(&src),
            "bad.kif:9:9: warning: the goal value `high` is not an integer from 0 to 100\n  \
             hint: goal values are integers from 0 (worst) to 100 (best)\n\
             bad.kif:10:9: warning: the goal value `101` is not an integer from 0 to 100\n  \
             hint: goal values are integers from 0 (worst) to 100 (best)\n\
             bad.kif:11:9: warning: the goal value `(f 1)` is not an integer from 0 to 100\n  \
             hint: goal values are integers from 0 (worst) to 100 (best)\n"
        );
    }
}
