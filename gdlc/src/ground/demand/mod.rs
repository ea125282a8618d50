//! Demand restriction of the relaxed program: a magic-sets rewrite after which a relation is
//! computed only for the argument values its callers can ask for, not for every value.
//!
//! Bottom-up, a relation such as `(count_loop ?pit ?w1 ?b1 ?w ?b)`, which every caller calls with
//! its first arguments bound, is computed for every value those arguments could take; the
//! rewrite computes it only for the values that reach a call. For every call of relation `p` with
//! the arguments at positions `a` bound (its adornment), a demand relation `(demand p a)` holds
//! the bound values, derived from the demand of the caller and the literals before the call
//! (left to right, positive literals first; for the interpreter and the lifted form, a call of
//! the rule's own relation with the head's own bindings goes first: see [`calls`]).
//! Every rule for `p` is guarded by the demand of each adornment `p` is called with. A relation
//! called with no argument bound, one whose rules are all facts, and the relations the caller
//! asks for completely are computed completely, as before.
//!
//! The relaxed program negates static relations only, and stratified: a negation reads its
//! relation after the relation's stratum is complete. A demand for a negated relation can tie
//! the relation back to its reader; when the rewritten program is not stratified, the negated
//! relation and everything it depends on are computed completely instead, until it is.
//!
//! A demand rule keeps every variable of its caller's prefix; the variables that only a part of
//! the prefix uses are then projected out of it (see [`split_demand`]).

use crate::ast::{Atom, Description, Literal, Rule, Span, Term};
use crate::graph::Dependencies;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// A relation's name and arity.
type Key = (String, usize);

/// Which arguments of a call are bound.
type Adornment = Vec<bool>;

/// The name of the demand relation of `name` called with `adornment`; it contains parentheses
/// and spaces, so no symbol of a game can spell it.
pub fn demand_relation(name: &str, adornment: &[bool]) -> String {
    let pattern: String = adornment.iter().map(|&b| if b { 'b' } else { 'f' }).collect();
    format!("(demand {name} {pattern})")
}

/// The relation whose calls a demand relation holds, or `None` for another relation.
pub fn served(name: &str) -> Option<&str> {
    name.strip_prefix("(demand ")?.strip_suffix(')')?.rsplit_once(' ').map(|(served, _)| served)
}

/// The relation whose demand a part of a demand rule computes (see [`split_demand`]), or `None`
/// for another relation.
pub fn part_of(name: &str) -> Option<&str> {
    name.strip_prefix("(part ")?.strip_suffix(')')?.split_once(" of ").map(|(_, origin)| origin)
}

/// The name of part `k` of a demand rule for `origin`: it contains parentheses and spaces, so no
/// symbol of a game can spell it.
fn part_name(k: usize, origin: &str) -> String {
    format!("(part {k} of {origin})")
}

/// Decomposes the demand rules (see [`super::decompose`]). A demand rule's body is the prefix
/// of its caller's body, and keeps every variable of it though the demand has only the bound
/// arguments of the call: one that passes through a move generator to a test of two squares is
/// derived once per move and pair of squares. Its variables that only connect part of the
/// prefix are projected out first, which derives the same demand from far fewer instances.
fn split_demand(program: &Description) -> Description {
    let is_demand = |rule: &Rule| served(&rule.head.name).is_some();
    super::decompose::decompose_where(program, &is_demand, &part_name)
}

/// What a rule of the program computes for, when it is not simply its head.
pub struct Serves {
    /// The atom whose demand guards the rule (for an instance query, its alternative's head).
    pub atom: Atom,
    /// Atoms whose facts are read for the rule's bindings after the fixpoint though its body
    /// does not use them (the dropped negations of the relaxation).
    pub reads: Vec<Atom>,
}

