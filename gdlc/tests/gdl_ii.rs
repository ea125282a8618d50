//! Imperfect information (GDL-II) through the interpreter: the belief a player keeps of the
//! states consistent with its own moves and percepts (exact, weighted by the probability of
//! the other roles' moves, and sampled when large), and the moves the sampling player chooses
//! from it.

use gdl_player::belief::{Belief, Update, MAX_EXACT_STATES, PARTICLES};
use gdl_player::player::sampling::SamplingPlayer;
use gdl_player::player::Kind;
use gdl_runtime::Game;
use gdlc::interp::Interpreter;
use std::time::{Duration, Instant};

fn bundled(file: &str) -> Interpreter {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../games").join(file);
    let loaded = gdlc::load::load_valid(&path).expect("a valid game");
    Interpreter::new(&loaded.description).expect("the interpreter loads the game")
}

fn inline(text: &str) -> Interpreter {
    let parsed = gdlc::check::parse_and_check(text);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    Interpreter::new(&parsed.description).expect("the interpreter loads the game")
}

fn mv(game: &Interpreter, role: usize, text: &str) -> <Interpreter as Game>::Move {
    game.parse_move(role, text).unwrap_or_else(|| panic!("`{text}` is a move"))
}

fn far() -> Instant {
    Instant::now() + Duration::from_secs(60)
}

