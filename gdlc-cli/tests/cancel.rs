//! The order and cancellation of a match's PLAYs, over real sockets: a STOP or a newer PLAY
//! ends the search of the PLAY being answered at once, and a PLAY sent again while the first
//! is being answered gets the same reply without being applied twice.

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

use gdl_player::player::Kind;
use gdl_player::server::{Config, Server};
use gdlc_cli::play::InterpreterFactory;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

fn tic_tac_toe() -> String {
    std::fs::read_to_string(format!("{}/../games/ticTacToe.kif", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// A server whose MCTS player searches until the deadline.
fn serve() -> String {
    let server = Server::bind("127.0.0.1:0", Config::default()).unwrap();
    let address = server.local_addr().unwrap().to_string();
    std::thread::spawn(move || server.serve(&InterpreterFactory { player: Kind::Mcts }));
    address
}

fn post(address: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(stream, "POST / HTTP/1.0\r\nContent-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    let status = reply.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, reply.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_string())
}

/// Posts `body` on a thread of its own; the reply comes with the time it arrived.
fn post_later(address: &str, body: String) -> std::thread::JoinHandle<((u16, String), Instant)> {
    let address = address.to_string();
    std::thread::spawn(move || {
        let reply = post(&address, &body);
        (reply, Instant::now())
    })
}

fn start(address: &str, id: &str, role: &str, play_clock: u32) {
    let message = format!("(START {id} {role} ({}) 30 {play_clock})", tic_tac_toe());
    assert_eq!(post(address, &message), (200, "ready".to_string()));
}

#[test]
fn a_stop_during_a_long_play_ends_its_search_at_once() {
    let address = serve();
    // The play clock gives the search 28.5 s.
    start(&address, "long", "xplayer", 30);
    let play = post_later(&address, "(PLAY long NIL)".to_string());
    std::thread::sleep(Duration::from_secs(1));
    let stopping = Instant::now();
    assert_eq!(post(&address, "(STOP long NIL)"), (200, "done".to_string()));
    assert!(stopping.elapsed() < Duration::from_secs(1), "STOP waited for the PLAY");
    let ((status, _), answered) = play.join().unwrap();
    assert_eq!(status, 200);
    let after = answered.saturating_duration_since(stopping);
    assert!(after < Duration::from_secs(3), "the PLAY searched on for {after:?} after STOP");
}

#[test]
fn a_newer_play_cancels_the_search_of_the_one_before_and_is_applied_after_it() {
    let address = serve();
    start(&address, "newer", "xplayer", 30);
    let first = post_later(&address, "(PLAY newer NIL)".to_string());
    std::thread::sleep(Duration::from_secs(1));
    let sent = Instant::now();
    // The manager gave up on the first reply and moved on with a move of its own choosing.
    let second = post(&address, "(PLAY newer ((mark 2 2) noop))");
    assert_eq!(second, (200, "noop".to_string()), "the newer PLAY was not applied after the first");
    let ((status, _), answered) = first.join().unwrap();
    assert_eq!(status, 200);
    let after = answered.saturating_duration_since(sent);
    assert!(after < Duration::from_secs(3), "the first PLAY searched on for {after:?} after the second came");
    assert!(sent.elapsed() < Duration::from_secs(8), "the second PLAY waited for the first's whole clock");
    // The state holds one mark: the centre is taken, a corner is not.
    assert_eq!(post(&address, "(PLAY newer (noop (mark 2 2)))").0, 400);
}

#[test]
fn a_play_sent_again_while_it_is_answered_is_not_applied_twice() {
    let address = serve();
    start(&address, "again", "oplayer", 3);
    assert_eq!(post(&address, "(PLAY again NIL)"), (200, "noop".to_string()));
    let message = "(PLAY again ((mark 1 1) noop))".to_string();
    let first = post_later(&address, message.clone());
    std::thread::sleep(Duration::from_millis(500));
    let repeat = post(&address, &message);
    let (first, _) = first.join().unwrap();
    assert_eq!(first.0, 200, "{first:?}");
    assert_eq!(repeat, first, "the repeated PLAY did not get the first reply");
    // Applied once: xplayer's mark is on the board once, and oplayer's move follows it.
    let next = format!("(PLAY again (noop {}))", first.1);
    assert_eq!(post(&address, &next).0, 200);
}
