//! The player's HTTP server: accepts a manager's connections (a thread each, up to a cap),
//! reads one message per connection with a deadline and a size cap, answers OPTIONS for
//! browser-based managers, and plays several matches at once, keyed by match id, through a
//! [`GameFactory`].

use crate::http::{self, RequestError};
use crate::log;
use crate::protocol::{self, Message};
use crate::session::{GameFactory, MatchSession, Start};
use crate::turns::{Ticket, Turns};
use std::collections::HashMap;
use std::collections::VecDeque;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
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
    /// How long a client has to send a message, beyond the time its body's size allows at
    /// [`Config::min_body_rate`].
    pub request_timeout: Duration,
    /// The slowest rate, in bytes per second, at which a large message's body may arrive.
    pub min_body_rate: usize,
    /// How long a match whose manager fell silent is kept beyond three of its clocks.
    pub expiry_slack: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            name: "gdlc".to_string(),
            max_matches: 16,
            request_timeout: Duration::from_secs(5),
            min_body_rate: 100 * 1024,
            expiry_slack: Duration::from_secs(10),
        }
    }
}

/// How long a player thinks on a play clock: the clock less a safety margin for the network,
/// the reply and a busy machine's scheduling delays (a fifth of the clock, at least 100 ms and
/// at most 1.5 s, but never more than half of a short clock).
pub fn think_time(play_clock: Duration) -> Duration {
    let margin = (play_clock / 5).clamp(Duration::from_millis(100), Duration::from_millis(1500));
    play_clock.saturating_sub(margin.min(play_clock / 2))
}

/// A match in progress: its session, its clocks, the number of PLAYs answered, and when it
/// last heard from its manager.
struct Match<'f> {
    session: Box<dyn MatchSession + 'f>,
    play_clock: Duration,
    start_clock: Duration,
    steps: usize,
    last_message: Instant,
}

impl Match<'_> {
    /// Whether the manager has been silent long enough to have given the match up: three play
    /// clocks (the start clock, before the first PLAY) and `slack` past its last message.
    fn expired(&self, now: Instant, slack: Duration) -> bool {
        let clock = if self.steps == 0 { self.start_clock.max(self.play_clock) } else { self.play_clock };
        now.saturating_duration_since(self.last_message) > clock * 3 + slack
    }
}

/// A match and the order of its PLAYs, which is kept outside the match's mutex so that a
/// message can cancel the work that holds it.
struct Entry<'f> {
    game: Mutex<Match<'f>>,
    turns: Turns,
}

/// The matches in progress, and the places taken by STARTs still being prepared, so that the
/// cap on matches is taken in one step.
#[derive(Default)]
struct Table<'f> {
    matches: HashMap<String, Arc<Entry<'f>>>,
    starting: usize,
}

