//! Tests of node words: groups found on small boards, and their words against the nodes
//! evaluated one by one.

use super::places::board;
use super::*;
use std::collections::BTreeSet;

/// A 6x6 board of blank cells on which the one role marks a cell `x` per step: the rules
/// that the test games below add to.
const BOARD: &str = "
        (role p)
        (index 1) (index 2) (index 3) (index 4) (index 5) (index 6)
        (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
        (<= (init (cell ?x ?y b)) (index ?x) (index ?y))
        (<= (legal p (mark ?x ?y)) (true (cell ?x ?y b)))
        (<= (next (cell ?x ?y x)) (does p (mark ?x ?y)))
        (<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)) (does p (mark ?u ?v)) (distinct ?x ?u))
        (<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)) (does p (mark ?u ?v)) (distinct ?y ?v))";

/// The groups of `ground` when every node may be in one, and no node is in a move table or has
/// rule families.
pub(super) fn find_any(ground: &Ground) -> NodeWords {
    let n = ground.nodes.len();
    find(ground, &vec![false; n], &vec![false; n], &vec![None; n], &vec![None; n])
}

/// The nodes of `ground` whose names start with `prefix`, in the ground program's order.
pub(super) fn nodes_named(ground: &Ground, prefix: &str) -> Vec<usize> {
    (0..ground.nodes.len()).filter(|&n| ground.nodes[n].name.starts_with(prefix)).collect()
}

/// `BOARD` with `rules`, grounded.
pub(super) fn ground_of(rules: &str) -> Ground {
    crate::compile::ground_source(&format!("{BOARD}{rules}"), &Default::default()).expect("grounds")
}

/// `(reach x y)` on `BOARD`: a run of `x` marks from cell `(x, y)` along its row, each
/// cell's node reading the next cell's.
const RUNS: &str = "
        (<= (reach ?x ?y) (true (cell ?x ?y x)) (succ ?y ?z) (true (cell ?x ?z x)))
        (<= (reach ?x ?y) (true (cell ?x ?y x)) (succ ?y ?z) (reach ?x ?z))
        (<= (open ?x ?y) (true (cell ?x ?y b)) (succ ?y ?z) (not (reach ?x ?z)))
        (<= terminal (reach ?x 1))
        (<= (goal p 100) (open ?x ?y))
        (<= (goal p 0) (not terminal))";

fn runs() -> Ground {
    ground_of(RUNS)
}

/// Every node's value in `state` (bits by base fact) after the moves `joint` (by role), one
/// by one in the ground order, each recursive group from false until nothing changes.
fn one_by_one(ground: &Ground, state: &[bool], joint: &[u32]) -> Vec<bool> {
    let mut value = vec![false; ground.nodes.len()];
    let holds = |rules: &[Vec<Lit>], value: &[bool]| {
        rules.iter().any(|rule| {
            rule.iter().all(|lit| {
                let holds = match lit.prop {
                    Prop::Base(b) => state[b as usize],
                    Prop::Node(m) => value[m as usize],
                    Prop::Does(r, m) => joint[r as usize] == m,
                    Prop::Deferred(_) => false,
                };
                holds == lit.positive
            })
        })
    };
    let mut n = 0;
    while n < ground.nodes.len() {
        let end = ground.cycles.iter().find(|&&(start, _)| start as usize == n).map_or(n + 1, |&(_, end)| end as usize);
        loop {
            let mut changed = false;
            for m in n..end {
                let now = holds(&ground.nodes[m].rules, &value);
                changed |= now != value[m];
                value[m] = now;
            }
            if !changed || end == n + 1 {
                break;
            }
        }
        n = end;
    }
    value
}

/// The state's words, bit `b` of word `w` the value of base fact `64 * w + b`.
fn state_words(state: &[bool]) -> Vec<u64> {
    (0..state.len().div_ceil(64))
        .map(|w| (0..64).filter(|&b| state.get(64 * w + b) == Some(&true)).fold(0, |word, b| word | 1 << b))
        .collect()
}

