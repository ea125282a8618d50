//! The state layout: which bit of the state words each base fact gets.
//!
//! Grounding numbers base facts in byte order of their KIF, which interleaves the pieces of a
//! board: `(cell 1 1 black)` sits next to `(cell 1 1 white)`, so one colour's board spans every
//! word of the state and a line test over it costs a shift and an or per word. This pass lays
//! out each relation by the argument with the fewest values (the colour, the mark): the facts
//! with the same value of it form a block, ordered by their other arguments (numbers by value),
//! a block that fits in a word is kept within one word, and a wider one starts at a word, even
//! where that takes a word more than the facts need (blokus's two boards of 196 cells: eight
//! words, not seven). One colour's board is then one word (or a contiguous run of words from a
//! word's start), and a rule family over it shifts one word.
//!
//! Keeping blocks within words may leave bits no fact uses: [`Ground::base`] names them with
//! an empty string, and nothing ever sets them.

use super::coordinates::Coordinates;
use super::{Ground, Lit, Prop, Value};
use gdl_runtime::kif::{self, Sx};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

const WORD: usize = 64;

/// Renumbers the base facts of `ground` by [`layout`], unless it would need more words than
/// it allows.
/// The facts of a relation that the rules of `description` read through a one-to-one static
/// map onto numbers are ordered by those numbers (see [`super::coordinates`]).
pub fn lay_out(ground: &mut Ground, description: &crate::ast::Description) {
    let coordinates = super::coordinates::find(description, &ground.base);
    let Some(bit_of) = layout(&ground.base, &coordinates) else { return };
    renumber(ground, &bit_of);
}

/// The bit of every base fact under the block layout, or `None` when it changes nothing or needs
/// more words than the facts in byte order and than its blocks wider than a word from a word
/// each, beside the other facts packed densely.
pub fn layout(base: &[String], coordinates: &[Coordinates]) -> Option<Vec<u32>> {
    let (blocks, holes) = blocks(base, coordinates);
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
            if let Some(fact) = fact {
                bit_of[fact] = (start + k) as u32;
            }
        }
    }
    let dense_words = base.len().div_ceil(WORD).max(1);
    let identity = bit_of.iter().enumerate().all(|(i, &b)| b as usize == i);
    // A board wider than a word (a colour's, or one led by another relation's board) starts
    // at a word, so that rules reading two boards at one cell shift a word onto a word:
    // allowed the words that blocks wider than a word take whole, beside the others' facts
    // packed densely. Only facts count: a board with holes is allowed no more than its facts
    // need, unless it is one of the boards led by a single argument, which share words and are
    // allowed their holes.
    let narrow: usize =
        blocks.iter().filter(|b| b.len() <= WORD).map(|b| b.iter().flatten().count()).sum::<usize>() + holes;
    let padded: usize =
        blocks.iter().filter(|b| b.len() > WORD).map(|b| b.len().div_ceil(WORD)).sum::<usize>() + narrow.div_ceil(WORD);
    let allowed = dense_words.max(padded);
    (fill.len() <= allowed && !identity).then_some(bit_of)
}

