//! `gdlc match`, a game manager that runs a match between players over HTTP, and the plainest
//! player factory, which plays every game through the interpreter (`gdlc serve` is
//! [`crate::serve`]).

use gdl_player::http;
use gdl_player::manager::{self, Options};
use gdl_player::player::Kind;
use gdl_player::realtime::session::{RealTimeSession, Strategy};
use gdl_player::rename::Spelling;
use gdl_player::session::{new_session, next_seed, GameFactory, MatchSession, Start};
use gdl_runtime::kif::Sx;
use gdlc::interp::realtime::RealTimeInterpreter;
use gdlc::interp::Interpreter;
use gdlc::load::{load_valid_in, rules_of};
use gdlc::parse::Case;
use std::path::Path;
use std::time::Duration;

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
pub(crate) fn description_of(rules: &[Sx]) -> Result<gdlc::ast::Description, String> {
    let text: String = rules.iter().map(|r| format!("{r}\n")).collect();
    let parsed = gdlc::check::parse_and_check_in(&text, crate::serve::READING);
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
    (start_clock, play_clock): (f64, f64),
    record: Option<&Path>,
    case: Case,
) -> Result<(), String> {
    let loaded = load_valid_in(game, case)?;
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
