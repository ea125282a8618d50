//! Deferral: which relations of a game too large to ground are deferred to run time, where
//! `gdl_runtime::prover` searches them top-down, and the order in which each of their rules is
//! searched. (The specification's checks are [`crate::check`]'s; these are not checks at all.)
//!
//! A relation can be checked when its rules read only the state (`true`), static relations,
//! `distinct` and other checked relations, and when every rule that is grounded binds all its
//! arguments before asking for it (a negation always does). The grounded rules then read it as
//! one literal per ground atom, and it is searched top-down with those arguments bound. Its
//! rules' heads, calls and `distinct`s may hold compound terms (lists, say), which the search
//! builds and takes apart; the static relations and state facts it reads are tables of symbols,
//! so those literals' arguments must be symbols and variables. Inside checked rules, a call may
//! leave arguments free; a recursive relation called so has its recursive group *tabled* (see
//! `gdl_runtime::prover`), which keeps the search finite, and one always called with all its
//! arguments bound fails on a call that repeats a caller. The set is the largest that meets
//! these conditions.
//!
//! Before decomposition, a grounded rule may ask for a checked relation with arguments whose
//! variables occur nowhere else in the rule (hex's far end of a connection): [`absorb`] then
//! folds that literal into a new checked relation of the variables it shares, which the rule
//! binds.

use super::decompose::to_literal;
use crate::ast::{Atom, Description, Literal, Span, Term};
use crate::check::keywords::RELATION_KEYWORDS;
use crate::datalog::compile::{dnf, product, Basic};
use crate::graph::Dependencies;
use std::collections::{BTreeMap, BTreeSet};

/// One rule alternative: its head and its body in disjunctive normal form.
pub(crate) struct Rule<'r, 'a> {
    pub head: &'a Atom,
    pub body: &'r [Basic<'a>],
}

/// The checked relations and the orders of their rules.
#[derive(Debug, Default)]
pub struct Plan {
    /// For every checked relation: whether it is recursive, and for every pattern of bound
    /// arguments it is called with, every alternative (by index) with its body order.
    pub relations: BTreeMap<String, Checked>,
}

#[derive(Debug, Default)]
pub struct Checked {
    pub recursive: bool,
    /// Whether its calls are tabled: its recursive group is called with free arguments.
    pub tabled: bool,
    pub variants: BTreeMap<u64, Vec<(usize, Vec<usize>)>>,
}

/// The largest set of relations that can be checked at run time, among those of `eligible`
/// when it is given, with their orders. With `foldable`, a grounded rule may leave free the
/// variables of a checked literal that occur nowhere else in it (see [`absorb`], which folds
/// such literals before grounding).
pub(crate) fn plan(
    rules: &[Rule<'_, '_>],
    dynamic: &BTreeSet<String>,
    eligible: Option<&BTreeSet<String>>,
    deps: &Dependencies,
    foldable: bool,
) -> Plan {
    let mut candidates: BTreeSet<&str> = rules
        .iter()
        .map(|r| r.head.name.as_str())
        .filter(|&name| dynamic.contains(name) && !RELATION_KEYWORDS.contains(&name))
        .filter(|&name| eligible.is_none_or(|eligible| eligible.contains(name)))
        .collect();
    // Syntactic conditions, rule by rule.
    for rule in rules {
        if candidates.contains(rule.head.name.as_str()) && !checkable_rule(rule, dynamic) {
            debug(&format!("not checkable: {}", rule.head.name));
            candidates.remove(rule.head.name.as_str());
        }
    }
    loop {
        // A checked rule reads only the state, static relations and checked relations.
        loop {
            let before = candidates.len();
            for rule in rules {
                let name = rule.head.name.as_str();
                if candidates.contains(name)
                    && atoms(rule)
                        .any(|a| a.name != "true" && dynamic.contains(&a.name) && !candidates.contains(a.name.as_str()))
                {
                    debug(&format!("reads a grounded relation: {name}"));
                    candidates.remove(name);
                }
            }
            if candidates.len() == before {
                break;
            }
        }
        match orders(rules, &candidates, deps, foldable, &|_: &Atom, _: u64| None) {
            Ok(relations) => return Plan { relations },
            Err(failed) => {
                debug(&format!("cannot be ordered: {failed}"));
                candidates.remove(failed.as_str());
            }
        }
    }
}

