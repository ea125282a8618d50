//! The player meets a game it has never compiled: it plays it from START through the program
//! engine, builds its native code in the background, and switches to it within the match. A
//! test binary of its own, so that the build does not slow down the other matches' tests.

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

mod common;

use common::{check_clean, game, rand_suffix, run_match_with, serve, serve_logging, Player};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

/// connectFour with every symbol but GDL's keywords and the numbers renamed: a game that no
/// player has compiled code for.
fn renamed_connect_four(path: &Path) {
    let rules = gdl_runtime::kif::parse_all(&std::fs::read_to_string(game("connectFour.kif")).unwrap()).unwrap();
    fn rename(sx: &gdl_runtime::kif::Sx) -> String {
        match sx {
            gdl_runtime::kif::Sx::List(items) => {
                format!("({})", items.iter().map(rename).collect::<Vec<_>>().join(" "))
            }
            gdl_runtime::kif::Sx::Atom(a) if gdl_player::rename::KEYWORDS.contains(&a.as_str()) => a.clone(),
            gdl_runtime::kif::Sx::Atom(a) if a.starts_with('?') || a.bytes().all(|b| b.is_ascii_digit()) => a.clone(),
            gdl_runtime::kif::Sx::Atom(a) => format!("q_{}", a.chars().rev().collect::<String>()),
        }
    }
    let text: String = rules.iter().map(|r| rename(r) + "\n").collect();
    std::fs::write(path, text).unwrap();
}

/// The tests of this file run one at a time: each is timed against a real clock, and two at
/// once on a 2-core machine starve each other's grounding (a 1 s start clock then refuses the
/// match, and the test fails for the machine's sake, not the player's).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Waits for a line that contains `wanted` in a log file, for `seconds` at most.
fn wait_for_line(log: &Path, wanted: &str, seconds: u64) -> String {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if let Some(line) = text.lines().find(|l| l.contains(wanted)) {
            return line.to_string();
        }
        assert!(std::time::Instant::now() < until, "no `{wanted}` within {seconds} s in the log:\n{text}");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

#[test]
#[ignore = "long real-time matches; run by `cargo xtask test-long`"]
fn an_unknown_game_is_played_from_start_and_switches_to_native_code_within_the_match() {
    let _turn = one_at_a_time();
    let dir = std::env::temp_dir().join(format!("gdlc-switch-{}-{}", std::process::id(), rand_suffix()));
    std::fs::create_dir_all(&dir).unwrap();
    let renamed = dir.join("renamed.kif");
    renamed_connect_four(&renamed);
    // A cache of its own, so that no binary of an earlier run is found: the game is built.
    let log = dir.join("player.log");
    let cache = dir.join("cache");
    let player = {
        let mut command = Command::new(env!("CARGO_BIN_EXE_gdlc"));
        command.args(["serve", "--port", "0", "--player", "mcts"]).env("GDLC_CACHE_DIR", &cache);
        command.stdout(Stdio::piped()).stderr(std::fs::File::create(&log).unwrap());
        let mut child = command.spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.split_whitespace().find(|w| w.starts_with("http://")).unwrap().to_string();
        Player { child, url }
    };
    // The runtime that every game's binary links is built once, before any game.
    wait_for_line(&log, "native runtime ready", 600);
    let opponent = serve(&["--player", "mcts"]);
    let (goals, record) = run_match_with(&renamed.display().to_string(), &[&player, &opponent], "10", "1");
    check_clean(&record, &goals, 1000);
    let text = std::fs::read_to_string(&log).unwrap();
    let id = record["match_id"].as_str().unwrap().to_string();
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(&format!("match {id}:"))).collect();
    let switch = lines.iter().position(|l| l.contains("switched to native code at step"));
    let switch = switch.unwrap_or_else(|| panic!("no switch to native code in the log:\n{text}"));
    // Moves came from the program engine before the switch, and from native code after it.
    assert!(lines[..switch].iter().any(|l| l.contains("(program engine")), "{text}");
    assert!(lines[switch..].iter().any(|l| l.contains("(native code")), "{text}");
    drop(player);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A match of checkers, whose start clock of 1 s leaves 0.64 s for grounding (it takes 1.8 s
/// on the idle 2-core machine, 6 s loaded), between an MCTS player started with `args`,
/// logging to a file, and a random player: the match's record and the MCTS player's log.
fn checkers_at_a_one_second_start(name: &str, args: &[&str]) -> (serde_json::Value, String) {
    let dir = std::env::temp_dir().join(format!("gdlc-{name}-{}-{}", std::process::id(), rand_suffix()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("player.log");
    let args = [&["--player", "mcts", "--no-native"], args].concat();
    let player = serve_logging(&args, Stdio::from(std::fs::File::create(&log).unwrap()));
    let opponent = serve(&["--player", "random"]);
    let (_, record) = run_match_with(&game("checkers.kif"), &[&player, &opponent], "1", "1");
    drop(player);
    let text = std::fs::read_to_string(&log).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (record, text)
}

#[test]
#[ignore = "long real-time matches; run by `cargo xtask test-long`"]
fn a_match_begun_by_the_interpreter_moves_to_the_program_engine_once_its_game_is_grounded() {
    let _turn = one_at_a_time();
    // The interpreter loads checkers within START or, when the machine is loaded, not (see the
    // next test).
    let (record, text) = checkers_at_a_one_second_start("upgrade", &[]);
    let id = record["match_id"].as_str().unwrap().to_string();
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(&format!("match {id}:"))).collect();
    let switch = lines.iter().position(|l| l.contains("switched to the program engine at step"));
    let switch = switch.unwrap_or_else(|| panic!("no switch to the program engine in the log:\n{text}"));
    let before = &lines[..switch];
    assert!(before.iter().any(|l| l.contains("(interpreter") || l.contains("no engine within START")), "{text}");
    assert!(lines[switch..].iter().any(|l| l.contains("(program engine")), "{text}");
    assert!(!lines[switch..].iter().any(|l| l.contains("(interpreter")), "{text}");
}

#[test]
#[ignore = "long real-time matches; run by `cargo xtask test-long`"]
fn a_match_with_no_engine_at_start_is_played_once_its_game_is_grounded() {
    let _turn = one_at_a_time();
    // Ten facts are too few for the interpreter to load checkers, and grounding it takes
    // longer than the start clock leaves: START has no engine to play with.
    let (record, text) = checkers_at_a_one_second_start("pending", &["--max-facts", "10"]);
    assert!(record["start_replies"].as_array().unwrap().iter().all(|r| r == "ready"), "{record}");
    assert!(text.contains("no engine within START"), "{text}");
    let switched = text.lines().find_map(|l| l.split("switched to the program engine at step ").nth(1));
    let switched = switched.unwrap_or_else(|| panic!("no switch to the program engine in the log:\n{text}"));
    let step: usize = switched.split(',').next().unwrap().parse().unwrap();
    let steps = record["steps"].as_array().unwrap();
    assert!(steps.len() > step, "the match ended before the switch: {record}");
    for played in &steps[step - 1..] {
        let substituted = played["substitutions"].as_array().unwrap().iter().any(|s| s["role"] == "white");
        assert!(!substituted, "white's move was substituted after the switch: {played}");
    }
}
