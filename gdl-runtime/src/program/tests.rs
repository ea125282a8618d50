//! Tests of the table form's evaluator: encoding, evaluation and damaged tables.

use super::*;
use crate::rng::Rng;

/// A one-role game over facts p (0) and q (1): `a` is legal when p holds, `b` always;
/// next p = does a, next q = reach, with reach a recursive pair seeded by p. Terminal when
/// q holds; goal 100 when q, else 0.
pub(crate) fn sample() -> Program {
    let mut p = Program::default();
    // Node 0: reach_a :- p. | reach_a :- reach_b.   Node 1: reach_b :- reach_a.
    add_rules(&mut p, [vec![vec![base(0, true)], vec![node(1)]], vec![vec![node(0)]]]);
    p.cycles = vec![(0, 2)];
    p.move_cone = vec![0, 1];
    p.does = vec![(0, 0)];
    let always = literal_code(Literal::Const(true), true);
    p.legal = vec![vec![(0, base(0, true)), (1, always)]];
    p.next = vec![literal_code(Literal::Does(0), true), node(1)];
    p.terminal = base(1, true);
    p.goals = vec![vec![(100, base(1, true)), (0, base(1, false))]];
    p
}

/// The literal of base fact `i`, or of its negation.
fn base(i: u32, positive: bool) -> u32 {
    literal_code(Literal::Base(i), positive)
}

/// The literal of proposition `i`.
fn node(i: u32) -> u32 {
    literal_code(Literal::Node(i), true)
}

/// The literal of entry `i` of [`Program::does`], played.
fn does(i: u32) -> u32 {
    literal_code(Literal::Does(i), true)
}

/// Gives empty program `p` the rules `rules`: for every proposition in order, the bodies of its
/// rules.
fn add_rules(p: &mut Program, rules: impl IntoIterator<Item = Vec<Vec<u32>>>) {
    p.node_rules.push(0);
    p.rule_literals.push(0);
    for node_rules in rules {
        for rule in node_rules {
            p.literals.extend(rule);
            p.rule_literals.push(p.literals.len() as u32);
        }
        p.node_rules.push(p.rule_literals.len() as u32 - 1);
    }
}

/// Every state and move of the sample game, evaluated incrementally in a long walk, gives the
/// values a full evaluation gives.
#[test]
fn incremental_values_follow_full_evaluation() {
    let sample = sample();
    let net = net::Net::new(&sample).expect("the sample has no run-time relations");
    let program = net.program(&sample);
    let mut live = Live::new(program, &net);
    let walk = [(0b01u64, 0u32), (0b00, 1), (0b11, 0), (0b10, 1), (0b01, 1), (0b11, 0), (0b00, 0)];
    for (state, m) in walk {
        live.set_state(program, &net, &[state]);
        live.set_joint(program, &net, &[m]);
        let mut full = Values::default();
        full.reset(program);
        program.evaluate(&[state], &[m], &net.members, &mut full);
        assert_eq!(live.values.nodes, full.nodes, "state {state:#b}, move {m}");
    }
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
    let mut bad_initial = sample();
    bad_initial.initial = vec![2];
    assert!(Program::decode(&bad_initial.encode()).is_err());
    assert!(text_to_words("not base64!").is_err());
}

/// A one-role game over a turn fact `t` (base 0) that flips at every step, its negation `u`
/// (base 1) and a fact `c` (base 2) that never holds, with 1,100 propositions each derived by
/// one rule `t, other` (`turn`) or `not t, other`: enough rules that `t` is a crowded atom.
/// Move 0 is always legal, and move `k + 1` when proposition `k` holds, so that every
/// proposition is read.
fn crowded(other: u32, turn: bool) -> Program {
    crowded_by(1100, other, turn)
}

