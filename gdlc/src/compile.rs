//! The compile pipeline on one screen: a game's text through every pass to the tokens of the
//! Rust module that plays it. Each pass is a function of its own module; this file only says
//! their order and what flows between them. `docs/architecture.md` tells the passes apart.

use crate::ast::Description;
use crate::codegen::{self, Form, Notes, Options};
use crate::diag::Diagnostic;
use crate::ground::{self, Ground};
use crate::interp::{Interpreter, Limits};
use crate::{check, engine, realtime, Error};
use gdl_runtime::engine::ProgramGame;
use proc_macro2::TokenStream;

/// A game compiled: its ground program (for summaries and tests) and its module's tokens.
pub struct Compiled {
    /// The propositional program the module evaluates; `None` in the lifted form, which
    /// evaluates the rules with variables.
    pub ground: Option<Ground>,
    /// The items of the module: `State`, `Move`, the game functions and `impl Game`.
    pub tokens: TokenStream,
    /// Whether the game is rtGDL, whose module implements `RealTimeGame`.
    pub realtime: bool,
    /// Whether the game functions are tables of the ground program rather than straight-line
    /// code.
    pub tables: bool,
    /// Whether the game's lifted rules are written beside its tables (see
    /// [`codegen::Module::lifted_rules`]).
    pub lifted_rules: bool,
    /// Why [`Form::Auto`] chose the lifted form, when it did.
    pub lifted_because: Option<WhyLifted>,
}

/// Why [`Form::Auto`] compiles a game in the lifted form.
#[derive(Debug)]
pub enum WhyLifted {
    /// Grounding gave up.
    TooLargeToGround(Error),
    /// The ground program checks this many atoms at run time, each by a search of its own,
    /// where the lifted form computes their relations whole (chess's threats).
    CheckedAtoms(usize),
    /// Grounding stopped once the ground program read this many atoms to check at run time
    /// ([`LIFT_AT_CHECKS`]), far past [`LIFTED_CHECKED_ATOMS`].
    ChecksMany(usize),
}

impl std::fmt::Display for WhyLifted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WhyLifted::TooLargeToGround(error) => write!(f, "{error}"),
            WhyLifted::CheckedAtoms(atoms) => write!(f, "its ground program checks {atoms} atoms at run time"),
            WhyLifted::ChecksMany(atoms) => {
                write!(f, "its ground program would check at least {atoms} atoms at run time")
            }
        }
    }
}

/// The fewest atoms checked at run time for which [`Form::Auto`] prefers the lifted form: a
/// search for each atom a state reads costs more than joins that compute the relation whole
/// (measured: chess and slaughter, 183,360 atoms, run 1.6x faster lifted; laikLee_hex, 30
/// atoms over lists of the cells visited, 3.3x), where a few atoms cost little (sudoku's 2:
/// its ground form runs 27x faster than lifted).
pub const LIFTED_CHECKED_ATOMS: usize = 16;

/// How many atoms to check at run time a first grounding attempt that checks relations may read
/// before [`Form::Auto`] stops it and compiles the game lifted, rather than finish a ground
/// program it would not use: far past [`LIFTED_CHECKED_ATOMS`], so that the atoms the later
/// passes drop cannot bring it under. chess's grounding (183,360 atoms) stops at its deferring
/// attempt's first rules instead of building 11.6 million literals and simplifying them.
pub const LIFT_AT_CHECKS: usize = 10_000;

/// Whether [`Form::Auto`] compiles the game of `ground` in the lifted form rather than from
/// its ground program.
pub fn prefers_lifted(ground: &Ground) -> bool {
    ground.deferred.atoms.len() >= LIFTED_CHECKED_ATOMS
}

impl Compiled {
    /// Whether the module is in the lifted form (no ground program).
    pub fn is_lifted(&self) -> bool {
        self.ground.is_none()
    }
}

/// Compiles the game in `source` (prefix KIF or infix GDL).
pub fn compile(source: &str, options: &Options) -> Result<Compiled, Error> {
    compile_noted(source, options, None)
}

/// [`compile`] for a module to render as a file ([`codegen::render_file`]): comments in it
/// name the GDL atom or table each piece of code computes and the lines of `file` (the game's
/// file name) that its rules are on. Such tokens compile only once rendered.
pub fn compile_commented(source: &str, file: &str, options: &Options) -> Result<Compiled, Error> {
    compile_noted(source, options, Some(&Notes::new(file, source)))
}

