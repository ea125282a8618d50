//! The straight-line form of the game functions, `legal`, `next`, `terminal`, `goals`, the
//! fused `random_step` and GDL-II's `sees`: each evaluates, in order, only the derived
//! propositions its outputs need, as straight-line boolean code over the state's words and the
//! joint move. Recursive groups loop to their least fixpoint.
//!
//! An [`Emitter`] holds what the analyses decided for the whole module (families, move tables,
//! arm families, node words); a [`Body`] writes one function's body with it, knowing the slots
//! of the body's node array and its [`Phase`]. One file per function written: `legal.rs`,
//! `next.rs`, `step.rs` (the fused `random_step`), `goals.rs` (`terminal` and `goals`) and
//! `sees.rs`. `nodes.rs` writes the evaluation of a function's nodes, `expr.rs` their values
//! and literals as expressions. Each optimization's code is beside its analysis, in the
//! modules of `codegen/` named after it.

mod expr;
mod goals;
mod guarded;
mod guards;
mod keyed;
mod legal;
mod next;
mod nodes;
mod sees;
mod step;
#[cfg(test)]
mod tests;

pub(crate) use expr::{join, shift_expr, shifted, Expr};
pub(crate) use nodes::Slots;

use super::arm_families::RoleArms;
use super::families::Families;
use super::legal_parts::RoleLegal;
use super::move_tables::MoveTables;
use super::node_words::{NodeWords, SparseAtoms};
use super::notes::Notes;
use crate::ground::{Ground, Lit, Prop, Value};
use proc_macro2::TokenStream;
use quote::quote;
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use step::FusedStep;

/// The straight-line game functions of a game.
pub(super) struct Functions {
    pub(super) tokens: TokenStream,
    /// Whether they include the fused `random_step`.
    pub(super) fused: bool,
    /// Their tokens, with those of the functions the fused step serves counted as if they
    /// were written apart, as [`super::STRAIGHT_FORM_TOKENS`] was measured; `None` unless
    /// asked for.
    pub(super) budget_tokens: Option<usize>,
    /// Whether at least half of the derived propositions are node words, evaluated 64 to an
    /// operation.
    pub(super) mostly_words: bool,
}

/// What straight-line functions are written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Purpose {
    /// [`super::Form::Straight`]: as they are.
    Straight,
    /// [`super::Form::Parts`]: every function in parts (see `nodes.rs`), whatever its length.
    Parts,
    /// [`super::Form::Auto`]: with their budget tokens (counting them writes the served
    /// functions apart), and, with `words_needed`, only for a game mostly in node words;
    /// abandoned once the functions written pass `give_up_over` tokens, which the caller
    /// would not take.
    Auto { words_needed: bool, give_up_over: usize },
}

