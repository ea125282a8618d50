//! Tests of the puzzle solver through the MCTS player, on a puzzle that random playouts never
//! solve.

use super::super::mcts::MctsPlayer;
use super::super::Player;
use super::{Progress, Solver};
use gdl_runtime::Game;
use std::time::{Duration, Instant};

/// A climb of `height` rungs in at most `limit` steps: each step goes `up` a rung, `stays`, or
/// falls back to the ground. Reaching the top ends the game with goal `top`; running out of
/// steps ends it with 0. A random walk reaches the top with odds of one in 3^height.
struct Climb {
    height: u32,
    limit: u32,
    top: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Rung {
    at: u32,
    step: u32,
}

const MOVES: [&str; 3] = ["up", "stay", "fall"];

impl Game for Climb {
    type State = Rung;
    type Move = usize;

    fn num_roles(&self) -> usize {
        1
    }
    fn role_name(&self, _: usize) -> &str {
        "climber"
    }
    fn initial_state(&self) -> Rung {
        Rung { at: 0, step: 0 }
    }
    fn legal_moves(&self, _: &Rung, _: usize, out: &mut Vec<usize>) {
        out.clear();
        // The moves in an order that puts `up` last, so that taking the first move fails.
        out.extend([2, 1, 0]);
    }
    fn next_state(&self, state: &Rung, joint: &[usize]) -> Rung {
        let at = match joint[0] {
            0 => state.at + 1,
            1 => state.at,
            _ => 0,
        };
        Rung { at, step: state.step + 1 }
    }
    fn is_terminal(&self, state: &Rung) -> bool {
        state.at == self.height || state.step == self.limit
    }
    fn goal(&self, state: &Rung, _: usize) -> Option<u32> {
        Some(if state.at == self.height { self.top } else { 0 })
    }
    fn state_facts(&self, state: &Rung) -> Vec<String> {
        vec![format!("(at {})", state.at), format!("(step {})", state.step)]
    }
    fn move_string(&self, mv: &usize) -> String {
        MOVES[*mv].to_string()
    }
    fn parse_move(&self, _: usize, text: &str) -> Option<usize> {
        MOVES.iter().position(|m| *m == text)
    }
}

/// Plays `game` from `state` to its end with `player`, `clock` a move; the final state.
fn play_out(game: &Climb, player: &mut MctsPlayer, mut state: Rung, clock: Duration) -> Rung {
    while !game.is_terminal(&state) {
        let mv = player.choose(game, &state, 0, Instant::now() + clock);
        state = game.next_state(&state, &[mv.expect("a move")]);
    }
    state
}

#[test]
fn a_puzzle_that_playouts_never_solve_is_solved() {
    let game = Climb { height: 30, limit: 40, top: 100 };
    for seed in 0..3 {
        let mut player = MctsPlayer::new(seed);
        let end = play_out(&game, &mut player, game.initial_state(), Duration::from_millis(20));
        assert_eq!(game.goal(&end, 0), Some(100), "seed {seed}: {end:?}");
        assert_eq!(end.step, 30, "seed {seed}: the shortest way is 30 steps up");
    }
}

#[test]
fn the_plan_is_made_again_from_a_state_off_the_first_plan() {
    // The solver walks from the start and stops at the first way to the top; then it is asked
    // about a state that way does not go through, from which the top is reachable only by
    // states it has not walked yet: it walks on, and plans from there.
    let game = Climb { height: 20, limit: 35, top: 100 };
    let mut player = MctsPlayer::new(1);
    let first = player.choose(&game, &game.initial_state(), 0, Instant::now() + Duration::from_millis(50));
    assert_eq!(first, Some(0));
    let end = play_out(&game, &mut player, Rung { at: 0, step: 5 }, Duration::from_millis(20));
    assert_eq!(game.goal(&end, 0), Some(100), "{end:?}");
}

#[test]
fn with_no_goal_of_100_the_best_end_is_found_by_walking_every_state() {
    let game = Climb { height: 12, limit: 16, top: 60 };
    let mut player = MctsPlayer::new(2);
    let end = play_out(&game, &mut player, game.initial_state(), Duration::from_millis(20));
    assert_eq!(game.goal(&end, 0), Some(60), "{end:?}");
    assert!(player.solver_states > 100, "{} states", player.solver_states);
}

#[test]
fn the_walk_gives_up_past_its_memory() {
    // A climb with room to wander has thousands of states; 4 KB holds a few dozen.
    let game = Climb { height: 30, limit: 40, top: 100 };
    let mut solver = Solver::with_max_bytes(game.initial_state(), 4096);
    solver.walk(&game, Instant::now() + Duration::from_secs(5), || false);
    assert_eq!(solver.progress(), Progress::GaveUp);
    assert!(solver.states() < 200, "{} states", solver.states());
    let mut whole = Solver::new(game.initial_state());
    whole.walk(&game, Instant::now() + Duration::from_secs(5), || false);
    assert_eq!(whole.progress(), Progress::Done);
}
