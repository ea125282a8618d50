//! Fuzzes the front end: decoding, reading either syntax, every check and the rendering of the
//! diagnostics; then, for a description with no errors, loading it into the reference
//! interpreter and playing a couple of steps from the initial state through the `Game` trait.
//!
//! Nothing in parse or check may panic, overflow the stack, run for long or use much memory on
//! any input. The interpreter may legitimately need a long time on a valid game (a static
//! relation with millions of facts is valid GDL), so it runs in a forked child under a time and
//! memory cap: a child that exceeds the cap is killed and the input is only recorded (in the
//! directory `GDLC_FUZZ_SLOW_DIR`, when set) for a person to look at; a child that panics or
//! crashes is replayed in this process, so that libFuzzer reports the crash with its input.

#![no_main]

use gdl_runtime::Game;
use gdlc::ast::Description;
use gdlc::check::expansion_count;
use gdlc::diag::render_all;
use gdlc::interp::Interpreter;
use libfuzzer_sys::fuzz_target;
use std::time::{Duration, Instant};

/// The most rules the interpreter's disjunctive normal form may make of one rule (the checks
/// refuse `not` over anything but an atom, so that is [`expansion_count`]). The DNF expansion
/// in `datalog/compile.rs` is exponential in the number of `or`s of a body, which the checks
/// accept; larger bodies are kept away from the interpreter (which refuses them too), so that
/// the fuzzer spends its time elsewhere.
const MAX_DNF_RULES: usize = 1 << 12;

/// The most joint moves played from the initial state: a game may never end.
const MAX_STEPS: usize = 2;

/// The cap on one interpreter run (instrumented code is several times slower than a release build).
const INTERP_TIME: Duration = Duration::from_secs(1);
const INTERP_RSS_MB: u64 = 1024;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = gdlc::parse::decode(data) else { return };
    let parsed = gdlc::parse::parse_auto(source);
    let diagnostics = gdlc::check::check(&parsed.description);
    let _ = render_all(&parsed.diagnostics, "fuzz.kif", source);
    let _ = render_all(&diagnostics, "fuzz.kif", source);
    if parsed.has_errors() || diagnostics.iter().any(|d| d.is_error()) {
        return;
    }
    let description = &parsed.description;
    if description.rules.iter().any(|r| expansion_count(&r.body) > MAX_DNF_RULES) {
        return;
    }
    match run_capped(|| play(description)) {
        Outcome::Done => {}
        Outcome::OverCap(why) => record_slow(data, why),
        // Reproduce the failure here, where libFuzzer sees it and saves the input.
        Outcome::Failed => {
            play(description);
            panic!("the interpreter failed in the child process, but not when replayed");
        }
    }
});

/// Loads the game and plays the first legal move of every role for a few steps.
fn play(description: &Description) {
    // Warnings (an unsafe rule the game does not use, an unbound role variable) may still be
    // refused here: the interpreter explains why instead of evaluating it.
    let Ok(game) = Interpreter::new(description) else { return };
    let mut state = game.initial_state();
    let mut legal = Vec::new();
    for _ in 0..=MAX_STEPS {
        let _ = game.state_facts(&state);
        let _ = game.goals(&state);
        if game.is_terminal(&state) {
            break;
        }
        game.all_legal_moves(&state, &mut legal);
        assert_eq!(legal.len(), game.num_roles());
        let Some(joint) = legal.iter().map(|moves| moves.first().cloned()).collect::<Option<Vec<_>>>() else {
            break;
        };
        for (role, mv) in joint.iter().enumerate() {
            let text = game.move_string(mv);
            assert_eq!(game.parse_move(role, &text).as_ref(), Some(mv), "move `{text}` does not read back");
        }
        state = game.next_state(&state, &joint);
    }
}

enum Outcome {
    Done,
    OverCap(&'static str),
    Failed,
}

/// Runs `f` in a forked child, killing it when it runs longer than [`INTERP_TIME`] or grows
/// beyond [`INTERP_RSS_MB`].
fn run_capped(f: impl FnOnce()) -> Outcome {
    // SAFETY: the child only runs `f` and exits with `_exit`, never returning into libFuzzer.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        panic!("fork failed: {}", std::io::Error::last_os_error());
    }
    if pid == 0 {
        // libFuzzer's alarm handler must not fire in the child: the parent keeps the time.
        // SAFETY: setting a signal's disposition to "ignore" runs no handler code.
        unsafe { libc::signal(libc::SIGALRM, libc::SIG_IGN) };
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_ok();
        // SAFETY: `_exit` ends the child at once, running no destructor of the parent's state.
        unsafe { libc::_exit(if ok { 0 } else { 101 }) };
    }
    let start = Instant::now();
    let mut pause = Duration::from_micros(50);
    loop {
        let mut status = 0;
        // SAFETY: plain system calls on our own child.
        let done = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if done == pid {
            if std::env::var_os("GDLC_FUZZ_TIMING").is_some() {
                eprintln!("interp: {:?}", start.elapsed());
            }
            let clean = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
            return if clean { Outcome::Done } else { Outcome::Failed };
        }
        let over = if start.elapsed() > INTERP_TIME {
            Some("time")
        } else if rss_mb(pid) > INTERP_RSS_MB {
            Some("memory")
        } else {
            None
        };
        if let Some(why) = over {
            // SAFETY: plain system calls on our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            return Outcome::OverCap(why);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(5));
    }
}

/// The resident memory of a process in MB, from `/proc` (0 when it cannot be read).
fn rss_mb(pid: libc::pid_t) -> u64 {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).unwrap_or_default();
    let pages: u64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
    pages * 4096 / (1024 * 1024)
}

/// Saves an input the interpreter could not finish within the cap, for a person to judge
/// whether it is a heavy but valid game or a description that should have been refused.
fn record_slow(data: &[u8], why: &str) {
    let Some(dir) = std::env::var_os("GDLC_FUZZ_SLOW_DIR") else { return };
    let dir = std::path::PathBuf::from(dir);
    let _ = std::fs::create_dir_all(&dir);
    // Keep the first few: a slow game's mutations are mostly slow too.
    if std::fs::read_dir(&dir).map_or(0, Iterator::count) >= 100 {
        return;
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let _ = std::fs::write(dir.join(format!("{why}-{hash:016x}")), data);
}
