//! `cargo xtask mcts-vs-random [--games DIR|FILES...] [--matches N] [--clock-ms MS]
//! [--start-ms MS] [--per-role] [--seed N]`: plays MCTS against random players in process, with
//! no HTTP, and prints a table of how MCTS fared in every game (`iter/mv` is the median of the
//! iterations of MCTS's searches).
//!
//! In each match MCTS plays one role and random players all the others; MCTS moves through the
//! roles match by match, so that over the matches every role is played by MCTS and by random
//! players alike. MCTS's mean goal is compared with the random players' mean goal in the same
//! roles: in a game whose roles are not equally strong (the first mover's advantage, a
//! non-zero-sum game where every role can score 100) this is the only fair baseline. A game with
//! one player role has no random opponent to compare with, so it is also played by random
//! players alone, as many times.
//!
//! Games run through the program engine (`gdlc::compile::load_engine`), or through the
//! interpreter when grounding fails or when it wins a race of the two engines, as in
//! `gdlc serve` (`gdlc::engine::race`, for programs that prove atoms at run time). GDL-II games are played by the sampling player over its
//! belief, with the game's `random` role left out of the rotation and of the means. rtGDL games
//! are skipped.

use gdl_player::belief::Belief;
use gdl_player::player::mcts::MctsPlayer;
use gdl_player::player::sampling::SamplingPlayer;
use gdl_player::player::{Kind, Player};
use gdl_runtime::rng::Rng;
use gdl_runtime::Game;
use gdlc::interp::Interpreter;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The usage line of the command.
const USAGE: &str =
    "usage: cargo xtask mcts-vs-random [--games DIR|FILES...] [--matches N] [--clock-ms MS] [--start-ms MS] [--per-role] [--seed N]";

/// The most steps one match is played for; a match cut there scores the goals of its last state.
const MAX_STEPS: usize = 2_000;

/// The command line of `mcts-vs-random`.
#[derive(Debug, PartialEq)]
pub(crate) struct Options {
    /// Game files, and folders whose `*.kif` files (not those of subfolders) are played.
    pub games: Vec<PathBuf>,
    pub matches: usize,
    /// MCTS's play clock: the time it has for each of its moves.
    pub clock: Duration,
    /// MCTS's start clock: the time it may think before the first move (a puzzle's solver
    /// uses it; the tree search does not).
    pub start: Duration,
    /// Whether to print a line per role under each game.
    pub per_role: bool,
    pub seed: u64,
}

impl Options {
    /// Parses the arguments after `mcts-vs-random`; the games default to `root/games`.
    pub(crate) fn parse(args: &[String], root: &Path) -> Result<Options, String> {
        let mut options = Options {
            games: Vec::new(),
            matches: 20,
            clock: Duration::from_millis(100),
            start: Duration::from_secs(10),
            per_role: false,
            seed: 1,
        };
        let mut args = args.iter().peekable();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--games" => {
                    while let Some(game) = args.next_if(|a| !a.starts_with("--")) {
                        options.games.push(PathBuf::from(game));
                    }
                }
                "--matches" => options.matches = number(args.next(), "--matches")?,
                "--clock-ms" => options.clock = Duration::from_millis(number(args.next(), "--clock-ms")?),
                "--start-ms" => options.start = Duration::from_millis(number(args.next(), "--start-ms")?),
                "--seed" => options.seed = number(args.next(), "--seed")?,
                "--per-role" => options.per_role = true,
                other => return Err(format!("unknown option `{other}`; {USAGE}")),
            }
        }
        if options.games.is_empty() {
            options.games.push(root.join("games"));
        }
        Ok(options)
    }
}

/// A positive number given after `flag`.
fn number<T: std::str::FromStr + Default + PartialOrd>(value: Option<&String>, flag: &str) -> Result<T, String> {
    let value = value.ok_or_else(|| format!("{flag} needs a number"))?;
    value
        .parse()
        .ok()
        .filter(|n| *n > T::default())
        .ok_or_else(|| format!("{flag} needs a positive number, not `{value}`"))
}

