//! Project automation, run as `cargo xtask COMMAND`.
//!
//! `codegen [--check]` (also `cargo codegen`) compiles every game of `games/` into
//! `generated/src/games/`, or checks that those files are fresh.
//!
//! `compile-table [DIR] [--check-build]` compiles every game of DIR (default `../shared/games`)
//! and prints a table of sizes and times; `--check-build` also type-checks every result.
//!
//! `bench-table [--seconds N] [--all]` measures rollouts per second of the compiled games
//! against the hand-written reasoners of `../shared/bench/handwritten`, prints a Markdown table
//! and writes `docs/bench.svg`.
//!
//! `bench-table --peers [DIR] [--seconds N] [--rounds R] [--setup-limit S] [--pgo] [GAME...]` measures
//! gdlc beside Sancho on the large games, side by side, rates and setup times (see
//! [`peers_table`]).
//!
//! `prover-compare [--seconds S] [--peers DIR] [GAME_DIR...]` measures the player's engine
//! beside ggp-base's prover on every game (see [`prover_compare`]).
//!
//! `soak [--matches N] [--playclock S]` plays N short matches against `gdlc serve` with a fault
//! injected every few matches (see [`soak`]).
//!
//! `analysis-table [DIR] [--seconds S] [--threads T]` runs `gdlc analyze` on every game of DIR
//! (default `../shared/games`) and writes the table of `docs/analysis.md` (see
//! [`analysis_table`]).
//!
//! `tidy` checks the house rules that no linter checks (see [`tidy`]).
//!
//! `test-long` runs the tests that `cargo test --workspace` skips for their length (marked
//! `#[ignore]`: the corpus-wide checks and the real-time matches of the engine switch), as CI
//! does after the README's test command. Further arguments go to `cargo test`.
//!
//! `conformance [DIR] [--engine interp|compiled|program]` replays every `GAME.jsonl` trace of
//! DIR (default: `../shared/conformance/traces`) through the interpreter (or the compiled game,
//! or the engine over the ground program) on its `GAME.kif` and prints a table of agreement;
//! it exits non-zero when any trace disagrees.
//!
//! `mcts-vs-random [--games DIR|FILES...] [--matches N] [--clock-ms MS] [--start-ms MS]
//! [--per-role]` plays the MCTS player against random players in every game (default: `games/`)
//! and prints how it fared (see [`mcts_vs_random`]). It always runs optimized: a debug build runs it again
//! through `cargo run --release`.

mod analysis_table;
mod bench_table;
mod codegen;
mod compile_table;
mod mcts_vs_random;
mod peers_table;
mod prover_compare;
mod soak;
mod tidy;

use gdl_player::trace;
use gdlc::interp::Interpreter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("conformance") => {
            let default = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/traces");
            let engine_at = args.iter().position(|a| a == "--engine");
            let positional = |(i, a): &(usize, &String)| *i > 0 && !a.starts_with("--") && Some(i - 1) != engine_at;
            let dir = args.iter().enumerate().find(positional).map(|(_, a)| PathBuf::from(a)).unwrap_or(default);
            let engine = match engine_at.map(|i| args.get(i + 1).map(String::as_str)) {
                None | Some(Some("interp")) => EngineArg::Interp,
                Some(Some("compiled")) => EngineArg::Compiled,
                Some(Some("program")) => EngineArg::Program,
                Some(_) => {
                    eprintln!("error: --engine takes `interp`, `compiled` or `program`");
                    return ExitCode::FAILURE;
                }
            };
            conformance(&dir, engine)
        }
        Some("codegen") => {
            let root = codegen::root();
            let result = match args.get(1).map(String::as_str) {
                None => codegen::write(&root),
                Some("--check") => codegen::check(&root),
                Some(other) => Err(format!("unknown option `{other}`; usage: cargo codegen [--check]")),
            };
            exit_code(result)
        }
        Some("compile-table") => {
            let root = codegen::root();
            let check_build = args.iter().any(|a| a == "--check-build");
            let dir = args.iter().skip(1).find(|a| !a.starts_with("--")).map(PathBuf::from);
            let dir = dir.unwrap_or_else(|| root.join("../shared/games"));
            exit_code(compile_table::run(&root, &dir, check_build))
        }
        Some("analysis-table") => {
            let root = codegen::root();
            exit_code(analysis_table::Options::parse(&root, &args[1..]).and_then(|o| analysis_table::run(&root, &o)))
        }
        Some("prover-compare") => {
            let root = codegen::root();
            exit_code(prover_compare::Options::parse(&root, &args[1..]).and_then(|o| prover_compare::run(&root, &o)))
        }
        Some("soak") => exit_code(soak::Options::parse(&args[1..]).and_then(|o| soak::run(&codegen::root(), &o))),
        Some("bench-table") if args.iter().any(|a| a == "--peers") => {
            let result = peers_table::Options::parse(&args[1..]).and_then(|o| peers_table::run(&codegen::root(), &o));
            exit_code(result)
        }
        Some("bench-table") => {
            let result = bench_table::Options::parse(&args[1..]).and_then(|o| bench_table::run(&codegen::root(), &o));
            exit_code(result)
        }
        Some("tidy") => tidy(),
        Some("test-long") => test_long(&args[1..]),
        Some("mcts-vs-random") => mcts_vs_random(&args[1..]),
        _ => {
            eprintln!(
                "usage: cargo xtask tidy | cargo xtask test-long | cargo xtask conformance [TRACE_DIR] [--engine interp|compiled|program] | cargo xtask compile-table [GAMES_DIR] [--check-build] | cargo xtask bench-table [--seconds N] [--all] | cargo xtask bench-table --peers [DIR] [--seconds N] [--rounds R] [--setup-limit S] [--pgo] [GAME...] | cargo xtask mcts-vs-random [--games DIR|FILES...] [--matches N] [--clock-ms MS] [--start-ms MS] | cargo xtask prover-compare | cargo xtask soak | cargo codegen [--check]"
            );
            ExitCode::FAILURE
        }
    }
}

