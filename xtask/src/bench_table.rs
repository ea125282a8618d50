//! `cargo xtask bench-table [--seconds N] [--all]`: measures random rollouts per second of the
//! compiled games against the hand-written bitboard reasoners of
//! `../shared/bench/handwritten`, on one thread, alternating the two engines game by game in
//! the same run, and prints a Markdown table with their ratio, the speed-up of two threads over
//! one, and the commit and machine; it also writes the ratios as a bar chart to
//! `docs/bench.svg`. With `--all`, every other game of `games/` is measured too (compiled
//! engine only, or the reason it is not compiled).

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The games that the hand-written reasoners implement: their file stem in `games/` and the
/// name the hand-written binary takes.
pub(crate) const HANDWRITTEN_GAMES: [&str; 5] = ["ticTacToe", "connectFour", "breakthrough", "pentago", "reversi"];

/// The fraction of the hand-written speed that issue 5 asks the compiled code to reach.
const TARGET_RATIO: f64 = 0.5;

/// The command line of `bench-table`.
#[derive(Debug, PartialEq)]
pub(crate) struct Options {
    pub seconds: f64,
    pub all: bool,
}

impl Options {
    /// Parses the arguments after `bench-table`.
    pub(crate) fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options { seconds: 5.0, all: false };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--seconds" => {
                    let value = args.next().ok_or("--seconds needs a number")?;
                    options.seconds = value
                        .parse()
                        .ok()
                        .filter(|s: &f64| s.is_finite() && *s > 0.0)
                        .ok_or_else(|| format!("--seconds needs a positive number, not `{value}`"))?;
                }
                "--all" => options.all = true,
                other => {
                    return Err(format!(
                        "unknown option `{other}`; usage: cargo xtask bench-table [--seconds N] [--all]"
                    ))
                }
            }
        }
        Ok(options)
    }
}

/// One game's measurements, in rollouts per second.
struct Row {
    game: String,
    compiled: f64,
    handwritten: f64,
    compiled_two_threads: f64,
}

pub(crate) fn run(root: &Path, options: &Options) -> Result<(), String> {
    let handwritten = build_handwritten(root)?;
    let games: Vec<&str> = HANDWRITTEN_GAMES.to_vec();
    let steps = games.len() * 3;
    let mut progress = Progress::new(steps);
    let mut rows = Vec::new();
    for game in &games {
        progress.show(&format!("{game}: building the compiled game"));
        let binary = compiled_binary(root, game)?;
        let seconds = options.seconds.to_string();
        progress.step(&format!("{game}: compiled, 1 thread"));
        let compiled =
            rollouts_per_sec(Command::new(&binary).args(["bench", "--seconds", &seconds, "--threads", "1"]))?;
        progress.step(&format!("{game}: hand-written, 1 thread"));
        let hand = rollouts_per_sec(Command::new(&handwritten).args([*game, seconds.as_str()]))?;
        progress.step(&format!("{game}: compiled, 2 threads"));
        let two = rollouts_per_sec(Command::new(&binary).args(["bench", "--seconds", &seconds, "--threads", "2"]))?;
        rows.push(Row { game: game.to_string(), compiled, handwritten: hand, compiled_two_threads: two });
    }
    progress.finish();
    let table = table(&rows, options.seconds);
    print!("{table}");
    println!();
    println!("{}", machine_line(root));
    let svg_path = root.join("docs/bench.svg");
    let date =
        Command::new("date").arg("+%Y-%m-%d").output().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let footer = format!("{} {}", date.unwrap_or_default(), machine_line(root));
    std::fs::write(&svg_path, svg(&rows, &footer)).map_err(|e| format!("{}: {e}", svg_path.display()))?;
    println!("Chart: {}", svg_path.strip_prefix(root).unwrap_or(&svg_path).display());
    if options.all {
        println!();
        print!("{}", other_games(root, options.seconds)?);
    }
    Ok(())
}

/// Builds the hand-written reasoners (release, in this workspace's target directory so that
/// `../shared` is left as it is) and returns the binary.
fn build_handwritten(root: &Path) -> Result<PathBuf, String> {
    let manifest = root.join("../shared/bench/handwritten/Cargo.toml");
    let target = root.join("target/handwritten");
    let status = Command::new(cargo())
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target)
        // Built with the instructions the games' binaries are built with, so that the two
        // compare as the same machine runs them.
        .env_remove("RUSTFLAGS")
        .env("CARGO_ENCODED_RUSTFLAGS", gdlc_cli::native::host_rustflags())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("building {} failed", manifest.display()));
    }
    Ok(target.join("release").join(format!("handwritten{}", std::env::consts::EXE_SUFFIX)))
}

fn cargo() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// The cached per-game binary of `games/GAME.kif`, the one `gdlc bench` runs.
fn compiled_binary(root: &Path, game: &str) -> Result<PathBuf, String> {
    let path = root.join("games").join(format!("{game}.kif"));
    gdlc_cli::compiled::compiled_binary(&path, &gdlc::codegen::Options::default(), Default::default(), false)
        .map_err(|e| e.to_string())
}

