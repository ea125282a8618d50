//! The `gdlc` command line: its arguments, read with clap and handed to [`gdlc_cli`].

use clap::{Parser, Subcommand, ValueEnum};
use gdl_player::player::Kind;
use gdlc::parse::{Case, Syntax};
use gdlc_cli::commands::InProcess;
use gdlc_cli::{commands, compiled, play, serve, view};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(name = "gdlc", version, about = "A compiler from the Game Description Language (GDL) to specialized Rust")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Keep names that differ only in letter case apart (`nextFile` and `nextfile` are two
    /// names), as ggp-base does; keywords are read in any case. Without it, names are read in
    /// any case, as the specification says. `serve` always keeps them apart.
    #[arg(long, global = true)]
    case_sensitive: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Check a game against the GDL specification and summarize it.
    Check {
        /// The game description (prefix KIF or infix GDL).
        game: PathBuf,
        /// Stop with an error when the check takes longer than this many seconds (every game
        /// of the public repository takes a few seconds at most).
        #[arg(long, default_value_t = 30.0)]
        timeout: f64,
        /// Stop with an error when one evaluation of the game (loading it, or one query in a
        /// state) derives more facts than this.
        #[arg(long, default_value_t = 4_000_000)]
        max_facts: usize,
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
        /// A trace in the JSON Lines format of the conformance suite, or a record written by
        /// `gdlc match --record`.
        trace: PathBuf,
        /// Compare with the trace instead of printing this engine's (for a record: check that
        /// every move is legal and the final goals agree); exit 1 at the first difference.
        #[arg(long)]
        check: bool,
        /// The engine that evaluates the game [default: compiled, or the interpreter for a
        /// game past the grounding limit, with a note on stderr]; `program` evaluates the
        /// ground program with no Rust built.
        #[arg(long, value_enum)]
        engine: Option<Engine>,
        #[command(flatten)]
        grounding: Grounding,
        #[command(flatten)]
        building: Building,
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
        /// The engine that evaluates the game [default: compiled, or the interpreter for a
        /// game past the grounding limit, with a note on stderr]; `program` evaluates the
        /// ground program with no Rust built.
        #[arg(long, value_enum)]
        engine: Option<Engine>,
        #[command(flatten)]
        grounding: Grounding,
        #[command(flatten)]
        building: Building,
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
        #[command(flatten)]
        grounding: Grounding,
    },
    /// Build a standalone binary of a game (subcommands bench, replay, perf-test, info).
    Build {
        game: PathBuf,
        /// The binary to write.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        #[command(flatten)]
        grounding: Grounding,
        #[command(flatten)]
        building: Building,
    },
    /// Serve the GGP player protocol over HTTP: play any game sent in START.
    Serve {
        /// Games this player has compiled code for (recognized up to renaming of symbols).
        games: Vec<PathBuf>,
        /// The port to listen on (0 picks a free one, printed at start).
        #[arg(long, default_value_t = gdl_player::server::DEFAULT_PORT)]
        port: u16,
        /// How the player chooses its moves.
        #[arg(long, value_enum, default_value_t = PlayerArg::Mcts)]
        player: PlayerArg,
        /// The address to listen on: 127.0.0.1 serves this machine only; 0.0.0.0 serves every
        /// network the machine is on.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// Play games met in START through the program engine or the interpreter only, without
        /// building their native code.
        #[arg(long)]
        no_native: bool,
        /// The most facts one evaluation of the interpreter may derive (loading a game, or one
        /// query in a state); a game that goes past it is refused at START, or gets an error
        /// naming the relation at the PLAY that goes past it.
        #[arg(long, default_value_t = 4_000_000)]
        max_facts: usize,
        /// The most facts and rule instances grounding may derive before it gives up; a game
        /// past it is played through the interpreter, and its native code is built in the
        /// lifted form.
        #[arg(long, default_value_t = gdlc::ground::DEFAULT_MAX_INSTANCES)]
        max_instances: usize,
        /// Log errors only.
        #[arg(short, long)]
        quiet: bool,
        /// Log details too (every message's timing, HTTP errors, the backends' own lines).
        #[arg(short, long)]
        verbose: bool,
    },
    /// Count the joint-move sequences from the initial state to DEPTH, depth by depth (the
    /// nodes of the game tree and the complete games), with the nodes per second.
    Perft {
        game: PathBuf,
        depth: usize,
        /// The engine that evaluates the game [default: compiled, or the interpreter for a
        /// game past the grounding limit].
        #[arg(long, value_enum)]
        engine: Option<Engine>,
        #[command(flatten)]
        grounding: Grounding,
        #[command(flatten)]
        building: Building,
    },
    /// Decide whether a game is well formed (termination, playability, winnability, goals,
    /// input and base), each property proved, refuted with a witness, or unknown.
    Analyze(AnalyzeArgs),
    /// Run a match between GGP players over HTTP, printing the goals.
    Match {
        game: PathBuf,
        /// A player's URL (http://HOST:PORT/), once per role in role order; GDL-II's `random`
        /// role takes none (the manager plays it).
        #[arg(long = "player", required = true)]
        players: Vec<String>,
        /// Seconds the players have after START (fractions allowed).
        #[arg(long, default_value_t = 10.0)]
        startclock: f64,
        /// Seconds the players have for each move (fractions allowed).
        #[arg(long, default_value_t = 5.0)]
        playclock: f64,
        /// Write the match's record as JSON to this file.
        #[arg(long)]
        record: Option<PathBuf>,
    },
    /// Draw a match as one self-contained HTML page: a record of `gdlc match`, or with
    /// --trace a match of a reference trace (then INPUT is the game).
    View {
        /// A record written by `gdlc match --record`; with --trace, the game.
        input: PathBuf,
        /// A trace in the JSON Lines format of the conformance suite.
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Which match of the trace, from 0.
        #[arg(long = "match", default_value_t = 0)]
        index: usize,
        /// The game of a record: its board coordinates, and the states of a record that holds
        /// none.
        #[arg(long)]
        game: Option<PathBuf>,
        /// The page to write.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
    },
    /// gdl-perf's engine process: measure for SECONDS and write the report to OUTFILE.
    PerfTest {
        game: PathBuf,
        outfile: PathBuf,
        seconds: f64,
        /// The engine that evaluates the game [default: compiled, or the interpreter for a
        /// game past the grounding limit, with a note on stderr]; `program` evaluates the
        /// ground program with no Rust built.
        #[arg(long, value_enum)]
        engine: Option<Engine>,
        #[command(flatten)]
        grounding: Grounding,
        #[command(flatten)]
        building: Building,
    },
}

