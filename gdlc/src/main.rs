//! The `gdlc` command line: a thin shim over the gdlc library.

use clap::{Parser, Subcommand, ValueEnum};
use gdlc::parse::Syntax;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "gdlc", version, about = "A compiler from the Game Description Language (GDL) to specialized Rust")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a game against the GDL specification and summarize it.
    Check {
        /// The game description (prefix KIF or infix GDL).
        game: PathBuf,
    },
    /// Print a game in prefix KIF or infix GDL.
    Fmt {
        game: PathBuf,
        /// The syntax to print.
        #[arg(long, value_enum, default_value_t = SyntaxArg::Kif)]
        to: SyntaxArg,
    },
    /// Replay the joint moves of a match trace and print this engine's own trace.
    Replay {
        game: PathBuf,
        /// A trace in the JSON Lines format of the conformance suite.
        trace: PathBuf,
        /// The engine that evaluates the game.
        #[arg(long, value_enum, default_value_t = Engine::Interp)]
        engine: Engine,
    },
    /// Measure random playouts per second (prints gdl-perf's keys).
    Bench {
        game: PathBuf,
        /// How long to run.
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        /// How many threads run playouts.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// The engine that evaluates the game.
        #[arg(long, value_enum, default_value_t = Engine::Interp)]
        engine: Engine,
    },
    /// Compile a game to a Rust module (printed, or written to -o FILE.rs).
    Compile {
        game: PathBuf,
        /// The file to write.
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
        /// Write nothing; fail if the file given with -o is not what would be written.
        #[arg(long)]
        check: bool,
        /// The most facts and rule instances grounding may derive before it gives up.
        #[arg(long, default_value_t = gdlc::ground::DEFAULT_MAX_INSTANCES)]
        max_instances: usize,
    },
    /// gdl-perf's engine process: measure for SECONDS and write the report to OUTFILE.
    PerfTest { game: PathBuf, outfile: PathBuf, seconds: f64 },
}

#[derive(Clone, Copy, ValueEnum)]
enum SyntaxArg {
    Kif,
    Infix,
}

#[derive(Clone, Copy, ValueEnum)]
enum Engine {
    /// The reference interpreter.
    Interp,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check { game } => gdlc::cli::check(&game),
        Command::Fmt { game, to } => {
            let syntax = match to {
                SyntaxArg::Kif => Syntax::Kif,
                SyntaxArg::Infix => Syntax::Infix,
            };
            gdlc::cli::fmt(&game, syntax)
        }
        Command::Replay { game, trace, engine: Engine::Interp } => gdlc::cli::replay(&game, &trace),
        Command::Bench { game, seconds, threads, engine: Engine::Interp } => gdlc::cli::bench(&game, seconds, threads),
        Command::Compile { game, output, check, max_instances } => {
            let options = gdlc::codegen::Options { ground: gdlc::ground::Options { max_instances } };
            gdlc::cli::compile(&game, output.as_deref(), check, &options)
        }
        Command::PerfTest { game, outfile, seconds } => gdlc::cli::perf_test(&game, &outfile, seconds),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("{message}");
            }
            ExitCode::FAILURE
        }
    }
}
