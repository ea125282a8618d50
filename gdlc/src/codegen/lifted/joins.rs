//! One rule of the lifted form as a Rust function: nested loops over the facts of the relations
//! its body reads, in the body's order and through the access paths the interpreter's planner
//! chose, binding the rule's variables to local variables, and the head built from them.
//!
//! A positive literal is a loop over the facts of its relation (all of them, those an index
//! gives for its bound arguments, or a membership test when every argument is bound); each
//! fact's arguments are matched against the literal's terms, a function term's parts through
//! the term store. A negation is a membership test, a `distinct` a comparison of term ids:
//! terms are hash-consed, so equal terms have equal ids.

use super::groups::group_positions;
use super::merge::Alternatives;
use super::probes::{search_access, Asked};
use crate::codegen::notes::{note, Notes};
use crate::datalog::compile::{CLit, CRule, PTerm, Pattern, VarId};
use crate::datalog::eval::{access_paths, mark_vars, Access};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

/// Whether each relation is static, read from the game's tables computed at load rather than
/// the evaluation's.
pub(super) struct Fixed<'a>(pub(super) &'a [bool]);

impl Fixed<'_> {
    fn is_fixed(&self, rel: usize) -> bool {
        self.0.get(rel).copied().unwrap_or(false)
    }

    fn table(&self, rel: usize) -> TokenStream {
        let at = Literal::usize_unsuffixed(rel);
        if self.is_fixed(rel) {
            quote!(fixed[#at])
        } else {
            quote!(tables[#at])
        }
    }
}

/// The body of the function of `rule`: `delta_first` when it is a delta variant, whose first
/// literal ranges over the facts in `delta`. Also whether the body returns once it derived
/// its head (whose loops then may never go on to a second fact).
pub(super) fn join_body(
    rule: &CRule,
    fixed: &Fixed<'_>,
    delta_first: bool,
    asked: Asked<'_>,
    alternatives: Option<&Alternatives>,
) -> (TokenStream, bool) {
    let rule = &tests_first(rule, delta_first);
    let access = access_paths(rule);
    let mut writer = Writer::new(rule, fixed, access, asked, false);
    writer.delta_first = delta_first;
    writer.alternatives = alternatives;
    let code = writer.literal(0);
    let body = quote! {
        let ::gdl_runtime::lifted::Eval { store, tables, fixed } = eval;
        #code
    };
    (body, writer.returns)
}

/// The body of the function that answers whether a relation answered by a search (see the
/// module `probes`) has the fact of the terms `args`: each of its `rules` (ordered for the
/// search) in turn, its head matched to `args`, until one derives the fact.
pub(super) fn search_body(rules: &[CRule], fixed: &Fixed<'_>, asked: Asked<'_>, notes: Option<&Notes>) -> TokenStream {
    let mut code = TokenStream::new();
    for (k, rule) in rules.iter().enumerate() {
        code.extend(note(notes, |n| n.rule_at(rule.span)));
        let access = search_access(rule);
        let mut writer = Writer::new(rule, fixed, access, asked, true);
        let label = syn::Lifetime::new(&format!("'rule{k}"), proc_macro2::Span::call_site());
        let mut head = TokenStream::new();
        for (i, arg) in rule.head.args.iter().enumerate() {
            let i = Literal::usize_unsuffixed(i);
            head.extend(writer.matching(arg, quote!(args[#i]), &quote!(break #label)));
        }
        let body = writer.literal(0);
        code.extend(quote!(#label: { #head #body }));
    }
    quote! {
        #code
        false
    }
}

/// `rule` with the literals that read no variable (a test of a ground fact, present or absent:
/// `(true shoot)`) moved to the front, after the first literal of a delta variant: each is then
/// tested once per run of the rule, not once per fact of the loops it followed. The tables do
/// not change while a rule runs, so a test answers the same wherever it is made; the other
/// literals keep their order and their access paths, since a test binds nothing.
pub(super) fn tests_first(rule: &CRule, delta_first: bool) -> CRule {
    let fixed_start = usize::from(delta_first).min(rule.body.len());
    let (start, rest) = rule.body.split_at(fixed_start);
    let (tests, others): (Vec<CLit>, Vec<CLit>) = rest.iter().cloned().partition(reads_no_variable);
    CRule { body: start.iter().cloned().chain(tests).chain(others).collect(), ..rule.clone() }
}

/// Whether literal `lit` reads no variable.
fn reads_no_variable(lit: &CLit) -> bool {
    fn ground(term: &PTerm) -> bool {
        match term {
            PTerm::Var(_) => false,
            PTerm::Ground(_) => true,
            PTerm::Func(_, args) => args.iter().all(ground),
        }
    }
    match lit {
        CLit::Pos(p) | CLit::Neg(p) => p.args.iter().all(ground),
        CLit::Distinct(x, y) | CLit::Equal(x, y) => ground(x) && ground(y),
    }
}

/// `code` after the statements `lets`, in a block of their own when there are some.
fn after(lets: TokenStream, code: TokenStream) -> TokenStream {
    if lets.is_empty() {
        code
    } else {
        quote!({ #lets #code })
    }
}

/// Whether each variable of `rule` occurs in its head.
pub(super) fn head_variables(rule: &CRule) -> Vec<bool> {
    let mut vars = vec![false; rule.num_vars];
    rule.head.args.iter().for_each(|a| mark_vars(a, &mut vars));
    vars
}

/// The state of writing one rule's function: which variables the code written so far binds.
struct Writer<'a> {
    rule: &'a CRule,
    fixed: &'a Fixed<'a>,
    access: Vec<Access>,
    bound: Vec<bool>,
    /// A counter for the names of temporary locals.
    fresh: usize,
    delta_first: bool,
    /// Whether each variable occurs in the head.
    head_vars: Vec<bool>,
    /// The loops the code being written is nested in, outermost first.
    loops: Vec<Loop>,
    /// Whether the code returns once it derived the head.
    returns: bool,
    /// The relations answered by a search, whose tests call it.
    asked: Asked<'a>,
    /// Whether the code is a search for one fact, which returns `true` once it derived it.
    search: bool,
    /// The tests of the rules joined with this one, where they differ from it (see the module
    /// `merge`).
    alternatives: Option<&'a Alternatives>,
}

/// A loop over facts that the code being written is nested in.
struct Loop {
    label: syn::Lifetime,
    /// Whether it binds a variable of the head.
    binds_head: bool,
    /// Whether code inside it goes on to its next fact by its label.
    continued: bool,
    /// Whether it walks its facts group by group (see [`group_positions`]): its label goes on
    /// to the next group.
    grouped: bool,
}

/// A bound term as code: its id directly, or an `Option` of it when it is a function term that
/// may not exist in the store (then no fact holds it).
enum Resolved {
    Direct(TokenStream),
    Maybe(TokenStream),
}

impl<'a> Writer<'a> {
    fn new(rule: &'a CRule, fixed: &'a Fixed<'a>, access: Vec<Access>, asked: Asked<'a>, search: bool) -> Self {
        Writer {
            rule,
            fixed,
            access,
            bound: vec![false; rule.num_vars],
            fresh: 0,
            delta_first: false,
            head_vars: head_variables(rule),
            loops: Vec::new(),
            returns: false,
            asked,
            search,
            alternatives: None,
        }
    }

    fn var(v: VarId) -> Ident {
        format_ident!("v{}", v)
    }

    fn temp(&mut self, prefix: &str) -> Ident {
        self.fresh += 1;
        format_ident!("{}{}", prefix, self.fresh)
    }

    /// The code of literal `at` and of everything after it, nested in it.
    fn literal(&mut self, at: usize) -> TokenStream {
        let Some(lit) = self.rule.body.get(at) else { return self.head() };
        if let Some(alternatives) = self.alternatives.filter(|a| a.at == at) {
            return self.any_test(&alternatives.tests, at);
        }
        match lit {
            CLit::Pos(p) => self.positive(at, p),
            CLit::Neg(_) | CLit::Distinct(..) | CLit::Equal(..) => self.tested(lit, at),
        }
    }

    /// The code of test `lit` at `at`, with the literals after it inside.
    fn tested(&mut self, lit: &CLit, at: usize) -> TokenStream {
        let (lets, passes) = self.test(lit);
        let rest = self.literal(at + 1);
        after(lets, quote!(if #passes { #rest }))
    }

    /// The code of the tests `tests` in turn, until one passes, and of the literals after `at`
    /// when one does.
    fn any_test(&mut self, tests: &[CLit], at: usize) -> TokenStream {
        let passed = self.temp("m");
        let mut code = TokenStream::new();
        for (k, test) in tests.iter().enumerate() {
            let (lets, value) = self.test(test);
            code.extend(match k {
                0 => quote!(#lets let mut #passed = #value;),
                _ => quote!(if !#passed { #lets #passed = #value; }),
            });
        }
        let rest = self.literal(at + 1);
        quote!({ #code if #passed { #rest } })
    }

    /// A literal that binds nothing as code of type `bool`, with the statements to run before it.
    fn test(&mut self, lit: &CLit) -> (TokenStream, TokenStream) {
        match lit {
            CLit::Pos(p) => self.holds(p),
            CLit::Neg(p) => {
                let (lets, present) = self.holds(p);
                (lets, quote!(!(#present)))
            }
            CLit::Distinct(x, y) | CLit::Equal(x, y) => {
                let (mut lets, a) = self.build(x);
                let (more, b) = self.build(y);
                lets.extend(more);
                let test = if matches!(lit, CLit::Equal(..)) { quote!(#a == #b) } else { quote!(#a != #b) };
                (lets, test)
            }
        }
    }

    /// The code of positive literal `at`: a loop over the facts that may match, or a membership
    /// test when every argument is bound.
    fn positive(&mut self, at: usize, p: &Pattern) -> TokenStream {
        let table = self.fixed.table(p.rel);
        if at == 0 && self.delta_first {
            return self.each_fact(at, p, quote!(#table.facts_in(delta.0, delta.1)), &[]);
        }
        match self.access[at].clone() {
            Access::Member => self.tested(&self.rule.body[at], at),
            Access::Scan => match group_positions(p, self.fixed.is_fixed(p.rel), &self.bound, &self.head_vars) {
                Some(positions) => self.each_group(at, p, &positions),
                None => self.each_fact(at, p, quote!(#table.facts()), &[]),
            },
            Access::Index(positions) => {
                let keys: Vec<Resolved> = positions.iter().map(|&i| self.resolve(&p.args[i])).collect();
                let (names, wrap) = self.unwrap_all(keys);
                let columns = positions.iter().map(|&i| Literal::usize_unsuffixed(i));
                let candidates = quote! {
                    #table.candidates(&[#(#columns),*], &[#(#names),*]).map(|i| #table.fact(i))
                };
                // A static relation has an index on every key its rules look up (the program's
                // `fixed_indexes`), and an index gives only the facts of the key: their terms
                // there need no test. An evaluation's table may be too small to have one.
                let exact = if self.fixed.is_fixed(p.rel) { positions } else { Box::default() };
                let inner = self.each_fact(at, p, candidates, &exact);
                wrap(inner, quote!({}))
            }
        }
    }

    /// A loop over the facts `facts` yields, matching each against `p` except at the positions
    /// `exact`, where every fact already has the terms of `p`'s bound arguments.
    fn each_fact(&mut self, at: usize, p: &Pattern, facts: TokenStream, exact: &[usize]) -> TokenStream {
        let fact = format_ident!("f{}", at);
        let (label, inner) = self.matched(at, p, exact, false);
        quote! {
            #label for #fact in #facts {
                #inner
            }
        }
    }

    /// A loop over the groups of the facts of `p`'s static relation alike at `positions`, each
    /// group's facts matched against `p` in turn until one derives the head.
    fn each_group(&mut self, at: usize, p: &Pattern, positions: &[usize]) -> TokenStream {
        let (fact, group) = (format_ident!("f{}", at), format_ident!("g{}", at));
        let table = self.fixed.table(p.rel);
        let columns = positions.iter().map(|&i| Literal::usize_unsuffixed(i));
        let (label, inner) = self.matched(at, p, &[], true);
        quote! {
            #label for #group in #table.groups(&[#(#columns),*]) {
                for #fact in #group.map(|i| #table.fact(i)) {
                    #inner
                }
            }
        }
    }

    /// The body of a loop over the facts of `p` (`f{at}`): each matched against `p` except at
    /// the positions `exact`, and the literals after `at` nested inside; with the loop's label,
    /// when code inside goes on by it.
    fn matched(
        &mut self,
        at: usize,
        p: &Pattern,
        exact: &[usize],
        grouped: bool,
    ) -> (Option<TokenStream>, TokenStream) {
        let fact = format_ident!("f{}", at);
        let saved = self.bound.clone();
        let mut checks = TokenStream::new();
        for (k, arg) in p.args.iter().enumerate().filter(|(k, _)| !exact.contains(k)) {
            let k = Literal::usize_unsuffixed(k);
            checks.extend(self.matching(arg, quote!(#fact[#k]), &quote!(continue)));
        }
        let binds_head = (0..self.bound.len()).any(|v| self.head_vars[v] && self.bound[v] && !saved[v]);
        let label = syn::Lifetime::new(&format!("'l{at}"), proc_macro2::Span::call_site());
        self.loops.push(Loop { label, binds_head, continued: false, grouped });
        let rest = self.literal(at + 1);
        let this = self.loops.pop();
        self.bound = saved;
        let label = this.filter(|l| l.continued).map(|l| {
            let label = l.label;
            quote!(#label:)
        });
        (label, quote!(#checks #rest))
    }

    /// What follows the derivation of a head: once the loops that bind the head's variables
    /// have bound them, the loops inside those can only derive the same fact again, so the
    /// code goes on to the next fact of the innermost loop that binds one (or returns, when
    /// none does). Nothing when that loop is the innermost one.
    fn after_head(&mut self) -> TokenStream {
        let Some(innermost) = self.loops.len().checked_sub(1) else { return TokenStream::new() };
        match self.loops.iter().rposition(|l| l.binds_head) {
            Some(at) if at == innermost && !self.loops[at].grouped => TokenStream::new(),
            Some(at) => {
                let target = &mut self.loops[at];
                target.continued = true;
                let label = &target.label;
                quote!(continue #label;)
            }
            None => {
                self.returns = true;
                quote!(return;)
            }
        }
    }

    /// Statements that match term `value` (a term id) against pattern `arg`, binding its
    /// unbound variables and doing `miss` on a mismatch (going on to a loop's next fact).
    fn matching(&mut self, arg: &PTerm, value: TokenStream, miss: &TokenStream) -> TokenStream {
        match arg {
            PTerm::Var(v) => {
                let name = Self::var(*v);
                if self.bound[*v as usize] {
                    quote!(if #value != #name { #miss; })
                } else {
                    self.bound[*v as usize] = true;
                    quote!(let #name = #value;)
                }
            }
            PTerm::Ground(g) => quote!(if #value != #g { #miss; }),
            PTerm::Func(sym, args) => {
                let node = self.temp("n");
                let parts: Vec<Ident> = (0..args.len()).map(|_| self.temp("p")).collect();
                let mut out = quote! {
                    let #node = ::gdl_runtime::lifted::store::TermRead::node(&*store, #value);
                    if #node.sym != #sym { #miss; }
                    let [#(#parts),*] = #node.args[..] else { #miss; };
                };
                for (part, sub) in parts.iter().zip(args.iter()) {
                    out.extend(self.matching(sub, quote!(#part), miss));
                }
                out
            }
        }
    }

    /// Code of type `bool`: whether `p`'s relation has the fact of its bound arguments, with the
    /// statements to run before it. A relation answered by a search is asked with the terms
    /// made (a search may derive a fact of terms no evaluation made yet); a table, with the
    /// terms looked up (a term that does not exist is in no fact).
    fn holds(&mut self, p: &Pattern) -> (TokenStream, TokenStream) {
        if let Some(search) = self.asked.function(p.rel) {
            let (lets, parts) = self.build_all(&p.args);
            return (lets, quote!(#search(store, tables, fixed, &[#(#parts),*])));
        }
        let table = self.fixed.table(p.rel);
        let args: Vec<Resolved> = p.args.iter().map(|a| self.resolve(a)).collect();
        let (names, wrap) = self.unwrap_all(args);
        (TokenStream::new(), wrap(quote!(#table.contains(&[#(#names),*])), quote!(false)))
    }

    /// The names of `values`, and a function of code (`then`) and a default (`otherwise`) that
    /// binds the names and gives `then` when every value exists, else `otherwise`.
    #[allow(clippy::type_complexity)]
    fn unwrap_all(
        &mut self,
        values: Vec<Resolved>,
    ) -> (Vec<TokenStream>, Box<dyn FnOnce(TokenStream, TokenStream) -> TokenStream>) {
        let mut names = Vec::new();
        let mut maybes = Vec::new();
        for value in values {
            match value {
                Resolved::Direct(code) => names.push(quote!(#code)),
                Resolved::Maybe(code) => {
                    let name = self.temp("k");
                    maybes.push((name.clone(), code));
                    names.push(quote!(#name));
                }
            }
        }
        let wrap = move |then: TokenStream, otherwise: TokenStream| {
            let mut code = then;
            for (name, maybe) in maybes.into_iter().rev() {
                code = quote!(if let Some(#name) = #maybe { #code } else { #otherwise });
            }
            code
        };
        (names, Box::new(wrap))
    }

    /// A bound term's id as code, looked up in the store (not made) when it is a function term.
    fn resolve(&mut self, arg: &PTerm) -> Resolved {
        match arg {
            PTerm::Var(v) => {
                let name = Self::var(*v);
                Resolved::Direct(quote!(#name))
            }
            PTerm::Ground(g) => Resolved::Direct(quote!(#g)),
            PTerm::Func(sym, args) => {
                let parts: Vec<Resolved> = args.iter().map(|a| self.resolve(a)).collect();
                let (names, wrap) = self.unwrap_all(parts);
                let find = quote! {
                    ::gdl_runtime::lifted::store::TermRead::find(&*store, #sym, &[#(#names),*])
                };
                Resolved::Maybe(wrap(find, quote!(None)))
            }
        }
    }

    /// Statements that make a bound term (interning function terms), and the name or literal of
    /// its id.
    fn build(&mut self, arg: &PTerm) -> (TokenStream, TokenStream) {
        match arg {
            PTerm::Var(v) => {
                let name = Self::var(*v);
                (TokenStream::new(), quote!(#name))
            }
            PTerm::Ground(g) => (TokenStream::new(), quote!(#g)),
            PTerm::Func(sym, args) => {
                let (mut lets, parts) = self.build_all(args);
                let name = self.temp("t");
                lets.extend(quote! {
                    let #name = store.intern_args(#sym, &[#(#parts),*]);
                });
                (lets, quote!(#name))
            }
        }
    }

    /// [`Writer::build`] of each of `args`: the statements of all, and each one's id.
    fn build_all(&mut self, args: &[PTerm]) -> (TokenStream, Vec<TokenStream>) {
        let mut lets = TokenStream::new();
        let mut parts = Vec::new();
        for a in args {
            let (more, part) = self.build(a);
            lets.extend(more);
            parts.push(part);
        }
        (lets, parts)
    }

    /// The head: its terms made, and the fact derived.
    fn head(&mut self) -> TokenStream {
        if self.search {
            return quote!(return true;);
        }
        let head = &self.rule.head;
        let (lets, parts) = self.build_all(&head.args);
        let rel = Literal::usize_unsuffixed(head.rel);
        let after = self.after_head();
        quote! {
            #lets
            out.push(#rel, &[#(#parts),*]);
            #after
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{join_body, tests_first, Asked, Fixed};
    use crate::datalog::compile::{CLit, CRule, PTerm, Pattern};

    fn pattern(rel: usize, args: Vec<PTerm>) -> Pattern {
        Pattern { rel, args: args.into_boxed_slice() }
    }

    /// `h(X) :- p(X, Y), q(5), not r(Y), not s(6)`: the tests of ground facts `q(5)` and
    /// `not s(6)` go first, the others keep their order; a delta variant keeps its first literal.
    fn rule() -> CRule {
        let (x, y) = (PTerm::Var(0), PTerm::Var(1));
        CRule {
            head: pattern(0, vec![x.clone()]),
            body: vec![
                CLit::Pos(pattern(1, vec![x, y.clone()])),
                CLit::Pos(pattern(2, vec![PTerm::Ground(5)])),
                CLit::Neg(pattern(3, vec![y])),
                CLit::Neg(pattern(4, vec![PTerm::Ground(6)])),
            ],
            num_vars: 2,
            delta_variants: Vec::new(),
            span: Default::default(),
        }
    }

    fn relations(rule: &CRule) -> Vec<usize> {
        rule.body.iter().map(|lit| if let CLit::Pos(p) | CLit::Neg(p) = lit { p.rel } else { usize::MAX }).collect()
    }

    /// `h(X) :- p(X, Y), q(Y, Z)` goes on to the next fact of `p` once it derived `h(X)`;
    /// `g :- p(X, Y), q(Y, Z)` returns once it derived `g`; `k(Z) :- p(X, Y), q(Y, Z)`, whose
    /// innermost loop binds its variable, goes on as it is.
    #[test]
    fn a_derived_head_ends_the_loops_that_bind_none_of_its_variables() {
        let (x, y, z) = (PTerm::Var(0), PTerm::Var(1), PTerm::Var(2));
        let body = vec![CLit::Pos(pattern(1, vec![x.clone(), y.clone()])), CLit::Pos(pattern(2, vec![y, z.clone()]))];
        let with_head = |args: Vec<PTerm>| CRule {
            head: pattern(0, args),
            body: body.clone(),
            num_vars: 3,
            delta_variants: Vec::new(),
            span: Default::default(),
        };
        let code = |rule: &CRule| join_body(rule, &Fixed(&[false; 3]), false, Asked::none(), None).0.to_string();
        let first = code(&with_head(vec![x]));
        assert!(first.contains("'l0 : for f0") && first.contains("continue 'l0"), "{first}");
        assert!(!first.contains("return"), "{first}");
        let ground = code(&with_head(Vec::new()));
        assert!(ground.contains("return ;") && !ground.contains("'l"), "{ground}");
        let inner = code(&with_head(vec![z]));
        assert!(!inner.contains("return") && !inner.contains("'l"), "{inner}");
    }

    #[test]
    fn tests_of_ground_facts_come_before_the_loops() {
        assert_eq!(relations(&tests_first(&rule(), false)), [2, 4, 1, 3]);
        assert_eq!(relations(&tests_first(&rule(), true)), [1, 2, 4, 3]);
        let code = join_body(&rule(), &Fixed(&[false; 5]), false, Asked::none(), None).0.to_string();
        let test = code.find("tables [2] . contains").expect("q(5) is tested");
        let others = ["tables [4] . contains", "tables [1] . facts"];
        assert!(others.iter().all(|other| code.find(other).is_some_and(|at| test < at)), "{code}");
    }
}
