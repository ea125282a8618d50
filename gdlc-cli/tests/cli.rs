//! The `gdlc` binary as users run it: exit codes, output formats and bad input.

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn gdlc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gdlc")).args(args).output().expect("gdlc runs")
}

fn shared(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared").join(path).display().to_string()
}

fn temp_file(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gdlc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn check_summarizes_a_valid_game() {
    let out = gdlc(&["check", &shared("games/ticTacToe.kif")]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for line in ["roles: xplayer oplayer", "relations: ", "rules: ", "strata: 2", "warnings: 0"] {
        assert!(text.contains(line), "{line} missing from:\n{text}");
    }
}

#[test]
fn check_warns_when_a_goal_has_two_values() {
    let out = gdlc(&["check", &shared("games/pentago.kif")]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("several values (0, 100)"), "{}", stdout(&out));
}

#[test]
fn check_rejects_invalid_games_with_located_diagnostics() {
    let path = shared("games-edge-cases/test_invalid_sentence_arities_differ.kif");
    let out = gdlc(&["check", &path]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains(&format!("{path}:")) && err.contains(": error: ") && err.contains("hint: "), "{err}");
}

#[test]
fn check_past_its_budget_is_an_error_that_names_the_option() {
    let game = shared("games/ticTacToe.kif");
    let late = gdlc(&["check", &game, "--timeout", "0"]);
    assert_eq!(late.status.code(), Some(1), "{}", stdout(&late));
    assert!(
        stderr(&late).contains("error: evaluating the game went past the budget of 0 s (--timeout)"),
        "{}",
        stderr(&late)
    );
    let large = gdlc(&["check", &game, "--max-facts", "5"]);
    assert_eq!(large.status.code(), Some(1), "{}", stdout(&large));
    assert!(
        stderr(&large).contains("(--max-facts)") && stderr(&large).contains("more than 5 facts"),
        "{}",
        stderr(&large)
    );
    let within = gdlc(&["check", &game, "--timeout", "30", "--max-facts", "100000"]);
    assert!(within.status.success(), "{}", stderr(&within));
}

#[test]
fn check_never_crashes_on_garbage() {
    let deep = "(".repeat(1_000_000);
    let big = "(role x) ".repeat(600_000);
    let inputs: Vec<(&str, Vec<u8>)> = vec![
        ("empty.kif", Vec::new()),
        ("binary.kif", (0..=255u8).cycle().take(10_000).collect()),
        ("unbalanced.kif", b"(role x)\n(init (p)".to_vec()),
        ("stray.kif", b"(role x))".to_vec()),
        ("deep.kif", deep.into_bytes()),
        ("big.kif", big.into_bytes()),
        ("infix.kif", b"legal(x :- y".to_vec()),
    ];
    for (name, bytes) in inputs {
        let path = temp_file(name, &bytes);
        let out = gdlc(&["check", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains("error"), "{name}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{name}: {}", stderr(&out));
    }
    let missing = gdlc(&["check", "/nonexistent/game.kif"]);
    assert_eq!(missing.status.code(), Some(1));
}

#[test]
fn fmt_prints_infix_that_reads_back() {
    let out = gdlc(&["fmt", &shared("games/ticTacToe.kif"), "--to", "infix"]);
    assert!(out.status.success());
    let infix = stdout(&out);
    assert!(infix.contains("legal(W, mark(X, Y)) :-") || infix.contains(":-"), "{infix}");
    let path = temp_file("ttt.gdl", infix.as_bytes());
    let back = gdlc(&["fmt", path.to_str().unwrap(), "--to", "kif"]);
    assert!(back.status.success());
    assert!(stdout(&back).contains("(<= (legal"), "{}", stdout(&back));
}

/// Replays a reference trace with `engine` and compares the output with the reference.
fn replay_agrees_with_the_reference(stem: &str, engine: &str) {
    let game = shared(&format!("conformance/traces/{stem}.kif"));
    let trace = shared(&format!("conformance/traces/{stem}.jsonl"));
    let out = gdlc(&["replay", &game, &trace, "--engine", engine]);
    assert!(out.status.success(), "{stem} ({engine}): {}", stderr(&out));
    let ours = gdl_player::trace::read(&stdout(&out)).expect("our output is a trace");
    let reference = gdl_player::trace::read(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    assert_eq!(ours.len(), reference.len());
    for (r, o) in reference.iter().zip(&ours) {
        gdl_player::trace::compare(r, o).unwrap_or_else(|e| panic!("{stem} ({engine}): {e}"));
        assert_eq!(
            r.steps.iter().map(|s| &s.joint).collect::<Vec<_>>(),
            o.steps.iter().map(|s| &s.joint).collect::<Vec<_>>()
        );
    }
}

#[test]
fn replay_prints_a_trace_that_agrees_with_the_reference() {
    replay_agrees_with_the_reference("ticTacToe", "interp");
}

#[test]
fn compiled_replay_agrees_with_the_reference() {
    replay_agrees_with_the_reference("ticTacToe", "compiled");
    // A game of the conformance suite that is not among the bundled games' modules.
    replay_agrees_with_the_reference("buttons", "compiled");
}

#[test]
fn program_replay_agrees_with_the_reference() {
    replay_agrees_with_the_reference("ticTacToe", "program");
    replay_agrees_with_the_reference("buttons", "program");
}

#[test]
fn program_bench_prints_the_gdl_perf_keys_with_no_build() {
    let out = gdlc(&["bench", &shared("games/ticTacToe.kif"), "--seconds", "0.2", "--engine", "program"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = stdout(&out);
    assert!(report.starts_with("version=gdlc ") && report.contains("(ground program)"), "{report}");
    assert!(report.contains("\nnumRollouts=") && report.contains("averageGoals=xplayer:"), "{report}");
    assert!(stderr(&out).contains("ground program loaded in"), "{}", stderr(&out));
    let refused = gdlc(&["bench", &shared("games/ticTacToe.kif"), "--max-instances", "10", "--engine", "program"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("too large to ground") && stdout(&refused).is_empty(), "{}", stderr(&refused));
}

#[test]
fn build_makes_a_binary_that_benchmarks_and_replays() {
    let dir = std::env::temp_dir().join(format!("gdlc-cli-build-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let binary = dir.join("ttt");
    let out = gdlc(&["build", &shared("games/ticTacToe.kif"), "-o", binary.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let bench = Command::new(&binary).args(["bench", "--seconds", "0.2"]).output().unwrap();
    assert!(bench.status.success(), "{}", stderr(&bench));
    let text = stdout(&bench);
    assert!(text.contains("rolloutsPerSec=") && text.contains("averageGoals=xplayer:"), "{text}");
    let info = Command::new(&binary).arg("info").output().unwrap();
    assert!(stdout(&info).contains("roles: xplayer oplayer"), "{}", stdout(&info));
    std::fs::remove_dir_all(&dir).ok();
}

/// Whether the toolchain has the `llvm-profdata` that `--pgo` needs (rustup's `llvm-tools`).
fn has_llvm_profdata() -> bool {
    let Ok(out) = Command::new("rustc").args(["--print", "sysroot"]).output() else { return false };
    let rustlib = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("lib").join("rustlib");
    let Ok(hosts) = std::fs::read_dir(rustlib) else { return false };
    hosts.filter_map(Result::ok).any(|host| host.path().join("bin").join("llvm-profdata").is_file())
}

#[test]
fn a_profile_guided_build_plays_or_says_what_it_needs() {
    let dir = std::env::temp_dir().join(format!("gdlc-cli-pgo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let binary = dir.join("ttt");
    // A fact no rule reads makes the game new to the cache, so that it is built and profiled.
    let text = std::fs::read_to_string(shared("games/ticTacToe.kif")).unwrap();
    let game = temp_file("pgo.kif", format!("{text}\n(unread {})\n", std::process::id()).as_bytes());
    let out = gdlc(&["build", "--pgo", game.to_str().unwrap(), "-o", binary.to_str().unwrap()]);
    if has_llvm_profdata() {
        let log = stderr(&out);
        assert!(out.status.success(), "{log}");
        assert!(log.contains("profiling 3 s of random playouts") && log.contains("state changes: the"), "{log}");
        let bench = Command::new(&binary).args(["bench", "--seconds", "0.2"]).output().unwrap();
        assert!(bench.status.success() && stdout(&bench).contains("averageGoals=xplayer:"), "{}", stderr(&bench));
    } else {
        assert_eq!(out.status.code(), Some(1));
        assert!(stderr(&out).contains("rustup component add llvm-tools"), "{}", stderr(&out));
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn build_reports_an_invalid_game_without_building() {
    let bad =
        temp_file("invalid.kif", b"(role r) (init p) (<= (legal r ?m) (true p)) (<= terminal (true p)) (goal r 0)");
    let out = gdlc(&["build", bad.to_str().unwrap(), "-o", "/nonexistent/never"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("error:"), "{}", stderr(&out));
}

#[test]
fn replay_refuses_a_bad_trace() {
    let game = shared("conformance/traces/ticTacToe.kif");
    let bad = temp_file("bad.jsonl", b"{\"game\": \"t\", \"roles\": [\"xplayer\", \"oplayer\"]}\n{\"step\": 0, \"state\": [], \"terminal\": false, \"legal\": [], \"goals\": null, \"joint\": [\"(fly away)\", \"noop\"]}\n");
    let out = gdlc(&["replay", &game, bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not a move"), "{}", stderr(&out));
}

#[test]
fn bench_prints_the_gdl_perf_keys() {
    let out = gdlc(&["bench", &shared("games/ticTacToe.kif"), "--seconds", "0.2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let keys: Vec<&str> = text.lines().map(|l| l.split('=').next().unwrap()).collect();
    assert_eq!(
        keys,
        ["version", "millisecondsTaken", "numStateChanges", "numRollouts", "rolloutsPerSec", "averageGoals"]
    );
    assert!(text.contains("averageGoals=xplayer:"));
    // Off a terminal, each phase of the long work has its line, with its time when it ends.
    let log = stderr(&out);
    let phases = ["gdlc: compiling ticTacToe.kif (checking, grounding, generating Rust)...", "generating Rust) in "];
    assert!(phases.iter().all(|p| log.contains(p)), "{log}");
}

#[test]
fn perf_test_writes_the_report_to_a_file() {
    let outfile = temp_file("perf.txt", b"");
    let out = gdlc(&["perf-test", &shared("games/ticTacToe.kif"), outfile.to_str().unwrap(), "0.2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&outfile).unwrap().contains("numRollouts="));
}

/// A game past the grounding limit is compiled in the lifted form, with a note saying why.
#[test]
fn bench_compiles_the_lifted_form_of_a_game_past_the_grounding_limit() {
    let game = shared("games/ticTacToe.kif");
    let out = gdlc(&["bench", &game, "--seconds", "0.2", "--max-instances", "10"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("too large to ground") && stderr(&out).contains("lifted form"), "{}", stderr(&out));
    let report = stdout(&out);
    assert!(report.starts_with("version=ticTacToe (compiled by gdlc "), "{report}");
    assert!(report.contains("\nnumRollouts=") && report.contains("averageGoals=xplayer:"), "{report}");
}

/// A ground form asked for a game past the grounding limit is refused by the compiled engine,
/// and played through the interpreter by default.
#[test]
fn bench_of_a_ground_form_past_the_grounding_limit_falls_back_to_the_interpreter() {
    let game = shared("games/ticTacToe.kif");
    let tables = ["--max-instances", "10", "--form", "tables"];
    let out = gdlc(&[&["bench", game.as_str(), "--seconds", "0.2"][..], &tables[..]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("too large to ground") && stderr(&out).contains("through the interpreter"));
    let report = stdout(&out);
    assert!(report.starts_with("version=gdlc ") && report.contains("(interpreter)"), "{report}");

    let refused =
        gdlc(&[&["bench", game.as_str(), "--seconds", "0.2", "--engine", "compiled"][..], &tables[..]].concat());
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("too large to ground") && stdout(&refused).is_empty(), "{}", stderr(&refused));
}

#[test]
fn perf_test_compiles_the_lifted_form_of_a_game_past_the_grounding_limit() {
    let game = shared("games/ticTacToe.kif");
    let outfile = temp_file("perf-lifted.txt", b"");
    let out = gdlc(&["perf-test", &game, &outfile.display().to_string(), "0.2", "--max-instances", "10"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = std::fs::read_to_string(&outfile).unwrap();
    assert!(report.contains("(compiled by gdlc ") && report.contains("\nrolloutsPerSec="), "{report}");
}

/// The lifted form asked for replays the conformance suite's matches of a game.
#[test]
fn lifted_replay_agrees_with_the_reference() {
    let game = shared("conformance/traces/buttons.kif");
    let trace = shared("conformance/traces/buttons.jsonl");
    let out = gdlc(&["replay", &game, &trace, "--check", "--form", "lifted"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains(" states agree"), "{}", stdout(&out));
}

/// `replay --check` exits 0 when the engine agrees with the trace, through the compiled game
/// and in process, and 1 with the first difference when the trace says otherwise.
#[test]
fn replay_check_exits_non_zero_at_the_first_difference() {
    let game = shared("conformance/traces/ticTacToe.kif");
    let trace = shared("conformance/traces/ticTacToe.jsonl");
    for engine in ["program", "compiled"] {
        let out = gdlc(&["replay", &game, &trace, "--check", "--engine", engine]);
        assert!(out.status.success(), "{engine}: {}", stderr(&out));
        assert!(stdout(&out).starts_with("match 1: ") && stdout(&out).contains(" states agree"), "{}", stdout(&out));
    }
    let text = std::fs::read_to_string(&trace).unwrap();
    let wrong = text.replacen("\"terminal\": false", "\"terminal\": true", 1);
    let wrong = temp_file("wrong.jsonl", wrong.as_bytes());
    for engine in ["program", "compiled"] {
        let out = gdlc(&["replay", &game, wrong.to_str().unwrap(), "--check", "--engine", engine]);
        assert_eq!(out.status.code(), Some(1), "{engine}");
        assert!(stderr(&out).contains("match 1: step 0: terminal expected true"), "{engine}: {}", stderr(&out));
    }
}

/// alexChess spells `nextFile` and `nextRank` two ways: gdlc reads one name, ggp-base two, so
/// `check` warns, naming both spellings and where each stands, and the game stays valid.
#[test]
fn check_warns_of_names_that_differ_only_in_letter_case() {
    let out = gdlc(&["check", &shared("games/alexChess.kif")]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        text.contains(":154:6: warning: `nextfile` differs only in letter case from `nextFile` (at 22:2)"),
        "{text}"
    );
    assert!(text.contains("`nextrank` differs only in letter case from `nextRank`"), "{text}");
}

/// With `--case-sensitive`, alexChess's `nextfile` is not its `nextFile`, as ggp-base reads it:
/// its rooks, bishops and queens never move, so fewer lines reach depth 3, and the interpreter,
/// the ground program and the compiled game count the same. `check` then finds `nextfile`
/// never defined.
#[test]
fn case_sensitive_reading_keeps_alex_chess_names_apart() {
    let game = shared("games/alexChess.kif");
    let depth_three = |extra: &[&str]| {
        let mut args = vec!["perft", game.as_str(), "3"];
        args.extend_from_slice(extra);
        let out = gdlc(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        stdout(&out).lines().find(|l| l.starts_with("depth 3:")).map(str::to_string).unwrap_or_default()
    };
    assert_eq!(depth_three(&["--engine", "interp"]), "depth 3: 890 paths, 4 terminal");
    for engine in ["interp", "program", "compiled"] {
        assert_eq!(
            depth_three(&["--engine", engine, "--case-sensitive"]),
            "depth 3: 780 paths, 0 terminal",
            "{engine}"
        );
    }
    let out = gdlc(&["check", &game, "--case-sensitive"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(text.contains("relation `nextrank` is never defined"), "{text}");
    assert!(text.contains("with --case-sensitive gdlc reads two names, as ggp-base does"), "{text}");
}

/// The reference traces spell every name in lower case, as the format says. Read with
/// `--case-sensitive`, breakthrough's `cellHolds` and chess_200's `castleKingside` keep their
/// spelling in the game, and a replay still writes and compares the canonical form, and finds
/// the trace's moves in any case.
#[test]
fn traces_replay_under_the_case_sensitive_reading() {
    for name in ["breakthrough", "chess_200"] {
        let game = shared(&format!("conformance/traces/{name}.kif"));
        let trace = shared(&format!("conformance/traces/{name}.jsonl"));
        for engine in ["interp", "program"] {
            let out = gdlc(&["replay", &game, &trace, "--check", "--engine", engine, "--case-sensitive"]);
            assert!(out.status.success(), "{name} {engine}: {}", stderr(&out));
        }
    }
}
