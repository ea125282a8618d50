//! Tests of the places on boards: the arguments left out of a relation and the coordinates
//! that the others leave, the places of moves and their kinds, and the way nodes are placed.

use super::super::tests::{assert_words_agree, find_any, ground_of, nodes_named};
use super::super::{placed, Placed};
use super::{board, direction_around, places, sides, Coordinates, Places};
use std::collections::BTreeSet;

#[test]
fn a_player_and_a_piece_left_out_leave_the_cells_of_a_board() {
    // (cell x y player piece) as the layout leads it: each player's piece a board of a word,
    // its four cells at the same bits of every word, the pawns' first row empty.
    let mut base = vec![String::new(); 4 * 64];
    for (w, (player, piece)) in [("b", "king"), ("b", "pawn"), ("w", "king"), ("w", "pawn")].into_iter().enumerate() {
        for (k, (x, y)) in [(1, 1), (1, 2), (2, 1), (2, 2)].into_iter().enumerate() {
            if piece != "pawn" || y == 2 {
                base[64 * w + k] = format!("(cell {x} {y} {player} {piece})");
            }
        }
    }
    let (place, coordinates) = board(&base);
    let cell = |x: &str, y: &str| coordinates.get(&vec![x.to_string(), y.to_string()]).copied();
    // The cells, not a player's pieces on a cell, are the coordinates.
    assert_eq!(
        (cell("1", "1"), cell("1", "2"), cell("2", "1"), cell("2", "2")),
        (Some((0, 0)), Some((1, 0)), Some((2, 0)), Some((3, 0)))
    );
    assert_eq!(coordinates.len(), 4);
    assert_eq!((place[1], place[64 + 1], place[3 * 64 + 3]), (Some(1), Some(1), Some(3)));
}

#[test]
fn a_player_a_piece_and_its_promotion_left_out_leave_the_cells_of_a_board_of_two_words() {
    // (cell x y player piece promotion) as the layout leads it: each player's piece in each
    // state of promotion a board of 81 cells over two words. Leaving out the player alone
    // would leave boards of every piece over many words; the three leave the cells.
    let leads = [("b", "gold", "none"), ("b", "pawn", "up"), ("b", "pawn", "down"), ("w", "pawn", "up")];
    let mut base = vec![String::new(); 2 * 64 * leads.len()];
    for (w, (player, piece, promotion)) in leads.into_iter().enumerate() {
        for x in 1..=9 {
            for y in 1..=9 {
                base[128 * w + 9 * (x - 1) + (y - 1)] = format!("(cell {x} {y} {player} {piece} {promotion})");
            }
        }
    }
    let (place, coordinates) = board(&base);
    let cell = |x: &str, y: &str| coordinates.get(&vec![x.to_string(), y.to_string()]).copied();
    assert_eq!(coordinates.len(), 81);
    assert_eq!((cell("1", "1"), cell("1", "2"), cell("8", "1")), (Some((0, 0)), Some((1, 0)), Some((63, 0))));
    assert_eq!((cell("8", "2"), cell("9", "9")), (Some((0, 1)), Some((16, 1))));
    assert_eq!((place[1], place[3 * 128 + 64 + 16]), (Some(1), Some(16)));
}

#[test]
fn boards_two_to_a_word_with_holes_leave_the_cells_of_their_union() {
    // (cell x y piece) as the layout leads it by the piece: boards of five cells, two to a
    // word (at bits 0 and 5), the discs' board missing its first two cells. Every cell keeps
    // the place it has in the boards that have it.
    let cells = [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1)];
    let mut base = vec![String::new(); 2 * 64];
    for (b, piece) in ["disc", "king", "pawn", "rook"].into_iter().enumerate() {
        for (k, (x, y)) in cells.into_iter().enumerate() {
            if piece != "disc" || k >= 2 {
                base[64 * (b / 2) + 5 * (b % 2) + k] = format!("(cell {x} {y} {piece})");
            }
        }
    }
    let (place, coordinates) = board(&base);
    let cell = |x: &str, y: &str| coordinates.get(&vec![x.to_string(), y.to_string()]).map(|&(p, _)| p);
    assert_eq!(coordinates.len(), 5);
    assert_eq!((cell("1", "1"), cell("2", "2"), cell("3", "1")), (Some(0), Some(3), Some(4)));
    // The king's (1, 1) at bit 5, the rook's (3, 1) at bit 64 + 9.
    assert_eq!((place[5], place[64 + 9], place[2]), (Some(0), Some(4), Some(2)));
}

