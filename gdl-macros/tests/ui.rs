//! `gdl!` as a user's crate sees it: valid games compile to a working game, invalid ones fail
//! with `compile_error!`s that locate the problem, and nothing panics.

#[test]
fn ui() {
    // trybuild builds the macro and its dependencies again in a project of its own, under
    // cargo's default profile. Line tables, as the workspace's own profile has, are enough
    // there too, and quicker to build than full debug information.
    std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "line-tables-only");
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass_*.rs");
    cases.compile_fail("tests/ui/fail_*.rs");
}
