//! The state layout: which bit of the state words each base fact gets.
//!
//! Grounding numbers base facts in byte order of their KIF, which interleaves the pieces of a
//! board: `(cell 1 1 black)` sits next to `(cell 1 1 white)`, so one colour's board spans every
//! word of the state and a line test over it costs a shift and an or per word. This pass lays
//! out each relation by the argument with the fewest values (the colour, the mark): the facts
//! with the same value of it form a block, ordered by their other arguments (numbers by value),
//! and a block that fits in a word is kept within one word. One colour's board is then one
//! word (or a contiguous run of words), and a rule family over it shifts one word.
//!
//! Keeping blocks within words may leave bits no fact uses: [`Ground::base`] names them with
//! an empty string, and nothing ever sets them.

use super::coordinates::Coordinates;
use super::{Ground, Lit, Prop, Value};
use gdl_runtime::kif::{self, Sx};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

const WORD: usize = 64;

/// Renumbers the base facts of `ground` by [`layout`], unless it would need more words.
/// The facts of a relation that the rules of `description` read through a one-to-one static
/// map onto numbers are ordered by those numbers (see [`super::coordinates`]).
pub fn lay_out(ground: &mut Ground, description: &crate::ast::Description) {
    let coordinates = super::coordinates::find(description, &ground.base);
    let Some(bit_of) = layout(&ground.base, &coordinates) else { return };
    renumber(ground, &bit_of);
}

/// The bit of every base fact under the block layout, or `None` when it needs more words than
/// the facts in byte order (or, when a relation is led by the board of another, than its blocks
/// wider than a word from a word each) or changes nothing.
pub fn layout(base: &[String], coordinates: &[Coordinates]) -> Option<Vec<u32>> {
    let (blocks, led_by_shared_board) = blocks(base, coordinates);
    // Blocks wider than a word start at a word boundary and take whole words; the others go,
    // widest first, into the first word with room.
    let mut order: Vec<usize> = (0..blocks.len()).collect();
    order.sort_by_key(|&b| (blocks[b].len() <= WORD, std::cmp::Reverse(blocks[b].len())));
    let mut bit_of = vec![0u32; base.len()];
    let mut fill: Vec<usize> = Vec::new();
    for b in order {
        let block = &blocks[b];
        let start = if block.len() > WORD {
            let start = fill.len() * WORD;
            let words = block.len().div_ceil(WORD);
            fill.extend(std::iter::repeat_n(WORD, words - 1));
            fill.push(block.len() - (words - 1) * WORD);
            start
        } else {
            match fill.iter().position(|&used| used + block.len() <= WORD) {
                Some(w) => {
                    fill[w] += block.len();
                    w * WORD + fill[w] - block.len()
                }
                None => {
                    fill.push(block.len());
                    (fill.len() - 1) * WORD
                }
            }
        };
        for (k, &fact) in block.iter().enumerate() {
            bit_of[fact] = (start + k) as u32;
        }
    }
    let dense_words = base.len().div_ceil(WORD).max(1);
    let identity = bit_of.iter().enumerate().all(|(i, &b)| b as usize == i);
    // A relation led by the board of another, wider than a word, starts each of its blocks at a
    // word, so that rules reading the two at one cell shift a word onto a word: allowed the
    // words that blocks wider than a word take whole, beside the others' facts packed densely.
    let narrow: usize = blocks.iter().filter(|b| b.len() <= WORD).map(Vec::len).sum();
    let padded: usize =
        blocks.iter().filter(|b| b.len() > WORD).map(|b| b.len().div_ceil(WORD)).sum::<usize>() + narrow.div_ceil(WORD);
    let allowed = if led_by_shared_board { dense_words.max(padded) } else { dense_words };
    (fill.len() <= allowed && !identity).then_some(bit_of)
}

