//! The player meets a game it has never compiled: it plays it from START through the program
//! engine, builds its native code in the background, and switches to it within the match. A
//! test binary of its own, so that the build does not slow down the other matches' tests.

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

mod common;

use common::{
    check_clean, game as game_path, rand_suffix, run_match_with, serve, serve_command, serve_logging, start_serve,
    Player,
};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// `game` with every symbol but GDL's keywords and the numbers renamed, written to `path`: a
/// game that no player has compiled code for.
fn renamed(game: &str, path: &Path) {
    let rules = gdl_runtime::kif::parse_all(&std::fs::read_to_string(game_path(game)).unwrap()).unwrap();
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

/// The native cache of this file's tests that build games: one of their own, so that no binary
/// of an earlier run is found (the games are built), shared, so that the runtime every game's
/// binary links is built once. The last test to use it removes it.
fn native_cache() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| std::env::temp_dir().join(format!("gdlc-switch-cache-{}-{}", std::process::id(), rand_suffix())))
}

/// How many of this file's tests use [`native_cache`].
const NATIVE_TESTS: usize = 2;

/// Notes that a test is done with [`native_cache`], and removes it after the last.
fn done_with_native_cache() {
    static DONE: AtomicUsize = AtomicUsize::new(0);
    if DONE.fetch_add(1, Ordering::SeqCst) + 1 == NATIVE_TESTS {
        let _ = std::fs::remove_dir_all(native_cache());
    }
}

/// A player that builds native code in [`native_cache`], started with `args` and logging to
/// `log`, once the runtime every game's binary links is built.
fn native_player(args: &[&str], log: &Path) -> Player {
    let mut command = serve_command(&[&["--player", "mcts"], args].concat());
    command.env("GDLC_CACHE_DIR", native_cache());
    let player = start_serve(command, Stdio::from(std::fs::File::create(log).unwrap()));
    wait_for_line(log, "native runtime ready", 600);
    player
}

/// The lines of a player's log about the match of `record`, and the index of the line that
/// says the match switched to native code.
fn lines_about_the_switch<'t>(text: &'t str, record: &serde_json::Value) -> (Vec<&'t str>, usize) {
    let id = record["match_id"].as_str().unwrap().to_string();
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(&format!("match {id}:"))).collect();
    let switch = lines.iter().position(|l| l.contains("switched to native code at step"));
    let switch = switch.unwrap_or_else(|| panic!("no switch to native code in the log:\n{text}"));
    (lines, switch)
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
    let game = dir.join("renamed.kif");
    renamed("connectFour.kif", &game);
    let log = dir.join("player.log");
    let player = native_player(&[], &log);
    let opponent = serve(&["--player", "mcts"]);
    let (goals, record) = run_match_with(&game.display().to_string(), &[&player, &opponent], "10", "1");
    check_clean(&record, &goals, 1000);
    drop(player);
    done_with_native_cache();
    let text = std::fs::read_to_string(&log).unwrap();
    let (lines, switch) = lines_about_the_switch(&text, &record);
    // Moves came from the program engine before the switch, and from native code after it.
    assert!(lines[..switch].iter().any(|l| l.contains("(program engine")), "{text}");
    assert!(lines[switch..].iter().any(|l| l.contains("(native code")), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "long real-time matches; run by `cargo xtask test-long`"]
