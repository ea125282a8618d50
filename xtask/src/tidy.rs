//! `cargo xtask tidy`: the house rules that no compiler or linter checks, over every Rust file
//! that git tracks.
//!
//! - Every hand-written file opens with a `//!` line that says what it is.
//! - Every `unsafe` block, function or impl has a `// SAFETY:` comment just above it.
//! - No hand-written file is longer than [`MAX_LINES`] lines.
//! - Every generated module opens with the `@generated` header that names its command.
//! - Every ignored test says why (`#[ignore = "..."]`): `cargo xtask test-long` runs them, and
//!   the reason is what `cargo test` prints for each.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The most lines a hand-written source file may have.
pub(crate) const MAX_LINES: usize = 600;

/// How many lines above an `unsafe` may hold its `// SAFETY:` comment.
const SAFETY_REACH: usize = 3;

/// What follows the keyword `unsafe` in code: a block, or an item that is unsafe.
const UNSAFE_ITEMS: &[&str] = &["{", "fn ", "impl", "trait ", "extern "];

/// Folders whose Rust files are written by `cargo codegen`, not by hand.
const GENERATED: &[&str] = &["generated/src/games/", "generated/src/realtime/"];

/// A broken rule, at a file and line.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    pub file: PathBuf,
    pub line: usize,
    pub rule: Rule,
}

/// The house rules.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// The file does not open with a `//!` line.
    ModuleDoc,
    /// An `unsafe` with no `// SAFETY:` comment just above it.
    SafetyComment,
    /// The file has this many lines, more than [`MAX_LINES`].
    TooLong(usize),
    /// A generated module without its `@generated` header.
    GeneratedHeader,
    /// An `#[ignore]` with no reason.
    IgnoreWithoutReason,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = format!("{}:{}", self.file.display(), self.line);
        match &self.rule {
            Rule::ModuleDoc => write!(f, "{place}: the file does not open with a `//!` line saying what it is"),
            Rule::SafetyComment => write!(f, "{place}: `unsafe` without a `// SAFETY:` comment just above it"),
            Rule::TooLong(lines) => {
                write!(f, "{place}: {lines} lines, more than {MAX_LINES}: split the file by what it does")
            }
            Rule::GeneratedHeader => write!(f, "{place}: a generated module without its `// @generated` header"),
            Rule::IgnoreWithoutReason => {
                write!(f, "{place}: `#[ignore]` without a reason: say why, as `#[ignore = \"...\"]`")
            }
        }
    }
}

/// Checks every tracked Rust file under `root`, returning the problems in file order.
pub(crate) fn run(root: &Path) -> Result<Vec<Problem>, String> {
    let mut problems = Vec::new();
    for file in tracked_rust_files(root)? {
        let text = std::fs::read_to_string(root.join(&file)).map_err(|e| format!("{}: {e}", file.display()))?;
        problems.extend(check_file(&file, &text));
    }
    Ok(problems)
}

