//! Arities (Defs. 1 and 16): the keyword relations have their fixed arities, and every other
//! relation and every function symbol is used with one arity everywhere.
//!
//! Relations and functions are separate name spaces, and an object constant is not a function
//! of arity zero: using one name as a relation and a function, or as a constant and a function,
//! is accepted (real games do both), as ggp-base's validator does.

use super::{arguments, for_each_atom, for_each_term, quoted, Context};
use crate::ast::Term;
use crate::diag::Diagnostic;
use std::collections::{BTreeMap, BTreeSet};

/// The keyword relations, their arity and how a use is written.
const KEYWORD_ARITIES: &[(&str, usize, &str)] = &[
    ("role", 1, "(role name)"),
    ("init", 1, "(init proposition)"),
    ("true", 1, "(true proposition)"),
    ("next", 1, "(next proposition)"),
    ("legal", 2, "(legal ?role ?move)"),
    ("does", 2, "(does ?role ?move)"),
    ("goal", 2, "(goal ?role value)"),
    ("terminal", 0, "terminal"),
    ("base", 1, "(base proposition)"),
    ("input", 2, "(input ?role ?move)"),
    ("sees", 2, "(sees ?role percept)"),
];

/// Reported by `keywords`, which never lets them stand as relations.
const OPERATORS: &[&str] = &["not", "or", "and", "distinct", "<="];

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    // The first use of every relation and function: its arity and text.
    let mut relations: BTreeMap<&str, (usize, String)> = BTreeMap::new();
    let mut reported: BTreeSet<(&str, usize)> = BTreeSet::new();
    for_each_atom(cx.description, &mut |_, atom, _| {
        let name = atom.name.as_str();
        if OPERATORS.contains(&name) {
            return;
        }
        if let Some(&(_, arity, form)) = KEYWORD_ARITIES.iter().find(|k| k.0 == name) {
            if atom.arity() != arity {
                out.push(Diagnostic::error(
                    atom.span,
                    format!("`{name}` takes {}, but is used here with {}", arguments(arity), atom.arity()),
                    format!("write `{form}`"),
                ));
            }
            return;
        }
        let (first, text) = relations.entry(name).or_insert_with(|| (atom.arity(), quoted(atom)));
        if *first != atom.arity() && reported.insert((name, atom.arity())) {
            out.push(Diagnostic::error(
                atom.span,
                format!(
                    "relation `{name}` is used with {} here, but with {} in its first use, `{text}`",
                    arguments(atom.arity()),
                    arguments(*first)
                ),
                "a relation has the same number of arguments everywhere; give the other relation its own name",
            ));
        }
    });

    let mut functions: BTreeMap<&str, (usize, String)> = BTreeMap::new();
    let mut reported: BTreeSet<(&str, usize)> = BTreeSet::new();
    for_each_term(cx.description, &mut |term| {
        let Term::Func(name, args, span) = term else {
            return;
        };
        let (first, text) = functions.entry(name).or_insert_with(|| (args.len(), quoted(term)));
        if *first != args.len() && reported.insert((name, args.len())) {
            out.push(Diagnostic::error(
                *span,
                format!(
                    "function `{name}` is used with {} here, but with {} in its first use, `{text}`",
                    arguments(args.len()),
                    arguments(*first)
                ),
                "a function symbol has the same number of arguments everywhere; give the other function its own name",
            ));
        }
    });
}

#[cfg(test)]
mod tests {
    use crate::check::tests::{render, GOOD};

    #[test]
    fn keyword_relations_have_fixed_arities() {
        let src = format!("{GOOD}(<= (legal x) (true (cell a) b))\n(<= (terminal a) (true (cell a)))\n");
        assert_eq!(
            render(&src),
            "bad.kif:9:5: error: `legal` takes 2 arguments, but is used here with 1\n  \
             hint: write `(legal ?role ?move)`\n\
             bad.kif:9:15: error: `true` takes 1 argument, but is used here with 2\n  \
             hint: write `(true proposition)`\n\
             bad.kif:10:5: error: `terminal` takes no arguments, but is used here with 1\n  \
             hint: write `terminal`\n"
        );
    }

    #[test]
    fn relations_have_one_arity() {
        let src = format!("{GOOD}(<= (p a) (succ a b b))\n(<= (p a b) (succ a))\n");
        assert_eq!(
            render(&src),
            "bad.kif:9:11: error: relation `succ` is used with 3 arguments here, but with 2 arguments in its first use, \
             `(succ a b)`\n  hint: a relation has the same number of arguments everywhere; give the other relation \
             its own name\n\
             bad.kif:10:5: error: relation `p` is used with 2 arguments here, but with 1 argument in its first use, `(p a)`\n  \
             hint: a relation has the same number of arguments everywhere; give the other relation its own name\n\
             bad.kif:10:13: error: relation `succ` is used with 1 argument here, but with 2 arguments in its first use, \
             `(succ a b)`\n  hint: a relation has the same number of arguments everywhere; give the other relation \
             its own name\n"
        );
    }

    #[test]
    fn functions_have_one_arity_but_may_also_be_constants_or_relations() {
        let src = format!("{GOOD}(init (cell (f a)))\n(init (cell (f a b)))\n(succ cell (f (f b)))\n(init (cell f))\n");
        assert_eq!(
            render(&src),
            "bad.kif:10:13: error: function `f` is used with 2 arguments here, but with 1 argument in its first use, `(f a)`\n  \
             hint: a function symbol has the same number of arguments everywhere; give the other function its own \
             name\n"
        );
    }
}