/// The game's straight-line functions, written for `purpose`: `None`, with nothing written,
/// when it needs node words and fewer than half of the derived propositions are, or when they
/// pass the tokens it gives up over.
pub(super) fn generate_functions(ground: &Ground, notes: Option<&Notes>, purpose: Purpose) -> Option<Functions> {
    let mut vectorized = ground.clone();
    let families = super::families::vectorize(&mut vectorized);
    let mut emitter = Emitter::straight_line(&vectorized, families);
    let in_words = emitter.words.member.iter().filter(|m| m.is_some()).count();
    let mostly_words = 2 * in_words >= emitter.words.member.len().max(1);
    emitter.split_over = match purpose {
        Purpose::Auto { words_needed: true, .. } if !mostly_words => return None,
        Purpose::Auto { words_needed: true, .. } => SPLIT_LARGE_FUNCTION_TOKENS,
        Purpose::Parts => 0,
        Purpose::Straight | Purpose::Auto { words_needed: false, .. } => SPLIT_FUNCTION_TOKENS,
    };
    if let Purpose::Auto { give_up_over, .. } = purpose {
        emitter.give_up_over = give_up_over;
    }
    emitter.notes = notes;
    let legal_plans = emitter.legal_plans();
    let statics = emitter.generate_move_tables();
    let step_size = |step: &Option<FusedStep>| step.as_ref().map_or(0, |step| super::token_count(&step.code));
    let step = emitter.split_if_long(|| emitter.generate_random_step_fn(&legal_plans), step_size)?;
    // The functions the fused step's code serves are not written again.
    let shared = step.as_ref().map(|step| step.shared).unwrap_or_default();
    let size = super::token_count;
    let legal = unless(shared.legal, || emitter.split_if_long(|| emitter.generate_legal_fns(&legal_plans), size))?;
    let next = emitter.split_if_long(|| emitter.generate_next_fn(), size)?;
    let terminal = unless(shared.terminal, || emitter.split_if_long(|| emitter.generate_terminal_fn(), size))?;
    let goals = unless(shared.goals, || emitter.split_if_long(|| emitter.generate_goals_fn(), size))?;
    let sees = unless(!ground.gdl_ii, || emitter.split_if_long(|| emitter.generate_sees_fns(), size))?;
    // After every function: the tables of the kinds of moves they read.
    let move_places = emitter.move_place_tables();
    let near_places = emitter.near_place_tables();
    let kind_turns = emitter.kind_turn_tables();
    let fused = step.is_some();
    let legal_tables = legal::legal_move_tables(&legal_plans, fused);
    let (random_step, step_tables) = step.map(|step| (step.code, step.tables)).unzip();
    let tokens = quote! {
        #statics
        #move_places
        #near_places
        #kind_turns
        #legal_tables
        #step_tables
        #legal
        #next
        #terminal
        #goals
        #random_step
        #sees
    };
    let budget_tokens = matches!(purpose, Purpose::Auto { .. }).then(|| {
        let apart = [
            shared.legal.then(|| emitter.generate_legal_fns(&legal_plans)),
            shared.terminal.then(|| emitter.generate_terminal_fn()),
            shared.goals.then(|| emitter.generate_goals_fn()),
        ];
        super::token_count(&tokens) + apart.iter().flatten().map(super::token_count).sum::<usize>()
    });
    Some(Functions { tokens, fused, budget_tokens, mostly_words })
}

/// `Some(None)` when `skip`, else what `write` writes: `None` when the writer gave up.
fn unless<T>(skip: bool, write: impl FnOnce() -> Option<T>) -> Option<Option<T>> {
    if skip {
        Some(None)
    } else {
        write().map(Some)
    }
}

/// The functions of an rtGDL game's erased form: `legal`, `next`, `terminal` and `goals`, with
/// the move sets of `next` sized so that a role that does not move can be given the move index
/// `MOVES.len()`, which equals no move.
pub(super) fn generate_realtime_functions(ground: &Ground, notes: Option<&Notes>) -> TokenStream {
    let mut emitter = Emitter::new(ground);
    emitter.notes = notes;
    emitter.room_for_no_move = true;
    let legal_plans = emitter.legal_plans();
    let legal = emitter.generate_legal_fns(&legal_plans);
    let next = emitter.generate_next_fn();
    let terminal = emitter.generate_terminal_fn();
    let goals = emitter.generate_goals_fn();
    let legal_tables = legal::legal_move_tables(&legal_plans, false);
    quote! {
        #legal_tables
        #legal
        #next
        #terminal
        #goals
    }
}

/// The most tokens of a function written whole; a longer one has its long runs of node
/// statements split into functions of their own (see `nodes.rs`), since rustc's time grows
/// faster than a function's length: linesOfAction's `evaluate` (460k tokens) built in 134 s
/// whole, 38 s split. The largest functions under it (checkers' `evaluate`, 190k tokens) keep
/// the code they had: split, checkers built in 22 s instead of 38 s, but played at 0.92x.
const SPLIT_FUNCTION_TOKENS: usize = 250_000;

/// [`SPLIT_FUNCTION_TOKENS`] for a game past [`super::TABLE_FORM_LITERALS`], written in
/// straight-line code only because it is mostly in node words: such a module is large (up to
/// [`super::WORDS_FORM_TOKENS`]), and every long function counts. othello-comp2007 built in
/// 85 s with its `next` (170k tokens) whole, in 56 s with it split too. skirmish's `evaluate`
/// (about 90k tokens once the `match`es on the kind of move played became lookups) played at
/// 0.42x whole.
const SPLIT_LARGE_FUNCTION_TOKENS: usize = 50_000;

/// Constant tables of the module that functions look up, by content, each with the number it
/// was first given: one static per content, written after the last function.
pub(crate) struct NumberedTables<T>(RefCell<BTreeMap<T, usize>>);

