//! The player under attack and faults, over real sockets: slow clients that try to hold every
//! connection, a burst of STARTs past the cap on matches, managers that vanish, and HTTP that
//! bends the rules, games whose rules explode in the interpreter, and an honest INFO.

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

mod common;

use gdl_player::player::Kind;
use gdl_player::server::{Config, Server, MAX_CONNECTIONS};
use gdl_player::session::{GameFactory, MatchSession, Start};
use gdlc_cli::play::InterpreterFactory;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn tic_tac_toe() -> String {
    std::fs::read_to_string(format!("{}/../games/ticTacToe.kif", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn serve(config: Config) -> String {
    let server = Server::bind("127.0.0.1:0", config).unwrap();
    let address = server.local_addr().unwrap().to_string();
    std::thread::spawn(move || server.serve(&InterpreterFactory { player: Kind::Random }));
    address
}

/// Sends raw bytes and returns the status and the body of the reply.
fn raw(address: &str, request: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let _ = stream.write_all(request);
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    let reply = String::from_utf8_lossy(&reply).into_owned();
    let status = reply.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, reply.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_string())
}

fn post(address: &str, body: &str) -> (u16, String) {
    raw(address, format!("POST / HTTP/1.0\r\nContent-Length: {}\r\n\r\n{body}", body.len()).as_bytes())
}

fn start(id: &str, clocks: &str) -> String {
    format!("(START {id} xplayer ({}) {clocks})", tic_tac_toe())
}

#[test]
fn slow_clients_holding_every_connection_do_not_lock_a_manager_out() {
    let address = serve(Config::default());
    let stop = Arc::new(AtomicBool::new(false));
    // One client keeps as many connections open as the server allows, each sending a byte of
    // its message every quarter of a second, and opens a new one whenever one is closed.
    let attackers: Vec<_> = (0..MAX_CONNECTIONS)
        .map(|_| {
            let (address, stop) = (address.clone(), Arc::clone(&stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let Ok(mut stream) = TcpStream::connect(&address) else { continue };
                    for byte in b"POST / HTTP/1.0\r\nContent-Length: 6\r\n\r\n(PING)".iter().cycle() {
                        if stop.load(Ordering::Relaxed) || stream.write_all(&[*byte]).is_err() {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(250));
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(2));
    // A manager plays a match meanwhile, and every message of it gets through.
    assert_eq!(post(&address, &start("m", "10 1")), (200, "ready".to_string()));
    let (status, ours) = post(&address, "(PLAY m NIL)");
    assert_eq!(status, 200, "{ours}");
    assert_eq!(post(&address, &format!("(PLAY m ({ours} noop))")), (200, "noop".to_string()));
    assert_eq!(post(&address, "(ABORT m)"), (200, "aborted".to_string()));
    let probes = (0..20).filter(|_| post(&address, "(PING)") == (200, "ready".to_string())).count();
    stop.store(true, Ordering::Relaxed);
    for attacker in attackers {
        attacker.join().unwrap();
    }
    assert_eq!(probes, 20);
}

#[test]
fn the_cap_on_matches_holds_under_a_burst_of_starts() {
    let address = serve(Config { max_matches: 4, ..Config::default() });
    let replies: Vec<String> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..12)
            .map(|i| {
                let address = &address;
                scope.spawn(move || post(address, &start(&format!("burst{i}"), "10 1")).1)
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    assert_eq!(replies.iter().filter(|r| *r == "ready").count(), 4, "{replies:?}");
    assert_eq!(replies.iter().filter(|r| *r == "busy").count(), 8, "{replies:?}");
}

#[test]
fn a_match_whose_manager_vanished_expires_and_frees_its_place() {
    let config = Config { max_matches: 1, expiry_slack: Duration::from_millis(200), ..Config::default() };
    let address = serve(config);
    assert_eq!(post(&address, &start("gone", "1 1")).1, "ready");
    assert_eq!(post(&address, &start("other", "1 1")).1, "busy");
    // Three clocks and the slack after the last message, and the reaper's second.
    let until = Instant::now() + Duration::from_secs(10);
    while post(&address, "(INFO)").1.contains("busy") {
        assert!(Instant::now() < until, "the silent match never expired");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(post(&address, "(PLAY gone NIL)").1, "busy");
    assert_eq!(post(&address, &start("other", "1 1")).1, "ready");
}

#[test]
fn content_lengths_must_be_one_plain_number() {
    let address = serve(Config::default());
    let (status, reply) = raw(&address, b"POST / HTTP/1.0\r\nContent-Length: +6\r\n\r\n(PING)");
    assert_eq!(status, 400, "{reply}");
    let two = b"POST / HTTP/1.0\r\nContent-Length: 6\r\nContent-Length: 7\r\n\r\n(PING) ";
    let (status, reply) = raw(&address, two);
    assert!(status == 400 && reply.contains("two different Content-Lengths"), "{status} {reply}");
    let same = b"POST / HTTP/1.0\r\nContent-Length: 6\r\nContent-Length: 6\r\n\r\n(PING)";
    assert_eq!(raw(&address, same), (200, "ready".to_string()));
}

#[test]
fn oversized_heads_and_too_many_headers_get_431() {
    let address = serve(Config::default());
    let many: String = (0..100).map(|i| format!("X-H{i}: {i}\r\n")).collect();
    let (status, reply) = raw(&address, format!("POST / HTTP/1.0\r\n{many}Content-Length: 6\r\n\r\n(PING)").as_bytes());
    assert_eq!(status, 431, "{reply}");
    // A head of exactly the limit is read; one byte more is refused.
    let limit = gdl_player::http::MAX_HEAD;
    let head = |size: usize| {
        let start = "POST / HTTP/1.0\r\nContent-Length: 6\r\nX-Pad: ";
        let pad = "a".repeat(size - start.len() - 4);
        format!("{start}{pad}\r\n\r\n(PING)")
    };
    assert_eq!(raw(&address, head(limit).as_bytes()), (200, "ready".to_string()));
    assert_eq!(raw(&address, head(limit + 1).as_bytes()).0, 431);
}

#[test]
fn a_refused_body_is_drained_so_that_the_client_reads_the_refusal() {
    let address = serve(Config::default());
    let size = gdl_player::server::MAX_BODY + 1024 * 1024;
    let mut request = format!("POST / HTTP/1.0\r\nContent-Length: {size}\r\n\r\n").into_bytes();
    request.resize(request.len() + size, b' ');
    let (status, reply) = raw(&address, &request);
    assert_eq!(status, 413, "{reply}");
}

/// A game that grounding refuses (its legal moves in the `hot` state are 50^6) and whose
/// interpreter explodes after the first moves: in `on`, `terminal` derives 50^6 facts of
/// `big` while the legal moves are known; in `hot`, the legal moves themselves are 50^6.
/// With `init_on`, the initial state already explodes.
fn exploding_game(init_on: bool) -> String {
    let values: String = (1..=50).map(|n| format!("(val {n}) ")).collect();
    let init = if init_on { "(init (on))" } else { "(init (off))" };
    format!(
        "(role p) {init} {values}
         (<= (big ?a ?b ?c ?d ?e ?f) (true (on)) (val ?a) (val ?b) (val ?c) (val ?d) (val ?e) (val ?f))
         (<= (legal p flip) (true (off))) (<= (legal p wait) (true (off)))
         (<= (legal p (pick ?a)) (true (on)) (val ?a))
         (<= (legal p (go ?a ?b ?c ?d ?e ?f)) (true (hot)) (val ?a) (val ?b) (val ?c) (val ?d) (val ?e) (val ?f))
         (<= (next (on)) (does p flip)) (<= (next (off)) (does p wait)) (<= (next (hot)) (does p (pick ?a)))
         (<= terminal (big ?a ?b ?c ?d ?e ?f))
         (<= (goal p 100) (true (on))) (<= (goal p 0) (not (true (on))))"
    )
}

/// Posts `body` and checks that the reply came within `clock`.
fn timed_post(address: &str, body: &str, clock: Duration) -> (u16, String) {
    let sent = Instant::now();
    let reply = post(address, body);
    assert!(sent.elapsed() < clock, "{} took {:?}: {reply:?}", &body[..body.len().min(30)], sent.elapsed());
    reply
}

#[test]
fn a_game_that_explodes_in_the_interpreter_costs_errors_not_the_process() {
    let player = common::serve(&["--max-facts", "1000000"]);
    let opponent = common::serve(&["--player", "random"]);
    let address = player.url.trim_start_matches("http://").trim_end_matches('/').to_string();
    let clock = Duration::from_secs(2);
    // A ticTacToe match on the same player all along.
    let (goals, record) = std::thread::scope(|scope| {
        let tic_tac_toe = scope.spawn(|| common::run_match(&common::game("ticTacToe.kif"), &[&player, &opponent], "2"));
        exploding_match(&address, clock);
        tic_tac_toe.join().unwrap()
    });
    common::check_replies(&record, &goals, 2000);
}

/// The match of [`exploding_game`], each reply within `clock`.
fn exploding_match(address: &str, clock: Duration) {
    let start = format!("(START boom p ({}) 5 2)", exploding_game(false));
    assert_eq!(timed_post(address, &start, Duration::from_secs(5)), (200, "ready".to_string()));
    assert_eq!(timed_post(address, "(PLAY boom NIL)", clock).0, 200);
    // In `on`, the search runs into the limit on `terminal`, and a known legal move answers.
    let (status, reply) = timed_post(address, "(PLAY boom (flip))", clock);
    assert!(status == 200 && reply.starts_with("(pick "), "{status} {reply}");
    // In `hot`, no legal move can be known: a clear error names the limit and the relation.
    let (status, reply) = timed_post(address, "(PLAY boom ((pick 3)))", clock);
    assert_eq!(status, 400, "{reply}");
    assert!(reply.contains("legal") && reply.contains("limits"), "{reply}");
    // A game whose initial state explodes is refused at START.
    let start = format!("(START boom2 p ({}) 5 2)", exploding_game(true));
    let (status, reply) = timed_post(address, &start, Duration::from_secs(5));
    assert!(status == 400 && reply.contains("initial state") && reply.contains("big"), "{status} {reply}");
    assert_eq!(post(address, "(PING)"), (200, "ready".to_string()));
}

#[test]
fn a_start_whose_static_relations_are_huge_answers_within_its_clock() {
    let player = common::serve(&[]);
    let address = player.url.trim_start_matches("http://").trim_end_matches('/').to_string();
    let values: String = (1..=60).map(|n| format!("(val {n}) ")).collect();
    // Twenty static relations of 60^4 facts each, which the interpreter computes up to its
    // limits before it leaves them to be computed on demand, and 60^5 legal moves, which
    // grounding refuses after a while: unbounded, loading takes several start clocks.
    let quads: String = (0..20)
        .map(|k| {
            format!(
                "(<= (quad{k} (f ?a ?b) (f ?c ?d)) (val ?a) (val ?b) (val ?c) (val ?d)) \
                 (<= (legal p (go{k} ?x)) (true (s ?x)) (quad{k} ?y (f ?x ?x))) "
            )
        })
        .collect();
    let rules = format!(
        "(role p) (init (s 1)) {values} {quads}
         (<= (legal p (many ?a ?b ?c ?d ?e)) (true (s 1)) (val ?a) (val ?b) (val ?c) (val ?d) (val ?e))
         (<= (next (s 2)) (does p (go0 ?x))) (<= terminal (true (s 2))) (goal p 100)"
    );
    let (status, reply) = timed_post(&address, &format!("(START huge p ({rules}) 3 2)"), Duration::from_secs(3));
    assert!(status == 200 && reply == "ready" || status == 400 && reply.contains("start clock"), "{status} {reply}");
    assert_eq!(post(&address, "(PING)"), (200, "ready".to_string()));
}

/// A factory whose backends are down.
struct Down(InterpreterFactory);

impl GameFactory for Down {
    fn start<'s>(&'s self, start: &Start) -> Result<Box<dyn MatchSession + 's>, String> {
        self.0.start(start)
    }

    fn health(&self) -> Result<(), String> {
        Err("the native backend is down".to_string())
    }
}

#[test]
fn info_says_busy_when_the_player_is_full_or_its_backends_are_down() {
    let address = serve(Config { max_matches: 1, ..Config::default() });
    assert!(post(&address, "(INFO)").1.contains("available"));
    assert_eq!(post(&address, &start("full", "10 1")).1, "ready");
    assert!(post(&address, "(INFO)").1.contains("busy"));
    assert_eq!(post(&address, "(ABORT full)").1, "aborted");
    assert!(post(&address, "(INFO)").1.contains("available"));
    let server = Server::bind("127.0.0.1:0", Config::default()).unwrap();
    let down = server.local_addr().unwrap().to_string();
    std::thread::spawn(move || server.serve(&Down(InterpreterFactory { player: Kind::Random })));
    assert!(post(&down, "(INFO)").1.contains("busy"));
}
