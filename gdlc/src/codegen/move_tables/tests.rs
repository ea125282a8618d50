//! Tests of the tables of the moves: kinds of nodes, their parts by role, frames and the table's room.

use super::*;

fn node(rules: Vec<Vec<Lit>>) -> crate::ground::Node {
    crate::ground::Node { name: String::new(), rules }
}

fn ground_of(nodes: Vec<crate::ground::Node>) -> Ground {
    Ground {
        roles: vec!["a".into(), "b".into()],
        base: vec!["p".into()],
        moves: vec!["m0".into(), "m1".into(), "m2".into()],
        inputs: vec![vec![0, 1, 2], vec![0, 1, 2]],
        initial: Vec::new(),
        nodes,
        legal: vec![Vec::new(), Vec::new()],
        next: vec![Value::Const(false)],
        terminal: Value::Const(false),
        goals: vec![Vec::new(), Vec::new()],
        gdl_ii: false,
        random_role: None,
        percepts: Vec::new(),
        sees: Vec::new(),
        cycles: Vec::new(),
        deferred: Default::default(),
        deferred_atoms: Vec::new(),
    }
}

fn pos(prop: Prop) -> Lit {
    Lit { prop, positive: true }
}

fn neg(prop: Prop) -> Lit {
    Lit { prop, positive: false }
}

#[test]
fn kinds_follow_roles_through_negation_and_disjunction() {
    let nodes = vec![
        // 0: role 0 plays move 0 or 1.
        node(vec![vec![pos(Prop::Does(0, 0))], vec![pos(Prop::Does(0, 1))]]),
        // 1: role 1 does not play move 2.
        node(vec![vec![neg(Prop::Does(1, 2))]]),
        // 2: node 0 or node 1: split over the roles.
        node(vec![vec![pos(Prop::Node(0))], vec![pos(Prop::Node(1))]]),
        // 3: the negation of a split node reads both moves together.
        node(vec![vec![neg(Prop::Node(2))]]),
        // 4: a move of role 0 and one of role 1 together.
        node(vec![vec![pos(Prop::Does(0, 0)), pos(Prop::Does(1, 2))]]),
        // 5: reads the state.
        node(vec![vec![pos(Prop::Base(0)), pos(Prop::Node(0))]]),
    ];
    let ground = ground_of(nodes);
    assert_eq!(kinds(&ground), vec![Kind::Role(0), Kind::Role(1), Kind::Split, Kind::State, Kind::State, Kind::State]);
}

#[test]
fn a_full_table_keeps_the_nodes_that_save_the_most_literals() {
    // Node 0 is one move of role 0, one literal; node 1 a disjunction of twenty of its
    // moves, twenty literals; node 2 one literal more than the floor, node 3 one less.
    let moves: Vec<Vec<Lit>> = (0..3).map(|m| vec![pos(Prop::Does(0, m))]).collect();
    let mut nodes = vec![node(vec![vec![pos(Prop::Does(0, 0))]])];
    let wide: Vec<Vec<Lit>> = (0..20).map(|k| moves[k % 3].clone()).collect();
    nodes.push(node(wide));
    let long = |len: usize| node((0..len).map(|k| moves[k % 3].clone()).collect());
    nodes.push(long(MIN_SAVED_LITERALS + 1));
    nodes.push(long(MIN_SAVED_LITERALS - 1));
    let ground = ground_of(nodes);
    let kinds = kinds(&ground);
    assert_eq!(worth_most(&ground, &kinds, vec![0, 1, 2, 3], 1), vec![1]);
    assert_eq!(worth_most(&ground, &kinds, vec![0, 1, 2, 3], 2), vec![1, 2]);
    assert_eq!(worth_most(&ground, &kinds, vec![0, 1, 2, 3], 4), vec![1, 2]);
}

#[test]
fn parts_split_a_disjunction_by_role() {
    let nodes = vec![
        node(vec![vec![pos(Prop::Does(0, 0))], vec![pos(Prop::Does(0, 1))]]),
        node(vec![vec![neg(Prop::Does(1, 2))]]),
        node(vec![vec![pos(Prop::Node(0))], vec![pos(Prop::Node(1))]]),
    ];
    let ground = ground_of(nodes);
    let kinds = kinds(&ground);
    let part = |role, mv| {
        let mut parts = vec![false; 3];
        for n in 0..3 {
            parts[n as usize] = node_part(&ground, &kinds, n, role, mv, &parts);
        }
        parts
    };
    assert_eq!(part(0, 1), vec![true, false, true]);
    assert_eq!(part(0, 2), vec![false, false, false]);
    assert_eq!(part(1, 2), vec![false, false, false]);
    assert_eq!(part(1, 0), vec![false, true, true]);
}

