//! The compiled engine: a game file through the compiler to its module, the module built into
//! the game's per-game binary (cached, [`crate::native`]), and that binary run in place of the
//! interpreter.

use crate::phase::Phase;
use gdlc::load::{load_valid_in, rules_of};
use std::path::Path;

/// Why a game file was not compiled: the pipeline refused the game (kept as its error, so that
/// callers can tell a game too large to ground, with the message rendered against the file), or
/// something else failed, with its message.
#[derive(Debug)]
pub enum CompileError {
    Pipeline { error: gdlc::Error, rendered: String },
    Other(String),
}

impl CompileError {
    /// Whether the game is valid but too large to ground.
    pub fn is_too_large_to_ground(&self) -> bool {
        matches!(self, CompileError::Pipeline { error, .. } if error.is_too_large_to_ground())
    }
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompileError::Pipeline { rendered, .. } => f.write_str(rendered),
            CompileError::Other(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for CompileError {}

impl From<String> for CompileError {
    fn from(message: String) -> CompileError {
        CompileError::Other(message)
    }
}

impl From<&str> for CompileError {
    fn from(message: &str) -> CompileError {
        CompileError::Other(message.to_string())
    }
}

impl From<CompileError> for String {
    fn from(error: CompileError) -> String {
        error.to_string()
    }
}

/// A game compiled to a module: its text, the grounded program's sizes, and the game's rules
/// in KIF.
pub struct Compiled {
    pub text: String,
    pub summary: String,
    pub rules: String,
    /// Why the game was compiled in the lifted form under `--form auto`.
    pub note: Option<String>,
}

/// Loads, checks, grounds and generates the module of a game file; `command` is the one named
/// in the module's `@generated` header.
pub fn compile_text(game: &Path, command: &str, options: &gdlc::codegen::Options) -> Result<Compiled, CompileError> {
    let start = std::time::Instant::now();
    let loaded = load_valid_in(game, options.ground.case)?;
    let refused = |error: gdlc::Error, rendered: String| CompileError::Pipeline { error, rendered };
    let name = game.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let compiled = gdlc::compile::compile_commented(&loaded.source, &name, options).map_err(|error| {
        let rendered = match &error {
            // A refusal of the code generator is about the whole game, not a place in it.
            gdlc::Error::Codegen(refusal) => format!("{}: error: {refusal}", loaded.file),
            _ => gdlc::diag::render_all_with_source(&error.diagnostics(), &loaded.file, &loaded.source)
                .trim_end()
                .to_string(),
        };
        refused(error, rendered)
    })?;
    let text = gdlc::codegen::render_file(&compiled.tokens, command)?;
    let note = compiled.lifted_because.as_ref().map(|why| {
        format!(
            "{}: {why}\nnote: compiled in the lifted form instead (the rules with variables, evaluated over each \
             state's facts)",
            loaded.file
        )
    });
    let summary = format!(
        "{}: {}, {} lines, {:.2} s",
        loaded.file,
        shape(&compiled),
        text.lines().count(),
        start.elapsed().as_secs_f64()
    );
    let summary = match peak_memory_mb() {
        Some(mb) => format!("{summary}, {mb} MB peak"),
        None => summary,
    };
    let rules: String = rules_of(&loaded)?.iter().map(|r| format!("{r}\n")).collect();
    Ok(Compiled { text, summary, rules, note })
}

/// This process's peak resident memory in MB, where the system tells it (Linux).
fn peak_memory_mb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.div_ceil(1024))
}

/// The per-game binary of a game file, built or found in the cache ([`crate::native`]).
pub fn compiled_binary(
    game: &Path,
    options: &gdlc::codegen::Options,
    optimize: crate::native::Optimize,
    verbose: bool,
) -> Result<std::path::PathBuf, CompileError> {
    // The header names the file, not its directory, so that one game has one cached binary.
    let name = game.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let phase = Phase::start(format!("compiling {name} (checking, grounding, generating Rust)"));
    let compiled = match compile_text(game, &format!("gdlc build {name}"), options) {
        Ok(compiled) => compiled,
        Err(e) => {
            phase.failed();
            return Err(e);
        }
    };
    phase.done("");
    if let Some(note) = &compiled.note {
        eprintln!("{note}");
    }
    if verbose {
        eprintln!("{}", compiled.summary);
    }
    let stem = game.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "game".to_string());
    let priority = crate::native::Priority::Foreground;
    Ok(crate::native::build_optimized(&stem, &compiled.text, &compiled.rules, verbose, priority, optimize)?)
}

/// What a compiled game's module evaluates: its ground program's sizes and form, or the lifted
/// form.
fn shape(compiled: &gdlc::compile::Compiled) -> String {
    let Some(ground) = &compiled.ground else {
        return "lifted form (the rules with variables, not ground)".to_string();
    };
    let form = match (compiled.tables, compiled.lifted_rules) {
        (true, true) => "table form, the lifted rules beside",
        (true, false) => "table form",
        (false, _) => "straight-line form",
    };
    let shape = format!(
        "{} roles, {} base propositions, {} state words, {} moves, {} derived propositions, {} literals, {form}",
        ground.roles.len(),
        ground.base.iter().filter(|fact| !fact.is_empty()).count(),
        gdlc::codegen::words(ground.base.len()),
        ground.moves.len(),
        ground.nodes.len(),
        ground.size(),
    );
    // Such atoms are proved when a rule reads them, so the table form evaluates in full passes.
    match ground.deferred.atoms.len() {
        0 => shape,
        checked => format!("{shape}, {checked} atoms checked at run time"),
    }
}

/// Runs `args` through the game's compiled binary, or, when the game goes past the grounding
/// limit, runs `interpreted` instead after a note on stderr: the default engine of `replay`,
/// `bench` and `perf-test`, so that they work on every valid game.
pub fn run_compiled_or_interpreted(
    game: &Path,
    (options, optimize): (&gdlc::codegen::Options, crate::native::Optimize),
    args: &[std::ffi::OsString],
    interpreted: impl FnOnce() -> Result<(), String>,
) -> Result<(), String> {
    match run_binary(game, (options, optimize), args) {
        Err(e) if e.is_too_large_to_ground() => {
            eprintln!(
                "{e}\nnote: running {} through the interpreter instead (--engine compiled refuses)",
                game.display()
            );
            interpreted()
        }
        other => Ok(other?),
    }
}

/// Runs a game's compiled binary with `args`, its output going to ours; a failure's message
/// was already printed by the binary.
pub fn run_compiled(
    game: &Path,
    (options, optimize): (&gdlc::codegen::Options, crate::native::Optimize),
    args: &[std::ffi::OsString],
) -> Result<(), String> {
    Ok(run_binary(game, (options, optimize), args)?)
}

/// [`run_compiled`], failing with the compile error when the game does not compile.
fn run_binary(
    game: &Path,
    (options, optimize): (&gdlc::codegen::Options, crate::native::Optimize),
    args: &[std::ffi::OsString],
) -> Result<(), CompileError> {
    let binary = compiled_binary(game, options, optimize, false)?;
    let status = std::process::Command::new(&binary)
        .args(args)
        .status()
        .map_err(|e| format!("error: cannot run {}: {e}", binary.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(CompileError::Other(String::new()))
    }
}
