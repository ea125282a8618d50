//! The game manager (specification section 7): runs one match between players over HTTP,
//! sending START to every player, PLAY with the last joint move until the game ends and STOP
//! at the end; a move that is missing, late or illegal is replaced by a random legal one and
//! recorded. The match's record (roles, players, every state's facts and legal-move counts, the
//! joint move played in it and its substitutions, the final state and goals) serializes to JSON
//! and reads back (`gdlc view`).
//!
//! A GDL-II game (with `sees` rules or a `random` role) is played as the Dresden GGP server
//! plays it: the manager plays the `random` role itself, drawing its moves uniformly, and tells
//! each player only its own last move and its percepts, `(PLAY id turn lastmove percepts)`;
//! the record keeps every role's percepts at every step.

use crate::http;
use crate::protocol::{Message, Seen};
use crate::rename::Spelling;
use gdl_runtime::kif::{self, Sx};
use gdl_runtime::rng::Rng;
use gdl_runtime::Game;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// How long past a clock a reply may arrive and still count, for the network's delays.
pub const NETWORK_GRACE: Duration = Duration::from_millis(500);

/// A match to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// The match id sent in every message.
    pub match_id: String,
    /// The players' URLs, one per role in role order.
    pub players: Vec<String>,
    /// How long the players have to answer START.
    pub start_clock: Duration,
    /// How long the players have to answer each PLAY.
    pub play_clock: Duration,
    /// The seed of the random moves that replace bad ones.
    pub seed: u64,
}

/// A move the manager chose for a player.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Substitution {
    /// The role whose move was replaced.
    pub role: String,
    /// `missing` (no reply: the player is unreachable or answered with an error), `late` (no
    /// reply within the play clock and the network's grace) or `illegal` (a reply that is not a
    /// legal move).
    pub reason: String,
    /// What went wrong, in words.
    pub detail: String,
    /// The player's reply, when there was one.
    pub reply: Option<String>,
    /// The random legal move played instead.
    pub substitute: String,
}

/// One state of the match: the joint move played in it, the substitutions that made it, and
/// how long each player took to answer, in milliseconds (0 for the `random` role). The state
/// and the legal-move counts make a record complete without the game's engine (for `gdlc
/// view`); records written before they were added read them as empty.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Step {
    /// The state the joint move was played in: its base facts as [`Game::state_facts`] gives
    /// them (canonical KIF, sorted).
    #[serde(default)]
    pub state: Vec<String>,
    /// How many legal moves each role had in that state, in role order.
    #[serde(default)]
    pub legal_counts: Vec<usize>,
    /// The joint move played, one move per role in role order, in the game's canonical KIF.
    pub joint: Vec<String>,
    /// The moves of this joint move that the manager chose for a player.
    pub substitutions: Vec<Substitution>,
    /// How long each role's player took to answer PLAY, in milliseconds, in role order.
    pub reply_ms: Vec<u64>,
    /// In a GDL-II match, what every role perceived on this step, in role order: each player
    /// was sent its own list, and nothing else of the joint move but its own move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percepts: Option<Vec<Vec<String>>>,
}

/// A played match.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    /// The match id.
    pub match_id: String,
    /// The game's roles, in role order.
    pub roles: Vec<String>,
    /// Every role's player, in role order; `null` for the `random` role of a GDL-II game,
    /// which the manager plays.
    pub players: Vec<Option<String>>,
    /// The start clock, in seconds.
    pub start_clock: f64,
    /// The play clock, in seconds.
    pub play_clock: f64,
    /// Each player's reply to START (`ready`), or what went wrong, in role order (`null` for
    /// the `random` role).
    pub start_replies: Vec<Option<String>>,
    /// Every step of the match, in order: one per state but the terminal one.
    pub steps: Vec<Step>,
    /// The base facts of the final state, as [`Game::state_facts`] gives them (empty in
    /// records written before it was added).
    #[serde(default)]
    pub final_state: Vec<String>,
    /// Every role's goal in the final state (0 where the game defines none).
    pub goals: Vec<u32>,
}

