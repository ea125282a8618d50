//! The infix reader: a pest grammar for the Stanford notes' syntax, turned into the same
//! s-expressions as prefix KIF (`p(X) :- q(X) & ~r(X)` reads as `(<= (p ?x) (q ?x) (not (r ?x)))`).

use super::{check_pair_depth, pest_error, SExpr, MAX_NESTING};
use crate::ast::Span;
use crate::diag::Diagnostic;
use pest::iterators::Pair;
use pest::Parser as _;

#[derive(pest_derive::Parser)]
#[grammar = "parse/infix.pest"]
struct InfixParser;

/// Reads every rule of an infix text as an s-expression.
pub(super) fn read(source: &str) -> Result<Vec<SExpr>, Diagnostic> {
    check_nesting(source)?;
    let file = InfixParser::parse(Rule::file, source)
        .map_err(|e| {
            pest_error(e, "infix GDL", "expected a rule such as `p(X) :- q(X) & ~r(X)`, or a fact such as `role(x)`")
        })?
        .next()
        .expect("the grammar's file rule always yields one pair");
    // A rule, a term or a literal nests at most four pairs for each level counted above.
    check_pair_depth(&file, 4 * MAX_NESTING + 16)?;
    Ok(file.into_inner().filter(|p| p.as_rule() == Rule::rule).map(rule).collect())
}

fn span_of(pair: &Pair<'_, Rule>) -> Span {
    Span::new(pair.as_span().start(), pair.as_span().end())
}

fn rule(pair: Pair<'_, Rule>) -> SExpr {
    let span = span_of(&pair);
    let mut inner = pair.into_inner();
    let head = compound(inner.next().expect("a rule starts with its head"));
    match inner.next() {
        None => head,
        Some(body) => {
            let mut items = vec![SExpr::Sym("<=".into(), Span::new(span.start, span.start)), head];
            items.extend(body.into_inner().map(literal));
            SExpr::List(items, span)
        }
    }
}

fn literal(pair: Pair<'_, Rule>) -> SExpr {
    let inner = pair.into_inner().next().expect("a literal has one alternative");
    let span = span_of(&inner);
    match inner.as_rule() {
        Rule::negation => {
            let operand = literal(inner.into_inner().next().expect("`~` has an operand"));
            SExpr::List(vec![SExpr::Sym("not".into(), Span::new(span.start, span.start + 1)), operand], span)
        }
        Rule::group => {
            let disjunction = inner.into_inner().next().expect("a group holds a disjunction");
            let mut disjuncts: Vec<SExpr> = disjunction.into_inner().map(conjunction).collect();
            if disjuncts.len() == 1 {
                disjuncts.pop().expect("one disjunct")
            } else {
                disjuncts.insert(0, SExpr::Sym("or".into(), Span::new(span.start, span.start)));
                SExpr::List(disjuncts, span)
            }
        }
        Rule::compound => compound(inner),
        other => unreachable!("the infix grammar yields no {other:?} as a literal"),
    }
}

/// A `body` inside a group: one literal stands for itself, several form an `and`.
fn conjunction(pair: Pair<'_, Rule>) -> SExpr {
    let span = span_of(&pair);
    let mut literals: Vec<SExpr> = pair.into_inner().map(literal).collect();
    if literals.len() == 1 {
        literals.pop().expect("one literal")
    } else {
        literals.insert(0, SExpr::Sym("and".into(), Span::new(span.start, span.start)));
        SExpr::List(literals, span)
    }
}

fn compound(pair: Pair<'_, Rule>) -> SExpr {
    let span = span_of(&pair);
    let mut inner = pair.into_inner();
    let name_pair = inner.next().expect("a compound starts with its name");
    let name = SExpr::Sym(name(name_pair.as_str()), span_of(&name_pair));
    match inner.next() {
        None => name,
        Some(args) => {
            let mut items = vec![name];
            items.extend(args.into_inner().map(term));
            SExpr::List(items, span)
        }
    }
}

fn term(pair: Pair<'_, Rule>) -> SExpr {
    match pair.as_rule() {
        Rule::variable => {
            let text = pair.as_str();
            let text = text.strip_prefix('?').unwrap_or(text);
            SExpr::Var(text.to_string(), span_of(&pair))
        }
        Rule::compound => compound(pair),
        other => unreachable!("the infix grammar yields no {other:?} as a term"),
    }
}

/// The symbol a name stands for, spelled as written: quoted names lose their quotes.
fn name(text: &str) -> String {
    match text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        Some(quoted) => quoted.replace("''", "'"),
        None => text.to_string(),
    }
}

