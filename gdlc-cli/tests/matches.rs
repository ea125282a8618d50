//! End-to-end matches: `gdlc match` between `gdlc serve` processes on localhost, on ticTacToe
//! and connectFour, through the interpreter and through a compiled game's binary, MCTS
//! against random over 20 short matches, and the GDL-II games montyHall and diceDuel, in which
//! the manager plays `random` and each player is sent only its own percepts.

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

mod common;

use common::{check_clean, check_replies, game, run_match, serve};
use std::path::Path;

#[test]
fn tic_tac_toe_and_connect_four_between_two_servers() {
    let (mcts, random) = (serve(&["--player", "mcts"]), serve(&["--player", "random"]));
    let (goals, record) = run_match(&game("ticTacToe.kif"), &[&mcts, &random], "0.5");
    check_clean(&record, &goals, 500);
    assert_eq!(record["roles"], serde_json::json!(["xplayer", "oplayer"]));
    assert_eq!(record["players"], serde_json::json!([mcts.url, random.url]));
    let (goals, record) = run_match(&game("connectFour.kif"), &[&random, &mcts], "0.5");
    check_clean(&record, &goals, 500);
    assert_eq!(goals.len(), 2);
}

#[test]
fn a_compiled_game_is_served_by_its_binary() {
    // The game of the CLI tests' `gdlc build`, so that the cached binary is shared.
    let tic_tac_toe = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/games/ticTacToe.kif");
    let tic_tac_toe = tic_tac_toe.display().to_string();
    let compiled = serve(&["--player", "mcts", &tic_tac_toe]);
    let random = serve(&["--player", "random"]);
    let (goals, record) = run_match(&tic_tac_toe, &[&random, &compiled], "0.5");
    check_clean(&record, &goals, 500);
    // Another game still goes to the interpreter.
    let (goals, record) = run_match(&game("connectFour.kif"), &[&compiled, &random], "0.5");
    check_clean(&record, &goals, 500);
}

/// The processes `pid` started, by the Linux /proc file system.
fn children(pid: u32) -> Vec<u32> {
    let list = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    list.split_whitespace().map(|p| p.parse().unwrap()).collect()
}

#[test]
fn a_killed_backend_is_bypassed_and_restarted() {
    let tic_tac_toe = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/games/ticTacToe.kif");
    let tic_tac_toe = tic_tac_toe.display().to_string();
    let log = std::env::temp_dir().join(format!("gdlc-killed-{}-{}.log", std::process::id(), common::rand_suffix()));
    let compiled = common::serve_logging(
        &["--player", "mcts", "--no-native", &tic_tac_toe],
        std::process::Stdio::from(std::fs::File::create(&log).unwrap()),
    );
    let random = serve(&["--player", "random"]);
    let backends = children(compiled.child.id());
    assert_eq!(backends.len(), 1, "{backends:?}");
    let killed = std::process::Command::new("kill").args(["-9", &backends[0].to_string()]).status().unwrap();
    assert!(killed.success());
    std::thread::sleep(std::time::Duration::from_millis(100));
    // Every move still comes in time: from the local engine while the backend is down, from the
    // restarted backend after.
    for _ in 0..2 {
        let (goals, record) = run_match(&tic_tac_toe, &[&compiled, &random], "0.5");
        check_clean(&record, &goals, 500);
    }
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("native backend exited"), "{text}");
    assert!(text.contains("native backend restarted"), "{text}");
    let backends = children(compiled.child.id());
    assert_eq!(backends.len(), 1, "the dead backend was not reaped or not restarted: {backends:?}");
    let _ = std::fs::remove_file(&log);
}

