//! The compiled engine: a game file through the compiler to its module, the module built into
//! the game's per-game binary (cached, [`crate::native`]), and that binary run in place of the
//! interpreter.

use gdlc::load::{load_valid, rules_of};
use std::path::Path;

/// A game compiled to a module: its text, the grounded program's sizes, and the game's rules
/// in KIF.
pub struct Compiled {
    pub text: String,
    pub summary: String,
    pub rules: String,
}

/// Loads, checks, grounds and generates the module of a game file; `command` is the one named
/// in the module's `@generated` header.
pub fn compile_text(game: &Path, command: &str, options: &gdlc::codegen::Options) -> Result<Compiled, String> {
    let start = std::time::Instant::now();
    let loaded = load_valid(game)?;
    let ground = gdlc::codegen::ground_source(&loaded.source, options)
        .map_err(|d| gdlc::diag::render_all(&d, &loaded.file, &loaded.source).trim_end().to_string())?;
    let realtime = gdlc::realtime::is_realtime(&loaded.description);
    let tokens = gdlc::codegen::generate_module(&ground, options.form, realtime)
        .map_err(|e| format!("{}: error: {e}", loaded.file))?;
    let text = gdlc::codegen::render_file(&tokens, command)?;
    let summary = format!(
        "{}: {} roles, {} base propositions, {} state words, {} moves, {} derived propositions, {} literals, {}, {} \
         lines, {:.2} s",
        loaded.file,
        ground.roles.len(),
        ground.base.iter().filter(|fact| !fact.is_empty()).count(),
        gdlc::codegen::words(ground.base.len()),
        ground.moves.len(),
        ground.nodes.len(),
        ground.size(),
        if gdlc::codegen::uses_tables(&ground, options.form) { "table form" } else { "straight-line form" },
        text.lines().count(),
        start.elapsed().as_secs_f64()
    );
    let summary = match peak_memory_mb() {
        Some(mb) => format!("{summary}, {mb} MB peak"),
        None => summary,
    };
    let rules: String = rules_of(&loaded)?.iter().map(|r| format!("{r}\n")).collect();
    Ok(Compiled { text, summary, rules })
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
    verbose: bool,
) -> Result<std::path::PathBuf, String> {
    // The header names the file, not its directory, so that one game has one cached binary.
    let name = game.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let compiled = compile_text(game, &format!("gdlc build {name}"), options)?;
    if verbose {
        eprintln!("{}", compiled.summary);
    }
    let stem = game.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "game".to_string());
    crate::native::build_binary(&stem, &compiled.text, &compiled.rules, verbose)
}

/// Whether a compile error is the grounding limit, which the default engine answers by falling
/// back to the interpreter.
pub fn is_too_large_to_ground(message: &str) -> bool {
    message.contains(gdlc::ground::TOO_LARGE)
}

/// Runs `args` through the game's compiled binary, or, when the game goes past the grounding
/// limit, runs `interpreted` instead after a note on stderr: the default engine of `replay`,
/// `bench` and `perf-test`, so that they work on every valid game.
pub fn run_compiled_or_interpreted(
    game: &Path,
    options: &gdlc::codegen::Options,
    args: &[std::ffi::OsString],
    interpreted: impl FnOnce() -> Result<(), String>,
) -> Result<(), String> {
    match run_compiled(game, options, args) {
        Err(e) if is_too_large_to_ground(&e) => {
            eprintln!(
                "{e}\nnote: running {} through the interpreter instead (--engine compiled refuses)",
                game.display()
            );
            interpreted()
        }
        other => other,
    }
}

/// Runs a game's compiled binary with `args`, its output going to ours; a failure's message
/// was already printed by the binary.
pub fn run_compiled(game: &Path, options: &gdlc::codegen::Options, args: &[std::ffi::OsString]) -> Result<(), String> {
    let binary = compiled_binary(game, options, false)?;
    let status = std::process::Command::new(&binary)
        .args(args)
        .status()
        .map_err(|e| format!("error: cannot run {}: {e}", binary.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(String::new())
    }
}