fn atoms<'r, 'a>(rule: &'r Rule<'_, 'a>) -> impl Iterator<Item = &'a Atom> + 'r {
    rule.body.iter().filter_map(|b| match *b {
        Basic::Pos(a) | Basic::Neg(a) => Some(a),
        _ => None,
    })
}

fn flat(term: &Term) -> bool {
    matches!(term, Term::Var(..) | Term::Const(..))
}

/// Whether a rule does not read the joint move, and reads tables (the state's facts, a function
/// of symbols and variables, and static relations) with symbols and variables only.
fn checkable_rule(rule: &Rule<'_, '_>, dynamic: &BTreeSet<String>) -> bool {
    let fact_ok = |t: &Term| match t {
        Term::Func(_, args, _) => args.iter().all(flat),
        _ => flat(t),
    };
    rule.body.iter().all(|b| match *b {
        Basic::Pos(a) | Basic::Neg(a) if a.name == "does" => false,
        Basic::Pos(a) | Basic::Neg(a) if a.name == "true" => a.args.len() == 1 && fact_ok(&a.args[0]),
        Basic::Pos(a) | Basic::Neg(a) if !dynamic.contains(&a.name) => a.args.iter().all(flat),
        _ => true,
    })
}

fn bound_mask(atom: &Atom, bound: &BTreeSet<String>) -> u64 {
    atom.args.iter().enumerate().fold(0, |mask, (i, t)| if t.vars().is_subset(bound) { mask | 1 << i } else { mask })
}

fn full(arity: usize) -> u64 {
    if arity >= 64 {
        u64::MAX
    } else {
        (1 << arity) - 1
    }
}

/// The mean number of rows of a static relation that a lookup with the arguments of a mask bound
/// finds, once the static relations are known; `None` for other literals, or before.
pub(crate) type Fanout<'f> = dyn Fn(&Atom, u64) -> Option<f64> + 'f;

/// A static relation whose lookups find more rows than this on average is looked up after the
/// calls that can bind its arguments instead: chess's `(different_cells ?cx ?cy ?u ?v)` with
/// `?cx ?cy` bound finds 255 cells, where the call it preceded finds the two or three squares
/// of the opponent's pieces that attack the king.
const LARGE_FANOUT: f64 = 16.0;

/// The plan's checked relations ordered again, now that `fanout` knows the static relations'
/// sizes (see [`order_body`]); the plan itself when they cannot be.
pub(crate) fn reorder(plan: Plan, rules: &[Rule<'_, '_>], deps: &Dependencies, fanout: &Fanout<'_>) -> Plan {
    let checked: BTreeSet<&str> = plan.relations.keys().map(String::as_str).collect();
    match orders(rules, &checked, deps, false, fanout) {
        Ok(relations) if relations.keys().eq(plan.relations.keys()) => Plan { relations },
        _ => plan,
    }
}