/// The bits of `word` at the places `from` moved in order to the places `to`, one by one (what
/// the generated code's `gdl_runtime::bits::gather` computes).
pub(super) fn gathered(word: u64, from: u64, to: u64) -> u64 {
    let to_places: Vec<u32> = (0..64).filter(|&i| to >> i & 1 == 1).collect();
    let from_places = (0..64).filter(|&i| from >> i & 1 == 1);
    from_places.zip(to_places).fold(0, |out, (f, t)| out | (word >> f & 1) << t)
}

/// Group `g`'s word from its templates, given the words of the groups before it.
fn template_word(
    words: &NodeWords,
    g: usize,
    (state, state_words): (&[bool], &[u64]),
    joint: &[u32],
    value: &[bool],
    group_words: &[u64],
) -> u64 {
    let shifted = |word: u64, shift: i32| if shift >= 0 { word >> shift } else { word << -shift };
    let signed = |word: u64, positive: bool| if positive { word } else { !word };
    words.groups[g].templates.iter().fold(0, |word, template| {
        word | template.literals.iter().fold(template.mask, |acc, &lit| {
            acc & match lit {
                WordLit::Base { word, shift, positive } => signed(shifted(state_words[word as usize], shift), positive),
                WordLit::Group { group, shift, positive } => {
                    signed(shifted(group_words[group as usize], shift), positive)
                }
                WordLit::Does { kind, shift, positive } => {
                    let kind = &words.move_kinds[kind as usize];
                    let played = joint[kind.role as usize];
                    let at = kind.places.iter().find(|&&(m, _)| m == played);
                    signed(shifted(at.map_or(0, |&(_, p)| 1 << p), shift), positive)
                }
                WordLit::Gather { group, from, to, positive } => {
                    signed(gathered(group_words[group as usize], from, to), positive)
                }
                WordLit::Table { .. } => panic!("these tests give no node a move table bit"),
                WordLit::Fixed(lit) => {
                    let holds = match lit.prop {
                        Prop::Base(b) => state[b as usize],
                        Prop::Node(m) => value[m as usize],
                        Prop::Does(r, m) => joint[r as usize] == m,
                        Prop::Deferred(_) => false,
                    } == lit.positive;
                    if holds {
                        u64::MAX
                    } else {
                        0
                    }
                }
            }
        })
    })
}

/// Every group's word in `state` after `joint`, by its templates (a gathered group's from
/// its members' values), groups in the order of their ranks, the groups of a loop together
/// from empty words.
fn as_words(words: &NodeWords, state: &[bool], joint: &[u32], value: &[bool]) -> Vec<u64> {
    let mut order: Vec<usize> = (0..words.groups.len()).collect();
    order.sort_by_key(|&g| words.rank[words.groups[g].members[0] as usize]);
    let mut group_words = vec![0u64; words.groups.len()];
    let state_words = state_words(state);
    for g in order {
        if words.groups[g].gathered {
            let members = words.groups[g].members.iter().filter(|&&m| value[m as usize]);
            group_words[g] = members.fold(0, |word, &m| word | 1 << words.member[m as usize].map_or(0, |(_, p)| p));
            continue;
        }
        let together: Vec<usize> = match words.loop_of[g] {
            Some(l) => words.loops[l as usize].iter().map(|&h| h as usize).collect(),
            None => vec![g],
        };
        loop {
            let mut changed = false;
            for &h in &together {
                let word = template_word(words, h, (state, &state_words), joint, value, &group_words);
                changed |= word != group_words[h];
                group_words[h] = word;
            }
            if !changed {
                break;
            }
        }
    }
    group_words
}

