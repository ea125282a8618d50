//! A game with two unsafe rules gets two errors, one `compile_error!` each.

mod bad {
    gdl_macros::gdl!(
        kif = r#"(role r) (init p)
(<= (legal r ?m) (true p))
(<= (next ?q) (true p))
(<= terminal (true p)) (goal r 0)"#
    );
}

fn main() {}
