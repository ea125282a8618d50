//! Boards found in a match's facts, for `gdlc view`: a relation whose arguments include two
//! coordinates next to each other (`(cell 3 4 b)`, `(cell a 1 white rook)`) is drawn as a grid,
//! the other arguments of each fact being the value shown in its cell. Coordinates are small
//! numbers or single letters; a game's own coordinates, as the layout finds them
//! ([`gdlc::ground::coordinates`]: pentago's quadrant and cell mapped to a column and a row),
//! are applied first when the game is known. Facts of no board are listed beside the boards.

use gdl_runtime::kif::{self, Sx};
use gdlc::ground::coordinates::Coordinates;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The most values one coordinate of a board may take.
const MAX_SIDE: usize = 32;

/// Values drawn as an empty cell.
const BLANKS: [&str; 5] = ["b", "blank", "empty", "none", "space"];

/// A grid: its relation, and the labels of its columns (left to right) and rows (top to
/// bottom).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Board {
    /// The relation drawn, with its arity (`cell/3`).
    pub name: String,
    /// The first coordinate's values, left to right.
    pub columns: Vec<String>,
    /// The second coordinate's values, top to bottom (the largest number at the top, as a
    /// chess board's rank 8 or a connect four's top row).
    pub rows: Vec<String>,
}

/// Where a fact is drawn: a cell of a board and the value shown in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Place {
    /// The board's index.
    pub board: usize,
    /// The row's index, from the top.
    pub row: usize,
    /// The column's index, from the left.
    pub column: usize,
    /// The index of the value in [`Boards::values`].
    pub value: usize,
}

/// How a value is drawn in a cell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Value {
    /// The value's arguments as the facts spell them (`white rook`, `x`).
    pub text: String,
    /// The character drawn (a chess piece, `X`, a number, or `●`); empty for a blank cell.
    pub glyph: String,
    /// The glyph's CSS colour.
    pub colour: String,
    /// Whether the glyph is light and needs a dark outline to stand out on a light cell.
    pub outline: bool,
}

/// The boards of a match and where each of its facts is drawn.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Boards {
    /// The boards, in the order of their relations' names.
    pub boards: Vec<Board>,
    /// For every fact, in the order given, its place, or `None` for a fact of no board.
    pub places: Vec<Option<Place>>,
    /// Every value drawn, in byte order of its text.
    pub values: Vec<Value>,
}

/// A fact read as a relation with arguments (arguments that are lists are printed back).
fn split(fact: &str) -> Option<(String, Vec<String>)> {
    match kif::parse_one(fact).ok()? {
        Sx::List(items) => {
            let (head, args) = items.split_first()?;
            let Sx::Atom(name) = head else { return None };
            Some((name.clone(), args.iter().map(Sx::to_string).collect()))
        }
        Sx::Atom(_) => None,
    }
}

/// A coordinate read as a prefix of letters and a number (`3`, `c3`), if it is one.
fn numbered(text: &str) -> Option<(&str, u32)> {
    let digits = text.find(|c: char| c.is_ascii_digit())?;
    let (prefix, number) = text.split_at(digits);
    let prefix_ok = prefix.len() <= 2 && prefix.bytes().all(|b| b.is_ascii_lowercase());
    let number_ok = number.len() <= 2 && number.bytes().all(|b| b.is_ascii_digit());
    (prefix_ok && number_ok).then(|| Some((prefix, number.parse().ok()?))).flatten()
}

/// Whether `text` can be a coordinate: a number below 100, maybe after a letter or two
/// (sheepAndWolf's `c3`), or a single letter.
fn coordinate_like(text: &str) -> bool {
    numbered(text).is_some() || (text.len() == 1 && text.bytes().all(|b| b.is_ascii_lowercase()))
}

/// The values of one coordinate in drawing order, gaps filled: numbers (after one prefix) from
/// 1 (or 0, when it is seen) to the greatest, letters from `a` to the last.
fn axis(seen: &BTreeSet<&str>) -> Vec<String> {
    let numbers: Option<Vec<(&str, u32)>> = seen.iter().map(|s| numbered(s)).collect();
    if let Some(numbers) = numbers {
        let prefix = numbers.first().map_or("", |n| n.0);
        if numbers.iter().all(|n| n.0 == prefix) {
            let low = numbers.iter().map(|n| n.1).min().unwrap_or(1).min(1);
            let high = numbers.iter().map(|n| n.1).max().unwrap_or(1);
            return (low..=high).map(|n| format!("{prefix}{n}")).collect();
        }
    }
    if seen.iter().all(|s| s.len() == 1 && s.as_bytes()[0].is_ascii_lowercase()) {
        let high = seen.iter().next_back().map_or(b'a', |s| s.as_bytes()[0]);
        return (b'a'..=high).map(|b| char::from(b).to_string()).collect();
    }
    seen.iter().map(|s| s.to_string()).collect()
}

