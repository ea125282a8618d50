//! `gdlc view` in a real browser: a ticTacToe, a chess_200 and a montyHall match played by
//! `gdlc match` between `gdlc serve` players, each record drawn by `gdlc view` and opened in
//! headless Chromium (installed by `.ci/chromium` when missing), which the test drives through
//! the DevTools protocol: it checks the board drawn cell by cell against the record's states,
//! steps through the match by clicking the page's buttons, and takes a screenshot of each
//! page (in the test's target directory; also in `$GDLC_VIEW_SCREENSHOTS` when set, which is
//! how docs/ gets them).

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

mod browser;
mod common;

use browser::Page;
use common::{game, run_match_with, serve};
use gdl_runtime::rng::Rng;
use gdl_runtime::Game;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Writes `record` and its page; returns the page's path.
fn page_of(record: &Value, name: &str, game: Option<&str>) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let (json, html) = (dir.join(format!("view-{name}.json")), dir.join(format!("view-{name}.html")));
    std::fs::write(&json, record.to_string()).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_gdlc"));
    command.arg("view").arg(&json).arg("-o").arg(&html);
    if let Some(game) = game {
        command.args(["--game", game]);
    }
    let out = command.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html_text = std::fs::read_to_string(&html).unwrap();
    for outside in [" src=", " href=", "<link", "@import", "url("] {
        assert!(!html_text.contains(outside), "the page loads nothing: {outside}");
    }
    html
}

/// Every state of a record, the final one included, as fact lists.
fn states(record: &Value) -> Vec<Vec<String>> {
    let strings =
        |v: &Value| -> Vec<String> { v.as_array().unwrap().iter().map(|f| f.as_str().unwrap().into()).collect() };
    let mut all: Vec<Vec<String>> = record["steps"].as_array().unwrap().iter().map(|s| strings(&s["state"])).collect();
    all.push(strings(&record["final_state"]));
    all
}

/// Checks that the record is complete without the engine: every state, and every role's
/// legal-move count on each step.
fn check_complete(record: &Value) {
    let roles = record["roles"].as_array().unwrap().len();
    for step in record["steps"].as_array().unwrap() {
        assert!(!step["state"].as_array().unwrap().is_empty(), "{step}");
        let counts = step["legal_counts"].as_array().unwrap();
        assert_eq!(counts.len(), roles, "{step}");
        assert!(counts.iter().all(|c| c.as_u64().unwrap() >= 1), "{step}");
    }
    assert!(!record["final_state"].as_array().unwrap().is_empty());
}

/// The pieces a state puts on the board: its `cell` facts but the blank ones.
fn pieces(state: &[String]) -> usize {
    state.iter().filter(|f| f.starts_with("(cell ") && !f.ends_with(" b)")).count()
}

/// A state's `cell` facts, by their first two arguments (the place), each with the rest.
fn cells(state: &[String]) -> std::collections::BTreeMap<(String, String), String> {
    let cell = |f: &String| {
        let words: Vec<&str> = f.strip_prefix("(cell ")?.strip_suffix(')')?.splitn(3, ' ').collect();
        Some(((words[0].to_string(), words[1].to_string()), words[2].to_string()))
    };
    state.iter().filter_map(cell).filter(|(_, value)| value != "b").collect()
}

/// Checks the page's current step: its number, the pieces on the board, and the joint move.
fn check_step(page: &mut Page, record: &Value, step: usize) {
    assert_eq!(page.eval("document.body.dataset.step"), json!(step.to_string()));
    let state = &states(record)[step];
    assert_eq!(page.eval("document.querySelectorAll('.board .piece').length"), json!(pieces(state)), "step {step}");
    if step > 0 {
        let previous = &states(record)[step - 1];
        let (before, after) = (cells(previous), cells(state));
        let places: std::collections::BTreeSet<_> = before.keys().chain(after.keys()).collect();
        let changed = places.into_iter().filter(|p| before.get(*p) != after.get(*p)).count();
        assert_eq!(page.eval("document.querySelectorAll('.board .changed').length"), json!(changed), "step {step}");
    }
    let boardless = state.iter().filter(|f| !f.starts_with("(cell ")).count();
    assert_eq!(page.eval("document.querySelectorAll('#facts li').length"), json!(boardless), "step {step}");
    if let Some(joint) = record["steps"].get(step).map(|s| &s["joint"]) {
        assert_eq!(page.eval("[...document.querySelectorAll('#joint .move')].map(m => m.textContent)"), *joint);
    }
}