/// The game files that `paths` name, folders expanded to their `*.kif` files in name order.
fn game_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let entries = std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "kif"))
            .collect();
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

/// One match's result.
struct Outcome {
    goals: Vec<u32>,
    /// The iterations of each of the MCTS player's searches (moves with a choice).
    iterations: Vec<u64>,
    /// Whether the match reached [`MAX_STEPS`] before a terminal state.
    cut: bool,
}

/// A role's goals summed over the matches it was played in, by MCTS and by random players.
#[derive(Clone, Copy, Default)]
struct RoleTally {
    mcts: f64,
    mcts_matches: usize,
    random: f64,
    random_matches: usize,
}

/// What a game's matches add up to.
#[derive(Default)]
struct Tally {
    roles: Vec<(String, RoleTally)>,
    matches: usize,
    /// Matches in which MCTS scored more than every other player role (or, alone, 100).
    wins: usize,
    /// The iterations of every search of MCTS.
    iterations: Vec<u64>,
    cut: usize,
}

impl Tally {
    fn new<G: Game>(game: &G) -> Tally {
        let roles = (0..game.num_roles()).map(|r| (game.role_name(r).to_string(), RoleTally::default())).collect();
        Tally { roles, ..Tally::default() }
    }

    /// Takes in a match in which MCTS played `mcts` (none: random players alone) and `players`
    /// were the roles played by players.
    fn add(&mut self, outcome: &Outcome, mcts: Option<usize>, players: &[usize]) {
        for &role in players {
            let goal = f64::from(outcome.goals[role]);
            let tally = &mut self.roles[role].1;
            if Some(role) == mcts {
                (tally.mcts, tally.mcts_matches) = (tally.mcts + goal, tally.mcts_matches + 1);
            } else {
                (tally.random, tally.random_matches) = (tally.random + goal, tally.random_matches + 1);
            }
        }
        let Some(mcts) = mcts else { return };
        self.matches += 1;
        let mine = outcome.goals[mcts];
        let others = players.iter().filter(|&&r| r != mcts).map(|&r| outcome.goals[r]).max();
        self.wins += usize::from(others.map_or(mine == 100, |best| mine > best));
        self.iterations.extend_from_slice(&outcome.iterations);
        self.cut += usize::from(outcome.cut);
    }

    /// MCTS's mean goal, and the random players' mean goal in the same roles, each role
    /// weighted by the number of matches MCTS played it.
    fn means(&self) -> (f64, f64) {
        let matches = self.matches.max(1) as f64;
        let mcts: f64 = self.roles.iter().map(|(_, t)| t.mcts).sum::<f64>() / matches;
        let random: f64 = self
            .roles
            .iter()
            .filter(|(_, t)| t.mcts_matches > 0)
            .map(|(_, t)| t.random / t.random_matches.max(1) as f64 * t.mcts_matches as f64)
            .sum::<f64>()
            / matches;
        (mcts, random)
    }
}

/// A match's clocks: the time before the first move, and the time for each move.
#[derive(Clone, Copy)]
struct Clocks {
    start: Duration,
    play: Duration,
}

