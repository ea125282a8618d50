//! A match as `gdlc serve` plays it: a local engine (the program engine or the interpreter)
//! follows every move, and once the game's native backend serves, the match is handed to it,
//! mid-match if need be, by replaying the match's messages to it. Every PLAY is answered
//! before the deadline: by the backend when it replies in time, else by the local engine, with
//! the best move it found in the time left, or at least a legal move chosen at once.

use super::backend::Natives;
use super::engine::LocalEngine;
use gdl_player::http;
use gdl_player::log;
use gdl_player::protocol::{Message, Seen};
use gdl_player::session::{MatchSession, Start};
use gdl_runtime::kif::Sx;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The time kept for the backend's reply to cross back and for ours to be written.
const TRANSIT: Duration = Duration::from_millis(30);

/// The least time left to the deadline for which a match is handed to its backend in a PLAY:
/// replaying the match's moves to the backend takes a few milliseconds each.
const HANDOVER_TIME: Duration = Duration::from_millis(250);

/// How often a match with no engine yet looks whether its game is grounded.
const GROUNDING_POLL: Duration = Duration::from_millis(20);

/// How many times a match tries to hand itself to its backend before it stays local.
const MAX_HANDOVERS: u32 = 3;

/// Where the match's moves come from.
enum Remote {
    /// The backend does not serve the match (yet).
    Local { attempts: u32 },
    /// The backend at this address follows the match.
    Native { url: String },
}

/// Makes the program engine's session of a match that the interpreter plays, once its game is
/// grounded ([`super::engine::program_session`]); `None` until then.
pub(super) type Upgrade = Box<dyn FnMut(&Start) -> Option<Result<Box<dyn MatchSession>, String>> + Send>;

/// One match: the local session, the backend's state, and the match's messages so far.
pub(super) struct HybridSession {
    local: Box<dyn MatchSession>,
    /// For a match the interpreter plays because its game was not grounded within START: how
    /// it moves to the program engine once the game is.
    upgrade: Option<Upgrade>,
    /// The flag that cancels the local session's search, for a session that replaces it.
    cancel: Option<Arc<AtomicBool>>,
    /// What the local session plays with, for the log.
    local_engine: LocalEngine,
    /// How the local session's engine was made, for the log of START.
    made: String,
    natives: Arc<Natives>,
    key: u64,
    id: String,
    start: Message,
    /// Every PLAY of the match so far, as received, for a backend that joins mid-match.
    history: Vec<Message>,
    remote: Remote,
    /// What answered the last PLAY, and the work behind it, for the log.
    last_engine: String,
    last_work: String,
}

impl HybridSession {
    /// The session of a match that `start` (the START message) begins, played locally by
    /// `local` until the backend of the game of `key` serves.
    pub(super) fn new(
        (local, upgrade): (Box<dyn MatchSession>, Option<Upgrade>),
        (local_engine, made): (LocalEngine, String),
        natives: Arc<Natives>,
        key: u64,
        start: Message,
    ) -> Self {
        let id = match &start {
            Message::Start { id, .. } => id.clone(),
            _ => String::new(),
        };
        HybridSession {
            local,
            upgrade,
            cancel: None,
            local_engine,
            made,
            natives,
            key,
            id,
            start,
            history: Vec::new(),
            remote: Remote::Local { attempts: 0 },
            last_engine: String::new(),
            last_work: String::new(),
        }
    }

    /// Moves the match from the interpreter to the program engine once its game is grounded: a
    /// session of the program engine takes in the match's PLAYs so far, each answered at once,
    /// and plays from then on.
    fn upgrade_local(&mut self) {
        let Some(upgrade) = self.upgrade.as_mut() else { return };
        let Message::Start { id, role, rules, start_clock, play_clock } = &self.start else { return };
        let start = Start { id, role, rules, start_clock: *start_clock, play_clock: *play_clock };
        let Some(made) = upgrade(&start) else { return };
        self.upgrade = None;
        let started = Instant::now();
        let caught_up = made.and_then(|mut session| {
            for message in &self.history {
                let Message::Play { moves, .. } = message else {
                    return Err("only a match of PLAYs with joint moves can be followed".to_string());
                };
                session.play(moves.as_deref(), Instant::now())?;
            }
            Ok(session)
        });
        match caught_up {
            Ok(mut session) => {
                if let Some(flag) = &self.cancel {
                    session.set_cancel(Arc::clone(flag));
                }
                log::info(format_args!(
                    "match {}: switched to the program engine at step {}, its game grounded (caught up in {} ms)",
                    self.id,
                    self.history.len() + 1,
                    started.elapsed().as_millis()
                ));
                self.local = session;
                self.local_engine = LocalEngine::Program;
            }
            Err(e) => log::error(format_args!("match {}: cannot move to the program engine: {e}", self.id)),
        }
    }

