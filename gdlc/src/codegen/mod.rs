//! Code generation: one [`generate`] function, shared by the `gdlc` CLI and the `gdl!` macro,
//! turns a game's text into the tokens of a Rust module that plays it: a bit-packed `State`,
//! a `Move`, and straight-line `legal`, `next`, `terminal` and `goals` over the state's words,
//! behind an `impl gdl_runtime::Game`.
//!
//! Which file does what:
//! - `tables.rs`: the module's types and constant tables (roles, base facts, moves, `State`).
//! - `emit/`: the straight-line game functions, one file per function it writes (`legal.rs`,
//!   `next.rs`, `step.rs` for the fused `random_step`, `goals.rs` for `terminal` and `goals`,
//!   `sees.rs`), over the evaluation of nodes (`nodes.rs`) and their expressions (`expr.rs`).
//! - `program.rs`: the table form, for games too large for straight-line code.
//! - `realtime.rs`: the module of an rtGDL game.
//! - `lifted/`: the lifted form, for games too large to ground: the rules with variables as
//!   generated joins, from the interpreter's plans, with no ground program.
//! - `cones.rs`: which nodes a function needs; `word_order.rs`: their order around node words.
//! - `notes.rs`: the comments of the rendered module, naming the atom or table each piece of
//!   code computes and the lines of its rules (the `gdl!` macro's tokens have none).
//!
//! The optimizations of the straight-line form, each an analysis with the code it writes
//! beside it (a folder's `emit.rs`):
//! - `families/`: a node's rules of one shape at many places, tested a word at a time, and
//!   (`runs.rs`) runs of equally spaced facts, twin nodes tested in one pair.
//! - `truth_tables.rs`: small nodes looked up in a constant table.
//! - `move_tables/`: functions of the joint move computed at compile time.
//! - `arm_families/`: the conditional frame rules of moves that are one shape moved along the
//!   board, evaluated with word operations, and (`copy_groups.rs`) by tables of copies.
//! - `node_words/`: the derived propositions of a board evaluated 64 at a time.
//! - `move_guards/`: nodes that only a few moves can make true, evaluated in their arms.
//! - `legal_parts.rs`: the words of bits in which a role's legal moves are found.
//! - `pick_tables.rs`: drawing a legal move by table.
//! - `scratch/`: the node arrays of long functions kept between calls, cleared only where
//!   they may be read before they are written.
//! - `tokens.rs`: written tokens read back (statements, identifiers) by `scratch/` and by the
//!   parts of long functions.

mod arm_families;
mod cones;
mod emit;
mod error;
mod families;
mod guard_reads;
mod legal_parts;
pub(crate) mod lifted;
mod move_guards;
mod move_tables;
mod node_gates;
mod node_words;
mod notes;
mod pick_tables;
pub mod program;
mod realtime;
mod scratch;

mod tables;
mod tokens;
mod truth_tables;
mod word_order;

pub use error::Error;
pub use notes::Notes;
pub use tables::words;

use crate::ground::{self, Ground};
use emit::Purpose;
use proc_macro2::TokenStream;
use quote::quote;

/// Code generation settings.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub ground: ground::Options,
    pub form: Form,
}

/// How the game functions are generated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Form {
    /// Straight-line code, unless the ground program, or the straight-line functions, would
    /// have more than [`TABLE_FORM_LITERALS`] literals, or the functions written more than
    /// [`STRAIGHT_FORM_TOKENS`] tokens.
    #[default]
    Auto,
    /// Straight-line Rust over the state's words: the fastest code, but its build time grows
    /// with the program.
    Straight,
    /// Tables of the ground program evaluated by `gdl_runtime::program`: builds in seconds at
    /// any size. The lifted rules come beside them (not for a GDL-II game), and the faster of
    /// the two plays (`gdl_runtime::program::TablesOrLifted`).
    Tables,
    /// [`Form::Straight`] with every function's long runs of node statements in functions of
    /// their own, as a large game's long functions are written, whatever its size: the code
    /// of large games, on a game small enough to test it with.
    Parts,
    /// The rules with variables, not ground: one generated join per rule, over the facts of
    /// each state, as the interpreter plans them (`lifted/`). What [`Form::Auto`] writes for a
    /// game too large to ground; asked for, any game.
    Lifted,
}

/// The size of a ground program (in literals) above which [`Form::Auto`] chooses tables for a
/// game with few node words, without writing the straight-line functions to count their
/// tokens (a game mostly in node words goes on to [`WORDS_FORM_LITERALS`]). Below it the count
/// decides: the straight-line functions of the corpus's games from 100,000 to 150,000 literals
/// took 0.6-4.1 s and at most 830 MB to write, and chineseCheckers6's (142,301 literals) fit in
/// 34k lines since rules that differ only in a node of the move table are merged; past it
/// writing them costs more (alexChess: 2.1M literals, 57 s and 7 GB) and no game of the corpus
/// had them under [`STRAIGHT_FORM_TOKENS`].
pub const TABLE_FORM_LITERALS: usize = 150_000;

