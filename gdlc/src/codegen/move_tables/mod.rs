//! Functions of the joint move computed at compile time. A derived proposition that reads
//! only the moves, and is a disjunction of parts that each read one role's move, becomes a
//! bit of a constant table indexed by each role's move; a next-state bit whose rules are
//! `(true p) ∧ A` or `B` for such functions becomes `(s & keep) | set` on whole words, with
//! `keep` and `set` looked up the same way; one rule `(true p) ∧ P` whose `P` is a conjunction
//! of several roles' moves (every role passing) is tested against the joint move at run time,
//! its bits or-ed into `keep`. `next` and `random_step` then evaluate only what reads the state.
//!
//! The analysis is here: [`MoveTables::new`] tabulates what it can; `emit.rs` writes the
//! tables and the code that reads them.

mod emit;

use crate::ground::cone::ConeWalk;
use crate::ground::{Ground, Lit, Prop, Value};
use std::collections::BTreeMap;

/// The most words (`u64`s) the tables of a game may take, over all roles and moves (1 MB of
/// data, and at most about as many literals in the generated source). Past it the tables keep
/// only the next-state words, and past it again there are none. checkers' tables of its 1,066
/// functions of the move take 634 KB: looked up rather than evaluated, they made its playouts
/// 1.25x faster and its build twice as quick.
const MAX_TABLE_WORDS: usize = 1 << 17;

/// What a node, literal or conjunction is as a function of the state and the joint move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// It reads the state, or is in a recursive group: evaluated at run time.
    State,
    /// A function of one role's move. A constant counts as role 0's.
    Role(u32),
    /// A disjunction of functions of one role's move each.
    Split,
}

/// A base fact that a move sets when the literals (of the state) hold.
pub(super) type ConditionalSet = (u32, Vec<Lit>);

/// Moves of several roles played together, as sorted pairs (role, move).
type Product = Vec<(u32, u32)>;

/// A conjunction of literals that reads only the moves, with its kind (never `State`).
type Conjunction = (Vec<Lit>, Kind);

/// The compile-time tables of a game's move functions.
pub(super) struct MoveTables {
    /// For every node, its bit in the node table, when it is looked up rather than evaluated.
    pub node_bit: Vec<Option<u32>>,
    /// The words of one row of the node table.
    pub node_words: usize,
    /// For every role, `moves × node_words` words: the tabulated nodes' parts for that role's
    /// move.
    pub node_table: Vec<Vec<u64>>,
    /// For every base fact, whether its next value is computed from the `keep` and `set`
    /// tables.
    pub framed: Vec<bool>,
    /// The state words that hold framed bits, in order: a row of the `keep` and `set` tables
    /// has one word for each (4 of hex's 174 state words, its groups' boards being
    /// computed as node words).
    pub frame_words: Vec<usize>,
    /// For every role, `moves × frame_words.len()` words: the bits of `A` for that role's move.
    pub keep_table: Vec<Vec<u64>>,
    /// For every role, `moves × frame_words.len()` words: the bits of `B` for that role's move.
    pub set_table: Vec<Vec<u64>>,
    /// For every role and move, the framed bits that the move sets when a condition on the
    /// state holds (rules `(does r m) ∧ C` with `C` reading only the state): pairs of the base
    /// fact and the literals of `C`.
    pub arms: Vec<Vec<Vec<ConditionalSet>>>,
    /// The conjunctions of several roles' moves that keep framed bits (`(true p) ∧ (does r1
    /// m1) ∧ (does r2 m2) ...`), as sorted pairs (role, move), each with the bits it keeps
    /// (one word for each of `frame_words`), in the order of the conjunctions: the joint move is tested
    /// against them at run time.
    pub products: Vec<(Product, Vec<u64>)>,
    /// The conditions evaluated at run time that keep framed bits (`(true p) ∧ G`, where `G`
    /// reads the state and the moves: ttcc4's "the role in control passes"), each with the
    /// bits it keeps (one word for each of `frame_words`), in the order of the conditions.
    pub guards: Vec<(Vec<Lit>, Vec<u64>)>,
}

