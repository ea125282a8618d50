//! `gdlc analyze GAME`: the game loaded through an engine of this process (the ground program,
//! or the interpreter), its `input` and `base` declarations read by the interpreter, and
//! [`gdl_runtime::analysis::analyze`] run over it; the report printed as text or JSON, and
//! each witness written as a trace that `gdlc replay` plays.

use gdl_player::trace;
use gdl_runtime::analysis::{self, Declared, Entry, Proof, Refutation, Report, Undecided, Verdict, Witness};
use gdl_runtime::Game;
use gdlc::interp::{Interpreter, Limits};
use gdlc::load::{load_valid_in, Loaded};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The engine that `gdlc analyze` searches through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The ground program, or the interpreter (with a note) for a game too large to ground.
    Program,
    /// The reference interpreter.
    Interpreter,
}

/// The command line's settings.
pub struct Settings {
    /// The analysis's limits.
    pub options: analysis::Options,
    /// The engine.
    pub engine: Engine,
    /// Grounding's limits.
    pub ground: gdlc::ground::Options,
    /// Print JSON instead of text.
    pub json: bool,
    /// The directory to write every witness into, as a trace.
    pub witnesses: Option<PathBuf>,
}

/// The most facts one evaluation may derive while `input` and `base` are read.
const MAX_FACTS: usize = 4_000_000;

/// `gdlc analyze`: prints the report of `game`.
pub fn analyze(game: &Path, settings: &Settings) -> Result<(), String> {
    let loaded = load_valid_in(game, settings.ground.case)?;
    if gdlc::realtime::is_realtime(&loaded.description) {
        return Err(format!("{}: error: gdlc analyze does not take real-time (rtGDL) games", loaded.file));
    }
    let start = Instant::now();
    let limits = Limits::within(settings.options.budget).with_max_facts(MAX_FACTS);
    let interpreter = Interpreter::with_limits(&loaded.description, &limits)
        .map_err(|e| format!("{}: error: the interpreter cannot load the game: {e}", loaded.file));
    let declared = match &interpreter {
        Ok(interpreter) => declared(&loaded, interpreter),
        Err(message) => {
            eprintln!("{message}; input and base are not checked");
            Declared::default()
        }
    };
    let text = match settings.engine {
        Engine::Interpreter => run(&interpreter?, "interpreter", &loaded, &declared, settings, start)?,
        Engine::Program => match gdlc::compile::load_engine(&loaded.source, &settings.ground) {
            Ok(program) => run(&program, "ground program", &loaded, &declared, settings, start)?,
            Err(error) if error.is_too_large_to_ground() => {
                eprintln!("{}: note: too large to ground ({error}); analyzing through the interpreter", loaded.file);
                run(&interpreter?, "interpreter", &loaded, &declared, settings, start)?
            }
            Err(error) => return Err(format!("{}: error: {error}", loaded.file)),
        },
    };
    print!("{text}");
    Ok(())
}

/// The report of `game` through `engine`, as text or JSON, its witnesses written when asked.
fn run<G: Game>(
    game: &G,
    engine: &str,
    loaded: &Loaded,
    declared: &Declared,
    settings: &Settings,
    start: Instant,
) -> Result<String, String> {
    let load_seconds = start.elapsed().as_secs_f64();
    let report = analysis::analyze(game, declared, &settings.options);
    let mut files = Vec::new();
    if let Some(dir) = &settings.witnesses {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: error: cannot create: {e}", dir.display()))?;
        for (entry, witness) in report.witnesses() {
            let path = dir.join(format!("{}.jsonl", file_stem(&report, entry)));
            let trace = witness_trace(game, &loaded.file, witness)?;
            std::fs::write(&path, trace).map_err(|e| format!("{}: error: cannot write: {e}", path.display()))?;
            files.push(path);
        }
    }
    if settings.json {
        let value = report_json(&report, &loaded.file, engine, load_seconds);
        return Ok(format!("{value:#}\n"));
    }
    let mut text = format!("game: {}\nengine: {engine} (loaded in {load_seconds:.2} s)\n{report}", loaded.file);
    for file in files {
        text.push_str(&format!("witness written: {}\n", file.display()));
    }
    Ok(text)
}

/// The declarations of `input` and `base`, when the game makes them (and they do not depend
/// on the state).
fn declared(loaded: &Loaded, interpreter: &Interpreter) -> Declared {
    let defines = |name: &str| loaded.description.rules.iter().any(|r| r.head.name.eq_ignore_ascii_case(name));
    let roles: Vec<&str> = (0..interpreter.num_roles()).map(|r| interpreter.role_name(r)).collect();
    let input = defines("input").then(|| interpreter.static_rows("input", 2)).flatten().map(|rows| {
        let mut per_role = vec![BTreeSet::new(); roles.len()];
        for row in rows {
            if let (Some(role), Some(mv)) = (roles.iter().position(|r| *r == row[0]), row.get(1)) {
                per_role[role].insert(mv.clone());
            }
        }
        per_role
    });
    let base = defines("base")
        .then(|| interpreter.static_rows("base", 1))
        .flatten()
        .map(|rows| rows.into_iter().filter_map(|row| row.into_iter().next()).collect());
    Declared { input, base }
}

