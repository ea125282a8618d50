//! The rtGDL games of `games/rtgdl/`: the compiled code against the real-time interpreter on
//! seeded random playouts in simulated time (states with lifetimes, legal moves, terminal,
//! goals and the next expiry at every event), and the outcomes of scripted matches through
//! both engines (the four outcomes of the Game of Chicken, the move clock of timed tic-tac-toe).

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

use gdl_runtime::realtime::{legal_strings, random_playout, run_script, state_string, Pacing, RealTimeGame, Time};
use gdl_runtime::rng::Rng;
use gdlc::interp::realtime::RealTimeInterpreter;
use std::path::Path;

/// Random playouts per game; `GDLC_DIFF_PLAYOUTS` raises it for a longer run.
fn playouts() -> usize {
    std::env::var("GDLC_DIFF_PLAYOUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(60)
}

fn interpreter(file: &str) -> RealTimeInterpreter {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(file);
    let loaded = gdlc::load::load_valid(&path).expect("a valid game");
    RealTimeInterpreter::new(&loaded.description).expect("the real-time interpreter loads the game")
}

fn at(text: &str) -> Time {
    Time::parse(text).unwrap()
}

/// Everything observable about a state: its text, legal moves, terminal, goals, next expiry.
type Observed = (String, Vec<Vec<String>>, bool, Vec<Option<u32>>, Option<Time>);

/// A timed move of a script: game time, role, move.
type Scripted<'a> = (&'a str, usize, &'a str);

/// Everything observable about a state, as text.
fn observe<G: RealTimeGame>(game: &G, state: &G::State) -> Observed {
    (
        state_string(game, state),
        legal_strings(game, state),
        game.is_terminal(state),
        game.goals(state),
        game.next_expiry(state),
    )
}

/// Plays seeded random playouts through the compiled game and replays every event through the
/// interpreter, comparing the two at every event; then checks that the interpreter, given the
/// same seed, makes the same random playout.
fn differential<C: RealTimeGame>(compiled: &C, file: &str) {
    let interp = interpreter(file);
    assert_eq!(compiled.num_roles(), interp.num_roles());
    let mut events = 0;
    let mut endings = std::collections::BTreeSet::new();
    for playout in 0..playouts() {
        let seed = 1000 + playout as u64;
        let mut i_state = interp.initial_state();
        let c_initial = compiled.initial_state();
        assert_eq!(observe(compiled, &c_initial), observe(&interp, &i_state), "{file}: initial states differ");
        let mut last = Time::ZERO;
        let mut trace = Vec::new();
        let result = random_playout(
            compiled,
            &c_initial,
            &mut Rng::seeded(seed),
            Pacing::default(),
            1000,
            &mut |time, moves, c_state| {
                let texts: Vec<Option<String>> =
                    moves.iter().map(|m| m.as_ref().map(|m| compiled.move_string(m))).collect();
                let parsed: Vec<_> = texts
                    .iter()
                    .enumerate()
                    .map(|(role, m)| {
                        m.as_ref().map(|m| interp.parse_move(role, m).expect("the interpreter reads the move"))
                    })
                    .collect();
                i_state = interp.update(&i_state, time.minus(last), &parsed);
                last = time;
                let (c, i) = (observe(compiled, c_state), observe(&interp, &i_state));
                assert_eq!(c, i, "{file}: playout {playout}, event at {time} with moves {texts:?}: the engines differ");
                trace.push((time, texts, c.0));
                events += 1;
            },
        );
        endings.insert((result.terminal, compiled.goals(&result.state)));
        // The interpreter draws the same numbers and makes the same playout.
        let mut interp_trace = Vec::new();
        random_playout(
            &interp,
            &interp.initial_state(),
            &mut Rng::seeded(seed),
            Pacing::default(),
            1000,
            &mut |time, moves, state| {
                let texts: Vec<Option<String>> =
                    moves.iter().map(|m| m.as_ref().map(|m| interp.move_string(m))).collect();
                interp_trace.push((time, texts, state_string(&interp, state)));
            },
        );
        assert_eq!(trace, interp_trace, "{file}: playout {playout}: the interpreter's own playout differs");
    }
    assert!(events > playouts(), "{file}: only {events} events");
    assert!(endings.len() > 1, "{file}: every playout ended alike: {endings:?}");
}

#[test]
fn compiled_realtime_games_agree_with_the_interpreter() {
    macro_rules! check {
        ($module:ident, $file:expr) => {
            differential(&generated::realtime::$module::Game, $file);
        };
    }
    generated::for_each_realtime_game!(check);
}

/// A scripted match through both engines: the same events, and the final goals and end time.
fn scripted<C: RealTimeGame>(compiled: &C, file: &str, script: &[(&str, usize, &str)]) -> (Vec<Option<u32>>, Time) {
    let interp = interpreter(file);
    let script: Vec<(Time, usize, &str)> = script.iter().map(|&(t, r, m)| (at(t), r, m)).collect();
    let c = run_script(compiled, &script).expect("the compiled game plays the script");
    let i = run_script(&interp, &script).expect("the interpreter plays the script");
    assert_eq!(c.events(), i.events(), "{file}: the engines' events differ for {script:?}");
    assert!(c.is_terminal() && i.is_terminal(), "{file}: the match did not end");
    let goals = compiled.goals(c.state());
    assert_eq!(goals, interp.goals(i.state()));
    (goals, c.now())
}

const CHICKEN: &str = "games/rtgdl/chicken.kif";

#[test]
fn chicken_pays_the_four_outcomes() {
    let game = &generated::realtime::chicken::Game;
    let (white, black) = (0, 1);
    let outcomes: [(&[Scripted], [u32; 2]); 4] = [
        (&[], [0, 0]),
        (&[("0.3", white, "swerve")], [80, 100]),
        (&[("0.5", black, "swerve")], [100, 80]),
        (&[("0.2", white, "swerve"), ("0.7", black, "swerve")], [90, 90]),
    ];
    for (script, expected) in outcomes {
        let (goals, end) = scripted(game, CHICKEN, script);
        assert_eq!(goals, expected.map(Some).to_vec(), "{script:?}");
        assert_eq!(end, at("1.0"), "the timer ends the game after one unit of time");
    }
}

#[test]
fn chicken_counts_a_swerve_at_the_last_instant_and_refuses_one_after_the_end() {
    let game = &generated::realtime::chicken::Game;
    // Moves and the timer's expiry at the same instant are one event: the swerve counts.
    let (goals, _) = scripted(game, CHICKEN, &[("1.0", 1, "swerve"), ("1.0", 0, "swerve")]);
    assert_eq!(goals, vec![Some(90), Some(90)]);
    let late = run_script(game, &[(at("1.000000001"), 0, "swerve")]).err().expect("a move after the end");
    assert!(late.contains("the match ended at 1.0"), "{late}");
    // A role that swerved has no legal move left.
    let twice = run_script(game, &[(at("0.1"), 0, "swerve"), (at("0.2"), 0, "swerve")]).err().expect("an illegal move");
    assert!(twice.contains("is not a legal move of role `white` at 0.2"), "{twice}");
}

#[test]
fn chicken_states_keep_lifetimes_and_show_what_expired() {
    let game = &generated::realtime::chicken::Game;
    let run = run_script(game, &[(at("0.25"), 0, "swerve")]).unwrap();
    let events = run.events();
    assert_eq!(events.len(), 2);
    assert_eq!(
        events[0].state,
        "(true infinity (dir black straight)) (true infinity (dir white swerve)) (true 0.75 timer)"
    );
    assert_eq!(events[1].time, at("1.0"));
    assert_eq!(events[1].expired, vec!["timer".to_string()]);
    assert!(events[1].state.ends_with("(expired timer)"), "{}", events[1].state);
}

const TIMED_TIC_TAC_TOE: &str = "games/rtgdl/timedTicTacToe.kif";

#[test]
fn timed_tic_tac_toe_player_who_waits_too_long_loses() {
    let game = &generated::realtime::timed_tic_tac_toe::Game;
    let (x, o) = (0, 1);
    // x never moves: its deadline runs out at 2.0.
    assert_eq!(scripted(game, TIMED_TIC_TAC_TOE, &[]), (vec![Some(0), Some(100)], at("2.0")));
    // x moves at 1.5; o moves at exactly its deadline, 3.5, which counts; x then waits.
    let script = [("1.5", x, "(mark 2 2)"), ("3.5", o, "(mark 1 1)")];
    assert_eq!(scripted(game, TIMED_TIC_TAC_TOE, &script), (vec![Some(0), Some(100)], at("5.5")));
    // x wins with a column in time.
    let script = [
        ("0.5", x, "(mark 1 1)"),
        ("1.0", o, "(mark 1 2)"),
        ("1.5", x, "(mark 2 1)"),
        ("2.0", o, "(mark 2 2)"),
        ("2.5", x, "(mark 3 1)"),
    ];
    assert_eq!(scripted(game, TIMED_TIC_TAC_TOE, &script), (vec![Some(100), Some(0)], at("2.5")));
    // o may not move out of turn.
    let early = run_script(game, &[(at("0.5"), o, "(mark 1 1)")]).err().expect("an illegal move");
    assert!(early.contains("not a legal move of role `o`"), "{early}");
}

#[test]
fn random_playouts_of_chicken_reach_every_outcome() {
    let game = &generated::realtime::chicken::Game;
    let mut seen = std::collections::BTreeSet::new();
    let mut rng = Rng::seeded(3);
    for _ in 0..200 {
        let playout = random_playout(game, &game.initial_state(), &mut rng, Pacing::default(), 100, &mut |_, _, _| {});
        assert!(playout.terminal && playout.time == at("1.0"));
        seen.insert(game.goals(&playout.state));
    }
    let expected: std::collections::BTreeSet<Vec<Option<u32>>> =
        [[0, 0], [80, 100], [100, 80], [90, 90]].iter().map(|g| g.map(Some).to_vec()).collect();
    assert_eq!(seen, expected);
}

#[test]
fn the_recorded_chicken_matches_replay_to_their_states_and_payoffs() {
    let game = &generated::realtime::chicken::Game;
    let interp = interpreter(CHICKEN);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/chicken-matches");
    for (file, expected) in [
        ("both-straight.json", [0, 0]),
        ("white-swerves.json", [80, 100]),
        ("black-swerves.json", [100, 80]),
        ("both-swerve.json", [90, 90]),
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let record: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(record["kind"], "rtgdl");
        let roles: Vec<&str> = record["roles"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
        let events = record["events"].as_array().unwrap();
        let mut script = Vec::new();
        for event in events {
            for mv in event["moves"].as_array().unwrap() {
                let role = roles.iter().position(|r| *r == mv["role"].as_str().unwrap()).unwrap();
                script.push((at(event["time"].as_str().unwrap()), role, mv["move"].as_str().unwrap()));
            }
        }
        let recorded_states: Vec<&str> = events.iter().map(|e| e["state"].as_str().unwrap()).collect();
        for replayed in [
            run_script(game, &script).unwrap().events().to_vec(),
            run_script(&interp, &script).unwrap().events().to_vec(),
        ] {
            let states: Vec<&str> = replayed.iter().map(|e| e.state.as_str()).collect();
            assert_eq!(states, recorded_states, "{file}");
        }
        let goals: Vec<u64> = record["goals"].as_array().unwrap().iter().map(|g| g.as_u64().unwrap()).collect();
        assert_eq!(goals, expected.map(u64::from).to_vec(), "{file}");
        let end = run_script(game, &script).unwrap();
        assert_eq!(game.goals(end.state()), expected.map(Some).to_vec(), "{file}");
    }
}
