//! The local engines of `gdlc serve`: a game met in START is grounded (within the start
//! clock, on a thread of its own) and played through the program engine, which evaluates its
//! ground program as data; a game that is not grounded in time, or cannot be, is played
//! through the interpreter, within the start clock and a cap on facts ([`super::bounded`]).
//! A game too large to ground is handed to the native builder in the lifted form.
//! A grounded game whose program proves atoms at run time (chess's threats) may be faster
//! through the interpreter: the two race on random playouts, and the faster plays. A grounded
//! game is kept, by its shape and with the race's winner, for later matches of it under any
//! renaming, and handed to the native builder: its ground module, or the lifted form when the
//! interpreter won (the ground module would be the program engine's tables, built) or
//! `--form auto` would choose it ([`gdlc::compile::prefers_lifted`]).

use super::backend::{Job, Natives};
use super::bounded::{interpreter_session, Unplayable};
use gdl_player::log;
use gdl_player::player::Kind;
use gdl_player::rename::Spelling;
use gdl_player::session::{new_session, MatchSession, Start};
use gdl_runtime::engine::ProgramGame;
use gdl_runtime::kif::Sx;
use gdlc::ast::Description;
use gdlc::engine::Race;
use gdlc::interp::{Bounded, Interpreter, Limits};
use std::collections::HashSet;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The most games whose program engine is kept.
const KEPT_GAMES: usize = 16;

/// A game grounded: its rules (in the spelling of the START that brought it) and its engine.
struct Grounded {
    key: u64,
    rules: Vec<Sx>,
    game: Arc<ProgramGame>,
    /// The interpreter's rate and the program engine's, when the interpreter won their race.
    interpreter_won: Option<Race>,
}

/// A grounded game found for a match: its engine in the match's spelling, and the race the
/// interpreter won, if it did.
type Found = (Arc<ProgramGame>, Spelling, Option<Race>);

/// The most games grounded at once: each may take seconds and much memory, so a burst of
/// STARTs of new games is played through the interpreter rather than grounded all at once.
const MAX_GROUNDINGS: usize = 2;

/// The program engines of the games met so far, the most recent last, and the games being
/// grounded or that could not be.
pub(super) struct Engines {
    games: Mutex<Vec<Grounded>>,
    work: Mutex<Work>,
    grounded: Condvar,
    /// How games are grounded and compiled.
    options: gdlc::codegen::Options,
}

/// The games being grounded, and those grounding refused.
#[derive(Default)]
struct Work {
    grounding: HashSet<u64>,
    refused: HashSet<u64>,
}

