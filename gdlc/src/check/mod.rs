//! The restrictions of the GDL specification (Love et al. 2006, sections 5 and 6), checked on a
//! parsed description: safety, stratification, the recursion restriction, the placement and
//! arity of the keyword relations, consistent arities, and warnings for sloppy but accepted
//! forms.
//!
//! Every check collects all of its problems instead of stopping at the first, and never panics
//! on a description the parser produced.

mod arity;
mod defined;
pub mod expand;
mod forms;
pub(crate) mod keywords;
mod letter_case;
mod recursion;
mod safety;
mod stratify;

pub use expand::{expand_or, expansion_count, expansions};
pub use safety::unbound_role_variable;

use crate::ast::{Atom, Description, Literal, Rule, Span, Term};
use crate::diag::Diagnostic;
use crate::graph::Dependencies;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;

/// Parses `source` in whichever syntax it is written in and, when it parses, checks it: the
/// description and every diagnostic of both passes. Names are read in any case.
pub fn parse_and_check(source: &str) -> crate::parse::Parsed {
    parse_and_check_in(source, crate::parse::Case::Insensitive)
}

/// [`parse_and_check`] with names read in `case`.
pub fn parse_and_check_in(source: &str, case: crate::parse::Case) -> crate::parse::Parsed {
    let mut parsed = crate::parse::parse_auto_in(source, case);
    if !parsed.has_errors() {
        let found = check(&parsed.description);
        parsed.diagnostics.extend(found);
        if crate::parse::detect_syntax(source) == crate::parse::Syntax::Kif {
            parsed.diagnostics.extend(letter_case::letter_case(source, case));
        }
    }
    parsed
}

/// Runs every check, returning all errors and warnings (not just the first), sorted by span start.
/// An rtGDL game ([`crate::realtime::is_realtime`]) gets the rtGDL checks, then the plain checks
/// on its erased form (whose rules keep the spans of the rules they come from).
pub fn check(description: &Description) -> Vec<Diagnostic> {
    if crate::realtime::is_realtime(description) {
        let mut out = crate::realtime::check(description);
        if !out.iter().any(Diagnostic::is_error) {
            out.extend(check_plain(&crate::realtime::erase(description)));
        }
        out.sort_by_key(|d| (d.span.start, std::cmp::Reverse(d.severity)));
        return out;
    }
    check_plain(description)
}

/// The checks of plain GDL.
fn check_plain(description: &Description) -> Vec<Diagnostic> {
    let cx = Context::new(description);
    let mut out = Vec::new();
    safety::check(&cx, &mut out);
    stratify::check(&cx, &mut out);
    recursion::check(&cx, &mut out);
    keywords::check(&cx, &mut out);
    arity::check(&cx, &mut out);
    forms::check(&cx, &mut out);
    defined::check(&cx, &mut out);
    out.sort_by_key(|d| (d.span.start, std::cmp::Reverse(d.severity)));
    out
}

/// The relations a game uses: the keyword relations that define it (`role`, `init`, `legal`,
/// `next`, `goal`, `terminal`, GDL-II's `sees`, `base`, `input`) and every relation they depend
/// on. Rules for other relations cannot affect play; [`check`] only warns when they are unsafe,
/// so an evaluator should skip them.
pub fn used_relations(description: &Description) -> BTreeSet<String> {
    Context::new(description).used_by_game().into_iter().map(str::to_string).collect()
}

/// What the checks share: the description and its dependency graph, built once.
pub(crate) struct Context<'a> {
    pub description: &'a Description,
    pub deps: Dependencies,
    /// For every head relation, the relations its rules use, each with the span of its first use.
    uses: BTreeMap<&'a str, BTreeMap<&'a str, Span>>,
}