/// The most tokens of straight-line game functions that [`Form::Auto`] writes; past them it
/// writes tables. The functions that the fused step serves on large games (`legal`,
/// `terminal`, `goals`) are counted as if written apart, as they were when this was measured:
/// with them shared, games past the limit build in less time but still play faster in tables
/// or build in over a minute (queens31lg 0.37x the tables' speed, speedChess 0.58x, merrills
/// 2.1x but 71 s). rustc's time grows faster than the code, and unevenly: on the 2-core
/// development machine 330k tokens (reversi) built in 9 s, 568k (snake_2009_big) in 53 s, 738k
/// (checkers) in 43 s, 872k (queens31lg) in 131 s and 1.7M (amazons_10x10) in 125 s and 3.8 GB.
/// Past 750k tokens the tables played faster on four games of five measured (queens31lg 3.1x,
/// speedChess 1.7x, gt_attrition 1.2x, amazons_8x8 1.05x; checkers-mustjump 0.79x), and build in
/// seconds (docs/performance.md).
pub const STRAIGHT_FORM_TOKENS: usize = 750_000;

/// The size of a ground program (in literals) above which [`Form::Auto`] chooses tables even
/// for a game mostly in node words, without writing anything: the largest such games of the
/// corpus under it (othello-comp2007: 316,823 literals; shogi_ctk: 414,338) are written in 3-6 s.
pub const WORDS_FORM_LITERALS: usize = 500_000;

/// The most tokens of straight-line functions (as written, the functions the fused step
/// serves not counted again) that [`Form::Auto`] writes for a game where at least half of the
/// derived propositions are node words, evaluated 64 to an operation. Such code plays several
/// times faster than tables, and builds in under a minute, its long functions split into parts
/// (measured side by side on the 2-core machine: othello-comp2007, 1.0M tokens, 53 s and
/// 6.6-8.2x the tables' speed; othelloHoles, 870k, 48 s and 10x; hexPie, 820k, 27 s and 4.9x;
/// linesOfAction, 490k, 34-38 s and 5.1-5.6x). Games with few node words are held to
/// [`STRAIGHT_FORM_TOKENS`]: among them, tables play faster on some (queens31lg 3.1x, quarto
/// 1.9x, speedChess 1.3x).
pub const WORDS_FORM_TOKENS: usize = 1_100_000;

/// The module of a grounded game: a turn-based one, or a real-time one for an rtGDL game
/// (grounded from its erased form); an error says why an rtGDL game cannot be compiled.
pub fn generate_module(ground: &Ground, form: Form, realtime: bool) -> Result<TokenStream, Error> {
    generate_noted_module(ground, form, realtime, None, &no_lifted_rules).map(|module| module.tokens)
}

/// The module of a game's lifted rules to write beside its tables, made only when the game
/// is written as tables ([`lifted::companion`]); `None` when it has none.
pub type LiftedRules<'a> = &'a dyn Fn() -> Option<TokenStream>;

/// [`LiftedRules`] for a module of tables alone.
pub fn no_lifted_rules() -> Option<TokenStream> {
    None
}

/// [`generate_module`], with comment markers from `notes` (when given) that [`render_file`]
/// turns into comments naming the atom or table each piece of code computes. Tokens with
/// markers do not compile until rendered, so the `gdl!` macro never gives notes. A game (not
/// GDL-II) written as tables gets `lifted_rules` beside them, when it gives any.
pub fn generate_noted_module(
    ground: &Ground,
    form: Form,
    realtime: bool,
    notes: Option<&Notes>,
    lifted_rules: LiftedRules<'_>,
) -> Result<Module, Error> {
    if form == Form::Lifted {
        return Err(Error::LiftedFromGround);
    }
    if !ground.deferred.atoms.is_empty() && (realtime || matches!(form, Form::Straight | Form::Parts)) {
        return Err(Error::DeferredNeedTables { relations: ground.deferred.relations.len() });
    }
    if realtime {
        let tokens = realtime::generate_realtime(ground, form, notes).map_err(Error::RealTime)?;
        Ok(Module { tokens, tables: false, lifted_rules: false })
    } else {
        Ok(generate_noted_ground(ground, form, notes, lifted_rules))
    }
}

/// A generated module.
pub struct Module {
    /// The items of the module: `State`, `Move`, the game functions and `impl Game`.
    pub tokens: TokenStream,
    /// Whether the game functions are tables of the ground program rather than straight-line
    /// code.
    pub tables: bool,
    /// Whether the game's lifted rules are written beside its tables, the faster of the two
    /// playing.
    pub lifted_rules: bool,
}