    /// Answers a PLAY whose message is `message`, after the local session has taken it in and
    /// chosen `quick`, a legal move chosen at once.
    fn answer(&mut self, message: Message, quick: String, deadline: Instant) -> String {
        self.history.push(message);
        if let Some(url) = self.backend(deadline) {
            match self.ask(&url, deadline) {
                Ok(reply) => return reply,
                Err(e) => {
                    log::error(format_args!("match {}: the native backend failed: {e}; playing locally", self.id));
                    self.remote = Remote::Local { attempts: 0 };
                }
            }
        }
        self.last_engine = self.local_engine.name().to_string();
        if Instant::now() + TRANSIT >= deadline {
            self.last_work = "no time to search".to_string();
            return quick;
        }
        match self.local.choose_again(deadline) {
            Ok(mv) => {
                self.last_work = self.local.work();
                mv
            }
            Err(_) => quick,
        }
    }

    /// The address of the backend that follows this match, after handing the match to it if it
    /// has just become ready and there is time.
    fn backend(&mut self, deadline: Instant) -> Option<String> {
        let attempts = match &self.remote {
            Remote::Native { url } => return Some(url.clone()),
            Remote::Local { attempts } => *attempts,
        };
        if attempts >= MAX_HANDOVERS || Instant::now() + HANDOVER_TIME >= deadline {
            return None;
        }
        let url = self.natives.url(self.key)?;
        let started = Instant::now();
        match self.hand_over(&url, deadline) {
            Ok(()) => {
                log::info(format_args!(
                    "match {}: switched to native code at step {} (handed over in {} ms)",
                    self.id,
                    self.history.len(),
                    started.elapsed().as_millis()
                ));
                self.remote = Remote::Native { url: url.clone() };
                Some(url)
            }
            Err(e) => {
                log::error(format_args!("match {}: cannot hand the match to native code: {e}", self.id));
                self.remote = Remote::Local { attempts: attempts + 1 };
                post_later(&url, Message::Abort { id: self.id.clone() });
                None
            }
        }
    }

    /// Sends the backend the START and every PLAY before the last, each answered at once.
    fn hand_over(&self, url: &str, deadline: Instant) -> Result<(), String> {
        let by = deadline.checked_sub(HANDOVER_TIME / 2).unwrap_or(deadline);
        // The backend is to follow the match at once, not think about it for a start clock.
        let reply = http::post_reply_within(url, &self.start.to_string(), Duration::ZERO, by)?.body;
        if !reply.eq_ignore_ascii_case("ready") {
            return Err(format!("the backend answered START with `{reply}`"));
        }
        for message in &self.history[..self.history.len() - 1] {
            http::post_reply_within(url, &message.to_string(), Duration::ZERO, by)?;
        }
        Ok(())
    }

    /// The backend's move for the last PLAY, asked for before the deadline.
    fn ask(&mut self, url: &str, deadline: Instant) -> Result<String, String> {
        let message = self.history.last().map(Message::to_string).unwrap_or_default();
        let within = deadline.saturating_duration_since(Instant::now()).saturating_sub(TRANSIT);
        let reply = http::post_reply_within(url, &message, within, deadline)?;
        self.last_engine = "native code".to_string();
        self.last_work = reply.work.unwrap_or_default();
        Ok(reply.body)
    }

    /// Tells the backend, if it follows the match, that the match ended, without waiting.
    fn end_remote(&mut self, message: Message) {
        if let Remote::Native { url } = &self.remote {
            post_later(url, message);
        }
        self.remote = Remote::Local { attempts: MAX_HANDOVERS };
    }
}