/// A counter game: `tick` moves the count on (a rule that reads the state and one move),
/// `wait` keeps it (a frame rule), and `flag` is set by either move of its role.
const COUNTER: &str = "(role a) (init (count 0)) (succ 0 1) (succ 1 2) (succ 2 3)
    (legal a tick) (legal a wait)
    (<= (next (count ?y)) (true (count ?x)) (does a tick) (succ ?x ?y))
    (<= (next (count ?x)) (true (count ?x)) (does a wait))
    (<= (next flag) (does a tick))
    (<= (next flag) (does a wait))
    (<= terminal (true (count 3)))
    (goal a 100)";

#[test]
fn next_bits_become_keep_set_and_conditional_rows() {
    let description = crate::parse::parse(COUNTER, crate::parse::Syntax::Kif).description;
    let ground = crate::ground::ground(&description, &Default::default()).expect("grounds");
    let tables = MoveTables::new(&ground, &[]).expect("has tables");
    let base = |name: &str| ground.base.iter().position(|b| b == name).unwrap();
    let mv = |name: &str| ground.moves.iter().position(|m| m == name).unwrap();
    let (tick, wait) = (mv("tick"), mv("wait"));
    let words = tables.frame_words.len();
    let column = |i: usize| tables.frame_words.iter().position(|&w| w == i / 64).expect("a framed word");
    let has = |table: &[u64], m: usize, i: usize| table[m * words + column(i)] >> (i % 64) & 1 == 1;
    for count in ["(count 0)", "(count 1)", "(count 2)", "(count 3)"] {
        let i = base(count);
        assert!(tables.framed[i], "{count} is framed");
        assert!(has(&tables.keep_table[0], wait, i) && !has(&tables.keep_table[0], tick, i), "{count}");
        assert!(!has(&tables.set_table[0], wait, i) && !has(&tables.set_table[0], tick, i), "{count}");
    }
    // `tick` moves the count: (count 1) when (count 0) holds, and so on; `wait` sets nothing.
    let sets: Vec<(String, Vec<Lit>)> =
        tables.arms[0][tick].iter().map(|(i, c)| (ground.base[*i as usize].clone(), c.clone())).collect();
    assert_eq!(sets.len(), 3, "{sets:?}");
    assert!(sets.contains(&("(count 1)".into(), vec![pos(Prop::Base(base("(count 0)") as u32))])), "{sets:?}");
    assert!(tables.arms[0][wait].is_empty());
    let flag = base("flag");
    assert!(has(&tables.set_table[0], tick, flag) && has(&tables.set_table[0], wait, flag));
}

#[test]
fn a_frame_kept_by_a_condition_on_the_state_and_the_moves_is_tested_once() {
    // Bits 0 and 1 are kept when node 0 holds (the role in control passes: it reads the
    // state and the moves), or when role 0 plays move 1; role 0's move 0 sets bit 1. Bit 2
    // is kept by the condition alone.
    let passes =
        node(vec![vec![pos(Prop::Base(3)), pos(Prop::Does(0, 2))], vec![neg(Prop::Base(3)), pos(Prop::Does(1, 2))]]);
    let kept =
        |b: u32| vec![vec![pos(Prop::Base(b)), pos(Prop::Node(0))], vec![pos(Prop::Base(b)), pos(Prop::Does(0, 1))]];
    let mut bit1 = kept(1);
    bit1.push(vec![pos(Prop::Does(0, 0))]);
    let mut ground =
        ground_of(vec![passes, node(kept(0)), node(bit1), node(vec![vec![pos(Prop::Base(2)), pos(Prop::Node(0))]])]);
    ground.base = vec!["c0".into(), "c1".into(), "c2".into(), "control".into()];
    ground.next = vec![
        Value::Lit(pos(Prop::Node(1))),
        Value::Lit(pos(Prop::Node(2))),
        Value::Lit(pos(Prop::Node(3))),
        Value::Lit(pos(Prop::Base(3))),
    ];
    let tables = MoveTables::new(&ground, &[]).expect("has tables");
    assert_eq!(tables.framed, vec![true, true, true, false]);
    assert_eq!(tables.guards, vec![(vec![pos(Prop::Node(0))], vec![0b111])]);
    assert_eq!(tables.guard_values(), vec![Value::Lit(pos(Prop::Node(0)))]);
    assert_eq!((tables.keep_table[0][1], tables.set_table[0][0]), (0b011, 0b010));
}