/// Runs a benchmark process and reads the `rolloutsPerSec=` of its report.
fn rollouts_per_sec(command: &mut Command) -> Result<f64, String> {
    let output = command.output().map_err(|e| format!("cannot run {:?}: {e}", command.get_program()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "{:?} failed: {}{}",
            command.get_program(),
            stdout,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    report_value(&stdout, "rolloutsPerSec")
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("{:?} printed no rolloutsPerSec: {stdout}", command.get_program()))
}

/// The value of `key=` in a gdl-perf report.
fn report_value<'a>(report: &'a str, key: &str) -> Option<&'a str> {
    report.lines().find_map(|line| line.strip_prefix(key)?.strip_prefix('='))
}

/// The Markdown table of the measurements.
fn table(rows: &[Row], seconds: f64) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| game | gdlc rollouts/s (1 thread) | hand-written rollouts/s (1 thread) | gdlc / hand-written | gdlc rollouts/s (2 threads) | 2 threads / 1 thread |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
    for row in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.3} | {} | {:.2} |",
            row.game,
            thousands(row.compiled),
            thousands(row.handwritten),
            row.compiled / row.handwritten.max(f64::MIN_POSITIVE),
            thousands(row.compiled_two_threads),
            row.compiled_two_threads / row.compiled.max(f64::MIN_POSITIVE),
        );
    }
    let _ = writeln!(out, "\nEach cell is one run of {seconds} s; the two engines of a game ran one after the other.");
    out
}

/// A whole number with thousands separators.
fn thousands(value: f64) -> String {
    let digits = format!("{:.0}", value.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The machine's 1-minute load average, where the system tells it (Linux).
pub(crate) fn load_average() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next().map(str::to_string)
}

/// The commit, the processor and the number of cores, and the load while measuring.
pub(crate) fn machine_line(root: &Path) -> String {
    let commit = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(root)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .current_dir(root)
        .output()
        .is_ok_and(|o| !o.stdout.is_empty());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("model name").map(|m| m.trim_start_matches([' ', '\t', ':']).to_string()))
        })
        .unwrap_or_else(|| "unknown processor".to_string());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load = load_average().unwrap_or_else(|| "unknown".to_string());
    format!(
        "Measured at commit {commit}{} on {model}, {cores} cores, 1-minute load average {load} at the end.",
        if dirty { " (with uncommitted changes)" } else { "" }
    )
}

