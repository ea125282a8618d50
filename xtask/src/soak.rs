//! `cargo xtask soak [--matches N] [--playclock S]`: a soak of the player under faults. One
//! `gdlc serve` (with ticTacToe compiled, so that it has a native backend) plays N short
//! matches of ticTacToe against a random player, run by `gdlc match`; every few matches a fault
//! is injected beside the match: its backend killed, a manager that vanishes mid-match, 64
//! slow clients, or a START of a game that grounding refuses and that explodes in the
//! interpreter. At the end every match must have completed or expired (every abandoned match by
//! name in the player's log), the player must have survived every heavy START and still be
//! running and available, and its memory must not have kept growing over the second half of
//! the soak.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the soak runs.
pub(crate) struct Options {
    matches: usize,
    play_clock: f64,
}

impl Options {
    pub(crate) fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options { matches: 200, play_clock: 0.25 };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let value = args.next().ok_or_else(|| format!("{arg} needs a value"))?;
            match arg.as_str() {
                "--matches" => options.matches = value.parse().map_err(|_| format!("bad --matches {value}"))?,
                "--playclock" => options.play_clock = value.parse().map_err(|_| format!("bad --playclock {value}"))?,
                other => {
                    return Err(format!(
                        "unknown option `{other}`; usage: cargo xtask soak [--matches N] [--playclock S]"
                    ))
                }
            }
        }
        Ok(options)
    }
}

/// The fault injected beside a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    None,
    BackendKilled,
    ManagerGone,
    SlowClients,
    HeavyStart,
}

impl Fault {
    fn of(match_number: usize) -> Fault {
        match match_number % 10 {
            2 => Fault::BackendKilled,
            4 => Fault::ManagerGone,
            6 => Fault::SlowClients,
            8 => Fault::HeavyStart,
            _ => Fault::None,
        }
    }
}

/// A process killed when dropped.
struct Process {
    child: Child,
    url: String,
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A game that grounding refuses (its legal moves in `hot` are 50^6, past the grounder's limit,
/// which it finds after seconds and much memory) and that explodes in the interpreter: from
/// `on`, `terminal` derives 50^6 facts of `big`, and in `hot` the legal moves themselves are
/// 50^6. The interpreter plays it within its limits: a search that runs into them, then an
/// error in `hot`.
fn explosive_game() -> String {
    let values: String = (1..=50).map(|n| format!("(val {n}) ")).collect();
    format!(
        "(role p) (init (off)) {values} \
         (<= (big ?a ?b ?c ?d ?e ?f) (true (on)) (val ?a) (val ?b) (val ?c) (val ?d) (val ?e) (val ?f)) \
         (<= (legal p flip) (true (off))) (<= (legal p wait) (true (off))) \
         (<= (legal p (pick ?a)) (true (on)) (val ?a)) \
         (<= (legal p (go ?a ?b ?c ?d ?e ?f)) (true (hot)) (val ?a) (val ?b) (val ?c) (val ?d) (val ?e) (val ?f)) \
         (<= (next (on)) (does p flip)) (<= (next (off)) (does p wait)) (<= (next (hot)) (does p (pick ?a))) \
         (<= terminal (big ?a ?b ?c ?d ?e ?f)) \
         (<= (goal p 100) (true (on))) (<= (goal p 0) (not (true (on))))"
    )
}

/// Plays the first moves of the explosive game on the side, into `on` and then `hot`, and
/// abandons the match there, which must expire.
fn heavy_match(url: &str, n: usize) {
    let start = post(url, &format!("(START soak-heavy-{n} p ({}) 2 1)", explosive_game()));
    if start == "ready" {
        for moves in ["NIL", "(flip)", "((pick 3))"] {
            let _ = post(url, &format!("(PLAY soak-heavy-{n} {moves})"));
        }
    }
}

fn start_player(gdlc: &Path, args: &[&str], log: &Path) -> Result<Process, String> {
    let log = std::fs::File::create(log).map_err(|e| e.to_string())?;
    let mut child = Command::new(gdlc)
        .args(["serve", "--port", "0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", gdlc.display()))?;
    let mut line = String::new();
    let stdout = child.stdout.take().ok_or("no stdout")?;
    BufReader::new(stdout).read_line(&mut line).map_err(|e| e.to_string())?;
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).ok_or(line.clone())?.to_string();
    Ok(Process { child, url })
}

fn address(url: &str) -> String {
    url.trim_start_matches("http://").trim_end_matches('/').to_string()
}

/// POSTs a message and returns the reply's body, or the empty string.
fn post(url: &str, body: &str) -> String {
    let Ok(mut stream) = TcpStream::connect(address(url)) else { return String::new() };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(60)));
    let _ = write!(stream, "POST / HTTP/1.0\r\nContent-Length: {}\r\n\r\n{body}", body.len());
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    reply.split_once("\r\n\r\n").map_or(String::new(), |(_, b)| b.to_string())
}

