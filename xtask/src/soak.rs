//! `cargo xtask soak [--matches N] [--playclock S]`: a soak of the player under faults. One
//! `gdlc serve` (with ticTacToe compiled, so that it has a native backend) plays N short
//! matches of ticTacToe against a random player, run by `gdlc match`; every few matches a fault
//! is injected beside the match: its backend killed, a manager that vanishes mid-match, 64
//! slow clients, or a START whose game explodes when evaluated. At the end every match must
//! have completed or expired (every abandoned match by name in the player's log), the player
//! must still be running and available, and its memory must be back within 1.5 times what it
//! used after the first five matches, and 50 MB.

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

/// A game whose one state-dependent relation has 50^5 facts in every state: grounding refuses
/// it at once, and an unbounded evaluation of it exhausts the memory.
fn explosive_game() -> String {
    let numbers: String = (1..=50).map(|n| format!("(n {n}) ")).collect();
    let successors: String = (1..50).map(|n| format!("(succ {n} {}) ", n + 1)).collect();
    format!(
        "(role p) (init (s 1)) {numbers} {successors} \
         (<= (big ?a ?b ?c ?d ?e ?f) (true (s ?a)) (n ?b) (n ?c) (n ?d) (n ?e) (n ?f)) \
         (<= (legal p (go ?x)) (big ?x 1 1 1 1 ?x)) \
         (<= (next (s ?y)) (does p (go ?x)) (succ ?x ?y)) \
         (<= terminal (true (s 50))) (<= (goal p 100) (true (s 50))) (<= (goal p 0) (not (true (s 50))))"
    )
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
        Fault::HeavyStart => {
            let text = explosive_game();
            vec![std::thread::spawn(move || {
                let _ = post(&url, &format!("(START soak-heavy-{n} p ({text}) 2 1)"));
                let _ = post(&url, &format!("(PLAY soak-heavy-{n} NIL)"));
            })]
        }
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

/// Runs the soak and prints its figures; an error when a match neither completed nor expired,
/// the player died, or a move was lost in a match that was not under attack.
pub(crate) fn run(root: &Path, options: &Options) -> Result<(), String> {
    let built = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "-p", "gdlc-cli"])
        .current_dir(root)
        .status()
        .map_err(|e| e.to_string())?;
    if !built.success() {
        return Err("cannot build gdlc".to_string());
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let gdlc = target.join("release/gdlc");
    let dir = std::env::temp_dir().join(format!("gdlc-soak-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let log = dir.join("player.log");
    let tic_tac_toe = game_path("ticTacToe").display().to_string();
    let player = start_player(&gdlc, &["--no-native", &tic_tac_toe], &log)?;
    let opponent = start_player(&gdlc, &["--no-native", "--player", "random", "-q"], &dir.join("opponent.log"))?;
    let started = Instant::now();
    let (mut completed, mut lost_clean, mut lost_attacked, mut baseline) = (0, 0, 0, 0);
    for n in 0..options.matches {
        let fault = Fault::of(n);
        let injected = inject(fault, &player, n);
        let (done, lost) = play_match(&gdlc, &player, &opponent, n, options.play_clock, &dir);
        if let Some((stop, threads)) = injected {
            stop.store(true, Ordering::Relaxed);
            threads.into_iter().for_each(|t| drop(t.join()));
        }
        completed += usize::from(done);
        if fault == Fault::None {
            lost_clean += lost;
        } else {
            lost_attacked += lost.min(100);
        }
        if n == 4 {
            baseline = memory_mb(player.child.id());
        }
        if !done || (fault == Fault::None && lost > 0) {
            println!("match {n} ({fault:?}): completed {done}, moves lost {lost}");
        }
    }
    // The abandoned matches expire within three clocks and ten seconds.
    std::thread::sleep(Duration::from_secs(20));
    let info = post(&player.url, "(INFO)");
    let alive = post(&player.url, "(PING)") == "ready";
    let after = memory_mb(player.child.id());
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let expired = text.lines().filter(|l| l.contains("expired")).count();
    let unexpired = unexpired(&text, options.matches);
    let errors = text.lines().filter(|l| l.contains(" error: ")).count();
    println!(
        "soak: {} matches in {:.0} s, play clock {} s",
        options.matches,
        started.elapsed().as_secs_f64(),
        options.play_clock
    );
    println!("completed: {completed}; abandoned matches expired: {expired}; player alive: {alive}; INFO: {info}");
    println!("moves lost: {lost_clean} in matches without a fault, {lost_attacked} in matches under a fault");
    println!("memory: {baseline} MB after 5 matches, {after} MB at the end; error lines in the log: {errors}");
    let bound = memory_bound(baseline);
    println!("memory bound: {bound} MB; abandoned matches that did not expire: {unexpired:?}");
    println!("log: {}", log.display());
    if completed != options.matches || !alive || lost_clean > 0 || !info.contains("available") {
        return Err("the soak failed".to_string());
    }
    if after > bound {
        return Err(format!(
            "the soak failed: {after} MB at the end, past {bound} MB (1.5 times the baseline and 50 MB)"
        ));
    }
    if !unexpired.is_empty() {
        return Err(format!("the soak failed: abandoned matches did not expire: {unexpired:?}"));
    }
    Ok(())
}

/// The most memory the player may use at the end: 1.5 times what it used after the first
/// matches, and 50 MB.
fn memory_bound(baseline: u64) -> u64 {
    baseline + baseline / 2 + 50
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
