//! Tests of the state layout: boards of a colour, of a piece, of another relation.

use super::*;

/// The bit that `bit_of` gives each fact of `base`, by the fact's text.
fn bits<'a>(base: &'a [String], bit_of: &'a [u32]) -> impl Fn(&str) -> u32 + 'a {
    move |fact| bit_of[base.iter().position(|b| b == fact).expect("a fact of the base")]
}

fn facts(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_colour_board_is_one_block_in_board_order() {
    // Two colours on a 10-cell row: the numbers order by value, and each colour's cells
    // are contiguous.
    let mut base = Vec::new();
    for x in 1..=10 {
        for c in ["red", "white"] {
            base.push(format!("(cell {x} {c})"));
        }
    }
    base.sort();
    let bit_of = layout(&base, &[]).expect("a new layout");
    let bit = bits(&base, &bit_of);
    assert_eq!(bit("(cell 2 red)"), bit("(cell 1 red)") + 1);
    assert_eq!(bit("(cell 10 red)"), bit("(cell 1 red)") + 9);
    assert_eq!(bit("(cell 10 white)"), bit("(cell 1 white)") + 9);
}

#[test]
fn a_counter_is_laid_out_in_the_order_of_its_numbers() {
    // Byte order puts (step 10) between (step 1) and (step 2); by value, each step is the
    // bit after the one before, so that a word of next values is a shift of the counter.
    let mut base: Vec<String> = (1..=12).map(|k| format!("(step {k})")).collect();
    base.push("(control red)".to_string());
    base.push("(control white)".to_string());
    base.sort();
    let bit_of = layout(&base, &[]).expect("a new layout");
    let bit = bits(&base, &bit_of);
    for k in 1..12 {
        assert_eq!(bit(&format!("(step {})", k + 1)), bit(&format!("(step {k})")) + 1, "step {k}");
    }
}

#[test]
fn a_block_that_fits_a_word_stays_within_one() {
    // Two 42-fact boards and two single facts: each board within one word, in two words.
    let mut base = facts(&["(control red)", "(control white)"]);
    for x in 1..=7 {
        for y in 1..=6 {
            base.push(format!("(cell {x} {y} red)"));
            base.push(format!("(cell {x} {y} white)"));
        }
    }
    base.sort();
    let bit_of = layout(&base, &[]).expect("a new layout");
    for colour in ["red", "white"] {
        let bits: Vec<u32> = (0..base.len())
            .filter(|&i| base[i].ends_with(&format!(" {colour})")) && base[i].starts_with("(cell"))
            .map(|i| bit_of[i])
            .collect();
        assert_eq!(bits.len(), 42);
        assert!(bits.iter().all(|&b| b / 64 == bits[0] / 64), "{colour}: {bits:?}");
    }
    assert!(bit_of.iter().all(|&b| b < 128));
    let mut sorted = bit_of.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), base.len(), "every fact has its own bit");
}

#[test]
fn a_relation_wider_than_a_word_takes_the_board_of_another() {
    // Hex's groups: (connected k m n) for 3 groups on a 9x9 board beside (cell m n colour).
    // Led by its fewest values (a column), each block would hold 27 facts of 3 groups;
    // led by the group, each group is a board of 81 cells like each colour's, from a word.
    let mut base = Vec::new();
    let rows = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for m in rows {
        for n in 1..=9 {
            for colour in ["blue", "red"] {
                base.push(format!("(cell {m} {n} {colour})"));
            }
            for k in 1..=12 {
                base.push(format!("(connected {k} {m} {n})"));
            }
        }
    }
    base.sort();
    let bit_of = layout(&base, &[]).expect("a new layout");
    let bit = bits(&base, &bit_of);
    for k in 1..=12 {
        let first = bit(&format!("(connected {k} a 1)"));
        assert_eq!(first % 64, 0, "group {k} starts a word");
        assert_eq!(bit(&format!("(connected {k} b 1)")), first + 9);
        assert_eq!(bit(&format!("(connected {k} i 9)")), first + 80);
    }
    assert_eq!(bit("(cell a 1 red)") % 64, 0);
    assert_eq!(bit("(cell i 9 red)"), bit("(cell a 1 red)") + 80);
}