#[test]
fn a_row_of_runs_is_one_word_that_reads_itself() {
    let ground = runs();
    let words = find_any(&ground);
    let reach = nodes_named(&ground, "(reach");
    assert!(reach.len() >= 24, "{} reach nodes", reach.len());
    let (g, _) = words.member[reach[0]].expect("reach nodes are in a group");
    assert!(reach.iter().all(|&n| words.member[n].map(|(h, _)| h) == Some(g)));
    assert!(words.groups[g as usize].reads_itself);
    // Each sits where its cell does.
    for &n in &reach {
        let cell = ground.nodes[n].name.replace("(reach", "(cell").replace(')', " b)");
        let b = ground.base.iter().position(|f| *f == cell).expect("the cell is a base fact");
        assert_eq!(words.member[n].map(|(_, p)| p), Some(b as u32 % 64), "{}", ground.nodes[n].name);
    }
    // Members of a group come together in the order of evaluation.
    let mut ranks: Vec<u32> = reach.iter().map(|&n| words.rank[n]).collect();
    ranks.sort_unstable();
    assert_eq!(ranks.last().unwrap() - ranks[0], ranks.len() as u32 - 1);
}

/// `(near x y)` on `BOARD`: it holds when the cell beside `(x, y)` along its column, on
/// either side, is blank; cells at the ends of a column have one of the two rules only.
const NEAR: &str = "
        (<= (near ?x ?y) (true (cell ?x ?y x)) (succ ?y ?z) (true (cell ?x ?z b)))
        (<= (near ?x ?y) (true (cell ?x ?y x)) (succ ?z ?y) (true (cell ?x ?z b)))
        (<= terminal (not (near 1 1)) (near 6 6))
        (<= (goal p 100) (near ?x ?y))
        (<= (goal p 0) (not terminal))";

#[test]
fn nodes_placed_by_their_names_form_one_group_whatever_their_first_rules() {
    let ground = ground_of(NEAR);
    let words = find_any(&ground);
    let near = nodes_named(&ground, "(near");
    assert_eq!(near.len(), 36);
    // The first rules of the first and last cells of a column have different shapes.
    let first = |y: &str| {
        let n = near.iter().find(|&&n| ground.nodes[n].name == format!("(near 2 {y})")).expect("a near node");
        ground.nodes[*n].rules.len()
    };
    assert_eq!((first("1"), first("3"), first("6")), (1, 2, 1));
    let (g, _) = words.member[near[0]].expect("near nodes are in a group");
    assert!(near.iter().all(|&n| words.member[n].map(|(h, _)| h) == Some(g)));
    // One template for each of the two rules.
    assert_eq!(words.groups[g as usize].templates.len(), 2);
}

#[test]
fn words_agree_with_the_nodes_one_by_one() {
    let ground = runs();
    let words = find_any(&ground);
    assert!(!words.groups.is_empty());
    // The next state's marks read the move played as a word.
    let literals = words.groups.iter().flat_map(|g| &g.templates).flat_map(|t| &t.literals);
    assert!(literals.into_iter().any(|l| matches!(l, WordLit::Does { .. })));
    assert_words_agree(&ground, &words);
}