/// Rewrites `program` so that relations are computed for the demanded bindings only. Relations
/// named in `complete` are computed completely; `serves` names what a rule computes for, when
/// that is not its head.
pub fn restrict(program: &Description, serves: &dyn Fn(&Rule) -> Option<Serves>, complete: &[&str]) -> Description {
    let options = Options { split: true, max_size: None, max_rounds: None, recursion_first: false };
    restrict_with(program, serves, complete, &options).unwrap_or_else(|| program.clone())
}

/// How [`restrict_with`] rewrites.
pub struct Options {
    /// Whether the variables of the demand rules are projected out of them (see
    /// [`split_demand`]). The interpreter does without: it evaluates the demand rules once per
    /// state, where the parts of a demand rule, ordered apart, can make a product of parts that
    /// the whole rule, ordered together, never does.
    pub split: bool,
    /// The most literals the demand rules may have in all. A body of `n` calls has demand
    /// rules of `n²` literals (each call's rule holds the literals before it).
    pub max_size: Option<usize>,
    /// The most rewrites tried, each with more relations computed completely, before one is
    /// stratified.
    pub max_rounds: Option<usize>,
    /// Whether a rule's call of its own relation goes first when it is then asked with the
    /// head's own adornment (see [`calls`]).
    pub recursion_first: bool,
}

/// [`restrict`] under `options`; `None` when it goes past their limits.
pub fn restrict_with(
    program: &Description,
    serves: &dyn Fn(&Rule) -> Option<Serves>,
    complete: &[&str],
    options: &Options,
) -> Option<Description> {
    let rules: Vec<(Serves, Vec<Body<'_>>)> = program
        .rules
        .iter()
        .map(|rule| {
            let serves = serves(rule).unwrap_or_else(|| Serves { atom: rule.head.clone(), reads: Vec::new() });
            let body = rule.body.iter().map(Body::of).collect();
            (serves, body)
        })
        .collect();
    let original = Dependencies::build(program);
    let outputs: BTreeSet<String> = complete.iter().map(|s| s.to_string()).collect();
    let mut forced = outputs.clone();
    for _ in 0..options.max_rounds.unwrap_or(usize::MAX) {
        let rewritten = Rewrite::new(program, &rules, &outputs, &forced, options).run()?;
        let negated = Dependencies::build(&rewritten).negated_on_cycles();
        if negated.is_empty() {
            return Some(if options.split { split_demand(&rewritten) } else { rewritten });
        }
        // A negated relation depends on its reader through a demand: compute one completely.
        // One may not break every cycle, so this takes as many rounds as there are cycles
        // that no relation completed so far breaks, up to `options.max_rounds`.
        match least_to_complete(program, &original, &negated, &forced) {
            Some(more) => forced.extend(more),
            None => return Some(program.clone()),
        }
    }
    None
}

/// What computing one of the `negated` relations completely adds to `forced`: the relation and
/// everything it depends on, for the relation that adds the fewest, or `None` when none adds
/// any. The choice does not depend on how the game spells its relations (the order of the
/// rewritten rules does): in chess, completing `has_legal_move` would complete the threat
/// relations its legal moves read, where completing `in_check` adds two relations. Ties go to
/// the relation whose rules come first in the program.
fn least_to_complete(
    program: &Description,
    original: &Dependencies,
    negated: &[String],
    forced: &BTreeSet<String>,
) -> Option<BTreeSet<String>> {
    let first_rule = |name: &str| program.rules.iter().position(|rule| rule.head.name == name).unwrap_or(usize::MAX);
    negated
        .iter()
        .map(|name| {
            let more: BTreeSet<String> =
                original.dependencies_of(&[name.as_str()]).into_iter().filter(|r| !forced.contains(r)).collect();
            (more.len(), first_rule(name), name, more)
        })
        .filter(|(added, ..)| *added > 0)
        .min_by_key(|&(added, first, name, _)| (added, first, name))
        .map(|(.., more)| more)
}

/// A body literal, as the rewrite sees it.
enum Body<'r> {
    Pos(&'r Atom),
    Neg(&'r Atom),
    /// A comparison: it binds nothing.
    Test(&'r Literal),
    /// Anything else: its atoms are called with nothing bound.
    Other(&'r Literal),
}

impl Body<'_> {
    fn of(literal: &Literal) -> Body<'_> {
        match literal {
            Literal::Atom(a) => Body::Pos(a),
            Literal::Not(inner, _) => match &**inner {
                Literal::Atom(a) => Body::Neg(a),
                Literal::Distinct(..) => Body::Test(literal),
                _ => Body::Other(literal),
            },
            Literal::Distinct(..) => Body::Test(literal),
            _ => Body::Other(literal),
        }
    }
}

/// A call in a body under a sideways-information-passing order.
struct Call<'r> {
    atom: &'r Atom,
    adornment: Adornment,
    /// How many literals of the body's [`Calls::prefix`] are evaluated before the call and
    /// narrow its demand.
    prefix: usize,
}

/// The calls of a body, with the literals that narrow their demands: positive atoms and
/// comparisons over bound variables, in evaluation order. Each call's literals are a prefix of
/// these, shared, so that finding the calls of a body of `n` literals takes `n` steps, not `n²`.
struct Calls<'r> {
    prefix: Vec<&'r Literal>,
    calls: Vec<Call<'r>>,
}