/// A framed next-state bit: its rules as `(true p) ∧ A`, `B`, and `M ∧ C`, where `A`, `B`
/// and `M` read only the moves (and `M` names one move), and `C` only the state; and `(true
/// p) ∧ P`, where `P` is a conjunction of moves of several roles (every role passing); and
/// `(true p) ∧ G`, where `G` reads the state and the moves and is evaluated at run time.
#[derive(Default)]
struct Frame {
    keep: Vec<Conjunction>,
    set: Vec<Conjunction>,
    conditional: Vec<(Conjunction, Vec<Lit>)>,
    /// The conjunctions `P`.
    products: Vec<Product>,
    /// The conditions `G`, their literals sorted.
    guards: Vec<Vec<Lit>>,
}

impl MoveTables {
    /// The tables of `ground`'s `next`, or `None` when nothing in it can be tabulated. The nodes
    /// `read_as_moves` (sorted) are left to be evaluated at run time: node words read them as
    /// the move played (see `Emitter::read_moves_played_in_words`).
    pub(super) fn new(ground: &Ground, read_as_moves: &[u32]) -> Option<MoveTables> {
        let kinds = kinds(ground);
        let reads_moves = super::cones::reads_moves(ground);
        let state_words = super::words(ground.base.len());
        let mut frames: Vec<Option<Frame>> =
            ground.next.iter().enumerate().map(|(i, &v)| frame(ground, &kinds, &reads_moves, i as u32, v)).collect();
        drop_crowded_arms(ground, &kinds, &mut frames);
        drop_many(&mut frames, |f| &f.products, MAX_PRODUCTS);
        drop_many(&mut frames, |f| &f.guards, MAX_GUARDS);
        let framed: Vec<bool> = frames.iter().map(Option::is_some).collect();
        // The nodes that the state-reading part of next reads and that can be looked up.
        let values: Vec<Value> =
            ground.next.iter().zip(&framed).map(|(&v, &f)| if f { Value::Const(false) } else { v }).collect();
        let (_, looked_up) = split_cone(ground, &kinds, &values);
        let looked_up: Vec<u32> = looked_up.into_iter().filter(|n| read_as_moves.binary_search(n).is_err()).collect();
        let moves = ground.moves.len();
        let roles = ground.roles.len();
        let any_framed = framed.iter().any(|&f| f);
        // Past the tables' room, the looked-up nodes that save the most evaluation fill it, and
        // the others are evaluated from the moves at run time. The room is what a row of every
        // state word's keep and set words leaves, framed or not: a row of only the framed words
        // leaves more, and the nodes it takes sent skirmish to the table form (a corpus scan).
        let room = (MAX_TABLE_WORDS / (roles * moves).max(1)).saturating_sub(2 * state_words);
        // So too when every node fits only laid out one after another, its places lost: node words
        // would no longer read the nodes at their places (skirmishFinal2's 1,344 "some role makes
        // this move", two literals each, fill a row of 22 words exactly).
        let placed = placed_layout(ground, &looked_up);
        let fits = looked_up.len().div_ceil(64) <= room && placed.as_ref().is_none_or(|(_, words)| *words <= room);
        let (looked_up, placed) = if fits {
            (looked_up, placed)
        } else if room == 0 {
            (Vec::new(), None)
        } else {
            let looked_up = worth_most(ground, &kinds, looked_up, room * 64);
            let placed = placed_layout(ground, &looked_up);
            (looked_up, placed)
        };
        let (node_bit, node_words) = node_layout(ground, &looked_up, placed, room);
        let frame_row_words = if any_framed { 2 * state_words } else { 0 };
        if roles * moves * (node_words + frame_row_words) > MAX_TABLE_WORDS || (node_words == 0 && !any_framed) {
            return None;
        }
        let frame_words: Vec<usize> =
            (0..state_words).filter(|&w| framed[64 * w..framed.len().min(64 * w + 64)].contains(&true)).collect();
        let width = frame_words.len();
        // The row word of every state word that holds framed bits.
        let mut column = vec![0; state_words];
        frame_words.iter().enumerate().for_each(|(j, &w)| column[w] = j);
        // Every node whose part some table bit needs, in evaluation order.
        let mut roots = looked_up.clone();
        for frame in frames.iter().flatten() {
            let conjunctions = frame.keep.iter().chain(&frame.set).chain(frame.conditional.iter().map(|(c, _)| c));
            for (lits, _) in conjunctions {
                roots.extend(lits.iter().filter_map(|l| match l.prop {
                    Prop::Node(n) => Some(n),
                    _ => None,
                }));
            }
        }
        let parts_needed = super::cones::Cones::new(ground)
            .cone(&roots.iter().map(|&n| Value::Lit(Lit { prop: Prop::Node(n), positive: true })).collect::<Vec<_>>());
        let mut tables = MoveTables {
            node_bit,
            node_words,
            node_table: vec![vec![0; moves * node_words]; roles],
            framed: if any_framed { framed } else { vec![false; ground.base.len()] },
            keep_table: vec![vec![0; moves * width]; roles],
            set_table: vec![vec![0; moves * width]; roles],
            arms: vec![vec![Vec::new(); if any_framed { moves } else { 0 }]; roles],
            products: kept_masks(&frames, &column, width, |f| &f.products),
            guards: kept_masks(&frames, &column, width, |f| &f.guards),
            frame_words,
        };
        let mut parts = vec![false; ground.nodes.len()];
        for role in 0..roles as u32 {
            for mv in 0..moves as u32 {
                for &n in &parts_needed {
                    parts[n as usize] = node_part(ground, &kinds, n, role, mv, &parts);
                }
                let row = mv as usize * node_words;
                for &n in &looked_up {
                    let bit = tables.node_bit[n as usize].unwrap_or_default() as usize;
                    if parts[n as usize] {
                        tables.node_table[role as usize][row + bit / 64] |= 1 << (bit % 64);
                    }
                }
                if !any_framed {
                    continue;
                }
                let row = mv as usize * width;
                for (i, frame) in frames.iter().enumerate() {
                    let Some(frame) = frame else { continue };
                    let (word, bit) = (row + column[i / 64], 1u64 << (i % 64));
                    if frame.keep.iter().any(|c| conjunction_part(c, role, mv, &parts)) {
                        tables.keep_table[role as usize][word] |= bit;
                    }
                    if frame.set.iter().any(|c| conjunction_part(c, role, mv, &parts)) {
                        tables.set_table[role as usize][word] |= bit;
                    }
                    for (moves, condition) in &frame.conditional {
                        if conjunction_part(moves, role, mv, &parts) {
                            tables.arms[role as usize][mv as usize].push((i as u32, condition.clone()));
                        }
                    }
                }
            }
        }
        Some(tables)
    }

