//! A small search over any `Game`: the exact value of a two-role, turn-taking game by
//! minimax with a table of the states already valued, here ticTacToe's (a draw). The same
//! function reads any game of the `Game` trait, compiled or interpreted. Run it with
//! `cargo run --release -p generated --example search`.

mod tic_tac_toe {
    gdl_macros::gdl!("../games/ticTacToe.kif");
}

use gdl_runtime::Game;
use std::collections::HashMap;

/// Every role's goal in `state` under perfect play, where in every state at most one role has
/// more than one legal move (the others play `noop`) and that role picks the joint move best
/// for itself. `known` keeps the states already valued.
fn value<G: Game>(game: &G, state: &G::State, known: &mut HashMap<G::State, Vec<u32>>) -> Vec<u32> {
    if let Some(goals) = known.get(state) {
        return goals.clone();
    }
    let goals = if game.is_terminal(state) {
        game.goals(state).into_iter().map(|g| g.unwrap_or(0)).collect()
    } else {
        let mut moves = Vec::new();
        game.all_legal_moves(state, &mut moves);
        // The role to move: the one with a choice (the first role when nobody has one).
        let mover = moves.iter().position(|m| m.len() > 1).unwrap_or(0);
        let mut best: Option<Vec<u32>> = None;
        for choice in &moves[mover] {
            let joint: Vec<G::Move> =
                moves.iter().enumerate().map(|(r, m)| if r == mover { choice.clone() } else { m[0].clone() }).collect();
            let goals = value(game, &game.next_state(state, &joint), known);
            if best.as_ref().is_none_or(|b| goals[mover] > b[mover]) {
                best = Some(goals);
            }
        }
        best.unwrap_or_else(|| vec![0; game.num_roles()])
    };
    known.insert(state.clone(), goals.clone());
    goals
}

fn main() {
    let game = tic_tac_toe::Game;
    let mut known = HashMap::new();
    let goals = value(&game, &game.initial_state(), &mut known);
    for (role, goal) in goals.iter().enumerate() {
        println!("{}: {goal} with perfect play", game.role_name(role));
    }
    println!("{} states valued", known.len());
    assert_eq!(goals, [50, 50], "ticTacToe is a draw");
}