/// The base facts grouped into blocks: the facts of one relation (by name and arity) with the
/// same value of its leading argument, each block in the order of the other arguments, when
/// every value has the same board (see [`uniform`]); else the relation's facts in byte order,
/// as one block. Blocks are in the order of their relation and that value. The leading argument
/// is the one with the fewest values, unless that leaves blocks wider than a word and another
/// argument leaves the board of another relation ([`shared_board`]). With whether a relation is
/// led so.
fn blocks(base: &[String], coordinates: &[Coordinates]) -> (Vec<Vec<usize>>, bool) {
    // A relation with coordinates is grouped under its own arity, then read by them.
    let mut parsed: Vec<(String, Vec<String>)> = base.iter().map(|fact| split(fact)).collect();
    let mut relations: BTreeMap<(String, usize), Vec<usize>> = BTreeMap::new();
    for (i, (name, args)) in parsed.iter().enumerate() {
        relations.entry((name.clone(), args.len())).or_default().push(i);
    }
    for c in coordinates {
        let Some(facts) = relations.get(&c.relation) else { continue };
        let moved: Option<Vec<Vec<String>>> = facts.iter().map(|&f| c.arguments(&parsed[f].1)).collect();
        for (&f, args) in facts.iter().zip(moved.into_iter().flatten()) {
            parsed[f].1 = args;
        }
    }
    let parsed = parsed;
    let fewest: Vec<Option<usize>> = relations.values().map(|facts| fewest_values(facts, &parsed)).collect();
    let boards: Vec<Option<Vec<Vec<&str>>>> =
        (relations.values().zip(&fewest)).map(|(facts, &outer)| board_of(facts, &parsed, outer?)).collect();
    let leading: Vec<Option<usize>> = (relations.values().zip(&fewest).enumerate())
        .map(|(r, (facts, &fewest))| shared_board(facts, &parsed, fewest, r, &boards).or(fewest))
        .collect();
    let shared = leading != fewest;
    let mut blocks = Vec::new();
    for (facts, outer) in relations.into_values().zip(leading) {
        let arity = facts.first().map_or(0, |&f| parsed[f].1.len());
        let key = |f: usize| -> Vec<&str> {
            let args = &parsed[f].1;
            outer
                .iter()
                .map(|&a| args[a].as_str())
                .chain((0..arity).filter(|&a| Some(a) != outer).map(|a| args[a].as_str()))
                .collect()
        };
        let mut facts = facts;
        facts.sort_by(|&a, &b| compare_keys(&key(a), &key(b)));
        // Colour-major only when every value of the leading argument has the same facts of the
        // others (a whole board per colour), so that a rule moved from one colour to another is
        // the same shift everywhere; otherwise the relation stays in byte order, as one block.
        // A relation of one argument is one block in the order of its values, numbers by value,
        // so that a counter's `(step 10)` follows `(step 9)` and its next value is a shift.
        let Some(outer) = outer.filter(|&o| arity > 1 && uniform(&facts, &parsed, o)) else {
            if arity != 1 {
                facts.sort_unstable();
            }
            blocks.push(facts);
            continue;
        };
        blocks.extend(facts.chunk_by(|&a, &b| parsed[a].1[outer] == parsed[b].1[outer]).map(<[usize]>::to_vec));
    }
    (blocks, shared)
}

/// The argument of a relation's facts with the fewest values; of equal counts, the last one.
fn fewest_values(facts: &[usize], parsed: &[(String, Vec<String>)]) -> Option<usize> {
    let arity = facts.first().map_or(0, |&f| parsed[f].1.len());
    (0..arity).min_by_key(|&a| {
        let values: BTreeSet<&str> = facts.iter().map(|&f| parsed[f].1[a].as_str()).collect();
        (values.len(), std::cmp::Reverse(a))
    })
}

/// The board of a relation's facts led by argument `outer`: the other arguments of the facts of
/// one value, in order, when every value has the same (see [`uniform`]) and there are two
/// values or more.
fn board_of<'a>(facts: &[usize], parsed: &'a [(String, Vec<String>)], outer: usize) -> Option<Vec<Vec<&'a str>>> {
    let arity = facts.first().map_or(0, |&f| parsed[f].1.len());
    if arity < 2 {
        return None;
    }
    let mut sorted = facts.to_vec();
    sorted.sort_by(|&a, &b| {
        let key = |f: usize| -> Vec<&str> {
            let args = &parsed[f].1;
            std::iter::once(outer).chain((0..arity).filter(|&a| a != outer)).map(|a| args[a].as_str()).collect()
        };
        compare_keys(&key(a), &key(b))
    });
    if !uniform(&sorted, parsed, outer) {
        return None;
    }
    let first = &parsed[sorted[0]].1[outer];
    let board: Vec<Vec<&str>> = (sorted.iter().take_while(|&&f| &parsed[f].1[outer] == first))
        .map(|&f| (0..arity).filter(|&a| a != outer).map(|a| parsed[f].1[a].as_str()).collect())
        .collect();
    (board.len() < sorted.len()).then_some(board)
}

/// When `fewest`, the argument with the fewest values, leaves blocks wider than a word (`boards`
/// holds every relation's board so led; this is relation `relation`), the argument that instead leaves the board of
/// another relation, itself wider than a word (hex's `(connected ?group ?row ?column)` led by
/// the group, so that each group is a board of cells like `(cell ?row ?column ?colour)`'s).
/// Each such block then starts at a word, and rules that read the two relations at one cell
/// shift one board onto the other.
fn shared_board(
    facts: &[usize],
    parsed: &[(String, Vec<String>)],
    fewest: Option<usize>,
    relation: usize,
    boards: &[Option<Vec<Vec<&str>>>],
) -> Option<usize> {
    if boards[relation].as_ref().is_none_or(|own| own.len() <= WORD) {
        return None;
    }
    let arity = facts.first().map_or(0, |&f| parsed[f].1.len());
    (0..arity).filter(|&a| Some(a) != fewest).find_map(|a| {
        let board = board_of(facts, parsed, a).filter(|board| board.len() > WORD)?;
        let another = boards.iter().enumerate().any(|(r, b)| r != relation && b.as_ref() == Some(&board));
        another.then_some(a)
    })
}