/// Orders every checked rule for every pattern it is called with, or names a relation that
/// cannot be checked.
fn orders(
    rules: &[Rule<'_, '_>],
    checked: &BTreeSet<&str>,
    deps: &Dependencies,
    foldable: bool,
    fanout: &Fanout<'_>,
) -> Result<BTreeMap<String, Checked>, String> {
    let mut queue: Vec<(String, u64)> = Vec::new();
    // The grounded rules bind everything their other positive literals bind.
    for rule in rules.iter().filter(|r| !checked.contains(r.head.name.as_str())) {
        let mut bound = BTreeSet::new();
        for b in rule.body {
            if let Basic::Pos(a) = *b {
                if !checked.contains(a.name.as_str()) {
                    a.args.iter().for_each(|t| t.vars_into(&mut bound));
                }
            }
        }
        for (j, b) in rule.body.iter().enumerate() {
            let (Basic::Pos(a) | Basic::Neg(a)) = *b else { continue };
            if !checked.contains(a.name.as_str()) {
                continue;
            }
            let free: BTreeSet<String> = a.vars().difference(&bound).cloned().collect();
            // Variables of this literal alone, which absorbing it into a new relation hides.
            let private = foldable && matches!(b, Basic::Pos(_)) && free.iter().all(|v| only_in(rule, j, v));
            if a.args.len() > 64 || !(free.is_empty() || private) {
                debug(&format!("{} reads {} {:?} with {:?} bound", rule.head.name, a.name, a.vars(), bound));
                return Err(a.name.clone());
            }
            queue.push((a.name.clone(), bound_mask(a, &bound)));
        }
    }
    let mut by_head: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, rule) in rules.iter().enumerate() {
        by_head.entry(rule.head.name.as_str()).or_default().push(i);
    }
    let mut result: BTreeMap<String, Checked> = BTreeMap::new();
    while let Some((name, mask)) = queue.pop() {
        let entry = result.entry(name.clone()).or_default();
        entry.recursive = deps.is_recursive(&name);
        if entry.variants.contains_key(&mask) {
            continue;
        }
        let mut ordered = Vec::new();
        for &i in by_head.get(name.as_str()).map(Vec::as_slice).unwrap_or(&[]) {
            let rule = &rules[i];
            let mut head_bound = BTreeSet::new();
            for (k, t) in rule.head.args.iter().enumerate() {
                if mask >> k & 1 != 0 {
                    t.vars_into(&mut head_bound);
                }
            }
            let order = order_body(rule, head_bound.clone(), checked, deps, fanout).ok_or_else(|| {
                debug(&format!("{name} with bound {mask:b}: no order for a rule {:?}", rule.body.len()));
                name.clone()
            })?;
            // The calls' patterns: what the head and the literals before each call bind.
            let mut bound = head_bound;
            for &j in &order {
                if let Basic::Pos(a) | Basic::Neg(a) = rule.body[j] {
                    if checked.contains(a.name.as_str()) {
                        queue.push((a.name.clone(), bound_mask(a, &bound)));
                    }
                }
                if let Basic::Pos(a) = rule.body[j] {
                    a.args.iter().for_each(|t| t.vars_into(&mut bound));
                }
            }
            ordered.push((i, order));
        }
        result.get_mut(&name).expect("entered above").variants.insert(mask, ordered);
    }
    // A recursive group called with free arguments somewhere is tabled.
    let arity = |name: &str| rules.iter().find(|r| r.head.name == name).map_or(0, |r| r.head.args.len());
    let free_calls: Vec<&String> = result
        .iter()
        .filter(|(name, entry)| entry.recursive && entry.variants.keys().any(|&m| m != full(arity(name))))
        .map(|(name, _)| name)
        .collect();
    let tabled: BTreeSet<String> = result
        .iter()
        .filter(|(name, entry)| entry.recursive && free_calls.iter().any(|other| deps.same_component(name, other)))
        .map(|(name, _)| name.clone())
        .collect();
    for (name, entry) in &mut result {
        entry.tabled = tabled.contains(name);
    }
    Ok(result)
}

/// Whether variable `v` occurs in no literal of `rule` but the `j`th, nor in its head.
fn only_in(rule: &Rule<'_, '_>, j: usize, v: &str) -> bool {
    !rule.head.vars().contains(v)
        && rule.body.iter().enumerate().all(|(k, b)| {
            k == j || {
                let mut of = BTreeSet::new();
                match *b {
                    Basic::Pos(a) | Basic::Neg(a) => a.args.iter().for_each(|t| t.vars_into(&mut of)),
                    Basic::Distinct(x, y) | Basic::Equal(x, y) => {
                        x.vars_into(&mut of);
                        y.vars_into(&mut of);
                    }
                }
                !of.contains(v)
            }
        })
}

