//! The command line of every per-game binary that `gdlc build` makes: argument parsing, the
//! `bench`, `replay`, `perf-test`, `info` and `serve` subcommands, and the pure functions behind
//! them.

use crate::trace;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use gdl_runtime::{bench, Game};
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The seed of the benchmark's generators, the same as gdlc's own `bench` uses.
pub const BENCH_SEED: u64 = 0x5eed;

/// The most benchmark threads accepted, so that a mistyped count fails with a message instead
/// of exhausting the operating system's threads.
pub const MAX_THREADS: usize = 1024;

/// How far past the benchmark's end the clock must still be able to count, so that the
/// deadline computed a moment later cannot overflow.
const CLOCK_SLACK: Duration = Duration::from_secs(3600);

#[derive(Parser)]
#[command(about = "A game compiled by gdlc to specialized Rust", arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure random playouts per second (prints gdl-perf's keys).
    Bench {
        /// How long to run.
        #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
        seconds: f64,
        /// How many threads run playouts.
        #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
        threads: usize,
    },
    /// Replay the joint moves of a match trace (or of a `gdlc match --record` file) and print
    /// this game's own trace.
    Replay {
        /// A trace in the JSON Lines format of the conformance suite, or a match record.
        trace: PathBuf,
        /// Compare with the trace instead of printing (for a record: check that every move is
        /// legal and the final goals agree); exit non-zero at the first difference.
        #[arg(long)]
        check: bool,
    },
    /// gdl-perf's engine process: measure for SECONDS on one thread and write the report to OUTFILE.
    PerfTest {
        outfile: PathBuf,
        #[arg(allow_negative_numbers = true)]
        seconds: f64,
    },
    /// Count the joint-move sequences from the initial state, depth by depth, to DEPTH.
    Perft { depth: usize },
    /// Print the game's name and roles.
    Info,
    /// Serve the GGP player protocol over HTTP for this game, recognized in START up to a
    /// renaming of its symbols; START with another game is refused with an error reply.
    Serve {
        /// The port to listen on (0 picks a free one, printed at start).
        #[arg(long, default_value_t = crate::server::DEFAULT_PORT)]
        port: u16,
        /// How the player chooses its moves: mcts or random.
        #[arg(long, default_value = "mcts", value_parser = player_kind)]
        player: crate::player::Kind,
        /// The address to listen on: 127.0.0.1 serves this machine only; 0.0.0.0 serves every
        /// network the machine is on.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// Exit when standard input closes (for a parent process that serves through this one).
        #[arg(long, hide = true)]
        exit_with_stdin: bool,
        /// Log errors only.
        #[arg(short, long)]
        quiet: bool,
        /// Log details too (every message's timing, HTTP errors).
        #[arg(short, long)]
        verbose: bool,
    },
}

fn player_kind(text: &str) -> Result<crate::player::Kind, String> {
    crate::player::Kind::parse(text)
}

/// The whole `main` of a per-game binary: runs the command line's subcommand on `game`,
/// printing its output to stdout and any error to stderr, and fails with a non-zero status on
/// error.
pub fn main<G: Game>(game: &G, name: &str) -> ExitCode {
    main_with_rules(game, name, "")
}

/// [`main`] for a game whose rules (KIF text) are known, which `serve` needs to recognize the
/// game in a START.
pub fn main_with_rules<G: Game>(game: &G, name: &str, rules: &str) -> ExitCode {
    exit_code(run_with_rules(game, name, rules, std::env::args_os().skip(1).collect()))
}

/// The exit code of a command's result, after printing its failure message (if any) to stderr.
pub(crate) fn exit_code(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            let message = message.trim_end();
            if !message.is_empty() {
                // A closed stderr leaves nothing to report to, so a failed write is ignored.
                let _ = writeln!(std::io::stderr(), "{message}");
            }
            ExitCode::FAILURE
        }
    }
}

/// Runs the subcommand that `args` (without the program name) spell on `game`, called `name`,
/// printing its output to stdout and returning the message to print on failure.
pub fn run<G: Game>(game: &G, name: &str, args: Vec<OsString>) -> Result<(), String> {
    run_with_rules(game, name, "", args)
}

