//! Tests of grounding on small games.

use super::*;
use crate::parse::{parse, Syntax};

fn ground_kif(text: &str) -> Ground {
    let d = parse(text, Syntax::Kif).description;
    ground(&d, &Options::default()).expect("grounds")
}

#[test]
fn placeholder_compiles() {
    let g = ground_kif("(role a) (init p) (<= (next p) (true p)) (legal a x) (<= terminal (true p)) (goal a 100)");
    assert_eq!(g.base, vec!["p".to_string()]);
}
