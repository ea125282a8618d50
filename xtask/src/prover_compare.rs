//! `cargo xtask prover-compare [--seconds S] [--peers DIR] [GAME_DIR...]`: for every game, the
//! state changes per second of the engine the player uses from START (the program engine, or
//! the interpreter for a game that cannot be grounded) beside those of ggp-base's
//! `ProverStateMachine`, measured one after the other on the same game. The prover runs
//! through `ProverBench` of `../shared/tools/peers` (built outside the repository into
//! `--peers`, by default `/tmp/peers`). Prints a Markdown table and the games where the
//! player's engine is the slower.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// What the comparison runs.
pub(crate) struct Options {
    seconds: f64,
    peers: PathBuf,
    dirs: Vec<PathBuf>,
}

impl Options {
    pub(crate) fn parse(root: &Path, args: &[String]) -> Result<Options, String> {
        let mut options = Options { seconds: 2.0, peers: PathBuf::from("/tmp/peers"), dirs: Vec::new() };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--seconds" => {
                    let value = args.next().ok_or("--seconds needs a value")?;
                    options.seconds = value.parse().map_err(|_| format!("bad --seconds {value}"))?;
                }
                "--peers" => options.peers = PathBuf::from(args.next().ok_or("--peers needs a directory")?),
                dir => options.dirs.push(PathBuf::from(dir)),
            }
        }
        if options.dirs.is_empty() {
            options.dirs = vec![root.join("../shared/games"), root.join("../shared/games-edge-cases")];
        }
        Ok(options)
    }
}

/// One engine's figures on one game.
struct Rate {
    engine: &'static str,
    per_second: f64,
}

/// Runs a command with a time limit and returns its standard output, if it succeeded.
pub(crate) fn run_for(command: &mut Command, limit: Duration) -> Option<String> {
    let mut child = command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::null()).spawn().ok()?;
    let until = std::time::Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let mut out = String::new();
                std::io::Read::read_to_string(&mut child.stdout.take()?, &mut out).ok()?;
                return status.success().then_some(out);
            }
            Ok(None) if std::time::Instant::now() < until => std::thread::sleep(Duration::from_millis(50)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

pub(crate) fn key(report: &str, name: &str) -> Option<f64> {
    report.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix('=')?.trim().parse().ok())
}

/// The player's engine on `game`: the program engine, else the interpreter.
fn ours(gdlc: &Path, game: &Path, seconds: f64) -> Option<Rate> {
    let limit = Duration::from_secs_f64(seconds + 120.0);
    for (engine, arg) in [("program", "program"), ("interpreter", "interp")] {
        let mut command = Command::new(gdlc);
        command.arg("bench").arg(game).args(["--engine", arg, "--seconds", &seconds.to_string()]);
        if let Some(report) = run_for(&mut command, limit) {
            let changes = key(&report, "numStateChanges")?;
            let ms = key(&report, "millisecondsTaken")?.max(1.0);
            return Some(Rate { engine, per_second: changes * 1000.0 / ms });
        }
    }
    None
}

/// ggp-base's prover on `game`.
fn prover(peers: &Path, game: &Path, seconds: f64) -> Option<f64> {
    let mut command = Command::new(peers.join("run"));
    command.arg("ProverBench").arg(game).arg(seconds.to_string());
    let out = run_for(&mut command, Duration::from_secs_f64(seconds + 120.0))?;
    // `GAME prover: 2001 ms, 1234 state changes, 56 complete playouts`
    let rest = out.split("prover: ").nth(1)?;
    let mut numbers = rest.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty());
    let ms: f64 = numbers.next()?.parse().ok()?;
    let changes: f64 = numbers.next()?.parse().ok()?;
    Some(changes * 1000.0 / ms.max(1.0))
}

fn games(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut games: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().filter_map(Result::ok).map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "kif"))
        .collect();
    games.sort();
    games
}

/// Runs the comparison; an error when the prover's harness is missing or the player's engine is
/// slower than the prover on some game.
pub(crate) fn run(root: &Path, options: &Options) -> Result<(), String> {
    if !options.peers.join("run").is_file() {
        return Err(format!(
            "no prover harness at {}: build it with ../shared/tools/peers/build.sh (see its README)",
            options.peers.display()
        ));
    }
    let gdlc = crate::codegen::release_gdlc(root);
    println!("| game | engine | state changes/s | prover's | engine / prover |\n|---|---|---|---|---|");
    let mut slower = Vec::new();
    for game in games(&options.dirs) {
        let name = game.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let ours = ours(&gdlc, &game, options.seconds);
        let theirs = prover(&options.peers, &game, options.seconds);
        let (engine, rate) = ours.as_ref().map_or(("none", 0.0), |r| (r.engine, r.per_second));
        let shown = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.0}"));
        let ratio = theirs.filter(|t| *t > 0.0).map(|t| rate / t);
        let times = ratio.map_or("-".to_string(), |r| format!("{r:.1}×"));
        println!("| {name} | {engine} | {rate:.0} | {} | {times} |", shown(theirs));
        if theirs.is_some() && ratio.is_some_and(|r| r < 1.0) {
            slower.push(name);
        }
    }
    if slower.is_empty() {
        println!("\nno game where the player's engine is slower than the prover");
        Ok(())
    } else {
        Err(format!("slower than the prover on {}: {}", slower.len(), slower.join(", ")))
    }
}