/// [`crowded`] with `rules` propositions rather than 1100.
fn crowded_by(rules: u32, other: u32, turn: bool) -> Program {
    let always = literal_code(Literal::Const(true), true);
    let mut p = Program::default();
    add_rules(&mut p, (0..rules).map(|_| vec![vec![base(0, turn), base(other, true)]]));
    p.legal = vec![std::iter::once((0, always)).chain((0..rules).map(|k| (k + 1, node(k)))).collect()];
    p.next = vec![base(0, false), base(0, true), base(2, true)];
    p.terminal = literal_code(Literal::Const(false), true);
    p.goals = vec![vec![(0, always)]];
    p.state_cone = (0..rules).collect();
    p.initial = vec![0];
    p
}

/// The rules of a crowded atom are watched when the literal they wait on rarely becomes true
/// (`not t, c`: they wait on `c` for good), and counted when every literal changes at every
/// step (`not t, u`: a watch would wake at every step, at the cost of many counts). Either way
/// the incremental evaluation gives the values a full evaluation gives. (A negated turn is no
/// gate; `u` gates the rules of the second kind, see [`gates`], which then read `not t` alone.)
#[test]
fn a_sample_of_playouts_tells_which_crowded_rules_to_watch() {
    for (other, watch) in [(2, true), (1, false)] {
        let program = crowded(other, false);
        let net = net::Net::new(&program).expect("the program reads no run-time atom");
        assert!(net.watched.iter().all(|&w| w == watch), "rules `not t, {other}` watched: {watch}");
        let program = net.program(&program);
        let mut live = Live::new(program, &net);
        for state in [0b001u64, 0b011, 0b010, 0b111, 0b000, 0b011, 0b101] {
            live.set_state(program, &net, &[state]);
            let mut full = Values::default();
            full.reset(program);
            program.evaluate(&[state], &[], &net.members, &mut full);
            assert_eq!(live.values.nodes, full.nodes, "rules `not t, {other}`, state {state:#b}");
        }
    }
}

/// The rules of an atom that tens of rules read are watched only in the network of the wider
/// crowd (see [`net::Net::new`]), when the sample finds that cheaper; the race between the two
/// networks gives one of them.
#[test]
fn the_wider_crowd_watches_the_rules_of_an_atom_of_tens_of_readers() {
    let program = crowded_by(40, 2, false);
    let crowded = net::Net::shaped(&program, net::CROWDED_READERS).expect("no run-time atom");
    let wide = net::Net::shaped(&program, net::WIDE_READERS).expect("no run-time atom");
    assert!(crowded.watched.iter().all(|&w| !w), "40 readers are not a crowd of {}", net::CROWDED_READERS);
    assert!(wide.watched.iter().all(|&w| w), "40 readers are a crowd of {}", net::WIDE_READERS);
    let raced = net::Net::new(&program).expect("no run-time atom");
    assert!(raced.watched == crowded.watched || raced.watched == wide.watched);
}

/// A random step from one incremental evaluation draws the move a full evaluation's terminal,
/// legal and next would draw from the same seed, and gives the same next state.
#[test]
fn a_random_step_of_the_incremental_evaluation_follows_full_passes() {
    random_steps_follow_full_passes(false);
}

/// A jump that copies the evaluation of an earlier state back, and then changes the facts in
/// which the two differ, gives what full passes give.
#[test]
fn a_jump_from_a_snapshot_follows_full_passes() {
    let toggled = net::Net::new(&toggled()).expect("the program reads no run-time atom");
    assert!(toggled.watched.contains(&true), "some jumps copy watched rules");
    random_steps_follow_full_passes(true);
}

