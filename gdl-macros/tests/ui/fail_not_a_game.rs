//! The macro's own input must be a path string or `kif = "..."`.

mod bad {
    gdl_macros::gdl!(game = "ticTacToe.kif");
}

fn main() {}
