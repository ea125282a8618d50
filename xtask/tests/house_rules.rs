//! The repository's own rules as tests: the house rules of `cargo xtask tidy`, and the
//! checked-in generated modules fresh (`cargo codegen --check`).

use std::process::Command;

/// Runs `xtask ARGS` from the workspace root and fails with its output when it fails.
fn xtask(args: &[&str]) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let output = Command::new(env!("CARGO_BIN_EXE_xtask")).args(args).current_dir(root).output();
    let output = output.unwrap_or_else(|e| panic!("cannot run xtask: {e}"));
    assert!(
        output.status.success(),
        "`cargo xtask {}` failed:\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn house_rules_hold() {
    xtask(&["tidy"]);
}

#[test]
fn generated_modules_are_fresh() {
    xtask(&["codegen", "--check"]);
}