/// The resident memory of a process and its children, in MB (Linux).
fn memory_mb(pid: u32) -> u64 {
    let rss = |pid: &str| {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).map(str::to_string).unwrap_or_default();
        line.split_whitespace().nth(1).and_then(|kb| kb.parse::<u64>().ok()).unwrap_or(0)
    };
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    let kb = rss(&pid.to_string()) + children.split_whitespace().map(rss).sum::<u64>();
    kb / 1024
}

fn kill_children(pid: u32) {
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    for child in children.split_whitespace() {
        let _ = Command::new("kill").args(["-9", child]).status();
    }
}

/// Starts the fault of a match; what it returns is dropped when the match is over.
fn inject(fault: Fault, player: &Process, n: usize) -> Option<(Arc<AtomicBool>, Vec<std::thread::JoinHandle<()>>)> {
    let stop = Arc::new(AtomicBool::new(false));
    let url = player.url.clone();
    let threads = match fault {
        Fault::None => return None,
        Fault::BackendKilled => {
            kill_children(player.child.id());
            return None;
        }
        Fault::ManagerGone => {
            let rules = std::fs::read_to_string(game_path("ticTacToe")).unwrap_or_default();
            let _ = post(&url, &format!("(START soak-gone-{n} oplayer ({rules}) 2 1)"));
            let _ = post(&url, &format!("(PLAY soak-gone-{n} NIL)"));
            return None;
        }
        Fault::HeavyStart => vec![std::thread::spawn(move || heavy_match(&url, n))],
        Fault::SlowClients => (0..64)
            .map(|_| {
                let (url, stop) = (url.clone(), Arc::clone(&stop));
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let Ok(mut stream) = TcpStream::connect(address(&url)) else { continue };
                        for byte in b"POST / HTTP/1.0\r\nContent-Length: 6\r\n\r\n(PING)".iter().cycle() {
                            if stop.load(Ordering::Relaxed) || stream.write_all(&[*byte]).is_err() {
                                break;
                            }
                            std::thread::sleep(Duration::from_millis(250));
                        }
                    }
                })
            })
            .collect(),
    };
    Some((stop, threads))
}

fn game_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../games").join(format!("{name}.kif"))
}

/// The result of one match: whether it completed, and how many of the player's moves were
/// replaced.
fn play_match(gdlc: &Path, player: &Process, opponent: &Process, n: usize, clock: f64, dir: &Path) -> (bool, usize) {
    let record = dir.join(format!("match{n}.json"));
    let ours = n % 2;
    let urls = if ours == 0 { [&player.url, &opponent.url] } else { [&opponent.url, &player.url] };
    let clock = clock.to_string();
    let out = Command::new(gdlc)
        .arg("match")
        .arg(game_path("ticTacToe"))
        .args(["--player", urls[0], "--player", urls[1], "--startclock", "2", "--playclock", &clock, "--record"])
        .arg(&record)
        .output();
    let Ok(out) = out else { return (false, 0) };
    let text = String::from_utf8_lossy(&out.stdout);
    let substitutions = text.lines().find_map(|l| l.strip_prefix("substitutions: ")).unwrap_or_default();
    let lost = substitutions.split(' ').nth(ours).and_then(|s| s.parse().ok()).unwrap_or(usize::MAX);
    (out.status.success(), lost)
}