impl<T> Default for NumberedTables<T> {
    fn default() -> Self {
        NumberedTables(RefCell::new(BTreeMap::new()))
    }
}

impl<T: Ord> NumberedTables<T> {
    /// The number of the table `content`, given the first time it is asked for.
    pub(crate) fn number(&self, content: T) -> usize {
        let mut tables = self.0.borrow_mut();
        let next = tables.len();
        *tables.entry(content).or_insert(next)
    }

    /// Every table as `write` writes it from its number and content, in the order of their
    /// numbers.
    pub(crate) fn write_all(&self, write: impl Fn(usize, &T) -> TokenStream) -> TokenStream {
        let tables = self.0.borrow();
        let mut numbered: Vec<(usize, &T)> = tables.iter().map(|(content, &number)| (number, content)).collect();
        numbered.sort_by_key(|&(number, _)| number);
        let statics = numbered.into_iter().map(|(number, content)| write(number, content));
        quote!(#(#statics)*)
    }
}

/// What the analyses decided for a whole module, which every function's body reads.
pub(crate) struct Emitter<'g> {
    pub(crate) ground: &'g Ground,
    /// Whether move sets have a bit for the index one past the last move (real-time games).
    pub(crate) room_for_no_move: bool,
    /// The recursive group of every node, as an index into `ground.cycles`.
    pub(crate) cycle_of: Vec<Option<usize>>,
    /// The compile-time tables of the functions of the joint move, if any.
    pub(crate) tables: Option<MoveTables>,
    /// By role, the families of its moves' conditional frame rules (none without tables).
    pub(crate) arm_families: Vec<RoleArms>,
    /// For every node, its rule families, evaluated a word at a time (none for most nodes).
    pub(crate) families: Vec<Families>,
    /// For every node that is one conjunction of base literals, those literals.
    pub(crate) flat: Vec<Option<Vec<Lit>>>,
    /// The nodes evaluated 64 at a time, as words of a local array `g`.
    pub(crate) words: NodeWords,
    /// The kinds of moves of [`NodeWords::move_kinds`] that the generated code reads, whose
    /// tables the module then has. They are found while the templates of node words are
    /// written, deep inside every function's expressions, and their tables are written after
    /// the last function: a set that those writers add to through `&self`, rather than a value
    /// returned up through every expression.
    pub(crate) move_kinds_read: RefCell<BTreeSet<u32>>,
    /// Whether a template outside a `match` on the kind played reads a kind's word through
    /// `kind_place` (`node_words/switch.rs`), so that the function is written.
    pub(crate) kind_place_read: Cell<bool>,
    /// For every group of `words`, whether it is read only through the places of moves
    /// (`node_words/transpose.rs`): its word is then never computed.
    pub(crate) transposed: Vec<bool>,
    /// The tables of moves that the readers of transposed groups look up, by content, each
    /// with its number; written after the last function, as the move kinds' tables are.
    pub(crate) near_tables: NumberedTables<Vec<u64>>,
    /// The tables of masks and turns by kind of move played (`node_words/turns.rs`), by
    /// content, each with its number.
    pub(crate) turn_tables: NumberedTables<Vec<(u64, u32)>>,
    /// What the comments of the rendered module say, when it has comments.
    pub(crate) notes: Option<&'g Notes>,
    /// For every node, the facts of the state without which it cannot hold (`guards.rs`).
    pub(crate) guard_facts: Vec<Vec<Lit>>,
    /// The relations of which at most a few facts hold at a time (`keyed.rs`).
    pub(crate) keys: keyed::Keys,
    /// The state words and facts that are empty or false most of the time.
    pub(crate) sparse: SparseAtoms,
    /// For every node, whether it reads the joint move (see [`Emitter::reads_moves`]), found
    /// when first asked.
    reads_moves: OnceCell<Vec<bool>>,
    /// For every loop of node words computed where its one reader reads it, that reader (see
    /// `node_words/lazy.rs`), found when first asked.
    lazy_loops: OnceCell<BTreeMap<u32, u32>>,
    /// Whether long sequences of node statements are split into functions of their own (see
    /// `nodes.rs`), as they are while a function longer than `split_over` tokens is written
    /// again.
    pub(crate) split: Cell<bool>,
    /// The most tokens of a function written whole: [`SPLIT_FUNCTION_TOKENS`], or
    /// [`SPLIT_LARGE_FUNCTION_TOKENS`] for a game past the literals of the budget.
    split_over: usize,
    /// The most tokens of functions written, whole, before [`Emitter::split_if_long`] gives up
    /// (see [`Purpose::Auto`]).
    give_up_over: usize,
    /// The tokens of the functions written so far, each counted whole.
    written: Cell<usize>,
    /// How many functions of node statements split from long functions are written so far,
    /// which numbers the next one.
    parts: Cell<u32>,
}