#[test]
fn boards_that_disagree_on_a_cell_leave_no_coordinates() {
    // Two boards of a relation whose cell (1, 2) is one bit past (1, 1) in the first and two
    // in the second: no distance moves one onto the other.
    let mut base = vec![String::new(); 64];
    for (bit, fact) in
        [(0, "(c 1 1 a)"), (1, "(c 1 2 a)"), (2, "(c 2 1 a)"), (8, "(c 1 1 b)"), (10, "(c 1 2 b)"), (11, "(c 2 1 b)")]
    {
        base[bit] = fact.to_string();
    }
    let (_, coordinates) = board(&base);
    assert!(coordinates.is_empty(), "{coordinates:?}");
}

#[test]
fn a_move_across_the_edge_of_a_torus_goes_the_way_of_the_moves_that_stay_on_it() {
    let coordinates: Coordinates = (1..=8)
        .flat_map(|x| (1..=8).map(move |y| (vec![x.to_string(), y.to_string()], (x * 8 + y) as u32)))
        .map(|(k, p)| (k, (p % 64, 0)))
        .collect();
    let sides = sides(&coordinates);
    let atoms = |cells: [i64; 4]| cells.iter().map(i64::to_string).collect::<Vec<String>>();
    let direction = |cells| direction_around(&atoms(cells), &[0, 1], &[2, 3], &sides);
    // One step left and up, on the board and from column 1 to column 8.
    assert_eq!(direction([3, 3, 2, 4]), Some(vec![7, 1]));
    assert_eq!(direction([1, 3, 8, 4]), Some(vec![7, 1]));
    assert_eq!(direction([6, 8, 5, 1]), Some(vec![7, 1]));
    assert_ne!(direction([3, 3, 4, 4]), Some(vec![7, 1]));
    // Atoms that are no coordinates have no direction.
    let named = vec!["a".to_string(), "1".to_string(), "b".to_string(), "2".to_string()];
    assert_eq!(direction_around(&named, &[0, 1], &[2, 3], &sides), None);
}

#[test]
fn columns_named_by_letters_go_around_in_the_order_of_the_letters() {
    let columns = ["a", "b", "c", "d", "e", "f", "g", "h"];
    let coordinates: Coordinates = (columns.iter().enumerate())
        .flat_map(|(x, c)| (1..=8).map(move |y| (vec![c.to_string(), y.to_string()], ((x * 8 + y - 1) as u32, 0))))
        .collect();
    let sides = sides(&coordinates);
    let atoms = |cells: [&str; 4]| cells.iter().map(|a| a.to_string()).collect::<Vec<String>>();
    let direction = |cells| direction_around(&atoms(cells), &[0, 1], &[2, 3], &sides);
    // One step right and up, on the board and from column h to column a.
    assert_eq!(direction(["b", "2", "c", "3"]), Some(vec![1, 1]));
    assert_eq!(direction(["h", "2", "a", "3"]), Some(vec![1, 1]));
    assert_ne!(direction(["h", "2", "g", "3"]), Some(vec![1, 1]));
}