/// How the game's binary is built.
#[derive(clap::Args)]
struct Building {
    /// Build the binary guided by a profile of its own random playouts: built once
    /// instrumented, run for 3 s, and built again from what that run measured (faster play,
    /// a build about three times as long; needs `rustup component add llvm-tools`).
    #[arg(long)]
    pgo: bool,
}

impl Building {
    fn optimize(&self) -> gdlc_cli::native::Optimize {
        gdlc_cli::native::Optimize { profile_guided: self.pgo }
    }
}

/// The compiler's settings.
#[derive(clap::Args)]
struct Grounding {
    /// The most facts and rule instances grounding may derive before it gives up.
    #[arg(long, default_value_t = gdlc::ground::DEFAULT_MAX_INSTANCES)]
    max_instances: usize,
    /// How the game functions are generated: straight-line code, tables evaluated by the
    /// runtime, or straight-line code unless the ground program is large.
    #[arg(long, value_enum, default_value_t = FormArg::Auto)]
    form: FormArg,
}

impl Grounding {
    fn options(&self, case: Case) -> gdlc::codegen::Options {
        let form = match self.form {
            FormArg::Auto => gdlc::codegen::Form::Auto,
            FormArg::Straight => gdlc::codegen::Form::Straight,
            FormArg::Tables => gdlc::codegen::Form::Tables,
            FormArg::Lifted => gdlc::codegen::Form::Lifted,
        };
        gdlc::codegen::Options {
            ground: gdlc::ground::Options { max_instances: self.max_instances, case, ..Default::default() },
            form,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum FormArg {
    /// Straight-line code, or tables when the ground program has over 150,000 literals or its straight-line functions over 750,000 tokens (rustc would take over a minute); a game with most of its propositions in node words (boards evaluated 64 cells at a time) is written straight up to 500,000 literals and 1,100,000 tokens. A game too large to ground gets the lifted form.
    Auto,
    /// Straight-line Rust: the fastest on most games (the tables are faster where few facts change a step), but slow to build for large games.
    Straight,
    /// Tables of the ground program, evaluated by the runtime: quick to build at any size. The lifted rules come beside them, and the faster of the two plays, chosen by a race when the game is first used (GDL_ENGINE=tables or GDL_ENGINE=lifted in the environment chooses instead).
    Tables,
    /// The rules with variables, not ground: one generated join per rule, evaluated over each state's facts, for games too large to ground.
    Lifted,
}

#[derive(Clone, Copy, ValueEnum)]
enum SyntaxArg {
    Kif,
    Infix,
}

#[derive(Clone, Copy, ValueEnum)]
enum PlayerArg {
    /// Monte Carlo tree search over the whole play clock.
    Mcts,
    /// A uniformly random legal move (in real-time games: at random polls).
    Random,
    /// The first legal move (in real-time games: as soon as it has one).
    First,
    /// The first legal move in turn-based games; never moves in real-time games.
    Idle,
}

impl PlayerArg {
    fn kind(self) -> Kind {
        match self {
            PlayerArg::Mcts => Kind::Mcts,
            PlayerArg::Random => Kind::Random,
            PlayerArg::First => Kind::First,
            PlayerArg::Idle => Kind::Idle,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Engine {
    /// The game compiled to Rust and built (cached between runs).
    Compiled,
    /// The reference interpreter.
    Interp,
    /// The ground program evaluated as data: grounded at once, with no Rust built.
    Program,
}

/// Runs `args` through the compiled game, or `in_process` with the interpreter for `--engine
/// interp` and with the ground program for `--engine program`; without `--engine`, a game past
/// the grounding limit falls back to the interpreter.
fn run(
    engine: Option<Engine>,
    game: &std::path::Path,
    (grounding, building, case): (&Grounding, &Building, Case),
    args: &[std::ffi::OsString],
    in_process: impl FnOnce(&InProcess) -> Result<(), String>,
) -> Result<(), String> {
    let options = grounding.options(case);
    let optimize = building.optimize();
    match engine {
        Some(Engine::Interp) => in_process(&InProcess::Interpreter(case)),
        Some(Engine::Program) => in_process(&InProcess::Program(options.ground)),
        Some(Engine::Compiled) => compiled::run_compiled(game, (&options, optimize), args),
        None => compiled::run_compiled_or_interpreted(game, (&options, optimize), args, || {
            in_process(&InProcess::Interpreter(case))
        }),
    }
}

/// `gdlc analyze`'s arguments.
#[derive(clap::Args)]
struct AnalyzeArgs {
    game: PathBuf,
    /// The most states the exhaustive search keeps before it turns to random playouts.
    #[arg(long, default_value_t = 1_000_000)]
    max_states: usize,
    /// The time the search may take.
    #[arg(long, default_value_t = 60.0)]
    seconds: f64,
    /// How many threads search.
    #[arg(long, default_value_t = std::thread::available_parallelism().map_or(1, |n| n.get()))]
    threads: usize,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Write every witness into this directory as a trace that `gdlc replay` plays.
    #[arg(long)]
    witnesses: Option<PathBuf>,
    /// The engine: `program` (default: the ground program, or the interpreter for a game
    /// too large to ground) or `interp`.
    #[arg(long, value_enum)]
    engine: Option<Engine>,
    #[command(flatten)]
    grounding: Grounding,
}

impl AnalyzeArgs {
    /// Runs `gdlc analyze`, through the ground program unless `--engine interp` is given.
    fn run(&self, case: Case) -> Result<(), String> {
        use gdlc_cli::analyze::{Engine as On, Settings};
        let engine = match self.engine {
            Some(Engine::Interp) => On::Interpreter,
            Some(Engine::Program) | None => On::Program,
            Some(Engine::Compiled) => {
                return Err("error: gdlc analyze runs in process: --engine program or interp".into())
            }
        };
        let options = gdlc_cli::analyze::options(self.max_states, self.seconds, self.threads)?;
        let ground = self.grounding.options(case).ground;
        let settings = Settings { options, engine, ground, json: self.json, witnesses: self.witnesses.clone() };
        gdlc_cli::analyze::analyze(&self.game, &settings)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Diagnostics are coloured as rustc's are when both outputs are a terminal (`check` prints
    // its warnings on standard output), unless NO_COLOR says otherwise.
    let no_colour = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let terminal = std::io::stderr().is_terminal() && std::io::stdout().is_terminal();
    gdlc::diag::use_colour(terminal && !no_colour);
    let case = if cli.case_sensitive { Case::Sensitive } else { Case::Insensitive };
    let result = match cli.command {
        Command::Check { game, timeout, max_facts } => match Duration::try_from_secs_f64(timeout) {
            Ok(timeout) => gdlc_cli::check::check(&game, gdlc_cli::check::Budget { timeout, max_facts }, case),
            Err(_) => Err(format!("error: --timeout {timeout} is not a number of seconds")),
        },
        Command::Fmt { game, to } => {
            let syntax = match to {
                SyntaxArg::Kif => Syntax::Kif,
                SyntaxArg::Infix => Syntax::Infix,
            };
            commands::fmt(&game, syntax, case)
        }
        Command::Replay { game, trace, check, engine, grounding, building } => {
            let mut args = vec!["replay".into(), trace.clone().into()];
            if check {
                args.push("--check".into());
            }
            run(engine, &game, (&grounding, &building, case), &args, |engine| {
                commands::replay(&game, &trace, engine, check)
            })
        }
        Command::Bench { game, seconds, threads, engine, grounding, building } => {
            let args = [
                "bench".into(),
                "--seconds".into(),
                seconds.to_string().into(),
                "--threads".into(),
                threads.to_string().into(),
            ];
            run(engine, &game, (&grounding, &building, case), &args, |engine| {
                commands::bench(&game, seconds, threads, engine)
            })
        }
        Command::Perft { game, depth, engine, grounding, building } => {
            let args = ["perft".into(), depth.to_string().into()];
            run(engine, &game, (&grounding, &building, case), &args, |engine| commands::perft(&game, depth, engine))
        }
        Command::Compile { game, output, check, grounding } => {
            commands::compile(&game, output.as_deref(), check, &grounding.options(case))
        }
        Command::Build { game, output, grounding, building } => {
            commands::build(&game, &output, &grounding.options(case), building.optimize())
        }
        Command::Serve { games, port, player, host, no_native, max_facts, max_instances, quiet, verbose } => {
            gdl_player::log::set_level(gdl_player::log::level_of_flags(quiet, verbose));
            let native = !no_native;
            let options = serve::Options { games, host, port, player: player.kind(), native, max_facts, max_instances };
            serve::serve(&options)
        }
        Command::Analyze(args) => args.run(case),
        Command::Match { game, players, startclock, playclock, record } => {
            play::run_match(&game, &players, (startclock, playclock), record.as_deref(), case)
        }
        Command::View { input, trace, index, game, output } => {
            let (source, game) = match &trace {
                Some(trace) => (view::Source::Trace { trace, index }, Some(input.as_path())),
                None => (view::Source::Record(&input), game.as_deref()),
            };
            view::write_page(source, game.map(|g| (g, case)), &output)
                .map(|line| println!("{line}"))
                .map_err(|e| e.to_string())
        }
        Command::PerfTest { game, outfile, seconds, engine, grounding, building } => {
            let args = ["perf-test".into(), outfile.clone().into(), seconds.to_string().into()];
            run(engine, &game, (&grounding, &building, case), &args, |engine| {
                commands::perf_test(&game, &outfile, seconds, engine)
            })
        }
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