/// What a START does about grounding its game.
enum Plan {
    /// Ground it now.
    Ground,
    /// Wait for the grounding under way.
    Wait,
    /// Play through the interpreter.
    Interpret,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Engines {
    /// The engines of a server that grounds and compiles games with `options`.
    pub(super) fn new(options: gdlc::codegen::Options) -> Engines {
        Engines { games: Mutex::default(), work: Mutex::default(), grounded: Condvar::new(), options }
    }

    /// The program engine of the game of `key` whose rules are `rules` up to renaming, with the
    /// spelling of `rules`.
    fn find(&self, key: u64, rules: &[Sx]) -> Option<Found> {
        let games = lock(&self.games);
        games.iter().rev().filter(|g| g.key == key).find_map(|g| {
            let spelling = Spelling::recognize(&g.rules, rules)?;
            Some((Arc::clone(&g.game), spelling, g.interpreter_won))
        })
    }

    /// Decides what a START of the game of `key` does about grounding it.
    fn plan(&self, key: u64) -> Plan {
        let mut work = lock(&self.work);
        if work.refused.contains(&key) {
            Plan::Interpret
        } else if work.grounding.contains(&key) {
            Plan::Wait
        } else if work.grounding.len() >= MAX_GROUNDINGS {
            Plan::Interpret
        } else {
            work.grounding.insert(key);
            Plan::Ground
        }
    }

    /// Notes that grounding the game of `key` ended, refused or not.
    fn ended(&self, key: u64, refused: bool) {
        let mut work = lock(&self.work);
        work.grounding.remove(&key);
        if refused {
            work.refused.insert(key);
        }
        self.grounded.notify_all();
    }

    /// Whether the game of `key` is being grounded.
    fn grounding(&self, key: u64) -> bool {
        lock(&self.work).grounding.contains(&key)
    }

    /// Waits `wait` at most for the grounding of the game of `key` under way to end.
    fn wait_for(&self, key: u64, wait: Duration) {
        let until = Instant::now() + wait;
        let mut work = lock(&self.work);
        while work.grounding.contains(&key) {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            work = match self.grounded.wait_timeout(work, left) {
                Ok((work, _)) => work,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// Keeps the engine of a game grounded beforehand (one given on the command line).
    pub(super) fn keep_game(&self, key: u64, rules: Vec<Sx>, game: ProgramGame) {
        self.keep(Grounded { key, rules, game: Arc::new(game), interpreter_won: None });
    }

    fn keep(&self, grounded: Grounded) {
        let mut games = lock(&self.games);
        games.retain(|g| g.key != grounded.key);
        if games.len() >= KEPT_GAMES {
            games.remove(0);
        }
        games.push(grounded);
    }
}

/// The engine that plays a match locally.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LocalEngine {
    /// The ground program evaluated as data.
    Program,
    /// The reference interpreter, within limits.
    Interpreter,
    /// None yet: the game is being grounded, and its pending session has no move to give.
    NoneYet,
}

impl LocalEngine {
    /// What the log calls it.
    pub(super) fn name(self) -> &'static str {
        match self {
            LocalEngine::Program => "program engine",
            LocalEngine::Interpreter => "interpreter",
            LocalEngine::NoneYet => "no engine yet",
        }
    }
}

/// What plays a match locally, with which engine, and how it was made.
pub(super) struct Local {
    pub(super) session: Box<dyn MatchSession>,
    pub(super) engine: LocalEngine,
    pub(super) made: String,
}

/// What START may spend on a game it has to prepare: `wait` for grounding, and until
/// `deadline` with at most `max_facts` facts per evaluation for loading the interpreter.
pub(super) struct Budget {
    pub(super) wait: Duration,
    pub(super) deadline: Instant,
    pub(super) max_facts: usize,
}

/// The local session of a match: the program engine of its game (grounded now, within the
/// budget's wait, if it was not before), or else the interpreter of `description`, within the
/// budget's deadline and cap on facts.
pub(super) fn local_session(
    engines: &Arc<Engines>,
    natives: &Arc<Natives>,
    key: u64,
    start: &Start,
    description: &Description,
    player: Kind,
    budget: &Budget,
) -> Result<Local, String> {
    let wait = budget.wait;
    let grounded = match engines.find(key, start.rules) {
        Some(found) => Some((found, "grounded before this match".to_string())),
        None => match engines.plan(key) {
            Plan::Ground => ground_within(engines, natives, key, (start.rules, description), budget),
            Plan::Wait => {
                engines.wait_for(key, wait);
                engines.find(key, start.rules).map(|found| (found, "grounded for another match".to_string()))
            }
            Plan::Interpret => None,
        },
    };
    let mut made = String::new();
    match grounded {
        Some(((game, spelling, None), how)) => {
            let session = new_session(game, start, spelling, player)?;
            return Ok(Local { session, engine: LocalEngine::Program, made: how });
        }
        Some(((_, _, Some(race)), how)) => made = format!("{how}; {}", won(&race)),
        None => {}
    }
    match interpreter_session(description, start, player, budget.deadline, budget.max_facts) {
        Ok(session) => Ok(Local { session, engine: LocalEngine::Interpreter, made }),
        // Grounding goes on: the match is taken, and played once the game is grounded.
        Err(Unplayable::NotReady(e)) if engines.grounding(key) => {
            log::info(format_args!(
                "match {}: no engine within START ({e}); it plays once the game is grounded",
                start.id
            ));
            let session = Box::new(Pending { reason: e });
            Ok(Local { session, engine: LocalEngine::NoneYet, made })
        }
        Err(e) => Err(e.to_string()),
    }
}

/// The session of a match whose game neither grounding nor the interpreter could prepare
/// within START, while its grounding goes on: it has no move to give (the manager plays one
/// for it), and the match moves to the program engine once the game is grounded
/// ([`program_session`], called by the match's [`super::hybrid::HybridSession`]).
struct Pending {
    reason: String,
}

impl MatchSession for Pending {
    fn play(&mut self, _moves: Option<&[Sx]>, _deadline: Instant) -> Result<String, String> {
        Err(format!("no move yet, the game is being grounded: {}", self.reason))
    }

    fn stop(&mut self, _moves: Option<&[Sx]>) -> Result<(), String> {
        Ok(())
    }
}

/// The program engine's session of a match that the interpreter has played so far, once the
/// game of `key` is grounded and its program engine did not lose the race to the interpreter;
/// `None` until then, or for a GDL-II game (whose belief the interpreter keeps).
pub(super) fn program_session(
    engines: &Engines,
    key: u64,
    start: &Start,
    player: Kind,
) -> Option<Result<Box<dyn MatchSession>, String>> {
    let (game, spelling, race) = engines.find(key, start.rules)?;
    if race.is_some() || gdl_runtime::Game::is_gdl_ii(&*game) {
        return None;
    }
    Some(new_session(game, start, spelling, player))
}

/// What the log says of a race the interpreter won.
fn won(race: &Race) -> String {
    format!(
        "the interpreter raced faster ({:.0} state changes/s against the program engine's {:.0})",
        race.interpreter, race.program
    )
}

/// Grounds a game on a thread of its own and waits for it the budget's `wait` at most; when
/// its program is worth racing against the interpreter ([`gdlc::engine::worth_racing`]) and the
/// wait leaves time, the two race there too. Grounding that ends later still keeps the engine
/// for the next match and gives the game to the native builder.
fn ground_within(
    engines: &Arc<Engines>,
    natives: &Arc<Natives>,
    key: u64,
    (rules, description): (&[Sx], &Description),
    budget: &Budget,
) -> Option<(Found, String)> {
    let (sender, receiver) = mpsc::channel();
    let owner = Arc::clone(engines);
    let (engines, natives, rules) = (Arc::clone(engines), Arc::clone(natives), rules.to_vec());
    let (description, wait, max_facts) = (description.clone(), budget.wait, budget.max_facts);
    let until = Instant::now() + wait;
    let spawned = std::thread::Builder::new().name("grounding".to_string()).spawn(move || {
        let started = Instant::now();
        let text: String = rules.iter().map(|r| format!("{r}\n")).collect();
        let made = gdlc::compile::ground_source(&text, &engines.options).and_then(|ground| {
            let game = gdlc::engine::program_game(&ground).map_err(gdlc::Error::Engine)?;
            Ok((ground, game))
        });
        let (ground, game) = match made {
            Ok((ground, game)) => (ground, Arc::new(game)),
            Err(e) => {
                engines.ended(key, true);
                super::memory::trim_soon();
                log::info(format_args!("game {key:016x}: played by the interpreter: {e}"));
                if e.is_too_large_to_ground() {
                    want_lifted(&natives, key, text, Vec::new(), engines.options.clone());
                }
                return;
            }
        };
        let seconds = started.elapsed().as_secs_f64();
        log::info(format_args!("game {key:016x}: grounded in {seconds:.3} s"));
        let interpreter_won = race_within(&game, &description, until, max_facts).filter(Race::interpreter_wins);
        if let Some(race) = &interpreter_won {
            log::info(format_args!("game {key:016x}: {}: the interpreter plays it", won(race)));
        }
        engines.keep(Grounded { key, rules: rules.clone(), game: Arc::clone(&game), interpreter_won });
        engines.ended(key, false);
        let _ = sender.send((game, Spelling::of_rules(&rules), interpreter_won, started.elapsed()));
        if interpreter_won.is_some() || gdlc::compile::prefers_lifted(&ground) {
            // Native code that evaluates the rules as the interpreter does, compiled, rather
            // than the program engine's tables that lost the race or check many atoms; its
            // store keeps the terms of the ground program's states and moves.
            let known = gdlc::compile::known_terms(&ground);
            drop(ground);
            return want_lifted(&natives, key, text, known, engines.options.clone());
        }
        let options = engines.options.clone();
        let module = Box::new(move || module_of(&description, ground, &options));
        natives.want(key, || Some(Job { key, stem: "game".to_string(), module, rules: text }));
    });
    if let Err(e) = spawned {
        log::error(format_args!("cannot start grounding: {e}"));
        owner.ended(key, false);
        return None;
    }
    match receiver.recv_timeout(wait) {
        Ok((game, spelling, race, took)) => {
            Some(((game, spelling, race), format!("grounded in {:.3} s", took.as_secs_f64())))
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            log::info(format_args!(
                "game {key:016x}: not grounded within {:.1} s; the interpreter plays meanwhile",
                wait.as_secs_f64()
            ));
            None
        }
        // Grounding failed, and said why.
        Err(mpsc::RecvTimeoutError::Disconnected) => None,
    }
}

/// The longest each engine runs in a race.
const RACE_TIME: Duration = Duration::from_millis(1500);

/// The least time each engine runs in a race that a START waits for.
const MIN_RACE_TIME: Duration = Duration::from_millis(200);

/// Races `game`'s program engine and the interpreter of `description` when the program is
/// worth racing, each for a third of the time left until `until` (at most [`RACE_TIME`]), so
/// that the START waiting for it gets the winner. With less time left, grounding ended too late
/// for that START, which plays through the interpreter meanwhile: the race then takes
/// [`RACE_TIME`] each, and decides for the native code and later matches. `None` when the
/// program is not worth racing or the interpreter cannot load the game.
fn race_within(game: &ProgramGame, description: &Description, until: Instant, max_facts: usize) -> Option<Race> {
    if !gdlc::engine::worth_racing(game) {
        return None;
    }
    let each = match until.saturating_duration_since(Instant::now()) / 3 {
        share if share >= MIN_RACE_TIME => share.min(RACE_TIME),
        _ => RACE_TIME,
    };
    let limits = Limits { deadline: Some(Instant::now() + each), max_facts: Some(max_facts) };
    let interpreter = Interpreter::with_limits(description, &limits).ok()?;
    let bounded = Bounded::new(interpreter, each, max_facts);
    Some(gdlc::engine::race(game, &bounded, each))
}

/// The text of a grounded game's native module, for the builder: what `gdlc compile` writes,
/// the lifted rules beside its tables included, so that the faster of the two plays.
fn module_of(
    description: &Description,
    ground: gdlc::ground::Ground,
    options: &gdlc::codegen::Options,
) -> Result<String, String> {
    let compiled = gdlc::compile::compile_grounded(description, ground, options).map_err(|e| e.to_string())?;
    gdlc::codegen::render_file(&compiled.tokens, "gdlc serve")
}

/// The longest the builder's interpreter may take to load a game for its lifted module.
const LIFTED_LOAD_TIME: Duration = Duration::from_secs(120);

/// Hands the native builder a game too large to ground (its rules in `text`), or whose tables
/// it should not play: its module is the lifted form ([`gdlc::codegen::lifted`]), written by
/// the builder, whose interpreter loads the game within [`LIFTED_LOAD_TIME`], so that games
/// wait for one another rather than load all at once. `known` are the terms of its ground
/// program's states and moves, if it has one ([`gdlc::compile::known_terms`]).
fn want_lifted(natives: &Natives, key: u64, text: String, known: Vec<String>, options: gdlc::codegen::Options) {
    let source = text.clone();
    let module = Box::new(move || {
        let limits = Limits { deadline: Some(Instant::now() + LIFTED_LOAD_TIME), max_facts: None };
        let compiled =
            gdlc::compile::compile_lifted_within(&source, &options, &limits, &known).map_err(|e| e.to_string())?;
        gdlc::codegen::render_file(&compiled.tokens, "gdlc serve")
    });
    natives.want(key, || Some(Job { key, stem: "game".to_string(), module, rules: text }));
}