#[test]
fn pieces_on_a_board_of_a_word_are_led_by_the_piece() {
    // Pieces on an 8x8 board, (location x y piece): led by a row (the fewest values), each
    // block would be 96 facts of (column, piece); led by the piece, each piece's board is
    // the 64 cells of one word, in the order of the cells.
    let mut base = Vec::new();
    let pieces = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"];
    for x in 1..=8 {
        for y in 1..=8 {
            for piece in pieces {
                base.push(format!("(location {x} {y} {piece})"));
            }
        }
    }
    base.sort();
    let bit_of = layout(&base, &[]).expect("a new layout");
    let bit = bits(&base, &bit_of);
    for piece in pieces {
        let first = bit(&format!("(location 1 1 {piece})"));
        assert_eq!(first % 64, 0, "{piece} starts a word");
        assert_eq!(bit(&format!("(location 1 2 {piece})")), first + 1);
        assert_eq!(bit(&format!("(location 2 1 {piece})")), first + 8);
        assert_eq!(bit(&format!("(location 8 8 {piece})")), first + 63);
    }
}

#[test]
fn a_player_and_a_piece_lead_a_board_of_a_word_with_holes() {
    // Chess's (cell x y player piece): led by the player (the fewest values), a block would
    // be 184 facts. Led by the player and the piece, each is a board of the 64 cells from a
    // word, the pawns' (never on the first or last row) with those rows' bits empty.
    let mut base = Vec::new();
    for x in ["a", "b", "c", "d", "e", "f", "g", "h"] {
        for y in 1..=8 {
            for player in ["black", "white"] {
                for piece in ["king", "knight", "pawn"] {
                    if piece != "pawn" || (2..=7).contains(&y) {
                        base.push(format!("(cell {x} {y} {player} {piece})"));
                    }
                }
            }
        }
    }
    base.sort();
    let bit_of = layout(&base, &[]).expect("a new layout");
    let bit = bits(&base, &bit_of);
    for player in ["black", "white"] {
        for piece in ["king", "knight", "pawn"] {
            let first = match piece {
                "pawn" => bit(&format!("(cell a 2 {player} {piece})")) - 1,
                _ => bit(&format!("(cell a 1 {player} {piece})")),
            };
            assert_eq!(first % 64, 0, "{player} {piece} starts a word");
            assert_eq!(bit(&format!("(cell a 7 {player} {piece})")), first + 6);
            assert_eq!(bit(&format!("(cell b 2 {player} {piece})")), first + 9);
            assert_eq!(bit(&format!("(cell h 7 {player} {piece})")), first + 62);
        }
    }
    let mut bits = bit_of.clone();
    bits.sort_unstable();
    bits.dedup();
    assert_eq!(bits.len(), base.len(), "every fact has its own bit");
}

#[test]
fn a_pair_of_coordinates_leads_no_board() {
    // dotsAndBoxes' lines between points of a 6x6 grid, (line x1 y1 x2 y2): led by the first
    // point, each would be a board of the 35 second points, nearly empty. The pair names a
    // point, not what stands on one: no pair leads.
    let mut base = Vec::new();
    for x in 1..=6 {
        for y in 1..=6 {
            if x < 6 {
                base.push(format!("(line {x} {y} {} {y})", x + 1));
            }
            if y < 6 {
                base.push(format!("(line {x} {y} {x} {})", y + 1));
            }
        }
    }
    base.sort();
    let parsed: Vec<(String, Vec<String>)> = base.iter().map(|fact| split(fact)).collect();
    let facts: Vec<usize> = (0..base.len()).collect();
    assert_eq!(lead_boards(&facts, &parsed, fewest_values(&facts, &parsed)), None);
}

