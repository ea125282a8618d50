//! Tests of the rtGDL front end: recognition, the checks' diagnostics, and erasure.

use crate::check::parse_and_check;
use crate::diag::Diagnostic;

const CHICKEN: &str = include_str!("../../../games/rtgdl/chicken.kif");

fn errors(source: &str) -> Vec<String> {
    parse_and_check(source).diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect()
}

/// The first error rendered with its position, `START:LINE:COL: error: ...`.
fn first_error(source: &str) -> String {
    let parsed = parse_and_check(source);
    let errors: Vec<Diagnostic> = parsed.diagnostics.into_iter().filter(Diagnostic::is_error).collect();
    assert!(!errors.is_empty(), "expected an error in:\n{source}");
    errors[0].render("game.kif", source)
}

#[test]
fn chicken_is_a_valid_realtime_game() {
    let parsed = parse_and_check(CHICKEN);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    assert!(super::is_realtime(&parsed.description));
}

#[test]
fn plain_games_are_not_realtime_and_a_two_argument_true_stays_an_error() {
    let plain = "(role a) (init p) (<= (legal a go) (true p)) (<= (next p) (true p)) (<= terminal (true q)) (<= (goal a 100) (true p))";
    let parsed = parse_and_check(plain);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    assert!(!super::is_realtime(&parsed.description));
    // Without a timed `init`, a game with `(true ?t F)` is plain GDL and refused as before.
    let misuse = "(role a) (init p) (<= (legal a go) (true ?t p)) (<= (next p) (true p)) (<= terminal (true q)) (<= (goal a 100) (true p))";
    assert!(!errors(misuse).is_empty());
    assert!(!super::is_realtime(&parse_and_check(misuse).description));
}

#[test]
fn malformed_lifetimes_are_errors_with_positions() {
    let base = "(role a)\n(<= (legal a go) (true ?t p))\n(<= (next ?t p) (true ?t p))\n(<= terminal (expired p))\n(<= (goal a 100) (true ?t p))\n";
    let cases = [
        ("(init -1.0 p)\n", "game.kif:1:7: error: the lifetime `-1.0` is not a number of seconds"),
        ("(init 0 p)\n", "game.kif:1:7: error: the lifetime `0` is zero"),
        ("(init 1.0 p)\n(init 1e3 q)\n", "game.kif:2:7: error: the lifetime `1e3` is not a number"),
        (
            "(init 1.0 p)\n(init q)\n",
            "game.kif:2:1: error: this is an rtGDL game (an `init` gives a lifetime), so `init` needs a lifetime",
        ),
    ];
    for (first, expected) in cases {
        let source = format!("{first}{base}");
        let error = first_error(&source);
        assert!(error.starts_with(expected), "{first}: {error}");
    }
}

#[test]
fn mixing_timed_and_untimed_true_is_an_error() {
    let source = "(role a)\n(init 1.0 p)\n(<= (legal a go) (true p))\n(<= (next ?t p) (true ?t p))\n(<= terminal (expired p))\n(<= (goal a 100) (true ?t p))\n";
    let error = first_error(source);
    assert!(error.starts_with("game.kif:3:18: error: this is an rtGDL game"), "{error}");
    assert!(error.contains("timed and untimed facts cannot be mixed"), "{error}");
}

#[test]
fn lifetimes_outside_the_supported_fragment_are_errors() {
    let game = |rule: &str| {
        format!(
            "(role a) (init 1.0 p) (init infinity q) {rule} (<= (legal a go) (true ?t p)) (<= (next ?t p) (true ?t p)) \
             (<= terminal (expired p)) (<= (goal a 100) (true ?t q))"
        )
    };
    let cases = [
        ("(<= (next ?t q) (true ?u q))", "the lifetime `?t` of `next` must be the lifetime of exactly one"),
        ("(<= (next ?t q) (true ?t q) (true ?t p))", "is the lifetime of several `true` literals"),
        ("(<= (next ?t q) (not (true ?t p)) (true ?s q))", "the lifetime `?t` of `next` must be"),
        ("(<= (next 1.0 (r ?t)) (true ?t q))", "the lifetime variable `?t` is also used as a term"),
        ("(<= (next 1.0 q) (true infinity q))", "tests the value of a lifetime"),
        ("(<= (next soon q) (true ?t q))", "`soon` is not a lifetime"),
        ("(<= (expired q) (true ?t q))", "`expired` cannot be the head of a rule"),
        ("(<= (next 1.0 (rtgdl:x)) (true ?t q))", "`rtgdl:x` starts with `rtgdl:`"),
    ];
    for (rule, expected) in cases {
        let found = errors(&game(rule));
        assert!(found.iter().any(|e| e.contains(expected)), "{rule}: {found:?}");
    }
    assert!(errors(&game("(<= (next ?t q) (true ?t q) (true ?s p))")).is_empty());
}

#[test]
fn erasure_keeps_the_rules_and_adds_lifetime_markers() {
    let parsed = parse_and_check(CHICKEN);
    let erased = super::erase(&parsed.description);
    let printed = crate::print::print(&erased, crate::parse::Syntax::Kif);
    for expected in [
        "(init (dir white straight))",
        "(init (rtgdl:lifetime (dir white straight) (rtgdl:const infinity)))",
        "(init (rtgdl:lifetime timer (rtgdl:const 1.0)))",
        "(<= (next (rtgdl:lifetime timer (rtgdl:copy timer)))\n    (true timer))",
        "(<= terminal\n    (true (rtgdl:expired timer)))",
        "(<= (next (rtgdl:expired ?f))\n    (true (rtgdl:lifetime ?f ?s)))",
    ] {
        assert!(printed.contains(expected), "missing {expected} in:\n{printed}");
    }
    assert!(crate::check::check(&erased).iter().all(|d| !d.is_error()));
}

#[test]
fn decimal_lifetimes_print_and_read_back_in_infix() {
    let parsed = parse_and_check(CHICKEN);
    let infix = crate::print::print(&parsed.description, crate::parse::Syntax::Infix);
    assert!(infix.contains("init(1.0, timer)"), "{infix}");
    let mut reread = parse_and_check(&infix);
    assert!(!reread.has_errors(), "{:?}", reread.diagnostics);
    let mut original = parsed.description;
    original.clear_spans();
    reread.description.clear_spans();
    assert_eq!(original, reread.description);
}
