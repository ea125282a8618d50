//! What `gdlc view` draws, as one value built from any of the three kinds of matches: a
//! `gdlc match --record` file (turn-based, GDL-II included), a real-time (rtGDL) record, or a
//! match of a reference trace. Facts are numbered once for the whole match; each step lists
//! its state's facts by number. The value serializes to the JSON that the page's script reads.

use super::board::{self, Board, Place, Value};
use gdl_player::manager::Record;
use gdl_player::realtime::manager::RealTimeRecord;
use gdl_player::trace;
use gdl_runtime::kif::{self, Sx};
use serde::Serialize;
use std::collections::BTreeMap;

/// The kind of match a view shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A turn-based match recorded by `gdlc match`.
    Match,
    /// A real-time match recorded by `gdlc match`: its steps are events in game time.
    Rtgdl,
    /// A match of a reference trace.
    Trace,
}

/// One state of the match, with what was played in it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Step {
    /// The step's name: its number, or its game time in a real-time match.
    pub label: String,
    /// The game time in seconds, in a real-time match.
    pub time: Option<f64>,
    /// The state's facts, as indices into [`View::facts`].
    pub state: Vec<usize>,
    /// In a real-time match, each fact's remaining lifetime, beside `state`.
    pub lifetimes: Vec<String>,
    /// The joint move: in a turn-based match the one played from this state (none on the
    /// last), in a real-time match the moves made at the event that led to it (`None` for a
    /// role that did not move).
    pub joint: Vec<Option<String>>,
    /// The moves the manager chose for a player, in words.
    pub substitutions: Vec<String>,
    /// How long each role's player took to answer, in milliseconds.
    pub reply_ms: Vec<u64>,
    /// How many legal moves each role had.
    pub legal: Vec<usize>,
    /// In a GDL-II match, what each role perceived on this step.
    pub percepts: Vec<Vec<String>>,
    /// In a real-time match, the facts that expired at the event.
    pub expired: Vec<String>,
}

/// A whole match as the page draws it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct View {
    /// The match id, or the game's name for a trace.
    pub title: String,
    /// The kind of match.
    pub kind: Kind,
    /// The roles, in role order.
    pub roles: Vec<String>,
    /// Every role's player, where known.
    pub players: Vec<Option<String>>,
    /// Every role's goal at the end, where known.
    pub goals: Vec<Option<i64>>,
    /// Whether the states are known (records written before they were kept hold none).
    pub states: bool,
    /// Every fact of the match, once, in byte order.
    pub facts: Vec<String>,
    /// The boards found in the facts.
    pub boards: Vec<Board>,
    /// Where each fact is drawn, beside `facts`.
    pub places: Vec<Option<Place>>,
    /// How each value on a board is drawn.
    pub values: Vec<Value>,
    /// The states of the match, in order.
    pub steps: Vec<Step>,
    /// Lines about the match as a whole (START replies that were not `ready`, rejected
    /// real-time replies).
    pub notes: Vec<String>,
}

/// Numbers the facts of every step, finds the boards, and makes the view.
struct Builder {
    facts: BTreeMap<String, usize>,
    states: Vec<Vec<String>>,
}

impl Builder {
    fn new() -> Builder {
        Builder { facts: BTreeMap::new(), states: Vec::new() }
    }

    /// Adds a step's state; the facts are numbered by [`Builder::finish`].
    fn state(&mut self, facts: Vec<String>) {
        for fact in &facts {
            self.facts.insert(fact.clone(), 0);
        }
        self.states.push(facts);
    }

    /// The view: `steps` beside the states added, their facts numbered in byte order.
    fn finish(mut self, head: View, mut steps: Vec<Step>) -> View {
        for (i, slot) in self.facts.values_mut().enumerate() {
            *slot = i;
        }
        for (step, facts) in steps.iter_mut().zip(&self.states) {
            step.state = facts.iter().filter_map(|f| self.facts.get(f).copied()).collect();
        }
        let facts: Vec<String> = self.facts.into_keys().collect();
        let found = board::find(&facts, &[], &[]);
        View { facts, boards: found.boards, places: found.places, values: found.values, steps, ..head }
    }
}