#[test]
fn drops_are_placed_by_their_cells_apart_from_the_moves() {
    // `(stock o k x)` makes `(a 3)` a place too (a board for each `o`), so that a drop
    // `(drop a 3 4)` placed as the moves are, by the two atoms after the kind of move, would be
    // at `(a 3)`: shogi's `(legal black (drop gold 1 a))` and `(inHand black gold 1)`.
    let ground = ground_of(
        "
        (owner o1) (owner o2) (piece a) (piece b) (piece c)
        (<= (init (stock ?o ?k ?x)) (owner ?o) (piece ?k) (index ?x))
        (<= (next (stock ?o ?k ?x)) (true (stock ?o ?k ?x)) (true (cell ?x ?x b)))
        (<= (legal p (move ?x ?y ?u ?v)) (true (cell ?x ?y x)) (succ ?x ?u) (succ ?y ?v) (true (cell ?u ?v b)))
        (<= (legal p (move ?x ?y ?u ?v)) (true (cell ?x ?y x)) (succ ?x ?u) (succ ?v ?y) (true (cell ?u ?v b)))
        (<= (legal p (drop ?k ?x ?y)) (true (stock o1 ?k 1)) (true (cell ?x ?y b)) (succ ?x ?u) (true (cell ?u ?y b)))
        (<= terminal (true (cell 1 1 x)))
        (<= (goal p 100) terminal)
        (<= (goal p 0) (not terminal))",
    );
    let Some(Placed { board, heads, coordinates, .. }) = placed(&ground) else { panic!("the game has a board") };
    let never = vec![false; ground.nodes.len()];
    let Places { place, .. } = places(&ground, &never, &heads, &board, &coordinates);
    let node = |name: &str| ground.nodes.iter().position(|n| n.name == name).expect("a node of that name");
    let mut drops = 0;
    for x in 1..=5 {
        for y in 1..=6 {
            let cell = coordinates.get(&vec![x.to_string(), y.to_string()]).map(|&(place, _)| place);
            assert!(cell.is_some(), "({x}, {y}) is a place");
            assert_eq!(place[node(&format!("(legal p (drop a {x} {y}))"))], cell, "drop a {x} {y}");
            drops += 1;
        }
    }
    assert_eq!(drops, 30);
}

/// The bundled dotsAndBoxes, grounded: its lines are named by their two ends, `(line 1 1 2 1)`.
fn dots_and_boxes() -> crate::ground::Ground {
    let text = include_str!("../../../../../games/dotsAndBoxes.kif");
    crate::compile::ground_source(text, &Default::default()).expect("grounds")
}

#[test]
fn no_two_moves_of_a_kind_share_a_place() {
    // The board of the lines leaves out their first atom, so the first three atoms of
    // `(draw 1 1 1 2)` and of `(draw 1 1 2 1)` both name the place of `(line 1 1 1 2)`. A word of
    // their kind must still tell the two moves apart.
    let ground = dots_and_boxes();
    let Some(Placed { board, move_kinds, .. }) = placed(&ground) else { panic!("the game has a board") };
    for kind in &move_kinds {
        let places: BTreeSet<u32> = kind.places.iter().map(|&(_, place)| place).collect();
        assert_eq!(places.len(), kind.places.len(), "a place taken twice in {kind:?}");
    }
    let draws = ground.inputs.iter().flatten().filter(|&&m| ground.moves[m as usize].starts_with("(draw")).count();
    assert_eq!(board.moves.len(), draws, "every draw is placed");
    assert_eq!(draws, 120);
}

#[test]
fn a_move_that_names_a_fact_is_at_the_facts_place_in_one_kind_a_role() {
    // `(draw 1 1 2 1)` draws `(line 1 1 2 1)`: at the line's place, so that "the line drawn"
    // and "the line drawn before" are one word apart by the same distance for every line.
    let ground = dots_and_boxes();
    let Some(Placed { board, move_kinds, .. }) = placed(&ground) else { panic!("the game has a board") };
    for (role, moves) in ground.inputs.iter().enumerate() {
        for &m in moves.iter().filter(|&&m| ground.moves[m as usize].starts_with("(draw")) {
            let line = ground.moves[m as usize].replacen("draw", "line", 1);
            let fact = ground.base.iter().position(|b| *b == line).expect("a line of that name");
            let &(_, place) = board.moves.get(&(role as u32, m)).expect("the draw is placed");
            assert_eq!(Some(place), board.base[fact], "{}", ground.moves[m as usize]);
        }
    }
    let roles: BTreeSet<u32> = move_kinds.iter().map(|kind| kind.role).collect();
    assert_eq!((move_kinds.len(), roles.len()), (2, 2), "one kind of draw a role");
}