    /// The nodes that the conditions of `arms` read, as values, for the cones of the
    /// functions that evaluate them.
    pub(super) fn arm_values(&self) -> Vec<Value> {
        let mut nodes: Vec<u32> = self
            .arms
            .iter()
            .flatten()
            .flatten()
            .flat_map(|(_, lits)| lits.iter().filter_map(|l| if let Prop::Node(n) = l.prop { Some(n) } else { None }))
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes.into_iter().map(|n| Value::Lit(Lit { prop: Prop::Node(n), positive: true })).collect()
    }

    /// The literals of nodes that the conditions of `guards` read, as values: evaluated before
    /// the frames, outside the arms.
    pub(super) fn guard_values(&self) -> Vec<Value> {
        let mut lits: Vec<Lit> = self.guards.iter().flat_map(|(lits, _)| lits.iter().copied()).collect();
        lits.retain(|l| matches!(l.prop, Prop::Node(_)));
        lits.sort_unstable();
        lits.dedup();
        lits.into_iter().map(Value::Lit).collect()
    }

    /// Whether next-state bits come from the `keep` and `set` tables.
    pub(super) fn has_frames(&self) -> bool {
        self.framed.iter().any(|&f| f)
    }

    /// The nodes that `values` need evaluated at run time, sorted: their cone, stopping at
    /// the nodes the table gives.
    pub(super) fn runtime_cone(&self, ground: &Ground, values: &[Value]) -> Vec<u32> {
        let given = |n: u32| self.node_bit[n as usize].is_some();
        let cone = super::cones::Cones::new(ground).cone_through(values, |n| !given(n));
        cone.into_iter().filter(|&n| !given(n)).collect()
    }
}