/// [`run`] for a game whose rules (KIF text) are known.
pub fn run_with_rules<G: Game>(game: &G, name: &str, rules: &str, args: Vec<OsString>) -> Result<(), String> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    run_to(game, name, rules, args, &mut out)?;
    out.flush().map_err(|e| format!("error: cannot write to stdout: {e}"))
}

/// Does what [`run`] does, writing the output to `out`.
fn run_to<G: Game>(game: &G, name: &str, rules: &str, args: Vec<OsString>, out: &mut dyn Write) -> Result<(), String> {
    let write = |out: &mut dyn Write, text: &str| {
        out.write_all(text.as_bytes()).map_err(|e| format!("error: cannot write the output: {e}"))
    };
    let command = Cli::command().name("game").bin_name(name);
    let argv = std::iter::once(OsString::from(name)).chain(args);
    let cli = match command.try_get_matches_from(argv).and_then(|m| Cli::from_arg_matches(&m)) {
        Ok(cli) => cli,
        // Asking for help is a success, and the help goes to stdout.
        Err(e) if !e.use_stderr() => return write(out, &e.render().to_string()),
        Err(e) => return Err(e.render().to_string()),
    };
    match cli.command {
        Command::Bench { seconds, threads } => write(out, &bench_report(game, &bench_label(name), seconds, threads)?),
        Command::Replay { trace, check } => {
            let text = std::fs::read_to_string(&trace)
                .map_err(|e| format!("{}: error: cannot read the trace: {e}", trace.display()))?;
            let replayed = replay_text(game, &text, check).map_err(|e| format!("{}: error: {e}", trace.display()))?;
            write(out, &replayed)
        }
        Command::PerfTest { outfile, seconds } => {
            let report = bench_report(game, &bench_label(name), seconds, 1)?;
            std::fs::write(&outfile, report).map_err(|e| format!("{}: error: cannot write: {e}", outfile.display()))
        }
        Command::Perft { depth } => write(out, &perft_text(game, depth)),
        Command::Info => write(out, &info_text(game, name)),
        Command::Serve { port, player, host, exit_with_stdin, quiet, verbose } => {
            crate::log::set_level(crate::log::level_of_flags(quiet, verbose));
            let rules =
                gdl_runtime::kif::parse_all(rules).map_err(|e| format!("error: the game's rules are not KIF: {e}"))?;
            if rules.is_empty() {
                return Err(format!("error: {name} was built without its rules, so it cannot recognize its game"));
            }
            let config = crate::server::Config { name: format!("{name}-{}", player.name()), ..Default::default() };
            let server = crate::server::Server::bind(&format!("{host}:{port}"), config)?;
            write(out, &format!("{name}: {} player listening on http://{}/\n", player.name(), server.local_addr()?))?;
            out.flush().map_err(|e| format!("error: cannot write to stdout: {e}"))?;
            if exit_with_stdin {
                std::thread::spawn(|| {
                    // Reading to the end waits for the parent to close the pipe or to die.
                    let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
                    std::process::exit(0);
                });
            }
            let factory = crate::session::OwnGame { game, name: name.to_string(), rules, player };
            server.serve(&factory)
        }
    }
}

/// The `version=` of a compiled game's benchmark reports.
fn bench_label(name: &str) -> String {
    format!("{name} (compiled by gdlc {})", env!("CARGO_PKG_VERSION"))
}

/// Replays every match of a trace in the JSON Lines format, or a record of `gdlc match
/// --record`, through `game`. Without `check` it returns the traces `game` produces,
/// concatenated; with `check` it compares them with the trace (or checks the record's moves
/// and goals) and returns one line per match, or the first difference as an error. An error
/// names the line or match that failed.
pub fn replay_text<G: Game>(game: &G, trace_text: &str, check: bool) -> Result<String, String> {
    if let Some(recorded) = trace::read_record(trace_text) {
        let recorded = recorded?;
        if check {
            let replayed = trace::check_record(game, &recorded).map_err(|e| format!("record: {e}"))?;
            let moves = replayed.steps.len() - 1;
            return Ok(format!("record: {moves} joint moves legal, final goals {:?} agree\n", recorded.goals));
        }
        return Ok(trace::write(&trace::replay(game, &recorded.trace).map_err(|e| format!("record: {e}"))?));
    }
    let matches = trace::read(trace_text)?;
    let mut out = String::new();
    for (n, m) in matches.iter().enumerate() {
        let replayed = trace::replay(game, m).map_err(|e| format!("match {}: {e}", n + 1))?;
        if check {
            trace::compare(m, &replayed).map_err(|e| format!("match {}: {e}", n + 1))?;
            out.push_str(&format!("match {}: {} states agree\n", n + 1, m.steps.len()));
        } else {
            out.push_str(&trace::write(&replayed));
        }
    }
    Ok(out)
}

