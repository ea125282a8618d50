//! Reading a game file: its text decoded, parsed and checked, with the diagnostics to show, and
//! its rules as KIF terms, the form in which a game manager sends them in START.

use crate::diag::{render_all_with_source, Diagnostic};
use crate::parse::{self, Syntax};
use crate::{check, print};
use gdl_runtime::kif::{self, Sx};
use std::path::Path;

/// A game read and checked: its text, description and diagnostics.
pub struct Loaded {
    pub file: String,
    pub source: String,
    pub description: crate::ast::Description,
    pub diagnostics: Vec<Diagnostic>,
    /// How its names were read.
    pub case: parse::Case,
}

impl Loaded {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    pub fn render(&self) -> String {
        render_all_with_source(&self.diagnostics, &self.file, &self.source)
    }
}

/// Reads, parses and checks a game file, its names read in any case. I/O failures are errors;
/// GDL problems are diagnostics.
pub fn load(path: &Path) -> Result<Loaded, String> {
    load_in(path, parse::Case::Insensitive)
}

/// [`load`] with names read in `case`.
pub fn load_in(path: &Path, case: parse::Case) -> Result<Loaded, String> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("{file}: error: cannot read the file: {e}"))?;
    let source = match parse::decode(&bytes) {
        Ok(s) => s.to_string(),
        Err(d) => {
            let shown = String::from_utf8_lossy(&bytes).into_owned();
            return Ok(Loaded { file, source: shown, description: Default::default(), diagnostics: vec![d], case });
        }
    };
    let parsed = check::parse_and_check_in(&source, case);
    Ok(Loaded { file, source, description: parsed.description, diagnostics: parsed.diagnostics, case })
}

/// Loads a game that must be valid, its names read in any case, returning the rendered
/// diagnostics otherwise.
pub fn load_valid(path: &Path) -> Result<Loaded, String> {
    load_valid_in(path, parse::Case::Insensitive)
}

/// [`load_valid`] with names read in `case`.
pub fn load_valid_in(path: &Path, case: parse::Case) -> Result<Loaded, String> {
    let loaded = load_in(path, case)?;
    if loaded.has_errors() {
        return Err(loaded.render().trim_end().to_string());
    }
    Ok(loaded)
}

/// A game's rules as a manager sends them in START: the file's own terms, with their spelling,
/// when it is written in KIF, and the rules printed in KIF when it is written in infix.
pub fn rules_of(loaded: &Loaded) -> Result<Vec<Sx>, String> {
    let text = match parse::detect_syntax(&loaded.source) {
        Syntax::Kif => loaded.source.clone(),
        Syntax::Infix => print::print(&loaded.description, Syntax::Kif),
    };
    kif::parse_all(&text).map_err(|e| format!("{}: error: cannot read the rules as KIF: {e}", loaded.file))
}
