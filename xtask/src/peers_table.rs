//! `cargo xtask bench-table --peers [DIR] [--seconds N] [--rounds R] [--setup-limit S]
//! [GAME...]`: gdlc beside Sancho, the fastest Java propnet, on the games people use to compare
//! reasoners, measured by gdl-perf's method side by side in one run: random rollouts for N
//! seconds, gdlc through `gdlc perf-test` (the compiled game, whichever form `auto` picks) and
//! Sancho through `SanchoPerf` of `../shared/tools/peers` (built outside the repository into
//! DIR, by default `/tmp/peers`; its setup is not timed, as gdl-perf does not time it). Rounds
//! alternate the two engines game by game and each figure is the median of its rounds. Prints
//! a Markdown table with the ratio, the load before each game and the commit and machine.
//! Without Sancho's harness it prints gdlc's figures and says why Sancho's are missing.
//!
//! The table also gives each engine's setup: Sancho's as it reports it (`setupSeconds`, its
//! propnet built and optimised), gdlc's as the time `gdlc perf-test` takes before its measured
//! seconds on a copy of the game with a fact of its own (of a relation no rule reads), so that
//! its binary is not in gdlc's cache, whose key is the parsed rules (a comment would not do):
//! checking, grounding, generating and building the game's crate, the runtime's crates being
//! built already, as they are once gdlc has built any game. Each such build stays in gdlc's
//! cache.

use crate::prover_compare::{key, run_for};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The games of issue 26: the large games of competitions and papers, and a few others.
pub(crate) const GAMES: [&str; 20] = [
    "ticTacToe",
    "connectFour",
    "breakthrough",
    "pentago",
    "reversi",
    "chess_200",
    "hex",
    "skirmish",
    "shogi_ctk",
    "dotsAndBoxes",
    "gomoku_11x11",
    "knightThrough",
    "checkers",
    "othello-comp2007",
    "linesOfAction",
    "kalaha_2009",
    "chineseCheckers6",
    "alexChess",
    "amazons",
    "chess",
];

/// What the comparison runs.
#[derive(Debug, PartialEq)]
pub(crate) struct Options {
    pub(crate) peers: PathBuf,
    pub(crate) seconds: u32,
    pub(crate) rounds: usize,
    /// How long Sancho may take to set up a game before it is reported as having no result.
    pub(crate) setup_limit: u32,
    /// Whether gdlc builds each game profile-guided (`gdlc perf-test --pgo`).
    pub(crate) pgo: bool,
    pub(crate) games: Vec<String>,
}

impl Options {
    /// Parses the arguments after `bench-table --peers`.
    pub(crate) fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options {
            peers: PathBuf::from("/tmp/peers"),
            seconds: 10,
            rounds: 1,
            setup_limit: 300,
            pgo: false,
            games: Vec::new(),
        };
        let mut args = args.iter().peekable();
        let number = |value: Option<&String>, flag: &str| -> Result<u32, String> {
            let value = value.ok_or_else(|| format!("{flag} needs a number"))?;
            value
                .parse()
                .ok()
                .filter(|&n: &u32| n > 0)
                .ok_or_else(|| format!("{flag} needs a positive whole number, not `{value}`"))
        };
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--peers" => {
                    if let Some(dir) = args.next_if(|a| !a.starts_with("--")) {
                        options.peers = PathBuf::from(dir);
                    }
                }
                "--seconds" => options.seconds = number(args.next(), "--seconds")?,
                "--rounds" => options.rounds = number(args.next(), "--rounds")? as usize,
                "--setup-limit" => options.setup_limit = number(args.next(), "--setup-limit")?,
                "--pgo" => options.pgo = true,
                flag if flag.starts_with("--") => return Err(format!("unknown option `{flag}`")),
                game => options.games.push(game.to_string()),
            }
        }
        if options.games.is_empty() {
            options.games = GAMES.iter().map(|g| g.to_string()).collect();
        }
        Ok(options)
    }
}

/// One engine's figures on one game, or why there are none.
#[derive(Clone, Debug, PartialEq)]
enum Figure {
    /// Rollouts and state changes per second, and the seconds taken to set the game up.
    Rate {
        rollouts: f64,
        changes: f64,
        setup: Option<f64>,
    },
    Missing(String),
}

