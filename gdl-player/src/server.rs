//! The player's HTTP server: accepts a manager's connections (a thread each, up to a cap),
//! reads one message per connection with a deadline and a size cap, answers OPTIONS for
//! browser-based managers, and plays several matches at once, keyed by match id, through a
//! [`GameFactory`].

use crate::http::{self, RequestError};
use crate::protocol::{self, Message};
use crate::session::{GameFactory, MatchSession, Start};
use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The GGP player's usual port.
pub const DEFAULT_PORT: u16 = 9147;

/// The largest message body accepted: far more than the rules of any game in the public
/// repository.
pub const MAX_BODY: usize = 4 * 1024 * 1024;

/// The most connections served at once; more are refused with 503 at once.
pub const MAX_CONNECTIONS: usize = 64;

/// How the server behaves.
#[derive(Clone, Debug)]
pub struct Config {
    /// The name INFO reports.
    pub name: String,
    /// The most matches played at once; INFO says `busy` and START is refused when full.
    pub max_matches: usize,
    /// How long a client has to send its whole message.
    pub request_timeout: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config { name: "gdlc".to_string(), max_matches: 16, request_timeout: Duration::from_secs(10) }
    }
}

/// How long a player thinks on a play clock: the clock less a safety margin for the network
/// and the reply (a fifth of the clock, at least 50 ms and at most 1.5 s).
pub fn think_time(play_clock: Duration) -> Duration {
    let margin = (play_clock / 5).clamp(Duration::from_millis(50), Duration::from_millis(1500));
    play_clock.saturating_sub(margin)
}

struct Match<'f> {
    session: Box<dyn MatchSession + 'f>,
    play_clock: Duration,
}

type Matches<'f> = Mutex<HashMap<String, Arc<Mutex<Match<'f>>>>>;

/// A GGP player's HTTP server, bound to its listening socket: [`Server::serve`] answers the
/// managers that connect to it.
pub struct Server {
    listener: TcpListener,
    config: Config,
}

/// Locks a mutex even if a thread panicked while holding it: the data it guards stays usable
/// (a match map, or a match whose state is only ever replaced whole).
fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Server {
    /// Listens on `address` (`127.0.0.1:0` picks a free port).
    pub fn bind(address: &str, config: Config) -> Result<Server, String> {
        let listener = TcpListener::bind(address).map_err(|e| format!("error: cannot listen on {address}: {e}"))?;
        Ok(Server { listener, config })
    }

    /// The address the server listens on, with the port the system picked for port 0.
    pub fn local_addr(&self) -> Result<SocketAddr, String> {
        self.listener.local_addr().map_err(|e| format!("error: cannot read the listening address: {e}"))
    }

    /// Serves forever, making every match's session with `factory`.
    pub fn serve(&self, factory: &dyn GameFactory) -> Result<(), String> {
        let matches: Matches = Mutex::new(HashMap::new());
        let connections = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for stream in self.listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                if connections.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                    connections.fetch_sub(1, Ordering::SeqCst);
                    let _ = http::write_response(&mut stream, 503, "too many connections");
                    continue;
                }
                let (matches, connections, config) = (&matches, &connections, &self.config);
                let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
                    handle(stream, factory, matches, config);
                    connections.fetch_sub(1, Ordering::SeqCst);
                });
                if spawned.is_err() {
                    connections.fetch_sub(1, Ordering::SeqCst);
                }
            }
        });
        Err("error: the listening socket closed".to_string())
    }
}

/// Answers one connection; a client that cannot be written to any more is simply dropped.
fn handle<'f>(mut stream: TcpStream, factory: &'f dyn GameFactory, matches: &Matches<'f>, config: &Config) {
    let received = Instant::now();
    let (status, body) = match http::read_request(&mut stream, MAX_BODY, received + config.request_timeout) {
        Err(RequestError { status, message }) => (status, message),
        Ok(request) if request.method == "OPTIONS" => (200, String::new()),
        Ok(request) if request.method != "POST" => {
            (405, format!("the GGP protocol sends messages by POST, not {}", request.method))
        }
        Ok(request) => match protocol::parse(&request.body) {
            Err(e) => (400, e),
            Ok(message) => match answer(message, factory, matches, config, received) {
                Ok(reply) => (200, reply),
                Err(e) => (400, e),
            },
        },
    };
    let _ = http::write_response(&mut stream, status, &body);
}

/// The reply to one message, or the error to report with status 400.
fn answer<'f>(
    message: Message,
    factory: &'f dyn GameFactory,
    matches: &Matches<'f>,
    config: &Config,
    received: Instant,
) -> Result<String, String> {
    let entry = |id: &str| lock(matches).get(id).cloned();
    match message {
        Message::Info => Ok(protocol::info_reply(&config.name, lock(matches).len() < config.max_matches)),
        Message::Ping => Ok("ready".to_string()),
        // A preview only offers time to study a game before some later START: nothing to keep.
        Message::Preview { .. } => Ok("ready".to_string()),
        Message::Start { id, role, rules, start_clock, play_clock } => {
            {
                let current = lock(matches);
                if current.len() >= config.max_matches && !current.contains_key(&id) {
                    return Ok("busy".to_string());
                }
            }
            let start = Start { id: &id, role: &role, rules: &rules, start_clock, play_clock };
            let session = factory.start(&start).map_err(|e| format!("cannot play match {id}: {e}"))?;
            lock(matches).insert(id, Arc::new(Mutex::new(Match { session, play_clock })));
            Ok("ready".to_string())
        }
        Message::Play { id, moves } => {
            let Some(entry) = entry(&id) else { return Ok("busy".to_string()) };
            let mut game = lock(&entry);
            let deadline = received + think_time(game.play_clock);
            game.session.play(moves.as_deref(), deadline).map_err(|e| format!("match {id}: {e}"))
        }
        Message::Stop { id, moves } => {
            let Some(entry) = lock(matches).remove(&id) else { return Ok("busy".to_string()) };
            // The match is over whatever the last moves were, so a wrong one still gets `done`.
            let _ = lock(&entry).session.stop(moves.as_deref());
            Ok("done".to_string())
        }
        Message::PlaySeen { id, seen } => {
            let Some(entry) = entry(&id) else { return Ok("busy".to_string()) };
            let mut game = lock(&entry);
            let deadline = received + think_time(game.play_clock);
            game.session.play_seen(&seen, deadline).map_err(|e| format!("match {id}: {e}"))
        }
        Message::StopSeen { id, seen } => {
            let Some(entry) = lock(matches).remove(&id) else { return Ok("busy".to_string()) };
            // As with STOP: the match is over whatever the message says.
            let _ = lock(&entry).session.stop_seen(&seen);
            Ok("done".to_string())
        }
        Message::Abort { id } => match lock(matches).remove(&id) {
            Some(_) => Ok("aborted".to_string()),
            None => Ok("busy".to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_time_keeps_a_margin_on_every_clock() {
        assert_eq!(think_time(Duration::from_secs(10)), Duration::from_millis(8500));
        assert_eq!(think_time(Duration::from_secs(1)), Duration::from_millis(800));
        assert_eq!(think_time(Duration::from_millis(100)), Duration::from_millis(50));
        assert_eq!(think_time(Duration::from_millis(20)), Duration::ZERO);
    }
}