type Matches<'f> = Mutex<Table<'f>>;

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
        let matches: Matches = Mutex::new(Table::default());
        let connections = AtomicUsize::new(0);
        let readers = Readers::default();
        std::thread::scope(|scope| {
            let reaper = std::thread::Builder::new().name("expiry".to_string());
            // Without the reaper, matches still end by STOP and ABORT.
            let _ = reaper.spawn_scoped(scope, || loop {
                std::thread::sleep(Duration::from_secs(1));
                expire(&matches, Instant::now(), self.config.expiry_slack);
            });
            for stream in self.listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                // A full house makes room by dropping the client that has been sending its
                // message the longest, so that slow clients cannot lock new ones out.
                if connections.load(Ordering::SeqCst) >= MAX_CONNECTIONS && !readers.evict_oldest() {
                    let _ = http::write_response(&mut stream, 503, "too many connections");
                    continue;
                }
                connections.fetch_add(1, Ordering::SeqCst);
                let (matches, connections, config, readers) = (&matches, &connections, &self.config, &readers);
                let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
                    handle(stream, factory, matches, config, readers);
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

/// Ends the matches whose manager has been silent past their clocks.
fn expire(matches: &Matches<'_>, now: Instant, slack: Duration) {
    let mut expired = Vec::new();
    lock(matches).matches.retain(|id, entry| {
        // A match busy with a message is not silent.
        let Ok(game) = entry.game.try_lock() else { return true };
        let keep = !game.expired(now, slack);
        if !keep {
            entry.turns.end();
            expired.push(id.clone());
        }
        keep
    });
    for id in expired {
        log::info(format_args!("match {id}: expired: no message from the manager within its clocks"));
    }
}

/// The connections still sending their message, oldest first, each with a handle to close it.
#[derive(Default)]
struct Readers {
    streams: Mutex<VecDeque<(u64, TcpStream)>>,
    next: AtomicU64,
}

impl Readers {
    /// Notes a connection that is sending its message; the number is for [`Readers::done`].
    fn add(&self, stream: &TcpStream) -> Option<u64> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let handle = stream.try_clone().ok()?;
        lock(&self.streams).push_back((id, handle));
        Some(id)
    }

    /// Forgets a connection whose message has arrived (or failed to).
    fn done(&self, id: Option<u64>) {
        if let Some(id) = id {
            lock(&self.streams).retain(|(i, _)| *i != id);
        }
    }

    /// Closes the connection that has been sending its message the longest; `false` when no
    /// connection is sending.
    fn evict_oldest(&self) -> bool {
        let Some((_, stream)) = lock(&self.streams).pop_front() else { return false };
        log::detail(format_args!("dropped a client too slow to send its message: {:?}", stream.peer_addr()));
        let _ = stream.shutdown(std::net::Shutdown::Both);
        true
    }
}

/// Answers one connection; a client that cannot be written to any more is simply dropped.
fn handle<'f>(
    mut stream: TcpStream,
    factory: &'f dyn GameFactory,
    matches: &Matches<'f>,
    config: &Config,
    readers: &Readers,
) {
    let received = Instant::now();
    let mut work = String::new();
    let reading = readers.add(&stream);
    let request =
        http::read_request_at_rate(&mut stream, MAX_BODY, received + config.request_timeout, config.min_body_rate);
    readers.done(reading);
    let (status, body) = match request {
        Err(RequestError { status, message }) => (status, message),
        Ok(request) if request.method == "OPTIONS" => (200, String::new()),
        Ok(request) if request.method != "POST" => {
            (405, format!("the GGP protocol sends messages by POST, not {}", request.method))
        }
        Ok(request) => match protocol::parse(&request.body) {
            Err(e) => (400, e),
            Ok(message) => {
                let context = Context { factory, matches, config, received, reply_within: request.reply_within };
                match answer(message, &context) {
                    Ok((reply, done)) => {
                        work = done;
                        (200, reply)
                    }
                    Err(e) => {
                        log::error(format_args!("{e}"));
                        (400, e)
                    }
                }
            }
        },
    };
    if status != 200 {
        log::detail(format_args!("HTTP {status}: {body}"));
    }
    // The work behind a move, for a front that serves through this player.
    let extra = if work.is_empty() { String::new() } else { format!("{}: {work}\r\n", http::WORK_HEADER) };
    let _ = http::write_response_with(&mut stream, status, &body, &extra);
}

/// What answering one message needs.
struct Context<'c, 'f> {
    factory: &'f dyn GameFactory,
    matches: &'c Matches<'f>,
    config: &'c Config,
    received: Instant,
    reply_within: Option<Duration>,
}

impl Context<'_, '_> {
    /// When the reply to a PLAY must be ready: the think time of the match's clock, or sooner
    /// when the sender asks for it.
    fn deadline(&self, play_clock: Duration) -> Instant {
        let think = think_time(play_clock);
        self.received + self.reply_within.map_or(think, |within| within.min(think))
    }
}