fn bound_term(term: &Term, bound: &BTreeSet<String>) -> bool {
    term.vars().is_subset(bound)
}

fn adornment(atom: &Atom, bound: &BTreeSet<String>) -> Adornment {
    atom.args.iter().map(|t| bound_term(t, bound)).collect()
}

fn key(atom: &Atom) -> Key {
    (atom.name.clone(), atom.args.len())
}

/// The calls of a rule's body (and of its reads) when it is asked for with `head` bound: the
/// positive literals left to right, but with `recursion_first`, a call of the rule's own
/// relation that would be asked with the head's very adornment goes first. chess's
/// `(clear_diagonal_ne ?u ?v ?x ?y)`, asked with `?x ?y` bound, steps from `(?u ?v)` to the
/// next square and asks the rest of the line: left to right, the step binds `?u2 ?v2` first,
/// and the line is asked with all four bound, once for every empty square on the board; asked
/// first, with `?x ?y` bound as the head is, the rule extends the line's facts found so far
/// from under the head's own demand.
fn calls<'r>(
    literals: &'r [Literal],
    body: &[Body<'r>],
    served: &Atom,
    head: Option<&[bool]>,
    reads: &'r [Atom],
    recursion_first: bool,
) -> Calls<'r> {
    let mut tests = Tests::new(body);
    let mut bound = BTreeSet::new();
    if let Some(adornment) = head {
        for (t, &b) in served.args.iter().zip(adornment) {
            if b {
                t.for_each_var(&mut |v, _| tests.bind(v, &mut bound));
            }
        }
    }
    let mut out = Calls { prefix: Vec::new(), calls: Vec::new() };
    tests.place_ready(&mut out.prefix);
    let first = match head {
        Some(own) if recursion_first => body
            .iter()
            .position(|b| matches!(*b, Body::Pos(atom) if key(atom) == key(served) && adornment(atom, &bound) == own)),
        _ => None,
    };
    let order = first.into_iter().chain((0..body.len()).filter(|&i| Some(i) != first));
    for i in order {
        let Body::Pos(atom) = body[i] else { continue };
        out.calls.push(Call { atom, adornment: adornment(atom, &bound), prefix: out.prefix.len() });
        out.prefix.push(&literals[i]);
        atom.for_each_var(&mut |v, _| tests.bind(v, &mut bound));
        tests.place_ready(&mut out.prefix);
    }
    let all = out.prefix.len();
    for b in body {
        match *b {
            Body::Neg(atom) => out.calls.push(Call { atom, adornment: adornment(atom, &bound), prefix: all }),
            Body::Other(l) => l.for_each_atom(false, &mut |atom, _| {
                out.calls.push(Call { atom, adornment: vec![false; atom.args.len()], prefix: 0 })
            }),
            _ => {}
        }
    }
    for atom in reads {
        out.calls.push(Call { atom, adornment: adornment(atom, &bound), prefix: all });
    }
    out
}

