//! `cargo xtask analysis-table [DIR] [--seconds S] [--threads T] [--max-states N] [--gdlc BIN]
//! [--out FILE] [--fresh]`: runs `gdlc analyze --json` on every game of DIR (default `../shared/games`),
//! each in its own process under a time limit, and writes the table of verdicts into FILE
//! (default `docs/analysis.md`) below its `<!-- analysis-table -->` line, with the games proved
//! well formed and those refuted and why. The text above that line is kept.
//!
//! Each game's result is also kept in a cache directory named after the budget (under
//! `target/analysis-table/`), and a game already there is not analyzed again unless `--fresh`
//! is given: at 60 s per game the table takes hours, and can be made over several runs.

use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The line of the document below which the table is written.
const MARKER: &str = "<!-- analysis-table -->";

/// The command's options.
pub(crate) struct Options {
    dir: PathBuf,
    seconds: f64,
    threads: usize,
    max_states: usize,
    gdlc: Option<PathBuf>,
    out: PathBuf,
    fresh: bool,
}

impl Options {
    pub(crate) fn parse(root: &Path, args: &[String]) -> Result<Options, String> {
        let mut options = Options {
            dir: root.join("../shared/games"),
            seconds: 60.0,
            threads: 2,
            max_states: 1_000_000,
            gdlc: None,
            out: root.join("docs/analysis.md"),
            fresh: false,
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value = || it.next().ok_or_else(|| format!("{arg} needs a value"));
            match arg.as_str() {
                "--seconds" => options.seconds = value()?.parse().map_err(|e| format!("--seconds: {e}"))?,
                "--threads" => options.threads = value()?.parse().map_err(|e| format!("--threads: {e}"))?,
                "--max-states" => options.max_states = value()?.parse().map_err(|e| format!("--max-states: {e}"))?,
                "--gdlc" => options.gdlc = Some(PathBuf::from(value()?)),
                "--out" => options.out = PathBuf::from(value()?),
                "--fresh" => options.fresh = true,
                dir if !dir.starts_with("--") => options.dir = PathBuf::from(dir),
                other => return Err(format!("unknown option {other}")),
            }
        }
        Ok(options)
    }
}

/// One game's outcome: its report, or why there is none.
struct Row {
    game: String,
    seconds: f64,
    report: Result<Value, String>,
}

