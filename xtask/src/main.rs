//! Project automation, run as `cargo xtask COMMAND`.
//!
//! `codegen [--check]` (also `cargo codegen`) compiles every game of `games/` into
//! `generated/src/games/`, or checks that those files are fresh.
//!
//! `compile-table [DIR]` compiles every game of DIR (default `../shared/games`) and prints a
//! table of sizes and times.
//!
//! `bench-table [--seconds N] [--all]` measures rollouts per second of the compiled games
//! against the hand-written reasoners of `../shared/bench/handwritten`, prints a Markdown table
//! and writes `docs/bench.svg`.
//!
//! `conformance [DIR]` replays every `GAME.jsonl` trace of DIR (default:
//! `../shared/conformance/traces`) through the interpreter on its `GAME.kif` and prints a table
//! of agreement; it exits non-zero when any trace disagrees.

mod bench_table;
mod codegen;
mod compile_table;

use gdl_runtime::trace;
use gdlc::interp::Interpreter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("conformance") => {
            let default = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/traces");
            let dir = args.get(1).map(PathBuf::from).unwrap_or(default);
            conformance(&dir)
        }
        Some("codegen") => {
            let root = codegen::root();
            let result = match args.get(1).map(String::as_str) {
                None => codegen::write(&root),
                Some("--check") => codegen::check(&root),
                Some(other) => Err(format!("unknown option `{other}`; usage: cargo codegen [--check]")),
            };
            match result {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some("compile-table") => {
            let root = codegen::root();
            let dir = args.get(1).map(PathBuf::from).unwrap_or_else(|| root.join("../shared/games"));
            match compile_table::run(&root, &dir) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some("bench-table") => {
            let result = bench_table::Options::parse(&args[1..]).and_then(|o| bench_table::run(&codegen::root(), &o));
            match result {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => {
            eprintln!(
                "usage: cargo xtask conformance [TRACE_DIR] | cargo xtask compile-table [GAMES_DIR] | cargo xtask bench-table [--seconds N] [--all] | cargo codegen [--check]"
            );
            ExitCode::FAILURE
        }
    }
}

fn conformance(dir: &Path) -> ExitCode {
    let mut traces: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect(),
        Err(e) => {
            eprintln!("{}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
    };
    traces.sort();
    let mut failures = 0;
    println!("{:<24} {:>7} {:>7} {:>9}  result", "game", "matches", "states", "seconds");
    for path in &traces {
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let start = Instant::now();
        let (matches, states, result) = replay_all(&path.with_extension("kif"), path);
        let ok = result.is_ok();
        failures += usize::from(!ok);
        println!(
            "{name:<24} {matches:>7} {states:>7} {:>9.2}  {}",
            start.elapsed().as_secs_f64(),
            result.err().unwrap_or_else(|| "agrees".to_string())
        );
    }
    println!("{} passed, {failures} failed", traces.len() - failures);
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn replay_all(game: &Path, trace_path: &Path) -> (usize, usize, Result<(), String>) {
    let run = || -> Result<(usize, usize), String> {
        let loaded = gdlc::cli::load_valid(game)?;
        let interp = Interpreter::new(&loaded.description)?;
        let text = std::fs::read_to_string(trace_path).map_err(|e| e.to_string())?;
        let matches = trace::read(&text)?;
        let mut states = 0;
        for (i, m) in matches.iter().enumerate() {
            let replayed = trace::replay(&interp, m).map_err(|e| format!("match {i}: {e}"))?;
            trace::compare(m, &replayed).map_err(|e| format!("match {i}: {e}"))?;
            states += m.steps.len();
        }
        Ok((matches.len(), states))
    };
    match run() {
        Ok((m, s)) => (m, s, Ok(())),
        Err(e) => (0, 0, Err(e)),
    }
}
