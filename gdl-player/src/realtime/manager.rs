//! The real-time game manager: runs one match of an rtGDL game on the wall clock. After START,
//! game time runs from zero; every play clock (the tick) the manager lets the game's clock run
//! to the present (expiries fire at the exact time they are due), then polls every player at
//! once with a real-time PLAY ([`super::session`]). A move takes effect at the game time the
//! manager receives it; one that is not legal then (or arrives after the end) is rejected and
//! recorded. The match ends at a terminal state, or when nothing can happen any more (no role
//! has a legal move and no lifetime is finite). The record lists every event with its game
//! time, moves, expired facts and resulting state, every rejected reply, and the final goals.

use super::session::{report, TimedMove, NO_MOVE};
use crate::manager::{broadcast, Options, NETWORK_GRACE};
use crate::protocol::Message;
use crate::rename::Spelling;
use gdl_runtime::kif::{self, Sx};
use gdl_runtime::realtime::{RealTimeGame, Simulation, Time};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// A move of a recorded event.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RecordedMove {
    /// The role that moved.
    pub role: String,
    /// Its move, in the game's canonical KIF (`move` in JSON).
    #[serde(rename = "move")]
    pub mv: String,
}

/// One event of a real-time match; `time` is game time in seconds, printed exactly.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RecordedEvent {
    /// The game time of the event.
    pub time: String,
    /// The moves made at the event, in role order; empty for an event of expiries alone.
    pub moves: Vec<RecordedMove>,
    /// The facts that expired at the event, sorted.
    pub expired: Vec<String>,
    /// The state the event produced, as [`gdl_runtime::realtime::state_string`] prints it.
    pub state: String,
}

/// A reply that did not become a move.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Rejected {
    /// The game time at which the reply arrived, in seconds, printed exactly.
    pub time: String,
    /// The role whose player replied.
    pub role: String,
    /// The reply, when one arrived.
    pub reply: Option<String>,
    /// Why it did not become a move, in words.
    pub reason: String,
}

/// A played real-time match.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RealTimeRecord {
    /// The match id.
    pub match_id: String,
    /// Always `rtgdl`, to tell this record from a turn-based one.
    pub kind: String,
    /// The game's roles, in role order.
    pub roles: Vec<String>,
    /// Every role's player URL, in role order.
    pub players: Vec<String>,
    /// The start clock, in seconds.
    pub start_clock: f64,
    /// The poll interval, in seconds.
    pub play_clock: f64,
    /// Each player's reply to START (`ready`), or what went wrong, in role order.
    pub start_replies: Vec<String>,
    /// The initial state, as [`gdl_runtime::realtime::state_string`] prints it.
    pub initial_state: String,
    /// Every event of the match, in time order.
    pub events: Vec<RecordedEvent>,
    /// Every reply that did not become a move, in the order they arrived.
    pub rejected: Vec<Rejected>,
    /// How many times the manager polled the players with PLAY.
    pub polls: usize,
    /// The game time of the last event.
    pub end_time: String,
    /// Whether the match ended in a terminal state (rather than one in which nothing can
    /// happen any more).
    pub terminal: bool,
    /// Every role's goal in the final state (0 where the game defines none).
    pub goals: Vec<u32>,
}

impl RealTimeRecord {
    /// How many replies were rejected for each role.
    pub fn rejected_counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.roles.len()];
        for r in &self.rejected {
            if let Some(role) = self.roles.iter().position(|name| *name == r.role) {
                counts[role] += 1;
            }
        }
        counts
    }
}

/// Whether nothing can happen any more: no role has a legal move and every lifetime is infinite.
fn stalled<G: RealTimeGame>(game: &G, state: &G::State) -> bool {
    let mut legal = Vec::new();
    game.next_expiry(state).is_none()
        && (0..game.num_roles()).all(|r| {
            game.legal_moves(state, r, &mut legal);
            legal.is_empty()
        })
}