/// One game's row.
struct Row {
    game: String,
    form: String,
    load: String,
    gdlc: Figure,
    sancho: Figure,
}

/// Runs the comparison and prints its table.
pub(crate) fn run(root: &Path, options: &Options) -> Result<(), String> {
    // Built first, so that the figures are those of the code checked out: a binary left from
    // another branch would be measured under this commit's name.
    let gdlc = crate::codegen::build_release_gdlc(root)?;
    let harness = options.peers.join("run");
    let sancho_missing = (!harness.is_file()).then(|| {
        format!(
            "no Sancho harness at {}: build it with ../shared/tools/peers/build.sh from ggp-org/ggp-base and \
             AlexLandau/gdl-perf (see its README)",
            harness.display()
        )
    });
    if let Some(why) = &sancho_missing {
        eprintln!("note: {why}; gdlc's figures only");
    }
    let mut rows = Vec::new();
    for game in &options.games {
        let file = root.join("../shared/games").join(format!("{game}.kif"));
        eprintln!("{game}: measuring");
        let load = crate::bench_table::load_average().unwrap_or_else(|| "?".to_string());
        let form = form_of(&gdlc, &file);
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        for round in 0..options.rounds {
            ours.push(gdlc_rate(&gdlc, &file, options, round));
            theirs.push(match &sancho_missing {
                Some(why) => Figure::Missing(why.clone()),
                None => sancho_rate(&harness, &file, options),
            });
        }
        rows.push(Row { game: game.clone(), form, load, gdlc: median(ours), sancho: median(theirs) });
    }
    println!("{}", table(&rows, options));
    println!("{}", crate::bench_table::machine_line(root));
    Ok(())
}

/// The form `auto` picks for a game, from `gdlc compile`'s summary.
fn form_of(gdlc: &Path, game: &Path) -> String {
    let out = std::env::temp_dir().join(format!("gdlc-peers-{}.rs", std::process::id()));
    let summary = Command::new(gdlc).arg("compile").arg(game).arg("-o").arg(&out).output();
    let _ = std::fs::remove_file(&out);
    let text = summary.map(|o| String::from_utf8_lossy(&o.stderr).into_owned()).unwrap_or_default();
    form_in_summary(&text).to_string()
}

/// The form a `gdlc compile` summary names: `unknown` when it names none (the compilation
/// failed).
fn form_in_summary(summary: &str) -> &'static str {
    if summary.contains("table form") {
        "table"
    } else if summary.contains("straight") {
        "straight"
    } else if summary.contains("lifted form") {
        "lifted"
    } else {
        "unknown"
    }
}

/// gdlc's rate through `gdlc perf-test` on a copy of the game that no build has seen (see the
/// module's comment), with the time it took before its measured seconds as its setup.
fn gdlc_rate(gdlc: &Path, game: &Path, options: &Options, round: usize) -> Figure {
    let seconds = options.seconds;
    let Some(copy) = fresh_copy(game, round) else {
        return Figure::Missing(format!("cannot copy {} to a temporary directory", game.display()));
    };
    let out = std::env::temp_dir().join(format!("gdlc-peers-{}.txt", std::process::id()));
    let mut command = Command::new(gdlc);
    command.arg("perf-test").arg(&copy).arg(&out).arg(seconds.to_string());
    if options.pgo {
        command.arg("--pgo");
    }
    let started = std::time::Instant::now();
    let ran = run_for(&mut command, Duration::from_secs(u64::from(seconds) + 900));
    let wall = started.elapsed().as_secs_f64();
    let report = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    if let Some(dir) = copy.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
    match (ran, rate(&report)) {
        (Some(_), Some(Figure::Rate { rollouts, changes, .. })) => {
            let measured = key(&report, "millisecondsTaken").unwrap_or(0.0) / 1000.0;
            Figure::Rate { rollouts, changes, setup: Some((wall - measured).max(0.0)) }
        }
        (Some(_), _) => Figure::Missing("no figures in the report".to_string()),
        (None, _) => Figure::Missing("gdlc perf-test failed or took past its limit".to_string()),
    }
}

