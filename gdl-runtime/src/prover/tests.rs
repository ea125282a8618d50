//! Tests of the prover: recursion guarded and tabled, negation, lookups through indexes, and
//! the validation of decoded tables.

use super::*;

const A: u32 = 0;
const B: u32 = 1;
const C: u32 = 2;
const fn var(i: u32) -> u32 {
    VAR | i
}

/// Symbols a, b, c; the state's facts `(open X Y)` are base facts 0..9 (X*3+Y). Relations:
/// 0 `(path X Y)`: `(open X Y)`, or `(open X Z) (path Z Y)` — recursive, called bound;
/// 1 `(out X Y)`: `(open X Y)` — called with X bound and Y free;
/// 2 `(elsewhere X)`: `(out X Y) (distinct X Y) (not (path Y X))`.
fn sample() -> Deferred {
    let mut open = Table { arity: 2, state: true, rows: Vec::new() };
    for x in [A, B, C] {
        for y in [A, B, C] {
            open.rows.extend([x, y, x * 3 + y]);
        }
    }
    let open_goal = |a, b| Goal::Table { table: 0, positive: true, args: vec![a, b] };
    let path = Relation {
        arity: 2,
        recursive: true,
        tabled: false,
        variants: vec![Variant {
            bound: 0b11,
            rules: vec![
                Rule { vars: 2, head: vec![var(0), var(1)], goals: vec![open_goal(var(0), var(1))] },
                Rule {
                    vars: 3,
                    head: vec![var(0), var(1)],
                    goals: vec![
                        open_goal(var(0), var(2)),
                        Goal::Call { relation: 0, positive: true, args: vec![var(2), var(1)] },
                    ],
                },
            ],
        }],
    };
    let out = Relation {
        arity: 2,
        recursive: false,
        tabled: false,
        variants: vec![Variant {
            bound: 0b01,
            rules: vec![Rule { vars: 2, head: vec![var(0), var(1)], goals: vec![open_goal(var(0), var(1))] }],
        }],
    };
    let elsewhere = Relation {
        arity: 1,
        recursive: false,
        tabled: false,
        variants: vec![Variant {
            bound: 0b1,
            rules: vec![Rule {
                vars: 2,
                head: vec![var(0)],
                goals: vec![
                    Goal::Call { relation: 1, positive: true, args: vec![var(0), var(1)] },
                    Goal::Distinct { positive: true, a: var(0), b: var(1) },
                    Goal::Call { relation: 0, positive: false, args: vec![var(1), var(0)] },
                ],
            }],
        }],
    };
    Deferred {
        relations: vec![path, out, elsewhere],
        tables: vec![open],
        atoms: vec![(0, vec![A, C]), (0, vec![C, A]), (2, vec![A]), (2, vec![B])],
        patterns: Vec::new(),
        indexes: Indexes::default(),
    }
}

fn state(edges: &[(u32, u32)]) -> [u64; 1] {
    [edges.iter().fold(0, |w, &(x, y)| w | 1 << (x * 3 + y))]
}

#[test]
fn recursion_follows_the_state_and_ends_on_cycles() {
    let checks = sample();
    // a -> b -> a (a cycle) and b -> c: a reaches c; c reaches nothing.
    let s = state(&[(A, B), (B, A), (B, C)]);
    assert!(checks.holds(&s, 0));
    assert!(!checks.holds(&s, 1));
    let s = state(&[(A, B), (B, A)]);
    assert!(!checks.holds(&s, 0), "the cycle a-b never reaches c");
}

#[test]
fn free_arguments_are_enumerated_and_negations_read_bound_calls() {
    let checks = sample();
    // elsewhere(a): a -> b with b not reaching a back.
    assert!(checks.holds(&state(&[(A, B)]), 2));
    assert!(!checks.holds(&state(&[(A, B), (B, A)]), 2));
    assert!(checks.holds(&state(&[(A, B), (B, A), (A, C)]), 2), "c does not lead back to a");
    assert!(!checks.holds(&state(&[(A, A)]), 2), "a loop to itself is not elsewhere");
    assert!(!checks.holds(&state(&[(A, B)]), 3));
}

