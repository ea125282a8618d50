//! `gdlc serve` and `gdlc match`: a GGP player that plays any game through the interpreter
//! (and hands the games it has compiled code for, recognized up to a renaming of symbols, to
//! their per-game binaries), and a game manager that runs a match between players over HTTP.

use crate::compiled::{compiled_binary, CompileError};
use gdl_player::http;
use gdl_player::manager::{self, Options};
use gdl_player::player::Kind;
use gdl_player::protocol::Message;
use gdl_player::protocol::Seen;
use gdl_player::realtime::session::{RealTimeSession, Strategy};
use gdl_player::rename::Spelling;
use gdl_player::server::{Config, Server};
use gdl_player::session::{new_session, next_seed, GameFactory, MatchSession, Start};
use gdl_runtime::kif::Sx;
use gdlc::interp::realtime::RealTimeInterpreter;
use gdlc::interp::Interpreter;
use gdlc::load::{load_valid, rules_of};
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Plays every game it is sent through the reference interpreter, built from START's rules.
pub struct InterpreterFactory {
    pub player: Kind,
}

/// The interpreter of a rule set sent in a START, or the first of the problems that the
/// checker finds in it.
pub fn interpreter_of(rules: &[Sx]) -> Result<Interpreter, String> {
    Interpreter::new(&description_of(rules)?).map_err(|e| e.to_string())
}

/// The checked description of a rule set sent in a START.
fn description_of(rules: &[Sx]) -> Result<gdlc::ast::Description, String> {
    let text: String = rules.iter().map(|r| format!("{r}\n")).collect();
    let parsed = gdlc::check::parse_and_check(&text);
    if parsed.has_errors() {
        let error = parsed.diagnostics.iter().filter(|d| d.is_error()).min_by_key(|d| d.span.start);
        let rendered = error.map(|d| d.render("START", &text)).unwrap_or_default();
        let first = rendered.lines().next().unwrap_or("invalid rules").to_string();
        return Err(format!("the rules are not a valid game: {first}"));
    }
    Ok(parsed.description)
}

impl GameFactory for InterpreterFactory {
    fn start<'s>(&'s self, start: &Start) -> Result<Box<dyn MatchSession + 's>, String> {
        let description = description_of(start.rules)?;
        if gdlc::realtime::is_realtime(&description) {
            // A real-time match: polled by the manager, answered with a move or `nil`.
            let game = Box::new(RealTimeInterpreter::new(&description).map_err(|e| e.to_string())?);
            let strategy = Strategy::of(self.player, next_seed());
            let spelling = Spelling::of_rules(start.rules);
            return Ok(Box::new(RealTimeSession::new(game, start.role, spelling, strategy)?));
        }
        let game = Box::new(Interpreter::new(&description).map_err(|e| e.to_string())?);
        new_session(game, start, Spelling::of_rules(start.rules), self.player)
    }
}

/// A game this player has compiled code for: its rules, and its per-game binary serving it on
/// a local port as a child process, which exits when this process closes its standard input.
struct CompiledGame {
    name: String,
    rules: Vec<Sx>,
    url: String,
    child: Child,
}