impl View {
    /// Finds the boards again, reading the facts through a game's `coordinates` and widening
    /// the boards to its base facts (`extent`).
    pub fn redraw(&mut self, extent: &[String], coordinates: &[gdlc::ground::coordinates::Coordinates]) {
        let found = board::find(&self.facts, extent, coordinates);
        (self.boards, self.places, self.values) = (found.boards, found.places, found.values);
    }
}

/// A view's fields that are not its facts and steps.
pub(crate) fn head(title: String, kind: Kind, roles: Vec<String>) -> View {
    View {
        title,
        kind,
        roles,
        players: Vec::new(),
        goals: Vec::new(),
        states: true,
        facts: Vec::new(),
        boards: Vec::new(),
        places: Vec::new(),
        values: Vec::new(),
        steps: Vec::new(),
        notes: Vec::new(),
    }
}

/// The view of a turn-based record.
pub fn of_record(record: &Record) -> View {
    let mut builder = Builder::new();
    let mut steps = Vec::new();
    for (i, s) in record.steps.iter().enumerate() {
        builder.state(s.state.clone());
        steps.push(Step {
            label: i.to_string(),
            joint: s.joint.iter().cloned().map(Some).collect(),
            substitutions: s
                .substitutions
                .iter()
                .map(|x| format!("{}: {} move ({}); played {}", x.role, x.reason, x.detail, x.substitute))
                .collect(),
            reply_ms: s.reply_ms.clone(),
            legal: s.legal_counts.clone(),
            percepts: s.percepts.clone().unwrap_or_default(),
            ..Step::default()
        });
    }
    builder.state(record.final_state.clone());
    steps.push(Step { label: record.steps.len().to_string(), ..Step::default() });
    let mut head = head(record.match_id.clone(), Kind::Match, record.roles.clone());
    head.players = record.players.clone();
    head.goals = record.goals.iter().map(|&g| Some(i64::from(g))).collect();
    head.states = record.steps.iter().all(|s| !s.state.is_empty()) && !record.final_state.is_empty();
    head.notes = start_notes(&record.roles, &record.start_replies);
    builder.finish(head, steps)
}

/// A line for each player that did not answer START with `ready`.
fn start_notes(roles: &[String], replies: &[Option<String>]) -> Vec<String> {
    roles
        .iter()
        .zip(replies)
        .filter_map(|(role, reply)| {
            let reply = reply.as_deref()?;
            (!reply.eq_ignore_ascii_case("ready")).then(|| format!("START: {role} answered `{reply}`"))
        })
        .collect()
}

/// The facts of a real-time state string (`(true 1.5 (cell 1 1 x)) (expired (p))`): each
/// fact with its lifetime.
fn timed_facts(state: &str) -> Vec<(String, String)> {
    let Ok(items) = kif::parse_all(state) else { return Vec::new() };
    let mut facts: Vec<(String, String)> = items
        .into_iter()
        .filter_map(|item| match item {
            Sx::List(parts) if parts.len() == 3 && parts[0] == Sx::Atom("true".into()) => {
                Some((parts[2].to_string(), parts[1].to_string()))
            }
            _ => None,
        })
        .collect();
    facts.sort();
    facts
}

