//! Tests of the table form's evaluator: encoding, evaluation and damaged tables.

use super::*;

/// A one-role game over facts p (0) and q (1): `a` is legal when p holds, `b` always;
/// next p = does a, next q = reach, with reach a recursive pair seeded by p. Terminal when
/// q holds; goal 100 when q, else 0.
pub(crate) fn sample() -> Program {
    let mut p = Program::default();
    let base = |i| literal_code(Literal::Base(i), true);
    let node = |i| literal_code(Literal::Node(i), true);
    // Node 0: reach_a :- p. | reach_a :- reach_b.   Node 1: reach_b :- reach_a.
    let rules = [vec![vec![base(0)], vec![node(1)]], vec![vec![node(0)]]];
    p.node_rules.push(0);
    p.rule_literals.push(0);
    for node_rules in rules {
        for rule in node_rules {
            p.literals.extend(rule);
            p.rule_literals.push(p.literals.len() as u32);
        }
        p.node_rules.push(p.rule_literals.len() as u32 - 1);
    }
    p.cycles = vec![(0, 2)];
    p.move_cone = vec![0, 1];
    p.does = vec![(0, 0)];
    let always = literal_code(Literal::Const(true), true);
    p.legal = vec![vec![(0, base(0)), (1, always)]];
    p.next = vec![literal_code(Literal::Does(0), true), node(1)];
    p.terminal = base(1);
    p.goals = vec![vec![(100, base(1)), (0, literal_code(Literal::Base(1), false))]];
    p
}

#[test]
fn encoding_round_trips_through_text() {
    let program = sample();
    let text = words_to_text(&program.encode());
    assert!(text.chars().all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '/'));
    let decoded = Program::decode(&text_to_words(&text).unwrap()).unwrap();
    assert_eq!(decoded.encode(), program.encode());
}

#[test]
fn evaluation_follows_the_rules_and_recursive_groups() {
    let program = sample();
    let mut moves = Vec::new();
    program.legal(&[0b01], 0, |m| moves.push(m));
    assert_eq!(moves, [0, 1]);
    moves.clear();
    program.legal(&[0b00], 0, |m| moves.push(m));
    assert_eq!(moves, [1]);
    let mut next = [0u64];
    program.next(&[0b01], &[0], &mut next);
    assert_eq!(next, [0b11], "p seeds the recursive pair, and a sets p");
    program.next(&[0b00], &[1], &mut next);
    assert_eq!(next, [0b00]);
    assert!(program.terminal(&[0b10]) && !program.terminal(&[0b01]));
    let mut goals = [None];
    program.goals(&[0b10], &mut goals);
    assert_eq!(goals, [Some(100)]);
    program.goals(&[0b00], &mut goals);
    assert_eq!(goals, [Some(0)]);
}

#[test]
fn damaged_tables_are_refused() {
    let words = sample().encode();
    assert!(Program::decode(&words[..words.len() - 1]).is_err());
    let mut wrong_magic = words.clone();
    wrong_magic[0] ^= 1;
    assert!(Program::decode(&wrong_magic).is_err());
    let mut bad_literal = sample();
    bad_literal.literals[0] = KIND_NODE << KIND_SHIFT | 99;
    assert!(Program::decode(&bad_literal.encode()).is_err());
    assert!(text_to_words("not base64!").is_err());
}