impl Drop for CompiledGame {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Builds (or finds in the cache) the per-game binary of `game` and starts it serving.
fn start_compiled(game: &Path, player: Kind) -> Result<CompiledGame, CompileError> {
    let loaded = load_valid(game)?;
    if gdlc::realtime::is_realtime(&loaded.description) {
        return Err(CompileError::Other(format!(
            "{}: error: rtGDL games are played through the interpreter, which plays any game sent in START; \
             leave the game off the command line",
            loaded.file
        )));
    }
    let rules = rules_of(&loaded)?;
    let binary = compiled_binary(game, &gdlc::codegen::Options::default(), true)?;
    let mut child = Command::new(&binary)
        .args(["serve", "--port", "0", "--host", "127.0.0.1", "--exit-with-stdin", "--player", player.name()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("error: cannot run {}: {e}", binary.display()))?;
    let mut line = String::new();
    let stdout = child.stdout.take().ok_or("error: the game binary has no output")?;
    let _ = BufReader::new(stdout).read_line(&mut line);
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).map(str::to_string);
    let name = loaded.file.clone();
    let compiled = CompiledGame { name, rules, url: url.unwrap_or_default(), child };
    if compiled.url.is_empty() {
        return Err(format!("error: {} did not start serving: `{}`", binary.display(), line.trim()).into());
    }
    Ok(compiled)
}

/// The factory of `gdlc serve`: a START whose rules are one of the compiled games up to a
/// renaming goes to that game's binary, any other game to the interpreter.
struct ServeFactory {
    compiled: Vec<CompiledGame>,
    fallback: InterpreterFactory,
}

impl GameFactory for ServeFactory {
    fn start<'s>(&'s self, start: &Start) -> Result<Box<dyn MatchSession + 's>, String> {
        let Some(game) = self.compiled.iter().find(|g| Spelling::recognize(&g.rules, start.rules).is_some()) else {
            return self.fallback.start(start);
        };
        let message = Message::Start {
            id: start.id.to_string(),
            role: start.role.clone(),
            rules: start.rules.to_vec(),
            start_clock: start.start_clock,
            play_clock: start.play_clock,
        };
        let deadline = Instant::now() + start.start_clock.max(Duration::from_secs(1));
        let reply = http::post(&game.url, &message.to_string(), deadline)
            .map_err(|e| format!("the compiled player of {} failed: {e}", game.name))?;
        if !reply.eq_ignore_ascii_case("ready") {
            return Err(format!("the compiled player of {} answered `{reply}`", game.name));
        }
        Ok(Box::new(RemoteSession {
            url: &game.url,
            id: start.id.to_string(),
            play_clock: start.play_clock,
            over: false,
        }))
    }
}

/// A match played by a compiled game's binary: messages are forwarded to it as they come.
struct RemoteSession<'g> {
    url: &'g str,
    id: String,
    play_clock: Duration,
    over: bool,
}

impl MatchSession for RemoteSession<'_> {
    fn play(&mut self, moves: Option<&[Sx]>, deadline: Instant) -> Result<String, String> {
        let message = Message::Play { id: self.id.clone(), moves: moves.map(<[Sx]>::to_vec) };
        // The binary keeps its own margin from the moment it reads the message, a moment later.
        let margin = self.play_clock.saturating_sub(gdl_player::server::think_time(self.play_clock));
        http::post(self.url, &message.to_string(), deadline + margin / 2)
    }

    fn stop(&mut self, moves: Option<&[Sx]>) -> Result<(), String> {
        self.over = true;
        let message = Message::Stop { id: self.id.clone(), moves: moves.map(<[Sx]>::to_vec) };
        http::post(self.url, &message.to_string(), Instant::now() + Duration::from_secs(2)).map(|_| ())
    }

    fn play_seen(&mut self, seen: &Seen, deadline: Instant) -> Result<String, String> {
        let message = Message::PlaySeen { id: self.id.clone(), seen: seen.clone() };
        let margin = self.play_clock.saturating_sub(gdl_player::server::think_time(self.play_clock));
        http::post(self.url, &message.to_string(), deadline + margin / 2)
    }

    fn stop_seen(&mut self, seen: &Seen) -> Result<(), String> {
        self.over = true;
        let message = Message::StopSeen { id: self.id.clone(), seen: seen.clone() };
        http::post(self.url, &message.to_string(), Instant::now() + Duration::from_secs(2)).map(|_| ())
    }
}

impl Drop for RemoteSession<'_> {
    /// A match that ends without STOP (an ABORT, or a new START under the same id) is aborted
    /// in the binary too, so that it does not hold a place there.
    fn drop(&mut self) {
        if !self.over {
            let message = Message::Abort { id: self.id.clone() };
            let _ = http::post(self.url, &message.to_string(), Instant::now() + Duration::from_secs(1));
        }
    }
}