#[test]
fn a_relation_is_not_led_by_a_block_of_less_than_half_a_word() {
    // Two colours on a 9x9 board: a colour's 81 cells are wider than a word, and a row's
    // 18 facts of (column, colour) are no board. Led by the row, they would fit in three
    // words; they are led by the colour, each board from a word's start, in four.
    let mut base = Vec::new();
    for m in ["a", "b", "c", "d", "e", "f", "g", "h", "i"] {
        for n in 1..=9 {
            for colour in ["blue", "red"] {
                base.push(format!("(cell {m} {n} {colour})"));
            }
        }
    }
    base.sort();
    let bit_of = layout(&base, &[]).expect("a new layout");
    let bit = bits(&base, &bit_of);
    assert_eq!((bit("(cell a 1 blue)"), bit("(cell a 1 red)")), (0, 128));
    assert_eq!(bit("(cell b 1 blue)"), 9);
    assert_eq!(bit("(cell i 9 red)"), 128 + 80);
}

#[test]
fn coordinates_order_a_board() {
    // Two quadrants of two cells, (c q i colour), whose board columns are 1, 2 for
    // quadrant 1 and 3, 4 for quadrant 2, listed in the other order: column 1 is quadrant
    // 2's first cell. Each colour's board is then in column order.
    let mut base = Vec::new();
    for q in 1..=2 {
        for i in 1..=2 {
            for colour in ["o", "x"] {
                base.push(format!("(c {q} {i} {colour})"));
            }
        }
    }
    base.sort();
    let key = |q: &str, i: &str| vec![q.to_string(), i.to_string()];
    let column = |k: u32| vec![k.to_string()];
    let map = [
        (key("2", "1"), column(1)),
        (key("2", "2"), column(2)),
        (key("1", "1"), column(3)),
        (key("1", "2"), column(4)),
    ];
    let coordinates =
        Coordinates { relation: ("c".to_string(), 3), positions: vec![0, 1], map: map.into_iter().collect() };
    let bit_of = layout(&base, &[coordinates]).expect("a new layout");
    let bit = bits(&base, &bit_of);
    for colour in ["o", "x"] {
        let bits: Vec<u32> =
            ["(c 2 1", "(c 2 2", "(c 1 1", "(c 1 2"].iter().map(|c| bit(&format!("{c} {colour})"))).collect();
        assert!(bits.windows(2).all(|w| w[1] == w[0] + 1), "{colour}: {bits:?}");
    }
}

#[test]
fn boards_of_different_cells_per_colour_stay_in_byte_order() {
    // Blanks on every cell, pieces on half of them: not one board per value.
    let mut base = Vec::new();
    for x in 1..=4 {
        base.push(format!("(cell {x} b)"));
        if x % 2 == 0 {
            base.push(format!("(cell {x} s)"));
        }
    }
    base.sort();
    assert_eq!(layout(&base, &[]), None);
}

#[test]
fn no_new_layout_when_it_needs_more_words() {
    // Three blocks of 40 facts fit two words only when one of them is split.
    let mut base = Vec::new();
    for c in ["a", "b", "c"] {
        for x in 1..=40 {
            base.push(format!("(p {x} {c})"));
        }
    }
    base.sort();
    assert_eq!(layout(&base, &[]), None);
}

#[test]
fn numbers_spelt_two_ways_keep_their_own_bits() {
    // `1` and `01` are one number but two symbols, so two cells of a player's piece's board.
    let mut base = Vec::new();
    for x in ["1", "01", "2", "3", "4", "5", "6", "7"] {
        for y in 1..=8 {
            for player in ["black", "white"] {
                for piece in ["king", "knight", "pawn"] {
                    base.push(format!("(cell {x} {y} {player} {piece})"));
                }
            }
        }
    }
    base.sort();
    let bit_of = layout(&base, &[]).expect("a new layout");
    let mut bits = bit_of.clone();
    bits.sort_unstable();
    bits.dedup();
    assert_eq!(bits.len(), base.len(), "every fact has its own bit");
}

