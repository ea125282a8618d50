//! The bundled games of `games/`, compiled by gdlc and checked in (see `games/mod.rs`, written
//! by `cargo codegen`), plus a game embedded with the `gdl!` macro, which expands to the same
//! code while this crate compiles. The rtGDL games of `games/rtgdl/` are in `realtime/`.

pub mod games;
pub mod realtime;

/// `games/ticTacToe.kif` compiled by `gdl!` as this crate compiles: the same items as
/// [`games::tic_tac_toe`].
pub mod tic_tac_toe_embedded {
    gdl_macros::gdl!("../games/ticTacToe.kif");
}

/// A game given inline to `gdl!` in the infix syntax: a counter that ends when it reaches 3.
pub mod counter_embedded {
    gdl_macros::gdl!(
        kif = r#"
        role(player)
        init(count(0))
        succ(0, 1)  succ(1, 2)  succ(2, 3)
        legal(player, tick)
        legal(player, wait)
        next(count(Y)) :- true(count(X)) & does(player, tick) & succ(X, Y)
        next(count(X)) :- true(count(X)) & does(player, wait)
        terminal :- true(count(3))
        goal(player, 100) :- true(count(3))
        goal(player, 0) :- ~true(count(3))
    "#
    );
}