impl<'a> Context<'a> {
    fn new(description: &'a Description) -> Context<'a> {
        let mut uses: BTreeMap<&str, BTreeMap<&str, Span>> = BTreeMap::new();
        for rule in &description.rules {
            let entry = uses.entry(rule.head.name.as_str()).or_default();
            rule.for_each_body_atom(&mut |atom, _| {
                entry.entry(atom.name.as_str()).or_insert(atom.span);
            });
        }
        Context { description, deps: Dependencies::build(description), uses }
    }

    /// A shortest chain of uses from `head` to `body` (`[head, ..., body]`), with the span of the
    /// first use (the literal in a rule for `head`), when `head` depends on `body`.
    pub(crate) fn use_path(&self, head: &str, body: &str) -> Option<(Vec<&'a str>, Span)> {
        let (&start, _) = self.uses.get_key_value(head)?;
        let mut parent: BTreeMap<&'a str, &'a str> = BTreeMap::new();
        let mut seen = BTreeSet::from([start]);
        let mut queue = VecDeque::from([start]);
        while let Some(n) = queue.pop_front() {
            for &m in self.uses.get(n).into_iter().flat_map(BTreeMap::keys) {
                if m == body {
                    let mut path = vec![m, n];
                    let mut cur = n;
                    while let Some(&p) = parent.get(cur) {
                        path.push(p);
                        cur = p;
                    }
                    path.reverse();
                    let span = self.uses[start][path[1]];
                    return Some((path, span));
                }
                if seen.insert(m) {
                    parent.insert(m, n);
                    queue.push_back(m);
                }
            }
        }
        None
    }

    /// The relations the game uses: the keyword relations that define it and every relation
    /// they depend on. Rules for other relations cannot affect play.
    pub(crate) fn used_by_game(&self) -> BTreeSet<&'a str> {
        let roots = ["role", "init", "legal", "next", "goal", "terminal", "sees", "base", "input"];
        let mut seen: BTreeSet<&'a str> = BTreeSet::new();
        let mut queue: VecDeque<&'a str> =
            roots.iter().filter_map(|r| self.uses.get_key_value(*r).map(|(k, _)| *k)).collect();
        seen.extend(queue.iter().copied());
        while let Some(n) = queue.pop_front() {
            for &m in self.uses.get(n).into_iter().flat_map(BTreeMap::keys) {
                if seen.insert(m) {
                    queue.push_back(m);
                }
            }
        }
        seen
    }

    /// Whether some rule or fact has `name` as its head.
    pub(crate) fn is_defined(&self, name: &str) -> bool {
        self.uses.contains_key(name)
    }
}

/// Where an atom occurs in a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Head,
    /// In the body; `negated` when under a `not`.
    Body {
        negated: bool,
    },
}

/// Calls `f` on every atom of the description (heads and bodies, in source order) with its rule.
pub(crate) fn for_each_atom<'a>(description: &'a Description, f: &mut impl FnMut(&'a Rule, &'a Atom, Place)) {
    for rule in &description.rules {
        f(rule, &rule.head, Place::Head);
        rule.for_each_body_atom(&mut |atom, negated| f(rule, atom, Place::Body { negated }));
    }
}

/// Calls `f` on every term of the description, nested ones included, outermost first: the
/// arguments of every atom and of every `distinct`.
pub(crate) fn for_each_term<'a>(description: &'a Description, f: &mut impl FnMut(&'a Term)) {
    fn term<'a>(t: &'a Term, f: &mut impl FnMut(&'a Term)) {
        f(t);
        if let Term::Func(_, args, _) = t {
            args.iter().for_each(|a| term(a, f));
        }
    }
    fn literal<'a>(l: &'a Literal, f: &mut impl FnMut(&'a Term)) {
        match l {
            Literal::Atom(a) => a.args.iter().for_each(|t| term(t, f)),
            Literal::Not(l, _) => literal(l, f),
            Literal::Distinct(a, b, _) => {
                term(a, f);
                term(b, f);
            }
            Literal::Or(ls, _) | Literal::And(ls, _) => ls.iter().for_each(|l| literal(l, f)),
        }
    }
    for rule in &description.rules {
        rule.head.args.iter().for_each(|t| term(t, f));
        rule.body.iter().for_each(|l| literal(l, f));
    }
}