#[test]
fn a_sparse_relation_is_not_spread_over_a_word_a_pair() {
    // Each of twelve (player, piece) pairs stands on 5 cells of its own out of 60: boards of a
    // word would be twelve words for 60 facts, which byte order packs into one.
    let mut base = Vec::new();
    for (k, (player, piece)) in
        ["black", "white"].iter().flat_map(|p| ["a", "b", "c", "d", "e", "f"].map(|q| (p, q))).enumerate()
    {
        for cell in 5 * k..5 * k + 5 {
            base.push(format!("(cell {} {} {player} {piece})", cell / 8, cell % 8));
        }
    }
    base.sort();
    if let Some(bit_of) = layout(&base, &[]) {
        assert!(bit_of.iter().all(|&b| b < 64), "{bit_of:?}");
    }
}

#[test]
fn a_player_a_piece_and_its_promotion_lead_a_board_of_two_words() {
    // Shogi's (cell x y player piece promotion) on 81 cells: no pair of arguments leads a board
    // of a word, and a file with a player would lead one of 126 facts over two words. Led by
    // the player, the piece and its promotion, each is a board of the 81 cells from a word.
    let mut base = Vec::new();
    for x in 1..=9 {
        for y in ["a", "b", "c", "d", "e", "f", "g", "h", "i"] {
            for player in ["black", "white"] {
                for (piece, promotion) in [("gold", "unpromotable"), ("pawn", "promoted"), ("pawn", "unpromoted")] {
                    base.push(format!("(cell {x} {y} {player} {piece} {promotion})"));
                }
            }
        }
    }
    base.sort();
    let bit_of = layout(&base, &[]).expect("a new layout");
    let bit = bits(&base, &bit_of);
    for player in ["black", "white"] {
        for (piece, promotion) in [("gold", "unpromotable"), ("pawn", "promoted"), ("pawn", "unpromoted")] {
            let first = bit(&format!("(cell 1 a {player} {piece} {promotion})"));
            assert_eq!(first % 64, 0, "{player} {piece} {promotion} starts a word");
            assert_eq!(bit(&format!("(cell 1 i {player} {piece} {promotion})")), first + 8);
            assert_eq!(bit(&format!("(cell 2 a {player} {piece} {promotion})")), first + 9);
            assert_eq!(bit(&format!("(cell 9 i {player} {piece} {promotion})")), first + 80);
        }
    }
    let mut bits = bit_of.clone();
    bits.sort_unstable();
    bits.dedup();
    assert_eq!(bits.len(), base.len(), "every fact has its own bit");
}

#[test]
fn pieces_on_cells_they_may_not_all_reach_are_led_by_the_piece_with_holes() {
    // ttcc4's (cell x y piece): pawns and knights on every cell of columns 1 to 5, discs on
    // columns 2 and 3 only. Led by the piece (the fewest values) the boards differ, so the
    // relation would stay in byte order; led by the piece with holes, each is a board of the
    // 20 cells, so that a cell is at the same distance from each board's start.
    let mut base = Vec::new();
    for x in 1..=5 {
        for y in 1..=4 {
            for piece in ["disc", "knight", "pawn"] {
                if piece != "disc" || (2..=3).contains(&x) {
                    base.push(format!("(cell {x} {y} {piece})"));
                }
            }
        }
    }
    base.sort();
    let bit_of = layout(&base, &[]).expect("a new layout");
    let bit = bits(&base, &bit_of);
    let start = |piece: &str| bit(&format!("(cell 1 1 {piece})"));
    for piece in ["knight", "pawn"] {
        assert_eq!(bit(&format!("(cell 1 2 {piece})")), start(piece) + 1);
        assert_eq!(bit(&format!("(cell 5 4 {piece})")), start(piece) + 19);
    }
    let knight = start("knight");
    let disc_at = |x: u32, y: u32| bit(&format!("(cell {x} {y} disc)"));
    assert_eq!(disc_at(3, 4) - disc_at(2, 1), 7);
    assert_eq!(disc_at(2, 3) - disc_at(2, 1), bit("(cell 2 3 knight)") - bit("(cell 2 1 knight)"));
    assert_eq!(bit("(cell 2 1 knight)"), knight + 4);
    let mut bits = bit_of.clone();
    bits.sort_unstable();
    bits.dedup();
    assert_eq!(bits.len(), base.len(), "every fact has its own bit");
}

