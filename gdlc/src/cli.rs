//! What the `gdlc` subcommands do, as library functions that print to stdout and return the
//! message to print on failure (so that the binary stays a thin shim and tests can call them).

use crate::diag::{render_all, Diagnostic};
use crate::graph::Dependencies;
use crate::interp::Interpreter;
use crate::parse::{self, Syntax};
use crate::{check, print};
use std::io::Write as _;
use std::path::Path;

/// A game read and checked: its text, description and diagnostics.
pub struct Loaded {
    pub file: String,
    pub source: String,
    pub description: crate::ast::Description,
    pub diagnostics: Vec<Diagnostic>,
}

impl Loaded {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    pub fn render(&self) -> String {
        render_all(&self.diagnostics, &self.file, &self.source)
    }
}

/// Reads, parses and checks a game file. I/O failures are errors; GDL problems are diagnostics.
pub fn load(path: &Path) -> Result<Loaded, String> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("{file}: error: cannot read the file: {e}"))?;
    let source = match parse::decode(&bytes) {
        Ok(s) => s.to_string(),
        Err(d) => {
            let shown = String::from_utf8_lossy(&bytes).into_owned();
            return Ok(Loaded { file, source: shown, description: Default::default(), diagnostics: vec![d] });
        }
    };
    let parsed = check::parse_and_check(&source);
    Ok(Loaded { file, source, description: parsed.description, diagnostics: parsed.diagnostics })
}

/// Loads a game that must be valid, returning the rendered diagnostics otherwise.
pub fn load_valid(path: &Path) -> Result<Loaded, String> {
    let loaded = load(path)?;
    if loaded.has_errors() {
        return Err(loaded.render().trim_end().to_string());
    }
    Ok(loaded)
}

/// `gdlc check GAME`.
pub fn check(path: &Path) -> Result<(), String> {
    let loaded = load(path)?;
    let warnings = loaded.diagnostics.iter().filter(|d| !d.is_error()).count();
    if loaded.has_errors() {
        let errors = loaded.diagnostics.len() - warnings;
        return Err(format!("{}{}: {errors} error(s), {warnings} warning(s)", loaded.render(), loaded.file));
    }
    let d = &loaded.description;
    let mut play_warnings = String::new();
    if crate::realtime::is_realtime(d) {
        // The real-time interpreter loads the game; its goals are tested by its own tests.
        if let Err(e) = crate::interp::realtime::RealTimeInterpreter::new(d) {
            play_warnings.push_str(&format!("{}: warning: {e}\n", loaded.file));
        }
    } else {
        match Interpreter::new(d) {
            Ok(interp) => {
                if let Some(w) = sample_goal_values(&interp, std::time::Duration::from_millis(500)) {
                    play_warnings.push_str(&format!(
                        "{}: warning: {w}\n  hint: give each role exactly one goal value in every terminal state\n",
                        loaded.file
                    ));
                }
            }
            Err(e) => play_warnings.push_str(&format!("{}: warning: {e}\n", loaded.file)),
        }
    }
    // Loading and sampling the game give at most one warning.
    let warnings = warnings + usize::from(!play_warnings.is_empty());
    let deps = Dependencies::build(d);
    let strata = deps.strata().values().copied().max().map_or(0, |s| s + 1);
    let relations = deps.relations().count();
    let facts = d.rules.iter().filter(|r| r.is_fact()).count();
    let mut out = String::new();
    out.push_str(&loaded.render());
    out.push_str(&play_warnings);
    out.push_str(&format!(
        "{}: ok\nroles: {}\nrelations: {relations}\nrules: {}\nfacts: {facts}\nstrata: {strata}\nwarnings: {warnings}\n",
        loaded.file,
        d.roles().join(" "),
        d.rules.len() - facts,
    ));
    print!("{out}");
    Ok(())
}

/// Plays random matches for up to `budget` and describes the first terminal state in which the
/// goal relation gives a role several values, if one is found.
pub fn sample_goal_values(game: &Interpreter, budget: std::time::Duration) -> Option<String> {
    use gdl_runtime::Game as _;
    let start = std::time::Instant::now();
    let mut rng = gdl_runtime::rng::Rng::seeded(1);
    let mut legal = Vec::new();
    while start.elapsed() < budget {
        let mut state = game.initial_state();
        while !game.is_terminal(&state) && start.elapsed() < budget {
            game.all_legal_moves(&state, &mut legal);
            if legal.iter().any(Vec::is_empty) {
                break;
            }
            let joint: Vec<_> = legal.iter().map(|m| m[rng.below(m.len())].clone()).collect();
            state = game.next_state(&state, &joint);
        }
        if !game.is_terminal(&state) {
            continue;
        }
        for (role, values) in game.goal_values(&state).iter().enumerate() {
            if values.len() > 1 {
                let listed: Vec<String> = values.iter().map(u32::to_string).collect();
                return Some(format!(
                    "the goal relation gives role `{}` several values ({}) in a reachable terminal state; the largest counts",
                    game.role_name(role),
                    listed.join(", ")
                ));
            }
        }
    }
    None
}

