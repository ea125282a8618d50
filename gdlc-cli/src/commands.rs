//! What the `gdlc` subcommands other than `serve` and `match` do, as functions that print to
//! stdout and return the message to print on failure (so that `main` stays a thin shim and
//! tests can call them).

use crate::compiled::{compile_text, compiled_binary};
use gdlc::interp::realtime::RealTimeInterpreter;
use gdlc::interp::Interpreter;
use gdlc::load::{load, load_valid};
use gdlc::parse::Syntax;
use std::io::Write as _;
use std::path::Path;

/// `gdlc fmt GAME --to kif|infix`.
pub fn fmt(path: &Path, syntax: Syntax) -> Result<(), String> {
    let loaded = load(path)?;
    let parse_errors = loaded.diagnostics.iter().any(|d| d.is_error() && d.span.end <= loaded.source.len());
    if parse_errors && loaded.description.rules.is_empty() {
        return Err(loaded.render().trim_end().to_string());
    }
    print!("{}", gdlc::print::print(&loaded.description, syntax));
    Ok(())
}

/// `gdlc replay GAME TRACE --engine interp`: the same replay as a compiled game's binary
/// ([`gdl_player::driver::replay_text`]), through the interpreter.
pub fn replay(game: &Path, trace_path: &Path) -> Result<(), String> {
    let interp = interpreter(game)?;
    let text = std::fs::read_to_string(trace_path)
        .map_err(|e| format!("{}: error: cannot read the trace: {e}", trace_path.display()))?;
    let replayed =
        gdl_player::driver::replay_text(&interp, &text).map_err(|e| format!("{}: error: {e}", trace_path.display()))?;
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
    if gdlc::realtime::is_realtime(&loaded.description) {
        let interp =
            RealTimeInterpreter::new(&loaded.description).map_err(|e| format!("{}: error: {e}", loaded.file))?;
        let label = format!("gdlc {} (interpreter, real-time)", env!("CARGO_PKG_VERSION"));
        return gdl_player::realtime::driver::bench_report(&interp, &label, seconds, threads);
    }
    let interp = interpreter(game)?;
    let label = format!("gdlc {} (interpreter)", env!("CARGO_PKG_VERSION"));
    gdl_player::driver::bench_report(&interp, &label, seconds, threads)
}

/// `gdlc compile GAME [-o FILE.rs] [--check]`: writes the generated module (to stdout without
/// `-o`), or with `--check` fails when FILE.rs differs from what would be written.
pub fn compile(
    game: &Path,
    output: Option<&Path>,
    check: bool,
    options: &gdlc::codegen::Options,
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

/// `gdlc build GAME -o BIN`: a standalone binary whose subcommands are gdl-player's driver.
pub fn build(game: &Path, output: &Path, options: &gdlc::codegen::Options) -> Result<(), String> {
    let binary = compiled_binary(game, options, true)?;
    crate::native::copy_atomically(&binary, output)?;
    eprintln!("{}: built {}", game.display(), output.display());
    Ok(())
}