/// A search order of a checked rule's body given its bound variables: tests as soon as their
/// variables are bound, then the generator that binds from the most bound arguments (tables
/// before calls, but a static relation with a [`LARGE_FANOUT`] after the calls that bind
/// arguments). `None` when some literal can never be reached with its variables bound.
fn order_body(
    rule: &Rule<'_, '_>,
    mut bound: BTreeSet<String>,
    checked: &BTreeSet<&str>,
    deps: &Dependencies,
    fanout: &Fanout<'_>,
) -> Option<Vec<usize>> {
    let mut left: Vec<usize> = (0..rule.body.len()).collect();
    let mut order = Vec::new();
    while !left.is_empty() {
        let mut best: Option<(usize, (u8, usize))> = None;
        for (slot, &j) in left.iter().enumerate() {
            let (needed, score) = match rule.body[j] {
                Basic::Distinct(x, y) | Basic::Equal(x, y) => {
                    let mut v = BTreeSet::new();
                    x.vars_into(&mut v);
                    y.vars_into(&mut v);
                    (v.is_subset(&bound), (5, 0))
                }
                Basic::Neg(a) => (a.vars().is_subset(&bound), (5, 0)),
                Basic::Pos(a) => {
                    let all = a.vars().is_subset(&bound);
                    let is_call = checked.contains(a.name.as_str());
                    let mask = bound_mask(a, &bound);
                    let bound_args = mask.count_ones() as usize;
                    if all {
                        (true, (5, 0))
                    } else if !is_call && fanout(a, mask).is_some_and(|rows| rows > LARGE_FANOUT) {
                        (true, (2, bound_args))
                    } else if is_call && bound_args == 0 {
                        // Last: a call with nothing bound enumerates its whole relation.
                        (true, (0, 0))
                    } else if is_call && deps.is_recursive(&a.name) {
                        // After the other calls, the one with the fewest free arguments first:
                        // a recursive call with free arguments is tabled, and one that leaves
                        // free an argument another call would bind (the list a connection
                        // carries) may enumerate every value of it.
                        (true, (1, usize::MAX - (a.args.len() - bound_args)))
                    } else if is_call {
                        (true, (3, bound_args))
                    } else {
                        (true, (4, bound_args))
                    }
                }
            };
            if needed && best.is_none_or(|(_, s)| score > s) {
                best = Some((slot, score));
            }
        }
        let (slot, _) = best?;
        let j = left.remove(slot);
        if let Basic::Pos(a) = rule.body[j] {
            a.args.iter().for_each(|t| t.vars_into(&mut bound));
        }
        order.push(j);
    }
    Some(order)
}

fn debug(message: &str) {
    if std::env::var_os("GDLC_DEBUG_CHECKS").is_some() {
        eprintln!("checks: {message}");
    }
}

/// Folds into a new checked relation every checked literal of a grounded rule together with the
/// literals over variables only they share (the king's square that a check test looks up), so
/// that the grounded rule is instantiated without those variables. The new relations, named
/// `(check K)`, are added to `checked` and `dynamic`. Rules come back in disjunctive normal form.
pub fn absorb(
    description: &Description,
    checked: &mut BTreeSet<String>,
    dynamic: &mut BTreeSet<String>,
) -> Description {
    let span = Span::default();
    let mut out = Vec::new();
    let mut made = 0;
    for rule in &description.rules {
        for conjunction in product(rule.body.iter().map(|l| dnf(l, false))) {
            let mut body: Vec<Literal> = conjunction.iter().map(to_literal).collect();
            if !checked.contains(&rule.head.name) {
                while let Some((group, exported)) = absorbable(&rule.head, &body, checked, dynamic) {
                    let name = format!("(check {made})");
                    made += 1;
                    let head = Atom {
                        name: name.clone(),
                        args: exported.iter().map(|v| Term::Var(v.clone(), span)).collect(),
                        span,
                    };
                    let moved: Vec<Literal> = group.iter().map(|&j| body[j].clone()).collect();
                    out.push(crate::ast::Rule { head: head.clone(), body: moved, span });
                    body = body.into_iter().enumerate().filter(|(j, _)| !group.contains(j)).map(|(_, l)| l).collect();
                    body.push(Literal::Atom(head));
                    checked.insert(name.clone());
                    dynamic.insert(name);
                }
            }
            out.push(crate::ast::Rule { head: rule.head.clone(), body, span: rule.span });
        }
    }
    Description { rules: out }
}