#[test]
fn mcts_beats_random_over_twenty_short_matches() {
    let (mcts, random) = (serve(&["--player", "mcts"]), serve(&["--player", "random"]));
    let (mut mcts_wins, mut random_wins) = (0, 0);
    for n in 0..20 {
        let mcts_role = n % 2;
        let players = if mcts_role == 0 { [&mcts, &random] } else { [&random, &mcts] };
        let (goals, record) = run_match(&game("ticTacToe.kif"), &players, "0.25");
        check_clean(&record, &goals, 250);
        if goals[mcts_role] == 100 {
            mcts_wins += 1;
        }
        if goals[1 - mcts_role] == 100 {
            random_wins += 1;
        }
    }
    eprintln!("MCTS won {mcts_wins} of 20 matches, random won {random_wins}");
    assert!(mcts_wins >= 10 && mcts_wins >= 3 * random_wins, "MCTS {mcts_wins}, random {random_wins}");
}

/// The percepts the record gives every role at every step.
fn percepts(record: &serde_json::Value) -> Vec<Vec<Vec<String>>> {
    let steps = record["steps"].as_array().unwrap();
    steps
        .iter()
        .map(|step| {
            let roles = step["percepts"].as_array().unwrap_or_else(|| panic!("no percepts in {step}"));
            roles
                .iter()
                .map(|r| r.as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()).collect())
                .collect()
        })
        .collect()
}

fn joint(record: &serde_json::Value, step: usize) -> Vec<String> {
    let joint = record["steps"][step]["joint"].as_array().unwrap();
    joint.iter().map(|m| m.as_str().unwrap().to_string()).collect()
}

#[test]
fn monty_hall_with_the_manager_playing_random() {
    let mcts = serve(&["--player", "mcts"]);
    let (goals, record) = run_match(&game("montyHall.kif"), &[&mcts], "0.5");
    assert_eq!(record["roles"], serde_json::json!(["candidate", "random"]));
    assert_eq!(record["players"], serde_json::json!([mcts.url, null]));
    assert_eq!(record["start_replies"], serde_json::json!(["ready", null]));
    check_replies(&record, &goals, 500);
    // The candidate perceived the door the host opened, then the car's door; random nothing.
    let opened = joint(&record, 1)[1].trim_start_matches("(open_door ").trim_end_matches(')').to_string();
    let car = joint(&record, 0)[1].trim_start_matches("(hide_car ").trim_end_matches(')').to_string();
    let seen = percepts(&record);
    assert_eq!(seen, [vec![vec![], vec![]], vec![vec![opened], vec![]], vec![vec![car], vec![]]]);
}

#[test]
fn dice_duel_players_see_only_their_own_rolls() {
    // Alice through the interpreter, bob through the compiled game's binary.
    let interpreted = serve(&["--player", "mcts"]);
    let compiled = serve(&["--player", "random", &game("diceDuel.kif")]);
    let (goals, record) = run_match(&game("diceDuel.kif"), &[&interpreted, &compiled], "0.5");
    assert_eq!(record["players"], serde_json::json!([interpreted.url, compiled.url, null]));
    check_replies(&record, &goals, 500);
    let seen = percepts(&record);
    assert_eq!(seen.len(), 3);
    // The first roll: each player its own die.
    let roll = joint(&record, 0)[2].clone();
    let dice: Vec<&str> = roll.trim_start_matches("(roll ").trim_end_matches(')').split(' ').collect();
    assert_eq!(seen[0], [vec![format!("(rolled {})", dice[0])], vec![format!("(rolled {})", dice[1])], vec![]]);
    // The decision: each player the other's choice.
    let decisions = joint(&record, 1);
    let other = |role: usize| vec![format!("(other_choice {})", decisions[1 - role])];
    assert_eq!(seen[1], [other(0), other(1), vec![]]);
    // The reroll: only those who rerolled see their new die.
    let reroll = joint(&record, 2)[2].clone();
    let dice: Vec<&str> = reroll.trim_start_matches("(roll ").trim_end_matches(')').split(' ').collect();
    for role in 0..2 {
        let expected = if decisions[role] == "reroll" { vec![format!("(rolled {})", dice[role])] } else { vec![] };
        assert_eq!(seen[2][role], expected, "role {role}");
    }
    assert!(seen[2][2].is_empty());
}