pub(crate) fn run(root: &Path, options: &Options) -> Result<(), String> {
    let gdlc = match &options.gdlc {
        Some(path) => path.clone(),
        None => crate::codegen::build_release_gdlc(root)?,
    };
    let mut games: Vec<PathBuf> = std::fs::read_dir(&options.dir)
        .map_err(|e| format!("{}: {e}", options.dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "kif"))
        .collect();
    games.sort();
    let scratch = std::env::temp_dir().join(format!("gdlc-analysis-table-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let cache = options.cache_dir(root);
    std::fs::create_dir_all(&cache).map_err(|e| format!("{}: {e}", cache.display()))?;
    let mut rows = Vec::new();
    for (n, game) in games.iter().enumerate() {
        let cached = if options.fresh { None } else { load_row(&cache, game) };
        let was_cached = cached.is_some();
        let row = match cached {
            Some(row) => row,
            None => {
                let row = analyze_one(&gdlc, game, options, &scratch);
                save_row(&cache, &row)?;
                row
            }
        };
        let from = if was_cached { ", kept from an earlier run" } else { "" };
        eprintln!("[{}/{}] {} ({:.1} s{from}): {}", n + 1, games.len(), row.game, row.seconds, summary(&row));
        rows.push(row);
    }
    std::fs::remove_dir_all(&scratch).ok();
    let table = render(&rows, options, root);
    let current = std::fs::read_to_string(&options.out).unwrap_or_default();
    let head = current.split_once(MARKER).map_or(current.as_str(), |(head, _)| head);
    let text = format!("{}{MARKER}\n\n{table}", head.trim_end_matches('\n').to_string() + "\n\n");
    std::fs::write(&options.out, text).map_err(|e| format!("{}: {e}", options.out.display()))?;
    eprintln!("wrote {}", options.out.display());
    Ok(())
}

impl Options {
    /// Where each game's result at this budget is kept between runs.
    fn cache_dir(&self, root: &Path) -> PathBuf {
        let name = format!("s{}-t{}-m{}", self.seconds, self.threads, self.max_states);
        root.join("target/analysis-table").join(name)
    }
}

/// The file that keeps one game's result.
fn cache_file(cache: &Path, game: &str) -> PathBuf {
    cache.join(format!("{game}.json"))
}

/// A game's result from an earlier run at the same budget, if one was kept.
fn load_row(cache: &Path, game: &Path) -> Option<Row> {
    let name = game.file_stem()?.to_string_lossy().into_owned();
    let text = std::fs::read_to_string(cache_file(cache, &name)).ok()?;
    let value: Value = serde_json::from_str(&text).ok()?;
    let seconds = value["seconds"].as_f64()?;
    let report = match value["error"].as_str() {
        Some(error) => Err(error.to_string()),
        None => Ok(value["report"].clone()),
    };
    Some(Row { game: name, seconds, report })
}

/// Keeps one game's result for later runs.
fn save_row(cache: &Path, row: &Row) -> Result<(), String> {
    let value = match &row.report {
        Ok(report) => serde_json::json!({ "seconds": row.seconds, "report": report }),
        Err(error) => serde_json::json!({ "seconds": row.seconds, "error": error }),
    };
    let path = cache_file(cache, &row.game);
    std::fs::write(&path, value.to_string()).map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs `gdlc analyze --json` on one game, its output in files (a long witness overflows a
/// pipe), killed past twice the budget and two minutes for loading.
fn analyze_one(gdlc: &Path, game: &Path, options: &Options, scratch: &Path) -> Row {
    let name = game.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let start = Instant::now();
    let report = run_analyze(gdlc, game, options, scratch);
    Row { game: name, seconds: start.elapsed().as_secs_f64(), report }
}

fn run_analyze(gdlc: &Path, game: &Path, options: &Options, scratch: &Path) -> Result<Value, String> {
    let (out_path, err_path) = (scratch.join("out.json"), scratch.join("err.txt"));
    let file = |p: &Path| std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()));
    let mut child = Command::new(gdlc)
        .arg("analyze")
        .arg(game)
        .args(["--json", "--seconds", &options.seconds.to_string(), "--threads", &options.threads.to_string()])
        .args(["--max-states", &options.max_states.to_string()])
        .stdout(Stdio::from(file(&out_path)?))
        .stderr(Stdio::from(file(&err_path)?))
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", gdlc.display()))?;
    let limit = Duration::from_secs_f64(options.seconds * 2.0 + 120.0);
    let until = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(50)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("no report within {:.0} s", limit.as_secs_f64()));
            }
        }
    };
    if !status.success() {
        let err = std::fs::read_to_string(&err_path).unwrap_or_default();
        let first = err.lines().find(|l| l.contains("error")).unwrap_or("failed").trim();
        return Err(first.to_string());
    }
    let out = std::fs::read_to_string(&out_path).map_err(|e| e.to_string())?;
    serde_json::from_str(&out).map_err(|e| format!("not JSON: {e}"))
}

/// Every entry of `property` in a report.
fn entries<'a>(report: &'a Value, property: &'a str) -> impl Iterator<Item = &'a Value> {
    report["properties"].as_array().into_iter().flatten().filter(move |e| e["property"] == property)
}

/// One cell: the property's verdict over its roles (refuted naming the roles that fail it).
fn cell(report: &Value, property: &str, game_level: bool) -> String {
    let all: Vec<&Value> = entries(report, property).filter(|e| !game_level || e["role"].is_null()).collect();
    let verdicts: Vec<&str> = all.iter().map(|e| e["verdict"].as_str().unwrap_or("?")).collect();
    let refuted: Vec<String> = all
        .iter()
        .filter(|e| e["verdict"] == "refuted")
        .map(|e| e["role"].as_str().map_or_else(String::new, str::to_string))
        .collect();
    if !refuted.is_empty() {
        let roles: Vec<String> = refuted.into_iter().filter(|r| !r.is_empty()).collect();
        return if roles.is_empty() { "refuted".into() } else { format!("refuted ({})", roles.join(", ")) };
    }
    if verdicts.is_empty() {
        return "-".into();
    }
    if verdicts.iter().all(|v| *v == "proved") {
        return "proved".into();
    }
    if verdicts.iter().all(|v| *v == "not declared") {
        return "-".into();
    }
    "unknown".into()
}