/// The pipeline, with the notes that become comments when given. A game too large to ground,
/// or whose ground program would check many atoms at run time ([`prefers_lifted`]), gets the
/// lifted form under `--form auto`.
fn compile_noted(source: &str, options: &Options, notes: Option<&Notes>) -> Result<Compiled, Error> {
    let (description, realtime) = front_end(source, options.ground.case)?;
    if options.form == Form::Lifted {
        return lifted(&description, realtime, notes, &Limits::NONE, &[]);
    }
    let auto = options.form == Form::Auto && !realtime;
    let lift_at_checks = auto.then_some(LIFT_AT_CHECKS);
    let frames_through_moves = options.ground.frames_through_moves && matches!(options.form, Form::Auto | Form::Tables);
    let ground_options = ground::Options { lift_at_checks, frames_through_moves, ..options.ground.clone() };
    let ground = match ground_checked(&description, realtime, &ground_options) {
        Err(error) if error.is_too_large_to_ground() && auto => {
            let compiled = lifted(&description, realtime, notes, &Limits::NONE, &[])?;
            return Ok(Compiled { lifted_because: Some(WhyLifted::TooLargeToGround(error)), ..compiled });
        }
        Err(Error::Ground(ground::Error::ChecksMany { atoms, known })) => {
            let compiled = lifted(&description, realtime, notes, &Limits::NONE, &known)?;
            return Ok(Compiled { lifted_because: Some(WhyLifted::ChecksMany(atoms)), ..compiled });
        }
        other => other?,
    };
    if auto && prefers_lifted(&ground) {
        let compiled = lifted(&description, realtime, notes, &Limits::NONE, &known_terms(&ground))?;
        let why = WhyLifted::CheckedAtoms(ground.deferred.atoms.len());
        return Ok(Compiled { lifted_because: Some(why), ..compiled });
    }
    let compiled = ground_module(&description, ground, realtime, options.form, notes)?;
    if !auto || compiled.tables || !frames_through_moves || !ground::affected::rewrites_any(&description) {
        return Ok(compiled);
    }
    frames_for_tables(&description, compiled, &ground_options, notes)
}

/// For [`Form::Auto`], the straight-line module `compiled` of a game whose frames were read
/// through what their moves affect ([`ground::affected`]), which incremental tables want:
/// straight-line code reads a frame's moves through tables of moves, so the game is grounded
/// again with its frames as written. When that program is written in straight-line code too, it
/// is the module; when it is too large and takes the tables, the tables are those of the
/// frames read through moves (blobwars: 1.4x faster tables).
fn frames_for_tables(
    description: &Description,
    compiled: Compiled,
    options: &ground::Options,
    notes: Option<&Notes>,
) -> Result<Compiled, Error> {
    let as_written = ground::Options { frames_through_moves: false, ..options.clone() };
    let Ok(plain) = ground_checked(description, false, &as_written) else { return Ok(compiled) };
    if prefers_lifted(&plain) {
        return Ok(compiled);
    }
    let plain = ground_module(description, plain, false, Form::Auto, notes)?;
    match (plain.tables, compiled.ground) {
        (true, Some(rewritten)) => ground_module(description, rewritten, false, Form::Tables, notes),
        _ => Ok(plain),
    }
}

/// [`compile`] of a game already grounded ([`ground_source`] with the same `options`), from its
/// checked `description`: the module of its ground program, with the lifted rules beside its
/// tables. A player grounds a game once, plays it from the program engine meanwhile, and hands
/// the program on for native code.
pub fn compile_grounded(description: &Description, ground: Ground, options: &Options) -> Result<Compiled, Error> {
    let realtime = realtime::is_realtime(description);
    ground_module(description, ground, realtime, options.form, None)
}

/// The module of a ground program in `form`, with the lifted rules of `description` beside it
/// when it is written as tables.
fn ground_module(
    description: &Description,
    ground: Ground,
    realtime: bool,
    form: Form,
    notes: Option<&Notes>,
) -> Result<Compiled, Error> {
    let lifted_rules = || lifted_rules(description, notes);
    let module = codegen::generate_noted_module(&ground, form, realtime, notes, &lifted_rules)?;
    let (tokens, tables, lifted_rules) = (module.tokens, module.tables, module.lifted_rules);
    Ok(Compiled { ground: Some(ground), tokens, realtime, tables, lifted_rules, lifted_because: None })
}

/// [`compile`] in the lifted form whatever `options.form` says, with the interpreter's load
/// (the static relations and the plan of its queries) within `limits`: what a player builds for
/// a game too large to ground, or whose ground program checks many atoms, on a clock. `known`
/// are the game's [`known_terms`] when it grounded (none when it did not).
pub fn compile_lifted_within(
    source: &str,
    options: &Options,
    limits: &Limits,
    known: &[String],
) -> Result<Compiled, Error> {
    let (description, realtime) = front_end(source, options.ground.case)?;
    lifted(&description, realtime, None, limits, known)
}