/// Calls `f` on every literal of a body, nested ones included, outermost first.
pub(crate) fn for_each_literal<'a>(body: &'a [Literal], f: &mut impl FnMut(&'a Literal)) {
    for l in body {
        f(l);
        match l {
            Literal::Not(inner, _) => for_each_literal(std::slice::from_ref(&**inner), f),
            Literal::Or(ls, _) | Literal::And(ls, _) => for_each_literal(ls, f),
            Literal::Atom(_) | Literal::Distinct(..) => {}
        }
    }
}

/// A literal in prefix KIF.
#[cfg(test)]
pub(crate) fn literal_text(l: &Literal) -> String {
    LiteralText(l).to_string()
}

/// Displays a literal in prefix KIF, stopping early when the writer refuses more (see [`quoted`]).
pub(crate) struct LiteralText<'a>(pub &'a Literal);

impl fmt::Display for LiteralText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, op: &str, ls: &[Literal]| {
            write!(f, "({op}")?;
            for l in ls {
                write!(f, " {}", LiteralText(l))?;
            }
            f.write_str(")")
        };
        match self.0 {
            Literal::Atom(a) => write!(f, "{a}"),
            Literal::Not(l, _) => write!(f, "(not {})", LiteralText(l)),
            Literal::Distinct(a, b, _) => write!(f, "(distinct {a} {b})"),
            Literal::Or(ls, _) => list(f, "or", ls),
            Literal::And(ls, _) => list(f, "and", ls),
        }
    }
}

/// The most bytes of a term or literal that a message quotes.
pub(crate) const QUOTE_LIMIT: usize = 200;

/// A term or literal for a message, shortened to about [`QUOTE_LIMIT`] bytes and ending in
/// ` ...` when longer. A description's terms can be as large as the input, and the checks may
/// quote one in many messages (one for each of its arguments, say); quoting it whole each time
/// made the messages quadratic in the size of the input.
pub(crate) fn quoted(value: &dyn fmt::Display) -> String {
    struct Capped(String);
    impl fmt::Write for Capped {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            if self.0.len() + s.len() <= QUOTE_LIMIT {
                self.0.push_str(s);
                return Ok(());
            }
            let mut end = QUOTE_LIMIT - self.0.len();
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            self.0.push_str(&s[..end]);
            Err(fmt::Error)
        }
    }
    let mut out = Capped(String::new());
    if fmt::write(&mut out, format_args!("{value}")).is_err() {
        out.0.push_str(" ...");
    }
    out.0
}