/// The comparisons of a body, each placed in the prefix once its variables are bound.
struct Tests<'r> {
    literals: Vec<&'r Literal>,
    /// For every test, how many of its variables are not bound yet.
    missing: Vec<usize>,
    /// For every variable, the tests it occurs in.
    users: BTreeMap<&'r str, Vec<usize>>,
    ready: Vec<usize>,
}

impl<'r> Tests<'r> {
    fn new(body: &[Body<'r>]) -> Tests<'r> {
        let literals: Vec<&'r Literal> =
            body.iter().filter_map(|b| if let Body::Test(l) = *b { Some(l) } else { None }).collect();
        let mut users: BTreeMap<&'r str, Vec<usize>> = BTreeMap::new();
        let mut missing = Vec::with_capacity(literals.len());
        for (k, l) in literals.iter().enumerate() {
            let mut vars = BTreeSet::new();
            l.for_each_var(&mut |v, _| {
                vars.insert(v);
            });
            for &v in &vars {
                users.entry(v).or_default().push(k);
            }
            missing.push(vars.len());
        }
        let ready = (0..literals.len()).filter(|&k| missing[k] == 0).collect();
        Tests { literals, missing, users, ready }
    }

    /// Binds `v`, noting the tests it completes.
    fn bind(&mut self, v: &str, bound: &mut BTreeSet<String>) {
        if !bound.insert(v.to_string()) {
            return;
        }
        for &k in self.users.get(v).into_iter().flatten() {
            self.missing[k] -= 1;
            if self.missing[k] == 0 {
                self.ready.push(k);
            }
        }
    }

    /// Appends the tests whose variables are all bound now, in body order.
    fn place_ready(&mut self, prefix: &mut Vec<&'r Literal>) {
        self.ready.sort_unstable();
        prefix.extend(self.ready.drain(..).map(|k| self.literals[k]));
    }
}

/// One rewrite with a given set of relations computed completely.
struct Rewrite<'p> {
    program: &'p Description,
    rules: &'p [(Serves, Vec<Body<'p>>)],
    /// The relations the caller reads.
    outputs: Vec<Key>,
    /// The rules computing for each relation.
    rules_of: BTreeMap<Key, Vec<usize>>,
    /// Relations computed completely.
    complete: BTreeSet<Key>,
    /// The adornments each other relation is called with.
    demanded: BTreeMap<Key, BTreeSet<Adornment>>,
    /// The most literals the demand rules may have in all.
    max_size: Option<usize>,
    /// See [`Options::recursion_first`].
    recursion_first: bool,
}