#[test]
fn rows_of_numbers_lead_no_boards_of_columns_and_pieces() {
    // pawnToQueen's (cell x y piece): blanks everywhere, pawns on the middle columns only,
    // queens on their first and last rows. The blank `b` is also a column's name, so neither
    // the piece nor the column may lead; led by the row (numbers), each block would be pairs
    // of a column and a piece, no board: the relation keeps its byte order.
    let mut base = Vec::new();
    for x in ["a", "b", "c", "d", "e", "f", "g", "h"] {
        for y in 1..=8 {
            base.push(format!("(cell {x} {y} b)"));
            let middle = ["c", "d", "e", "f"].contains(&x);
            if middle && (2..=7).contains(&y) {
                base.push(format!("(cell {x} {y} bp)"));
                base.push(format!("(cell {x} {y} wp)"));
            }
            if middle && y == 1 {
                base.push(format!("(cell {x} {y} bq)"));
            }
            if middle && y == 8 {
                base.push(format!("(cell {x} {y} wq)"));
            }
        }
    }
    base.sort();
    let parsed: Vec<(String, Vec<String>)> = base.iter().map(|fact| split(fact)).collect();
    let facts: Vec<usize> = (0..base.len()).collect();
    assert_eq!(lead_boards(&facts, &parsed, fewest_values(&facts, &parsed)), None);
    assert_eq!(layout(&base, &[]), None);
}

#[test]
fn a_piece_named_like_a_column_still_leads_boards_of_the_pieces() {
    // checkers' (cell x y piece): blanks on every cell, men and kings on the dark cells, men
    // never on their last row. The blank `b` is also a column's name; the pieces, fewer than
    // the columns and the rows, still lead, each a board of the 64 cells, so that a cell is at
    // the same distance from each board's start.
    let files = ["a", "b", "c", "d", "e", "f", "g", "h"];
    let mut base = Vec::new();
    for (i, x) in files.iter().enumerate() {
        for y in 1..=8 {
            base.push(format!("(cell {x} {y} b)"));
            if (i + y) % 2 == 1 {
                for piece in ["bk", "wk"] {
                    base.push(format!("(cell {x} {y} {piece})"));
                }
                if y != 1 {
                    base.push(format!("(cell {x} {y} bp)"));
                }
                if y != 8 {
                    base.push(format!("(cell {x} {y} wp)"));
                }
            }
        }
    }
    base.sort();
    let bit_of = layout(&base, &[]).expect("a new layout");
    let bit = bits(&base, &bit_of);
    for piece in ["b", "bk", "bp", "wk", "wp"] {
        let cell = |x: &str, y: u32| bit(&format!("(cell {x} {y} {piece})"));
        assert_eq!(cell("c", 5) - cell("b", 4), 9, "{piece}: the next column's cell a row up");
        assert_eq!(cell("c", 5) / 64, cell("b", 4) / 64, "{piece}: one board a word");
    }
    assert_eq!(
        bit("(cell b 4 wp)") - bit("(cell b 4 b)"),
        bit("(cell g 7 wp)") - bit("(cell g 7 b)"),
        "each cell at the same distance from its board's start"
    );
    let mut bits = bit_of.clone();
    bits.sort_unstable();
    bits.dedup();
    assert_eq!(bits.len(), base.len(), "every fact has its own bit");
}