/// `1 argument`, `2 arguments`, `no arguments`.
pub(crate) fn arguments(n: usize) -> String {
    match n {
        0 => "no arguments".to_string(),
        1 => "1 argument".to_string(),
        n => format!("{n} arguments"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::render_all;
    use crate::parse::parse_auto;
    use std::path::{Path, PathBuf};

    fn shared(dir: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared").join(dir)
    }

    fn kif_files(dir: &str) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(shared(dir))
            .unwrap_or_else(|e| panic!("reading {dir}: {e}"))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "kif"))
            .collect();
        files.sort();
        files
    }

    /// Parses and checks a file, returning its name, its source and every diagnostic.
    fn run(path: &Path) -> (String, String, Vec<Diagnostic>) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(path).unwrap();
        let parsed = parse_auto(&src);
        let mut diags = parsed.diagnostics.clone();
        if !parsed.has_errors() {
            diags.extend(check(&parsed.description));
        }
        (name, src, diags)
    }

    fn errors(diags: &[Diagnostic]) -> Vec<Diagnostic> {
        diags.iter().filter(|d| d.is_error()).cloned().collect()
    }

    /// Checks an inline KIF game, rendering every diagnostic as `bad.kif:LINE:COL: ...`.
    pub(crate) fn render(src: &str) -> String {
        let parsed = crate::parse::parse(src, crate::parse::Syntax::Kif);
        assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
        render_all(&check(&parsed.description), "bad.kif", src)
    }

    /// A small valid game that the unit tests of each check extend with one bad rule.
    pub(crate) const GOOD: &str = "\
(role x)
(init (cell a))
(succ a b)
(<= (legal x (go ?n)) (true (cell ?m)) (succ ?m ?n))
(<= (next (cell ?n)) (does x (go ?n)))
(<= terminal (true (cell b)))
(<= (goal x 100) (true (cell b)))
(<= (goal x 0) (not (true (cell b))))
";

    #[test]
    fn a_good_game_has_no_diagnostics() {
        assert_eq!(render(GOOD), "");
    }

    #[test]
    fn all_diagnostics_are_returned_sorted() {
        let src = "(role x)\n(<= (p ?a) (q ?b))\n(<= (true a) (p a))";
        let diags = check(&crate::parse::parse(src, crate::parse::Syntax::Kif).description);
        assert!(diags.windows(2).all(|w| w[0].span.start <= w[1].span.start));
        assert!(diags.iter().filter(|d| d.is_error()).count() >= 4, "{diags:?}");
        assert!(diags.len() >= 6, "{diags:?}");
    }

    #[test]
    fn used_relations_are_those_the_keywords_depend_on() {
        let d = crate::parse::parse(
            "(<= terminal a) (<= a (not b)) (<= c a) (<= (legal x y) (role x))",
            crate::parse::Syntax::Kif,
        )
        .description;
        let used: Vec<String> = used_relations(&d).into_iter().collect();
        assert_eq!(used, ["a", "b", "legal", "role", "terminal"]);
    }

    /// Random small descriptions over GDL's keywords and operators: the checks never panic.
    #[test]
    fn never_panics_on_random_descriptions() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        const NAMES: &[&str] = &[
            "role", "init", "true", "next", "legal", "does", "goal", "terminal", "base", "input", "sees", "distinct",
            "not", "or", "and", "p", "q", "r", "f", "0", "100", "?x", "?y",
        ];
        fn expr(next: &mut impl FnMut(usize) -> usize, depth: usize) -> String {
            if depth == 0 || next(3) == 0 {
                return NAMES[next(NAMES.len())].to_string();
            }
            let n = next(4);
            let items: Vec<String> = (0..=n).map(|_| expr(next, depth - 1)).collect();
            format!("({})", items.join(" "))
        }
        for _ in 0..3000 {
            let rules: Vec<String> = (0..next(6))
                .map(|_| {
                    let body: Vec<String> = (0..next(4)).map(|_| expr(&mut next, 4)).collect();
                    format!("(<= {} {})", expr(&mut next, 3), body.join(" "))
                })
                .collect();
            let src = rules.join("\n");
            let parsed = crate::parse::parse(&src, crate::parse::Syntax::Kif);
            let diags = check(&parsed.description);
            let _ = render_all(&diags, "random.kif", &src);
        }
    }

    #[test]
    fn finds_use_paths() {
        let d = crate::parse::parse("(<= a b) (<= b (not c)) (<= c d) (<= d a)", crate::parse::Syntax::Kif).description;
        let cx = Context::new(&d);
        assert_eq!(cx.use_path("a", "d").unwrap().0, ["a", "b", "c", "d"]);
        assert_eq!(cx.use_path("a", "a").unwrap().0, ["a", "b", "c", "d", "a"]);
        assert!(cx.use_path("d", "x").is_none());
        assert!(cx.use_path("x", "a").is_none());
    }

    #[test]
    fn edge_cases_pass_except_the_invalid_ones() {
        for path in kif_files("games-edge-cases") {
            let (name, src, diags) = run(&path);
            let errs = errors(&diags);
            if name.starts_with("test_invalid_") {
                assert!(!errs.is_empty(), "{name} should be rejected");
                let rendered = render_all(&errs, &name, &src);
                assert!(rendered.contains("used with"), "{name}: {rendered}");
            } else {
                assert!(errs.is_empty(), "{name}: {}", render_all(&errs, &name, &src));
            }
        }
    }

    #[test]
    fn the_invalid_edge_cases_name_the_problem() {
        let (name, src, diags) = run(&shared("games-edge-cases").join("test_invalid_sentence_arities_differ.kif"));
        assert_eq!(
            render_all(&errors(&diags), &name, &src),
            "test_invalid_sentence_arities_differ.kif:13:1: error: relation `foo` is used with 2 arguments here, \
             but with 1 argument in its first use, `(foo bar)`\n  \
             hint: a relation has the same number of arguments everywhere; give the other relation its own name\n"
        );
        let (name, src, diags) = run(&shared("games-edge-cases").join("test_invalid_function_arities_differ.kif"));
        assert_eq!(
            render_all(&errors(&diags), &name, &src),
            "test_invalid_function_arities_differ.kif:8:15: error: function `a` is used with 2 arguments here, \
             but with 1 argument in its first use, `(a 1)`\n  \
             hint: a function symbol has the same number of arguments everywhere; give the other function its own name\n"
        );
    }

    #[test]
    fn gdl2_games_pass() {
        for path in kif_files("games-gdl2") {
            let (name, src, diags) = run(&path);
            let errs = errors(&diags);
            assert!(errs.is_empty(), "{name}: {}", render_all(&errs, &name, &src));
        }
    }

    /// The games of the public repository where `goal` depends on its own negation (a rule for
    /// one goal value tests `(not (goal ...))` of another value). The relation-level graph of
    /// the specification (Def. 7) has the cycle goal -> not goal, so they are not stratified as
    /// written; ggp-base's prover plays them because it evaluates per ground atom. They are
    /// accepted with a warning and evaluated with `goal` split by its value (`crate::split`).
    const SPLIT_GOAL: &[&str] = &[
        "futoshiki4.kif",            // (goal robot 100) <= (not (goal robot 0))
        "futoshiki5.kif",            // (goal robot 100) <= (not (goal robot 0))
        "futoshiki6.kif",            // (goal robot 100) <= (not (goal robot 0))
        "hexPie.kif",                // (goal ?r 0) <= (role ?r) (not (goal ?r 100))
        "hidato19.kif",              // (goal robot 100) <= (not (goal robot 0))
        "hidato37.kif",              // (goal robot 100) <= (not (goal robot 0))
        "majorities.kif",            // (goal ?r 0) <= (role ?r) (not (goal ?r 100))
        "nineBoardTicTacToePie.kif", // (goal ?r 0) <= (role ?r) (not (goal ?r 100)) (not (goal ?r 50))
        "queens06ug.kif",            // (goal robot 100) <= (not (goal robot 0))
        "queens08lg.kif",            // (goal robot 100) <= (not (goal robot 0))
        "queens08ug.kif",            // (goal robot 100) <= (not (goal robot 0))
        "queens12ug.kif",            // (goal robot 100) <= (not (goal robot 0))
        "queens16ug.kif",            // (goal robot 100) <= (not (goal robot 0))
        "queens31lg.kif",            // (goal robot 100) <= (not (goal robot 0))
    ];

    #[test]
    fn repository_games_pass() {
        let files = kif_files("games");
        assert_eq!(files.len(), 314);
        let mut rejected = Vec::new();
        for path in &files {
            let (name, src, diags) = run(path);
            if let Some(first) = errors(&diags).first() {
                eprintln!("{}", first.render(&name, &src));
                rejected.push(name);
            }
        }
        eprintln!("{} of {} games rejected", rejected.len(), files.len());
        assert!(rejected.is_empty(), "rejected: {rejected:?}");
    }

    #[test]
    fn goal_negating_goal_is_a_warning_with_the_split_named() {
        for path in kif_files("games") {
            let (name, _, diags) = run(&path);
            let split =
                diags.iter().any(|d| !d.is_error() && d.message.contains("evaluated per value of its argument 2"));
            assert_eq!(split, SPLIT_GOAL.contains(&name.as_str()), "{name}");
        }
    }

    #[test]
    fn quoted_text_is_shortened() {
        assert_eq!(quoted(&"(cell 1 1 b)"), "(cell 1 1 b)");
        let long = format!("(p {})", "é".repeat(300));
        let q = quoted(&long);
        assert!(q.len() <= QUOTE_LIMIT + 4 && q.ends_with(" ..."), "{q}");
        assert!(long.starts_with(q.trim_end_matches(" ...")));
        let d = crate::parse::parse(&format!("(<= p (not (not {long})))"), crate::parse::Syntax::Kif).description;
        assert!(quoted(&LiteralText(&d.rules[0].body[0])).starts_with("(not (not (p éé"));
    }
}