/// Runs random playouts of `game` for `seconds` on `threads` threads and returns gdl-perf's
/// report, with `label` as its version; a time that is negative, not a number or too long for
/// the clock, and a thread count outside `1..=MAX_THREADS`, are errors.
pub fn bench_report<G: Game>(game: &G, label: &str, seconds: f64, threads: usize) -> Result<String, String> {
    let duration = bench_duration(seconds, threads)?;
    let progress = std::io::stderr().is_terminal();
    Ok(bench::run_with_progress(game, duration, threads, BENCH_SEED, progress).report(label))
}

/// `perft DEPTH`: the counts of [`gdl_runtime::perft`] per depth, then the time and the nodes
/// per second.
pub fn perft_text<G: Game>(game: &G, depth: usize) -> String {
    let start = std::time::Instant::now();
    let counts = gdl_runtime::perft::perft(game, depth);
    let seconds = start.elapsed().as_secs_f64();
    let rate = counts.nodes() as f64 / seconds.max(1e-9);
    format!("{counts}time: {seconds:.3} s, {rate:.0} nodes/s\n")
}

/// The duration of a benchmark of `seconds` on `threads` threads, or why they are refused.
pub fn bench_duration(seconds: f64, threads: usize) -> Result<Duration, String> {
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(format!("error: seconds must be a non-negative number, not {seconds}"));
    }
    if !(1..=MAX_THREADS).contains(&threads) {
        return Err(format!("error: threads must be between 1 and {MAX_THREADS}, not {threads}"));
    }
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|d| d.checked_add(CLOCK_SLACK).and_then(|d| Instant::now().checked_add(d)).is_some())
        .ok_or_else(|| format!("error: {seconds} seconds is longer than the clock can measure"))
}