/// Random steps of one incremental evaluation (every change of state a jump from the snapshot
/// of the first when `always_jump`) against full passes and against an evaluation brought to
/// each state fact by fact, on programs of every kind of network.
fn random_steps_follow_full_passes(always_jump: bool) {
    let singles = [(singles(), 0b00u64), (singles(), 0b01), (singles(), 0b10), (singles(), 0b11)];
    let others = [(sample(), 0b01u64), (sample(), 0b00), (mixed_turns(), 0b01), (mixed_turns(), 0b11)];
    let counted =
        [(counted(), 0b000u64), (counted(), 0b011), (counted(), 0b101), (toggled(), 0b0001), (toggled(), 0b1000)];
    let long = [(long(), 0b000u64), (long(), 0b011), (long(), 0b110)];
    let turns = [(1, false, 0b001), (2, false, 0b011), (1, true, 0b001), (2, true, 0b011)];
    let crowded = turns.map(|(other, turn, start)| (crowded(other, turn), start));
    let tens = turns.map(|(other, turn, start)| (crowded_by(40, other, turn), start));
    let asked = [(asked(), 0b000u64), (asked(), 0b011), (asked(), 0b101), (asked(), 0b111)];
    let programs = singles.into_iter().chain(others).chain(crowded).chain(counted).chain(long).chain(tens).chain(asked);
    let shapes = programs.flat_map(|(program, start)| {
        [net::CROWDED_READERS, net::WIDE_READERS].map(|readers| (program.clone(), start, readers))
    });
    for (program, start, readers) in shapes {
        // The network of the program that asks for its propositions that can be (see
        // [`lazy`]), when it has some, against full passes of the program itself.
        let evaluated = lazy::recode(&program).unwrap_or_else(|| program.clone());
        let net = net::Net::shaped(&evaluated, readers).expect("the program reads no run-time atom");
        let mut live = Live::new(net.program(&evaluated), &net);
        // An evaluation brought to every state fact by fact, which one that jumps agrees with.
        let mut by_facts = Live::new(net.program(&evaluated), &net);
        if always_jump {
            live.always_jump();
        }
        let (mut joint, mut passes_joint) = (Vec::new(), Vec::new());
        for seed in 0..60 {
            let (mut rng, mut passes_rng) = (Rng::seeded(seed), Rng::seeded(seed));
            let mut state = vec![start];
            for _ in 0..12 {
                let (mut out, mut passes_out) = (vec![0u64], vec![0u64]);
                let stepped = live.random_step(net.program(&evaluated), &net, &state, &mut joint, &mut rng, &mut out);
                let passes_stepped =
                    step_in_passes(&program, &state, &mut passes_rng, &mut passes_joint, &mut passes_out);
                assert_eq!((stepped, &out), (passes_stepped, &passes_out), "seed {seed}, state {state:?}");
                if !stepped {
                    break;
                }
                assert_eq!(joint, passes_joint, "seed {seed}, state {state:?}");
                by_facts.set_state(net.program(&evaluated), &net, &state);
                by_facts.set_joint(net.program(&evaluated), &net, &joint);
                assert!(live.agrees_with(&by_facts), "seed {seed}, state {state:?}");
                state = out;
            }
        }
    }
}

/// [`crowded`] with a fourth fact `d` (base 3) that holds after move 1101, one of 40 moves
/// always legal besides move 0, and rules `not t, d`: `d` is rarely true, so the sample watches
/// the rules, and they come to hold and stop holding as `t` and `d` change.
fn toggled() -> Program {
    let mut p = crowded(3, false);
    let always = literal_code(Literal::Const(true), true);
    p.legal[0].extend((1101..1141).map(|m| (m, always)));
    p.does = vec![(0, 1101)];
    p.next.push(literal_code(Literal::Does(0), true));
    p
}