impl Record {
    /// How many moves were substituted for each role.
    pub fn substitution_counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.roles.len()];
        for s in self.steps.iter().flat_map(|s| &s.substitutions) {
            if let Some(role) = self.roles.iter().position(|r| *r == s.role) {
                counts[role] += 1;
            }
        }
        counts
    }
}

/// Sends each player its message at once; every reply comes with the instant it arrived.
/// The real-time manager shares it.
pub(crate) fn broadcast(
    players: &[String],
    messages: &[String],
    deadline: Instant,
) -> Vec<(Result<String, String>, Instant)> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = players
            .iter()
            .zip(messages)
            .map(|(url, message)| scope.spawn(move || (http::post(url, message, deadline), Instant::now())))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| (Err("the request thread failed".to_string()), Instant::now())))
            .collect()
    })
}

/// Runs a match of `game`, whose rules as sent in START are `rules`; `log` receives a line for
/// each substitution and failed START as it happens. `options.players` has one player per role
/// in role order, but for the `random` role of a GDL-II game, which the manager plays.
pub fn run_match<G: Game>(
    game: &G,
    rules: &[Sx],
    options: &Options,
    log: &mut dyn FnMut(&str),
) -> Result<Record, String> {
    let roles: Vec<String> = (0..game.num_roles()).map(|r| game.role_name(r).to_string()).collect();
    let gdl_ii = game.is_gdl_ii();
    let random_role = game.random_role();
    // The player of every role, as an index into `options.players`.
    let seats: Vec<Option<usize>> = {
        let mut next = 0;
        (0..roles.len())
            .map(|r| {
                (random_role != Some(r)).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    };
    let seated: Vec<usize> = (0..roles.len()).filter(|&r| seats[r].is_some()).collect();
    if options.players.len() != seated.len() {
        if random_role.is_some() {
            let names: Vec<&str> = seated.iter().map(|&r| roles[r].as_str()).collect();
            return Err(format!(
                "error: the game's roles that take a player are {} (the manager plays `random`), but {} players \
                 were given",
                names.join(" "),
                options.players.len()
            ));
        }
        return Err(format!(
            "error: the game has {} roles ({}) but {} players were given",
            roles.len(),
            roles.join(" "),
            options.players.len()
        ));
    }
    let players_of_roles: Vec<Option<String>> = seats.iter().map(|s| s.map(|p| options.players[p].clone())).collect();
    let spelling = Spelling::of_rules(rules);
    let spelled =
        |text: &str| kif::parse_one(text).map(|t| spelling.to_match(&t)).unwrap_or(Sx::Atom(text.to_string()));
    let starts: Vec<String> = seated
        .iter()
        .map(|&role| {
            Message::Start {
                id: options.match_id.clone(),
                role: spelled(&roles[role]),
                rules: rules.to_vec(),
                start_clock: options.start_clock,
                play_clock: options.play_clock,
            }
            .to_string()
        })
        .collect();
    let deadline = Instant::now() + options.start_clock + NETWORK_GRACE;
    let mut start_replies = vec![None; roles.len()];
    for (&role, (reply, _)) in seated.iter().zip(broadcast(&options.players, &starts, deadline)) {
        let text = reply.unwrap_or_else(|e| format!("error: {e}"));
        if !text.eq_ignore_ascii_case("ready") {
            log(&format!("START: role {}: the player answered `{text}` instead of `ready`", roles[role]));
        }
        start_replies[role] = Some(text);
    }

    let mut rng = Rng::seeded(options.seed);
    let mut state = game.initial_state();
    let mut steps: Vec<Step> = Vec::new();
    let mut last: Option<Vec<Sx>> = None;
    // What every role perceived on the last step, in the match's spelling (GDL-II).
    let mut last_percepts: Vec<Vec<Sx>> = vec![Vec::new(); roles.len()];
    // The message for each seated role after the last step: PLAY during the match, STOP at
    // its end.
    let report = |play: bool, role: usize, last: &Option<Vec<Sx>>, percepts: &[Vec<Sx>], turn: usize| {
        let id = options.match_id.clone();
        if gdl_ii {
            let seen = Seen {
                turn: turn as u64,
                last_move: last.as_ref().map(|joint| joint[role].clone()),
                percepts: percepts[role].clone(),
            };
            if play {
                Message::PlaySeen { id, seen }
            } else {
                Message::StopSeen { id, seen }
            }
        } else if play {
            Message::Play { id, moves: last.clone() }
        } else {
            Message::Stop { id, moves: last.clone() }
        }
        .to_string()
    };
    let mut legal = Vec::new();
    let mut percepts = Vec::new();
    while !game.is_terminal(&state) {
        game.all_legal_moves(&state, &mut legal);
        if let Some(role) = legal.iter().position(Vec::is_empty) {
            return Err(format!("error: role {} has no legal move in a non-terminal state", roles[role]));
        }
        let plays: Vec<String> =
            seated.iter().map(|&role| report(true, role, &last, &last_percepts, steps.len())).collect();
        let deadline = Instant::now() + options.play_clock + NETWORK_GRACE;
        let sent = Instant::now();
        let mut replies = broadcast(&options.players, &plays, deadline).into_iter();
        let mut joint = Vec::new();
        let mut substitutions = Vec::new();
        let mut reply_ms = Vec::new();
        for role in 0..roles.len() {
            if seats[role].is_none() {
                // The random role: a uniformly random legal move, drawn by the manager.
                reply_ms.push(0);
                joint.push(legal[role][rng.below(legal[role].len())].clone());
                continue;
            }
            let (reply, arrived) = replies.next().unwrap_or_else(|| (Err("no reply".to_string()), sent));
            reply_ms.push(arrived.saturating_duration_since(sent).as_millis() as u64);
            let chosen = match &reply {
                Ok(text) => kif::parse_one(text)
                    .map_err(|e| format!("not a move: {e}"))
                    .and_then(|sx| {
                        let canonical = spelling.to_game(&sx).to_string();
                        game.parse_move(role, &canonical)
                            .filter(|m| legal[role].contains(m))
                            .ok_or_else(|| format!("`{text}` is not a legal move"))
                    })
                    .map_err(|detail| ("illegal", detail)),
                Err(e) if e.contains("in time") => Err(("late", e.clone())),
                Err(e) => Err(("missing", e.clone())),
            };
            let mv = match chosen {
                Ok(mv) => mv,
                Err((reason, detail)) => {
                    let substitute = legal[role][rng.below(legal[role].len())].clone();
                    let substitution = Substitution {
                        role: roles[role].clone(),
                        reason: reason.to_string(),
                        detail,
                        reply: reply.ok(),
                        substitute: game.move_string(&substitute),
                    };
                    log(&format!(
                        "step {}: role {}: {} move ({}); playing {} instead",
                        steps.len(),
                        substitution.role,
                        substitution.reason,
                        substitution.detail,
                        substitution.substitute
                    ));
                    substitutions.push(substitution);
                    substitute
                }
            };
            joint.push(mv);
        }
        let strings: Vec<String> = joint.iter().map(|m| game.move_string(m)).collect();
        last = Some(strings.iter().map(|s| spelled(s)).collect());
        let step_percepts = gdl_ii.then(|| {
            game.all_percepts(&state, &joint, &mut percepts);
            last_percepts = percepts.iter().map(|role| role.iter().map(|p| spelled(p)).collect()).collect();
            percepts.clone()
        });
        let legal_counts = legal.iter().map(Vec::len).collect();
        let facts = game.state_facts(&state);
        steps.push(Step {
            state: facts,
            legal_counts,
            joint: strings,
            substitutions,
            reply_ms,
            percepts: step_percepts,
        });
        state = game.next_state(&state, &joint);
    }
    let stops: Vec<String> =
        seated.iter().map(|&role| report(false, role, &last, &last_percepts, steps.len())).collect();
    let deadline = Instant::now() + options.play_clock + NETWORK_GRACE;
    broadcast(&options.players, &stops, deadline);
    let goals = game.goals(&state).into_iter().map(|g| g.unwrap_or(0)).collect();
    Ok(Record {
        match_id: options.match_id.clone(),
        roles,
        players: players_of_roles,
        start_clock: options.start_clock.as_secs_f64(),
        play_clock: options.play_clock.as_secs_f64(),
        start_replies,
        steps,
        final_state: game.state_facts(&state),
        goals,
    })
}