impl<'p> Rewrite<'p> {
    fn new(
        program: &'p Description,
        rules: &'p [(Serves, Vec<Body<'p>>)],
        outputs: &BTreeSet<String>,
        forced: &BTreeSet<String>,
        options: &Options,
    ) -> Self {
        let mut rules_of: BTreeMap<Key, Vec<usize>> = BTreeMap::new();
        for (i, (serves, _)) in rules.iter().enumerate() {
            rules_of.entry(key(&serves.atom)).or_default().push(i);
        }
        // Facts gain nothing from a guard.
        let complete = rules_of
            .iter()
            .filter(|(k, rs)| forced.contains(&k.0) || rs.iter().all(|&i| program.rules[i].body.is_empty()))
            .map(|(k, _)| k.clone())
            .collect();
        let outputs = rules_of.keys().filter(|k| outputs.contains(&k.0)).cloned().collect();
        let (max_size, recursion_first) = (options.max_size, options.recursion_first);
        Rewrite { program, rules, outputs, rules_of, complete, demanded: BTreeMap::new(), max_size, recursion_first }
    }

    fn calls(&self, i: usize, head: Option<&[bool]>) -> Calls<'p> {
        let (serves, body) = &self.rules[i];
        calls(&self.program.rules[i].body, body, &serves.atom, head, &serves.reads, self.recursion_first)
    }

    /// The rewritten program, or `None` when its demand rules would have more literals than
    /// `max_size`.
    fn run(mut self) -> Option<Description> {
        // Which relations are asked for, and how.
        let mut reached: BTreeSet<Key> = BTreeSet::new();
        let mut work: Vec<(Key, Option<Adornment>)> = Vec::new();
        for k in &self.outputs {
            reached.insert(k.clone());
            work.push((k.clone(), None));
        }
        while let Some((k, head)) = work.pop() {
            if head.is_some() && self.complete.contains(&k) {
                continue;
            }
            for &i in &self.rules_of[&k] {
                for call in self.calls(i, head.as_deref()).calls {
                    let callee = key(call.atom);
                    if !self.rules_of.contains_key(&callee) {
                        continue;
                    }
                    if self.complete.contains(&callee) || call.adornment.iter().all(|&b| !b) {
                        let newly = self.complete.insert(callee.clone()) | reached.insert(callee.clone());
                        if newly {
                            work.push((callee, None));
                        }
                    } else if self.demanded.entry(callee.clone()).or_default().insert(call.adornment.clone()) {
                        reached.insert(callee.clone());
                        work.push((callee, Some(call.adornment)));
                    }
                }
            }
        }

        // The guarded rules and the rules of the demand relations.
        let mut seen: HashSet<Rule> = HashSet::new();
        let mut out = Vec::new();
        let mut size = 0usize;
        for k in &reached {
            let heads: Vec<Option<Adornment>> = if self.complete.contains(k) {
                vec![None]
            } else {
                self.demanded.get(k).into_iter().flatten().cloned().map(Some).collect()
            };
            for &i in &self.rules_of[k] {
                let rule = &self.program.rules[i];
                for head in &heads {
                    let guard = head.as_ref().map(|a| Literal::Atom(demand_atom(&self.rules[i].0.atom, a)));
                    let body = guard.iter().cloned().chain(rule.body.iter().cloned()).collect();
                    push(&mut out, &mut seen, Rule { head: rule.head.clone(), body, span: rule.span });
                    let calls = self.calls(i, head.as_deref());
                    for call in &calls.calls {
                        let callee = key(call.atom);
                        if !self.rules_of.contains_key(&callee) || self.complete.contains(&callee) {
                            continue;
                        }
                        size += call.prefix + 1;
                        if self.max_size.is_some_and(|max| size > max) {
                            return None;
                        }
                        let prefix = &calls.prefix[..call.prefix];
                        let head = demand_atom(call.atom, &call.adornment);
                        // A call first in its body, of its own relation with the head's own
                        // bindings, demands what its guard holds already.
                        if prefix.is_empty() && matches!(&guard, Some(Literal::Atom(g)) if g.same_as(&head)) {
                            continue;
                        }
                        let body = guard.iter().cloned().chain(prefix.iter().map(|&l| l.clone())).collect();
                        push(&mut out, &mut seen, Rule { head, body, span: rule.span });
                    }
                }
            }
        }
        Some(Description { rules: out })
    }
}

/// Adds `rule` unless an equal one, but for its spans, is there already.
fn push(out: &mut Vec<Rule>, seen: &mut HashSet<Rule>, rule: Rule) {
    let mut plain = Description { rules: vec![rule] };
    plain.clear_spans();
    let rule = plain.rules.pop().expect("the rule just put there");
    if seen.insert(rule.clone()) {
        out.push(rule);
    }
}

/// `(demand p a)` over the bound arguments of `atom`.
fn demand_atom(atom: &Atom, adornment: &[bool]) -> Atom {
    let args = atom.args.iter().zip(adornment).filter(|(_, &b)| b).map(|(t, _)| t.clone()).collect();
    Atom { name: demand_relation(&atom.name, adornment), args, span: Span::default() }
}

#[cfg(test)]
mod tests;
