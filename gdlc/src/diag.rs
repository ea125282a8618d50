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
        self.render_at(file, line_col(source, self.span.start))
    }

    fn render_at(&self, file: &str, (line, col): (usize, usize)) -> String {
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

/// The most diagnostics [`render_all`] prints; the rest are counted in one closing line.
pub const MAX_RENDERED: usize = 1000;

/// Renders diagnostics in source order, one block each, at most [`MAX_RENDERED`] of them.
pub fn render_all(diagnostics: &[Diagnostic], file: &str, source: &str) -> String {
    let mut sorted: Vec<&Diagnostic> = diagnostics.iter().collect();
    sorted.sort_by_key(|d| (d.span.start, std::cmp::Reverse(d.severity)));
    let lines = LineIndex::new(source);
    let mut out = String::new();
    for d in sorted.iter().take(MAX_RENDERED) {
        out.push_str(&d.render_at(file, lines.line_col(source, d.span.start)));
        out.push('\n');
    }
    if sorted.len() > MAX_RENDERED {
        out.push_str(&format!("{file}: ... and {} more diagnostics\n", sorted.len() - MAX_RENDERED));
    }
    out
}

/// The byte offsets where lines start, for finding many positions in one text quickly.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(source: &str) -> LineIndex {
        let starts =
            std::iter::once(0).chain(source.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1));
        LineIndex { starts: starts.collect() }
    }

    fn line_col(&self, source: &str, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(source.len());
        while !source.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1];
        (line, source[start..offset].chars().count() + 1)
    }
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
    fn the_line_index_agrees_with_line_col() {
        let src = "ab\ncé\n\nxyz";
        let index = LineIndex::new(src);
        for offset in 0..=src.len() + 2 {
            assert_eq!(index.line_col(src, offset), line_col(src, offset), "offset {offset}");
        }
    }

    #[test]
    fn many_diagnostics_are_capped() {
        let src = "x\n".repeat(MAX_RENDERED + 5);
        let diags: Vec<Diagnostic> =
            (0..MAX_RENDERED + 5).map(|i| Diagnostic::warning(Span::new(2 * i, 2 * i + 1), "w", "")).collect();
        let out = render_all(&diags, "f", &src);
        assert_eq!(out.lines().count(), MAX_RENDERED + 1);
        assert!(out.ends_with("f: ... and 5 more diagnostics\n"));
    }

    #[test]
    fn renders_file_line_col_and_hint() {
        let d = Diagnostic::error(Span::new(3, 4), "bad thing", "do the good thing");
        assert_eq!(d.render("g.kif", "ab\ncd"), "g.kif:2:1: error: bad thing\n  hint: do the good thing");
    }
}