impl<'g> Emitter<'g> {
    /// An emitter with no optimization planned: every node evaluated by itself.
    fn new(ground: &'g Ground) -> Self {
        let cycle_of = ground.cycle_of();
        let guard_facts = guards::implied_facts(ground, &cycle_of);
        Emitter {
            ground,
            room_for_no_move: false,
            guard_facts,
            keys: keyed::Keys::new(ground),
            cycle_of,
            tables: None,
            arm_families: Vec::new(),
            families: Vec::new(),
            flat: super::families::flat_nodes(ground),
            words: NodeWords::none(ground.nodes.len()),
            move_kinds_read: RefCell::new(BTreeSet::new()),
            kind_place_read: Cell::new(false),
            transposed: Vec::new(),
            near_tables: NumberedTables::default(),
            turn_tables: NumberedTables::default(),
            notes: None,
            sparse: SparseAtoms::new(&ground.base),
            reads_moves: OnceCell::new(),
            lazy_loops: OnceCell::new(),
            split: Cell::new(false),
            split_over: SPLIT_FUNCTION_TOKENS,
            give_up_over: usize::MAX,
            written: Cell::new(0),
            parts: Cell::new(0),
        }
    }

    /// The emitter of a turn-based game's straight-line functions, `ground` vectorized into
    /// `families`: with its move tables, arm families and node words planned, in that order,
    /// since each plan reads the ones before; then again without the moves played that node
    /// words read better (see [`Emitter::read_moves_played_in_words`]).
    fn straight_line(ground: &'g Ground, families: Vec<Families>) -> Self {
        let mut emitter = Emitter::new(ground);
        emitter.families = families;
        emitter.set_tables(MoveTables::new(ground, &[]));
        emitter.words = emitter.plan_node_words();
        emitter.read_moves_played_in_words();
        let transposed = super::node_words::transposed(ground, &emitter.words, &|n| emitter.rule_by_rule(n));
        emitter.transposed = transposed;
        emitter
    }

    /// Sets the move tables, and plans the arm families of their frames.
    fn set_tables(&mut self, tables: Option<MoveTables>) {
        self.tables = tables;
        self.arm_families = Vec::new();
        if let Some(tables) = &self.tables {
            let mut arm_families: Vec<RoleArms> =
                tables.arms.iter().enumerate().map(|(role, arms)| RoleArms::plan(role, arms, &self.flat)).collect();
            RoleArms::share_tables(&mut arm_families);
            self.arm_families = arm_families;
        }
    }

    /// Leaves out of the move table the nodes that only say which move is played (see
    /// [`crate::ground::Node::move_played`]) that node words would read as the move itself
    /// without the table: members of groups of templates, whose readers then read the kind of
    /// move played at its place (`node_words/move_words.rs`), one arm of a `match` on the kind
    /// rather than a term for every distance of a move (skirmish's "the move from here to there
    /// is played", 1,016 nodes in skirmishFinal3). Those that the moves would guard, or that
    /// would stay one by one, are better read from the table. The node words are planned again.
    fn read_moves_played_in_words(&mut self) {
        let said: Vec<u32> = (0..self.ground.nodes.len() as u32)
            .filter(|&n| self.table_bit(n).is_some() && self.ground.nodes[n as usize].move_played().is_some())
            .collect();
        if said.is_empty() {
            return;
        }
        let (tables, arm_families) = (self.tables.take(), std::mem::take(&mut self.arm_families));
        self.set_tables(MoveTables::new(self.ground, &said));
        let trial = self.plan_node_words();
        let read_as_moves: Vec<u32> = said.iter().copied().filter(|&n| trial.in_template_group(n)).collect();
        if read_as_moves.len() == said.len() {
            self.words = trial;
        } else if read_as_moves.is_empty() {
            (self.tables, self.arm_families) = (tables, arm_families);
        } else {
            self.set_tables(MoveTables::new(self.ground, &read_as_moves));
            self.words = self.plan_node_words();
        }
    }

