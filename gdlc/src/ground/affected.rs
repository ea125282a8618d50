//! Frames read through what a move affects: a `next` rule that keeps a fact while its role plays
//! any of many moves, each under conditions on the state that tie the move to the fact, becomes
//! a rule that keeps the fact while the role plays a move of that form and none that affects it.
//!
//! Take a frame `(<= (next F) (true F) B (does ?r M) C)`, where `C` are the literals that read a
//! variable of the move `M` that neither the head nor the role has. As every role plays exactly
//! one move a step, the rule holds when the role plays a move of `M`'s form and that move
//! violates no literal of `C`: `(<= (next F) (true F) B (does ?r M') (not ((affected k) K)))`,
//! `M'` being `M` with its own variables renamed and `K` the variables of the role and those of
//! the head and `B` that `C` reads, with one rule `(<= ((affected k) K) (does ?r M) c')` for
//! every literal of `C` and every way `c'` of denying it (a denied `distinct` unifies its two
//! sides), and the atoms of `(true F) B` that bind what `c'` reads. The role is in `K` so that
//! another role's move never hides it.
//!
//! Grounded, the frame as written reads every move of the form in the rules of every fact it
//! keeps (blobwars: every cell reads every jump that leaves it alone), so a move played changes
//! propositions of every fact; the rules that replace it read the form once ("the role jumps")
//! and each move only in the rules of the facts it affects. Only frames whose `C` reads the
//! state are rewritten: a static condition (`distinct`, breakthrough's `distinctCell`) is
//! decided while grounding, which then reads each move only where it matters. A rule stays as
//! written when a rule the rewriting makes would not be safe, when `B` has `or`, or when `C`
//! reads a variable of its own.

use crate::ast::{Atom, Description, Literal, Rule, Term};
use crate::unify::{rename_atom, rename_literal, unify};
use std::collections::{BTreeMap, BTreeSet};

/// The prefix of the new relations' names; with parentheses and a space, no symbol of a game
/// can spell them.
const AFFECTED: &str = "(affected";

/// The most ways of denying one literal of `C` (an `or` of many conjunctions multiplies them).
const MAX_DENIALS: usize = 16;

/// `description` with every `next` rule that qualifies read through what its move affects.
pub fn rewrite(description: Description) -> Description {
    let changing = changing(&description);
    let mut rules = Vec::with_capacity(description.rules.len());
    let mut made = 0;
    for rule in description.rules {
        match rewritten(&rule, made, &changing) {
            Some(new) => {
                made += 1;
                rules.extend(new);
            }
            None => rules.push(rule),
        }
    }
    Description { rules }
}

/// Whether grounding `description` reads some frame through what its move affects: whether
/// [`rewrite`] changes its rules as grounding prepares them.
pub fn rewrites_any(description: &Description) -> bool {
    let Ok(prepared) = crate::datalog::prepare(description) else { return false };
    let prepared = super::constant_fluents::fold(prepared);
    let changing = changing(&prepared);
    prepared.rules.iter().enumerate().any(|(k, rule)| rewritten(rule, k, &changing).is_some())
}

/// The relations of `description` that depend on the state.
fn changing(description: &Description) -> BTreeSet<String> {
    crate::graph::Dependencies::build(description).dependents_of(&["true"])
}