/// Success for `Ok`, else the error on stderr and failure.
fn exit_code(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the long tests: those of the workspace marked `#[ignore]`, with the rest of the
/// arguments given to `cargo test`.
fn test_long(args: &[String]) -> ExitCode {
    let args = ["test", "--workspace"].iter().map(|a| a.to_string()).chain(args.iter().cloned());
    run_cargo(args.chain(["--".to_string(), "--ignored".to_string()]))
}

/// Runs cargo with `args` in the workspace's root, and passes its outcome on.
fn run_cargo(args: impl IntoIterator<Item = String>) -> ExitCode {
    let status = std::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(args)
        .current_dir(codegen::root())
        .status();
    match status {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: cannot run cargo: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Plays MCTS against random players. Searches are timed, so a build without optimizations
/// would handicap MCTS: such a build runs the command again in the release profile.
fn mcts_vs_random(args: &[String]) -> ExitCode {
    if cfg!(debug_assertions) {
        let run = ["run", "--release", "--quiet", "--package", "xtask", "--", "mcts-vs-random"];
        return run_cargo(run.iter().map(|a| a.to_string()).chain(args.iter().cloned()));
    }
    let result = mcts_vs_random::Options::parse(args, &codegen::root()).and_then(|o| mcts_vs_random::run(&o));
    exit_code(result)
}

/// Prints every broken house rule; fails when there is one.
fn tidy() -> ExitCode {
    match tidy::run(&codegen::root()) {
        Ok(problems) if problems.is_empty() => ExitCode::SUCCESS,
        Ok(problems) => {
            for problem in &problems {
                eprintln!("{problem}");
            }
            eprintln!("error: {} house rule(s) broken", problems.len());
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The engine named by `conformance --engine`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum EngineArg {
    Interp,
    Compiled,
    Program,
}

/// Replays every trace of `dir` through the interpreter, through `gdlc replay --engine
/// compiled` (the game compiled, built and cached), or through the engine over the ground
/// program, and prints a table.
fn conformance(dir: &Path, engine_arg: EngineArg) -> ExitCode {
    let gdlc = codegen::release_gdlc(&codegen::root());
    if engine_arg == EngineArg::Compiled {
        if let Err(e) = codegen::build_release_gdlc(&codegen::root()) {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    }
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
        let engine = match engine_arg {
            EngineArg::Interp => Engine::Interp,
            EngineArg::Compiled => Engine::Compiled(&gdlc),
            EngineArg::Program => Engine::Program,
        };
        let (matches, states, result) = replay_all(&path.with_extension("kif"), path, engine);
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

/// The engine a conformance run replays traces through.
#[derive(Clone, Copy)]
enum Engine<'a> {
    Interp,
    /// The `gdlc` binary at this path, with its default (compiled) engine.
    Compiled(&'a Path),
    /// The ground program evaluated as data, in this process.
    Program,
}

/// Replays every match of a trace through `game`.
fn replay_matches<G: gdl_runtime::Game>(game: &G, matches: &[trace::Match]) -> Result<Vec<trace::Match>, String> {
    let replay = |(i, m): (usize, &trace::Match)| trace::replay(game, m).map_err(|e| format!("match {i}: {e}"));
    matches.iter().enumerate().map(replay).collect()
}

fn replay_all(game: &Path, trace_path: &Path, engine: Engine<'_>) -> (usize, usize, Result<(), String>) {
    let run = || -> Result<(usize, usize), String> {
        let text = std::fs::read_to_string(trace_path).map_err(|e| e.to_string())?;
        let matches = trace::read(&text)?;
        let replayed = match engine {
            Engine::Interp => {
                let loaded = gdlc::load::load_valid(game)?;
                let interp = Interpreter::new(&loaded.description).map_err(|e| e.to_string())?;
                replay_matches(&interp, &matches)?
            }
            Engine::Program => {
                let loaded = gdlc::load::load_valid(game)?;
                let program =
                    gdlc::compile::load_engine(&loaded.source, &Default::default()).map_err(|e| e.to_string())?;
                replay_matches(&program, &matches)?
            }
            Engine::Compiled(gdlc) => {
                let output = std::process::Command::new(gdlc)
                    .arg("replay")
                    .arg(game)
                    .arg(trace_path)
                    .output()
                    .map_err(|e| format!("cannot run {}: {e}", gdlc.display()))?;
                if !output.status.success() {
                    return Err(String::from_utf8_lossy(&output.stderr).trim().to_string());
                }
                trace::read(&String::from_utf8_lossy(&output.stdout))?
            }
        };
        if replayed.len() != matches.len() {
            return Err(format!("{} matches replayed of {}", replayed.len(), matches.len()));
        }
        let mut states = 0;
        for (i, (m, r)) in matches.iter().zip(&replayed).enumerate() {
            trace::compare(m, r).map_err(|e| format!("match {i}: {e}"))?;
            states += m.steps.len();
        }
        Ok((matches.len(), states))
    };
    match run() {
        Ok((m, s)) => (m, s, Ok(())),
        Err(e) => (0, 0, Err(e)),
    }
}