/// The game's well-formed verdict, with the reason when refuted.
fn summary(row: &Row) -> String {
    match &row.report {
        Err(e) => format!("no report: {e}"),
        Ok(report) => {
            let entry = entries(report, "well-formed").next();
            let verdict = entry.and_then(|e| e["verdict"].as_str()).unwrap_or("?");
            match entry.and_then(|e| e["evidence"].as_str()).filter(|_| verdict == "refuted") {
                Some(why) => format!("{verdict}: {why} fails"),
                None => verdict.to_string(),
            }
        }
    }
}

/// Why a game is not well formed: the properties that fail.
fn reason(row: &Row) -> String {
    let summary = summary(row);
    summary.strip_prefix("refuted: ").unwrap_or(&summary).to_string()
}

/// The table and the lists below it.
fn render(rows: &[Row], options: &Options, root: &Path) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Budget: {} s per game, `--threads {}`, `--max-states {}` (`cargo xtask analysis-table --seconds {} --threads {}`). {}\n",
        options.seconds,
        options.threads,
        options.max_states,
        options.seconds,
        options.threads,
        crate::bench_table::machine_line(root)
    );
    out.push_str("| game | states | search | s | termination | playability | goal | weak win | strong win | input | base | well-formed |\n");
    out.push_str("|---|---:|---|---:|---|---|---|---|---|---|---|---|\n");
    for row in rows {
        let Ok(report) = &row.report else {
            let reason = row.report.as_ref().err().map_or("", String::as_str).replace('|', "\\|");
            let _ = writeln!(out, "| {} | | no report: {reason} | {:.1} | | | | | | | | |", row.game, row.seconds);
            continue;
        };
        let searched = &report["searched"];
        let search = match searched["stop"].as_str() {
            Some("complete") => "complete".to_string(),
            Some(stop) => format!("{stop}, depth {}, {} playouts", searched["depth"], searched["playouts"]),
            None => "?".to_string(),
        };
        let cells: Vec<String> = [
            ("termination", true),
            ("playability", false),
            ("goal", false),
            ("weak winnability", false),
            ("strong winnability", true),
            ("input", true),
            ("base", true),
            ("well-formed", true),
        ]
        .iter()
        .map(|&(p, game_level)| cell(report, p, game_level))
        .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {search} | {:.1} | {} |",
            row.game,
            searched["states"],
            row.seconds,
            cells.join(" | ")
        );
    }
    lists(rows, &mut out);
    out
}

/// The game's well-formed verdict, if it has a report.
fn verdict_of(row: &Row) -> Option<&str> {
    row.report.as_ref().ok().and_then(|r| entries(r, "well-formed").next()).and_then(|e| e["verdict"].as_str())
}

/// The games proved well formed, those refuted with the reason, and the counts.
fn lists(rows: &[Row], out: &mut String) {
    let proved: Vec<&str> = rows.iter().filter(|r| verdict_of(r) == Some("proved")).map(|r| r.game.as_str()).collect();
    let refuted: Vec<String> = rows
        .iter()
        .filter(|r| verdict_of(r) == Some("refuted"))
        .map(|r| format!("{}: {}", r.game, reason(r)))
        .collect();
    let goal_refuted: Vec<&str> = rows
        .iter()
        .filter(|r| r.report.as_ref().is_ok_and(|rep| cell(rep, "goal", false).starts_with("refuted")))
        .map(|r| r.game.as_str())
        .collect();
    let none = rows.iter().filter(|r| r.report.is_err()).count();
    let _ =
        writeln!(out, "\n### Proved well formed ({} of {} games)\n\n{}", proved.len(), rows.len(), proved.join(", "));
    let _ = writeln!(out, "\n### Refuted ({} games)\n", refuted.len());
    for line in &refuted {
        let _ = writeln!(out, "- {line}");
    }
    let _ = writeln!(out, "\n### Goal relation refuted ({} games)\n\n{}", goal_refuted.len(), goal_refuted.join(", "));
    let unknown = rows.len() - proved.len() - refuted.len() - none;
    let _ = writeln!(out, "\nUndecided within the budget: {unknown} games; no report: {none} games.");
}
