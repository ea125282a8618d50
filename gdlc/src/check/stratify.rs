//! Stratification (Def. 8): no cycle of the dependency graph passes through a negated use.

use super::{quoted, Context};
use crate::ast::{Atom, Rule, Span};
use crate::diag::Diagnostic;

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(names) = cx.deps.negative_cycle().filter(|n| n.len() >= 2) else {
        return;
    };
    // `names` follows the edges body -> head from the negated use's body relation back to it:
    // `[q, p, r, q]` for `p` using `(not q)`, `r` using `p` and `q` using `r`.
    let cycle = &names[..names.len() - 1];
    let negated = cycle[0].as_str();
    let head = cycle[1 % cycle.len()].as_str();
    // Written in the direction of "uses": p -> not q -> r -> p.
    let mut steps = vec![head.to_string(), format!("not {negated}")];
    if cycle.len() > 1 {
        steps.extend(cycle[2..].iter().rev().cloned());
        steps.push(head.to_string());
    }
    // The negated use, in the first rule for `head` that has one.
    let mut found: Option<(&Rule, &Atom)> = None;
    for rule in cx.description.rules.iter().filter(|r| r.head.name == head) {
        rule.for_each_body_atom(&mut |atom, neg| {
            if neg && atom.name == negated && found.is_none() {
                found = Some((rule, atom));
            }
        });
        if found.is_some() {
            break;
        }
    }
    let span = found.map_or(Span::default(), |(_, atom)| atom.span);
    if let Some((_, split)) = crate::split::stratify_by_splitting(cx.description) {
        out.push(Diagnostic::warning(
            span,
            format!(
                "`{head}` depends on its own negation through the cycle {}; it is evaluated per value of its \
                 argument {}, which is stratified",
                steps.join(" -> "),
                split.position + 1
            ),
            format!("for engines that stratify whole relations, negate a helper relation instead of `{head}`"),
        ));
        return;
    }
    let hint = match found {
        Some((rule, atom)) if negated == head => format!(
            "GDL stratifies whole relations, so a rule for `{}` cannot test `(not {})`; \
             negate a helper relation that does not depend on `{head}` instead",
            quoted(&rule.head),
            quoted(atom)
        ),
        _ => format!(
            "GDL forbids recursion through `not`; define `{head}` without negating a relation that depends on it"
        ),
    };
    out.push(Diagnostic::error(
        span,
        format!(
            "the rules are not stratified: `{head}` depends on its own negation through the cycle {}",
            steps.join(" -> ")
        ),
        hint,
    ));
}

#[cfg(test)]
mod tests {
    use crate::check::tests::{render, GOOD};

    #[test]
    fn names_the_cycle_through_negation() {
        let src = format!("{GOOD}(<= (p ?n) (succ ?n ?m) (not (q ?m)))\n(<= (q ?n) (r ?n))\n(<= (r ?n) (p ?n))\n");
        assert_eq!(
            render(&src),
            "bad.kif:9:30: error: the rules are not stratified: `p` depends on its own negation through the cycle \
             p -> not q -> r -> p\n  hint: GDL forbids recursion through `not`; define `p` without negating a \
             relation that depends on it\n"
        );
    }

    #[test]
    fn names_a_direct_self_negation() {
        let src = format!("{GOOD}(<= (p ?n) (succ ?n ?m) (not (p ?m)))\n");
        assert_eq!(
            render(&src),
            "bad.kif:9:30: error: the rules are not stratified: `p` depends on its own negation through the cycle \
             p -> not p\n  hint: GDL stratifies whole relations, so a rule for `(p ?n)` cannot test `(not (p ?m))`; \
             negate a helper relation that does not depend on `p` instead\n"
        );
    }

    #[test]
    fn a_goal_value_negating_another_is_a_warning() {
        let src = format!("{GOOD}(<= (goal x 50) (not (goal x 100)))\n");
        let out = render(&src);
        assert!(
            out.contains(
                "warning: `goal` depends on its own negation through the cycle goal -> not goal; it is evaluated per \
                 value of its argument 2, which is stratified\n  hint: for engines that stratify whole relations, \
                 negate a helper relation instead of `goal`"
            ),
            "{out}"
        );
        assert!(!out.contains("error"), "{out}");
    }

    #[test]
    fn negation_outside_cycles_is_fine() {
        let src = format!("{GOOD}(<= (p ?n) (succ ?n ?m) (not (q ?m)))\n(<= (q ?n) (succ ?n ?n))\n");
        assert_eq!(render(&src), "");
    }
}
