//! Diagnostics: errors and warnings with a source span, rendered as `FILE:LINE:COL: error: message`.

use crate::ast::Span;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether diagnostics rendered with their source carry a terminal's colours (see
/// [`use_colour`]).
static COLOUR: AtomicBool = AtomicBool::new(false);

/// Makes [`render_all_with_source`] colour what it renders, as rustc does on a terminal: the
/// `gdlc` command turns it on when standard error is a terminal and `NO_COLOR` is not set.
pub fn use_colour(on: bool) {
    COLOUR.store(on, Ordering::Relaxed);
}

/// The ANSI escapes of one rendering: all empty when it is not coloured.
#[derive(Clone, Copy)]
struct Palette {
    /// The location and the message.
    bold: &'static str,
    /// `error` or `warning`, and the carets.
    kind: &'static str,
    /// The line numbers and the bars beside the source line.
    gutter: &'static str,
    hint: &'static str,
    reset: &'static str,
}

impl Palette {
    const PLAIN: Palette = Palette { bold: "", kind: "", gutter: "", hint: "", reset: "" };

    fn of(severity: Severity, colour: bool) -> Palette {
        if !colour {
            return Palette::PLAIN;
        }
        let kind = match severity {
            Severity::Error => "\x1b[1;31m",
            Severity::Warning => "\x1b[1;33m",
        };
        Palette { bold: "\x1b[1m", kind, gutter: "\x1b[1;34m", hint: "\x1b[1;36m", reset: "\x1b[0m" }
    }
}

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

    /// [`Diagnostic::render`] for a compiler that says `error:` itself (`gdl!`'s
    /// `compile_error!`s): an error reads `FILE:LINE:COL: message`, without a second `error:`,
    /// followed by the source line with carets under what it is about, since a procedural
    /// macro on stable Rust can point only at the whole string literal the game is in.
    pub fn render_unlabelled(&self, file: &str, source: &str) -> String {
        let labelled = self.severity != Severity::Error;
        let lines = LineIndex::new(source);
        let at = lines.line_col(source, self.span.start);
        let snippet = snippet(source, &lines, self.span, at, Palette::PLAIN);
        self.render_with(file, at, &snippet, Palette::PLAIN, labelled)
    }

    fn render_at(&self, file: &str, (line, col): (usize, usize)) -> String {
        self.render_with(file, (line, col), "", Palette::PLAIN, true)
    }

    /// The diagnostic's line (its kind, `error` or `warning`, after the location when
    /// `labelled`), then `snippet` (the source lines it points at), then its hint.
    fn render_with(
        &self,
        file: &str,
        (line, col): (usize, usize),
        snippet: &str,
        p: Palette,
        labelled: bool,
    ) -> String {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let (bold, colour, reset) = (p.bold, p.kind, p.reset);
        let label = if labelled { format!("{colour}{kind}{reset}{bold}: ") } else { bold.to_string() };
        let mut out = format!("{bold}{file}:{line}:{col}:{reset} {label}{}{reset}", self.message);
        out.push_str(snippet);
        if !self.hint.is_empty() {
            let _ = write!(out, "\n  {}hint{reset}: {}", p.hint, self.hint);
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

/// Renders diagnostics in source order, one block each (the `FILE:LINE:COL: error: message`
/// line and the hint), at most [`MAX_RENDERED`] of them: the compact form, for logs and replies.
pub fn render_all(diagnostics: &[Diagnostic], file: &str, source: &str) -> String {
    render_blocks(diagnostics, file, source, false, false)
}

/// [`render_all`] as rustc renders for a person reading a terminal: each diagnostic's line is
/// followed by the source line with carets under what it is about, then its hint; in colour
/// when [`use_colour`] turned it on.
pub fn render_all_with_source(diagnostics: &[Diagnostic], file: &str, source: &str) -> String {
    render_blocks(diagnostics, file, source, true, COLOUR.load(Ordering::Relaxed))
}

fn render_blocks(diagnostics: &[Diagnostic], file: &str, source: &str, with_source: bool, colour: bool) -> String {
    let mut sorted: Vec<&Diagnostic> = diagnostics.iter().collect();
    sorted.sort_by_key(|d| (d.span.start, std::cmp::Reverse(d.severity)));
    let lines = LineIndex::new(source);
    let mut out = String::new();
    for d in sorted.iter().take(MAX_RENDERED) {
        let at = lines.line_col(source, d.span.start);
        let palette = Palette::of(d.severity, colour);
        let snippet = if with_source { snippet(source, &lines, d.span, at, palette) } else { String::new() };
        out.push_str(&d.render_with(file, at, &snippet, palette, true));
        out.push('\n');
    }
    if sorted.len() > MAX_RENDERED {
        out.push_str(&format!("{file}: ... and {} more diagnostics\n", sorted.len() - MAX_RENDERED));
    }
    out
}

/// The source line of a span with carets under the span (to the end of the line when the span
/// goes on), behind a gutter of the line's number: empty when the span is not in the source.
fn snippet(source: &str, lines: &LineIndex, span: Span, (line, col): (usize, usize), p: Palette) -> String {
    if span.start >= source.len() || line == 0 || line > lines.starts.len() {
        return String::new();
    }
    let start = lines.starts[line - 1];
    let end = source[start..].find('\n').map_or(source.len(), |i| start + i);
    // Tabs are shown as one space, so that the carets stand under the characters they mark.
    let text: String =
        source[start..end].trim_end_matches('\r').chars().map(|c| if c == '\t' { ' ' } else { c }).collect();
    let mut until = span.end.clamp(span.start, end);
    while !source.is_char_boundary(until) {
        until -= 1;
    }
    let marked = source[span.start.min(until)..until].chars().count().max(1);
    let gutter = line.to_string();
    let pad = " ".repeat(gutter.len());
    let (blue, red, reset) = (p.gutter, p.kind, p.reset);
    let (spaces, carets) = (" ".repeat(col - 1), "^".repeat(marked));
    format!("\n{blue}{pad} |{reset}\n{blue}{gutter} |{reset} {text}\n{blue}{pad} |{reset} {spaces}{red}{carets}{reset}")
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
    fn render_all_shows_the_source_line_with_carets_under_the_span() {
        let src = "(role x)\n(<= (legal x go)\n\t(true (bad)))\n";
        let at = src.find("(bad)").unwrap();
        let d = Diagnostic::error(Span::new(at, at + 5), "bad thing", "do the good thing");
        let out = render_all_with_source(std::slice::from_ref(&d), "g.kif", src);
        assert_eq!(render_all(&[d], "g.kif", src), "g.kif:3:8: error: bad thing\n  hint: do the good thing\n");
        assert_eq!(
            out,
            "g.kif:3:8: error: bad thing\n  |\n3 |  (true (bad)))\n  |        ^^^^^\n  hint: do the good thing\n"
        );
        let past = Diagnostic::error(Span::new(src.len(), src.len()), "at the end", "");
        assert_eq!(render_all_with_source(&[past], "g.kif", src), "g.kif:4:1: error: at the end\n");
    }

    #[test]
    fn in_colour_the_kind_and_carets_are_red_and_the_gutter_blue() {
        let src = "(role x)\n(bad)\n";
        let d = Diagnostic::error(Span::new(9, 14), "bad thing", "do the good thing");
        let out = render_blocks(std::slice::from_ref(&d), "g.kif", src, true, true);
        assert_eq!(
            out,
            "\x1b[1mg.kif:2:1:\x1b[0m \x1b[1;31merror\x1b[0m\x1b[1m: bad thing\x1b[0m\n\x1b[1;34m  |\x1b[0m\n\
             \x1b[1;34m2 |\x1b[0m (bad)\n\x1b[1;34m  |\x1b[0m \x1b[1;31m^^^^^\x1b[0m\n  \x1b[1;36mhint\x1b[0m: do the good thing\n"
        );
        let plain = render_blocks(&[d], "g.kif", src, true, false);
        assert!(!plain.contains('\x1b'), "{plain}");
    }

    #[test]
    fn renders_file_line_col_and_hint() {
        let d = Diagnostic::error(Span::new(3, 4), "bad thing", "do the good thing");
        assert_eq!(d.render("g.kif", "ab\ncd"), "g.kif:2:1: error: bad thing\n  hint: do the good thing");
        // `gdl!`'s form: no `error:` (rustc writes it), and the source line with a caret.
        let snippet = "\n  |\n2 | cd\n  | ^";
        assert_eq!(
            d.render_unlabelled("g.kif", "ab\ncd"),
            format!("g.kif:2:1: bad thing{snippet}\n  hint: do the good thing")
        );
        let w = Diagnostic::warning(Span::new(3, 4), "odd thing", "");
        assert_eq!(w.render_unlabelled("g.kif", "ab\ncd"), format!("g.kif:2:1: warning: odd thing{snippet}"));
    }
}
