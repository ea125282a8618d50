//! Unbalanced parentheses are a located error, not a panic.

mod bad {
    gdl_macros::gdl!(kif = "(role r) (init (p)");
}

fn main() {}