#[test]
fn a_rule_with_fewer_variables_after_a_matched_head_is_searched_safely() {
    // (r X): a first rule whose head binds its third variable (its body then fails), a
    // second with one variable whose constant head does not match, and a third that holds.
    let mut checks = sample();
    let open_goal = |a, b| Goal::Table { table: 0, positive: true, args: vec![a, b] };
    checks.relations.push(Relation {
        arity: 1,
        recursive: false,
        tabled: false,
        variants: vec![Variant {
            bound: 0b1,
            rules: vec![
                Rule { vars: 3, head: vec![var(2)], goals: vec![open_goal(var(2), var(2))] },
                Rule { vars: 1, head: vec![B], goals: Vec::new() },
                Rule { vars: 1, head: vec![var(0)], goals: vec![open_goal(var(0), B)] },
            ],
        }],
    });
    checks.atoms.push((3, vec![A]));
    assert!(checks.holds(&state(&[(A, B)]), 4));
    assert!(!checks.holds(&state(&[(B, A)]), 4));
}

#[test]
fn a_static_table_is_looked_up_by_a_later_column() {
    // (succ x y) for x in 10..30, and (has_pred ?y) :- (succ ?x ?y), (distinct ?x 20):
    // called with ?y bound, the lookup binds ?x through the index on the second column.
    let mut succ = Table { arity: 2, state: false, rows: Vec::new() };
    for x in 10..30 {
        succ.rows.extend([x, x + 1]);
    }
    let rule = Rule {
        vars: 2,
        head: vec![var(0)],
        goals: vec![
            Goal::Table { table: 0, positive: true, args: vec![var(1), var(0)] },
            Goal::Distinct { positive: true, a: var(1), b: 20 },
        ],
    };
    let checks = Deferred {
        relations: vec![relation(1, false, false, 0b1, vec![rule])],
        tables: vec![succ],
        atoms: (5..35).map(|y| (0, vec![y])).collect(),
        ..Deferred::default()
    };
    for y in 5..35u32 {
        let expected = (11..=30).contains(&y) && y != 21;
        assert_eq!(checks.holds(&[], y - 5), expected, "has_pred {y}");
    }
    assert_eq!(checks.indexes.0.read().unwrap().len(), 1, "one index, on the second column");
}

#[test]
fn encoding_round_trips_and_damage_is_refused() {
    let checks = sample();
    let mut words = Vec::new();
    checks.encode(&mut words);
    let mut at = 0;
    assert_eq!(Deferred::decode(&words, &mut at).unwrap(), checks);
    assert_eq!(at, words.len());
    let mut at = 0;
    assert!(Deferred::decode(&words[..words.len() - 1], &mut at).is_err());
    let mut bad = checks.clone();
    bad.atoms.push((7, vec![]));
    let mut words = Vec::new();
    bad.encode(&mut words);
    assert!(Deferred::decode(&words, &mut 0).is_err());
}

fn relation(arity: u32, recursive: bool, tabled: bool, bound: u64, rules: Vec<Rule>) -> Relation {
    Relation { arity, recursive, tabled, variants: vec![Variant { bound, rules }] }
}

fn call(relation: u32, positive: bool, args: Vec<u32>) -> Goal {
    Goal::Call { relation, positive, args }
}