/// The kind of every node. Nodes come in evaluation order, so one pass settles them.
fn kinds(ground: &Ground) -> Vec<Kind> {
    let mut kinds = vec![Kind::State; ground.nodes.len()];
    let in_cycle = ground.in_cycle();
    for (n, node) in ground.nodes.iter().enumerate() {
        if in_cycle[n] {
            continue;
        }
        kinds[n] = disjunction_kind(node.rules.iter().map(|rule| conjunction_kind(&kinds, rule)));
    }
    kinds
}

fn literal_kind(kinds: &[Kind], lit: Lit) -> Kind {
    match lit.prop {
        Prop::Base(_) | Prop::Deferred(_) => Kind::State,
        Prop::Does(role, _) => Kind::Role(role),
        // The negation of a disjunction over roles is a conjunction over them.
        Prop::Node(n) => match kinds[n as usize] {
            Kind::Split if !lit.positive => Kind::State,
            kind => kind,
        },
    }
}

fn conjunction_kind(kinds: &[Kind], lits: &[Lit]) -> Kind {
    match lits {
        [] => Kind::Role(0),
        [one] => literal_kind(kinds, *one),
        many => {
            let mut owner = None;
            for &lit in many {
                match literal_kind(kinds, lit) {
                    Kind::Role(r) if owner.unwrap_or(r) == r => owner = Some(r),
                    _ => return Kind::State,
                }
            }
            Kind::Role(owner.unwrap_or(0))
        }
    }
}

/// The kind of a disjunction of conjunctions of the given kinds (none: false, role 0's).
fn disjunction_kind(kinds: impl Iterator<Item = Kind>) -> Kind {
    let mut out: Option<Kind> = None;
    for kind in kinds {
        out = Some(match (out, kind) {
            (_, Kind::State) => return Kind::State,
            (None, kind) => kind,
            (Some(Kind::Role(a)), Kind::Role(b)) if a == b => Kind::Role(a),
            _ => Kind::Split,
        });
    }
    out.unwrap_or(Kind::Role(0))
}