/// `gdlc fmt GAME --to kif|infix`.
pub fn fmt(path: &Path, syntax: Syntax) -> Result<(), String> {
    let loaded = load(path)?;
    let parse_errors = loaded.diagnostics.iter().any(|d| d.is_error() && d.span.end <= loaded.source.len());
    if parse_errors && loaded.description.rules.is_empty() {
        return Err(loaded.render().trim_end().to_string());
    }
    print!("{}", print::print(&loaded.description, syntax));
    Ok(())
}

/// `gdlc replay GAME TRACE --engine interp`: the same replay as a compiled game's binary
/// ([`gdl_runtime::driver::replay_text`]), through the interpreter.
pub fn replay(game: &Path, trace_path: &Path) -> Result<(), String> {
    let interp = interpreter(game)?;
    let text = std::fs::read_to_string(trace_path)
        .map_err(|e| format!("{}: error: cannot read the trace: {e}", trace_path.display()))?;
    let replayed = gdl_runtime::driver::replay_text(&interp, &text)
        .map_err(|e| format!("{}: error: {e}", trace_path.display()))?;
    std::io::stdout().lock().write_all(replayed.as_bytes()).map_err(|e| format!("cannot write the trace: {e}"))
}

/// The interpreter for a valid game file.
fn interpreter(game: &Path) -> Result<Interpreter, String> {
    let loaded = load_valid(game)?;
    Interpreter::new(&loaded.description).map_err(|e| format!("{}: error: {e}", loaded.file))
}

/// `gdlc bench GAME --seconds N --threads T --engine interp`: random playouts through the
/// interpreter, reported with gdl-perf's keys.
pub fn bench(game: &Path, seconds: f64, threads: usize) -> Result<(), String> {
    let report = bench_report(game, seconds, threads)?;
    print!("{report}");
    Ok(())
}

/// `gdlc perf-test GAME OUTFILE SECONDS --engine interp`: gdl-perf's engine process, writing
/// the report to a file.
pub fn perf_test(game: &Path, outfile: &Path, seconds: f64) -> Result<(), String> {
    let report = bench_report(game, seconds, 1)?;
    std::fs::write(outfile, report).map_err(|e| format!("{}: error: cannot write: {e}", outfile.display()))
}

fn bench_report(game: &Path, seconds: f64, threads: usize) -> Result<String, String> {
    let loaded = load_valid(game)?;
    if crate::realtime::is_realtime(&loaded.description) {
        let interp = crate::interp::realtime::RealTimeInterpreter::new(&loaded.description)
            .map_err(|e| format!("{}: error: {e}", loaded.file))?;
        let label = format!("gdlc {} (interpreter, real-time)", env!("CARGO_PKG_VERSION"));
        return gdl_runtime::realtime::driver::bench_report(&interp, &label, seconds, threads);
    }
    let interp = interpreter(game)?;
    let label = format!("gdlc {} (interpreter)", env!("CARGO_PKG_VERSION"));
    gdl_runtime::driver::bench_report(&interp, &label, seconds, threads)
}

/// Why a game file was not compiled: the pipeline refused the game (kept as its error, so that
/// callers can tell a game too large to ground, with the message rendered against the file), or
/// something else failed, with its message.
#[derive(Debug)]
pub enum CompileError {
    Pipeline { error: crate::Error, rendered: String },
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
}