#[test]
fn more_conditions_than_the_frames_may_test_leave_their_bits_unframed() {
    // Each of three bits is kept by a condition of its own: past [`MAX_GUARDS`], none is
    // framed by its condition.
    let conditions: Vec<crate::ground::Node> =
        (0..3).map(|b| node(vec![vec![pos(Prop::Base(3 + b)), pos(Prop::Does(0, 2))]])).collect();
    let mut nodes = conditions;
    nodes.extend((0..3).map(|b| node(vec![vec![pos(Prop::Base(b)), pos(Prop::Node(b))]])));
    let mut ground = ground_of(nodes);
    ground.base = (0..6).map(|b| format!("f{b}")).collect();
    ground.next = (0..6).map(|b| Value::Lit(pos(if b < 3 { Prop::Node(3 + b) } else { Prop::Base(b) }))).collect();
    assert!(MoveTables::new(&ground, &[]).is_none_or(|tables| tables.guards.is_empty() && !tables.has_frames()));
}

#[test]
fn nodes_at_the_places_of_a_board_keep_their_distances_in_a_row() {
    let text = include_str!("../../../tests/fixtures/table_words.kif");
    let ground = crate::compile::ground_source(text, &Default::default()).expect("grounds");
    let named = |head: &str| -> Vec<u32> {
        (0..ground.nodes.len() as u32).filter(|&n| ground.nodes[n as usize].name.starts_with(head)).collect()
    };
    let (to, from) = (named("(moved_to "), named("(moved_from "));
    assert_eq!((to.len(), from.len()), (9, 9));
    // One node of a relation with too few nodes for a board, which takes a bit the boards leave.
    let lone = named("(blocked ")[0];
    let looked_up: Vec<u32> = to.iter().chain([&lone]).chain(&from).copied().collect();
    let (bits, words) = node_layout(&ground, &looked_up, placed_layout(&ground, &looked_up), 8);
    assert_eq!(words, 1);
    // A cell's place is the bit of the cell on the first board of the state.
    let place = |name: &str| {
        let cell = name.trim_start_matches("(moved_to ").trim_start_matches("(moved_from ").trim_end_matches(')');
        let facts = ["red", "blue"].map(|piece| format!("(cell {cell} {piece})"));
        let first = ground.base.iter().position(|b| facts.contains(b)).expect("a cell of the board");
        first as i64 % 64
    };
    let mut all = 0u64;
    for group in [&to, &from] {
        let bit = |n: u32| i64::from(bits[n as usize].expect("placed"));
        let offset = bit(group[0]) - place(&ground.nodes[group[0] as usize].name);
        for &n in group.iter() {
            assert_eq!(bit(n) - place(&ground.nodes[n as usize].name), offset);
            all |= 1 << bit(n);
        }
    }
    assert_eq!(all.count_ones(), 18);
    assert_eq!(all >> bits[lone as usize].expect("a bit") & 1, 0);
    // Without the room for that, the nodes take consecutive bits in their order.
    let (bits, words) = node_layout(&ground, &looked_up, placed_layout(&ground, &looked_up), 0);
    assert_eq!(words, 1);
    let consecutive: Vec<Option<u32>> = (0..19).map(Some).collect();
    assert_eq!(looked_up.iter().map(|&n| bits[n as usize]).collect::<Vec<_>>(), consecutive);
}

#[test]
fn a_board_takes_the_first_word_with_room_at_its_distances() {
    let mut taken = vec![0b1011u64];
    assert_eq!(room_for(&mut taken, 0b101), (0, 2));
    assert_eq!(room_for(&mut taken, 1 << 63 | 1), (1, 0));
    assert_eq!(taken.len(), 2);
    let mut full = vec![u64::MAX];
    assert_eq!(room_for(&mut full, 1), (1, 0));
}

#[test]
fn nodes_read_as_moves_are_not_looked_up() {
    let nodes = vec![
        // 0: move 1 is played, by either role.
        node(vec![vec![pos(Prop::Does(0, 1))], vec![pos(Prop::Does(1, 1))]]),
        // 1: role 0 plays move 0 or move 2.
        node(vec![vec![pos(Prop::Does(0, 0))], vec![pos(Prop::Does(0, 2))]]),
        // 2, 3: each of them and a fact; 4: either.
        node(vec![vec![neg(Prop::Base(1)), pos(Prop::Node(0))]]),
        node(vec![vec![neg(Prop::Base(1)), pos(Prop::Node(1))]]),
        node(vec![vec![pos(Prop::Node(2))], vec![pos(Prop::Node(3))]]),
    ];
    let mut ground = ground_of(nodes);
    ground.base = vec!["p".into(), "q".into()];
    ground.next = vec![Value::Lit(pos(Prop::Node(4))), Value::Const(false)];
    assert_eq!(ground.nodes[0].move_played(), Some(1));
    assert_eq!(ground.nodes[1].move_played(), None);
    let all = MoveTables::new(&ground, &[]).expect("both are looked up");
    assert!(all.node_bit[0].is_some() && all.node_bit[1].is_some());
    let tables = MoveTables::new(&ground, &[0]).expect("node 1 is looked up");
    assert_eq!(tables.node_bit[0], None);
    assert!(tables.node_bit[1].is_some());
}