/// The base facts grouped into blocks: the facts of one relation (by name and arity) with the
/// same value of its leading argument, each block in the order of the other arguments, when
/// every value has the same board (see [`uniform`]); else the relation's facts in byte order,
/// as one block. Blocks are in the order of their relation and that value. The leading argument
/// is the one with the fewest values, unless that leaves blocks wider than a word and another
/// argument leaves the board of another relation ([`shared_board`]). With the bits of the holes
/// in the boards led by a single argument (see [`lead_boards`]).
fn blocks(base: &[String], coordinates: &[Coordinates]) -> (Vec<Block>, usize) {
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
    let other_boards: Vec<Option<usize>> = (relations.values().zip(&fewest).enumerate())
        .map(|(r, (facts, &fewest))| shared_board(facts, &parsed, fewest, r, &boards))
        .collect();
    let mut blocks: Vec<Block> = Vec::new();
    let mut holes = 0;
    for ((facts, other_board), fewest) in relations.into_values().zip(other_boards).zip(fewest) {
        if let Some(led) = other_board.is_none().then(|| lead_boards(&facts, &parsed, fewest)).flatten() {
            if parsed[facts[0]].1.len() == 3 {
                holes += led.iter().flatten().filter(|fact| fact.is_none()).count();
            }
            blocks.extend(led);
            continue;
        }
        let by_word_board = other_board.is_none().then(|| word_board(&facts, &parsed, fewest)).flatten();
        let outer = other_board.or(by_word_board).or(fewest);
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
            blocks.push(facts.into_iter().map(Some).collect());
            continue;
        };
        let chunks = facts.chunk_by(|&a, &b| parsed[a].1[outer] == parsed[b].1[outer]);
        let cell_of =
            |f: usize| -> Vec<&str> { (0..arity).filter(|&a| a != outer).map(|a| parsed[f].1[a].as_str()).collect() };
        let board: Vec<Vec<&str>> = chunks.clone().next().unwrap_or_default().iter().map(|&f| cell_of(f)).collect();
        let completed_blocks = completed(&board).and_then(|cells| {
            chunks.clone().map(|chunk| block_of(&cells, chunk, &cell_of)).collect::<Option<Vec<Block>>>()
        });
        if let Some(completed_blocks) = completed_blocks {
            holes += completed_blocks.iter().flatten().filter(|fact| fact.is_none()).count();
            blocks.extend(completed_blocks);
            continue;
        }
        blocks.extend(chunks.map(|c| c.iter().copied().map(Some).collect()));
    }
    (blocks, holes)
}

/// The cells of a board with holes, completed: when `cells` (sorted, of two coordinates or more)
/// miss a few of those their coordinates' values make (skirmishFinal's 60 squares, four of the
/// 64 punched out), every cell those values make, in order, so that a board's block keeps the
/// holes' bits empty and every cell is at the bit it has on the full board: a rule that moves a
/// piece one row down is then one shift of the word. `None` when the board is whole, or too
/// sparse (more than a quarter holes), or wider than a word when full, or when it fills no
/// more than half a word: such boards share words, and holes would take room that other
/// boards need (ttcc4's eight boards of 31 cells, two to a word, would take a word each).
fn completed<'a>(cells: &[Vec<&'a str>]) -> Option<Vec<Vec<&'a str>>> {
    let axes = cells.first().map_or(0, Vec::len);
    if axes < 2 {
        return None;
    }
    let values: Vec<Vec<&str>> = (0..axes)
        .map(|a| {
            let mut values: Vec<&str> = cells.iter().map(|cell| cell[a]).collect();
            values.sort_by(|x, y| compare_keys(&[x], &[y]));
            values.dedup();
            values
        })
        .collect();
    let full = values.iter().try_fold(1usize, |product, v| product.checked_mul(v.len()))?;
    if full > WORD || 2 * cells.len() <= WORD || cells.len() >= full || 4 * cells.len() < 3 * full {
        return None;
    }
    let mut all: Vec<Vec<&str>> = vec![Vec::new()];
    for axis in &values {
        all = all.iter().flat_map(|cell| axis.iter().map(move |v| [cell.as_slice(), &[*v]].concat())).collect();
    }
    Some(all)
}

/// A block of facts laid out at consecutive bits, `None` for a bit no fact takes.
type Block = Vec<Option<usize>>;

