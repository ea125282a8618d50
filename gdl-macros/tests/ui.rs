//! `gdl!` as a user's crate sees it: valid games compile to a working game, invalid ones fail
//! with `compile_error!`s that locate the problem, and nothing panics.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass_*.rs");
    cases.compile_fail("tests/ui/fail_*.rs");
}
