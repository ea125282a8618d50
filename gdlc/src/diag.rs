//! Diagnostics: errors and warnings with a source span, rendered as `FILE:LINE:COL: error: message`.

use crate::ast::Span;
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Warning,
    Error,
}

/// One problem found in a game description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub span: Span,
    pub message: String,
    /// A one-line suggestion of how to fix the problem.
    pub hint: String,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>, hint: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Error, span, message: message.into(), hint: hint.into() }
    }

    pub fn warning(span: Span, message: impl Into<String>, hint: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, span, message: message.into(), hint: hint.into() }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders the diagnostic as `FILE:LINE:COL: error: message` followed by an indented hint line.
    pub fn render(&self, file: &str, source: &str) -> String {
        let (line, col) = line_col(source, self.span.start);
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut out = format!("{file}:{line}:{col}: {kind}: {}", self.message);
        if !self.hint.is_empty() {
            let _ = write!(out, "\n  hint: {}", self.hint);
        }
        out
    }
}

/// The 1-based line and column (counted in characters) of a byte offset in `source`.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &source[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

/// Renders all diagnostics, errors and warnings in source order, one block per diagnostic.
pub fn render_all(diagnostics: &[Diagnostic], file: &str, source: &str) -> String {
    let mut sorted: Vec<&Diagnostic> = diagnostics.iter().collect();
    sorted.sort_by_key(|d| (d.span.start, std::cmp::Reverse(d.severity)));
    let mut out = String::new();
    for d in sorted {
        out.push_str(&d.render(file, source));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based() {
        let src = "ab\ncd\n";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 4), (2, 2));
        assert_eq!(line_col(src, 100), (3, 1));
    }

    #[test]
    fn renders_file_line_col_and_hint() {
        let d = Diagnostic::error(Span::new(3, 4), "bad thing", "do the good thing");
        assert_eq!(d.render("g.kif", "ab\ncd"), "g.kif:2:1: error: bad thing\n  hint: do the good thing");
    }
}