/// For base fact `i` with next value `value`: its rules as a [`Frame`], when they all have
/// one of its forms.
fn frame(ground: &Ground, kinds: &[Kind], reads_moves: &[bool], i: u32, value: Value) -> Option<Frame> {
    let Value::Lit(lit) = value else { return None };
    let own = Lit { prop: Prop::Base(i), positive: true };
    if lit == own {
        // Copying the bit is already one word operation.
        return None;
    }
    let rules: Vec<Vec<Lit>> = match lit.prop {
        Prop::Node(n) if lit.positive && kinds[n as usize] == Kind::State => ground.nodes[n as usize].rules.clone(),
        Prop::Base(_) | Prop::Deferred(_) => return None,
        _ => vec![vec![lit]],
    };
    let mut frame = Frame::default();
    for rule in rules {
        let (moves, state): (Vec<Lit>, Vec<Lit>) = rule.into_iter().partition(|l| match l.prop {
            Prop::Does(..) => true,
            Prop::Node(n) => reads_moves[n as usize],
            Prop::Base(_) | Prop::Deferred(_) => false,
        });
        let kind = conjunction_kind(kinds, &moves);
        if state.iter().any(|l| matches!(l.prop, Prop::Deferred(_))) {
            return None;
        }
        if kind == Kind::State {
            // Moves of several roles that keep the bit, tested at run time: no table by one
            // role's move can hold them.
            let plays = |l: &Lit| match l.prop {
                Prop::Does(role, mv) if l.positive => Some((role, mv)),
                _ => None,
            };
            let product: Option<Product> = moves.iter().map(plays).collect();
            match product {
                Some(mut product) if state.as_slice() == [own] && !product.is_empty() => {
                    product.sort_unstable();
                    frame.products.push(product);
                    continue;
                }
                // A condition that reads the state through the nodes that read the moves keeps
                // the bit when it holds: tested once a step for all the bits it keeps.
                None if state.as_slice() == [own] => {
                    let mut guard = moves;
                    guard.sort_unstable();
                    frame.guards.push(guard);
                    continue;
                }
                _ => return None,
            }
        }
        match state.as_slice() {
            [] => frame.set.push((moves, kind)),
            [only] if *only == own => frame.keep.push((moves, kind)),
            // Some moves set the bit when the state allows: tested only when one is played.
            _ => frame.conditional.push(((moves, kind), state)),
        }
    }
    Some(frame)
}

/// The most conjunctions of several roles' moves that a game's frames may test at run time.
/// One pays (chineseCheckers6's six passes: 4x the rollouts); more did not, against the same
/// bits computed rule by rule or in node words: gt_tinfoil's and gt_coordination's two ran at
/// 0.96-0.97x, roshambo2's 16 (one per joint move) at 0.62x.
const MAX_PRODUCTS: usize = 1;

/// The most conditions read at run time that a game's frames may test (see [`Frame::guards`]).
const MAX_GUARDS: usize = 2;

/// Leaves unframed every bit kept by one of the conditions that `of` gives a frame (its
/// conjunctions of several roles' moves, or its conditions read at run time) when there are
/// more than `most` distinct ones.
fn drop_many<T: Ord>(frames: &mut [Option<Frame>], of: impl Fn(&Frame) -> &Vec<T>, most: usize) {
    let mut distinct: Vec<&T> = frames.iter().flatten().flat_map(&of).collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() > most {
        for frame in frames.iter_mut() {
            if frame.as_ref().is_some_and(|f| !of(f).is_empty()) {
                *frame = None;
            }
        }
    }
}

/// The conditions that `of` gives the frames, each with the bits it keeps (one word for each
/// of the frame words), in the order of the conditions.
fn kept_masks<T: Ord + Clone>(
    frames: &[Option<Frame>],
    column: &[usize],
    width: usize,
    of: impl Fn(&Frame) -> &Vec<T>,
) -> Vec<(T, Vec<u64>)> {
    let mut masks: BTreeMap<T, Vec<u64>> = BTreeMap::new();
    for (i, frame) in frames.iter().enumerate() {
        for condition in frame.iter().flat_map(&of) {
            masks.entry(condition.clone()).or_insert_with(|| vec![0; width])[column[i / 64]] |= 1 << (i % 64);
        }
    }
    masks.into_iter().collect()
}

/// The most moves (of all roles) that may set a bit by one conditional rule: each repeats the
/// rule's condition in its arm of the `match`.
const MAX_ARMS_PER_RULE: usize = 8;

