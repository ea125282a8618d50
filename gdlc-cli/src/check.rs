//! `gdlc check GAME`: the specification's checks, then the game loaded into the interpreter and
//! a few random matches played to find goals with several values, all within a budget of time
//! and of facts per evaluation. Going past the budget is an error, never a hang.

use gdl_runtime::Game as _;
use gdlc::graph::Dependencies;
use gdlc::interp::realtime::RealTimeInterpreter;
use gdlc::interp::{Error as InterpError, Exceeded, Interpreter, Limits};
use gdlc::load::load_in;
use gdlc::parse::Case;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long random matches are played to look for goals with several values.
const SAMPLING: Duration = Duration::from_millis(500);

/// The stack of the thread that checks (address space, used only as deep as the recursion goes).
const CHECK_STACK: usize = 256 << 20;

/// What `gdlc check` may spend.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// The whole check, from reading the file to the end of the sampling.
    pub timeout: Duration,
    /// The most facts one evaluation (loading the game, or one query in a state) may derive.
    pub max_facts: usize,
}

/// `gdlc check GAME`, within `budget`: a watchdog ends the check a second after the timeout
/// should a pass that does not keep the budget itself run on.
pub fn check(path: &Path, budget: Budget, case: Case) -> Result<(), String> {
    let (sender, receiver) = mpsc::channel();
    let owned = path.to_path_buf();
    // The evaluation recurses once per literal of a rule body: a body of thousands of literals
    // needs more than a thread's default stack (the main thread's 8 MB took 30,000).
    let spawned = std::thread::Builder::new().stack_size(CHECK_STACK).spawn(move || {
        // The receiver is gone only when the watchdog has already given up.
        let _ = sender.send(check_within(&owned, budget, case));
    });
    spawned.map_err(|e| format!("error: cannot start the check: {e}"))?;
    match receiver.recv_timeout(budget.timeout + Duration::from_secs(1)) {
        Ok(result) => result,
        Err(_) => Err(format!(
            "{}: error: checking the game took longer than the budget of {} (--timeout)",
            path.display(),
            seconds(budget.timeout)
        )),
    }
}

fn seconds(duration: Duration) -> String {
    format!("{} s", duration.as_secs_f64())
}

fn check_within(path: &Path, budget: Budget, case: Case) -> Result<(), String> {
    let deadline = Instant::now().checked_add(budget.timeout);
    let limits = Limits { deadline, max_facts: Some(budget.max_facts) };
    let loaded = load_in(path, case)?;
    let warnings = loaded.diagnostics.iter().filter(|d| !d.is_error()).count();
    if loaded.has_errors() {
        let errors = loaded.diagnostics.len() - warnings;
        return Err(format!("{}{}: {errors} error(s), {warnings} warning(s)", loaded.render(), loaded.file));
    }
    let over = |exceeded: &Exceeded| over_budget(&loaded.file, budget, exceeded);
    let d = &loaded.description;
    let mut play_warnings = String::new();
    if gdlc::realtime::is_realtime(d) {
        // The real-time interpreter loads the game; its goals are tested by its own tests.
        match RealTimeInterpreter::with_limits(d, &limits) {
            Err(InterpError::Exceeded(exceeded)) => return Err(over(&exceeded)),
            Err(e) => play_warnings.push_str(&format!("{}: warning: {e}\n", loaded.file)),
            Ok(_) => {}
        }
    } else {
        match Interpreter::with_limits(d, &limits) {
            Ok(interp) => {
                if let Some(w) = sample_goal_values(&interp, SAMPLING, &limits).map_err(|e| over(&e))? {
                    play_warnings.push_str(&format!(
                        "{}: warning: {w}\n  hint: give each role exactly one goal value in every terminal state\n",
                        loaded.file
                    ));
                }
            }
            Err(InterpError::Exceeded(exceeded)) => return Err(over(&exceeded)),
            Err(e) => play_warnings.push_str(&format!("{}: warning: {e}\n", loaded.file)),
        }
    }
    // Loading and sampling the game give at most one warning.
    let warnings = warnings + usize::from(!play_warnings.is_empty());
    let deps = Dependencies::build(d);
    let strata = deps.strata().values().copied().max().map_or(0, |s| s + 1);
    let relations = deps.relations().count();
    let facts = d.rules.iter().filter(|r| r.is_fact()).count();
    let mut out = String::new();
    out.push_str(&loaded.render());
    out.push_str(&play_warnings);
    out.push_str(&format!(
        "{}: ok\nroles: {}\nrelations: {relations}\nrules: {}\nfacts: {facts}\nstrata: {strata}\nwarnings: {warnings}\n",
        loaded.file,
        d.roles().join(" "),
        d.rules.len() - facts,
    ));
    print!("{out}");
    Ok(())
}

/// The error of a check that went past its budget.
fn over_budget(file: &str, budget: Budget, exceeded: &Exceeded) -> String {
    let option = match exceeded {
        Exceeded::Deadline { .. } => format!("the budget of {} (--timeout)", seconds(budget.timeout)),
        Exceeded::Facts { .. } => format!("the budget of {} facts per evaluation (--max-facts)", budget.max_facts),
    };
    format!("{file}: error: evaluating the game went past {option}: {exceeded}")
}

/// Plays random matches for up to `window` and describes the first terminal state in which the
/// goal relation gives a role several values, if one is found. A query that goes past the
/// window ends the sampling; one that goes past `limits` is an error.
pub fn sample_goal_values(game: &Interpreter, window: Duration, limits: &Limits) -> Result<Option<String>, Exceeded> {
    let end = Instant::now().checked_add(window);
    let deadline = match (end, limits.deadline) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let within = Limits { deadline, ..*limits };
    // Whether the sampling window, not the caller's deadline, stopped a query.
    let window_over =
        |e: &Exceeded| matches!(e, Exceeded::Deadline { .. }) && limits.deadline.is_none_or(|d| Instant::now() < d);
    let mut rng = gdl_runtime::rng::Rng::seeded(1);
    while end.is_none_or(|e| Instant::now() < e) {
        match sample_match(game, &within, &mut rng) {
            Ok(Some(found)) => return Ok(Some(found)),
            Ok(None) => {}
            Err(e) if window_over(&e) => return Ok(None),
            Err(e) => return Err(e),
        }
    }
    Ok(None)
}

/// One random match, up to the sampling's deadline.
fn sample_match(
    game: &Interpreter,
    limits: &Limits,
    rng: &mut gdl_runtime::rng::Rng,
) -> Result<Option<String>, Exceeded> {
    let mut state = game.initial_state();
    while !game.try_is_terminal(&state, limits)? {
        let legal = game.try_legal_moves(&state, limits)?;
        if legal.iter().any(Vec::is_empty) {
            return Ok(None);
        }
        let joint: Vec<_> = legal.iter().map(|m| m[rng.below(m.len())].clone()).collect();
        state = game.try_next_state(&state, &joint, limits)?;
    }
    for (role, values) in game.try_goal_values(&state, limits)?.iter().enumerate() {
        if values.len() > 1 {
            let listed: Vec<String> = values.iter().map(u32::to_string).collect();
            return Ok(Some(format!(
                "the goal relation gives role `{}` several values ({}) in a reachable terminal state; the largest counts",
                game.role_name(role),
                listed.join(", ")
            )));
        }
    }
    Ok(None)
}