#[test]
fn boxes_closed_by_the_line_drawn_are_words_at_the_places_of_their_sides() {
    // `(box_formed ?x ?y)` names a box, and the boxes are a board of their own (`(box ?x ?y
    // ?mark)`), but its rules read the box's four lines, at distances from the box's place that
    // differ for every box: placed by its name, each rule of each box would be a template of
    // its own. Placed by the first line its rules read, they are a few templates for all.
    let ground = dots_and_boxes();
    let words = find_any(&ground);
    let boxes: Vec<usize> = (ground.nodes.iter().enumerate())
        .filter(|(_, node)| node.name.starts_with("(box_formed"))
        .map(|(n, _)| n)
        .collect();
    assert_eq!(boxes.len(), 25);
    let grouped = boxes.iter().filter(|&&n| words.member[n].is_some()).count();
    assert!(grouped >= 16, "{grouped} of the 25 boxes in groups");
    for group in words.groups.iter().filter(|g| g.members.iter().any(|m| boxes.contains(&(*m as usize)))) {
        assert!(group.templates.len() <= 8, "{} templates for {} boxes", group.templates.len(), group.members.len());
    }
    assert_words_agree(&ground, &words);
}

/// `(between ?a ?b ?y)` on an 8x8 board with holes (a relation that never changes, folded by
/// grounding), as skirmishFinal3's lines: the cells strictly between columns `a` and `b` of row
/// `y` are open. Placed at cell (a, b) and grouped by the row, or at cell (a, y) and grouped by
/// `b`, as many nodes are in groups; at (a, b) the cell a rule reads lies at a distance that
/// differs with `b`, at (a, y) always one column on.
const LINES_WITH_HOLES: &str = "
        (role p)
        (index 1) (index 2) (index 3) (index 4) (index 5) (index 6) (index 7) (index 8)
        (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
        (<= (init (cell ?x ?y b)) (index ?x) (index ?y))
        (<= (legal p (mark ?x ?y)) (true (cell ?x ?y b)))
        (<= (next (cell ?x ?y x)) (does p (mark ?x ?y)))
        (<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)) (does p (mark ?u ?v)) (distinct ?x ?u))
        (<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)) (does p (mark ?u ?v)) (distinct ?y ?v))
        (hole 3 3) (hole 6 3) (hole 3 6) (hole 6 6) (hole 4 4) (hole 5 4) (hole 4 5) (hole 5 5)
        (<= (open ?x ?y) (true (cell ?x ?y b)) (not (hole ?x ?y)))
        (<= (between ?a ?b ?y) (succ ?a ?c) (succ ?c ?b) (open ?c ?y))
        (<= (between ?a ?b ?y) (succ ?a ?c) (open ?c ?y) (between ?c ?b ?y))
        (<= terminal (true (cell ?a ?y x)) (between ?a ?b ?y))
        (<= (goal p 100) terminal)
        (<= (goal p 0) (not terminal))";

#[test]
fn of_placements_that_group_as_many_nodes_the_one_of_fewer_templates_wins() {
    let ground = crate::compile::ground_source(LINES_WITH_HOLES, &Default::default()).expect("grounds");
    let words = find_any(&ground);
    let between = nodes_named(&ground, "(between");
    let grouped = between.iter().filter(|&&n| words.member[n].is_some()).count();
    assert!(grouped >= 60, "{grouped} of {} lines in groups", between.len());
    for group in words.groups.iter().filter(|g| g.members.iter().any(|m| between.contains(&(*m as usize)))) {
        assert!(group.templates.len() <= 2, "{} templates for {} lines", group.templates.len(), group.members.len());
    }
    assert_words_agree(&ground, &words);
}