/// Leaves unframed every bit with a conditional rule that more than [`MAX_ARMS_PER_RULE`]
/// moves set.
fn drop_crowded_arms(ground: &Ground, kinds: &[Kind], frames: &mut [Option<Frame>]) {
    let roots: Vec<Value> = frames
        .iter()
        .flatten()
        .flat_map(|f| f.conditional.iter().flat_map(|((lits, _), _)| lits.iter()))
        .filter(|l| matches!(l.prop, Prop::Node(_)))
        .map(|&l| Value::Lit(Lit { prop: l.prop, positive: true }))
        .collect();
    let needed = super::cones::Cones::new(ground).cone(&roots);
    let mut counts: Vec<Vec<usize>> =
        frames.iter().map(|f| f.as_ref().map_or(Vec::new(), |f| vec![0; f.conditional.len()])).collect();
    let mut parts = vec![false; ground.nodes.len()];
    for role in 0..ground.roles.len() as u32 {
        for mv in 0..ground.moves.len() as u32 {
            for &n in &needed {
                parts[n as usize] = node_part(ground, kinds, n, role, mv, &parts);
            }
            for (frame, counts) in frames.iter().zip(&mut counts) {
                let Some(frame) = frame else { continue };
                for ((moves, _), count) in frame.conditional.iter().zip(counts.iter_mut()) {
                    *count += usize::from(conjunction_part(moves, role, mv, &parts));
                }
            }
        }
    }
    for (frame, counts) in frames.iter_mut().zip(&counts) {
        if counts.iter().any(|&c| c > MAX_ARMS_PER_RULE) {
            *frame = None;
        }
    }
}

/// The nodes `values` need split in two, both sorted: those evaluated at run time, and the
/// nodes reading only the moves that the first read (or `values` name), which tables give.
fn split_cone(ground: &Ground, kinds: &[Kind], values: &[Value]) -> (Vec<u32>, Vec<u32>) {
    let cone = super::cones::Cones::new(ground).cone_through(values, |n| kinds[n as usize] == Kind::State);
    cone.into_iter().partition(|&n| kinds[n as usize] == Kind::State)
}

/// The bit of every node of `looked_up` in a row of the node table, and the row's words. The
/// nodes of a relation that sit at the places of a board (battle's "some role moves to this
/// cell", of every cell) keep their places' distances, moved as one to the first word with room
/// for them, so that node words read them as one word of the row; the others take the bits
/// left, in their order (`placed`, from [`placed_layout`]). When that would take more than
/// `room` words, or no nodes are placed, the nodes take consecutive bits in their order.
fn node_layout(
    ground: &Ground,
    looked_up: &[u32],
    placed: Option<(Vec<Option<u32>>, usize)>,
    room: usize,
) -> (Vec<Option<u32>>, usize) {
    match placed {
        Some((node_bit, words)) if words <= room => (node_bit, words),
        _ => {
            let mut node_bit = vec![None; ground.nodes.len()];
            for (bit, &n) in looked_up.iter().enumerate() {
                node_bit[n as usize] = Some(bit as u32);
            }
            (node_bit, looked_up.len().div_ceil(64))
        }
    }
}

/// [`node_layout`] by places, whatever its words: `None` when no nodes are placed.
fn placed_layout(ground: &Ground, looked_up: &[u32]) -> Option<(Vec<Option<u32>>, usize)> {
    let groups = super::node_words::placed_groups(ground, looked_up);
    if groups.is_empty() {
        return None;
    }
    let mut node_bit = vec![None; ground.nodes.len()];
    let mut taken: Vec<u64> = Vec::new();
    for members in &groups {
        let places = members.iter().fold(0u64, |places, &(_, place)| places | 1 << place);
        let (word, offset) = room_for(&mut taken, places);
        taken[word] |= places << offset;
        for &(n, place) in members {
            node_bit[n as usize] = Some(64 * word as u32 + place + offset);
        }
    }
    let rest: Vec<u32> = looked_up.iter().filter(|&&n| node_bit[n as usize].is_none()).copied().collect();
    for n in rest {
        let (word, offset) = room_for(&mut taken, 1);
        taken[word] |= 1 << offset;
        node_bit[n as usize] = Some(64 * word as u32 + offset);
    }
    Some((node_bit, taken.len()))
}