/// Symbols a, b, c, then `nil` (3) and `list` (4); the state's facts `(edge X Y)` as in
/// [`sample`]. Patterns: 0 `(list ?0 ?1)`, 1 `(list ?2 ?1)`, 2 `(list a nil)`. Relations:
/// 0 `(member E L)`: `(member ?0 (list ?0 ?1))`, `(member ?0 (list ?2 ?1)) :- (member ?0 ?1)`,
///   recursive and called bound;
/// 1 `(conn X Y V)`, the simple paths from X avoiding the list V, called with Y free (so
///   tabled): `(edge ?0 ?1) (not (member ?1 ?2))`, and
///   `(edge ?0 ?3) (not (member ?3 ?2)) (conn ?3 ?1 (list ?3 ?2))`;
/// 2 `(tc X Y)`, left-recursive and called with Y free: `(edge ?0 ?1)`, `(tc ?0 ?2) (edge ?2 ?1)`;
/// 3 `(hits W)`: `(tc a ?1) (= ?1 ?0)`; 4 `(goes W)`: `(conn a ?1 (list a nil)) (= ?1 ?0)`.
fn lists() -> Deferred {
    const NIL: u32 = 3;
    const LIST: u32 = 4;
    let mut checks = sample();
    let edge = |a, b| Goal::Table { table: 0, positive: true, args: vec![a, b] };
    let member = relation(
        2,
        true,
        false,
        0b11,
        vec![
            Rule { vars: 2, head: vec![var(0), FUNC], goals: vec![] },
            Rule { vars: 3, head: vec![var(0), FUNC | 1], goals: vec![call(0, true, vec![var(0), var(1)])] },
        ],
    );
    let conn = relation(
        3,
        true,
        true,
        0b101,
        vec![
            Rule {
                vars: 3,
                head: vec![var(0), var(1), var(2)],
                goals: vec![edge(var(0), var(1)), call(0, false, vec![var(1), var(2)])],
            },
            Rule {
                vars: 5,
                head: vec![var(0), var(1), var(2)],
                goals: vec![
                    edge(var(0), var(3)),
                    call(0, false, vec![var(3), var(2)]),
                    call(1, true, vec![var(3), var(1), FUNC | 3]),
                ],
            },
        ],
    );
    let tc = relation(
        2,
        true,
        true,
        0b01,
        vec![
            Rule { vars: 2, head: vec![var(0), var(1)], goals: vec![edge(var(0), var(1))] },
            Rule {
                vars: 3,
                head: vec![var(0), var(1)],
                goals: vec![call(2, true, vec![var(0), var(2)]), edge(var(2), var(1))],
            },
        ],
    );
    let equal = Goal::Distinct { positive: false, a: var(1), b: var(0) };
    let hits = relation(
        1,
        false,
        false,
        0b1,
        vec![Rule { vars: 2, head: vec![var(0)], goals: vec![call(2, true, vec![A, var(1)]), equal.clone()] }],
    );
    let goes = relation(
        1,
        false,
        false,
        0b1,
        vec![Rule { vars: 2, head: vec![var(0)], goals: vec![call(1, true, vec![A, var(1), FUNC | 2]), equal] }],
    );
    checks.relations = vec![member, conn, tc, hits, goes];
    checks.patterns = vec![
        Pattern { functor: LIST, args: vec![var(0), var(1)] },
        Pattern { functor: LIST, args: vec![var(2), var(1)] },
        Pattern { functor: LIST, args: vec![A, NIL] },
        Pattern { functor: LIST, args: vec![var(3), var(2)] },
    ];
    checks.atoms = vec![(3, vec![C]), (3, vec![A]), (4, vec![C]), (4, vec![A]), (1, vec![B, A, FUNC | 2])];
    checks
}

#[test]
fn compound_terms_are_built_matched_and_compared() {
    let checks = lists();
    // a -> b -> c: a simple path from a reaches c but never returns to a.
    let s = state(&[(A, B), (B, C)]);
    assert!(checks.holds(&s, 2));
    assert!(!checks.holds(&s, 3));
    // With c -> a the path could return to a, but a is on the visited list.
    let s = state(&[(A, B), (B, C), (C, A)]);
    assert!(checks.holds(&s, 2));
    assert!(!checks.holds(&s, 3), "a is visited");
    // (conn b a (list a nil)): b -> a directly is a's own cell, which is visited.
    assert!(!checks.holds(&state(&[(B, A)]), 4));
    assert!(!checks.holds(&state(&[(B, C), (C, A)]), 4), "a is on the list");
    let mut words = Vec::new();
    checks.encode(&mut words);
    assert_eq!(Deferred::decode(&words, &mut 0).unwrap(), checks);
}

#[test]
fn left_recursion_with_free_arguments_reaches_its_fixpoint() {
    let checks = lists();
    let s = state(&[(A, B), (B, C)]);
    assert!(checks.holds(&s, 0), "a reaches c through b");
    assert!(!checks.holds(&s, 1), "nothing leads back to a");
    let s = state(&[(A, B), (B, C), (C, A)]);
    assert!(checks.holds(&s, 0) && checks.holds(&s, 1));
    assert!(!checks.holds(&state(&[(B, C), (C, A)]), 0), "a has no edge out");
}

#[test]
fn damaged_patterns_are_refused() {
    let mut bad = lists();
    bad.patterns[0].args[0] = FUNC | 3;
    let mut words = Vec::new();
    bad.encode(&mut words);
    assert!(Deferred::decode(&words, &mut 0).is_err(), "a pattern may only refer to earlier ones");
    let mut bad = lists();
    bad.atoms.push((3, vec![FUNC]));
    let mut words = Vec::new();
    bad.encode(&mut words);
    assert!(Deferred::decode(&words, &mut 0).is_err(), "an atom's pattern has variables");
}