/// A one-role game over facts p, q and r (bases 0 to 2) whose propositions have rules of two
/// literals, counted: node 0 :- p, q. node 1 :- q, not r. node 2 :- does 0, not p. node 2 :-
/// does 1, q. node 3 :- does 1, not q. node 3 :- node 0, does 2. node 4 :- does 2, not r. node
/// 4 :- p, does 0. Moves 0 to 2 are always legal, move 3 when node 0 holds, move 4 when node 1
/// does; next p, q and r are nodes 2, 3 and 4.
fn counted() -> Program {
    let rules = [
        vec![vec![base(0, true), base(1, true)]],
        vec![vec![base(1, true), base(2, false)]],
        vec![vec![does(0), base(0, false)], vec![does(1), base(1, true)]],
        vec![vec![does(1), base(1, false)], vec![node(0), does(2)]],
        vec![vec![does(2), base(2, false)], vec![base(0, true), does(0)]],
    ];
    let mut p = Program::default();
    add_rules(&mut p, rules);
    p.state_cone = vec![0, 1];
    p.move_cone = vec![0, 2, 3, 4];
    p.does = (0..5).map(|m| (0, m)).collect();
    let always = literal_code(Literal::Const(true), true);
    p.legal = vec![vec![(0, always), (1, always), (2, always), (3, node(0)), (4, node(1))]];
    p.next = vec![node(2), node(3), node(4)];
    p.terminal = literal_code(Literal::Const(false), true);
    p.goals = vec![vec![(0, always)]];
    p
}

/// A one-role game over facts p, q and r (bases 0 to 2): node 0 :- p, q. node 1 :- node 0,
/// not r. node 2 :- q. node 2 :- r. node 3 :- does 1, node 1. node 3 :- does 0, not p. node 4
/// :- does 2, node 2. node 4 :- does 0, q. node 5 :- node 2, p. node 6 :- does 1, not q. node 6
/// :- does 2, r. Moves 0 and 1 are always legal, move 2 when node 5 holds; next p, q and r are
/// nodes 3, 4 and 6. Nodes 0 and 1 are read only by each other and by a rule played by move 1:
/// they can be asked for. Node 2 is read by node 5 too, which no move plays, and node 5 by an
/// output: both are kept.
fn asked() -> Program {
    let rules = [
        vec![vec![base(0, true), base(1, true)]],
        vec![vec![node(0), base(2, false)]],
        vec![vec![base(1, true)], vec![base(2, true)]],
        vec![vec![does(1), node(1)], vec![does(0), base(0, false)]],
        vec![vec![does(2), node(2)], vec![does(0), base(1, true)]],
        vec![vec![node(2), base(0, true)]],
        vec![vec![does(1), base(1, false)], vec![does(2), base(2, true)]],
    ];
    let mut p = Program::default();
    add_rules(&mut p, rules);
    p.state_cone = vec![0, 1, 2, 5];
    p.move_cone = vec![3, 4, 6];
    p.does = (0..3).map(|m| (0, m)).collect();
    let always = literal_code(Literal::Const(true), true);
    p.legal = vec![vec![(0, always), (1, always), (2, node(5))]];
    p.next = vec![node(3), node(4), node(6)];
    p.terminal = literal_code(Literal::Const(false), true);
    p.goals = vec![vec![(0, always)]];
    p.initial = vec![0, 1];
    p
}

/// The propositions that only the state decides and only rules played by a move read are
/// asked for, and read through literals of their own kind; the others are kept, and all are
/// when the rules of those asked for are a small share of the program.
#[test]
fn propositions_read_only_by_played_rules_are_asked_for() {
    let program = asked();
    let recoded = lazy::recode(&program).expect("nodes 0 and 1 can be asked for");
    let read: Vec<u32> =
        recoded.literals.iter().filter(|&&code| kind_of(code) == KIND_LAZY).map(|&code| code & INDEX_MASK).collect();
    assert_eq!(read, [0, 1], "node 1 reads node 0, and move 1's rule reads node 1");
    assert_eq!(recoded.state_cone, [2, 5], "the nodes asked for are not kept");
    assert!(lazy::recode(&counted()).is_none(), "node 0 of `counted` is read by an output");
    // Node 5's rule written 200 times over: the 4 literals of nodes 0 and 1 are less than a
    // 64th of the program's, too few to pay for a second network.
    let mut long = asked();
    let rule = long.rules_of(5).start;
    let body: Vec<u32> = long.body(rule).iter().copied().cycle().take(400).collect();
    let at = long.rule_literals[rule] as usize;
    long.literals.splice(at..at + 2, body);
    for end in &mut long.rule_literals[rule + 1..] {
        *end += 398;
    }
    assert!(lazy::recode(&long).is_none(), "4 literals of {}", long.literals.len());
}