/// Two counters on no board: `(count r n)` of each role goes up by one when the role plays
/// `up`, by two on `twice`, and stays on `stay`; the other role's count stays.
const COUNTERS: &str = "
        (role a) (role b)
        (init (count a 0)) (init (count b 0))
        (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
        (succ 6 7) (succ 7 8) (succ 8 9) (succ 9 10) (succ 10 11) (succ 11 12)
        (<= (legal ?r up) (role ?r))
        (<= (legal ?r twice) (role ?r))
        (<= (legal ?r stay) (role ?r))
        (<= (next (count ?r ?m)) (true (count ?r ?n)) (does ?r up) (succ ?n ?m))
        (<= (next (count ?r ?m)) (true (count ?r ?n)) (does ?r twice) (succ ?n ?k) (succ ?k ?m))
        (<= (next (count ?r ?n)) (true (count ?r ?n)) (does ?r stay))
        (<= terminal (true (count ?r 12)))
        (<= (goal ?r 100) (true (count ?r 12)))
        (<= (goal ?r 0) (role ?r) (not (true (count ?r 12))))";

#[test]
fn next_values_of_a_counter_are_one_word_at_their_own_bits() {
    let ground = crate::compile::ground_source(COUNTERS, &Default::default()).expect("grounds");
    let words = find_any(&ground);
    let next = nodes_named(&ground, "(next (count");
    assert!(next.len() >= 24, "{} next nodes", next.len());
    let (g, _) = words.member[next[0]].expect("the next values of the counters are in a group");
    for &n in &next {
        // Each sits at the bit of the fact it is the next value of.
        let fact = &ground.nodes[n].name["(next ".len()..ground.nodes[n].name.len() - 1];
        let b = ground.base.iter().position(|f| f == fact).expect("a base fact");
        assert_eq!(words.member[n], Some((g, b as u32 % 64)), "{}", ground.nodes[n].name);
    }
    // Going up by one and by two read the count one and two bits below.
    let shifts: BTreeSet<i32> = words.groups[g as usize]
        .templates
        .iter()
        .flat_map(|t| &t.literals)
        .filter_map(|l| match l {
            WordLit::Base { shift, positive: true, .. } => Some(*shift),
            _ => None,
        })
        .collect();
    assert!(shifts.contains(&-1) && shifts.contains(&-2), "{shifts:?}");
    assert_words_agree(&ground, &words);
}

/// hex's owners: the group placed at step `k` belongs to whoever moved then, so that
/// `(next (owner k r))` reads `(step k)`, a fact of another relation at the same bit of its own
/// word (60 steps, so that each relation has words of its own), and whose turn it is, the same
/// fact for every `k`.
fn owners() -> String {
    let succ: String = (1..60).map(|k| format!("(succ {k} {})", k + 1)).collect();
    format!(
        "(role a) (role b)
        (init (step 1)) (init (control a))
        {succ}
        (<= (legal ?r go) (true (control ?r)))
        (<= (legal ?r wait) (role ?r) (not (true (control ?r))))
        (<= (next (step ?m)) (true (step ?k)) (succ ?k ?m))
        (<= (next (control a)) (true (control b)))
        (<= (next (control b)) (true (control a)))
        (<= (next (owner ?k ?r)) (true (step ?k)) (true (control ?r)))
        (<= (next (owner ?k ?r)) (true (owner ?k ?r)))
        (<= terminal (true (step 60)))
        (<= (goal ?r 100) (true (owner 11 ?r)))
        (<= (goal ?r 0) (role ?r) (not (true (owner 11 ?r))))"
    )
}

#[test]
fn next_values_read_the_fact_of_another_relation_at_their_own_bit() {
    let ground = crate::compile::ground_source(&owners(), &Default::default()).expect("grounds");
    let words = find_any(&ground);
    let owner = |k: u32, r: &str| {
        let name = format!("(next (owner {k} {r}))");
        (0..ground.nodes.len()).find(|&n| ground.nodes[n].name == name).expect("an owner node")
    };
    let (g, _) = words.member[owner(1, "a")].expect("the next owners of a are in a group");
    for k in 2..=59 {
        assert_eq!(words.member[owner(k, "a")].map(|(h, _)| h), Some(g), "owner {k} a");
    }
    // Two templates: the owner kept, and the step at the owner's bit while a is to move.
    let templates = &words.groups[g as usize].templates;
    assert_eq!(templates.len(), 2, "{templates:?}");
    let step_word = ground.base.iter().position(|f| f == "(step 1)").expect("a step") as u32 / 64;
    assert!(
        templates
            .iter()
            .flat_map(|t| &t.literals)
            .any(|l| *l == WordLit::Base { word: step_word, shift: 0, positive: true }),
        "{templates:?}"
    );
    assert_words_agree(&ground, &words);
}

/// Checks every group's word against its members evaluated one by one, in states and joint
/// moves from a fixed pseudo-random sequence.
pub(super) fn assert_words_agree(ground: &Ground, words: &NodeWords) {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..200 {
        let state: Vec<bool> = (0..ground.base.len())
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                !seed.is_multiple_of(3)
            })
            .collect();
        let joint: Vec<u32> = ground
            .inputs
            .iter()
            .enumerate()
            .map(|(r, inputs)| inputs[seed.rotate_right(8 * r as u32) as usize % inputs.len()])
            .collect();
        let value = one_by_one(ground, &state, &joint);
        let group_words = as_words(words, &state, &joint, &value);
        for (n, member) in words.member.iter().enumerate() {
            if let Some((g, p)) = member {
                assert_eq!(group_words[*g as usize] >> p & 1 != 0, value[n], "{}", ground.nodes[n].name);
            }
        }
    }
}

