//! `cargo xtask compile-table [DIR]`: runs `gdlc compile` on every game of DIR (default
//! `../shared/games`) in its own process, under a time limit, and prints a Markdown table of
//! compile time, peak memory, base propositions, state words, moves, derived propositions and
//! generated lines, with the error of every game that did not compile.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The time a game may take to compile (issue 3's bound).
const TIME_LIMIT: Duration = Duration::from_secs(60);

/// One game's outcome.
struct Row {
    game: String,
    seconds: f64,
    outcome: Result<Vec<String>, String>,
}

pub fn run(root: &Path, dir: &Path) -> Result<(), String> {
    let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["build", "--release", "--quiet", "-p", "gdlc"])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("building gdlc failed".to_string());
    }
    let gdlc = root.join("target/release/gdlc");
    let mut games: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "kif"))
        .collect();
    games.sort();
    let out = std::env::temp_dir().join(format!("gdlc-compile-table-{}.rs", std::process::id()));
    println!("| game | compile s | peak MB | base props | state words | moves | derived props | lines |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let (mut compiled, mut failed) = (0, Vec::new());
    for game in &games {
        let row = compile_one(&gdlc, game, &out);
        match &row.outcome {
            Ok(fields) => {
                compiled += 1;
                println!("| {} | {:.2} | {} |", row.game, row.seconds, fields.join(" | "));
            }
            Err(e) => {
                println!("| {} | {:.2} | failed: {} ||||||", row.game, row.seconds, e.replace('|', "\\|"));
                failed.push(row.game.clone());
            }
        }
    }
    std::fs::remove_file(&out).ok();
    println!("\n{compiled} of {} games compiled; not compiled: {}", games.len(), failed.join(", "));
    Ok(())
}

fn compile_one(gdlc: &Path, game: &Path, out: &Path) -> Row {
    let name = game.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let start = Instant::now();
    let child = Command::new(gdlc)
        .arg("compile")
        .arg(game)
        .arg("-o")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Row { game: name, seconds: 0.0, outcome: Err(format!("cannot run gdlc: {e}")) },
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() > TIME_LIMIT => {
                child.kill().ok();
                child.wait().ok();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break None,
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        use std::io::Read;
        pipe.read_to_string(&mut stderr).ok();
    }
    let outcome = match status {
        None => Err(format!("over {} s", TIME_LIMIT.as_secs())),
        Some(s) if !s.success() => {
            let line = stderr.lines().find(|l| l.contains("error")).unwrap_or("failed").to_string();
            Err(line.split("error: ").last().unwrap_or(&line).to_string())
        }
        Some(_) => summary_fields(&stderr).ok_or_else(|| format!("unexpected output: {}", stderr.trim())),
    };
    Row { game: name, seconds, outcome }
}

/// The table's columns from `gdlc compile`'s summary line, `FILE: 2 roles, 19 base propositions,
/// 1 state words, 10 moves, 14 derived propositions, 495 lines, 0.01 s, 12 MB peak`.
fn summary_fields(stderr: &str) -> Option<Vec<String>> {
    let line = stderr.lines().rev().find(|l| l.contains(" base propositions"))?;
    let number = |key: &str| -> Option<String> {
        line.split(", ")
            .find(|part| part.ends_with(key))
            .and_then(|part| part.split_whitespace().rev().nth(key.split_whitespace().count()))
            .map(str::to_string)
    };
    Some(vec![
        number("MB peak").unwrap_or_else(|| "?".to_string()),
        number("base propositions")?,
        number("state words")?,
        number("moves")?,
        number("derived propositions")?,
        number("lines")?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_line_gives_the_columns() {
        let line = "games/t.kif: 2 roles, 19 base propositions, 1 state words, 10 moves, 14 derived propositions, 495 lines, 0.01 s, 12 MB peak\n";
        assert_eq!(summary_fields(line).unwrap(), ["12", "19", "1", "10", "14", "495"]);
        assert_eq!(summary_fields("error: nope"), None);
    }
}