/// Checks that the board has `cells` cells, drawn in the window at a readable size.
fn check_board(page: &mut Page, cells: usize) {
    assert_eq!(page.eval("document.querySelectorAll('.board .cell').length"), json!(cells));
    let rect = page.eval("(() => { const r = document.querySelector('.board').getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()");
    let rect: Vec<f64> = rect.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(rect[0] >= 0.0 && rect[1] >= 0.0 && rect[2] >= 150.0 && rect[3] >= 150.0, "{rect:?}");
    let height = page.eval("window.innerHeight").as_f64().unwrap();
    assert!(rect[1] + rect[3] <= height, "the board fits the window ({height} pixels high): {rect:?}");
    let colours = page.eval("[...new Set([...document.querySelectorAll('.board .cell')].map(c => getComputedStyle(c).backgroundColor))].length");
    assert_eq!(colours, json!(2), "light and dark cells");
}

/// Writes a screenshot of the page to the test's target directory and, when
/// `$GDLC_VIEW_SCREENSHOTS` names a directory, there too.
fn screenshot(page: &mut Page, name: &str) {
    let png = page.screenshot();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "{name}: {} bytes", png.len());
    std::fs::write(Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("view-{name}.png")), &png).unwrap();
    if let Some(dir) = std::env::var_os("GDLC_VIEW_SCREENSHOTS") {
        std::fs::write(Path::new(&dir).join(format!("view-{name}.png")), &png).unwrap();
    }
}

/// Opens a page and waits for its script to have drawn step 0.
fn open(page: &mut Page, html: &Path) {
    page.open(&format!("file://{}", html.display()), "document.body.dataset.step === '0'");
}

#[test]
fn three_matches_drawn_in_chromium() {
    let chromium = match browser::chromium() {
        Ok(path) => path,
        Err(why) => {
            eprintln!("skipped: the viewer's browser test needs Chromium, which could not be installed: {why}");
            return;
        }
    };
    let (first, second) = (serve(&["--player", "random"]), serve(&["--player", "random"]));
    let chrome = browser::Browser::launch(&chromium, 1100, 800);
    let mut page = chrome.page();

    // ticTacToe: every step, clicked one by one.
    let (_, record) = run_match_with(&game("ticTacToe.kif"), &[&first, &second], "5", "1");
    check_complete(&record);
    open(&mut page, &page_of(&record, "ticTacToe", None));
    check_board(&mut page, 9);
    let last = states(&record).len() - 1;
    for step in 0..=last {
        check_step(&mut page, &record, step);
        page.click("#next");
    }
    assert_eq!(page.eval("document.body.dataset.step"), json!(last.to_string()), "no step past the last");
    let goals = page.eval("document.querySelector('.goals').textContent");
    assert!(goals.as_str().unwrap().starts_with("Goals: xplayer "), "{goals}");
    screenshot(&mut page, "ticTacToe");

    // chess_200: the first 30 moves clicked, then back and to the end.
    let chess = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/games/chess_200.kif");
    let (_, record) = run_match_with(&chess.display().to_string(), &[&first, &second], "10", "1");
    check_complete(&record);
    open(&mut page, &page_of(&record, "chess_200", None));
    check_board(&mut page, 64);
    assert_eq!(page.eval("document.querySelectorAll('.board .piece').length"), json!(32));
    for step in 0..30 {
        check_step(&mut page, &record, step);
        page.click("#next");
    }
    page.click("#prev");
    check_step(&mut page, &record, 29);
    page.click("#next");
    screenshot(&mut page, "chess_200");
    page.click("#last");
    check_step(&mut page, &record, states(&record).len() - 1);
    page.click("#first");
    check_step(&mut page, &record, 0);

    check_real_time(&mut page);

    // montyHall: no board, the facts listed, and what each role saw at every step.
    let (_, record) = run_match_with(&game("montyHall.kif"), &[&first], "5", "1");
    check_complete(&record);
    open(&mut page, &page_of(&record, "montyHall", Some(&game("montyHall.kif"))));
    assert_eq!(page.eval("document.querySelectorAll('.board').length"), json!(0));
    for step in 0..record["steps"].as_array().unwrap().len() {
        check_step(&mut page, &record, step);
        let seen = page.eval("[...document.querySelectorAll('#percepts td')].map(t => t.textContent)");
        let percepts: Vec<String> = record["steps"][step]["percepts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let list: Vec<&str> = p.as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
                if list.is_empty() {
                    "nothing".to_string()
                } else {
                    list.join(" ")
                }
            })
            .collect();
        assert_eq!(seen, json!(percepts), "step {step}");
        if step == 1 {
            screenshot(&mut page, "montyHall");
        }
        page.click("#next");
    }
}