/// The view of a real-time record.
pub fn of_realtime(record: &RealTimeRecord) -> View {
    let mut builder = Builder::new();
    let mut steps = Vec::new();
    let mut add = |state: &str, step: Step| {
        let (facts, lifetimes): (Vec<String>, Vec<String>) = timed_facts(state).into_iter().unzip();
        builder.state(facts);
        steps.push(Step { lifetimes, ..step });
    };
    add(&record.initial_state, Step { label: "0.0".into(), time: Some(0.0), ..Step::default() });
    for event in &record.events {
        let joint =
            record.roles.iter().map(|r| event.moves.iter().find(|m| m.role == *r).map(|m| m.mv.clone())).collect();
        let time = event.time.parse().ok();
        add(
            &event.state,
            Step { label: event.time.clone(), time, joint, expired: event.expired.clone(), ..Step::default() },
        );
    }
    let mut head = head(record.match_id.clone(), Kind::Rtgdl, record.roles.clone());
    head.players = record.players.iter().cloned().map(Some).collect();
    head.goals = record.goals.iter().map(|&g| Some(i64::from(g))).collect();
    let replies: Vec<Option<String>> = record.start_replies.iter().cloned().map(Some).collect();
    head.notes = start_notes(&record.roles, &replies);
    head.notes.extend(record.rejected.iter().map(|r| {
        let reply = r.reply.as_deref().unwrap_or("no reply");
        format!("at {}: {} `{reply}` rejected: {}", r.time, r.role, r.reason)
    }));
    builder.finish(head, steps)
}

/// The view of one match of a reference trace.
pub fn of_trace(m: &trace::Match) -> View {
    let mut builder = Builder::new();
    let mut steps = Vec::new();
    for s in &m.steps {
        builder.state(s.state.clone());
        steps.push(Step {
            label: s.step.to_string(),
            joint: s.joint.iter().flatten().cloned().map(Some).collect(),
            legal: s.legal.iter().map(Vec::len).collect(),
            ..Step::default()
        });
    }
    let mut head = head(m.header.game.clone(), Kind::Trace, m.header.roles.clone());
    head.goals = m.steps.last().and_then(|s| s.goals.clone()).unwrap_or_default();
    builder.finish(head, steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short ticTacToe record with a substitution, as `gdlc match --record` writes it.
    const RECORD: &str = r#"{"match_id": "m1", "roles": ["xplayer", "oplayer"], "players": ["http://a/", "http://b/"],
        "start_clock": 1.0, "play_clock": 1.0, "start_replies": ["ready", "busy"],
        "steps": [
          {"state": ["(cell 1 1 b)", "(cell 1 2 b)", "(control xplayer)"], "legal_counts": [2, 1],
           "joint": ["(mark 1 1)", "noop"], "reply_ms": [12, 3],
           "substitutions": [{"role": "xplayer", "reason": "late", "detail": "no reply in time", "reply": null,
                              "substitute": "(mark 1 1)"}]},
          {"state": ["(cell 1 1 x)", "(cell 1 2 b)", "(control oplayer)"], "legal_counts": [1, 1],
           "joint": ["noop", "(mark 1 2)"], "reply_ms": [1, 2], "substitutions": []}],
        "final_state": ["(cell 1 1 x)", "(cell 1 2 o)", "(control xplayer)"], "goals": [50, 50]}"#;

    #[test]
    fn a_record_becomes_the_pages_data() {
        let record: Record = serde_json::from_str(RECORD).unwrap();
        let view = of_record(&record);
        insta::assert_snapshot!(serde_json::to_string_pretty(&view).unwrap());
    }

    #[test]
    fn an_old_record_without_states_still_reads() {
        let old = r#"{"match_id": "m0", "roles": ["a"], "players": ["http://a/"], "start_clock": 1.0,
            "play_clock": 1.0, "start_replies": ["ready"], "goals": [100],
            "steps": [{"joint": ["go"], "substitutions": [], "reply_ms": [5]}]}"#;
        let view = of_record(&serde_json::from_str(old).unwrap());
        assert!(!view.states);
        assert_eq!(view.steps.len(), 2);
        assert_eq!(view.steps[0].joint, vec![Some("go".to_string())]);
    }

    #[test]
    fn real_time_states_keep_their_lifetimes() {
        let facts = timed_facts("(true infinity (cell 1 1 x)) (true 1.5 (lit)) (expired (old))");
        assert_eq!(facts, vec![("(cell 1 1 x)".into(), "infinity".into()), ("(lit)".into(), "1.5".into())]);
    }
}