/// Every role's stream of random moves in the match of `seed`: a stream per role, so that what
/// one role draws does not depend on how many moves the others drew.
fn role_rngs<G: Game>(game: &G, seed: u64) -> Vec<Rng> {
    (0..game.num_roles() as u64)
        .map(|role| Rng::seeded(seed.rotate_left(32) ^ 0x5eed ^ role.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
        .collect()
}

/// Plays one match: MCTS in role `mcts` (none: random players only), random players in the
/// others.
fn play_match<G: Game>(game: &G, mcts: Option<usize>, seed: u64, clocks: Clocks) -> Result<Outcome, String> {
    let mut player = MctsPlayer::new(seed);
    let mut rngs = role_rngs(game, seed);
    let mut outcome = Outcome { goals: Vec::new(), iterations: Vec::new(), cut: false };
    let (mut state, mut legal, mut joint) = (game.initial_state(), Vec::new(), Vec::new());
    if let Some(role) = mcts {
        player.prepare(game, &state, role, Instant::now() + clocks.start);
    }
    let clock = clocks.play;
    for step in 0.. {
        if game.is_terminal(&state) {
            break;
        }
        game.all_legal_moves(&state, &mut legal);
        if legal.iter().any(Vec::is_empty) {
            break;
        }
        if step == MAX_STEPS {
            outcome.cut = true;
            break;
        }
        joint.clear();
        for (role, moves) in legal.iter().enumerate() {
            if Some(role) != mcts {
                joint.push(moves[rngs[role].below(moves.len())].clone());
                continue;
            }
            let chosen = player.choose(game, &state, role, Instant::now() + clock);
            let chosen = chosen.filter(|m| moves.contains(m)).ok_or("MCTS chose no legal move")?;
            if moves.len() > 1 {
                outcome.iterations.push(player.last_iterations);
            }
            joint.push(chosen);
        }
        state = game.next_state(&state, &joint);
    }
    outcome.goals = game.goals(&state).iter().map(|g| g.unwrap_or(0)).collect();
    Ok(outcome)
}

/// Plays one match of a GDL-II game: the sampling player in role `mcts` (none: random players
/// only), choosing from its belief, which takes in its move and percepts at the start of its
/// next turn (as the protocol's PLAY does); random players in the other roles, and the game's
/// `random` role drawn uniformly.
fn play_gdl2_match<G: Game>(game: &G, mcts: Option<usize>, seed: u64, clocks: Clocks) -> Result<Outcome, String> {
    let mut player = SamplingPlayer::new(Kind::Mcts, seed);
    let mut belief = mcts.map(|role| Belief::new(game, role, seed.rotate_left(17)));
    let mut rngs = role_rngs(game, seed);
    let clock = clocks.play;
    let mut outcome = Outcome { goals: Vec::new(), iterations: Vec::new(), cut: false };
    let (mut state, mut legal, mut joint) = (game.initial_state(), Vec::new(), Vec::new());
    let mut seen: Option<(G::Move, Vec<String>)> = None;
    for step in 0.. {
        if game.is_terminal(&state) {
            break;
        }
        game.all_legal_moves(&state, &mut legal);
        if legal.iter().any(Vec::is_empty) {
            break;
        }
        if step == MAX_STEPS {
            outcome.cut = true;
            break;
        }
        joint.clear();
        for (role, moves) in legal.iter().enumerate() {
            let (Some(belief), true) = (belief.as_mut(), Some(role) == mcts) else {
                joint.push(moves[rngs[role].below(moves.len())].clone());
                continue;
            };
            // As a session does, the belief takes half the clock at most, the search the rest.
            let deadline = Instant::now() + clock;
            if let Some((own, percepts)) = seen.take() {
                belief.update(game, &own, &percepts, Instant::now() + clock / 2);
            }
            let chosen = player.choose(game, belief, role, deadline);
            let chosen = chosen.filter(|m| moves.contains(m)).ok_or("the sampling player chose no legal move")?;
            if moves.len() > 1 {
                outcome.iterations.push(player.last_iterations);
            }
            joint.push(chosen);
        }
        if let Some(role) = mcts {
            let mut percepts = Vec::new();
            game.percepts(&state, &joint, role, &mut percepts);
            seen = Some((joint[role].clone(), percepts));
        }
        state = game.next_state(&state, &joint);
    }
    outcome.goals = game.goals(&state).iter().map(|g| g.unwrap_or(0)).collect();
    Ok(outcome)
}

/// Plays `options.matches` matches of `game`, MCTS moving through the player roles, and (for
/// a game with one player role) as many matches of random players alone.
fn play_game<G: Game>(game: &G, name: &str, options: &Options) -> Result<Tally, String> {
    let players: Vec<usize> = (0..game.num_roles()).filter(|&r| Some(r) != game.random_role()).collect();
    if players.is_empty() {
        return Err("no role for a player".to_string());
    }
    let play = if game.is_gdl_ii() { play_gdl2_match::<G> } else { play_match::<G> };
    let mut tally = Tally::new(game);
    let base = options.seed
        ^ name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    for index in 0..options.matches {
        let mcts = players[index % players.len()];
        let seed = base.wrapping_add(index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        progress(&format!("{name}: match {}/{}", index + 1, options.matches));
        let clocks = Clocks { start: options.start, play: options.clock };
        tally.add(&play(game, Some(mcts), seed, clocks)?, Some(mcts), &players);
        if players.len() == 1 {
            // The same seed: the roles that random players play in both matches draw the same
            // moves while they have the same choices (the car behind the same door), so that
            // the two matches differ by MCTS's choices more than by chance.
            tally.add(&play(game, None, seed, clocks)?, None, &players);
        }
    }
    progress("");
    Ok(tally)
}

/// Shows `what` on the terminal's last line, when standard error is a terminal.
fn progress(what: &str) {
    if std::io::stderr().is_terminal() {
        eprint!("\r{what:<60}\r");
    }
}

/// How a game was played, or why it was not.
enum Played {
    Played { engine: &'static str, tally: Tally },
    Skipped(String),
}

/// How long each engine runs when a game's two engines race.
const RACE_TIME: Duration = Duration::from_millis(1500);

/// Loads `path` and plays it through the program engine, or the interpreter when grounding
/// fails or when the interpreter wins a race against a program that proves atoms at run time.
fn play_file(path: &Path, options: &Options) -> Result<Played, String> {
    let loaded = gdlc::load::load_valid(path)?;
    if gdlc::realtime::is_realtime(&loaded.description) {
        return Ok(Played::Skipped("rtGDL (real-time) game".to_string()));
    }
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    match gdlc::compile::load_engine(&loaded.source, &gdlc::ground::Options::default()) {
        Ok(game) if gdlc::engine::worth_racing(&game) => {
            // As `gdlc serve` does at START: the faster of the two engines plays.
            let interp = Interpreter::new(&loaded.description).map_err(|e| e.to_string())?;
            let race = gdlc::engine::race(&game, &interp, RACE_TIME);
            eprintln!(
                "{name}: state changes/s: program engine {:.0}, interpreter {:.0}",
                race.program, race.interpreter
            );
            if race.interpreter_wins() {
                return Ok(Played::Played { engine: "interp", tally: play_game(&interp, &name, options)? });
            }
            Ok(Played::Played { engine: "program", tally: play_game(&game, &name, options)? })
        }
        Ok(game) => Ok(Played::Played { engine: "program", tally: play_game(&game, &name, options)? }),
        Err(e) => {
            eprintln!("{name}: not grounded ({e}); playing through the interpreter");
            let interp = Interpreter::new(&loaded.description).map_err(|e| e.to_string())?;
            Ok(Played::Played { engine: "interp", tally: play_game(&interp, &name, options)? })
        }
    }
}

/// Plays every game and prints the table; fails when a game cannot be played at all.
pub(crate) fn run(options: &Options) -> Result<(), String> {
    let files = game_files(&options.games)?;
    println!(
        "MCTS against random players: {} matches a game, {} ms a move",
        options.matches,
        options.clock.as_millis()
    );
    println!("{}", load_average());
    println!(
        "{:<24} {:>5} {:<7} {:>7} {:>6} {:>6} {:>6} {:>5} {:>8}  beats random",
        "game", "roles", "engine", "matches", "mcts", "random", "diff", "wins", "iter/mv"
    );
    let (mut beaten, mut played, mut failures) = (0, 0, 0);
    for path in &files {
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let started = Instant::now();
        match play_file(path, options) {
            Ok(Played::Played { engine, tally }) => {
                let (mcts, random) = tally.means();
                played += 1;
                beaten += usize::from(mcts > random);
                print_row(&name, engine, &tally, started.elapsed());
                if options.per_role {
                    print_roles(&tally);
                }
            }
            Ok(Played::Skipped(reason)) => println!("{name:<24} skipped: {reason}"),
            Err(e) => {
                failures += 1;
                println!("{name:<24} failed: {}", e.lines().next().unwrap_or_default());
            }
        }
    }
    println!("MCTS beat random on average in {beaten} of {played} games played");
    println!("{}", load_average());
    if failures > 0 {
        return Err(format!("{failures} game(s) could not be played"));
    }
    Ok(())
}

fn print_row(name: &str, engine: &str, tally: &Tally, took: Duration) {
    let (mcts, random) = tally.means();
    // The median: a search near the end of a game, where every line ends at once, can run a
    // million iterations and would make a mean say nothing of the rest.
    let mut sorted = tally.iterations.clone();
    sorted.sort_unstable();
    let iterations = sorted.get(sorted.len() / 2).copied().unwrap_or(0);
    let verdict = if mcts > random { "yes" } else { "NO" };
    let cut = if tally.cut > 0 { format!(", {} cut at {MAX_STEPS} steps", tally.cut) } else { String::new() };
    println!(
        "{name:<24} {:>5} {engine:<7} {:>7} {mcts:>6.1} {random:>6.1} {:>+6.1} {:>5} {iterations:>8}  {verdict} ({:.0} s{cut})",
        tally.roles.len(),
        tally.matches,
        mcts - random,
        tally.wins,
        took.as_secs_f64()
    );
}

/// A line per role: MCTS's mean goal in it against the random players' mean goal in it.
fn print_roles(tally: &Tally) {
    let mean = |sum: f64, n: usize| if n == 0 { f64::NAN } else { sum / n as f64 };
    for (role, t) in tally.roles.iter().filter(|(_, t)| t.mcts_matches + t.random_matches > 0) {
        let (m, r) = (mean(t.mcts, t.mcts_matches), mean(t.random, t.random_matches));
        println!("    {role:<20} mcts {m:>6.1} ({:>2})  random {r:>6.1} ({:>2})", t.mcts_matches, t.random_matches);
    }
}

/// The machine's load average, since the matches share it with whatever else runs.
fn load_average() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let fields: Vec<&str> = text.split_whitespace().take(3).collect();
    format!("load average: {}", if fields.is_empty() { "unknown".to_string() } else { fields.join(" ") })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn options_default_to_the_games_folder() {
        let options = Options::parse(&[], Path::new("/r")).unwrap();
        assert_eq!(options.games, vec![PathBuf::from("/r/games")]);
        assert_eq!((options.matches, options.clock), (20, Duration::from_millis(100)));
    }

    #[test]
    fn options_read_several_games_then_flags() {
        let options = Options::parse(&args("--games a.kif b --matches 4 --clock-ms 50 --per-role"), Path::new("/r"));
        let options = options.unwrap();
        assert_eq!(options.games, vec![PathBuf::from("a.kif"), PathBuf::from("b")]);
        assert_eq!((options.matches, options.clock, options.per_role), (4, Duration::from_millis(50), true));
        assert!(Options::parse(&args("--matches 0"), Path::new("/r")).is_err());
        assert!(Options::parse(&args("--bogus"), Path::new("/r")).is_err());
    }

    #[test]
    fn the_random_baseline_weighs_roles_as_mcts_played_them() {
        // Role 0 is strong (90 for anyone), role 1 weak (10): MCTS at 90 and 10 is no better.
        let mut tally = Tally {
            roles: vec![("a".into(), RoleTally::default()), ("b".into(), RoleTally::default())],
            ..Tally::default()
        };
        let outcome = |goals: Vec<u32>| Outcome { goals, iterations: Vec::new(), cut: false };
        tally.add(&outcome(vec![90, 10]), Some(0), &[0, 1]);
        tally.add(&outcome(vec![90, 10]), Some(1), &[0, 1]);
        assert_eq!(tally.means(), (50.0, 50.0));
        assert_eq!(tally.wins, 1);
    }
}