/// The rules that replace `rule`, the `k`-th rewritten, or `None` when it stays as written.
/// `changing` are the relations that depend on the state.
fn rewritten(rule: &Rule, k: usize, changing: &BTreeSet<String>) -> Option<Vec<Rule>> {
    // A frame: the rule keeps the fact it reads.
    let [fact] = rule.head.args.as_slice() else { return None };
    let keeps = |l: &Literal| matches!(l, Literal::Atom(a) if a.name == "true" && matches!(a.args.as_slice(), [t] if t.same_as(fact)));
    if rule.head.name != "next" || !rule.body.iter().any(keeps) {
        return None;
    }
    let at = the_move(&rule.body)?;
    let Literal::Atom(does) = &rule.body[at] else { return None };
    let [role, played] = does.args.as_slice() else { return None };
    let mut known = Vars::default();
    known.add_atom(&rule.head);
    known.add_term(role);
    let own: BTreeSet<String> = played.vars().into_iter().filter(|v| !known.set.contains(v)).collect();
    if own.is_empty() {
        return None;
    }
    let others = rule.body.iter().enumerate().filter(|&(i, _)| i != at).map(|(_, l)| l);
    let (tied, kept): (Vec<&Literal>, Vec<&Literal>) = others.partition(|l| l.vars().iter().any(|v| own.contains(v)));
    if !tied.iter().any(|l| reads_state(l, changing)) || !kept.iter().all(|l| is_plain(l)) {
        return None;
    }
    kept.iter().for_each(|l| known.add_literal(l));
    let foreign = |l: &&Literal| l.vars().iter().any(|v| !own.contains(v) && !known.set.contains(v));
    if tied.iter().any(foreign) {
        return None;
    }
    // The fact's variables that the tied literals read, and the role's: with two roles playing,
    // one move affecting the fact must not hide the other's that keeps it.
    let mut read = role.vars();
    tied.iter().for_each(|l| read.extend(l.vars()));
    let span = rule.span;
    let key = Atom {
        name: format!("{AFFECTED} {k})"),
        args: known.order.iter().filter(|v| read.contains(*v)).map(|v| Term::Var(v.clone(), span)).collect(),
        span,
    };
    let kept: Vec<Literal> = kept.into_iter().cloned().collect();
    let frame = frame_rule(rule, &kept, does, &own, &key);
    if !is_safe(&frame.head, &frame.body) {
        return None;
    }
    let mut rules = vec![frame];
    for literal in tied {
        for (denied, equal) in denials(literal)? {
            let mut unifier = BTreeMap::new();
            if !equal.iter().all(|(a, b)| unify(a, b, &own, &mut unifier)) {
                continue;
            }
            let mut body: Vec<Literal> = std::iter::once(Literal::Atom(does.clone())).chain(denied).collect();
            body = body.iter().map(|l| rename_literal(l, &unifier)).collect();
            let binders = kept.iter().map(|l| rename_literal(l, &unifier)).filter(|l| matches!(l, Literal::Atom(_)));
            let head = rename_atom(&key, &unifier);
            bind(&head, &mut body, binders.collect())?;
            rules.push(Rule { head, body, span });
        }
    }
    Some(rules)
}

/// Adds to `body` the atoms of `binders` (the positive atoms the rule kept, which hold wherever
/// the new rule is read) that bind the variables `head` and `body` need and nothing binds yet;
/// `None` when the rule stays unsafe.
fn bind(head: &Atom, body: &mut Vec<Literal>, binders: Vec<Literal>) -> Option<()> {
    let (needed, mut bound) = needed_and_bound(head, body)?;
    let mut at = 1;
    for binder in binders {
        if needed.iter().all(|v| bound.contains(v)) {
            break;
        }
        let vars = binder.vars();
        if vars.iter().any(|v| needed.contains(v) && !bound.contains(v)) {
            bound.extend(vars);
            body.insert(at, binder);
            at += 1;
        }
    }
    needed.is_subset(&bound).then_some(())
}

/// `(<= (next F) B (does ?r M') (not K))`: the role plays a move of the form, with the move's own
/// variables renamed apart, and none that affects the fact.
fn frame_rule(rule: &Rule, kept: &[Literal], does: &Atom, own: &BTreeSet<String>, key: &Atom) -> Rule {
    let mut taken = rule.head.vars();
    rule.body.iter().for_each(|l| taken.extend(l.vars()));
    let mut renamed = BTreeMap::new();
    for v in own {
        let mut fresh = format!("{v}_played");
        while taken.contains(&fresh) {
            fresh.push('_');
        }
        taken.insert(fresh.clone());
        renamed.insert(v.clone(), Term::Var(fresh, does.span));
    }
    let mut body = kept.to_vec();
    body.push(Literal::Atom(rename_atom(does, &renamed)));
    body.push(Literal::Not(Box::new(Literal::Atom(key.clone())), key.span));
    Rule { head: rule.head.clone(), body, span: rule.span }
}

/// The position of the body's one `does`, when it is a positive literal of its own and the
/// body reads no other.
fn the_move(body: &[Literal]) -> Option<usize> {
    let mut moves = 0;
    body.iter().for_each(|l| l.for_each_atom(false, &mut |a, _| moves += usize::from(a.name == "does")));
    let at = body.iter().position(|l| matches!(l, Literal::Atom(a) if a.name == "does"))?;
    (moves == 1).then_some(at)
}

