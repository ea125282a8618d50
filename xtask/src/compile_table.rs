//! `cargo xtask compile-table [DIR]`: runs `gdlc compile` on every game of DIR (default
//! `../shared/games`) in its own process, under a time limit, and prints a Markdown table of
//! compile time, peak memory, base propositions, state words, moves, derived propositions and
//! generated lines, with the error of every game that did not compile. With `--check-build`,
//! every module that compiled is also type-checked by `cargo check` (in one scratch crate that
//! depends on gdl-runtime), and the table says whether it builds.

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

pub(crate) fn run(root: &Path, dir: &Path, check_build: bool) -> Result<(), String> {
    let gdlc = crate::codegen::build_release_gdlc(root)?;
    let mut games: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "kif"))
        .collect();
    games.sort();
    let scratch = std::env::temp_dir().join(format!("gdlc-compile-table-{}", std::process::id()));
    let out = scratch.join("src/game.rs");
    std::fs::create_dir_all(scratch.join("src")).map_err(|e| format!("{}: {e}", scratch.display()))?;
    if check_build {
        write_scratch_crate(root, &scratch)?;
    }
    let build_column = if check_build { " builds |" } else { "" };
    let build_rule = if check_build { "---|" } else { "" };
    println!("| game | compile s | peak MB | base props | state words | moves | derived props | literals | form | lines |{build_column}");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|{build_rule}");
    let (mut compiled, mut failed, mut unbuilt) = (0, Vec::new(), Vec::new());
    for game in &games {
        let row = compile_one(&gdlc, game, &out);
        match &row.outcome {
            Ok(fields) => {
                compiled += 1;
                let builds = if check_build {
                    let (ok, seconds) = cargo_check(&scratch);
                    if !ok {
                        unbuilt.push(row.game.clone());
                    }
                    format!(" {} ({seconds:.0} s) |", if ok { "yes" } else { "no" })
                } else {
                    String::new()
                };
                println!("| {} | {:.2} | {} |{builds}", row.game, row.seconds, fields.join(" | "));
            }
            Err(e) => {
                let empty = if check_build { "|||||||||" } else { "||||||||" };
                println!("| {} | {:.2} | failed: {} {empty}", row.game, row.seconds, e.replace('|', "\\|"));
                failed.push(row.game.clone());
            }
        }
    }
    std::fs::remove_dir_all(&scratch).ok();
    println!("\n{compiled} of {} games compiled; not compiled: {}", games.len(), failed.join(", "));
    if check_build {
        println!(
            "{} of {compiled} compiled games build; not building: {}",
            compiled - unbuilt.len(),
            unbuilt.join(", ")
        );
    }
    Ok(())
}

/// A crate whose library is the module `gdlc compile` last wrote, over the workspace's runtime.
fn write_scratch_crate(root: &Path, scratch: &Path) -> Result<(), String> {
    let runtime = root.join("gdl-runtime");
    let manifest = format!(
        "[package]\nname = \"gdlc-compile-table-check\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
         [dependencies]\ngdl-runtime = {{ path = {:?} }}\n\n[workspace]\n",
        runtime.display().to_string()
    );
    let write = |path: PathBuf, text: &str| std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()));
    write(scratch.join("Cargo.toml"), &manifest)?;
    write(scratch.join("src/lib.rs"), "#[allow(warnings)]\npub mod game;\n")?;
    if let Ok(lock) = std::fs::read_to_string(root.join("Cargo.lock")) {
        write(scratch.join("Cargo.lock"), &lock)?;
    }
    Ok(())
}

/// Whether the scratch crate type-checks, and how long `cargo check` took.
fn cargo_check(scratch: &Path) -> (bool, f64) {
    let start = Instant::now();
    let ok = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["check", "--quiet", "--offline"])
        .current_dir(scratch)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    (ok, start.elapsed().as_secs_f64())
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
/// 1 state words, 10 moves, 14 derived propositions, 60 literals, straight-line form, 495 lines,
/// 0.01 s, 12 MB peak`, or `FILE: lifted form (...), 495 lines, 0.01 s, 12 MB peak` (no ground
/// program to count: those columns say `-`).
fn summary_fields(stderr: &str) -> Option<Vec<String>> {
    let line =
        stderr.lines().rev().find(|l| l.contains(" base propositions") || l.contains(": lifted form (the rules"))?;
    let number = |key: &str| -> Option<String> {
        line.split(", ")
            .find(|part| part.ends_with(key))
            .and_then(|part| part.split_whitespace().rev().nth(key.split_whitespace().count()))
            .map(str::to_string)
    };
    if !line.contains(" base propositions") {
        let mut fields = vec![number("MB peak").unwrap_or_else(|| "?".to_string())];
        fields.extend(["-"; 5].map(str::to_string));
        fields.extend(["lifted".to_string(), number("lines")?]);
        return Some(fields);
    }
    Some(vec![
        number("MB peak").unwrap_or_else(|| "?".to_string()),
        number("base propositions")?,
        number("state words")?,
        number("moves")?,
        number("derived propositions")?,
        number("literals")?,
        if line.contains(", table form,") { "table" } else { "straight" }.to_string(),
        number("lines")?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_line_gives_the_columns() {
        let line = "games/t.kif: 2 roles, 19 base propositions, 1 state words, 10 moves, 14 derived propositions, \
                    60 literals, straight-line form, 495 lines, 0.01 s, 12 MB peak\n";
        assert_eq!(summary_fields(line).unwrap(), ["12", "19", "1", "10", "14", "60", "straight", "495"]);
        assert_eq!(summary_fields("error: nope"), None);
        let lifted = "games/chess.kif: its ground program checks 183360 atoms at run time\nnote: compiled in the \
                      lifted form instead\ngames/chess.kif: lifted form (the rules with variables, not ground), \
                      18737 lines, 22.31 s, 581 MB peak\n";
        assert_eq!(summary_fields(lifted).unwrap(), ["581", "-", "-", "-", "-", "-", "lifted", "18737"]);
    }
}