/// Posts a message on another thread, for messages whose reply does not matter.
fn post_later(url: &str, message: Message) {
    let url = url.to_string();
    let _ = std::thread::Builder::new().name("backend-post".to_string()).spawn(move || {
        let _ = http::post(&url, &message.to_string(), Instant::now() + Duration::from_secs(2));
    });
}

impl MatchSession for HybridSession {
    fn play(&mut self, moves: Option<&[Sx]>, deadline: Instant) -> Result<String, String> {
        self.upgrade_local();
        // A match with no engine yet waits for its game's grounding while the clock allows,
        // rather than let the manager play every move for it at once.
        while self.local_engine == LocalEngine::NoneYet
            && self.upgrade.is_some()
            && Instant::now() + HANDOVER_TIME < deadline
        {
            std::thread::sleep(GROUNDING_POLL);
            self.upgrade_local();
        }
        let quick = match self.local.play(moves, Instant::now()) {
            Ok(quick) => quick,
            Err(e) => {
                // A session that has no move yet still follows the match, for the one that
                // replaces it.
                self.history.push(Message::Play { id: self.id.clone(), moves: moves.map(<[Sx]>::to_vec) });
                return Err(e);
            }
        };
        if self.local.settled() {
            // The history stops here, so no other session can catch up with the match.
            self.upgrade = None;
            // The local player's move is a solved puzzle's plan, which no search betters: the
            // match stays local, and a backend that follows it is told to let it go.
            self.end_remote(Message::Abort { id: self.id.clone() });
            (self.last_engine, self.last_work) = (self.local_engine.name().to_string(), self.local.work());
            return Ok(quick);
        }
        let message = Message::Play { id: self.id.clone(), moves: moves.map(<[Sx]>::to_vec) };
        Ok(self.answer(message, quick, deadline))
    }

    fn stop(&mut self, moves: Option<&[Sx]>) -> Result<(), String> {
        self.end_remote(Message::Stop { id: self.id.clone(), moves: moves.map(<[Sx]>::to_vec) });
        self.local.stop(moves)
    }

    fn play_seen(&mut self, seen: &Seen, deadline: Instant) -> Result<String, String> {
        let message = Message::PlaySeen { id: self.id.clone(), seen: seen.clone() };
        let native = matches!(self.remote, Remote::Native { .. }) || self.natives.url(self.key).is_some();
        if !native {
            // The local belief gets the whole time: it follows the percepts, then searches.
            self.history.push(message);
            self.last_engine = self.local_engine.name().to_string();
            let reply = self.local.play_seen(seen, deadline);
            self.last_work = self.local.work();
            return reply;
        }
        // The belief of a GDL-II game still needs some time to follow the percepts.
        let now = Instant::now();
        let quick = self.local.play_seen(seen, now + deadline.saturating_duration_since(now) / 10)?;
        Ok(self.answer(message, quick, deadline))
    }

    fn stop_seen(&mut self, seen: &Seen) -> Result<(), String> {
        self.end_remote(Message::StopSeen { id: self.id.clone(), seen: seen.clone() });
        self.local.stop_seen(seen)
    }

    fn prepare(&mut self, deadline: Instant) {
        self.local.prepare(deadline);
    }

    fn choose_again(&mut self, deadline: Instant) -> Result<String, String> {
        self.local.choose_again(deadline)
    }

    fn set_cancel(&mut self, flag: Arc<AtomicBool>) {
        self.cancel = Some(Arc::clone(&flag));
        self.local.set_cancel(flag);
    }

    fn engine(&self) -> String {
        if !self.last_engine.is_empty() {
            return self.last_engine.clone();
        }
        let made = if self.made.is_empty() { String::new() } else { format!(" {}", self.made) };
        format!("{}{made}, {}", self.local_engine.name(), self.natives.status(self.key))
    }

    fn work(&self) -> String {
        self.last_work.clone()
    }
}

impl Drop for HybridSession {
    /// A match that ends without STOP (an ABORT, an expiry, a new START under its id) is
    /// aborted in the backend too, so that it does not hold a place there.
    fn drop(&mut self) {
        self.end_remote(Message::Abort { id: self.id.clone() });
    }
}