/// [`counted`] with node 0's rule `p, q` written 150 times over: 300 literals, more than a
/// rule's count holds.
fn long() -> Program {
    let mut p = counted();
    let body: Vec<u32> = p.body(0).iter().copied().cycle().take(300).collect();
    p.literals.splice(0..2, body);
    for end in &mut p.rule_literals[1..] {
        *end += 298;
    }
    p
}

/// A rule with more literals than a count holds is watched, whatever a sample finds, and the
/// short rules beside it are counted.
#[test]
fn a_rule_too_long_to_count_is_watched() {
    let net = net::Net::new(&long()).expect("the program reads no run-time atom");
    assert_eq!(net.watched.iter().filter(|&&w| w).count(), 1);
    assert!(net.watched[0], "the long rule is watched");
}

/// A random step of `program` from `state` through full evaluations: terminal, every role's
/// legal moves, a joint move drawn from them into `joint`, and the next state into `out`.
fn step_in_passes(program: &Program, state: &[u64], rng: &mut Rng, joint: &mut Vec<u32>, out: &mut [u64]) -> bool {
    let every_node: Vec<u32> = (0..program.node_rules.len() as u32 - 1).collect();
    let mut values = Values::default();
    values.reset(program);
    program.evaluate(state, &[], &every_node, &mut values);
    if program.holds(program.terminal, state, &[], &values) {
        return false;
    }
    let legal: Vec<Vec<u32>> = (program.legal.iter())
        .map(|moves| moves.iter().filter(|&&(_, l)| program.holds(l, state, &[], &values)).map(|&(m, _)| m).collect())
        .collect();
    if crate::draw_joint(&legal, rng, joint).is_none() {
        return false;
    }
    values.reset(program);
    program.evaluate(state, joint, &every_node, &mut values);
    out.fill(0);
    for (i, &literal) in program.next.iter().enumerate() {
        if program.holds(literal, state, joint, &values) {
            out[i / 64] |= 1 << (i % 64);
        }
    }
    true
}

/// A one-role game over facts p (0) and q (1) whose rules are single literals, positive and
/// negated, outside recursive groups (counted through their propositions' support alone):
/// node 0 :- p. node 0 :- not q. node 1 :- node 0. node 2 :- not node 1. Move 0 is legal when
/// node 2 holds, move 1 always, move 2 when node 0 holds; next p is move 0 played, next q is
/// not node 1.
fn singles() -> Program {
    let node = |i, positive| literal_code(Literal::Node(i), positive);
    let mut p = Program::default();
    p.node_rules.push(0);
    p.rule_literals.push(0);
    for rules in [vec![base(0, true), base(1, false)], vec![node(0, true)], vec![node(1, false)]] {
        for literal in rules {
            p.literals.push(literal);
            p.rule_literals.push(p.literals.len() as u32);
        }
        p.node_rules.push(p.rule_literals.len() as u32 - 1);
    }
    p.state_cone = vec![0, 1, 2];
    p.does = vec![(0, 0)];
    let always = literal_code(Literal::Const(true), true);
    p.legal = vec![vec![(0, node(2, true)), (1, always), (2, node(0, true))]];
    p.next = vec![literal_code(Literal::Does(0), true), node(1, false)];
    p.terminal = literal_code(Literal::Const(false), true);
    p.goals = vec![vec![(0, always)]];
    p
}

#[test]
fn rules_of_one_literal_are_counted_through_their_propositions() {
    let program = singles();
    let net = net::Net::new(&program).expect("the program reads no run-time atom");
    assert!((0..4).all(|rule| net.is_direct(&program, rule)));
    let recursive = sample();
    assert!(!net::Net::new(&recursive).is_some_and(|net| (0..3).any(|rule| net.is_direct(&recursive, rule))));
}