    /// The groups of nodes evaluated as words: among the nodes that are not given by the move
    /// table, are not the next value of a framed fact, and that are read elsewhere than in frame
    /// arms (those only the arms read are evaluated there). Nodes that the moves guard (see
    /// [`super::move_guards`]) are only gathered, bit by bit in their arms; the recursive ones
    /// among them are in no group (a loop of words computes a recursive group whole).
    fn plan_node_words(&self) -> NodeWords {
        let in_cycle = self.ground.in_cycle();
        let after: Vec<u32> = (0..self.ground.nodes.len() as u32).filter(|&n| self.reads_moves()[n as usize]).collect();
        let plain: Vec<bool> = (0..self.ground.nodes.len() as u32).map(|n| self.rule_by_rule(n)).collect();
        let guards = super::move_guards::find(self.ground, &after, &plain, &in_cycle);
        let gathered_only: Vec<bool> = guards.iter().map(Option::is_some).collect();
        let mut never: Vec<bool> = (0..self.ground.nodes.len())
            .map(|n| (in_cycle[n] && gathered_only[n]) || self.table_bit(n as u32).is_some())
            .collect();
        if let Some(tables) = &self.tables {
            let mut others = self.next_outside_arms();
            others.push(self.ground.terminal);
            let moves = self.ground.legal.iter().chain(&self.ground.goals).chain(&self.ground.sees);
            others.extend(moves.flatten().map(|&(_, value)| value));
            let read_elsewhere: BTreeSet<u32> = tables.runtime_cone(self.ground, &others).into_iter().collect();
            for n in tables.runtime_cone(self.ground, &tables.arm_values()) {
                never[n as usize] |= !read_elsewhere.contains(&n);
            }
        }
        // A framed fact's next value comes from the frame tables: a word would compute it for
        // nothing.
        for (i, value) in self.ground.next.iter().enumerate() {
            if let Value::Lit(Lit { prop: Prop::Node(n), positive: true }) = *value {
                if self.framed(i) {
                    never[n as usize] = true;
                }
            }
        }
        let no_table = vec![None; self.ground.nodes.len()];
        let table_bit = self.tables.as_ref().map_or(&no_table, |tables| &tables.node_bit);
        let family_cost: Vec<Option<usize>> = (self.ground.nodes.iter().enumerate())
            .map(|(n, node)| self.families.get(n).filter(|f| !f.families.is_empty()).map(|f| f.cost(&node.rules)))
            .collect();
        super::node_words::find(self.ground, &never, &gathered_only, table_bit, &family_cost)
    }

    /// The nodes that depend on the joint move ([`super::cones::reads_moves`]), widened so
    /// that a group of node words is computed at once, after the moves are known when any of
    /// its members reads them, and so is every node that reads a member of such a group.
    pub(crate) fn move_dependent(&self) -> Vec<bool> {
        let mut dependent = self.reads_moves().to_vec();
        self.mark_readers_and_groups(&mut dependent);
        dependent
    }

    /// For every node, whether it reads the joint move, itself or through other nodes
    /// ([`super::cones::reads_moves`]).
    pub(crate) fn reads_moves(&self) -> &[bool] {
        self.reads_moves.get_or_init(|| super::cones::reads_moves(self.ground))
    }

    /// For every loop of node words computed where its one reader reads it, that reader
    /// (`node_words/lazy.rs`).
    pub(crate) fn lazy_loops(&self) -> &BTreeMap<u32, u32> {
        self.lazy_loops.get_or_init(|| self.find_lazy_loops())
    }

    /// Marks every node that reads a marked node, and every member of a group of node words
    /// that has a marked member (a group is computed at once), until nothing changes.
    pub(crate) fn mark_readers_and_groups(&self, marked: &mut [bool]) {
        loop {
            super::cones::mark_readers(self.ground, marked);
            let mut widened = false;
            for group in &self.words.groups {
                if group.members.iter().any(|&m| marked[m as usize]) {
                    for &m in &group.members {
                        widened |= !std::mem::replace(&mut marked[m as usize], true);
                    }
                }
            }
            if !widened {
                return;
            }
        }
    }