/// The reply to one message and the work behind it (for a PLAY), or the error to report with
/// status 400.
fn answer(message: Message, context: &Context<'_, '_>) -> Result<(String, String), String> {
    let work = |reply: Result<String, String>| reply.map(|r| (r, String::new()));
    match message {
        Message::Play { ref id, ref moves } => {
            in_turn(id, &message.to_string(), context, |session, deadline| session.play(moves.as_deref(), deadline))
        }
        Message::PlaySeen { ref id, ref seen } => {
            in_turn(id, &message.to_string(), context, |session, deadline| session.play_seen(seen, deadline))
        }
        other => work(answer_other(other, context)),
    }
}

/// Answers a PLAY of match `id` whose message is `text` in its turn, with `play`.
fn in_turn(
    id: &str,
    text: &str,
    context: &Context<'_, '_>,
    play: impl FnOnce(&mut dyn MatchSession, Instant) -> Result<String, String>,
) -> Result<(String, String), String> {
    let Some(entry) = lock(context.matches).matches.get(id).cloned() else {
        return Ok(("busy".to_string(), String::new()));
    };
    let ticket = entry.turns.arrive(text);
    if !entry.turns.wait(&ticket) {
        return Err(format!("match {id}: the match ended before this PLAY's turn came"));
    }
    let mut game = lock(&entry.game);
    game.last_message = context.received;
    if ticket.is_repeat() {
        entry.turns.done(&ticket, None);
        drop(game);
        return repeated(id, &entry, &ticket);
    }
    let deadline = context.deadline(game.play_clock);
    game.session.set_cancel(ticket.cancel());
    let reply = play(game.session.as_mut(), deadline).map_err(|e| format!("match {id}: {e}"));
    entry.turns.done(&ticket, Some(&reply));
    played(id, &mut game, reply, context.received)
}

/// The reply to a PLAY that repeats one not answered when it arrived: the same reply, and its
/// moves are not applied again.
fn repeated(id: &str, entry: &Entry<'_>, ticket: &Ticket) -> Result<(String, String), String> {
    log::info(format_args!("match {id}: a repeated PLAY, answered as the first and not applied again"));
    match entry.turns.earlier_reply(ticket) {
        Some(reply) => reply.map(|mv| (mv, String::new())),
        None => {
            Err(format!("match {id}: this PLAY repeats one whose reply is no longer known; it is not applied again"))
        }
    }
}

/// The reply to a message other than PLAY.
fn answer_other(message: Message, context: &Context<'_, '_>) -> Result<String, String> {
    let matches = context.matches;
    match message {
        Message::Info => {
            let table = lock(matches);
            let room = table.matches.len() + table.starting < context.config.max_matches;
            drop(table);
            let health = context.factory.health();
            if let Err(e) = &health {
                log::detail(format_args!("INFO: busy: {e}"));
            }
            Ok(protocol::info_reply(&context.config.name, room && health.is_ok()))
        }
        Message::Ping => Ok("ready".to_string()),
        // A preview only offers time to study a game before some later START: nothing to keep.
        Message::Preview { .. } => Ok("ready".to_string()),
        Message::Start { id, role, rules, start_clock, play_clock } => {
            start(context, Start { id: &id, role: &role, rules: &rules, start_clock, play_clock })
        }
        Message::Stop { id, moves } => {
            let Some(entry) = lock(matches).matches.remove(&id) else { return Ok("busy".to_string()) };
            // The match is over whatever the last moves were, so a wrong one still gets `done`;
            // and a PLAY still busy with it is not waited for.
            entry.turns.end();
            let stopped = entry.game.try_lock().map(|mut game| game.session.stop(moves.as_deref()));
            if let Ok(Err(e)) = stopped {
                log::info(format_args!("match {id}: the last moves were not legal: {e}"));
            }
            log::info(format_args!("match {id}: STOP"));
            Ok("done".to_string())
        }
        Message::StopSeen { id, seen } => {
            let Some(entry) = lock(matches).matches.remove(&id) else { return Ok("busy".to_string()) };
            // As with STOP: the match is over whatever the message says.
            entry.turns.end();
            let stopped = entry.game.try_lock().map(|mut game| game.session.stop_seen(&seen));
            if let Ok(Err(e)) = stopped {
                log::info(format_args!("match {id}: the last percepts were not consistent: {e}"));
            }
            log::info(format_args!("match {id}: STOP"));
            Ok("done".to_string())
        }
        Message::Play { .. } | Message::PlaySeen { .. } => Err("a PLAY is answered by `answer`".to_string()),
        Message::Abort { id } => match lock(matches).matches.remove(&id) {
            Some(entry) => {
                entry.turns.end();
                log::info(format_args!("match {id}: ABORT"));
                Ok("aborted".to_string())
            }
            None => Ok("busy".to_string()),
        },
    }
}