/// The module for a grounded game.
pub fn generate_ground(ground: &Ground, form: Form) -> TokenStream {
    generate_noted_ground(ground, form, None, &no_lifted_rules).tokens
}

/// [`generate_ground`], with comment markers from `notes` and lifted rules beside tables (see
/// [`generate_noted_module`]).
fn generate_noted_ground(ground: &Ground, form: Form, notes: Option<&Notes>, lifted_rules: LiftedRules<'_>) -> Module {
    let limits = Limits { budget: STRAIGHT_FORM_TOKENS, words: WORDS_FORM_TOKENS };
    generate_ground_within(ground, form, notes, limits, lifted_rules)
}

/// The most tokens of straight-line functions that [`Form::Auto`] writes: `budget` budget
/// tokens, or `words` tokens as written for a game mostly in node words.
#[derive(Clone, Copy, Debug)]
struct Limits {
    budget: usize,
    words: usize,
}

impl Limits {
    /// The most tokens of functions, as written, that either limit lets through.
    fn most(&self) -> usize {
        self.budget.max(self.words)
    }
}

/// [`generate_noted_ground`], where [`Form::Auto`] writes straight-line functions within
/// `limits`.
fn generate_ground_within(
    ground: &Ground,
    form: Form,
    notes: Option<&Notes>,
    limits: Limits,
    lifted_rules: LiftedRules<'_>,
) -> Module {
    let tables = tables::generate_tables(ground);
    let straight = match form {
        Form::Tables | Form::Lifted => None,
        Form::Straight => emit::generate_functions(ground, notes, Purpose::Straight),
        Form::Parts => emit::generate_functions(ground, notes, Purpose::Parts),
        Form::Auto if !ground.deferred.atoms.is_empty() || ground.size() > WORDS_FORM_LITERALS => None,
        Form::Auto => {
            let purpose = Purpose::Auto { words_needed: past_literals(ground), give_up_over: limits.most() };
            emit::generate_functions(ground, notes, purpose)
        }
    };
    let fits = |functions: &emit::Functions| {
        functions.budget_tokens.is_none_or(|tokens| tokens <= limits.budget)
            || (functions.mostly_words && token_count(&functions.tokens) <= limits.words)
    };
    let (functions, fused_step, tables_form) = match straight {
        Some(functions) if fits(&functions) => (scratch::keep_arrays(functions.tokens), functions.fused, false),
        // The table form's fused step is its lifted rules' or the tables' (whichever plays);
        // without lifted rules, playouts go through the general interface.
        _ => {
            let lifted = (!ground.gdl_ii).then(lifted_rules).flatten();
            let fused = lifted.is_some();
            (program::generate_program_functions(ground, notes, lifted), fused, true)
        }
    };
    let game_impl = generate_game_impl(fused_step, ground.gdl_ii);
    let tokens = quote! {
        #tables
        #functions
        #game_impl
    };
    // A table-form module's fused step is that of its lifted rules and tables.
    Module { tokens, tables: tables_form, lifted_rules: tables_form && fused_step }
}

/// The tokens of `tokens`, those inside groups included: a measure of the code rustc compiles.
/// Comment markers (`gdlc_note!("...");`) are not counted, so that a module with comments and
/// one without get the same form.
pub(crate) fn token_count(tokens: &TokenStream) -> usize {
    let mut count = 0;
    let mut trees = tokens.clone().into_iter();
    while let Some(tree) = trees.next() {
        match tree {
            proc_macro2::TokenTree::Ident(ident) if ident == notes::MACRO => {
                // The `!`, the parenthesized text and the `;` of the marker.
                trees.nth(2);
            }
            proc_macro2::TokenTree::Group(group) => count += 1 + token_count(&group.stream()),
            _ => count += 1,
        }
    }
    count
}

/// Whether the ground program alone sends an rtGDL game in `form` to tables (rtGDL games are
/// written without node words).
pub(crate) fn uses_tables(ground: &Ground, form: Form) -> bool {
    match form {
        Form::Auto => !ground.deferred.atoms.is_empty() || past_literals(ground),
        Form::Straight | Form::Parts => false,
        Form::Tables | Form::Lifted => true,
    }
}

/// Whether the ground program, or the straight-line functions, would have more than
/// [`TABLE_FORM_LITERALS`] literals: past them, [`Form::Auto`] writes straight-line code only
/// for a game mostly in node words.
fn past_literals(ground: &Ground) -> bool {
    ground.size() > TABLE_FORM_LITERALS || straight_line_literals(ground) > TABLE_FORM_LITERALS
}

