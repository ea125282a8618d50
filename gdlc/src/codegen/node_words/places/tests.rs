//! Tests of the places of base facts on boards: the arguments left out of a relation and the
//! coordinates that the others leave.

use super::board;

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