/// Logs a PLAY's reply, counts the step and adds the work behind the move.
fn played(
    id: &str,
    game: &mut Match<'_>,
    reply: Result<String, String>,
    received: Instant,
) -> Result<(String, String), String> {
    game.steps += 1;
    let mv = reply?;
    let work = game.session.work();
    let engine = game.session.engine();
    let seconds = received.elapsed().as_secs_f64();
    let details: Vec<&str> = [engine.as_str(), work.as_str()].into_iter().filter(|s| !s.is_empty()).collect();
    log::info(format_args!("match {id}: step {}: {mv} in {seconds:.3} s ({})", game.steps, details.join(", ")));
    Ok((mv, work))
}

/// Answers START: takes a place among the matches first (so that concurrent STARTs cannot
/// pass the cap), then prepares the session, then puts the match in that place.
fn start(context: &Context<'_, '_>, start: Start<'_>) -> Result<String, String> {
    let matches = context.matches;
    {
        let mut table = lock(matches);
        let replacing = table.matches.contains_key(start.id);
        if table.matches.len() + table.starting >= context.config.max_matches && !replacing {
            log::info(format_args!("match {}: START refused: {} matches in progress", start.id, table.matches.len()));
            return Ok("busy".to_string());
        }
        table.starting += 1;
    }
    let mut session = context.factory.start(&start);
    if let Ok(session) = session.as_mut() {
        session.prepare(context.deadline(start.start_clock));
    }
    let mut table = lock(matches);
    table.starting -= 1;
    let session = session.map_err(|e| format!("cannot play match {}: {e}", start.id))?;
    let engine = session.engine();
    let game = Match {
        session,
        play_clock: start.play_clock,
        start_clock: start.start_clock,
        steps: 0,
        last_message: context.received,
    };
    let replaced =
        table.matches.insert(start.id.to_string(), Arc::new(Entry { game: Mutex::new(game), turns: Turns::default() }));
    drop(table);
    if let Some(old) = replaced {
        old.turns.end();
    }
    let seconds = context.received.elapsed().as_secs_f64();
    log::info(format_args!(
        "match {}: START as {} ({} rules, clocks {}+{} s): ready in {seconds:.3} s{}",
        start.id,
        start.role,
        start.rules.len(),
        start.start_clock.as_secs_f64(),
        start.play_clock.as_secs_f64(),
        if engine.is_empty() { String::new() } else { format!(", {engine}") }
    ));
    Ok("ready".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_time_keeps_a_margin_on_every_clock() {
        assert_eq!(think_time(Duration::from_secs(10)), Duration::from_millis(8500));
        assert_eq!(think_time(Duration::from_secs(1)), Duration::from_millis(800));
        assert_eq!(think_time(Duration::from_millis(250)), Duration::from_millis(150));
        assert_eq!(think_time(Duration::from_millis(100)), Duration::from_millis(50));
        assert_eq!(think_time(Duration::from_millis(20)), Duration::from_millis(10));
    }
}
