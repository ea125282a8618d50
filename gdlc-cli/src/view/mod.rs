//! `gdlc view`: a match drawn as one self-contained HTML page. [`model`] reads a record of
//! `gdlc match` (turn-based, GDL-II or real-time) or a match of a reference trace into a
//! [`model::View`], [`board`] finds the boards in its facts, and [`html`] writes the page
//! (inline style and script, no network). A game, when given, supplies its board coordinates
//! and the states of a record written before records kept them.

pub mod board;
pub mod html;
pub mod model;

use gdl_player::manager::Record;
use gdl_player::realtime::manager::RealTimeRecord;
use gdl_runtime::Game;
use gdlc::interp::Interpreter;
use gdlc::parse::Case;
use model::View;
use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong making a view.
#[derive(Debug)]
pub enum Error {
    /// A file could not be read.
    Read { path: PathBuf, error: std::io::Error },
    /// The page could not be written.
    Write { path: PathBuf, error: std::io::Error },
    /// The file is not a record of `gdlc match`.
    NotARecord { path: PathBuf, error: serde_json::Error },
    /// The trace could not be read.
    Trace { path: PathBuf, detail: String },
    /// The trace has no match of that number.
    NoMatch { path: PathBuf, index: usize, count: usize },
    /// The game could not be loaded.
    Game(String),
    /// A move of the record is not a move of the game.
    Replay { step: usize, role: String, text: String },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read { path, error } => write!(f, "{}: error: cannot read: {error}", path.display()),
            Error::Write { path, error } => write!(f, "{}: error: cannot write: {error}", path.display()),
            Error::NotARecord { path, error } => {
                write!(f, "{}: error: not a record of `gdlc match`: {error}", path.display())
            }
            Error::Trace { path, detail } => write!(f, "{}: error: {detail}", path.display()),
            Error::NoMatch { path, index, count } => {
                write!(f, "{}: error: no match {index}: the trace has {count}", path.display())
            }
            Error::Game(message) => f.write_str(message),
            Error::Replay { step, role, text } => {
                write!(f, "error: step {step}: `{text}` is not a move of role {role} in the game")
            }
        }
    }
}

impl std::error::Error for Error {}

/// What a view is made from.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// A record written by `gdlc match --record`.
    Record(&'a Path),
    /// The match numbered `index` (from 0) of a trace in the conformance suite's format.
    Trace { trace: &'a Path, index: usize },
}

/// Reads a file.
fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|error| Error::Read { path: path.to_path_buf(), error })
}

/// The view of `source`; `game`, when given, supplies the board coordinates its layout finds
/// and the states of a record that holds none.
pub fn view(source: Source<'_>, game: Option<(&Path, Case)>) -> Result<View, Error> {
    let loaded = game.map(|(g, case)| gdlc::load::load_valid_in(g, case).map_err(Error::Game)).transpose()?;
    let mut view = match source {
        Source::Record(path) => of_record_file(path, loaded.as_ref())?,
        Source::Trace { trace, index } => {
            let matches = gdl_player::trace::read(&read(trace)?)
                .map_err(|detail| Error::Trace { path: trace.to_path_buf(), detail })?;
            let count = matches.len();
            let m = matches.get(index).ok_or(Error::NoMatch { path: trace.to_path_buf(), index, count })?;
            model::of_trace(m)
        }
    };
    if let Some(loaded) = &loaded {
        let coordinates = gdlc::ground::coordinates::find(&loaded.description, &view.facts);
        view.redraw(&base_facts(loaded), &coordinates);
    }
    Ok(view)
}

/// The facts the game's `base` relation says a state may hold (none when it has no `base`, or
/// it cannot be computed), for the extent of its boards.
fn base_facts(loaded: &gdlc::load::Loaded) -> Vec<String> {
    if !loaded.description.rules.iter().any(|r| r.head.name == "base") {
        return Vec::new();
    }
    let Ok(interpreter) = Interpreter::new(&loaded.description) else { return Vec::new() };
    let rows = interpreter.static_rows("base", 1).unwrap_or_default();
    rows.into_iter().filter_map(|row| row.into_iter().next()).collect()
}

/// The view of a record file, turn-based or real-time.
fn of_record_file(path: &Path, game: Option<&gdlc::load::Loaded>) -> Result<View, Error> {
    let text = read(path)?;
    let not_a_record = |error| Error::NotARecord { path: path.to_path_buf(), error };
    let value: serde_json::Value = serde_json::from_str(&text).map_err(not_a_record)?;
    if value.get("kind").and_then(|k| k.as_str()) == Some("rtgdl") {
        let record: RealTimeRecord = serde_json::from_value(value).map_err(not_a_record)?;
        return Ok(model::of_realtime(&record));
    }
    let mut record: Record = serde_json::from_value(value).map_err(not_a_record)?;
    let stateless = record.final_state.is_empty() || record.steps.iter().any(|s| s.state.is_empty());
    if let (true, Some(loaded)) = (stateless, game) {
        let interpreter =
            Interpreter::new(&loaded.description).map_err(|e| Error::Game(format!("{}: error: {e}", loaded.file)))?;
        fill_states(&interpreter, &mut record)?;
    }
    Ok(model::of_record(&record))
}

/// Plays a record's joint moves through `game`, keeping every state's facts and legal-move
/// counts in the record, as `gdlc match` now records them.
pub fn fill_states<G: Game>(game: &G, record: &mut Record) -> Result<(), Error> {
    let mut state = game.initial_state();
    let mut legal = Vec::new();
    for (i, step) in record.steps.iter_mut().enumerate() {
        step.state = game.state_facts(&state);
        game.all_legal_moves(&state, &mut legal);
        step.legal_counts = legal.iter().map(Vec::len).collect();
        let mut joint = Vec::new();
        for (role, text) in step.joint.iter().enumerate() {
            let mv = game.parse_move(role, text).ok_or_else(|| Error::Replay {
                step: i,
                role: record.roles.get(role).cloned().unwrap_or_default(),
                text: text.clone(),
            })?;
            joint.push(mv);
        }
        state = game.next_state(&state, &joint);
    }
    record.final_state = game.state_facts(&state);
    Ok(())
}

/// `gdlc view`: writes the page of `source` to `output` and says what it drew.
pub fn write_page(source: Source<'_>, game: Option<(&Path, Case)>, output: &Path) -> Result<String, Error> {
    let view = view(source, game)?;
    let page = html::page(&view);
    std::fs::write(output, &page).map_err(|error| Error::Write { path: output.to_path_buf(), error })?;
    let boards: Vec<&str> = view.boards.iter().map(|b| b.name.as_str()).collect();
    let drawn = if boards.is_empty() { "no board (facts listed)".to_string() } else { boards.join(" ") };
    Ok(format!("{}: {} steps, boards: {drawn}, {} bytes", output.display(), view.steps.len(), page.len()))
}