/// `gdlc serve [--port P] [--player mcts|random] [GAME...]`: serves the player protocol until
/// killed, after printing the address it listens on. Each GAME is compiled and served by its
/// per-game binary; START with any other game is played through the interpreter.
pub fn serve(games: &[std::path::PathBuf], port: u16, player: Kind) -> Result<(), String> {
    let mut compiled = Vec::new();
    for game in games {
        match start_compiled(game, player) {
            Ok(started) => compiled.push(started),
            // A game past the grounding limit is still played, through the interpreter.
            Err(e) if e.is_too_large_to_ground() => {
                eprintln!("{e}\nnote: {} is played through the interpreter", game.display())
            }
            Err(e) => return Err(e.into()),
        }
    }
    let config = Config { name: format!("gdlc-{}", player.name()), ..Config::default() };
    let server = Server::bind(&format!("0.0.0.0:{port}"), config)?;
    let address = server.local_addr()?;
    println!("gdlc: {} player listening on http://{address}/", player.name());
    std::io::stdout().flush().map_err(|e| format!("error: cannot write to stdout: {e}"))?;
    server.serve(&ServeFactory { compiled, fallback: InterpreterFactory { player } })
}

/// Writes a match's record as JSON, when a file is given.
fn write_record(record: Option<&Path>, result: &impl serde::Serialize) -> Result<(), String> {
    if let Some(path) = record {
        let json = serde_json::to_string_pretty(result).map_err(|e| format!("error: cannot write the record: {e}"))?;
        std::fs::write(path, json + "\n").map_err(|e| format!("{}: error: cannot write: {e}", path.display()))?;
    }
    Ok(())
}

/// A clock given in seconds on the command line.
fn clock(seconds: f64, what: &str) -> Result<Duration, String> {
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|d| *d <= gdl_player::protocol::MAX_CLOCK && !d.is_zero())
        .ok_or_else(|| format!("error: --{what} must be a positive number of seconds up to a day, not {seconds}"))
}

/// `gdlc match GAME --player URL... [--startclock S] [--playclock P] [--record FILE]`: runs
/// one match, prints the roles, the goals and the substitutions per role, and writes the
/// record as JSON.
pub fn run_match(
    game: &Path,
    players: &[String],
    start_clock: f64,
    play_clock: f64,
    record: Option<&Path>,
) -> Result<(), String> {
    let loaded = load_valid(game)?;
    let rules = rules_of(&loaded)?;
    for url in players {
        http::address_of(url).map_err(|e| format!("error: {e}"))?;
    }
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let options = Options {
        match_id: format!("gdlc.{}", now.as_millis()),
        players: players.to_vec(),
        start_clock: clock(start_clock, "startclock")?,
        play_clock: clock(play_clock, "playclock")?,
        seed: now.as_nanos() as u64,
    };
    if gdlc::realtime::is_realtime(&loaded.description) {
        let interp =
            RealTimeInterpreter::new(&loaded.description).map_err(|e| format!("{}: error: {e}", loaded.file))?;
        let result =
            gdl_player::realtime::manager::run_match(&interp, &rules, &options, &mut |line| eprintln!("{line}"))?;
        write_record(record, &result)?;
        let goals: Vec<String> = result.goals.iter().map(u32::to_string).collect();
        let rejected: Vec<String> = result.rejected_counts().iter().map(usize::to_string).collect();
        println!("roles: {}", result.roles.join(" "));
        println!("goals: {}", goals.join(" "));
        println!("events: {}", result.events.len());
        println!("end: {}", result.end_time);
        println!("rejected: {}", rejected.join(" "));
        return Ok(());
    }
    let interp = Interpreter::new(&loaded.description).map_err(|e| format!("{}: error: {e}", loaded.file))?;
    let result = manager::run_match(&interp, &rules, &options, &mut |line| eprintln!("{line}"))?;
    write_record(record, &result)?;
    let goals: Vec<String> = result.goals.iter().map(u32::to_string).collect();
    let substitutions: Vec<String> = result.substitution_counts().iter().map(usize::to_string).collect();
    println!("roles: {}", result.roles.join(" "));
    println!("goals: {}", goals.join(" "));
    println!("substitutions: {}", substitutions.join(" "));
    Ok(())
}