/// Each state the belief holds, as the facts that matter to a test, with its probability.
fn described(game: &Interpreter, belief: &Belief<Interpreter>, prefix: &str) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = belief
        .states()
        .iter()
        .map(|(s, w)| {
            let facts: Vec<String> = game.state_facts(s).into_iter().filter(|f| f.starts_with(prefix)).collect();
            (facts.join(" "), *w)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn monty_hall_belief_drops_the_states_with_the_car_behind_the_opened_door() {
    let game = bundled("montyHall.kif");
    let mut belief = Belief::new(&game, 0, 1);
    // The candidate chooses door 1 and sees nothing: the car may be behind any door.
    assert_eq!(belief.update(&game, &mv(&game, 0, "(choose 1)"), &[], far()), Update::Exact);
    let cars = described(&game, &belief, "(car");
    assert_eq!(cars.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(), ["(car 1)", "(car 2)", "(car 3)"]);
    assert!(cars.iter().all(|c| close(c.1, 1.0 / 3.0)), "{cars:?}");
    // The host opens door 2: no state with the car behind it is left, and the car is behind
    // door 3 twice as often as behind the chosen door 1.
    assert_eq!(belief.update(&game, &mv(&game, 0, "noop"), &["2".to_string()], far()), Update::Exact);
    assert!(belief.is_exact());
    let cars = described(&game, &belief, "(car");
    assert_eq!(cars.len(), 2, "{cars:?}");
    assert_eq!((cars[0].0.as_str(), cars[1].0.as_str()), ("(car 1)", "(car 3)"));
    assert!(close(cars[0].1, 1.0 / 3.0) && close(cars[1].1, 2.0 / 3.0), "{cars:?}");
    let mut moves: Vec<String> = belief.legal_moves(&game).iter().map(|m| game.move_string(m)).collect();
    moves.sort();
    assert_eq!(moves, ["noop", "switch"]);
}

#[test]
fn monty_hall_player_switches() {
    let game = bundled("montyHall.kif");
    let mut belief = Belief::new(&game, 0, 2);
    belief.update(&game, &mv(&game, 0, "(choose 2)"), &[], far());
    belief.update(&game, &mv(&game, 0, "noop"), &["3".to_string()], far());
    let mut player = SamplingPlayer::new(Kind::Mcts, 3);
    let chosen = player.choose(&game, &mut belief, 0, Instant::now() + Duration::from_millis(400));
    assert_eq!(chosen.map(|m| game.move_string(&m)), Some("switch".to_string()), "{}", player.last_iterations);
    assert!(player.last_iterations > 100, "{}", player.last_iterations);
}

#[test]
fn dice_duel_player_keeps_a_high_roll_and_rerolls_a_low_one() {
    let game = bundled("diceDuel.kif");
    for (roll, expected) in [("3", "keep"), ("1", "reroll")] {
        let mut belief = Belief::new(&game, 0, 4);
        let percepts = [format!("(rolled {roll})")];
        assert_eq!(belief.update(&game, &mv(&game, 0, "noop"), &percepts, far()), Update::Exact);
        // Bob's roll is unknown: three states, alice's own value fixed.
        let values = described(&game, &belief, "(value");
        assert_eq!(values.len(), 3, "{values:?}");
        assert!(values.iter().all(|v| v.0.contains(&format!("(value alice {roll})"))), "{values:?}");
        let mut player = SamplingPlayer::new(Kind::Mcts, 5);
        let chosen = player.choose(&game, &mut belief, 0, Instant::now() + Duration::from_millis(300));
        assert_eq!(chosen.map(|m| game.move_string(&m)).as_deref(), Some(expected), "roll {roll}");
    }
}

#[test]
fn kuhn_poker_bob_calls_with_the_king_and_folds_with_the_jack() {
    let game = bundled("kuhnPoker.kif");
    for (card, expected) in [("king", "call"), ("jack", "fold")] {
        let mut belief = Belief::new(&game, 1, 6);
        belief.update(&game, &mv(&game, 1, "noop"), &[format!("(your_card {card})")], far());
        assert_eq!(belief.states().len(), 2, "alice holds one of the two other cards");
        belief.update(&game, &mv(&game, 1, "noop"), &["(alice_did bet)".to_string()], far());
        let mut player = SamplingPlayer::new(Kind::Mcts, 7);
        let chosen = player.choose(&game, &mut belief, 1, Instant::now() + Duration::from_millis(300));
        assert_eq!(chosen.map(|m| game.move_string(&m)).as_deref(), Some(expected), "bob with the {card}");
    }
}

#[test]
fn percepts_no_state_explains_are_ignored_and_the_player_still_has_moves() {
    let game = bundled("montyHall.kif");
    let mut belief = Belief::new(&game, 0, 8);
    belief.update(&game, &mv(&game, 0, "(choose 1)"), &[], far());
    // Door 1 is the chosen one: the host never opens it.
    let update = belief.update(&game, &mv(&game, 0, "noop"), &["1".to_string()], far());
    assert_eq!(update, Update::PerceptsIgnored);
    assert!(!belief.states().is_empty());
    let mut player = SamplingPlayer::new(Kind::Mcts, 9);
    let chosen = player.choose(&game, &mut belief, 0, Instant::now() + Duration::from_millis(50));
    assert!(matches!(chosen.map(|m| game.move_string(&m)).as_deref(), Some("noop" | "switch")));
}

#[test]
fn the_random_player_picks_a_move_legal_in_the_belief() {
    let game = bundled("montyHall.kif");
    let mut belief = Belief::new(&game, 0, 10);
    let mut player = SamplingPlayer::new(Kind::Random, 11);
    for _ in 0..20 {
        let chosen = player.choose(&game, &mut belief, 0, far()).map(|m| game.move_string(&m));
        assert!(matches!(chosen.as_deref(), Some("(choose 1)" | "(choose 2)" | "(choose 3)")), "{chosen:?}");
    }
}

/// Three hidden draws of a number from 1 to 20 make 8,000 states, past the exact limit: the
/// belief turns to a sample, and a later percept that the third draw was low leaves only
/// states in which it was.
#[test]
fn a_large_belief_is_sampled_and_filtered_by_rejection() {
    let mut text =
        String::from("(role watcher) (role random) (init (step 1)) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)\n");
    for n in 1..=20 {
        text.push_str(&format!("(number {n}) "));
        if n <= 5 {
            text.push_str(&format!("(low {n}) "));
        }
    }
    text.push_str(
        "
        (<= (legal random (draw ?n)) (number ?n) (not (true (step 4))))
        (<= (legal random noop) (true (step 4)))
        (<= (legal random noop) (true (step 5)))
        (legal watcher wait)
        (<= (next (drawn ?s ?n)) (true (step ?s)) (does random (draw ?n)))
        (<= (next (drawn ?s ?n)) (true (drawn ?s ?n)))
        (<= (next (step ?t)) (true (step ?s)) (succ ?s ?t))
        (<= (sees watcher was_low) (true (step 4)) (true (drawn 3 ?n)) (low ?n))
        (<= terminal (true (step 5)))
        (goal watcher 100) (goal random 0)",
    );
    let game = inline(&text);
    let wait = mv(&game, 0, "wait");
    let mut belief = Belief::new(&game, 0, 12);
    assert_eq!(belief.update(&game, &wait, &[], far()), Update::Exact);
    assert_eq!(belief.states().len(), 20);
    assert_eq!(belief.update(&game, &wait, &[], far()), Update::Exact);
    assert_eq!(belief.states().len(), 400);
    const { assert!(8000 > MAX_EXACT_STATES) };
    assert_eq!(belief.update(&game, &wait, &[], far()), Update::Sampled);
    assert!(!belief.is_exact());
    assert_eq!(belief.states().len(), PARTICLES);
    assert_eq!(belief.update(&game, &wait, &["was_low".to_string()], far()), Update::Sampled);
    assert_eq!(belief.states().len(), PARTICLES);
    for (state, _) in belief.states() {
        let third: Vec<String> = game.state_facts(state).into_iter().filter(|f| f.starts_with("(drawn 3 ")).collect();
        let n: u32 = third[0].trim_end_matches(')').rsplit(' ').next().unwrap().parse().unwrap();
        assert!((1..=5).contains(&n), "{third:?}");
    }
}
