//! The bundled games of `games/`, embedded with `gdl!`: each is parsed and checked when this
//! crate compiles (an invalid game fails the build with `FILE:LINE:COL`), and loaded into the
//! reference interpreter on call.

use gdl_macros::gdl;
use gdlc::interp::Interpreter;

pub fn tic_tac_toe() -> Result<Interpreter, String> {
    gdl!("../games/ticTacToe.kif")
}

pub fn connect_four() -> Result<Interpreter, String> {
    gdl!("../games/connectFour.kif")
}

pub fn breakthrough() -> Result<Interpreter, String> {
    gdl!("../games/breakthrough.kif")
}

/// A game written inline, in the infix syntax.
pub fn button_and_lights() -> Result<Interpreter, String> {
    gdl!(
        kif = r#"
        role(robot)
        init(off)
        legal(robot, press) :- ~true(on)
        legal(robot, wait)
        next(on) :- does(robot, press)
        next(on) :- true(on)
        terminal :- true(on)
        goal(robot, 100) :- true(on)
        goal(robot, 0) :- ~true(on)
    "#
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use gdl_runtime::Game;

    #[test]
    fn embedded_games_load_and_play() {
        let ttt = tic_tac_toe().unwrap();
        assert_eq!((ttt.role_name(0), ttt.role_name(1)), ("xplayer", "oplayer"));
        let mut moves = Vec::new();
        ttt.legal_moves(&ttt.initial_state(), 0, &mut moves);
        assert_eq!(moves.len(), 9);
        assert!(connect_four().is_ok() && breakthrough().is_ok());
    }

    #[test]
    fn the_inline_infix_game_evaluates() {
        let game = button_and_lights().unwrap();
        let s = game.initial_state();
        let press = game.parse_move(0, "press").unwrap();
        let s = game.next_state(&s, &[press]);
        assert!(game.is_terminal(&s));
        assert_eq!(game.goals(&s), vec![Some(100)]);
    }
}