/// The first word of `taken` (a new one when none has room) and the least shift at which the
/// bits `places` are free in it.
fn room_for(taken: &mut Vec<u64>, places: u64) -> (usize, u32) {
    let highest = 63 - places.leading_zeros();
    for (word, &bits) in taken.iter().enumerate() {
        if let Some(offset) = (0..64 - highest).find(|&offset| bits & places << offset == 0) {
            return (word, offset);
        }
    }
    taken.push(0);
    (taken.len() - 1, 0)
}

/// The fewest literals of the moves that a node must save to take a bit of a table that cannot
/// hold every node the state reads: a node of a move or two is as quick to evaluate.
const MIN_SAVED_LITERALS: usize = 16;

/// Of the nodes `looked_up` (sorted), at most `capacity`, sorted: those whose evaluation from
/// the moves reads the most literals, and at least [`MIN_SAVED_LITERALS`]. skirmish's 64 "no
/// move touches this cell" read 1,800 nodes of the moves between them; the 1,792 "some role
/// makes this move" beside them read two literals each.
fn worth_most(ground: &Ground, kinds: &[Kind], looked_up: Vec<u32>, capacity: usize) -> Vec<u32> {
    let mut cones = ConeWalk::new(ground.nodes.len());
    let mut by_saved: Vec<(usize, u32)> = Vec::new();
    for &n in &looked_up {
        let mut literals = 0;
        let descend = |m: u32| kinds[m as usize] != Kind::State;
        cones.walk(ground, [n], descend, |m| {
            literals += ground.nodes[m as usize].rules.iter().map(Vec::len).sum::<usize>();
        });
        if literals >= MIN_SAVED_LITERALS {
            by_saved.push((literals, n));
        }
    }
    by_saved.sort_by_key(|&(literals, n)| (std::cmp::Reverse(literals), n));
    let mut chosen: Vec<u32> = by_saved.into_iter().take(capacity).map(|(_, n)| n).collect();
    chosen.sort_unstable();
    chosen
}

/// Node `n`'s part for `role` playing `mv`: its value when it is a function of that role's
/// move, its disjuncts of that role when it is split, and false for the other roles. `parts`
/// holds the parts of the nodes it reads.
fn node_part(ground: &Ground, kinds: &[Kind], n: u32, role: u32, mv: u32, parts: &[bool]) -> bool {
    match kinds[n as usize] {
        Kind::State => false,
        Kind::Role(owner) if owner != role => false,
        _ => ground.nodes[n as usize]
            .rules
            .iter()
            .any(|rule| conjunction_holds(rule, conjunction_kind(kinds, rule), role, mv, parts)),
    }
}

/// A conjunction's part for `role` playing `mv`, as [`node_part`].
fn conjunction_part((lits, kind): &Conjunction, role: u32, mv: u32, parts: &[bool]) -> bool {
    conjunction_holds(lits, *kind, role, mv, parts)
}

/// The part for `role` playing `mv` of the conjunction of `lits`, of kind `kind`.
fn conjunction_holds(lits: &[Lit], kind: Kind, role: u32, mv: u32, parts: &[bool]) -> bool {
    match kind {
        Kind::Role(owner) => {
            owner == role
                && lits.iter().all(|lit| {
                    let holds = match lit.prop {
                        Prop::Does(_, m) => m == mv,
                        Prop::Node(n) => parts[n as usize],
                        Prop::Base(_) | Prop::Deferred(_) => unreachable!("a move function reads the state"),
                    };
                    holds == lit.positive
                })
        }
        // A split conjunction is one positive literal of a split node.
        Kind::Split => lits.iter().all(|lit| matches!(lit.prop, Prop::Node(n) if parts[n as usize])),
        Kind::State => unreachable!("a move function reads the state"),
    }
}

#[cfg(test)]
mod tests;