/// The literals that straight-line code would spell out: every function repeats the nodes it
/// needs, so a node that `legal`, `terminal` and `goals` all need is written three times.
fn straight_line_literals(ground: &Ground) -> usize {
    let cones = cones::Cones::new(ground);
    let literals = |values: &[ground::Value]| -> usize {
        cones.cone(values).iter().map(|&n| ground.nodes[n as usize].rules.iter().map(Vec::len).sum::<usize>()).sum()
    };
    let mut total = 0;
    for moves in &ground.legal {
        total += literals(&moves.iter().map(|&(_, v)| v).collect::<Vec<_>>());
    }
    total += literals(&ground.next);
    total += literals(&[ground.terminal]);
    for percepts in &ground.sees {
        total += literals(&percepts.iter().map(|&(_, v)| v).collect::<Vec<_>>());
    }
    total + literals(&ground.goals.iter().flatten().map(|&(_, v)| v).collect::<Vec<_>>())
}

/// The generated module as formatted source, with a header naming the command that
/// regenerates it, and the comment markers of [`generate_noted_module`] turned into comments.
pub fn render_file(tokens: &TokenStream, command: &str) -> Result<String, String> {
    let file: syn::File =
        syn::parse2(tokens.clone()).map_err(|e| format!("internal error: the generated code does not parse: {e}"))?;
    Ok(format!(
        "// @generated by `{command}`; do not edit. Regenerate with the same command.\n\n\
         #![allow(clippy::all, clippy::pedantic, unused_variables, unused_mut)]\n\n{}",
        notes::rewrite(&prettyplease::unparse(&file))
    ))
}

/// `impl gdl_runtime::Game for Game`, over the generated functions and tables; with
/// `fused_step`, random playouts go through the generated `random_step`; with `gdl_ii`, the
/// game has a `random` role or percepts, given by `RANDOM_ROLE`, `PERCEPTS` and `sees`.
fn generate_game_impl(fused_step: bool, gdl_ii: bool) -> TokenStream {
    let gdl_ii = gdl_ii.then(|| {
        quote! {
            fn is_gdl_ii(&self) -> bool {
                true
            }

            fn random_role(&self) -> Option<usize> {
                RANDOM_ROLE
            }

            fn percepts(&self, state: &State, joint: &[Move], role: usize, out: &mut Vec<String>) {
                let mut indices = Vec::new();
                sees(state, joint, role, &mut indices);
                out.clear();
                out.extend(indices.into_iter().map(|p| PERCEPTS[p as usize].to_string()));
            }
        }
    });
    let random_step = fused_step.then(|| {
        quote! {
            fn random_step(
                &self,
                state: &State,
                rng: &mut ::gdl_runtime::rng::Rng,
                _scratch: &mut ::gdl_runtime::Playout<Self>,
            ) -> Option<State> {
                random_step(state, rng)
            }

            fn random_step_into(
                &self,
                state: &State,
                rng: &mut ::gdl_runtime::rng::Rng,
                _scratch: &mut ::gdl_runtime::Playout<Self>,
                out: &mut State,
            ) -> bool {
                random_step_into(state, rng, out)
            }
        }
    });
    quote! {
        impl ::gdl_runtime::Game for Game {
            type State = State;
            type Move = Move;

            fn num_roles(&self) -> usize {
                ROLES.len()
            }

            fn role_name(&self, role: usize) -> &str {
                ROLES[role]
            }

            fn initial_state(&self) -> State {
                INITIAL
            }

            fn legal_moves(&self, state: &State, role: usize, out: &mut Vec<Move>) {
                out.clear();
                legal(state, role, out);
            }

            fn next_state(&self, state: &State, joint: &[Move]) -> State {
                next(state, joint)
            }

            fn is_terminal(&self, state: &State) -> bool {
                terminal(state)
            }

            fn goal(&self, state: &State, role: usize) -> Option<u32> {
                let mut all = [None; ROLES.len()];
                goals(state, &mut all);
                all[role]
            }

            fn goals_into(&self, state: &State, out: &mut [Option<u32>]) {
                goals(state, out);
            }

            #random_step

            fn state_facts(&self, state: &State) -> Vec<String> {
                state.facts().into_iter().map(String::from).collect()
            }

            fn move_string(&self, mv: &Move) -> String {
                MOVES[mv.0 as usize].to_string()
            }

            fn parse_move(&self, role: usize, text: &str) -> Option<Move> {
                let index = ::gdl_runtime::kif::find_term(text, &MOVES)? as u32;
                ROLE_MOVES.get(role)?.binary_search(&index).ok().map(|_| Move(index))
            }

            #gdl_ii
        }
    }
}

#[cfg(test)]
mod tests;
