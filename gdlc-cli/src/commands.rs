//! What the `gdlc` subcommands other than `serve` and `match` do, as functions that print to
//! stdout and return the message to print on failure (so that `main` stays a thin shim and
//! tests can call them).

use crate::compiled::{compile_text, compiled_binary};
use gdl_runtime::engine::ProgramGame;
use gdlc::interp::realtime::RealTimeInterpreter;
use gdlc::interp::Interpreter;
use gdlc::load::{load_in, load_valid_in};
use gdlc::parse::Case;
use gdlc::parse::Syntax;
use std::io::Write as _;
use std::path::Path;

/// `gdlc fmt GAME --to kif|infix`.
pub fn fmt(path: &Path, syntax: Syntax, case: Case) -> Result<(), String> {
    let loaded = load_in(path, case)?;
    let parse_errors = loaded.diagnostics.iter().any(|d| d.is_error() && d.span.end <= loaded.source.len());
    if parse_errors && loaded.description.rules.is_empty() {
        return Err(loaded.render().trim_end().to_string());
    }
    print!("{}", gdlc::print::print(&loaded.description, syntax));
    Ok(())
}

/// The engines that run in this process rather than as a game's built binary.
pub enum InProcess {
    /// The reference interpreter, of the game's names read in this case.
    Interpreter(Case),
    /// The ground program evaluated as data ([`gdlc::compile::load_engine`]), grounded with
    /// these options.
    Program(gdlc::ground::Options),
}

/// `gdlc replay GAME TRACE [--check] --engine interp|program`: the same replay as a compiled game's
/// binary ([`gdl_player::driver::replay_text`]), through an engine of this process.
pub fn replay(game: &Path, trace_path: &Path, engine: &InProcess, check: bool) -> Result<(), String> {
    let text = std::fs::read_to_string(trace_path)
        .map_err(|e| format!("{}: error: cannot read the trace: {e}", trace_path.display()))?;
    let replayed = match engine {
        InProcess::Interpreter(case) => gdl_player::driver::replay_text(&interpreter(game, *case)?, &text, check),
        InProcess::Program(options) => gdl_player::driver::replay_text(&program_game(game, options)?, &text, check),
    };
    let replayed = replayed.map_err(|e| format!("{}: error: {e}", trace_path.display()))?;
    std::io::stdout().lock().write_all(replayed.as_bytes()).map_err(|e| format!("cannot write the trace: {e}"))
}

/// `gdlc perft GAME DEPTH --engine interp|program`: the joint-move sequences to DEPTH through
/// an engine of this process.
pub fn perft(game: &Path, depth: usize, engine: &InProcess) -> Result<(), String> {
    let text = match engine {
        InProcess::Interpreter(case) => gdl_player::driver::perft_text(&interpreter(game, *case)?, depth),
        InProcess::Program(options) => gdl_player::driver::perft_text(&program_game(game, options)?, depth),
    };
    print!("{text}");
    Ok(())
}

/// The interpreter for a valid game file, its names read in `case`.
fn interpreter(game: &Path, case: Case) -> Result<Interpreter, String> {
    let loaded = load_valid_in(game, case)?;
    Interpreter::new(&loaded.description).map_err(|e| format!("{}: error: {e}", loaded.file))
}

/// The engine over the ground program of a valid game file, grounded with `options`.
pub fn program_game(game: &Path, options: &gdlc::ground::Options) -> Result<ProgramGame, String> {
    let loaded = load_valid_in(game, options.case)?;
    gdlc::compile::load_engine(&loaded.source, options).map_err(|error| match &error {
        gdlc::Error::Diagnostics(_) | gdlc::Error::Ground(_) => {
            gdlc::diag::render_all_with_source(&error.diagnostics(), &loaded.file, &loaded.source)
                .trim_end()
                .to_string()
        }
        // The other refusals are about the whole game, not a place in it.
        _ => format!("{}: error: {error}", loaded.file),
    })
}

/// `gdlc bench GAME --seconds N --threads T --engine interp|program`: random playouts through
/// an engine of this process, reported with gdl-perf's keys.
pub fn bench(game: &Path, seconds: f64, threads: usize, engine: &InProcess) -> Result<(), String> {
    let report = bench_report(game, seconds, threads, engine)?;
    print!("{report}");
    Ok(())
}

/// `gdlc perf-test GAME OUTFILE SECONDS --engine interp|program`: gdl-perf's engine process,
/// writing the report to a file.
pub fn perf_test(game: &Path, outfile: &Path, seconds: f64, engine: &InProcess) -> Result<(), String> {
    let report = bench_report(game, seconds, 1, engine)?;
    std::fs::write(outfile, report).map_err(|e| format!("{}: error: cannot write: {e}", outfile.display()))
}

fn bench_report(game: &Path, seconds: f64, threads: usize, engine: &InProcess) -> Result<String, String> {
    let version = env!("CARGO_PKG_VERSION");
    if let InProcess::Program(options) = engine {
        let start = std::time::Instant::now();
        let program = program_game(game, options)?;
        eprintln!("{}: ground program loaded in {:.2} s", game.display(), start.elapsed().as_secs_f64());
        let label = format!("gdlc {version} (ground program)");
        return gdl_player::driver::bench_report(&program, &label, seconds, threads);
    }
    let case = match engine {
        InProcess::Interpreter(case) => *case,
        InProcess::Program(options) => options.case,
    };
    let loaded = load_valid_in(game, case)?;
    if gdlc::realtime::is_realtime(&loaded.description) {
        let interp =
            RealTimeInterpreter::new(&loaded.description).map_err(|e| format!("{}: error: {e}", loaded.file))?;
        let label = format!("gdlc {version} (interpreter, real-time)");
        return gdl_player::realtime::driver::bench_report(&interp, &label, seconds, threads);
    }
    let interp = interpreter(game, case)?;
    let label = format!("gdlc {version} (interpreter)");
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
    if let Some(note) = &compiled.note {
        eprintln!("{note}");
    }
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
pub fn build(
    game: &Path,
    output: &Path,
    options: &gdlc::codegen::Options,
    optimize: crate::native::Optimize,
) -> Result<(), String> {
    let binary = compiled_binary(game, options, optimize, true)?;
    crate::native::copy_atomically(&binary, output)?;
    eprintln!("{}: built {}", game.display(), output.display());
    Ok(())
}
