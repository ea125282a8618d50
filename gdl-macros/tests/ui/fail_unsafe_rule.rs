//! A rule whose head variable is not bound by its body is rejected with its location.

mod bad {
    gdl_macros::gdl!(
        kif = r#"(role r) (init p)
(<= (legal r ?m) (true p))
(<= terminal (true p)) (goal r 0)"#
    );
}

fn main() {}