/// The first two neighbouring argument positions that hold coordinates in every fact, with few
/// enough values that the grid is a board.
fn coordinate_pair(facts: &[Vec<String>]) -> Option<usize> {
    let arity = facts.first()?.len();
    (0..arity.saturating_sub(1)).find(|&p| {
        let ok = facts.iter().all(|f| coordinate_like(&f[p]) && coordinate_like(&f[p + 1]));
        let side = |q: usize| facts.iter().map(|f| f[q].as_str()).collect::<BTreeSet<_>>().len();
        ok && side(p) <= MAX_SIDE && side(p + 1) <= MAX_SIDE && side(p) * side(p + 1) >= 2
    })
}

/// The unicode chess piece a value names (`white rook`, `wr`, `bk`), if it names one.
fn chess_glyph(text: &str) -> Option<char> {
    const PIECES: [(&str, char, char); 6] = [
        ("king", 'k', '♚'),
        ("queen", 'q', '♛'),
        ("rook", 'r', '♜'),
        ("bishop", 'b', '♝'),
        ("knight", 'n', '♞'),
        ("pawn", 'p', '♟'),
    ];
    let words: Vec<&str> = text.split(' ').collect();
    let piece = match words.as_slice() {
        ["white" | "black", name] => PIECES.iter().find(|p| p.0 == *name)?,
        [code] if code.len() == 2 && matches!(code.as_bytes()[0], b'w' | b'b') => {
            PIECES.iter().find(|p| p.1 == char::from(code.as_bytes()[1]))?
        }
        _ => return None,
    };
    // The filled glyphs serve both sides, told apart by colour: they read better than outlines.
    Some(piece.2)
}

/// A CSS colour for a value that names one.
fn named_colour(text: &str) -> Option<&'static str> {
    const COLOURS: [(&str, &str); 12] = [
        ("black", "#1b1b1b"),
        ("blue", "#2563eb"),
        ("brown", "#8b5a2b"),
        ("gray", "#808080"),
        ("green", "#16a34a"),
        ("grey", "#808080"),
        ("orange", "#ea580c"),
        ("pink", "#db2777"),
        ("purple", "#7c3aed"),
        ("red", "#dc2626"),
        ("white", "#f8f8f8"),
        ("yellow", "#eab308"),
    ];
    COLOURS.iter().find(|c| c.0 == text).map(|c| c.1)
}

/// How `text` is drawn; `other` counts the values drawn from the palette so far.
fn appearance(text: &str, other: &mut usize) -> Value {
    const PALETTE: [&str; 8] = ["#0f766e", "#b45309", "#6d28d9", "#be123c", "#1d4ed8", "#4d7c0f", "#a21caf", "#334155"];
    let value = |glyph: &str, colour: &str| Value {
        text: text.to_string(),
        glyph: glyph.to_string(),
        colour: colour.to_string(),
        outline: colour == "#f8f8f8" || colour == "#eab308",
    };
    if BLANKS.contains(&text) {
        return value("", "");
    }
    if let Some(glyph) = chess_glyph(text) {
        let white = text.starts_with('w');
        return value(&glyph.to_string(), if white { "#f8f8f8" } else { "#1b1b1b" });
    }
    match text {
        "x" => return value("X", "#c0392b"),
        "o" => return value("O", "#1d4ed8"),
        _ => {}
    }
    if numbered(text).is_some_and(|n| n.0.is_empty()) {
        return value(text, "#1b1b1b");
    }
    if let Some(colour) = named_colour(text) {
        return value("●", colour);
    }
    let colour = PALETTE[*other % PALETTE.len()];
    *other += 1;
    value("●", colour)
}

/// One relation's facts: each with its index among the match's facts (`None` for a fact that
/// only widens the board), and its arguments.
struct Relation {
    facts: Vec<(Option<usize>, Vec<String>)>,
}