/// A copy of `game` under its own name in a directory of its own, with a fact that no other
/// copy has and no rule reads, so that gdlc builds its binary anew.
fn fresh_copy(game: &Path, round: usize) -> Option<PathBuf> {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos();
    let stamp = format!("copy_{}_{round}_{nanos}", std::process::id());
    let dir = std::env::temp_dir().join(format!("gdlc-peers-{stamp}"));
    std::fs::create_dir_all(&dir).ok()?;
    let copy = dir.join(game.file_name()?);
    let text = std::fs::read_to_string(game).ok()?;
    std::fs::write(&copy, format!("{text}\n(gdlc_bench_table_copy {stamp})\n")).ok()?;
    Some(copy)
}

/// Sancho's rate through the peers' `SanchoPerf`, its setup bounded by `--setup-limit`.
fn sancho_rate(harness: &Path, game: &Path, options: &Options) -> Figure {
    let mut command = Command::new(harness);
    command.arg("SanchoPerf").arg(game).arg(options.seconds.to_string());
    let limit = Duration::from_secs(u64::from(options.setup_limit + options.seconds + 30));
    match run_for(&mut command, limit) {
        Some(report) => match rate(&report) {
            Some(figure) => within_setup(figure, options.setup_limit),
            None => Figure::Missing("no figures in Sancho's report".to_string()),
        },
        None => Figure::Missing(format!("no result (setup past {} s, or failed)", options.setup_limit)),
    }
}

/// `figure`, unless its setup took longer than `limit` seconds: the process is given some time
/// past the limit to report, and a setup that overran it is no result (Sancho, out of time on
/// linesOfAction's 220 s setup, then reported millions of rollouts a second).
fn within_setup(figure: Figure, limit: u32) -> Figure {
    match figure {
        Figure::Rate { setup: Some(seconds), .. } if seconds > f64::from(limit) => {
            Figure::Missing(format!("no result (setup {seconds:.0} s, past {limit} s)"))
        }
        figure => figure,
    }
}

/// Rollouts and state changes per second from gdl-perf's keys.
fn rate(report: &str) -> Option<Figure> {
    let rollouts = key(report, "rolloutsPerSec")?;
    let changes = match key(report, "stateChangesPerSec") {
        Some(changes) => changes,
        None => key(report, "numStateChanges")? * 1000.0 / key(report, "millisecondsTaken")?.max(1.0),
    };
    Some(Figure::Rate { rollouts, changes, setup: key(report, "setupSeconds") })
}

/// The median of the rounds that gave figures (rates by rollouts, setups on their own), or the
/// first reason none did.
fn median(mut figures: Vec<Figure>) -> Figure {
    let first_missing = figures.iter().find(|f| matches!(f, Figure::Missing(_))).cloned();
    figures.retain(|f| matches!(f, Figure::Rate { .. }));
    let rollouts = |f: &Figure| if let Figure::Rate { rollouts, .. } = f { *rollouts } else { 0.0 };
    let mut setups: Vec<f64> =
        figures.iter().filter_map(|f| if let Figure::Rate { setup, .. } = f { *setup } else { None }).collect();
    setups.sort_by(f64::total_cmp);
    figures.sort_by(|a, b| rollouts(a).total_cmp(&rollouts(b)));
    let middle = figures.len() / 2;
    match figures.into_iter().nth(middle) {
        Some(Figure::Rate { rollouts, changes, .. }) => {
            Figure::Rate { rollouts, changes, setup: setups.get(setups.len() / 2).copied() }
        }
        _ => first_missing.unwrap_or_else(|| Figure::Missing("no round ran".to_string())),
    }
}

