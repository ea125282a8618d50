//! Comments in the rendered module: which GDL atom or rule each node and table computes.
//!
//! Token streams carry no comments, so when [`Notes`] are given the emitters write a marker
//! statement or item, `gdlc_note!("...");`, which [`rewrite`] turns into a `// ...` line of
//! the same indentation after formatting. The `gdl!` macro never asks for notes, so the tokens
//! it expands never hold a marker (which would not compile).

use crate::ast::{Atom, Term};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::BTreeMap;

/// The name of the marker macro: [`note`] writes it, [`rewrite`] turns it into comments, and
/// the token count of `--form auto` skips it.
pub(crate) const MACRO: &str = "gdlc_note";

/// The most line numbers a comment lists for one relation.
const MAX_LINES: usize = 8;

/// What comments can say about a game: its file's name and, for every relation the game's
/// rules define, the 1-based lines where those rules start.
#[derive(Clone, Debug, Default)]
pub struct Notes {
    file: String,
    lines: BTreeMap<String, Vec<u32>>,
    /// The byte offset where each line of the source starts.
    line_starts: Vec<usize>,
}

impl Notes {
    /// The notes of the game in `source` (either syntax), whose file is named `file` in
    /// comments. A source that does not parse gives notes without line numbers.
    pub fn new(file: &str, source: &str) -> Notes {
        let parsed = crate::parse::parse_auto(source);
        let mut lines: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for rule in &parsed.description.rules {
            let line =
                1 + source.as_bytes()[..rule.span.start.min(source.len())].iter().filter(|&&b| b == b'\n').count();
            let entry = lines.entry(atom_key(&rule.head)).or_default();
            if entry.last() != Some(&(line as u32)) {
                entry.push(line as u32);
            }
        }
        let line_starts = std::iter::once(0).chain(source.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Notes { file: file.to_string(), lines, line_starts }
    }

    /// Where the rule at `span` is written, `Rule at ticTacToe.kif:40`, or what wrote it when
    /// it has no span (a rule that a pass of gdlc wrote).
    pub(crate) fn rule_at(&self, span: crate::ast::Span) -> String {
        if span == crate::ast::Span::default() {
            return "Rule written by gdlc".to_string();
        }
        let line = self.line_starts.partition_point(|&start| start <= span.start);
        format!("Rule at {}:{line}", self.file)
    }

    /// `atom` (canonical KIF), with the lines of the rules of its relation when the game has
    /// rules for it: `(line x), rules at ticTacToe.kif:40, 44`.
    pub(crate) fn atom(&self, atom: &str) -> String {
        match self.lines.get(&name_key(atom)) {
            Some(lines) => {
                let mut list: Vec<String> = lines.iter().take(MAX_LINES).map(u32::to_string).collect();
                if lines.len() > MAX_LINES {
                    list.push(format!("and {} more", lines.len() - MAX_LINES));
                }
                format!("{atom}, rules at {}:{}", self.file, list.join(", "))
            }
            None => atom.to_string(),
        }
    }
}

/// The marker of a comment saying `text` (a statement or an item), or nothing without notes.
pub(crate) fn note(notes: Option<&Notes>, text: impl FnOnce(&Notes) -> String) -> TokenStream {
    match notes {
        Some(notes) => {
            let text = text(notes);
            let text = text.replace('\n', " ");
            let name = quote::format_ident!("{MACRO}");
            quote!(#name!(#text);)
        }
        None => TokenStream::new(),
    }
}

/// The formatted module with every marker turned into a comment line of its indentation; a
/// marker too long for one line is formatted over three.
pub(crate) fn rewrite(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if !trimmed.strip_prefix(MACRO).is_some_and(|call| call.starts_with("!(")) {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let indent = &line[..line.len() - trimmed.len()];
        let mut marker = trimmed.to_string();
        while !marker.ends_with(");") {
            match lines.next() {
                Some(more) => marker.push_str(more.trim()),
                None => break,
            }
        }
        let literal = match (marker.find('"'), marker.rfind('"')) {
            (Some(start), Some(end)) if start < end => &marker[start + 1..end],
            _ => marker.as_str(),
        };
        out.push_str(indent);
        out.push_str("// ");
        out.push_str(&literal.replace("\\\"", "\"").replace("\\\\", "\\"));
        out.push('\n');
    }
    out
}

/// The key under which rules of `head` are found: the relation's name, and for `init`,
/// `next`, `legal` and `sees` also the name of the fact, move or percept they give (an rtGDL
/// `next` gives its fact after a lifetime).
fn atom_key(head: &Atom) -> String {
    let functor = |term: Option<&Term>| match term {
        Some(Term::Const(name, _) | Term::Func(name, _, _)) => name.clone(),
        _ => String::new(),
    };
    match head.name.as_str() {
        // rtGDL's `(next T F)` gives the fact after its lifetime.
        "init" | "next" => format!("{} {}", head.name, functor(head.args.last())),
        "legal" | "sees" => format!("{} {}", head.name, functor(head.args.get(1))),
        _ => head.name.clone(),
    }
}

/// [`atom_key`] of an atom in canonical KIF; an atom of an invented relation, whose name is
/// a compound term, has a key no rule has.
fn name_key(atom: &str) -> String {
    let spaced = atom.replace('(', " ( ").replace(')', " ) ");
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    if tokens.first() != Some(&"(") {
        return tokens.first().map_or_else(String::new, |t| t.to_string());
    }
    let name = tokens.get(1).copied().unwrap_or("(");
    // The functor of the argument at `index`, skipping over nested terms.
    let functor = |index: usize| -> String {
        let (mut depth, mut seen) = (0usize, 0usize);
        let mut i = 2;
        while i < tokens.len() {
            let token = tokens[i];
            if depth == 0 && token != ")" {
                if seen == index {
                    return if token == "(" {
                        tokens.get(i + 1).copied().unwrap_or("").to_string()
                    } else {
                        token.to_string()
                    };
                }
                seen += 1;
            }
            match token {
                "(" => depth += 1,
                ")" => depth = depth.saturating_sub(1),
                _ => {}
            }
            i += 1;
        }
        String::new()
    };
    match name {
        "init" | "next" => format!("{name} {}", functor(0)),
        "legal" | "sees" => format!("{name} {}", functor(1)),
        _ => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_atoms_and_rules_agree() {
        let notes = Notes::new("t.kif", "(role x)\n(<= (line ?p)\n (true (cell ?p)))\n(<= (next (cell ?p)) (does x (mark ?p)))\n(<= (legal x (mark ?p)) (true (cell ?p)))\n");
        assert_eq!(notes.atom("(line x)"), "(line x), rules at t.kif:2");
        assert_eq!(notes.atom("(next (cell 1))"), "(next (cell 1)), rules at t.kif:4");
        assert_eq!(notes.atom("(legal x (mark 1))"), "(legal x (mark 1)), rules at t.kif:5");
        assert_eq!(notes.atom("((aux 4) 1)"), "((aux 4) 1)");
    }

    #[test]
    fn markers_become_comments() {
        let text = "fn f() {\n    gdlc_note!(\"n[0]: (a \\\"b\\\")\");\n    x();\n}\n";
        assert_eq!(rewrite(text), "fn f() {\n    // n[0]: (a \"b\")\n    x();\n}\n");
        let long = "    gdlc_note!(\n        \"BASE[3]: (next (c 1))\"\n    );\n";
        assert_eq!(rewrite(long), "    // BASE[3]: (next (c 1))\n");
    }
}