/// Whether `literal` reads the state: `true`, or a relation of `changing`.
fn reads_state(literal: &Literal, changing: &BTreeSet<String>) -> bool {
    let mut reads = false;
    literal.for_each_atom(false, &mut |a, _| reads |= a.name == "true" || changing.contains(&a.name));
    reads
}

/// Whether `literal` is an atom, a negated atom or a `distinct`.
fn is_plain(literal: &Literal) -> bool {
    match literal {
        Literal::Atom(_) | Literal::Distinct(..) => true,
        Literal::Not(inner, _) => matches!(**inner, Literal::Atom(_)),
        Literal::Or(..) | Literal::And(..) => false,
    }
}

/// A way of denying a literal: the literals that then hold, and the pairs of terms that are
/// then equal.
type Denial = (Vec<Literal>, Vec<(Term, Term)>);

/// The ways of denying `literal`, or `None` when there are too many or it has a form this pass
/// leaves alone.
fn denials(literal: &Literal) -> Option<Vec<Denial>> {
    let denied = match literal {
        Literal::Atom(_) => vec![(vec![Literal::Not(Box::new(literal.clone()), literal.span())], Vec::new())],
        Literal::Not(inner, _) if is_plain(inner) => vec![(vec![(**inner).clone()], Vec::new())],
        Literal::Not(..) => return None,
        Literal::Distinct(a, b, _) => vec![(Vec::new(), vec![(a.clone(), b.clone())])],
        // Denying an "or" denies each of its literals.
        Literal::Or(ls, _) => ls.iter().try_fold(vec![(Vec::new(), Vec::new())], |ways: Vec<Denial>, l| {
            let each = denials(l)?;
            let product: Vec<Denial> = ways
                .iter()
                .flat_map(|(held, equal)| {
                    each.iter()
                        .map(move |(h, e)| ([held.clone(), h.clone()].concat(), [equal.clone(), e.clone()].concat()))
                })
                .collect();
            (product.len() <= MAX_DENIALS).then_some(product)
        })?,
        // Denying an "and" denies one of its literals.
        Literal::And(ls, _) => ls.iter().map(denials).collect::<Option<Vec<_>>>()?.concat(),
    };
    (denied.len() <= MAX_DENIALS).then_some(denied)
}

/// Whether every variable of `head`, of the negated literals of `body` and of its `distinct`s
/// occurs in a positive atom of `body`.
fn is_safe(head: &Atom, body: &[Literal]) -> bool {
    needed_and_bound(head, body).is_some_and(|(needed, bound)| needed.is_subset(&bound))
}

/// The variables that `head` and the negated literals and `distinct`s of `body` need bound,
/// and those its positive atoms bind; `None` for a body with `or` or `and`, which the rules
/// this pass makes never have.
fn needed_and_bound(head: &Atom, body: &[Literal]) -> Option<(BTreeSet<String>, BTreeSet<String>)> {
    let mut needed = head.vars();
    let mut bound = BTreeSet::new();
    for literal in body {
        match literal {
            Literal::Atom(a) => bound.extend(a.vars()),
            Literal::Not(..) | Literal::Distinct(..) => needed.extend(literal.vars()),
            Literal::Or(..) | Literal::And(..) => return None,
        }
    }
    Some((needed, bound))
}

/// Variables in the order they are first met, and as a set.
#[derive(Default)]
struct Vars {
    order: Vec<String>,
    set: BTreeSet<String>,
}

impl Vars {
    fn add(&mut self, var: &str) {
        if self.set.insert(var.to_string()) {
            self.order.push(var.to_string());
        }
    }

    fn add_term(&mut self, term: &Term) {
        term.for_each_var(&mut |v, _| self.add(v));
    }

    fn add_atom(&mut self, atom: &Atom) {
        atom.for_each_var(&mut |v, _| self.add(v));
    }

    fn add_literal(&mut self, literal: &Literal) {
        literal.for_each_var(&mut |v, _| self.add(v));
    }
}

#[cfg(test)]
mod tests;