/// A real-time record as `gdlc match` writes one: three events on a timeline.
const REAL_TIME: &str = r#"{"match_id": "rt", "kind": "rtgdl", "roles": ["x", "o"], "players": ["http://a/", "http://b/"],
  "start_clock": 1.0, "play_clock": 0.2, "start_replies": ["ready", "ready"],
  "initial_state": "(true infinity (cell 1 1 b)) (true infinity (cell 1 2 b)) (true 2.0 turn)",
  "events": [
    {"time": "0.5", "moves": [{"role": "x", "move": "(mark 1 1)"}], "expired": [],
     "state": "(true infinity (cell 1 1 x)) (true infinity (cell 1 2 b)) (true 1.5 turn)"},
    {"time": "2.0", "moves": [], "expired": ["turn"], "state": "(true infinity (cell 1 1 x)) (true infinity (cell 1 2 b))"},
    {"time": "2.25", "moves": [{"role": "o", "move": "(mark 1 2)"}], "expired": [],
     "state": "(true infinity (cell 1 1 x)) (true infinity (cell 1 2 o))"}],
  "rejected": [{"time": "2.3", "role": "x", "reply": "(mark 1 2)", "reason": "not legal"}],
  "polls": 12, "end_time": "2.25", "terminal": true, "goals": [0, 100]}"#;

/// Checks a real-time record's page in the browser: the timeline's events, clicked.
fn check_real_time(page: &mut Page) {
    let record: Value = serde_json::from_str(REAL_TIME).unwrap();
    open(page, &page_of(&record, "realtime", None));
    assert_eq!(page.eval("document.querySelectorAll('#timeline .event').length"), json!(4));
    page.click("#timeline .event[data-step='2']");
    assert_eq!(page.eval("document.body.dataset.step"), json!("2"));
    assert_eq!(page.eval("document.querySelector('.expired').textContent"), json!("expired: turn"));
    page.click("#timeline .event[data-step='3']");
    assert_eq!(
        page.eval("[...document.querySelectorAll('#joint .move')].map(m => m.textContent)"),
        json!(["—", "(mark 1 2)"])
    );
    assert_eq!(page.eval("document.querySelectorAll('.board .piece').length"), json!(2));
    let notes = page.eval("document.getElementById('notes').textContent");
    assert!(notes.as_str().unwrap().contains("rejected: not legal"), "{notes}");
}

/// A random match of `path` through the interpreter, at most `steps` long, as a trace.
fn random_trace(path: &Path, steps: usize) -> gdl_player::trace::Match {
    let loaded = gdlc::load::load_valid(path).unwrap();
    let game = gdlc::interp::Interpreter::new(&loaded.description).unwrap();
    let roles = (0..game.num_roles()).map(|r| game.role_name(r).to_string()).collect();
    let header = gdl_player::trace::Header { game: loaded.file.clone(), roles };
    let (mut rng, mut state, mut legal) = (Rng::seeded(7), game.initial_state(), Vec::new());
    let mut trace = gdl_player::trace::Match { header, steps: Vec::new() };
    for step in 0..steps {
        let mut seen = gdl_player::trace::observe(&game, &state, step);
        if seen.terminal || step + 1 == steps {
            trace.steps.push(seen);
            break;
        }
        game.all_legal_moves(&state, &mut legal);
        let joint: Vec<_> = legal.iter().map(|moves| moves[rng.below(moves.len())].clone()).collect();
        seen.joint = Some(joint.iter().map(|m| game.move_string(m)).collect());
        trace.steps.push(seen);
        state = game.next_state(&state, &joint);
    }
    trace
}

#[test]
fn every_bundled_game_is_drawn() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "kif"));
    files.sort();
    let mut drawn = Vec::new();
    for file in &files {
        let trace = random_trace(file, 12);
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("view-trace.jsonl");
        std::fs::write(&path, gdl_player::trace::write(&trace)).unwrap();
        let source = gdlc_cli::view::Source::Trace { trace: &path, index: 0 };
        let view = gdlc_cli::view::view(source, Some((file.as_path(), gdlc::parse::Case::Insensitive))).unwrap();
        assert_eq!(view.steps.len(), trace.steps.len());
        let page = gdlc_cli::view::html::page(&view);
        assert!(page.contains("id=\"match-data\""));
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let boards: Vec<String> =
            view.boards.iter().map(|b| format!("{}:{}x{}", b.name, b.columns.len(), b.rows.len())).collect();
        drawn.push(format!("{name} {}", boards.join(" ")));
    }
    let drawn = drawn.join("\n");
    eprintln!("the boards of every bundled game:\n{drawn}");
    for expected in [
        "ticTacToe cell/3:3x3",
        "sheepAndWolf cell/3:8x8",
        "chess cell/3:8x8",
        "checkers cell/3:8x8",
        "reversi cell/3:8x8",
        "connectFour cell/3:8x6",
        "breakthrough cellholds/3:8x8",
        "pentago cellholds/4:",
        "montyHall \n",
    ] {
        assert!(format!("{drawn}\n").contains(expected), "{expected} in:\n{drawn}");
    }
}