/// A horizontal bar chart of gdlc's speed as a fraction of the hand-written speed, each bar
/// with both rollouts per second, the target marked, and `footer` (the date, the commit and
/// the machine) under it.
fn svg(rows: &[Row], footer: &str) -> String {
    let (left, width, bar, gap, top) = (120.0, 480.0, 22.0, 12.0, 40.0);
    let height = top + rows.len() as f64 * (bar + gap) + 52.0;
    let max = rows.iter().map(|r| r.compiled / r.handwritten).fold(1.0f64, f64::max);
    let x = |ratio: f64| left + width * ratio / max;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{height}" font-family="sans-serif" font-size="13">"#,
        left + width + 250.0
    );
    let _ = writeln!(out, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        out,
        r#"<text x="{left}" y="20" font-weight="bold">gdlc rollouts/s as a fraction of the hand-written reasoners (1 thread)</text>"#
    );
    for (i, row) in rows.iter().enumerate() {
        let ratio = row.compiled / row.handwritten;
        let y = top + i as f64 * (bar + gap);
        let _ =
            writeln!(out, r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#, left - 8.0, y + bar * 0.7, row.game);
        let _ = writeln!(
            out,
            r##"<rect x="{left}" y="{y}" width="{:.1}" height="{bar}" fill="#3b7dd8"/>"##,
            (x(ratio) - left).max(1.0)
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{}">{:.1}% ({} against {}/s)</text>"#,
            x(ratio) + 5.0,
            y + bar * 0.7,
            ratio * 100.0,
            rate(row.compiled),
            rate(row.handwritten)
        );
    }
    let bottom = top + rows.len() as f64 * (bar + gap);
    for (ratio, label, colour) in [(TARGET_RATIO, "target 50%", "#d83b3b"), (1.0, "hand-written", "#555")] {
        let _ = writeln!(
            out,
            r#"<line x1="{0:.1}" y1="{1}" x2="{0:.1}" y2="{bottom}" stroke="{colour}" stroke-dasharray="4 3"/>"#,
            x(ratio),
            top - 6.0
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{}" text-anchor="middle" fill="{colour}">{label}</text>"#,
            x(ratio),
            bottom + 16.0
        );
    }
    let footer = footer.replace('&', "&amp;").replace('<', "&lt;");
    let _ = writeln!(out, r##"<text x="8" y="{}" font-size="10" fill="#555">{footer}</text>"##, bottom + 38.0);
    out.push_str("</svg>\n");
    out
}

/// Rollouts per second in short: `3.74M`, `812k`, `95`.
fn rate(per_second: f64) -> String {
    match per_second {
        r if r >= 1e6 => format!("{:.2}M", r / 1e6),
        r if r >= 1e3 => format!("{:.0}k", r / 1e3),
        r => format!("{r:.0}"),
    }
}

/// The compiled engine on every game of `games/` without a hand-written reasoner: its
/// rollouts per second on one thread, or why it was not measured.
fn other_games(root: &Path, seconds: f64) -> Result<String, String> {
    let mut games: Vec<String> = std::fs::read_dir(root.join("games"))
        .map_err(|e| format!("games/: {e}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "kif"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .filter(|g| !HANDWRITTEN_GAMES.contains(&g.as_str()))
        .collect();
    games.sort();
    let mut progress = Progress::new(games.len());
    let mut out = String::from("| game | gdlc rollouts/s (1 thread) | average goals |\n|---|---:|---|\n");
    for game in &games {
        progress.show(&format!("{game}: building and measuring"));
        let line = match compiled_binary(root, game) {
            Err(e) => format!("| {game} | not compiled: {} | |", first_line(&e).replace('|', "\\|")),
            Ok(binary) => {
                let output = Command::new(&binary)
                    .args(["bench", "--seconds", &seconds.to_string()])
                    .output()
                    .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
                let report = String::from_utf8_lossy(&output.stdout);
                match (report_value(&report, "rolloutsPerSec"), report_value(&report, "averageGoals")) {
                    (Some(r), Some(g)) => {
                        format!("| {game} | {} | {g} |", thousands(r.parse().unwrap_or(0.0)))
                    }
                    _ => format!("| {game} | failed: {} | |", first_line(&String::from_utf8_lossy(&output.stderr))),
                }
            }
        };
        progress.step("");
        let _ = writeln!(out, "{line}");
    }
    progress.finish();
    Ok(out)
}

fn first_line(text: &str) -> &str {
    text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim()
}

/// A one-line progress indicator on stderr, shown only when stderr is a terminal.
struct Progress {
    done: usize,
    total: usize,
    shown: bool,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress { done: 0, total, shown: std::io::stderr().is_terminal() }
    }

    fn show(&self, what: &str) {
        if self.shown {
            const WIDTH: usize = 20;
            let filled = WIDTH * self.done / self.total.max(1);
            eprint!(
                "\r\x1b[2K[{}{}] {}/{} {what}",
                "#".repeat(filled),
                " ".repeat(WIDTH - filled),
                self.done,
                self.total
            );
        }
    }

    fn step(&mut self, next: &str) {
        self.done += 1;
        self.show(next);
    }

    fn finish(&self) {
        if self.shown {
            eprint!("\r\x1b[2K");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_default_and_parse() {
        assert_eq!(Options::parse(&[]).unwrap(), Options { seconds: 5.0, all: false });
        let args: Vec<String> = ["--seconds", "2.5", "--all"].iter().map(|s| s.to_string()).collect();
        assert_eq!(Options::parse(&args).unwrap(), Options { seconds: 2.5, all: true });
        assert!(Options::parse(&["--seconds".to_string(), "-1".to_string()]).is_err());
        assert!(Options::parse(&["--fast".to_string()]).is_err());
    }

    #[test]
    fn the_chart_shows_both_speeds_and_where_they_were_measured() {
        let row = Row {
            game: "ticTacToe".into(),
            compiled: 3_740_000.0,
            handwritten: 7_100_000.0,
            compiled_two_threads: 0.0,
        };
        let chart = svg(&[row], "2026-11-26 Measured at commit abc on <cpu> & co");
        assert!(chart.contains(">52.7% (3.74M against 7.10M/s)</text>"), "{chart}");
        assert!(chart.contains("2026-11-26 Measured at commit abc on &lt;cpu> &amp; co</text>"), "{chart}");
        assert_eq!((rate(812_345.0), rate(95.2)), ("812k".to_string(), "95".to_string()));
    }

    #[test]
    fn reads_report_values_and_formats_numbers() {
        let report = "version=x\nrolloutsPerSec=1234.5\naverageGoals=a:1\n";
        assert_eq!(report_value(report, "rolloutsPerSec"), Some("1234.5"));
        assert_eq!(report_value(report, "numRollouts"), None);
        assert_eq!(thousands(1234567.4), "1,234,567");
        assert_eq!(thousands(999.0), "999");
    }

    #[test]
    fn table_and_chart_show_the_ratio() {
        let rows = [Row { game: "g".into(), compiled: 50.0, handwritten: 200.0, compiled_two_threads: 90.0 }];
        let table = table(&rows, 1.0);
        assert!(table.contains("| g | 50 | 200 | 0.250 | 90 | 1.80 |"), "{table}");
        let chart = svg(&rows, "");
        assert!(chart.starts_with("<svg") && chart.contains("25.0%") && chart.ends_with("</svg>\n"), "{chart}");
    }
}