fn literal_atom(literal: &Literal) -> Option<&Atom> {
    match literal {
        Literal::Atom(a) => Some(a),
        Literal::Not(inner, _) => literal_atom(inner),
        _ => None,
    }
}

/// A checked literal of `body` with the literals over its private variables, and the
/// variables the group shares with the rest, when folding them is possible and useful.
fn absorbable(
    head: &Atom,
    body: &[Literal],
    checked: &BTreeSet<String>,
    dynamic: &BTreeSet<String>,
) -> Option<(Vec<usize>, Vec<String>)> {
    let head_vars = head.vars();
    // Literals a checked relation may read: the state, static relations, checked relations.
    let foldable = |l: &Literal| match literal_atom(l) {
        Some(a) => a.name == "true" || !dynamic.contains(&a.name) || checked.contains(&a.name),
        None => true,
    };
    let is_checked = |l: &Literal| literal_atom(l).is_some_and(|a| checked.contains(&a.name));
    let vars_of: Vec<BTreeSet<String>> = body.iter().map(Literal::vars).collect();
    for seed in (0..body.len()).filter(|&j| is_checked(&body[j])) {
        let fixed: BTreeSet<String> = (0..body.len())
            .filter(|&j| !foldable(&body[j]))
            .flat_map(|j| vars_of[j].iter().cloned())
            .chain(head_vars.iter().cloned())
            .collect();
        let mut group = vec![seed];
        let mut private: BTreeSet<String> = vars_of[seed].difference(&fixed).cloned().collect();
        if private.is_empty() {
            continue;
        }
        loop {
            let before = group.len();
            for j in 0..body.len() {
                if !group.contains(&j) && foldable(&body[j]) && !vars_of[j].is_disjoint(&private) {
                    group.push(j);
                    private.extend(vars_of[j].difference(&fixed).cloned());
                }
            }
            if group.len() == before {
                break;
            }
        }
        group.sort_unstable();
        if group.len() == body.len() {
            // Folding the whole body gains nothing, unless the checked literal has variables of
            // its own, which the rule could not bind: then it is folded alone.
            let others: BTreeSet<&String> =
                (0..body.len()).filter(|&j| j != seed).flat_map(|j| vars_of[j].iter()).collect();
            let own = vars_of[seed].iter().any(|v| !head_vars.contains(v) && !others.contains(v));
            if !own || !matches!(&body[seed], Literal::Atom(_)) {
                continue;
            }
            group = vec![seed];
        }
        let inside: BTreeSet<String> = group.iter().flat_map(|&j| vars_of[j].iter().cloned()).collect();
        let outside: BTreeSet<String> = (0..body.len())
            .filter(|j| !group.contains(j))
            .flat_map(|j| vars_of[j].iter().cloned())
            .chain(head_vars.iter().cloned())
            .collect();
        let exported: Vec<String> = inside.intersection(&outside).cloned().collect();
        // The rest must bind the exported variables with positive grounded atoms.
        let bound: BTreeSet<String> = (0..body.len())
            .filter(|j| !group.contains(j))
            .filter(|&j| matches!(&body[j], Literal::Atom(a) if !checked.contains(&a.name)))
            .flat_map(|j| vars_of[j].iter().cloned())
            .collect();
        if exported.len() <= 64 && exported.iter().all(|v| bound.contains(v)) {
            return Some((group, exported));
        }
    }
    None
}
