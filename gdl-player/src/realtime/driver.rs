//! The command line of the per-game binary of an rtGDL game: `bench` and `perf-test` run random
//! real-time playouts in simulated game time ([`gdl_runtime::realtime::bench`]), `info` prints
//! the roles. The turn-based `replay` and `serve` have no real-time counterpart in the binary;
//! `gdlc serve` and `gdlc match` play rtGDL games through the interpreter.

use crate::driver::{bench_duration, BENCH_SEED};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use gdl_runtime::realtime::RealTimeGame;
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(about = "A real-time (rtGDL) game compiled by gdlc to specialized Rust", arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure random real-time playouts per second in simulated game time (gdl-perf's keys;
    /// state changes count events).
    Bench {
        #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
        seconds: f64,
        #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
        threads: usize,
    },
    /// gdl-perf's engine process: measure for SECONDS on one thread and write the report to OUTFILE.
    PerfTest {
        outfile: PathBuf,
        #[arg(allow_negative_numbers = true)]
        seconds: f64,
    },
    /// Print the game's name and roles.
    Info,
}

/// The gdl-perf report of random real-time playouts of `game` for `seconds` on `threads` threads.
pub fn bench_report<G: RealTimeGame>(game: &G, label: &str, seconds: f64, threads: usize) -> Result<String, String> {
    let duration = bench_duration(seconds, threads)?;
    Ok(gdl_runtime::realtime::bench(game, duration, threads, BENCH_SEED).report(label))
}

/// The whole `main` of an rtGDL game's binary.
pub fn main<G: RealTimeGame>(game: &G, name: &str) -> ExitCode {
    let result = run(game, name, std::env::args_os().skip(1).collect()).and_then(|text| {
        let mut out = std::io::stdout().lock();
        // A failed write to stdout fails the command with nothing more to say.
        out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|_| String::new())
    });
    crate::driver::exit_code(result)
}

/// Runs the subcommand `args` spell and returns what it prints.
pub fn run<G: RealTimeGame>(game: &G, name: &str, args: Vec<OsString>) -> Result<String, String> {
    let command = Cli::command().name("game").bin_name(name);
    let argv = std::iter::once(OsString::from(name)).chain(args);
    let cli = match command.try_get_matches_from(argv).and_then(|m| Cli::from_arg_matches(&m)) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => return Ok(e.render().to_string()),
        Err(e) => return Err(e.render().to_string()),
    };
    let label = format!("{name} (compiled by gdlc {}, real-time)", env!("CARGO_PKG_VERSION"));
    match cli.command {
        Command::Bench { seconds, threads } => bench_report(game, &label, seconds, threads),
        Command::PerfTest { outfile, seconds } => {
            let report = bench_report(game, &label, seconds, 1)?;
            std::fs::write(&outfile, report).map_err(|e| format!("{}: error: cannot write: {e}", outfile.display()))?;
            Ok(String::new())
        }
        Command::Info => {
            let roles: Vec<&str> = (0..game.num_roles()).map(|r| game.role_name(r)).collect();
            Ok(format!("game: {name}\nroles: {}\nnum_roles: {}\nrealtime: rtGDL\n", roles.join(" "), roles.len()))
        }
    }
}