/// When a relation of four arguments or more is not led by another relation's board, and its
/// fewest values leave blocks wider than a word or unlike each other, the blocks led by two or
/// three arguments whose other arguments' values, over all the facts, are a board that fills
/// more than half a word: chess's `(cell ?x ?y ?player ?piece)`, each
/// player's piece a board of the 64 cells. A board that fits no word may take two, more than
/// half filled: shogi's `(cell ?x ?y ?player ?piece ?promotion)`, each player's piece in each
/// state of promotion a board of the 81 cells. A lead whose facts miss some cells (pawns never
/// on the first and last rows) keeps those cells' bits empty, so that every board has each
/// cell at the same bit.
///
/// A relation of three arguments whose fewest values leave boards unlike each other (it
/// would stay in byte order) is led by one argument the same way, and its boards may be as
/// small as a quarter of a word, sharing words: ttcc4's `(cell ?x ?y ?piece)`, each of its
/// eight pieces a board of the 31 cells it may stand on, discs on the middle columns only.
fn lead_boards(facts: &[usize], parsed: &[(String, Vec<String>)], fewest: Option<usize>) -> Option<Vec<Block>> {
    let arity = facts.first().map_or(0, |&f| parsed[f].1.len());
    let sizes = match arity {
        3 if fewest.is_none_or(|o| board_of(facts, parsed, o).is_none()) => 1..=1,
        4.. if fewest.is_none_or(|o| board_of(facts, parsed, o).is_none_or(|board| board.len() > WORD)) => {
            2..=3.min(arity - 2)
        }
        _ => return None,
    };
    let rest = |f: usize, lead: &[usize]| -> Vec<&str> {
        (0..arity).filter(|a| !lead.contains(a)).map(|a| parsed[f].1[a].as_str()).collect()
    };
    let lead_of = |f: usize, lead: &[usize]| -> Vec<&str> { lead.iter().map(|&a| parsed[f].1[a].as_str()).collect() };
    let values = |a: usize| facts.iter().map(|&f| parsed[f].1[a].as_str()).collect::<BTreeSet<_>>().len();
    let counts: Vec<usize> = (0..arity).map(values).collect();
    // The best lead: one whose leading arguments all have fewer values than the cells' (a
    // player, a piece and its promotion lead shogi's board, not a file and a piece); then a
    // board within one word before one over two; then the more cells the better.
    let mut best: Option<((bool, bool, usize), Vec<usize>)> = None;
    for size in sizes {
        for lead in combinations(arity, size) {
            let cells: BTreeSet<Vec<&str>> = facts.iter().map(|&f| rest(f, &lead)).collect();
            let leads: BTreeSet<Vec<&str>> = facts.iter().map(|&f| lead_of(f, &lead)).collect();
            let most_led = lead.iter().map(|&a| counts[a]).max().unwrap_or(0);
            let fewest_cell = (0..arity).filter(|a| !lead.contains(a)).map(|a| counts[a]).min().unwrap_or(0);
            // The lead names what stands on a cell, not a cell: none of its values is a
            // coordinate (dotsAndBoxes' `(line ?x1 ?y1 ?x2 ?y2)` joins two points), unless it
            // has fewer values than any coordinate and only a few of them share a coordinate's
            // name (checkers' blank `b` and its column `b`). A single argument is no row of
            // numbers either (pawnToQueen's rows would lead boards of columns and pieces).
            let coordinates: BTreeSet<&str> = cells.iter().flatten().copied().collect();
            let lead_values: BTreeSet<&str> = leads.iter().flatten().copied().collect();
            let numbers = size == 1 && lead_values.iter().all(|value| value.parse::<u64>().is_ok());
            let named_as_coordinates = lead_values.iter().filter(|value| coordinates.contains(*value)).count();
            let few_named = 2 * named_as_coordinates < lead_values.len() && most_led < fewest_cell;
            let apart = !numbers && (named_as_coordinates == 0 || few_named);
            // Each board fills more than half its words, and the boards more than half their
            // bits.
            let words = cells.len().div_ceil(WORD);
            let dense = 2 * facts.len() > leads.len() * cells.len();
            let filled = match size {
                1 => words == 1 && 4 * cells.len() > WORD,
                _ => words <= 2 && 2 * cells.len() > words * WORD,
            };
            let fits = filled && leads.len() >= 2 && apart && dense;
            let score = (most_led < fewest_cell, words == 1, cells.len());
            if fits && best.as_ref().is_none_or(|(best, _)| score > *best) {
                best = Some((score, lead));
            }
        }
    }
    let (_, lead) = best?;
    let mut cells: Vec<Vec<&str>> = facts.iter().map(|&f| rest(f, &lead)).collect();
    cells.sort_by(|x, y| compare_keys(x, y));
    cells.dedup();
    let cells = completed(&cells).unwrap_or(cells);
    let mut by_lead: BTreeMap<Vec<&str>, Vec<usize>> = BTreeMap::new();
    for &f in facts {
        by_lead.entry(lead_of(f, &lead)).or_default().push(f);
    }
    let mut leads: Vec<Vec<&str>> = by_lead.keys().cloned().collect();
    leads.sort_by(|x, y| compare_keys(x, y));
    leads.iter().map(|value| block_of(&cells, &by_lead[value], &|f| rest(f, &lead))).collect()
}