/// The Rust files git tracks under `root`, relative to it and sorted.
fn tracked_rust_files(root: &Path) -> Result<Vec<PathBuf>, String> {
    let output = Command::new("git")
        .args(["ls-files", "-z", "--", "*.rs"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !output.status.success() {
        return Err(format!("git ls-files failed: {}", String::from_utf8_lossy(&output.stderr).trim()));
    }
    let mut files: Vec<PathBuf> = output
        .stdout
        .split(|&b| b == 0)
        .filter(|name| !name.is_empty())
        .map(|name| PathBuf::from(String::from_utf8_lossy(name).into_owned()))
        .collect();
    files.sort();
    Ok(files)
}

/// Whether `file` (relative to the root) is written by `cargo codegen`.
fn is_generated(file: &Path) -> bool {
    let path = file.to_string_lossy().replace('\\', "/");
    GENERATED.iter().any(|dir| path.starts_with(dir))
}

/// The problems of one file.
pub(crate) fn check_file(file: &Path, text: &str) -> Vec<Problem> {
    let problem = |line, rule| Problem { file: file.to_path_buf(), line, rule };
    if is_generated(file) {
        let header = text.lines().next().is_some_and(|l| l.starts_with("// @generated"));
        return if header { Vec::new() } else { vec![problem(1, Rule::GeneratedHeader)] };
    }
    let mut problems = Vec::new();
    if !opens_with_module_doc(text) {
        problems.push(problem(1, Rule::ModuleDoc));
    }
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() > MAX_LINES {
        problems.push(problem(1, Rule::TooLong(lines.len())));
    }
    for (index, line) in lines.iter().enumerate() {
        if opens_unsafe(line) && !has_safety_comment(&lines[..index]) {
            problems.push(problem(index + 1, Rule::SafetyComment));
        }
        if line.trim() == "#[ignore]" {
            problems.push(problem(index + 1, Rule::IgnoreWithoutReason));
        }
    }
    problems
}

/// Whether the first line that is neither blank nor an inner attribute is a `//!` comment.
fn opens_with_module_doc(text: &str) -> bool {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with("#!["));
    first.is_some_and(|l| l.starts_with("//!"))
}

/// Whether `line` opens an `unsafe` block, function, impl or trait (not a comment or a string
/// that mentions the word, nor an `unsafe_*` name).
fn opens_unsafe(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or_default();
    let mut rest = code;
    while let Some(at) = rest.find("unsafe") {
        let before = rest[..at].chars().next_back();
        let word_start = !matches!(before, Some(c) if c.is_alphanumeric() || c == '_');
        let next = rest[at + "unsafe".len()..].trim_start();
        let opens = next.is_empty() || UNSAFE_ITEMS.iter().any(|item| next.starts_with(item));
        let in_string = rest[..at].matches('"').count() % 2 == 1;
        if word_start && opens && !in_string {
            return true;
        }
        rest = &rest[at + "unsafe".len()..];
    }
    false
}

/// Whether one of the last [`SAFETY_REACH`] lines of `above` is a `// SAFETY:` comment.
fn has_safety_comment(above: &[&str]) -> bool {
    above.iter().rev().take(SAFETY_REACH).any(|l| l.trim_start().starts_with("// SAFETY:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(file: &str, text: &str) -> Vec<Rule> {
        check_file(Path::new(file), text).into_iter().map(|p| p.rule).collect()
    }

    #[test]
    fn a_file_without_a_module_doc_line_is_a_problem() {
        assert_eq!(rules("a/src/x.rs", "//! What x is.\nfn f() {}\n"), vec![]);
        assert_eq!(rules("a/src/x.rs", "#![allow(dead_code)]\n\n//! What x is.\n"), vec![]);
        assert_eq!(rules("a/src/x.rs", "// What x is.\nfn f() {}\n"), vec![Rule::ModuleDoc]);
        assert_eq!(rules("a/src/x.rs", "use std::fmt;\n"), vec![Rule::ModuleDoc]);
    }

    #[test]
    fn unsafe_needs_a_safety_comment_just_above() {
        let with = "//! x\nfn f() {\n    // SAFETY: the target has SSE2.\n    unsafe { g() }\n}\n";
        assert_eq!(rules("a/src/x.rs", with), vec![]);
        let without = "//! x\nfn f() {\n    // Calls g.\n    unsafe { g() }\n}\n";
        let found = check_file(Path::new("a/src/x.rs"), without);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].line, &found[0].rule), (4, &Rule::SafetyComment));
        let far = "//! x\n// SAFETY: far away.\n\n\n\nunsafe fn g() {}\n";
        assert_eq!(rules("a/src/x.rs", far), vec![Rule::SafetyComment]);
    }

    #[test]
    fn words_that_contain_unsafe_are_not_unsafe() {
        let text = "//! x\nfn unsafe_rule() {}\nconst M: &str = \"an unsafe rule\";\n// unsafe here\n";
        assert_eq!(rules("a/src/x.rs", text), vec![]);
        let continued = "//! x\nconst M: &str = \"a rule \\\n    unsafe rule for `p`\";\n";
        assert_eq!(rules("a/src/x.rs", continued), vec![]);
    }

    #[test]
    fn a_long_hand_written_file_is_a_problem_and_a_long_generated_one_is_not() {
        let long = format!("//! x\n{}", "fn f() {}\n".repeat(MAX_LINES));
        assert_eq!(rules("a/src/x.rs", &long), vec![Rule::TooLong(MAX_LINES + 1)]);
        let generated = format!("// @generated by `cargo codegen`; do not edit.\n{}", "fn f() {}\n".repeat(MAX_LINES));
        assert_eq!(rules("generated/src/games/x.rs", &generated), vec![]);
    }

    #[test]
    fn an_ignored_test_says_why() {
        let with = "//! x\n#[test]\n#[ignore = \"long; run by `cargo xtask test-long`\"]\nfn t() {}\n";
        assert_eq!(rules("a/tests/x.rs", with), vec![]);
        let without = "//! x\n#[test]\n#[ignore]\nfn t() {}\n";
        assert_eq!(rules("a/tests/x.rs", without), vec![Rule::IgnoreWithoutReason]);
    }

    #[test]
    fn a_generated_module_needs_its_header() {
        assert_eq!(rules("generated/src/games/x.rs", "fn f() {}\n"), vec![Rule::GeneratedHeader]);
        assert_eq!(rules("generated/src/games/mod.rs", "//! The games.\n"), vec![Rule::GeneratedHeader]);
    }
}