#[test]
fn coordinates_name_the_places_of_a_board() {
    let base: Vec<String> = ["(cell 1 1 b)", "(cell 1 2 b)", "(cell 1 1 x)", "(cell 1 2 x)", "(control p)", "(step 1)"]
        .iter()
        .map(ToString::to_string)
        .collect();
    // Two colours one after the other in one word: the first colour's bits are the places,
    // the second colour's facts at the same places.
    let (place, coordinates) = board(&base);
    assert_eq!(place[..4], [Some(0), Some(1), Some(0), Some(1)]);
    assert_eq!(coordinates.get(&vec!["1".to_string(), "1".to_string()]), Some(&(0, 0)));
    // A second colour whose cells are not the first's moved by one distance names no place.
    let mut crossed = base.clone();
    crossed.swap(2, 3);
    let (place, coordinates) = board(&crossed);
    assert!(place.iter().all(Option::is_none));
    assert!(coordinates.is_empty());
    // A colour a word further on: the same bit of each word.
    let mut padded = base.clone();
    padded.splice(2..2, (0..62).map(|_| String::new()));
    let (place, coordinates) = board(&padded);
    assert_eq!(place[64], Some(0));
    assert_eq!(coordinates.get(&vec!["1".to_string(), "2".to_string()]), Some(&(1, 0)));
}

/// `(linked x1 y1 x2 y2)` on `BOARD`: a path of marked cells, each beside the next along a row
/// or a column, joins cell `(x1, y1)` to cell `(x2, y2)`. Recursive: a flood fill from every cell.
const LINKED: &str = "
        (<= (beside ?x ?y ?x ?z) (index ?x) (succ ?y ?z))
        (<= (beside ?x ?y ?x ?z) (index ?x) (succ ?z ?y))
        (<= (beside ?x ?y ?z ?y) (index ?y) (succ ?x ?z))
        (<= (beside ?x ?y ?z ?y) (index ?y) (succ ?z ?x))
        (<= (linked ?x1 ?y1 ?x2 ?y2) (true (cell ?x1 ?y1 x)) (beside ?x1 ?y1 ?x2 ?y2) (true (cell ?x2 ?y2 x)))
        (<= (linked ?x1 ?y1 ?x3 ?y3)
            (linked ?x1 ?y1 ?x2 ?y2) (beside ?x2 ?y2 ?x3 ?y3) (true (cell ?x3 ?y3 x)))
        (<= (apart ?x1 ?y1) (true (cell ?x1 ?y1 x)) (true (cell ?x2 ?y2 x)) (distinct ?x1 ?x2)
            (not (linked ?x1 ?y1 ?x2 ?y2)))
        (<= terminal (linked 1 1 6 6))
        (<= (goal p 100) (apart ?x ?y))
        (<= (goal p 0) (not terminal))";

