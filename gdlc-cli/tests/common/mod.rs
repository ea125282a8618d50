//! What the match tests share: `gdlc serve` processes killed when dropped, `gdlc match` run
//! to its record, and the checks of a record.

// Not every test file uses every helper.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A `gdlc serve` process, killed when dropped.
pub(crate) struct Player {
    pub(crate) child: Child,
    pub(crate) url: String,
}

impl Drop for Player {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `gdlc serve` process that plays through its engines only (native builds are the subject
/// of one test, and would load the machine in the others), logging errors only.
pub(crate) fn serve(args: &[&str]) -> Player {
    serve_logging(&[args, &["--no-native", "-q"]].concat(), Stdio::null())
}

pub(crate) fn serve_logging(args: &[&str], log: Stdio) -> Player {
    start_serve(serve_command(args), log)
}

/// The command of `gdlc serve` on a free port with `args`, for a caller to add to.
pub(crate) fn serve_command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gdlc"));
    command.args(["serve", "--port", "0"]).args(args);
    command
}

/// Starts `command` (a [`serve_command`]) with its log to `log`, and reads the address it
/// serves on.
pub(crate) fn start_serve(mut command: Command, log: Stdio) -> Player {
    let mut child = command.stdout(Stdio::piped()).stderr(log).spawn().expect("gdlc serve runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let address = line.split_whitespace().find(|w| w.starts_with("http://")).unwrap_or_else(|| panic!("{line}"));
    let url = address.replace("0.0.0.0", "127.0.0.1");
    Player { child, url }
}

pub(crate) fn game(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../games").join(file).display().to_string()
}

/// Runs `gdlc match` and returns the goals it prints and the record it writes.
pub(crate) fn run_match(game: &str, players: &[&Player], play_clock: &str) -> (Vec<u32>, serde_json::Value) {
    run_match_with(game, players, "5", play_clock)
}

pub(crate) fn run_match_with(
    game: &str,
    players: &[&Player],
    start_clock: &str,
    play_clock: &str,
) -> (Vec<u32>, serde_json::Value) {
    let record = std::env::temp_dir().join(format!("gdlc-match-{}-{}.json", std::process::id(), rand_suffix()));
    let mut command = Command::new(env!("CARGO_BIN_EXE_gdlc"));
    command.args(["match", game, "--startclock", start_clock, "--playclock", play_clock, "--record"]).arg(&record);
    for p in players {
        command.args(["--player", &p.url]);
    }
    let out = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let goals: Vec<u32> = stdout
        .lines()
        .find_map(|l| l.strip_prefix("goals: "))
        .unwrap_or_else(|| panic!("{stdout}"))
        .split(' ')
        .map(|g| g.parse().unwrap())
        .collect();
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let _ = std::fs::remove_file(&record);
    (goals, json)
}

pub(crate) fn rand_suffix() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
}

/// Checks a record's steps: no substitutions, every reply within the play clock and the
/// network's grace (the manager's rule), each role's median reply where it had a choice within
/// the play clock itself, and goals as printed. A single reply may pass the clock by a
/// scheduling delay when many players share two cores, in the player or in the manager that
/// times it; a player that keeps no margin passes it on most of its moves.
pub(crate) fn check_replies(record: &serde_json::Value, goals: &[u32], play_clock_ms: u64) {
    let steps = record["steps"].as_array().unwrap();
    assert!(!steps.is_empty());
    let limit = play_clock_ms + gdl_player::manager::NETWORK_GRACE.as_millis() as u64;
    let mut replies: Vec<Vec<u64>> = Vec::new();
    for step in steps {
        assert_eq!(step["substitutions"].as_array().unwrap().len(), 0, "{step}");
        let choices = step["legal_counts"].as_array().unwrap();
        for (role, ms) in step["reply_ms"].as_array().unwrap().iter().enumerate() {
            let ms = ms.as_u64().unwrap();
            assert!(ms <= limit, "a reply took {ms} ms: {step}");
            replies.resize(replies.len().max(role + 1), Vec::new());
            if choices.get(role).and_then(serde_json::Value::as_u64).is_none_or(|n| n > 1) {
                replies[role].push(ms);
            }
        }
    }
    for (role, mut times) in replies.into_iter().enumerate().filter(|(_, times)| !times.is_empty()) {
        times.sort_unstable();
        let median = times[times.len() / 2];
        assert!(median <= play_clock_ms, "role {role}'s median reply took {median} ms: {times:?}");
    }
    let recorded: Vec<u32> = record["goals"].as_array().unwrap().iter().map(|g| g.as_u64().unwrap() as u32).collect();
    assert_eq!(recorded, goals);
}

/// Checks a record: every player answered START with `ready`, and [`check_replies`].
pub(crate) fn check_clean(record: &serde_json::Value, goals: &[u32], play_clock_ms: u64) {
    check_replies(record, goals, play_clock_ms);
    assert!(record["start_replies"].as_array().unwrap().iter().all(|r| r == "ready"), "{record}");
}