/// The Markdown table of the rows.
fn table(rows: &[Row], options: &Options) -> String {
    let mut out = format!(
        "gdlc{} beside Sancho 1.61c: random rollouts for {} s, median of {} round(s), engines alternating.\n\n\
         | game | gdlc form | gdlc rollouts/s | gdlc state changes/s | Sancho rollouts/s | gdlc / Sancho | gdlc setup s | Sancho setup s | load |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|\n",
        if options.pgo { " (built profile-guided: `--pgo`)" } else { "" },
        options.seconds,
        options.rounds
    );
    for row in rows {
        let shown = |f: &Figure| match f {
            Figure::Rate { rollouts, .. } => format!("{rollouts:.1}"),
            Figure::Missing(why) => why.clone(),
        };
        let changes = match &row.gdlc {
            Figure::Rate { changes, .. } => format!("{changes:.0}"),
            Figure::Missing(_) => "-".to_string(),
        };
        let ratio = match (&row.gdlc, &row.sancho) {
            (Figure::Rate { rollouts: a, .. }, Figure::Rate { rollouts: b, .. }) if *b > 0.0 => {
                format!("{:.2}×", a / b)
            }
            _ => "-".to_string(),
        };
        let setup = |f: &Figure| match f {
            Figure::Rate { setup: Some(seconds), .. } => format!("{seconds:.1}"),
            _ => "-".to_string(),
        };
        out += &format!(
            "| {} | {} | {} | {changes} | {} | {ratio} | {} | {} | {} |\n",
            row.game,
            row.form,
            shown(&row.gdlc),
            shown(&row.sancho),
            setup(&row.gdlc),
            setup(&row.sancho),
            row.load
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_is_read_from_the_summary_of_each_form() {
        let summary = |form: &str| format!("game.kif: 2 roles, 9 moves, {form}, 675 lines, 0.02 s, 10 MB peak");
        assert_eq!(form_in_summary(&summary("straight-line form")), "straight");
        assert_eq!(form_in_summary(&summary("table form")), "table");
        assert_eq!(form_in_summary(&summary("lifted form (the rules with variables, not ground)")), "lifted");
        assert_eq!(form_in_summary("error: the game has no role"), "unknown");
    }

    #[test]
    fn options_default_and_parse() {
        let options = Options::parse(&[]).unwrap();
        assert_eq!(options.peers, PathBuf::from("/tmp/peers"));
        assert_eq!(options.games.len(), GAMES.len());
        let args: Vec<String> =
            ["--peers", "/opt/peers", "--seconds", "3", "--rounds", "2", "hex"].iter().map(|s| s.to_string()).collect();
        let options = Options::parse(&args).unwrap();
        assert_eq!((options.peers.as_path(), options.seconds, options.rounds), (Path::new("/opt/peers"), 3, 2));
        assert_eq!(options.games, ["hex"]);
        assert!(!options.pgo);
        let args: Vec<String> = ["--pgo", "hex"].iter().map(|s| s.to_string()).collect();
        assert!(Options::parse(&args).unwrap().pgo);
        assert!(Options::parse(&["--seconds".to_string(), "0".to_string()]).is_err());
        assert!(Options::parse(&["--bogus".to_string()]).is_err());
    }

    #[test]
    fn reads_both_reports_and_takes_the_median() {
        let gdlc = "numStateChanges=2000\nmillisecondsTaken=1000\nrolloutsPerSec=10.5\n";
        assert_eq!(rate(gdlc), Some(Figure::Rate { rollouts: 10.5, changes: 2000.0, setup: None }));
        let sancho = "setupSeconds=1.0\nrolloutsPerSec=459\nstateChangesPerSec=91800\n";
        assert_eq!(rate(sancho), Some(Figure::Rate { rollouts: 459.0, changes: 91800.0, setup: Some(1.0) }));
        // The rate of the median round by rollouts, and the median of the setups on their own.
        let figures = [(3.0, 9.0), (1.0, 5.0), (2.0, 1.0)].map(|(r, s)| Figure::Rate {
            rollouts: r,
            changes: 0.0,
            setup: Some(s),
        });
        assert_eq!(median(figures.to_vec()), Figure::Rate { rollouts: 2.0, changes: 0.0, setup: Some(5.0) });
        let missing = Figure::Missing("setup".to_string());
        assert_eq!(median(vec![missing.clone()]), missing);
    }

    #[test]
    fn a_setup_past_the_limit_is_no_result() {
        let late = Figure::Rate { rollouts: 5_862_203.7, changes: 0.0, setup: Some(220.8) };
        assert_eq!(within_setup(late, 200), Figure::Missing("no result (setup 221 s, past 200 s)".to_string()));
        let timely = Figure::Rate { rollouts: 803.6, changes: 0.0, setup: Some(59.6) };
        assert_eq!(within_setup(timely.clone(), 200), timely);
    }
}