/// Loads, checks, grounds and generates the module of a game file; `command` is the one named
/// in the module's `@generated` header.
pub fn compile_text(game: &Path, command: &str, options: &crate::codegen::Options) -> Result<Compiled, CompileError> {
    let start = std::time::Instant::now();
    let loaded = load_valid(game)?;
    let refused = |error: crate::Error, rendered: String| CompileError::Pipeline { error, rendered };
    let ground = crate::codegen::ground_source(&loaded.source, options).map_err(|error| {
        let rendered = render_all(&error.diagnostics(), &loaded.file, &loaded.source).trim_end().to_string();
        refused(error, rendered)
    })?;
    let realtime = crate::realtime::is_realtime(&loaded.description);
    let tokens = crate::codegen::generate_module(&ground, options.form, realtime).map_err(|error| {
        let rendered = format!("{}: error: {error}", loaded.file);
        refused(error.into(), rendered)
    })?;
    let text = crate::codegen::render_file(&tokens, command)?;
    let summary = format!(
        "{}: {} roles, {} base propositions, {} state words, {} moves, {} derived propositions, {} literals, {}, {} \
         lines, {:.2} s",
        loaded.file,
        ground.roles.len(),
        ground.base.iter().filter(|fact| !fact.is_empty()).count(),
        crate::codegen::words(ground.base.len()),
        ground.moves.len(),
        ground.nodes.len(),
        ground.size(),
        if crate::codegen::uses_tables(&ground, options.form) { "table form" } else { "straight-line form" },
        text.lines().count(),
        start.elapsed().as_secs_f64()
    );
    let summary = match peak_memory_mb() {
        Some(mb) => format!("{summary}, {mb} MB peak"),
        None => summary,
    };
    let rules: String = crate::play::rules_of(&loaded)?.iter().map(|r| format!("{r}\n")).collect();
    Ok(Compiled { text, summary, rules })
}

/// This process's peak resident memory in MB, where the system tells it (Linux).
fn peak_memory_mb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.div_ceil(1024))
}

/// `gdlc compile GAME [-o FILE.rs] [--check]`: writes the generated module (to stdout without
/// `-o`), or with `--check` fails when FILE.rs differs from what would be written.
pub fn compile(
    game: &Path,
    output: Option<&Path>,
    check: bool,
    options: &crate::codegen::Options,
) -> Result<(), String> {
    let mut command = format!("gdlc compile {}", game.display());
    if let Some(out) = output {
        command.push_str(&format!(" -o {}", out.display()));
    }
    if check && output.is_none() {
        return Err("error: --check needs the file to check, given with -o".to_string());
    }
    let compiled = compile_text(game, &command, options)?;
    match output {
        None => {
            print!("{}", compiled.text);
            Ok(())
        }
        Some(out) if check => {
            let current = std::fs::read_to_string(out).unwrap_or_default();
            if current == compiled.text {
                Ok(())
            } else {
                Err(format!("{}: error: the file is stale; regenerate it with `{command}`", out.display()))
            }
        }
        Some(out) => {
            std::fs::write(out, &compiled.text).map_err(|e| format!("{}: error: cannot write: {e}", out.display()))?;
            eprintln!("{}", compiled.summary);
            Ok(())
        }
    }
}

/// The per-game binary of a game file, built or found in the cache ([`crate::build`]).
pub fn compiled_binary(
    game: &Path,
    options: &crate::codegen::Options,
    verbose: bool,
) -> Result<std::path::PathBuf, CompileError> {
    // The header names the file, not its directory, so that one game has one cached binary.
    let name = game.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let compiled = compile_text(game, &format!("gdlc build {name}"), options)?;
    if verbose {
        eprintln!("{}", compiled.summary);
    }
    let stem = game.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "game".to_string());
    Ok(crate::build::build_binary(&stem, &compiled.text, &compiled.rules, verbose)?)
}

/// `gdlc build GAME -o BIN`: a standalone binary whose subcommands are the runtime's driver.
pub fn build(game: &Path, output: &Path, options: &crate::codegen::Options) -> Result<(), String> {
    let binary = compiled_binary(game, options, true)?;
    crate::build::copy_atomically(&binary, output)?;
    eprintln!("{}: built {}", game.display(), output.display());
    Ok(())
}

/// Runs `args` through the game's compiled binary, or, when the game goes past the grounding
/// limit, runs `interpreted` instead after a note on stderr: the default engine of `replay`,
/// `bench` and `perf-test`, so that they work on every valid game.
pub fn run_compiled_or_interpreted(
    game: &Path,
    options: &crate::codegen::Options,
    args: &[std::ffi::OsString],
    interpreted: impl FnOnce() -> Result<(), String>,
) -> Result<(), String> {
    match run_binary(game, options, args) {
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
pub fn run_compiled(game: &Path, options: &crate::codegen::Options, args: &[std::ffi::OsString]) -> Result<(), String> {
    Ok(run_binary(game, options, args)?)
}

/// [`run_compiled`], failing with the compile error when the game does not compile.
fn run_binary(game: &Path, options: &crate::codegen::Options, args: &[std::ffi::OsString]) -> Result<(), CompileError> {
    let binary = compiled_binary(game, options, false)?;
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
