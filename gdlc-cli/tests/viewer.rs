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

/// Checks the page's current step: its number, the pieces on the board, and the joint move.
fn check_step(page: &mut Page, record: &Value, step: usize) {
    assert_eq!(page.eval("document.body.dataset.step"), json!(step.to_string()));
    let state = &states(record)[step];
    assert_eq!(page.eval("document.querySelectorAll('.board .piece').length"), json!(pieces(state)), "step {step}");
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