#[test]
fn a_flood_fill_is_a_loop_of_words_that_reaches_the_least_fixpoint() {
    let ground = ground_of(LINKED);
    assert!(!ground.cycles.is_empty(), "linked is recursive");
    let words = find_any(&ground);
    let linked = nodes_named(&ground, "(linked");
    assert!(linked.len() >= 36 * 30, "{} linked nodes", linked.len());
    // Every recursive node is in a group that a loop evaluates, and the nodes of one cell's
    // flood fill (linked from 2 3) are one group's, placed by the cell they reach.
    for &(start, end) in &ground.cycles {
        for n in start..end {
            let (g, _) = words.member[n as usize].expect("a recursive node is in a group");
            assert!(words.loop_of[g as usize].is_some(), "{}", ground.nodes[n as usize].name);
        }
    }
    let from = |n: &usize| ground.nodes[*n].name.starts_with("(linked 2 3 ");
    let groups: BTreeSet<u32> =
        linked.iter().filter(|n| from(n)).map(|&n| words.member[n].map_or(u32::MAX, |(g, _)| g)).collect();
    assert_eq!(groups.len(), 1, "{groups:?}");
    assert_words_agree(&ground, &words);
}

/// A 9x9 board, wider than a word, on which two roles place stones in turn, and `(near x y)`:
/// a stone of red beside a blank cell along its row or its column; a move beside such a stone
/// raises a flag.
const WIDE: &str = "
        (role red) (role blue)
        (index 1) (index 2) (index 3) (index 4) (index 5) (index 6) (index 7) (index 8) (index 9)
        (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8) (succ 8 9)
        (init (control red))
        (<= (base (cell ?x ?y ?r)) (index ?x) (index ?y) (role ?r))
        (<= (legal ?r (place ?x ?y)) (true (control ?r)) (index ?x) (index ?y)
            (not (true (cell ?x ?y red))) (not (true (cell ?x ?y blue))))
        (<= (legal red noop) (true (control blue)))
        (<= (legal blue noop) (true (control red)))
        (<= (next (cell ?x ?y ?r)) (does ?r (place ?x ?y)))
        (<= (next (cell ?x ?y ?r)) (true (cell ?x ?y ?r)))
        (<= (next (control red)) (true (control blue)))
        (<= (next (control blue)) (true (control red)))
        (<= (blank ?x ?y) (index ?x) (index ?y) (not (true (cell ?x ?y red))) (not (true (cell ?x ?y blue))))
        (<= (near ?x ?y) (true (cell ?x ?y red)) (succ ?y ?z) (blank ?x ?z))
        (<= (near ?x ?y) (true (cell ?x ?y red)) (succ ?z ?y) (blank ?x ?z))
        (<= (near ?x ?y) (true (cell ?x ?y red)) (succ ?x ?z) (blank ?z ?y))
        (<= (near ?x ?y) (true (cell ?x ?y red)) (succ ?z ?x) (blank ?z ?y))
        (<= (placed ?x ?y) (does ?r (place ?x ?y)) (near ?x ?y))
        (<= (next (flag ?x ?y)) (placed ?x ?y))
        (<= terminal (near 9 9) (true (flag 5 5)))
        (<= (goal ?r 100) (role ?r) (near 1 1))
        (<= (goal ?r 0) (role ?r) (not (near 1 1)))";

#[test]
fn a_board_wider_than_a_word_goes_on_in_the_next_word() {
    let ground = crate::compile::ground_source(WIDE, &Default::default()).expect("grounds");
    // The 81 cells of a colour start at a word: the places of the cells past the first 64
    // start again from 0, and coordinates name the word too.
    let (place, coordinates) = board(&ground.base);
    let cell = |x: u32, y: u32| ground.base.iter().position(|f| *f == format!("(cell {x} {y} red)")).expect("a cell");
    assert_eq!(cell(1, 1) % 64, 0);
    assert_eq!(place[cell(8, 2)], Some(0));
    let key = |x: u32, y: u32| vec![x.to_string(), y.to_string()];
    assert_eq!(coordinates.get(&key(1, 1)), Some(&(0, 0)));
    assert_eq!(coordinates.get(&key(8, 2)), Some(&(0, 1)));
    let words = find_any(&ground);
    // A role's placements are two kinds of move, one for each word of the board, so that a
    // move's bit tells the two cells at one place apart.
    let red = ground.roles.iter().position(|r| r == "red").expect("red") as u32;
    assert_eq!(words.move_kinds.iter().filter(|k| k.role == red).count(), 2);
    // The nodes of `near` in the second word are in groups too.
    let near = |x: u32, y: u32| ground.nodes.iter().position(|n| n.name == format!("(near {x} {y})"));
    let second = near(9, 9).expect("a near node");
    assert!(words.member[second].is_some());
    assert_ne!(words.member[second].map(|(g, _)| g), near(1, 1).and_then(|n| words.member[n]).map(|(g, _)| g));
    assert_words_agree(&ground, &words);
}

