//! `gdlc serve`: a GGP player that plays any game at compiled speed from START. A game met in
//! START is grounded and played at once through the program engine ([`engine`]), or through
//! the interpreter when it cannot be grounded in time; meanwhile its native code is built in
//! the background and the match moves to it when it is ready ([`backend`], [`hybrid`]). Games
//! given on the command line, and games built before (found in the cache by their shape, up to
//! renaming), are native from their first move.

mod backend;
mod bounded;
mod engine;
mod hybrid;
mod memory;

use crate::compiled::compiled_binary;
use crate::play::{description_of, InterpreterFactory};
use backend::Natives;
use engine::{local_session, program_session, Budget, Engines, LocalEngine};
use gdl_player::player::Kind;
use gdl_player::protocol::Message;
use gdl_player::rename::Shape;
use gdl_player::server::{think_time, Config, Server};
use gdl_player::session::{GameFactory, MatchSession, Start};
use gdlc::load::{load_valid_in, rules_of};
use hybrid::{HybridSession, Upgrade};
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// What `gdlc serve` is asked to do.
pub struct Options {
    /// Games to build before serving.
    pub games: Vec<PathBuf>,
    /// The address to listen on.
    pub host: String,
    /// The port to listen on (0 picks one).
    pub port: u16,
    /// How moves are chosen.
    pub player: Kind,
    /// Whether games met in START get native code built in the background.
    pub native: bool,
    /// The most facts one evaluation of the interpreter may derive.
    pub max_facts: usize,
    /// The most facts and rule instances grounding may derive before it gives up (the game is
    /// then compiled in the lifted form).
    pub max_instances: usize,
}

/// Serves the player protocol until killed, after printing the address it listens on.
pub fn serve(options: &Options) -> Result<(), String> {
    memory::fix_thresholds();
    let natives = Natives::new(options.player, options.native);
    let compile = compile_options(options.max_instances);
    let engines = Arc::new(Engines::new(compile.clone()));
    for game in &options.games {
        prebuild(game, &compile, &natives, &engines)?;
    }
    if options.native {
        natives.warm_up();
    }
    let config = Config { name: format!("gdlc-{}", options.player.name()), ..Config::default() };
    let server = Server::bind(&format!("{}:{}", options.host, options.port), config)?;
    let address = server.local_addr()?;
    println!("gdlc: {} player listening on http://{address}/", options.player.name());
    std::io::stdout().flush().map_err(|e| format!("error: cannot write to stdout: {e}"))?;
    let realtime = InterpreterFactory { player: options.player };
    let max_facts = options.max_facts;
    server.serve(&ServeFactory { natives, engines, player: options.player, realtime, max_facts })
}

/// How the player reads games: names that differ in letter case kept apart, keywords in any
/// case, as ggp-base (whose `GameServer` runs most matches) reads them, and as agrees with a
/// manager that upper-cases every message. Under the specification's reading a game that
/// spells one name two ways (alexChess) has moves that such a server calls illegal.
pub(crate) const READING: gdlc::parse::Case = gdlc::parse::Case::Sensitive;

/// The compile options of the player's games: the defaults, read as [`READING`] says, with
/// grounding giving up past `max_instances`.
pub(crate) fn compile_options(max_instances: usize) -> gdlc::codegen::Options {
    let ground = gdlc::ground::Options { case: READING, max_instances, ..Default::default() };
    gdlc::codegen::Options { ground, ..Default::default() }
}

/// Builds a game given on the command line and starts its backend (a game past the grounding
/// limit is built in the lifted form, with a note), and keeps its program engine.
fn prebuild(
    game: &std::path::Path,
    compile: &gdlc::codegen::Options,
    natives: &Natives,
    engines: &Engines,
) -> Result<(), String> {
    let loaded = load_valid_in(game, READING)?;
    if gdlc::realtime::is_realtime(&loaded.description) {
        return Err(format!(
            "{}: error: rtGDL games are played through the interpreter, which plays any game sent in START; \
             leave the game off the command line",
            loaded.file
        ));
    }
    let rules = rules_of(&loaded)?;
    let key = Shape::of(&rules).key();
    let binary = compiled_binary(game, compile, crate::native::Optimize::default(), true)?;
    natives.add_built(key, binary)?;
    let text: String = rules.iter().map(|r| format!("{r}\n")).collect();
    if let Ok(ground) = gdlc::compile::ground_source(&text, compile) {
        if let Ok(program) = gdlc::engine::program_game(&ground) {
            engines.keep_game(key, rules, program);
        }
    }
    Ok(())
}

/// The factory of `gdlc serve`'s matches.
struct ServeFactory {
    natives: Arc<Natives>,
    engines: Arc<Engines>,
    player: Kind,
    /// The factory of real-time matches.
    realtime: InterpreterFactory,
    /// The most facts one evaluation of the interpreter may derive.
    max_facts: usize,
}

impl GameFactory for ServeFactory {
    fn start<'s>(&'s self, start: &Start) -> Result<Box<dyn MatchSession + 's>, String> {
        let received = Instant::now();
        let description = description_of(start.rules)?;
        if gdlc::realtime::is_realtime(&description) {
            // A real-time match is polled by its manager; the interpreter plays it.
            return self.realtime.start(start);
        }
        let key = Shape::of(start.rules).key();
        // Grounding may take most of the start clock, and loading the interpreter what is left
        // of the thinking time; the rest is kept for the reply.
        let think = think_time(start.start_clock);
        let wait = (think * 4 / 5).saturating_sub(received.elapsed());
        let budget = Budget { wait, deadline: received + think, max_facts: self.max_facts };
        let local = local_session(&self.engines, &self.natives, key, start, &description, self.player, &budget)?;
        let message = Message::Start {
            id: start.id.to_string(),
            role: start.role.clone(),
            rules: start.rules.to_vec(),
            start_clock: start.start_clock,
            play_clock: start.play_clock,
        };
        let upgrade = (local.engine != LocalEngine::Program).then(|| {
            let (engines, player) = (Arc::clone(&self.engines), self.player);
            Box::new(move |start: &Start| program_session(&engines, key, start, player)) as Upgrade
        });
        let session = HybridSession::new(
            (local.session, upgrade),
            (local.engine, local.made),
            Arc::clone(&self.natives),
            key,
            message,
        );
        Ok(Box::new(session))
    }
}