#[test]
fn a_board_with_holes_punched_in_keeps_every_cell_at_its_bit() {
    // skirmishFinal's pieces on an 8x8 board without four of its squares: led by the piece,
    // each board keeps the holes' bits empty, so that every square is at the bit it has on
    // the full board (a move one row down is one shift), and the boards take a word more than
    // their facts need.
    let holes = [(3, 3), (3, 6), (6, 3), (6, 6)];
    let pieces = ["blackpawn", "blackrook", "whitepawn", "whiterook", "whitequeen", "blackqueen"];
    let mut base = Vec::new();
    for x in 1..=8 {
        for y in 1..=8 {
            if !holes.contains(&(x, y)) {
                base.extend(pieces.iter().map(|piece| format!("(location {x} {y} {piece})")));
            }
        }
    }
    base.extend((1..=9).map(|n| format!("(step {n})")));
    base.sort();
    let bit_of = layout(&base, &[]).expect("a new layout");
    let bit = bits(&base, &bit_of);
    for piece in pieces {
        let first = bit(&format!("(location 1 1 {piece})"));
        assert_eq!(first % 64, 0, "{piece} starts a word");
        assert_eq!(bit(&format!("(location 3 4 {piece})")), first + 2 * 8 + 3);
        assert_eq!(bit(&format!("(location 6 7 {piece})")), first + 5 * 8 + 6);
        assert_eq!(bit(&format!("(location 8 8 {piece})")), first + 63);
    }
}

#[test]
fn a_board_of_half_a_word_is_not_completed() {
    // Cells of a 8x8 board of which only the 32 of one colour are used (checkers): a word
    // would be half empty, so each piece's board is its 32 cells.
    let pieces = ["black", "white"];
    let mut base = Vec::new();
    for x in 1..=8 {
        for y in 1..=8 {
            if (x + y) % 2 == 0 {
                base.extend(pieces.iter().map(|piece| format!("(cell {x} {y} {piece})")));
            }
        }
    }
    base.sort();
    let bit_of = layout(&base, &[]).expect("a new layout");
    let bit = bits(&base, &bit_of);
    assert_eq!(bit("(cell 1 3 black)"), bit("(cell 1 1 black)") + 1);
    assert_eq!(bit("(cell 2 2 white)"), bit("(cell 1 1 white)") + 4);
}

#[test]
fn a_board_with_more_holes_than_a_quarter_is_not_completed() {
    // 44 cells of an 8x8 board, a block of 4 by 5 punched out of its middle: more than half a
    // word, but a full board would be almost half holes, so each piece's board is its 44 cells.
    let pieces = ["black", "white"];
    let mut base = Vec::new();
    for x in 1..=8 {
        for y in 1..=8 {
            if !((3..=6).contains(&x) && (2..=6).contains(&y)) {
                base.extend(pieces.iter().map(|piece| format!("(cell {x} {y} {piece})")));
            }
        }
    }
    base.sort();
    let bit_of = layout(&base, &[]).expect("a new layout");
    let bit = bits(&base, &bit_of);
    for piece in pieces {
        assert_eq!(bit(&format!("(cell 3 7 {piece})")), bit(&format!("(cell 3 1 {piece})")) + 1);
    }
}

#[test]
fn a_colour_board_wider_than_a_word_starts_at_a_word_though_that_takes_one_more() {
    // Blokus's 14 by 14 board of two colours: 392 facts fit seven words, but each colour's
    // board starts at a word only in eight. There the same cell of the two colours is the same
    // bit of their words, and a piece's cells read shifted onto its places.
    let mut base = Vec::new();
    for x in 1..=14 {
        for y in 1..=14 {
            for c in ["orange", "purple"] {
                base.push(format!("(cell {x} {y} {c})"));
            }
        }
    }
    base.sort();
    let bit_of = layout(&base, &[]).expect("a new layout");
    let bit = bits(&base, &bit_of);
    assert_eq!(bit("(cell 1 1 orange)") % 64, 0);
    assert_eq!(bit("(cell 1 1 purple)") % 64, 0);
    assert_eq!(bit("(cell 1 1 purple)") - bit("(cell 1 1 orange)"), 256);
    assert_eq!(bit("(cell 2 1 orange)"), bit("(cell 1 1 orange)") + 14);
    assert_eq!(bit_of.iter().max().map(|&b| b / 64 + 1), Some(8));
}