/// The block of `facts` on a board of `cells` (sorted): each fact at the place of its cell
/// (`cell_of`), the cells no fact takes empty. `None` if a fact's cell is not on the board.
fn block_of<'a>(cells: &[Vec<&'a str>], facts: &[usize], cell_of: &dyn Fn(usize) -> Vec<&'a str>) -> Option<Block> {
    let mut block: Block = vec![None; cells.len()];
    for &f in facts {
        // Exact: `compare_keys` equates only equal symbols.
        let k = cells.binary_search_by(|cell| compare_keys(cell, &cell_of(f))).ok()?;
        block[k] = Some(f);
    }
    Some(block)
}

/// Every increasing sequence of `size` positions below `count`, in lexicographic order.
fn combinations(count: usize, size: usize) -> Vec<Vec<usize>> {
    fn extend(count: usize, size: usize, at: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if at.len() == size {
            out.push(at.clone());
            return;
        }
        for next in at.last().map_or(0, |&last| last + 1)..count {
            at.push(next);
            extend(count, size, at, out);
            at.pop();
        }
    }
    let mut out = Vec::new();
    extend(count, size, &mut Vec::new(), &mut out);
    out
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

/// When `fewest`, the argument with the fewest values, leaves blocks wider than a word, the
/// argument whose blocks are the widest boards that fit in a word and fill more than half of
/// it: skirmish's `(location ?x ?y ?piece)` led by the piece, each piece's 64 cells one word,
/// rather than by a row of 96 facts. (hex's `(cell ?row ?column ?colour)` stays led by the
/// colour: its rows' blocks of 18 facts are no board.)
fn word_board(facts: &[usize], parsed: &[(String, Vec<String>)], fewest: Option<usize>) -> Option<usize> {
    if board_of(facts, parsed, fewest?).is_none_or(|own| own.len() <= WORD) {
        return None;
    }
    let arity = facts.first().map_or(0, |&f| parsed[f].1.len());
    (0..arity)
        .filter(|&a| Some(a) != fewest)
        .filter_map(|a| Some((board_of(facts, parsed, a)?.len(), a)))
        .filter(|&(len, _)| len <= WORD && 2 * len > WORD)
        .max_by_key(|&(len, a)| (len, std::cmp::Reverse(a)))
        .map(|(_, a)| a)
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

/// Argument lists compared value by value: numbers by value, before other symbols in byte order;
/// a total order that equates only equal symbols.
fn compare_keys(a: &[&str], b: &[&str]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let order = match (x.parse::<u64>(), y.parse::<u64>()) {
            // `1`, `01` and `+1` are one number but three symbols: byte order parts them.
            (Ok(n), Ok(m)) => n.cmp(&m).then_with(|| x.cmp(y)),
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
pub(super) fn renumber(ground: &mut Ground, bit_of: &[u32]) {
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
mod tests;