/// A group of three templates over two state words (hex's "a stone of the group beside the
/// cell", on a board of two words), and one move of a kind at each of the 64 places.
fn beside_two_words() -> NodeWords {
    let template = |word: u32, shift: i32, mask: u64| Template {
        literals: vec![WordLit::Base { word, shift, positive: true }],
        mask,
    };
    let mut words = NodeWords::none(0);
    words.groups.push(WordGroup {
        members: Vec::new(),
        templates: vec![
            template(3, 9, 0x7fff_ffff_ffff_ffff),
            template(3, -1, 0xffff_ffff_ffff_fffe),
            template(4, -55, 0xff80_0000_0000_0000),
        ],
        reads_itself: false,
        gathered: false,
        chain: 0,
    });
    words.move_kinds.push(MoveKind { role: 0, places: (0..64).map(|m| (m, m)).collect() });
    words
}

#[test]
fn tables_of_the_moves_test_a_group_at_the_move_without_its_word() {
    let words = beside_two_words();
    let move_place = words.move_kinds[0].place_words(64);
    let anchors = 0x00ff_ffff_0000_ffffu64;
    let sources = super::transpose::source_words(&words, 0);
    assert_eq!(sources, vec![3, 4]);
    let tables: Vec<Vec<u64>> =
        sources.iter().map(|&w| super::transpose::table(&words, 0, w, anchors, &move_place)).collect();
    let shifted = |word: u64, shift: i32| if shift >= 0 { word >> shift } else { word << -shift };
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..500 {
        let mut state = [0u64; 5];
        for word in &mut state {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            *word = seed & seed.rotate_left(17);
        }
        // The group's word from its templates, as the generated code would compute it.
        let group = words.groups[0].templates.iter().fold(0, |word, t| match t.literals[..] {
            [WordLit::Base { word: w, shift, .. }] => word | (t.mask & shifted(state[w as usize], shift)),
            _ => unreachable!("one state word a template"),
        });
        for m in 0..64 {
            let at_move = group & anchors & move_place[m] != 0;
            let by_tables = sources.iter().zip(&tables).any(|(&w, table)| state[w as usize] & table[m] != 0);
            assert_eq!(by_tables, at_move, "move at place {m}");
        }
    }
}

/// Three pieces on an 8x8 board, each moving from any cell to any other: 378 kinds of move, and a cell is touched by the moves from it and to it.
const JUMPS: &str = "
        (role p)
        (index 1) (index 2) (index 3) (index 4) (index 5) (index 6) (index 7) (index 8)
        (piece k) (piece q) (piece r)
        (<= (init (cell ?x ?y ?c)) (index ?x) (index ?y) (piece ?c))
        (<= (other ?x1 ?y1 ?x2 ?y2) (index ?x1) (index ?y1) (index ?x2) (index ?y2) (distinct ?x1 ?x2))
        (<= (other ?x1 ?y1 ?x2 ?y2) (index ?x1) (index ?y1) (index ?x2) (index ?y2) (distinct ?y1 ?y2))
        (<= (legal p (move ?c ?x1 ?y1 ?x2 ?y2)) (true (cell ?x1 ?y1 ?c)) (piece ?c) (other ?x1 ?y1 ?x2 ?y2))
        (<= (touched ?x1 ?y1) (does p (move ?c ?x1 ?y1 ?x2 ?y2)))
        (<= (touched ?x2 ?y2) (does p (move ?c ?x1 ?y1 ?x2 ?y2)))
        (<= (next (cell ?x2 ?y2 ?c)) (does p (move ?c ?x1 ?y1 ?x2 ?y2)))
        (<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)) (not (touched ?x ?y)))
        (<= terminal (true (cell 1 1 r)))
        (<= (goal p 100) terminal)
        (<= (goal p 0) (not terminal))";