/// The name of the witness file of `entry`: the property, then the role.
fn file_stem(report: &Report, entry: &Entry) -> String {
    let property = entry.property.name().replace(' ', "-");
    match entry.role {
        Some(role) => format!("{property}-{}", report.roles[role]),
        None => property,
    }
}

/// The trace of a witness: every state of its line, as `gdlc replay` prints one.
pub fn witness_trace<G: Game>(game: &G, file: &str, witness: &Witness) -> Result<String, String> {
    let roles = (0..game.num_roles()).map(|r| game.role_name(r).to_string()).collect();
    let name = Path::new(file).file_stem().map_or(file.into(), |s| s.to_string_lossy().into_owned());
    let header = trace::Header { game: name, roles };
    let step = |n: usize, joint: Option<Vec<String>>| trace::Step {
        step: n,
        state: Vec::new(),
        terminal: false,
        legal: Vec::new(),
        goals: None,
        joint,
    };
    let mut steps: Vec<trace::Step> =
        witness.joints.iter().enumerate().map(|(n, j)| step(n, Some(j.clone()))).collect();
    steps.push(step(steps.len(), None));
    let replayed = trace::replay(game, &trace::Match { header, steps })?;
    Ok(trace::write(&replayed))
}

/// The report as JSON.
pub fn report_json(report: &Report, file: &str, engine: &str, load_seconds: f64) -> Value {
    let s = &report.searched;
    let stop = match s.stop {
        analysis::Stop::Complete => "complete",
        analysis::Stop::MaxStates => "max-states",
        analysis::Stop::Time => "time",
        analysis::Stop::Wide => "wide",
    };
    let properties: Vec<Value> = report.entries.iter().map(|e| entry_json(report, e)).collect();
    json!({
        "game": file,
        "engine": engine,
        "load_seconds": load_seconds,
        "roles": report.roles,
        "searched": {
            "states": s.states, "expanded": s.expanded, "terminal": s.terminal, "depth": s.depth,
            "stop": stop, "playouts": s.playouts, "playout_steps": s.playout_steps,
            "walk_seconds": s.walk_seconds, "seconds": s.seconds, "threads": s.threads,
        },
        "properties": properties,
    })
}

fn entry_json(report: &Report, entry: &Entry) -> Value {
    let role = entry.role.map(|r| report.roles[r].clone());
    let (verdict, evidence, witness) = match &entry.verdict {
        Verdict::Proved(Proof::Exhaustive) => ("proved", "exhaustive".to_string(), None),
        Verdict::Proved(Proof::Line(w)) => ("proved", report.describe(&w.shows), Some(w)),
        Verdict::Refuted(Refutation::Line(w)) => ("refuted", report.describe(&w.shows), Some(w)),
        Verdict::Refuted(Refutation::Exhaustive) => ("refuted", "exhaustive".to_string(), None),
        Verdict::Refuted(Refutation::Because(parts)) => {
            let names: Vec<String> = parts
                .iter()
                .map(|&(p, r)| r.map_or(p.name().to_string(), |r| format!("{} of {}", p.name(), report.roles[r])))
                .collect();
            ("refuted", names.join(", "), None)
        }
        Verdict::Unknown(Undecided::Searched) => ("unknown", "searched".to_string(), None),
        Verdict::Unknown(Undecided::GoalValuesHidden) => ("unknown", "goal values hidden".to_string(), None),
        Verdict::Unknown(Undecided::ImperfectInformation) => ("unknown", "imperfect information".to_string(), None),
        Verdict::NotDeclared => ("not declared", String::new(), None),
    };
    json!({
        "property": entry.property.name(),
        "role": role,
        "verdict": verdict,
        "evidence": evidence,
        "witness": witness.map(|w| &w.joints),
    })
}

/// The options of an analysis of `seconds` on `threads` threads, or why they are refused.
pub fn options(max_states: usize, seconds: f64, threads: usize) -> Result<analysis::Options, String> {
    let budget = Duration::try_from_secs_f64(seconds)
        .map_err(|_| format!("error: --seconds {seconds} is not a number of seconds"))?;
    if threads == 0 {
        return Err("error: --threads must be at least 1".to_string());
    }
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr()) || budget >= Duration::from_secs(10);
    Ok(analysis::Options { max_states, budget, threads, progress, seed: 1 })
}