/// The `info` subcommand's output: the game's name, its roles on one line, and their number.
fn info_text<G: Game>(game: &G, name: &str) -> String {
    let roles: Vec<&str> = (0..game.num_roles()).map(|r| game.role_name(r)).collect();
    format!("game: {name}\nroles: {}\nnum_roles: {}\n", roles.join(" "), roles.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-role game that ends after three steps: each step role `a` plays `tick` or `tock`
    /// and role `b` plays `noop`; `a` ends with 100 and `b` with 0.
    struct Counter;

    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct State {
        count: u32,
        tocks: u32,
    }

    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    enum Move {
        Tick,
        Tock,
        Noop,
    }

    impl Game for Counter {
        type State = State;
        type Move = Move;

        fn num_roles(&self) -> usize {
            2
        }

        fn role_name(&self, role: usize) -> &str {
            ["a", "b"][role]
        }

        fn initial_state(&self) -> State {
            State { count: 0, tocks: 0 }
        }

        fn legal_moves(&self, state: &State, role: usize, out: &mut Vec<Move>) {
            out.clear();
            if self.is_terminal(state) {
                return;
            }
            match role {
                0 => out.extend([Move::Tick, Move::Tock]),
                _ => out.push(Move::Noop),
            }
        }

        fn next_state(&self, state: &State, joint: &[Move]) -> State {
            State { count: state.count + 1, tocks: state.tocks + u32::from(joint[0] == Move::Tock) }
        }

        fn is_terminal(&self, state: &State) -> bool {
            state.count >= 3
        }

        fn goal(&self, state: &State, role: usize) -> Option<u32> {
            self.is_terminal(state).then_some([100, 0][role])
        }

        fn state_facts(&self, state: &State) -> Vec<String> {
            vec![format!("(count {})", state.count), format!("(tocks {})", state.tocks)]
        }

        fn move_string(&self, mv: &Move) -> String {
            match mv {
                Move::Tick => "tick",
                Move::Tock => "tock",
                Move::Noop => "noop",
            }
            .to_string()
        }

        fn parse_move(&self, role: usize, text: &str) -> Option<Move> {
            let mv = match text.trim().to_ascii_lowercase().as_str() {
                "tick" => Move::Tick,
                "tock" => Move::Tock,
                "noop" => Move::Noop,
                _ => return None,
            };
            ((role == 1) == (mv == Move::Noop)).then_some(mv)
        }
    }

    /// The trace of a match in which `a` plays `moves`, produced with `trace::observe`.
    fn counter_trace(moves: &[Move]) -> String {
        let game = Counter;
        let mut state = game.initial_state();
        let mut steps = Vec::new();
        for (i, mv) in moves.iter().enumerate() {
            let mut step = trace::observe(&game, &state, i);
            let joint = [mv.clone(), Move::Noop];
            step.joint = Some(joint.iter().map(|m| game.move_string(m)).collect());
            steps.push(step);
            state = game.next_state(&state, &joint);
        }
        steps.push(trace::observe(&game, &state, moves.len()));
        let header = trace::Header { game: "counter".into(), roles: vec!["a".into(), "b".into()] };
        trace::write(&trace::Match { header, steps })
    }

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    /// Runs the driver on `Counter`, returning its output or its error.
    fn run_counter(list: &[&str]) -> Result<String, String> {
        let mut out = Vec::new();
        run_to(&Counter, "counter", "", args(list), &mut out)?;
        Ok(String::from_utf8(out).expect("the driver writes UTF-8"))
    }

    /// A path in the temporary directory that no other test uses.
    fn temp_path(file: &str) -> PathBuf {
        std::env::temp_dir().join(format!("gdl-runtime-driver-{}-{file}", std::process::id()))
    }

    #[test]
    fn the_produced_trace_is_what_observe_says() {
        let text = counter_trace(&[Move::Tick, Move::Tock, Move::Tick]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[0], r#"{"game": "counter", "roles": ["a", "b"]}"#);
        assert_eq!(
            lines[1],
            r#"{"step": 0, "state": ["(count 0)", "(tocks 0)"], "terminal": false, "legal": [["tick", "tock"], ["noop"]], "goals": null, "joint": ["tick", "noop"]}"#
        );
        assert_eq!(
            lines[4],
            r#"{"step": 3, "state": ["(count 3)", "(tocks 1)"], "terminal": true, "legal": [[], []], "goals": [100, 0], "joint": null}"#
        );
    }

    #[test]
    fn replay_text_round_trips_every_match() {
        let one = counter_trace(&[Move::Tick, Move::Tock, Move::Tick]);
        assert_eq!(replay_text(&Counter, &one, false).unwrap(), one);
        let two = format!("{one}{}", counter_trace(&[Move::Tock, Move::Tock, Move::Tock]));
        assert_eq!(replay_text(&Counter, &two, false).unwrap(), two);
        assert_eq!(replay_text(&Counter, "", false).unwrap(), "");
    }

    #[test]
    fn replay_text_recomputes_what_the_trace_claims() {
        // Only the joint moves of the reference count: wrong states are replaced by the game's own.
        let honest = counter_trace(&[Move::Tock, Move::Tick, Move::Tick]);
        let lying = honest.replace("(tocks 1)", "(tocks 7)");
        assert_ne!(lying, honest);
        assert_eq!(replay_text(&Counter, &lying, false).unwrap(), honest);
    }

    #[test]
    fn replay_text_says_what_went_wrong() {
        let good = counter_trace(&[Move::Tick, Move::Tick, Move::Tick]);
        let bad_move = format!("{good}{}", good.replacen("\"tick\", \"noop\"]}", "\"jump\", \"noop\"]}", 1));
        let e = replay_text(&Counter, &bad_move, false).unwrap_err();
        assert!(e.starts_with("match 2: step 0:") && e.contains("`jump`"), "{e}");
        let e = replay_text(&Counter, &good.replace("[\"a\", \"b\"]}", "[\"b\", \"a\"]}"), false).unwrap_err();
        assert!(e.starts_with("match 1:") && e.contains("roles"), "{e}");
        let e = replay_text(&Counter, &format!("{good}not json\n"), false).unwrap_err();
        assert!(e.starts_with("line 6: not JSON"), "{e}");
    }

    #[test]
    fn replay_check_compares_with_the_trace() {
        let honest = counter_trace(&[Move::Tock, Move::Tick, Move::Tick]);
        assert_eq!(replay_text(&Counter, &honest, true).unwrap(), "match 1: 4 states agree\n");
        let lying = honest.replace("(tocks 1)", "(tocks 7)");
        let e = replay_text(&Counter, &lying, true).unwrap_err();
        assert!(e.starts_with("match 1: step 1: state differs"), "{e}");
    }

    /// A record as `gdlc match --record` writes it, with the fields a replay does not read.
    fn record(joints: &[[&str; 2]], goals: [u32; 2]) -> String {
        let steps: Vec<String> = joints
            .iter()
            .map(|[a, b]| format!(r#"{{"joint": ["{a}", "{b}"], "substitutions": [], "reply_ms": [3, 4]}}"#))
            .collect();
        format!(
            r#"{{"match_id": "m1", "roles": ["a", "b"], "players": ["http://x/", "http://y/"], "start_clock": 1.0,
               "play_clock": 1.0, "start_replies": ["ready", "ready"], "steps": [{}], "goals": [{}, {}]}}"#,
            steps.join(", "),
            goals[0],
            goals[1]
        )
    }

    #[test]
    fn records_replay_and_check_their_moves_and_goals() {
        let played = [["tick", "noop"], ["tock", "noop"], ["tick", "noop"]];
        let good = record(&played, [100, 0]);
        assert_eq!(
            replay_text(&Counter, &good, true).unwrap(),
            "record: 3 joint moves legal, final goals [100, 0] agree\n"
        );
        let trace = replay_text(&Counter, &good, false).unwrap();
        assert_eq!(trace.replace("\"m1\"", "\"counter\""), counter_trace(&[Move::Tick, Move::Tock, Move::Tick]));
        let e = replay_text(&Counter, &record(&played, [0, 100]), true).unwrap_err();
        assert!(e.starts_with("record: step 3: goals [100, 0]"), "{e}");
        let e = replay_text(&Counter, &record(&played[..2], [100, 0]), true).unwrap_err();
        assert!(e.contains("not terminal"), "{e}");
        let e = replay_text(&Counter, &record(&[["noop", "noop"]], [0, 0]), true).unwrap_err();
        assert!(e.starts_with("record: step 0: `noop`"), "{e}");
    }

    #[test]
    fn bench_report_has_the_gdl_perf_keys_and_the_fixed_goals() {
        let report = bench_report(&Counter, "counter test", 0.05, 2).unwrap();
        assert!(report.starts_with("version=counter test\n"), "{report}");
        let rollouts: u64 = report
            .lines()
            .find_map(|l| l.strip_prefix("numRollouts="))
            .expect("the report has numRollouts")
            .parse()
            .unwrap();
        assert!(rollouts > 0, "{report}");
        let changes: u64 = report
            .lines()
            .find_map(|l| l.strip_prefix("numStateChanges="))
            .expect("the report has numStateChanges")
            .parse()
            .unwrap();
        // Three steps per rollout, and each of the two threads may stop within one.
        assert!((rollouts * 3..=rollouts * 3 + 2 * 3).contains(&changes), "{report}");
        assert!(report.ends_with("averageGoals=a:100.00,b:0.00\n"), "{report}");
    }

    #[test]
    fn bench_report_rejects_bad_times_and_thread_counts() {
        for seconds in [-1.0, f64::NAN, f64::INFINITY, 1e30] {
            let e = bench_report(&Counter, "x", seconds, 1).unwrap_err();
            assert!(e.starts_with("error: ") && e.contains("seconds"), "{seconds}: {e}");
        }
        for threads in [0, MAX_THREADS + 1] {
            let e = bench_report(&Counter, "x", 0.0, threads).unwrap_err();
            assert!(e.contains("threads must be between 1 and"), "{threads}: {e}");
        }
    }

    #[test]
    fn bench_prints_the_report_with_the_game_name() {
        let out = run_counter(&["bench", "--seconds", "0.02"]).unwrap();
        assert!(out.starts_with("version=counter (compiled by gdlc "), "{out}");
        assert!(out.contains("\nnumRollouts="), "{out}");
    }

    #[test]
    fn replay_prints_the_replayed_trace_of_a_file() {
        let text = counter_trace(&[Move::Tock, Move::Tick, Move::Tock]);
        let path = temp_path("replay.jsonl");
        std::fs::write(&path, &text).unwrap();
        let out = run_counter(&["replay", path.to_str().unwrap()]);
        let _ = std::fs::remove_file(&path);
        assert_eq!(out.unwrap(), text);
    }

    #[test]
    fn perf_test_writes_the_report_to_the_file() {
        let path = temp_path("perf.txt");
        let out = run_counter(&["perf-test", path.to_str().unwrap(), "0.02"]);
        let report = std::fs::read_to_string(&path);
        let _ = std::fs::remove_file(&path);
        assert_eq!(out.unwrap(), "");
        let report = report.unwrap();
        assert!(report.starts_with("version=counter (compiled by gdlc "), "{report}");
        assert!(report.contains("\nnumRollouts="), "{report}");
    }

    #[test]
    fn info_prints_the_name_and_roles() {
        assert_eq!(run_counter(&["info"]).unwrap(), "game: counter\nroles: a b\nnum_roles: 2\n");
    }

    #[test]
    fn serve_refuses_rules_that_are_not_kif_and_ports_in_use() {
        let e = run_with_rules(&Counter, "counter", "(role a", args(&["serve", "--port", "0"])).unwrap_err();
        assert!(e.contains("the game's rules are not KIF"), "{e}");
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = taken.local_addr().unwrap().port().to_string();
        let list = ["serve", "--host", "127.0.0.1", "--port", port.as_str()];
        let e = run_with_rules(&Counter, "counter", "(role a) (role b)", args(&list)).unwrap_err();
        assert!(e.contains("cannot listen on 127.0.0.1:"), "{e}");
    }

    #[test]
    fn help_is_printed_and_succeeds() {
        let out = run_counter(&["--help"]).unwrap();
        assert!(out.contains("Usage: counter <COMMAND>") && out.contains("perf-test"), "{out}");
    }

    #[test]
    fn bad_arguments_are_errors() {
        let cases: &[(&[&str], &str)] = &[
            (&[], "Usage: counter"),
            (&["play"], "unrecognized subcommand 'play'"),
            (&["bench", "--seconds", "-1"], "error: seconds must be a non-negative number, not -1"),
            (&["bench", "--seconds", "soon"], "invalid value 'soon'"),
            (&["bench", "--threads", "0"], "error: threads must be between 1 and"),
            (&["bench", "--threads", "-2"], "invalid value '-2'"),
            (&["perf-test", "out.txt", "-1"], "error: seconds must be a non-negative number"),
            (&["perf-test", "out.txt"], "required arguments were not provided"),
            (&["replay"], "required arguments were not provided"),
            (&["replay", "/nonexistent/trace.jsonl"], "/nonexistent/trace.jsonl: error: cannot read the trace"),
            (&["info", "extra"], "unexpected argument 'extra'"),
            (&["serve", "--port", "0"], "error: counter was built without its rules"),
            (&["serve", "--player", "minimax"], "unknown player `minimax`; expected mcts, random, first or idle"),
            (&["serve", "--port", "99999"], "invalid value '99999'"),
        ];
        for (list, expected) in cases {
            let e = run(&Counter, "counter", args(list)).unwrap_err();
            assert!(e.contains(expected), "{list:?}: {e}");
        }
    }

    #[test]
    fn replay_of_a_bad_trace_names_the_file() {
        let path = temp_path("bad.jsonl");
        std::fs::write(&path, "{\"step\": 0}\n").unwrap();
        let out = run_counter(&["replay", path.to_str().unwrap()]);
        let _ = std::fs::remove_file(&path);
        let e = out.unwrap_err();
        assert!(e.starts_with(&format!("{}: error: line 1:", path.display())), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_arguments_are_errors() {
        use std::os::unix::ffi::OsStringExt;
        let args = vec![OsString::from("replay"), OsString::from_vec(vec![0x66, 0xff, 0x6f])];
        // A path need not be UTF-8, so this one reaches the file system and is not found.
        assert!(run(&Counter, "counter", args).unwrap_err().contains("cannot read the trace"));
        let args = vec![OsString::from("bench"), OsString::from("--seconds"), OsString::from_vec(vec![0xff])];
        assert!(run(&Counter, "counter", args).is_err());
    }
}