fn an_unknown_game_too_large_to_ground_switches_to_its_lifted_native_code_within_the_match() {
    let _turn = one_at_a_time();
    let dir = std::env::temp_dir().join(format!("gdlc-lifted-{}-{}", std::process::id(), rand_suffix()));
    std::fs::create_dir_all(&dir).unwrap();
    let game = dir.join("renamed.kif");
    renamed("breakthrough.kif", &game);
    let log = dir.join("player.log");
    // Breakthrough is past a limit of 10 instances: the interpreter plays it from START while
    // its native code is built in the lifted form.
    let player = native_player(&["--max-instances", "10"], &log);
    let opponent = serve(&["--player", "mcts"]);
    let (goals, record) = run_match_with(&game.display().to_string(), &[&player, &opponent], "10", "1");
    check_clean(&record, &goals, 1000);
    drop(player);
    let text = std::fs::read_to_string(&log).unwrap();
    let (lines, switch) = lines_about_the_switch(&text, &record);
    assert!(text.contains("played by the interpreter: the game is too large to ground"), "{text}");
    assert!(lines[..switch].iter().any(|l| l.contains("(interpreter")), "{text}");
    assert!(lines[switch..].iter().any(|l| l.contains("(native code")), "{text}");
    assert!(!lines[switch..].iter().any(|l| l.contains("(interpreter")), "{text}");
    // The binary the player built for the game (whose renamed `cellHolds` no other test's game
    // has) is the lifted form.
    let built: Vec<PathBuf> = std::fs::read_dir(native_cache().join("shapes"))
        .unwrap()
        .map(|entry| PathBuf::from(std::fs::read_to_string(entry.unwrap().path()).unwrap().trim()))
        .filter(|binary| {
            let rules = std::fs::read_to_string(binary.parent().unwrap().join("src").join("rules.kif")).unwrap();
            rules.contains("q_sdloHllec")
        })
        .collect();
    assert_eq!(built.len(), 1, "{built:?}");
    let module = std::fs::read_to_string(built[0].parent().unwrap().join("src").join("game.rs")).unwrap();
    assert!(module.contains("gdl_runtime::lifted"), "not the lifted form: {}", built[0].display());
    done_with_native_cache();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A match of othello-comp2007, whose start clock of 1 s leaves 0.64 s for grounding (it takes
/// about 2 s on the idle 2-core machine; checkers, which took 1.8 s, grounds in 0.3-0.5 s since
/// its frames are read through what a move affects), between an MCTS player started with
/// `args`, logging to a file, and a random player: the match's record and the MCTS player's log.
fn othello_at_a_one_second_start(name: &str, args: &[&str]) -> (serde_json::Value, String) {
    let dir = std::env::temp_dir().join(format!("gdlc-{name}-{}-{}", std::process::id(), rand_suffix()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("player.log");
    let args = [&["--player", "mcts", "--no-native"], args].concat();
    let player = serve_logging(&args, Stdio::from(std::fs::File::create(&log).unwrap()));
    let opponent = serve(&["--player", "random"]);
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/games/othello-comp2007.kif");
    let (_, record) = run_match_with(&game.display().to_string(), &[&player, &opponent], "1", "1");
    drop(player);
    let text = std::fs::read_to_string(&log).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (record, text)
}

#[test]
#[ignore = "long real-time matches; run by `cargo xtask test-long`"]
fn a_match_begun_by_the_interpreter_moves_to_the_program_engine_once_its_game_is_grounded() {
    let _turn = one_at_a_time();
    // The interpreter loads othello and evaluates its initial state within START or, when the
    // machine is loaded, not (see the next test).
    let (record, text) = othello_at_a_one_second_start("upgrade", &[]);
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
    // Ten facts are too few for the interpreter to load othello, and grounding it takes
    // longer than the start clock leaves: START has no engine to play with.
    let (record, text) = othello_at_a_one_second_start("pending", &["--max-facts", "10"]);
    assert!(record["start_replies"].as_array().unwrap().iter().all(|r| r == "ready"), "{record}");
    assert!(text.contains("no engine within START"), "{text}");
    let switched = text.lines().find_map(|l| l.split("switched to the program engine at step ").nth(1));
    let switched = switched.unwrap_or_else(|| panic!("no switch to the program engine in the log:\n{text}"));
    let step: usize = switched.split(',').next().unwrap().parse().unwrap();
    let steps = record["steps"].as_array().unwrap();
    assert!(steps.len() > step, "the match ended before the switch: {record}");
    for played in &steps[step - 1..] {
        let substituted = played["substitutions"].as_array().unwrap().iter().any(|s| s["role"] == "black");
        assert!(!substituted, "black's move was substituted after the switch: {played}");
    }
}