/// The terms of a ground program's base facts and moves, in KIF: what the lifted form of its
/// game keeps in its store.
pub fn known_terms(ground: &Ground) -> Vec<String> {
    ground.base.iter().chain(&ground.moves).filter(|text| !text.is_empty()).cloned().collect()
}

/// The lifted form ([`codegen::lifted`]): the interpreter loads the game within `limits` and
/// plans its queries, and each rule it evaluates becomes a generated join. The `known` terms
/// (a ground program's base facts and moves, where grounding got that far) go into the
/// module's store, so that its states and moves are found there rather than made again at
/// every evaluation.
fn lifted(
    description: &Description,
    realtime: bool,
    notes: Option<&Notes>,
    limits: &Limits,
    known: &[String],
) -> Result<Compiled, Error> {
    if realtime {
        return Err(Error::Codegen(codegen::Error::LiftedRealTime));
    }
    let mut interpreter = Interpreter::with_limits(description, limits)?;
    interpreter.intern_terms(known);
    let tokens = codegen::lifted::generate(interpreter, notes);
    Ok(Compiled { ground: None, tokens, realtime: false, tables: false, lifted_rules: false, lifted_because: None })
}

/// The most time the interpreter may take to load a game whose lifted rules are written beside
/// its tables: the tables are the module without them.
const LIFTED_RULES_LOAD: std::time::Duration = std::time::Duration::from_secs(20);

/// The lifted rules of a game in the table form ([`codegen::lifted::companion`]); `None` when
/// the interpreter does not load it within [`LIFTED_RULES_LOAD`].
fn lifted_rules(description: &Description, notes: Option<&Notes>) -> Option<TokenStream> {
    let interpreter = Interpreter::with_limits(description, &Limits::within(LIFTED_RULES_LOAD)).ok()?;
    Some(codegen::lifted::companion(interpreter, notes))
}

/// [`compile`]'s tokens alone: what `gdl!` expands to and `cargo codegen` writes.
pub fn generate(source: &str, options: &Options) -> Result<TokenStream, Error> {
    compile(source, options).map(|compiled| compiled.tokens)
}

/// The ground program of the game in `source`, as [`compile`] generates it from.
pub fn ground_source(source: &str, options: &Options) -> Result<Ground, Error> {
    let (description, realtime) = front_end(source, options.ground.case)?;
    ground_checked(&description, realtime, &options.ground)
}

/// The game in `source` played from its ground program ([`crate::engine`]): the front end
/// and grounding of [`compile`] with `options` (`Default::default()` for compile's defaults),
/// and no code generated. An rtGDL game is refused with [`engine::Error::RealTime`].
pub fn load_engine(source: &str, options: &ground::Options) -> Result<ProgramGame, Error> {
    let (description, realtime) = front_end(source, options.case)?;
    if realtime {
        return Err(Error::Engine(engine::Error::RealTime));
    }
    let ground = ground_checked(&description, false, options)?;
    engine::program_game(&ground).map_err(Error::Engine)
}

/// Reading in `case` and the specification's checks ([`crate::parse`], [`crate::check`]): the
/// checked description, and whether it is an rtGDL game. Errors come back as diagnostics with their
/// spans; warnings are dropped.
fn front_end(source: &str, case: crate::parse::Case) -> Result<(Description, bool), Error> {
    let parsed = check::parse_and_check_in(source, case);
    if parsed.has_errors() {
        return Err(Error::Diagnostics(parsed.diagnostics.into_iter().filter(Diagnostic::is_error).collect()));
    }
    let realtime = realtime::is_realtime(&parsed.description);
    Ok((parsed.description, realtime))
}

/// Grounding of a checked game ([`crate::ground`]): an rtGDL game's lifetimes erased
/// ([`crate::realtime::erase`]) first, then the strategies of [`ground::strategy`], the
/// simplification, and (for a turn-based game) the layout of base facts on the state's bits.
fn ground_checked(description: &Description, realtime: bool, options: &ground::Options) -> Result<Ground, Error> {
    let erased;
    let description = if realtime {
        erased = realtime::erase(description);
        &erased
    } else {
        description
    };
    // An rtGDL fact that its rules only copy still ends when its lifetime does, and its facts
    // also change when they expire, with no move checked.
    let ground_options =
        ground::Options { fold_constant_fluents: !realtime, assume_legal_play: !realtime, ..options.clone() };
    let mut ground = ground::ground(description, &ground_options)?;
    // An rtGDL game's bits pair each fact with its expired-bit and marker in byte order.
    if !realtime {
        ground::layout::lay_out(&mut ground, description);
    }
    Ok(ground)
}