/// Refuses input nested deeper than [`MAX_NESTING`] (parentheses plus chained `~`) before the
/// recursive descent sees it.
///
/// The scan follows the grammar's tokens closely enough never to miss a level: a `'` opens a
/// quoted name only outside a `?variable` (whose name may contain `'`), and `%` or `;` opens a
/// comment only outside a quoted name.
fn check_nesting(source: &str) -> Result<(), Diagnostic> {
    #[derive(PartialEq)]
    enum Mode {
        Code,
        Comment,
        Quote,
        Variable,
    }
    let (mut depth, mut tildes) = (0usize, 0usize);
    let mut mode = Mode::Code;
    for (i, c) in source.char_indices() {
        let white = matches!(c, ' ' | '\t' | '\r' | '\n' | '\u{0C}' | '\u{0B}' | '\u{FEFF}' | '\u{A0}');
        match mode {
            Mode::Comment if c == '\n' => mode = Mode::Code,
            Mode::Comment => continue,
            Mode::Quote if c == '\'' => mode = Mode::Code,
            Mode::Quote => continue,
            // A variable's name ends where the grammar's `variable` rule ends; the character
            // that ends it is read as code.
            Mode::Variable if white || matches!(c, '(' | ')' | ',' | ';' | '%') => mode = Mode::Code,
            Mode::Variable => continue,
            Mode::Code => {}
        }
        match c {
            '\'' => mode = Mode::Quote,
            '?' => mode = Mode::Variable,
            '%' | ';' => mode = Mode::Comment,
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '~' => tildes += 1,
            _ if white => {}
            _ => tildes = 0,
        }
        if depth + tildes > MAX_NESTING {
            return Err(Diagnostic::error(
                Span::new(i, i + c.len_utf8()),
                format!("expressions nested deeper than {MAX_NESTING} levels"),
                "game descriptions are shallow; this input is probably not GDL",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one rule of `src`, its names read in any case.
    fn read_one(src: &str) -> String {
        let mut e = read(src).unwrap();
        assert_eq!(e.len(), 1, "{e:?}");
        super::super::sexpr::fold_case(&mut e[0], super::super::Case::Insensitive);
        e[0].to_string()
    }

    #[test]
    fn reads_rules_with_negation_and_conjunction() {
        assert_eq!(
            read_one("legal(W, mark(X,Y)) :- true(cell(X,Y,b)) & ~true(control(W))"),
            "(<= (legal ?w (mark ?x ?y)) (true (cell ?x ?y b)) (not (true (control ?w))))"
        );
    }

    #[test]
    fn reads_question_mark_variables_and_optional_periods() {
        assert_eq!(read_one("p(?x) :- q(?X)."), "(<= (p ?x) (q ?x))");
    }

    #[test]
    fn reads_groups_as_or_and_and() {
        assert_eq!(read_one("p :- (q | r & s)"), "(<= p (or q (and r s)))");
        assert_eq!(read_one("p :- (q)"), "(<= p q)");
    }

    #[test]
    fn reads_quoted_names() {
        assert_eq!(read_one("p('map+', 'it''s')"), "(p map+ it's)");
    }

    #[test]
    fn keeps_empty_parentheses_for_the_reader_to_warn_about() {
        assert_eq!(read_one("open()"), "(open)");
    }

    #[test]
    fn reports_syntax_errors_with_a_position() {
        let d = read("role(x)\nlegal(x :- y").unwrap_err();
        assert!(d.span.start >= 8, "{d:?}");
    }

    #[test]
    fn refuses_deep_nesting() {
        assert!(read(&"~".repeat(10_000)).is_err());
        assert!(read(&format!("p{}", "(".repeat(10_000))).is_err());
    }

    /// A `'` inside a `?variable` was taken for the start of a quoted name, so the nesting after
    /// it went uncounted and the recursive readers overflowed the stack.
    #[test]
    fn a_quote_inside_a_variable_does_not_hide_nesting() {
        let deep = |n: usize| format!("p(?a') :- q({}a{})", "f(".repeat(n), ")".repeat(n));
        let d = read(&deep(10_000)).unwrap_err();
        assert!(d.message.contains("nested deeper"), "{d:?}");
        assert_eq!(read_one(&deep(3)), "(<= (p ?a') (q (f (f (f a)))))");
        // A quote still hides parentheses, and a comment still ends at the line's end.
        assert!(read("p('((((') % ((((\nq").is_ok());
    }

    #[test]
    fn the_deepest_accepted_nesting_reads() {
        let n = MAX_NESTING - 1;
        let groups = format!("p :- {}q{}", "(".repeat(n), ")".repeat(n));
        assert_eq!(read_one(&groups), "(<= p q)");
        let negations = format!("p :- {}q", "~".repeat(MAX_NESTING));
        assert!(read(&negations).is_ok());
        assert!(read(&format!("p :- ~{negations}")).is_err());
    }

    #[test]
    fn the_parse_tree_depth_is_a_backstop() {
        let file = InfixParser::parse(Rule::file, "p(f(g(a)))").unwrap().next().unwrap();
        assert!(check_pair_depth(&file, 16).is_ok());
        assert!(check_pair_depth(&file, 6).unwrap_err().message.contains("nested deeper"));
    }
}