/// The boards of `facts` (every distinct fact of a match), reading each fact through the
/// game's `coordinates` when it has some; `extent` (the game's possible base facts, when
/// known) widens each board to the places no fact of the match reaches.
pub fn find(facts: &[String], extent: &[String], coordinates: &[Coordinates]) -> Boards {
    let mut relations: BTreeMap<(String, usize), Relation> = BTreeMap::new();
    let indexed = facts.iter().enumerate().map(|(i, f)| (Some(i), f));
    for (index, fact) in indexed.chain(extent.iter().map(|f| (None, f))) {
        let Some((name, args)) = split(fact) else { continue };
        let key = (name, args.len());
        let mapped = coordinates.iter().find(|c| c.relation == key).and_then(|c| c.arguments(&args));
        let args = mapped.unwrap_or(args);
        if args.len() >= 2 && (index.is_some() || relations.contains_key(&key)) {
            relations.entry(key).or_insert(Relation { facts: Vec::new() }).facts.push((index, args));
        }
    }
    let mut found = Boards { places: vec![None; facts.len()], ..Boards::default() };
    let mut value_texts: BTreeMap<String, usize> = BTreeMap::new();
    let mut drawn: Vec<(usize, usize, usize, usize, String)> = Vec::new();
    for ((name, arity), relation) in relations {
        let args: Vec<Vec<String>> = relation.facts.iter().map(|(_, a)| a.clone()).collect();
        let Some(p) = coordinate_pair(&args) else { continue };
        let columns = axis(&args.iter().map(|a| a[p].as_str()).collect());
        let mut rows = axis(&args.iter().map(|a| a[p + 1].as_str()).collect());
        rows.reverse();
        let board = found.boards.len();
        for (index, a) in relation.facts.iter().filter_map(|(i, a)| Some((i.as_ref()?, a))) {
            let column = columns.iter().position(|c| *c == a[p]);
            let row = rows.iter().position(|r| *r == a[p + 1]);
            let (Some(column), Some(row)) = (column, row) else { continue };
            let rest: Vec<&str> =
                a.iter().enumerate().filter(|(i, _)| *i != p && *i != p + 1).map(|(_, s)| s.as_str()).collect();
            let text = rest.join(" ");
            value_texts.insert(text.clone(), 0);
            drawn.push((*index, board, row, column, text));
        }
        found.boards.push(Board { name: format!("{name}/{arity}"), columns, rows });
    }
    let mut other = 0;
    for (i, (text, slot)) in value_texts.iter_mut().enumerate() {
        *slot = i;
        found.values.push(appearance(text, &mut other));
    }
    for (index, board, row, column, text) in drawn {
        let value = value_texts.get(&text).copied().unwrap_or(0);
        found.places[index] = Some(Place { board, row, column, value });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn tic_tac_toe_is_a_three_by_three_board() {
        let facts = strings(&["(cell 1 1 x)", "(cell 1 2 b)", "(cell 3 3 o)", "(control white)"]);
        let found = find(&facts, &[], &[]);
        assert_eq!(
            found.boards,
            vec![Board { name: "cell/3".into(), columns: strings(&["1", "2", "3"]), rows: strings(&["3", "2", "1"]) }]
        );
        assert_eq!(found.places[0], Some(Place { board: 0, row: 2, column: 0, value: 2 }));
        assert_eq!(found.places[3], None);
        let glyphs: Vec<&str> = found.values.iter().map(|v| v.glyph.as_str()).collect();
        assert_eq!(glyphs, vec!["", "O", "X"]);
    }

    #[test]
    fn chess_pieces_get_their_glyphs() {
        let facts = strings(&["(cell a 1 white rook)", "(cell h 8 black king)", "(cell c 3 white knight)", "(step 1)"]);
        let found = find(&facts, &[], &[]);
        assert_eq!(found.boards[0].columns.len(), 8);
        assert_eq!(found.boards[0].rows.first().map(String::as_str), Some("8"));
        let glyphs: Vec<&str> = found.values.iter().map(|v| v.glyph.as_str()).collect();
        assert_eq!(glyphs, vec!["♚", "♞", "♜"]);
        assert_eq!(found.places[1], Some(Place { board: 0, row: 0, column: 7, value: 0 }));
        assert_eq!(chess_glyph("wn"), Some('♞'));
        assert_eq!(chess_glyph("bq"), Some('♛'));
        assert_eq!(chess_glyph("b"), None);
    }

    #[test]
    fn the_games_coordinates_come_first() {
        let facts = strings(&["(cellholds 2 1 1 red)", "(cellholds 1 1 1 black)"]);
        let map =
            [(strings(&["1", "1", "1"]), strings(&["1", "1"])), (strings(&["2", "1", "1"]), strings(&["4", "1"]))];
        let coordinates =
            Coordinates { relation: ("cellholds".into(), 4), positions: vec![0, 1, 2], map: map.into_iter().collect() };
        let found = find(&facts, &[], &[coordinates]);
        assert_eq!(found.boards[0].columns, strings(&["1", "2", "3", "4"]));
        assert_eq!(found.places[0], Some(Place { board: 0, row: 0, column: 3, value: 1 }));
    }

    #[test]
    fn numbered_coordinates_with_a_prefix_are_a_board() {
        let facts = strings(&["(cell c1 c1 s)", "(cell c4 c8 w)", "(cell a1 red)"]);
        let found = find(&facts, &[], &[]);
        assert_eq!(found.boards.len(), 1);
        assert_eq!(found.boards[0].columns, strings(&["c1", "c2", "c3", "c4"]));
        assert_eq!(found.boards[0].rows.len(), 8);
    }

    #[test]
    fn the_games_base_facts_widen_a_board() {
        let facts = strings(&["(cell 1 1 red)"]);
        let extent = strings(&["(cell 7 6 red)", "(cell 7 6 black)", "(other 9 9 x)"]);
        let found = find(&facts, &extent, &[]);
        assert_eq!((found.boards.len(), found.boards[0].columns.len(), found.boards[0].rows.len()), (1, 7, 6));
        assert_eq!(found.places, vec![Some(Place { board: 0, row: 5, column: 0, value: 0 })]);
    }

    #[test]
    fn facts_without_two_coordinates_are_no_board() {
        let facts = strings(&["(on disc5 pillar1)", "(control red 1)", "(step 1)"]);
        assert!(find(&facts, &[], &[]).boards.is_empty());
    }
}