    /// How every role's legal moves are found (see [`super::legal_parts`]), which `legal` and
    /// `random_step` share.
    fn legal_plans(&self) -> Vec<RoleLegal> {
        self.ground.legal.iter().map(|moves| RoleLegal::plan(self.ground, moves, &self.words, &self.flat)).collect()
    }

    /// A comment saying `text`, when the module has comments (see [`super::notes`]).
    pub(crate) fn note(&self, text: impl FnOnce(&Notes) -> String) -> TokenStream {
        super::notes::note(self.notes, text)
    }

    /// A comment naming node `node`'s atom after `place` (its slot or bit), and the lines of
    /// its relation's rules.
    pub(crate) fn note_node(&self, place: impl FnOnce() -> String, node: u32) -> TokenStream {
        self.note(|notes| format!("{}: {}", place(), notes.atom(&self.ground.nodes[node as usize].name)))
    }

    /// What `write` writes, written again with its node statements split into parts when it
    /// has over `split_over` tokens (`size` counts them); `None`, not split, once the functions
    /// written so far pass `give_up_over` tokens. Split functions are never shorter than
    /// whole ones (they add the parts' signatures and calls), so the whole ones' count is a
    /// floor of the module's.
    fn split_if_long<T>(&self, write: impl Fn() -> T, size: impl Fn(&T) -> usize) -> Option<T> {
        let whole = write();
        let tokens = size(&whole);
        self.written.set(self.written.get().saturating_add(tokens));
        if self.written.get() > self.give_up_over {
            return None;
        }
        if tokens <= self.split_over {
            return Some(whole);
        }
        self.split.set(true);
        let parts = write();
        self.split.set(false);
        Some(parts)
    }

    /// The name of the next function of node statements split from a long function.
    pub(crate) fn part_name(&self) -> proc_macro2::Ident {
        let k = self.parts.get();
        self.parts.set(k + 1);
        quote::format_ident!("nodes_part_{}", k)
    }

    /// The bit of `node` in the move table, when the table gives it.
    pub(crate) fn table_bit(&self, node: u32) -> Option<u32> {
        self.tables.as_ref().and_then(|t| t.node_bit[node as usize])
    }
}

/// Where in a step a function's body is written, which says whether the nodes that the move
/// table gives are read from the joint move's row `mt` or computed from their rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Before the joint move's row is looked up: every node is computed from its rules
    /// (`legal`, `terminal`, `goals`, `sees`, and `random_step` up to its draw).
    State,
    /// After: the nodes the table gives are read from `mt` (`next`, and `random_step` after
    /// its draw).
    Move,
}

/// The writer of one function's body: the module's [`Emitter`], the slots the body gave its
/// nodes, and its phase.
#[derive(Clone, Copy)]
pub(crate) struct Body<'a> {
    pub(crate) emitter: &'a Emitter<'a>,
    pub(crate) slots: &'a Slots,
    phase: Phase,
    /// A literal known to hold where the body's statements run (inside a test of it), which
    /// they need not test again.
    holds: Option<Lit>,
}

impl<'a> Body<'a> {
    /// The writer of a body in `phase` whose nodes have the slots `slots`.
    pub(crate) fn new(emitter: &'a Emitter<'a>, slots: &'a Slots, phase: Phase) -> Self {
        Body { emitter, slots, phase, holds: None }
    }

    /// The same body, inside a test of `lit`.
    pub(crate) fn where_holds(self, lit: Lit) -> Self {
        Body { holds: Some(lit), ..self }
    }

    /// The value of `lit` where the body's statements run: `Some` when it is the literal
    /// known to hold there, or its negation.
    pub(crate) fn known(&self, lit: Lit) -> Option<bool> {
        let holds = self.holds?;
        (holds.prop == lit.prop).then_some(holds.positive == lit.positive)
    }

    /// The same body in another phase.
    pub(crate) fn in_phase(self, phase: Phase) -> Self {
        Body { phase, ..self }
    }

    /// The bit of `node` in the joint move's row of the move table, when the body reads it
    /// there: after the move, for a node the table gives.
    pub(crate) fn row_bit(&self, node: u32) -> Option<u32> {
        match self.phase {
            Phase::Move => self.emitter.table_bit(node),
            Phase::State => None,
        }
    }
}