/// What the matches of the soak came to.
#[derive(Default)]
struct Tally {
    completed: usize,
    lost_clean: usize,
    lost_attacked: usize,
    /// The heavy STARTs after which the player did not answer PING.
    deaths: Vec<usize>,
    /// The player's memory in MB after so many matches, once the abandoned ones expired.
    memory: Vec<(usize, u64)>,
}

/// The abandoned matches expire within three clocks and ten seconds.
const SETTLE: Duration = Duration::from_secs(20);

/// Runs the soak and prints its figures; an error when a match neither completed nor expired,
/// the player died, a move was lost in a match that was not under attack, or the player's
/// memory kept growing.
pub(crate) fn run(root: &Path, options: &Options) -> Result<(), String> {
    let gdlc = build(root)?;
    let dir = std::env::temp_dir().join(format!("gdlc-soak-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let log = dir.join("player.log");
    let tic_tac_toe = game_path("ticTacToe").display().to_string();
    let player = start_player(&gdlc, &["--no-native", &tic_tac_toe], &log)?;
    let opponent = start_player(&gdlc, &["--no-native", "--player", "random", "-q"], &dir.join("opponent.log"))?;
    let started = Instant::now();
    let tally = play_all(&gdlc, &player, &opponent, options, &dir);
    let info = post(&player.url, "(INFO)");
    let alive = post(&player.url, "(PING)") == "ready";
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let unexpired = unexpired(&text, options.matches);
    let heavy = heavy_outcomes(&text, options.matches);
    println!(
        "soak: {} matches in {:.0} s, play clock {} s",
        options.matches,
        started.elapsed().as_secs_f64(),
        options.play_clock
    );
    println!(
        "completed: {}; abandoned matches expired: {}; player alive: {alive}; INFO: {info}",
        tally.completed,
        text.lines().filter(|l| l.contains("expired")).count()
    );
    println!(
        "moves lost: {} in matches without a fault, {} in matches under a fault",
        tally.lost_clean, tally.lost_attacked
    );
    println!(
        "heavy STARTs: {} played by the interpreter, {} refused, {} otherwise; player dead after: {:?}",
        heavy.interpreted, heavy.refused, heavy.otherwise, tally.deaths
    );
    let figures: Vec<String> = tally.memory.iter().map(|(n, mb)| format!("{mb} MB after {n}")).collect();
    let errors = text.lines().filter(|l| l.contains(" error: ")).count();
    println!("memory: {}; error lines in the log: {errors}", figures.join(", "));
    println!("abandoned matches that did not expire: {unexpired:?}");
    println!("log: {}", log.display());
    let failed = tally.completed != options.matches || !alive || tally.lost_clean > 0 || !info.contains("available");
    if failed || !tally.deaths.is_empty() || heavy.otherwise > 0 {
        return Err("the soak failed".to_string());
    }
    if !unexpired.is_empty() {
        return Err(format!("the soak failed: abandoned matches did not expire: {unexpired:?}"));
    }
    growth(&tally.memory).map_or(Ok(()), |e| Err(format!("the soak failed: {e}")))
}

/// Builds gdlc and returns the path of its binary.
fn build(root: &Path) -> Result<PathBuf, String> {
    let built = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "-p", "gdlc-cli"])
        .current_dir(root)
        .status()
        .map_err(|e| e.to_string())?;
    if !built.success() {
        return Err("cannot build gdlc".to_string());
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    Ok(target.join("release/gdlc"))
}

/// Plays the matches, each with its fault, and measures the player's memory at the end of
/// every quarter of them, once the abandoned matches have expired.
fn play_all(gdlc: &Path, player: &Process, opponent: &Process, options: &Options, dir: &Path) -> Tally {
    let mut tally = Tally::default();
    let quarters: Vec<usize> = (1..=4).map(|k| (options.matches * k / 4).max(1)).collect();
    for n in 0..options.matches {
        let fault = Fault::of(n);
        let injected = inject(fault, player, n);
        let (done, lost) = play_match(gdlc, player, opponent, n, options.play_clock, dir);
        if let Some((stop, threads)) = injected {
            stop.store(true, Ordering::Relaxed);
            threads.into_iter().for_each(|t| drop(t.join()));
        }
        if fault == Fault::HeavyStart && post(&player.url, "(PING)") != "ready" {
            tally.deaths.push(n);
        }
        tally.completed += usize::from(done);
        if fault == Fault::None {
            tally.lost_clean += lost;
        } else {
            tally.lost_attacked += lost.min(100);
        }
        if !done || (fault == Fault::None && lost > 0) {
            println!("match {n} ({fault:?}): completed {done}, moves lost {lost}");
        }
        if n == 4 || quarters.contains(&(n + 1)) {
            if n != 4 {
                std::thread::sleep(SETTLE);
            }
            tally.memory.push((n + 1, memory_mb(player.child.id())));
        }
    }
    tally
}

/// Why the player's memory counts as growing, if it does: it grew by more than 10 MB and a
/// tenth between the middle of the soak and its end. Each figure is taken once the abandoned
/// matches have expired, so it holds what the player keeps, not a heavy match in flight. The
/// figures of a run go up and down by a few MB (the allocator's free lists, the engine kept
/// per game), and the first matches fill what the player keeps by design (the engines of
/// recent games, the thread-local evaluation state); a leak of the size the soak once showed
/// (74 MB over 200 matches) adds some 37 MB over the second half, past the slack.
fn growth(memory: &[(usize, u64)]) -> Option<String> {
    let middle = memory.iter().rev().nth(2)?;
    let end = memory.last()?;
    let slack = 10 + middle.1 / 10;
    (end.1 > middle.1 + slack).then(|| {
        format!(
            "memory grew from {} MB after {} matches to {} MB after {}, past {slack} MB",
            middle.1, middle.0, end.1, end.0
        )
    })
}

/// What became of the heavy STARTs, by the player's log.
struct Heavy {
    interpreted: usize,
    refused: usize,
    otherwise: usize,
}

fn heavy_outcomes(log: &str, matches: usize) -> Heavy {
    let mut heavy = Heavy { interpreted: 0, refused: 0, otherwise: 0 };
    for n in (0..matches).filter(|&n| Fault::of(n) == Fault::HeavyStart) {
        let start = format!("match soak-heavy-{n}: START");
        if log.lines().any(|l| l.contains(&start) && l.contains("interpreter")) {
            heavy.interpreted += 1;
        } else if log.lines().any(|l| l.contains(&format!("cannot play match soak-heavy-{n}:"))) {
            heavy.refused += 1;
        } else {
            heavy.otherwise += 1;
        }
    }
    heavy
}

/// The abandoned matches (under "manager gone" or "heavy START") that the player's log does not
/// say expired or ended; a heavy START refused never became a match.
fn unexpired(log: &str, matches: usize) -> Vec<String> {
    let ended = |id: &str| {
        let started = log.lines().any(|l| l.contains(&format!("match {id}: START")));
        let refused = log.lines().any(|l| l.contains(&format!("cannot play match {id}:")));
        let over = log
            .lines()
            .any(|l| l.contains(&format!("match {id}: expired")) || l.contains(&format!("match {id}: STOP")));
        (!started && refused) || over
    };
    (0..matches)
        .filter_map(|n| match Fault::of(n) {
            Fault::ManagerGone => Some(format!("soak-gone-{n}")),
            Fault::HeavyStart => Some(format!("soak-heavy-{n}")),
            _ => None,
        })
        .filter(|id| !ended(id))
        .collect()
}