#[test]
fn cells_that_many_kinds_of_move_touch_are_one_group_costed_by_one_kind() {
    let ground = crate::compile::ground_source(JUMPS, &Default::default()).expect("grounds");
    let words = find_any(&ground);
    let touched = nodes_named(&ground, "(touched");
    assert_eq!(touched.len(), 64);
    let (g, _) = words.member[touched[0]].expect("the touched cells are in a group");
    let group = &words.groups[g as usize];
    assert_eq!(group.members.len(), 64);
    // Two templates a kind, from its place and to it: more than a word may have outside a
    // `match` on the kind played, and all of them in one.
    assert!(group.templates.len() > MAX_TEMPLATES, "{} templates", group.templates.len());
    let (cost, outside) = switch::word_cost(&group.templates, &words.move_kinds);
    assert_eq!(outside, 0);
    assert!(cost < 16, "a word costs one kind's templates, not {cost}");
    assert_words_agree(&ground, &words);
}

#[test]
fn a_group_that_tests_a_whole_move_in_every_template_counts_the_moves_it_reads() {
    // `BOARD`'s marks: the next value of each cell's `x` reads its mark as played. As a word
    // whose every template tests one move whole, it tests every move each step; one by one, the
    // `match` on the move played makes only that move's node, which `pays` weighs.
    let ground = ground_of("(<= terminal (true (cell 1 1 x))) (<= (goal p 100) (true (cell 2 2 x)))");
    let marked: Vec<u32> =
        (0..ground.nodes.len() as u32).filter(|&m| ground.nodes[m as usize].made_by_moves_alone()).collect();
    assert!(marked.len() >= 8, "{:?}", ground.nodes.iter().map(|n| &n.name).collect::<Vec<_>>());
    let move_of = |m: u32| *ground.nodes[m as usize].rules[0].iter().find(|lit| lit.is_move_played()).expect("a move");
    let moves: BTreeSet<Lit> = (marked.iter().flat_map(|&m| &ground.nodes[m as usize].rules))
        .flat_map(|rule| rule.iter().copied().filter(Lit::is_move_played))
        .collect();
    assert_eq!(moves.len(), 36, "a mark of each cell");
    let whole = |m: u32| Template { literals: vec![WordLit::Fixed(move_of(m))], mask: 1 };
    let group = |templates: Vec<Template>, members: Vec<u32>| WordGroup {
        members,
        templates,
        reads_itself: false,
        gathered: false,
        chain: 0,
    };
    let every_move_whole = group(marked.iter().map(|&m| whole(m)).collect(), marked.clone());
    assert_eq!(moves_tested_whole(&ground, &every_move_whole), Some(moves.len()));
    let by_kind = Template { literals: vec![WordLit::Does { kind: 0, shift: 0, positive: true }], mask: !0 };
    let placed = group(vec![whole(marked[0]), by_kind], marked.clone());
    assert_eq!(moves_tested_whole(&ground, &placed), None, "a template reads the moves by their places");
    let unkeyed = (0..ground.nodes.len() as u32).find(|m| !marked.contains(m)).expect("a node that reads no move");
    let mixed = group(marked.iter().map(|&m| whole(m)).collect(), [marked.clone(), vec![unkeyed]].concat());
    assert_eq!(moves_tested_whole(&ground, &mixed), None, "a member reads no move");
}