/// Runs a real-time match of `game`, whose rules as sent in START are `rules`; the play clock
/// of `options` is the poll interval. `log` receives a line for each rejected reply.
pub fn run_match<G: RealTimeGame>(
    game: &G,
    rules: &[Sx],
    options: &Options,
    log: &mut dyn FnMut(&str),
) -> Result<RealTimeRecord, String> {
    let roles: Vec<String> = (0..game.num_roles()).map(|r| game.role_name(r).to_string()).collect();
    if options.players.len() != roles.len() {
        return Err(format!(
            "error: the game has {} roles ({}) but {} players were given",
            roles.len(),
            roles.join(" "),
            options.players.len()
        ));
    }
    let spelling = Spelling::of_rules(rules);
    let spelled =
        |text: &str| kif::parse_one(text).map(|t| spelling.to_match(&t)).unwrap_or(Sx::Atom(text.to_string()));
    let match_roles: Vec<Sx> = roles.iter().map(|r| spelled(r)).collect();
    let starts: Vec<String> = match_roles
        .iter()
        .map(|role| {
            Message::Start {
                id: options.match_id.clone(),
                role: role.clone(),
                rules: rules.to_vec(),
                start_clock: options.start_clock,
                play_clock: options.play_clock,
            }
            .to_string()
        })
        .collect();
    let deadline = Instant::now() + options.start_clock + NETWORK_GRACE;
    let mut start_replies = Vec::new();
    for (role, (reply, _)) in broadcast(&options.players, &starts, deadline).into_iter().enumerate() {
        let text = reply.unwrap_or_else(|e| format!("error: {e}"));
        if !text.eq_ignore_ascii_case("ready") {
            log(&format!("START: role {}: the player answered `{text}` instead of `ready`", roles[role]));
        }
        start_replies.push(text);
    }

    let mut simulation = Simulation::new(game);
    let initial_state = gdl_runtime::realtime::state_string(game, simulation.state());
    let tick = options.play_clock;
    let start = Instant::now();
    let game_time = |at: Instant| Time::from_duration(at.saturating_duration_since(start));
    let mut pending: Vec<TimedMove> = Vec::new();
    let mut rejected = Vec::new();
    let mut polls = 0;
    loop {
        simulation.expire_until(game_time(Instant::now()), true)?;
        if simulation.is_terminal() || stalled(game, simulation.state()) {
            break;
        }
        let now = game_time(Instant::now());
        let play = Message::Play { id: options.match_id.clone(), moves: Some(report(now, &pending)) }.to_string();
        pending.clear();
        polls += 1;
        let replies = broadcast(&options.players, &vec![play; roles.len()], Instant::now() + tick + NETWORK_GRACE);
        let mut arrivals: Vec<(Instant, usize, Result<String, String>)> =
            replies.into_iter().enumerate().map(|(role, (reply, at))| (at, role, reply)).collect();
        arrivals.sort_by_key(|&(at, role, _)| (at, role));
        for (at, role, reply) in arrivals {
            let at = game_time(at);
            let mut reject = |reply: Option<String>, reason: String| {
                log(&format!("{at}: role {}: {reason}", roles[role]));
                rejected.push(Rejected { time: at.to_string(), role: roles[role].clone(), reply, reason });
            };
            let text = match reply {
                Ok(text) if text.trim().eq_ignore_ascii_case(NO_MOVE) => continue,
                Ok(text) => text,
                Err(e) => {
                    reject(None, format!("no reply: {e}"));
                    continue;
                }
            };
            let canonical = match kif::parse_one(&text) {
                Ok(sx) => spelling.to_game(&sx).to_string(),
                Err(e) => {
                    reject(Some(text), format!("not a move: {e}"));
                    continue;
                }
            };
            match simulation.play(at, &[(role, &canonical)]) {
                Ok(()) => pending.push((at, match_roles[role].clone(), spelled(&canonical))),
                Err(e) => reject(Some(text), e),
            }
        }
        let next_poll = start + tick.saturating_mul(polls as u32);
        std::thread::sleep(next_poll.saturating_duration_since(Instant::now()));
    }
    let end = simulation.now();
    let stop = Message::Stop { id: options.match_id.clone(), moves: Some(report(end, &pending)) }.to_string();
    broadcast(&options.players, &vec![stop; roles.len()], Instant::now() + Duration::from_secs(2));
    let events = simulation
        .events()
        .iter()
        .map(|e| RecordedEvent {
            time: e.time.to_string(),
            moves: e
                .moves
                .iter()
                .enumerate()
                .filter_map(|(r, m)| m.as_ref().map(|m| RecordedMove { role: roles[r].clone(), mv: m.clone() }))
                .collect(),
            expired: e.expired.clone(),
            state: e.state.clone(),
        })
        .collect();
    let goals = game.goals(simulation.state()).into_iter().map(|g| g.unwrap_or(0)).collect();
    Ok(RealTimeRecord {
        match_id: options.match_id.clone(),
        kind: "rtgdl".to_string(),
        roles,
        players: options.players.clone(),
        start_clock: options.start_clock.as_secs_f64(),
        play_clock: tick.as_secs_f64(),
        start_replies,
        initial_state,
        events,
        rejected,
        polls,
        end_time: end.to_string(),
        terminal: simulation.is_terminal(),
        goals,
    })
}
