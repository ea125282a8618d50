//! What checking and loading a game costs grows linearly with its size: generated games of 8,000
//! and 32,000 rules of one shape (a chain of relations, a cycle, a chain through negations, a
//! chain of `or`s, one rule of thousands of literals) must cost about four times as much, not
//! sixteen. Each used to have a quadratic pass (32,000 chained rules took 44 s).
//!
//! The cost is the CPU time of the test's own thread, the smallest of three runs, and the bound is
//! generous (eight times), so that a loaded machine does not fail the test but a quadratic pass
//! (sixteen times) does.

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

use gdlc::interp::{Interpreter, Limits};
use std::time::{Duration, Instant};

/// A game whose rules beyond the few that make it a game have `shape` and number `n`.
fn game(shape: &str, n: usize) -> String {
    let mut out =
        String::from("(role a) (init (s 1)) (<= (legal a noop) (true (s 1))) (<= (next (s 1)) (true (s 1)))\n");
    out.push_str("(goal a 100) (p0 1)\n");
    let rules: String = match shape {
        "chain" => (1..=n).map(|i| format!("(<= (p{i} ?x) (p{} ?x))\n", i - 1)).collect(),
        "cycle" => {
            let cycle: String = (1..=n).map(|i| format!("(<= (p{i} ?x) (p{} ?x))\n", (i + 1) % (n + 1))).collect();
            format!("{cycle}(<= (p0 ?x) (p1 ?x))\n")
        }
        "negations" => (1..=n).map(|i| format!("(<= (p{i} ?x) (p0 ?x) (not (p{} ?x)))\n", i - 1)).collect(),
        "ors" => (1..=n).map(|i| format!("(<= (p{i} ?x) (or (p{} ?x) (p0 ?x)))\n", i - 1)).collect(),
        "wide" => {
            let body: String = (0..n).map(|i| format!(" (p0 ?x{i})")).collect();
            format!("(<= (p{n} ?x0){body})\n")
        }
        _ => unreachable!("a shape of the test"),
    };
    out.push_str(&rules);
    out.push_str(&format!("(<= terminal (p{n} 1))\n"));
    out
}

/// The CPU time this thread has used, or the time since `start` where the system does not say.
fn cpu_time(start: Instant) -> Duration {
    let schedstat = std::fs::read_to_string("/proc/thread-self/schedstat").ok();
    let nanos = schedstat.and_then(|s| s.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()));
    nanos.map_or_else(|| start.elapsed(), Duration::from_nanos)
}

/// The cost of checking `source`, loading it into the interpreter and asking whether its first
/// state is terminal.
fn cost(source: &str) -> Duration {
    let start = Instant::now();
    let before = cpu_time(start);
    let parsed = gdlc::check::parse_and_check(source);
    assert!(!parsed.diagnostics.iter().any(|d| d.is_error()), "{:?}", parsed.diagnostics.first());
    let game = Interpreter::new(&parsed.description).unwrap();
    let terminal = game.try_is_terminal(&gdl_runtime::Game::initial_state(&game), &Limits::NONE).unwrap();
    assert!(terminal);
    cpu_time(start) - before
}

fn smallest_of_three(source: &str) -> Duration {
    cost(source).min(cost(source)).min(cost(source))
}

fn assert_linear(shape: &'static str) {
    // The evaluation recurses once per literal of a body: the rule of 32,000 literals needs more
    // than a test thread's stack.
    let measured = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let (small, large) = (game(shape, 8_000), game(shape, 32_000));
            (smallest_of_three(&small), smallest_of_three(&large))
        })
        .unwrap();
    let (a, b) = measured.join().unwrap();
    let ratio = b.as_secs_f64() / a.as_secs_f64().max(1e-6);
    eprintln!("{shape}: 8,000 rules {a:?}, 32,000 {b:?}: {ratio:.1} times");
    assert!(ratio < 8.0, "{shape}: 8,000 rules took {a:?}, 32,000 took {b:?}: {ratio:.1} times");
}

#[test]
fn a_chain_of_rules_costs_linear_time() {
    assert_linear("chain");
}

#[test]
fn a_cycle_of_rules_costs_linear_time() {
    assert_linear("cycle");
}

#[test]
fn a_chain_through_negations_costs_linear_time() {
    assert_linear("negations");
}

#[test]
fn a_chain_of_ors_costs_linear_time() {
    assert_linear("ors");
}

#[test]
fn a_rule_of_many_literals_costs_linear_time() {
    assert_linear("wide");
}
