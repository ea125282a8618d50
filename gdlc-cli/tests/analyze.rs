//! `gdlc analyze` on small games built to fail one property each (`tests/analyze/`), and on
//! bundled games: every verdict as the rules say, every witness written as a trace that `gdlc
//! replay --check` plays again through the interpreter.

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn gdlc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gdlc")).args(args).output().expect("gdlc runs")
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/analyze").join(name).display().to_string()
}

fn bundled(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../games").join(name).display().to_string()
}

/// A fresh directory for one test's witnesses, removed when the test is done with it.
struct WitnessDir(PathBuf);

impl std::ops::Deref for WitnessDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for WitnessDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn witness_dir(test: &str) -> WitnessDir {
    let dir = std::env::temp_dir().join(format!("gdlc-analyze-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    WitnessDir(dir)
}

/// The JSON report of `game`, its witnesses written into `dir`, with `extra` options.
fn analyze(game: &str, dir: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["analyze", game, "--json", "--witnesses", dir.to_str().unwrap()];
    if !extra.contains(&"--threads") {
        args.extend(["--threads", "2"]);
    }
    args.extend(extra);
    let out = gdlc(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The verdict of `property` (of `role`), and its witness's length when it has one.
fn verdict(report: &Value, property: &str, role: Option<&str>) -> (String, Option<usize>) {
    let entry = report["properties"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["property"] == property && e["role"].as_str() == role)
        .unwrap_or_else(|| panic!("no {property} of {role:?} in {report:#}"));
    (entry["verdict"].as_str().unwrap().to_string(), entry["witness"].as_array().map(Vec::len))
}

/// Replays a witness through the interpreter, checking every state against the trace.
fn replays(game: &str, witness: &Path) -> Value {
    let out = gdlc(&["replay", game, witness.to_str().unwrap(), "--check", "--engine", "interp"]);
    assert!(out.status.success(), "{}: {}", witness.display(), String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(witness).unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    lines.last().unwrap().clone()
}

#[test]
fn a_loop_of_non_terminal_states_refutes_termination() {
    let (game, dir) = (fixture("loop.kif"), witness_dir("loop"));
    let report = analyze(&game, &dir, &[]);
    assert_eq!(verdict(&report, "termination", None), ("refuted".into(), Some(2)));
    assert_eq!(verdict(&report, "well-formed", None).0, "refuted");
    assert_eq!(verdict(&report, "playability", Some("walker")).0, "proved");
    let last = replays(&game, &dir.join("termination.jsonl"));
    assert_eq!(last["state"], serde_json::json!(["(at 1)"]), "back where the loop started");
    assert_eq!(last["terminal"], false);
}

#[test]
fn a_role_without_a_legal_move_refutes_playability() {
    let (game, dir) = (fixture("stuck.kif"), witness_dir("stuck"));
    let report = analyze(&game, &dir, &[]);
    assert_eq!(verdict(&report, "playability", Some("b")), ("refuted".into(), Some(1)));
    assert_eq!(verdict(&report, "playability", Some("a")).0, "proved");
    assert_eq!(verdict(&report, "termination", None).0, "proved");
    let last = replays(&game, &dir.join("playability-b.jsonl"));
    assert_eq!(last["legal"][1], serde_json::json!([]));
}

#[test]
fn two_goal_values_or_none_refute_the_goal_relation() {
    let (game, dir) = (fixture("goals.kif"), witness_dir("goals"));
    let report = analyze(&game, &dir, &[]);
    assert_eq!(verdict(&report, "goal", Some("a")), ("refuted".into(), Some(1)));
    assert_eq!(verdict(&report, "goal", Some("b")), ("refuted".into(), Some(1)));
    let last = replays(&game, &dir.join("goal-a.jsonl"));
    assert_eq!(last["state"], serde_json::json!(["split"]));
    assert_eq!(last["goals"], serde_json::json!([100, null]), "the largest of a's values, and none for b");
}

#[test]
fn a_role_that_never_gets_100_refutes_weak_winnability() {
    let (game, dir) = (fixture("unwinnable.kif"), witness_dir("unwinnable"));
    let report = analyze(&game, &dir, &[]);
    assert_eq!(verdict(&report, "weak winnability", Some("b")), ("refuted".into(), None));
    assert_eq!(verdict(&report, "weak winnability", Some("a")), ("proved".into(), Some(1)));
    assert_eq!(verdict(&report, "strong winnability", Some("a")).0, "proved");
    assert_eq!(verdict(&report, "well-formed", None).0, "refuted");
    let last = replays(&game, &dir.join("weak-winnability-a.jsonl"));
    assert_eq!(last["goals"], serde_json::json!([100, 0]));
}

#[test]
fn moves_and_facts_outside_input_and_base_are_refuted() {
    let (game, dir) = (fixture("undeclared.kif"), witness_dir("undeclared"));
    let report = analyze(&game, &dir, &[]);
    assert_eq!(verdict(&report, "input", None), ("refuted".into(), Some(1)));
    assert_eq!(verdict(&report, "base", None), ("refuted".into(), Some(2)));
    let last = replays(&game, &dir.join("input.jsonl"));
    assert_eq!(last["legal"][0], serde_json::json!(["jump", "walk"]));
    let last = replays(&game, &dir.join("base.jsonl"));
    assert_eq!(last["state"], serde_json::json!(["(step 2)", "flag"]));
}

#[test]
fn a_forced_win_proves_strong_winnability_with_a_line_of_the_strategy() {
    let (game, dir) = (fixture("forced.kif"), witness_dir("forced"));
    let report = analyze(&game, &dir, &["--engine", "interp"]);
    assert_eq!(verdict(&report, "strong winnability", Some("a")).0, "proved");
    assert_eq!(verdict(&report, "strong winnability", Some("b")), ("refuted".into(), None));
    assert_eq!(verdict(&report, "weak winnability", Some("b")).0, "refuted");
    let last = replays(&game, &dir.join("strong-winnability-a.jsonl"));
    assert_eq!(last["goals"], serde_json::json!([100, 0]));
}

#[test]
fn tic_tac_toe_is_proved_well_formed_over_all_its_states() {
    let (game, dir) = (bundled("ticTacToe.kif"), witness_dir("ticTacToe"));
    let report = analyze(&game, &dir, &[]);
    assert_eq!(report["searched"]["states"], 5478);
    assert_eq!(report["searched"]["stop"], "complete");
    for property in ["termination", "well-formed"] {
        assert_eq!(verdict(&report, property, None).0, "proved", "{property}");
    }
    for role in ["xplayer", "oplayer"] {
        for property in ["playability", "goal", "weak winnability"] {
            assert_eq!(verdict(&report, property, Some(role)).0, "proved", "{property} of {role}");
        }
        assert_eq!(verdict(&report, "strong winnability", Some(role)), ("refuted".into(), None));
    }
    replays(&game, &dir.join("weak-winnability-oplayer.jsonl"));
    let one_thread = analyze(&game, &witness_dir("ticTacToe1"), &["--threads", "1"]);
    assert_eq!(one_thread["properties"], report["properties"], "the same verdicts and witnesses on one thread");
}

#[test]
fn connect_four_is_too_large_to_prove_but_wins_are_shown() {
    let (game, dir) = (bundled("connectFour.kif"), witness_dir("connectFour"));
    let report = analyze(&game, &dir, &["--seconds", "3", "--max-states", "20000"]);
    assert_eq!(report["searched"]["stop"], "max-states");
    for property in ["termination", "well-formed"] {
        assert_eq!(verdict(&report, property, None).0, "unknown", "{property}");
    }
    assert_eq!(verdict(&report, "goal", Some("red")).0, "unknown");
    assert_eq!(verdict(&report, "weak winnability", Some("red")).0, "proved");
    replays(&game, &dir.join("weak-winnability-red.jsonl"));
}

#[test]
fn pentago_gives_black_two_goal_values() {
    let (game, dir) = (bundled("pentago.kif"), witness_dir("pentago"));
    let report = analyze(&game, &dir, &["--seconds", "4", "--max-states", "20000"]);
    assert_eq!(verdict(&report, "goal", Some("black")).0, "refuted");
    assert_ne!(verdict(&report, "goal", Some("red")).0, "refuted");
    let last = replays(&game, &dir.join("goal-black.jsonl"));
    assert_eq!(last["terminal"], true);
}

#[test]
fn the_gdl_ii_games_are_well_formed() {
    for name in ["montyHall.kif", "kuhnPoker.kif", "diceDuel.kif"] {
        let (game, dir) = (bundled(name), witness_dir(name));
        let report = analyze(&game, &dir, &[]);
        assert_eq!(report["searched"]["stop"], "complete", "{name}");
        assert_eq!(verdict(&report, "well-formed", None).0, "proved", "{name}");
        for role in report["roles"].as_array().unwrap() {
            let role = role.as_str().unwrap();
            assert_eq!(verdict(&report, "goal", Some(role)).0, "proved", "{name}: goal of {role}");
            if role != "random" {
                replays(&game, &dir.join(format!("weak-winnability-{role}.jsonl")));
            }
        }
        // A player that saw the car would always win Monty Hall; the candidate does not.
        let strong = verdict(&report, "strong winnability", None).0;
        assert_eq!(strong, if name == "montyHall.kif" { "unknown" } else { "refuted" }, "{name}");
    }
}