/// Propositions whose every rule reads the turn `t`, which changes at every step, are gated by
/// it: the network evaluates them without `t`, and `t` masks the legal moves that read them,
/// which the network gives as a full evaluation of the rules with `t` gives them.
#[test]
fn propositions_that_the_turn_gates_are_evaluated_without_it() {
    for other in [1, 2] {
        let program = crowded(other, true);
        let net = net::Net::new(&program).expect("the program reads no run-time atom");
        let gated = net.program(&program);
        assert!(!gated.literals.contains(&literal_code(Literal::Base(0), true)), "rules `t, {other}` read t");
        let masked: u32 =
            net.gate_words.iter().filter(|&&(w, _)| w != net::NONE).map(|&(_, mask)| mask.count_ones()).sum();
        assert_eq!(masked, 1100, "rules `t, {other}`: the slots t masks");
        let mut live = Live::new(gated, &net);
        for state in [0b001u64, 0b011, 0b010, 0b111, 0b000, 0b011, 0b101] {
            live.set_state(gated, &net, &[state]);
            let mut legal = Vec::new();
            live.outputs(&net).legal(0, |k| legal.push(program.legal[0][k].0));
            let mut full = Values::default();
            full.reset(&program);
            program.evaluate(&[state], &[], &net.members, &mut full);
            let expected: Vec<u32> = program.legal[0]
                .iter()
                .filter(|&&(_, l)| program.holds(l, &[state], &[], &full))
                .map(|&(m, _)| m)
                .collect();
            assert_eq!(legal, expected, "rules `t, {other}`, state {state:#b}");
        }
    }
}

/// A one-role game over a turn fact `t` (base 0) that flips at every step and a fact `a`
/// (base 1) set by move 1: propositions `p_k` :- t, a, as many as a proposition needs rules
/// that read one gate to be mixed ([`gates::MIXED_RULES`], `K`); proposition `K`, `h` :- p_k
/// for every k, and h :- not a. Move 0 is legal when `h` holds, move 1 always.
pub(crate) fn mixed_turns() -> Program {
    let mut p = Program::default();
    p.node_rules.push(0);
    p.rule_literals.push(0);
    let h = gates::MIXED_RULES as u32;
    let mut nodes: Vec<Vec<Vec<u32>>> = (0..h).map(|_| vec![vec![base(0, true), base(1, true)]]).collect();
    nodes.push((0..h).map(|k| vec![node(k)]).chain([vec![base(1, false)]]).collect());
    for rules in nodes {
        for rule in rules {
            p.literals.extend(rule);
            p.rule_literals.push(p.literals.len() as u32);
        }
        p.node_rules.push(p.rule_literals.len() as u32 - 1);
    }
    p.state_cone = (0..=h).collect();
    p.does = vec![(0, 0), (0, 1)];
    let always = literal_code(Literal::Const(true), true);
    p.legal = vec![vec![(0, node(h)), (1, always)]];
    p.next = vec![base(0, false), literal_code(Literal::Does(1), true)];
    p.terminal = literal_code(Literal::Const(false), true);
    p.goals = vec![vec![(0, always)]];
    p.initial = vec![0];
    p
}

/// The mixed proposition of [`mixed_turns`] counts its rules that need the turn apart, and
/// holds as a full evaluation says.
#[test]
fn a_mixed_proposition_holds_as_its_rules_say() {
    let program = mixed_turns();
    let net = net::Net::new(&program).expect("the program reads no run-time atom");
    let h = gates::MIXED_RULES;
    assert_eq!(net.owner, [h as u32], "h counts its rules that read t apart");
    let gated = net.program(&program);
    let mut live = Live::new(gated, &net);
    for state in [0b01u64, 0b11, 0b10, 0b00, 0b11, 0b01, 0b11, 0b10] {
        live.set_state(gated, &net, &[state]);
        let mut full = Values::default();
        full.reset(&program);
        program.evaluate(&[state], &[], &net.members, &mut full);
        assert_eq!(live.values.nodes[h], full.nodes[h], "state {state:#b}");
    }
}