/// Whether `facts` (one relation's, sorted by the leading argument `outer` first) have, for every
/// value of `outer`, the same values of the other arguments.
fn uniform(facts: &[usize], parsed: &[(String, Vec<String>)], outer: usize) -> bool {
    let others = |f: usize| -> Vec<&str> {
        let args = &parsed[f].1;
        (0..args.len()).filter(|&a| a != outer).map(|a| args[a].as_str()).collect()
    };
    let first = &parsed[facts[0]].1[outer];
    let board: Vec<Vec<&str>> =
        facts.iter().take_while(|&&f| &parsed[f].1[outer] == first).map(|&f| others(f)).collect();
    facts.chunks(board.len()).all(|chunk| {
        chunk.len() == board.len()
            && chunk.iter().all(|&f| parsed[f].1[outer] == parsed[chunk[0]].1[outer])
            && chunk.iter().map(|&f| others(f)).eq(board.iter().cloned())
    })
}

/// A fact's relation name and its arguments' KIF.
pub(crate) fn split(fact: &str) -> (String, Vec<String>) {
    match kif::parse_one(fact) {
        Ok(Sx::List(items)) if !items.is_empty() => {
            (items[0].to_string(), items[1..].iter().map(ToString::to_string).collect())
        }
        _ => (fact.to_string(), Vec::new()),
    }
}

/// Argument lists compared value by value: numbers by value, before other symbols in byte order.
fn compare_keys(a: &[&str], b: &[&str]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let order = match (x.parse::<u64>(), y.parse::<u64>()) {
            (Ok(x), Ok(y)) => x.cmp(&y),
            (Ok(_), Err(_)) => Ordering::Less,
            (Err(_), Ok(_)) => Ordering::Greater,
            (Err(_), Err(_)) => x.cmp(y),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

/// Moves base fact `i` to bit `bit_of[i]` everywhere the program names it.
fn renumber(ground: &mut Ground, bit_of: &[u32]) {
    let bits = bit_of.iter().map(|&b| b as usize + 1).max().unwrap_or(0);
    let map_lit = |lit: &mut Lit| {
        if let Prop::Base(i) = &mut lit.prop {
            *i = bit_of[*i as usize];
        }
    };
    for node in &mut ground.nodes {
        node.rules.iter_mut().flatten().for_each(map_lit);
    }
    for value in ground.outputs_mut() {
        if let Value::Lit(lit) = value {
            map_lit(lit);
        }
    }
    let mut base = vec![String::new(); bits];
    let mut next = vec![Value::Const(false); bits];
    for (i, (fact, value)) in
        std::mem::take(&mut ground.base).into_iter().zip(std::mem::take(&mut ground.next)).enumerate()
    {
        base[bit_of[i] as usize] = fact;
        next[bit_of[i] as usize] = value;
    }
    ground.base = base;
    ground.next = next;
    for fact in &mut ground.initial {
        *fact = bit_of[*fact as usize];
    }
    ground.initial.sort_unstable();
    for table in ground.deferred.tables.iter_mut().filter(|t| t.state) {
        let width = table.arity as usize + 1;
        for row in table.rows.chunks_exact_mut(width) {
            row[width - 1] = bit_of[row[width - 1] as usize];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let bit = |f: &str| bit_of[base.iter().position(|b| b == f).unwrap()];
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
        let bit = |f: &str| bit_of[base.iter().position(|b| b == f).unwrap()];
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
        let bit = |f: &str| bit_of[base.iter().position(|b| b == f).unwrap()];
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
    fn a_relation_is_not_led_by_its_own_board() {
        // Pieces on an 8x8 board, (location x y piece): led by a row, each block is 96 facts of
        // (column, piece); led by a column, the same 96 names of (row, piece). That is the
        // relation's own board, not another's: no new layout, as for any relation whose blocks
        // need more words than its facts.
        let mut base = Vec::new();
        for x in 1..=8 {
            for y in 1..=8 {
                for piece in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"] {
                    base.push(format!("(location {x} {y} {piece})"));
                }
            }
        }
        base.sort();
        assert_eq!(layout(&base, &[]), None);
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
        let bit = |f: &str| bit_of[base.iter().position(|b| b == f).unwrap()];
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
}
