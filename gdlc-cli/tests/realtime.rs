//! Real-time matches over HTTP: the manager polls `gdlc serve`'s interpreter players on the
//! wall clock, and the Game of Chicken ends with the payoffs of each of its four outcomes;
//! the real-time PLAY form and the player's replies, by hand; and the CLI on rtGDL games.
//! Timing only matters within generous bounds: a match lasts one second of game time.

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

use gdl_player::manager::Options;
use gdl_player::player::Kind;
use gdl_player::realtime::manager::run_match;
use gdl_player::server::{Config, Server};
use gdl_runtime::kif;
use gdlc::interp::realtime::RealTimeInterpreter;
use gdlc_cli::play::InterpreterFactory;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn chicken_text() -> String {
    std::fs::read_to_string(root().join("games/rtgdl/chicken.kif")).unwrap()
}

fn player(kind: Kind) -> String {
    let server = Server::bind("127.0.0.1:0", Config::default()).unwrap();
    let address = server.local_addr().unwrap().to_string();
    std::thread::spawn(move || server.serve(&InterpreterFactory { player: kind }));
    format!("http://{address}/")
}

fn options(players: Vec<String>) -> Options {
    Options {
        match_id: "rt".to_string(),
        players,
        start_clock: Duration::from_secs(5),
        play_clock: Duration::from_millis(50),
        seed: 1,
    }
}

#[test]
fn chicken_over_http_ends_with_each_outcomes_payoffs() {
    let text = chicken_text();
    let loaded = gdlc::check::parse_and_check(&text);
    let game = RealTimeInterpreter::new(&loaded.description).unwrap();
    let rules = kif::parse_all(&text).unwrap();
    let outcomes = [
        (Kind::Idle, Kind::Idle, [0, 0], [0, 0]),
        (Kind::First, Kind::Idle, [80, 100], [1, 0]),
        (Kind::Idle, Kind::First, [100, 80], [0, 1]),
        (Kind::First, Kind::First, [90, 90], [1, 1]),
    ];
    for (white, black, goals, swerves) in outcomes {
        let record = run_match(&game, &rules, &options(vec![player(white), player(black)]), &mut |_| {}).unwrap();
        assert_eq!(record.goals, goals.to_vec(), "{white:?} against {black:?}: {record:#?}");
        assert!(record.terminal);
        assert_eq!(record.end_time, "1.0", "the timer ends the match");
        assert_eq!(record.start_replies, vec!["ready", "ready"]);
        assert!(record.rejected.is_empty(), "{:?}", record.rejected);
        let last = record.events.last().unwrap();
        assert_eq!(last.expired, vec!["timer"]);
        for (role, name) in ["white", "black"].iter().enumerate() {
            let moves = record.events.iter().flat_map(|e| &e.moves).filter(|m| m.role == *name).count();
            assert_eq!(moves, swerves[role], "{name}'s swerves");
        }
        // Polls every 50 ms for one second: about 20, with generous bounds.
        assert!((5..=40).contains(&record.polls), "{} polls", record.polls);
    }
}

#[test]
fn the_player_replays_reported_moves_and_answers_a_move_or_nil() {
    let url = player(Kind::First);
    let address = url.trim_start_matches("http://").trim_end_matches('/');
    let rules = chicken_text().lines().filter(|l| !l.starts_with(';')).collect::<Vec<_>>().join(" ");
    let post = |body: &str| gdl_player::http::post(address, body, std::time::Instant::now() + Duration::from_secs(5));
    assert_eq!(post(&format!("(START m1 white ({rules}) 5 0.1)")).unwrap(), "ready");
    assert_eq!(post("(PLAY m1 (0.0))").unwrap(), "swerve");
    // The manager reports the swerve at 0.1; white has no legal move left.
    assert_eq!(post("(PLAY m1 (0.2 (0.1 white swerve)))").unwrap(), "nil");
    // A report that does not replay (white cannot swerve twice) is an error.
    let e = post("(PLAY m1 (0.4 (0.3 white swerve)))").unwrap_err();
    assert!(e.contains("the reported moves do not replay"), "{e}");
    assert_eq!(post("(STOP m1 (1.0))").unwrap(), "done");
    assert_eq!(post(&format!("(START m2 black ({rules}) 5 0.1)")).unwrap(), "ready");
    let e = post("(PLAY m2 (soon))").unwrap_err();
    assert!(e.contains("malformed real-time report"), "{e}");
}

fn gdlc(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gdlc")).args(args).current_dir(root()).output().unwrap()
}

#[test]
fn cli_checks_benches_and_matches_rtgdl_games() {
    let out = gdlc(&["check", "games/rtgdl/chicken.kif"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("roles: white black"));

    let out = gdlc(&["bench", "games/rtgdl/timedTicTacToe.kif", "--engine", "interp", "--seconds", "0.2"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("numStateChanges=") && stdout.contains("averageGoals=x:"),
        "{stdout}"
    );

    let dir = std::env::temp_dir().join(format!("gdlc-rt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.kif");
    std::fs::write(&bad, "(role a)\n(init 1.0 p)\n(init -2 q)\n(<= (legal a go) (true ?t p))\n(<= (next ?t p) (true ?t p))\n(<= terminal (expired p))\n(<= (goal a 100) (true ?t p))\n").unwrap();
    let out = gdlc(&["check", bad.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("bad.kif:3:7: error: the lifetime `-2` is not a number of seconds"), "{stderr}");

    let tables = gdlc(&["compile", "games/rtgdl/chicken.kif", "--form", "tables"]);
    assert!(!tables.status.success());
    assert!(String::from_utf8_lossy(&tables.stderr).contains("rtGDL games are compiled to straight-line code only"));

    let record = dir.join("chicken.json");
    let (white, black) = (player(Kind::First), player(Kind::First));
    let out = gdlc(&[
        "match",
        "games/rtgdl/chicken.kif",
        "--player",
        &white,
        "--player",
        &black,
        "--playclock",
        "0.05",
        "--record",
        record.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("roles: white black\ngoals: 90 90\n"), "{stdout}");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(json["kind"], "rtgdl");
    assert_eq!(json["goals"], serde_json::json!([90, 90]));
    std::fs::remove_dir_all(&dir).ok();
}
