//! The GGP player protocol over real sockets: every message in both letter cases, the game's
//! own spelling in replies, recognition up to renaming, concurrent matches, bad input, and the
//! manager's substitutions for players that fail.

// A test reports a failure by panicking, so its helpers unwrap too.
#![allow(clippy::unwrap_used)]

use gdl_player::manager::{self, Options};
use gdl_player::player::Kind;
use gdl_player::server::{Config, Server};
use gdl_player::session::{GameFactory, OwnGame};
use gdl_runtime::kif::{self, Sx};
use gdlc::interp::Interpreter;
use gdlc_cli::play::{interpreter_of, InterpreterFactory};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

fn game_text(file: &str) -> String {
    std::fs::read_to_string(format!("{}/../games/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Starts a server with `factory` in the background and returns its address.
fn serve(factory: Box<dyn GameFactory>, config: Config) -> String {
    let server = Server::bind("127.0.0.1:0", config).unwrap();
    let address = server.local_addr().unwrap().to_string();
    std::thread::spawn(move || server.serve(&*factory));
    address
}

fn interpreter_server(player: Kind) -> String {
    serve(Box::new(InterpreterFactory { player }), Config::default())
}

/// Sends raw bytes and returns the whole raw reply.
fn raw(address: &str, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    stream.write_all(request).unwrap();
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).unwrap();
    String::from_utf8(reply).unwrap()
}

/// POSTs a message as ggp-base's manager does and returns the status line's code and the body.
fn post(address: &str, body: &str) -> (u16, String) {
    let request = format!("POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n{body}", body.len());
    split(&raw(address, request.as_bytes()))
}

fn split(reply: &str) -> (u16, String) {
    let status = reply.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = reply.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, body.to_string())
}

fn ok(address: &str, body: &str) -> String {
    let (status, reply) = post(address, body);
    assert_eq!(status, 200, "{body} -> {reply}");
    reply
}

fn start(id: &str, role: &str, rules: &str, play_clock: &str) -> String {
    format!("(START {id} {role} ({rules}) 10 {play_clock})")
}

#[test]
fn replies_are_http_1_0_with_cors_headers_and_options_is_answered() {
    let address = interpreter_server(Kind::Random);
    let reply = raw(&address, b"POST / HTTP/1.0\r\nContent-Length: 6\r\n\r\n(PING)");
    assert!(reply.starts_with("HTTP/1.0 200 OK\r\n"), "{reply}");
    for header in ["Content-type: text/acl", "Access-Control-Allow-Origin: *", "Access-Control-Allow-Methods: POST"] {
        assert!(reply.contains(header), "{header} missing from {reply}");
    }
    assert!(reply.ends_with("\r\n\r\nready"), "{reply}");
    let reply = raw(&address, b"OPTIONS / HTTP/1.1\r\nOrigin: http://example.org\r\n\r\n");
    assert!(reply.starts_with("HTTP/1.0 200 OK\r\n") && reply.contains("Access-Control-Allow-Origin: *"), "{reply}");
}

#[test]
fn every_message_in_both_letter_cases() {
    let address = interpreter_server(Kind::Random);
    let rules = game_text("ticTacToe.kif");
    for upper in [true, false] {
        let case = |text: String| if upper { text.to_uppercase() } else { text.to_lowercase() };
        let id = if upper { "M1" } else { "m1" };
        assert_eq!(ok(&address, &case("(info)".into())), "((name gdlc) (status available))");
        assert_eq!(ok(&address, &case("(ping)".into())), "ready");
        assert_eq!(ok(&address, &case(start(id, "xplayer", &rules, "1"))), "ready");
        let first = ok(&address, &case(format!("(play {id} nil)")));
        let mark = kif::parse_one(&first).unwrap();
        assert!(matches!(&mark, Sx::List(l) if l.len() == 3), "{first}");
        // The reply spells the game's symbols as START did.
        assert_eq!(first, case(first.clone()));
        let second = ok(&address, &case(format!("(play {id} ({first} noop))")));
        assert_eq!(second, case("noop".into()));
        assert_eq!(ok(&address, &case(format!("(stop {id} (noop (mark 3 3)))"))), "done");
        assert_eq!(ok(&address, &case(start(id, "oplayer", &rules, "1"))), "ready");
        assert_eq!(ok(&address, &case(format!("(abort {id})"))), "aborted");
        // Once over, the match is unknown.
        assert_eq!(ok(&address, &case(format!("(play {id} nil)"))), "busy");
        assert_eq!(ok(&address, &case(format!("(stop {id} nil)"))), "busy");
        assert_eq!(ok(&address, &case(format!("(abort {id})"))), "busy");
    }
}

const MIXED_CASE: &str = "(role Walker) (role Watcher) (init (Position 1)) \
    (<= (legal Walker (moveTo ?n)) (true (Position ?m)) (Succ ?m ?n)) (legal Watcher Wait) \
    (<= (next (Position ?n)) (does Walker (moveTo ?n))) (Succ 1 2) (Succ 2 Three) \
    (<= terminal (true (Position Three))) (goal Walker 100) (goal Watcher 0)";

#[test]
fn moves_use_the_spelling_of_start_even_when_the_manager_shouts() {
    let address = interpreter_server(Kind::Mcts);
    assert_eq!(ok(&address, &start("mixed", "Walker", MIXED_CASE, "1")), "ready");
    assert_eq!(ok(&address, "(PLAY mixed NIL)"), "(moveTo 2)");
    assert_eq!(ok(&address, "(PLAY mixed ((MOVETO 2) WAIT))"), "(moveTo Three)");
    assert_eq!(ok(&address, "(STOP mixed ((moveto three) wait))"), "done");
    assert_eq!(ok(&address, &start("shout", "WATCHER", &MIXED_CASE.to_uppercase(), "1")), "ready");
    assert_eq!(ok(&address, "(PLAY shout NIL)"), "WAIT");
}

/// ticTacToe with every symbol but the keywords renamed, as ggp-base's scrambler does.
fn scrambled_tic_tac_toe() -> (String, impl Fn(&str) -> String) {
    let names = |word: &str| match word.to_lowercase().as_str() {
        "xplayer" => "Alpha".to_string(),
        "oplayer" => "Beta".to_string(),
        "mark" => "Gamma".to_string(),
        "noop" => "Delta".to_string(),
        w if w.len() == 1 && w.chars().all(|c| c.is_ascii_digit()) => format!("N{w}"),
        w => format!("S_{w}"),
    };
    let rules = kif::parse_all(&game_text("ticTacToe.kif")).unwrap();
    fn walk(sx: &Sx, names: &dyn Fn(&str) -> String) -> Sx {
        match sx {
            Sx::List(items) => Sx::List(items.iter().map(|i| walk(i, names)).collect()),
            Sx::Atom(a) if a.starts_with('?') || gdl_player::rename::KEYWORDS.contains(&a.as_str()) => sx.clone(),
            Sx::Atom(a) => Sx::Atom(names(a)),
        }
    }
    let text: Vec<String> = rules.iter().map(|r| walk(r, &names).to_string()).collect();
    (text.join(" "), names)
}

#[test]
fn a_compiled_game_is_recognized_up_to_renaming_and_another_is_refused() {
    // The interpreter stands in for a compiled game: OwnGame only needs a Game and its rules.
    let rules = kif::parse_all(&game_text("ticTacToe.kif")).unwrap();
    let game: &'static Interpreter = Box::leak(Box::new(interpreter_of(&rules).unwrap()));
    let factory = OwnGame { game, name: "ticTacToe".into(), rules, player: Kind::Mcts };
    let address = serve(Box::new(factory), Config::default());
    let (scrambled, names) = scrambled_tic_tac_toe();
    assert_eq!(ok(&address, &start("s1", "Beta", &scrambled, "1")), "ready");
    let noop = names("noop");
    assert_eq!(ok(&address, "(PLAY s1 NIL)"), noop);
    let reply = ok(&address, &format!("(PLAY s1 (({} N2 N2) {noop}))", names("mark")));
    assert!(reply.starts_with(&format!("({} N", names("mark"))), "{reply}");
    assert_eq!(ok(&address, "(ABORT s1)"), "aborted");
    let (status, reply) = post(&address, &start("c4", "white", &game_text("connectFour.kif"), "1"));
    assert_eq!(status, 400);
    assert!(reply.contains("only plays ticTacToe"), "{reply}");
}

#[test]
fn the_interpreter_plays_a_scrambled_game_in_its_scrambled_names() {
    let address = interpreter_server(Kind::Random);
    let (scrambled, names) = scrambled_tic_tac_toe();
    assert_eq!(ok(&address, &start("s2", "Alpha", &scrambled, "1")), "ready");
    let reply = ok(&address, "(PLAY s2 NIL)");
    assert!(reply.starts_with(&format!("({} N", names("mark"))), "{reply}");
}

#[test]
fn concurrent_matches_are_kept_apart() {
    let address = interpreter_server(Kind::Random);
    let rules = game_text("ticTacToe.kif");
    std::thread::scope(|scope| {
        for n in 0..4 {
            let (address, rules) = (&address, &rules);
            scope.spawn(move || {
                let id = format!("match{n}");
                assert_eq!(ok(address, &start(&id, "oplayer", rules, "1")), "ready");
                assert_eq!(ok(address, &format!("(PLAY {id} NIL)")), "noop");
                // Each match follows its own moves: x marks a different cell in each.
                let cell = format!("(mark {} 1)", n % 3 + 1);
                let reply = ok(address, &format!("(PLAY {id} ({cell} noop))"));
                assert!(reply.starts_with("(mark") && reply != cell, "{reply}");
                let (status, error) = post(address, &format!("(PLAY {id} ({cell} noop))"));
                assert_eq!(status, 400, "{error}");
                assert_eq!(ok(address, &format!("(STOP {id} NIL)")), "done");
            });
        }
    });
}

#[test]
fn bad_messages_get_clear_errors_and_the_server_keeps_serving() {
    let config = Config { request_timeout: Duration::from_millis(300), ..Config::default() };
    let address = serve(Box::new(InterpreterFactory { player: Kind::Random }), config);
    let rules = game_text("ticTacToe.kif");
    assert_eq!(ok(&address, &start("live", "xplayer", &rules, "1")), "ready");
    // A client that connects and sends nothing is dropped after the timeout.
    let silent = TcpStream::connect(&address).unwrap();
    let half = TcpStream::connect(&address).unwrap();
    (&half).write_all(b"POST / HTTP/1.0\r\nContent-Length: 100\r\n\r\n(PIN").unwrap();
    let cases: Vec<(String, u16, &str)> = vec![
        ("(PLAY live NIL".into(), 400, "unbalanced"),
        ("(PLAY live NIL))".into(), 400, "unbalanced"),
        ("hello".into(), 400, "expected a parenthesized command"),
        ("(DANCE live)".into(), 400, "unknown command `DANCE`"),
        ("(PLAY live ((mark 1 1)))".into(), 400, "expected 2 moves, one per role, but got 1"),
        ("(PLAY live ((mark 1 1) noop))".into(), 200, "noop"),
        ("(PLAY live ((mark 1 1) (mark 2 2)))".into(), 400, "is not a legal move of role `xplayer`"),
        ("(PLAY live ((mark 9 9) noop))".into(), 400, "`(mark 9 9)` is not a legal move"),
        ("(PLAY nosuchmatch NIL)".into(), 200, "busy"),
        (start("bad", "xplayer", "(role xplayer) (init (cell 1))", "1"), 400, "not a valid game"),
        (start("bad", "nobody", &rules, "1"), 400, "`nobody` is not a role of this game"),
        ("".into(), 400, "expected a term"),
    ];
    for (body, status, expected) in &cases {
        let (got, reply) = post(&address, body);
        assert_eq!(got, *status, "{body} -> {reply}");
        assert!(reply.contains(expected), "{body} -> {reply}");
    }
    let oversized = format!("POST / HTTP/1.0\r\nContent-Length: {}\r\n\r\n(PING)", 100 * 1024 * 1024);
    let (status, reply) = split(&raw(&address, oversized.as_bytes()));
    assert_eq!(status, 413, "{reply}");
    let (status, _) = split(&raw(&address, b"POST / HTTP/1.0\r\n\r\n(PING)"));
    assert_eq!(status, 411);
    let (status, _) = split(&raw(&address, b"GET / HTTP/1.0\r\n\r\n"));
    assert_eq!(status, 405);
    let (status, _) = split(&raw(&address, b"\x00\x01garbage\r\n\r\n"));
    assert_eq!(status, 400);
    let (status, _) = split(&raw(&address, b"POST / HTTP/1.0\r\nContent-Length: 2\r\n\r\n\xff\xfe"));
    assert_eq!(status, 400);
    // The silent clients get a timeout reply, and the live match still plays.
    for mut client in [silent, half] {
        client.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut reply = String::new();
        client.read_to_string(&mut reply).unwrap();
        assert_eq!(split(&reply).0, 408, "{reply}");
    }
    assert_eq!(ok(&address, "(STOP live NIL)"), "done");
    assert_eq!(ok(&address, "(PING)"), "ready");
}

#[test]
fn a_full_server_says_busy() {
    let config = Config { max_matches: 1, ..Config::default() };
    let address = serve(Box::new(InterpreterFactory { player: Kind::Random }), config);
    let rules = game_text("ticTacToe.kif");
    assert_eq!(ok(&address, &start("one", "xplayer", &rules, "1")), "ready");
    assert_eq!(ok(&address, "(INFO)"), "((name gdlc) (status busy))");
    assert_eq!(ok(&address, &start("two", "xplayer", &rules, "1")), "busy");
    assert_eq!(ok(&address, "(ABORT one)"), "aborted");
    assert_eq!(ok(&address, "(info)"), "((name gdlc) (status available))");
}

/// A fake player that accepts connections and answers each with `reply` after `delay`
/// (`None`: never answers, holding the connection open).
fn fake_player(reply: Option<&'static str>, delay: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut buffer = [0u8; 65536];
                let _ = stream.read(&mut buffer);
                let Some(reply) = reply else {
                    std::thread::sleep(Duration::from_secs(600));
                    return;
                };
                std::thread::sleep(delay);
                let text = if String::from_utf8_lossy(&buffer).contains("START") { "ready" } else { reply };
                let _ = write!(stream, "HTTP/1.0 200 OK\r\nContent-length: {}\r\n\r\n{text}", text.len());
            });
        }
    });
    format!("http://{address}/")
}

fn tic_tac_toe_match(players: Vec<String>, play_clock: Duration) -> manager::Record {
    let rules = kif::parse_all(&game_text("ticTacToe.kif")).unwrap();
    let game = interpreter_of(&rules).unwrap();
    let options =
        Options { match_id: "manager-test".into(), players, start_clock: Duration::from_secs(2), play_clock, seed: 7 };
    manager::run_match(&game, &rules, &options, &mut |_| {}).unwrap()
}

#[test]
fn the_manager_substitutes_missing_late_and_illegal_moves() {
    let clock = Duration::from_millis(300);
    let real = format!("http://{}/", interpreter_server(Kind::Mcts));
    let cases = [
        (fake_player(None, Duration::ZERO), "late"),
        (fake_player(Some("(mark 1 1)"), clock * 3), "late"),
        (fake_player(Some("(mark 9 9)"), Duration::ZERO), "illegal"),
        (fake_player(Some("(mark 1 1"), Duration::ZERO), "illegal"),
        ("http://127.0.0.1:1/".to_string(), "missing"),
    ];
    for (fake, reason) in cases {
        let started = Instant::now();
        let record = tic_tac_toe_match(vec![fake.clone(), real.clone()], clock);
        let steps = record.steps.len();
        assert!(steps >= 5 && record.goals.len() == 2, "{record:?}");
        // Every state substitutes xplayer's move, even noop (a late or wrong reply is never
        // trusted), and never oplayer's.
        assert_eq!(record.substitution_counts(), vec![steps, 0], "{fake}: {record:?}");
        assert!(record.steps.iter().flat_map(|s| &s.substitutions).all(|s| s.reason == reason), "{record:?}");
        // The real player answers within the play clock: it is never substituted (so every
        // reply came within the clock and its grace), and its median reply where it had a
        // choice came within the clock itself (one reply may pass it by a scheduling delay on a
        // loaded machine).
        let mut replies: Vec<u64> =
            record.steps.iter().filter(|s| s.legal_counts[1] > 1).map(|s| s.reply_ms[1]).collect();
        replies.sort_unstable();
        assert!(replies.get(replies.len() / 2).is_none_or(|&ms| ms <= clock.as_millis() as u64), "{record:?}");
        // Nobody waits much past the clock and its grace for a player that never answers.
        let bound = (clock + manager::NETWORK_GRACE) * (steps as u32 + 2) + Duration::from_secs(4);
        assert!(started.elapsed() < bound, "{:?}", started.elapsed());
        // The record replays: every move legal, the goals those of the game (`gdlc replay --check`).
        let game = interpreter_of(&kif::parse_all(&game_text("ticTacToe.kif")).unwrap()).unwrap();
        let json = serde_json::to_string(&record).unwrap();
        let checked = gdl_player::driver::replay_text(&game, &json, true).unwrap();
        assert!(checked.starts_with(&format!("record: {steps} joint moves legal")), "{checked}");
    }
}

/// Sends `body` exactly as ggp-base's `HttpWriter.writeAsClient` does (its headers, in its
/// order, with the empty `Receiver` of a player that has no name) and reads the reply as its
/// `HttpReader.readAsClient` does: the status line is skipped like any header, the body is the
/// `Content-length` characters after the blank line, trimmed.
fn ggp_base_request(address: &str, body: &str) -> String {
    let request = format!(
        "POST / HTTP/1.0\r\nAccept: text/delim\r\nHost: localhost\r\nSender: GAMESERVER\r\nReceiver: \r\n\
         Content-Type: text/acl\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let reply = raw(address, request.as_bytes());
    let (head, rest) = reply.split_once("\r\n\r\n").expect("a blank line ends the head");
    let length = head
        .lines()
        .find_map(|l| l.to_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse::<usize>().unwrap()))
        .expect("ggp-base reads exactly Content-length characters");
    assert_eq!(rest.len(), length, "{reply}");
    rest.trim().to_string()
}

/// A term rendered as ggp-base's `GdlRenderer` writes it: a space inside every parenthesis.
fn ggp_base_render(sx: &Sx) -> String {
    match sx {
        Sx::Atom(a) => a.clone(),
        Sx::List(items) => format!("( {} )", items.iter().map(|i| ggp_base_render(i) + " ").collect::<String>()),
    }
}

/// ggp-base's `MappingGdlScrambler`: every constant and variable except GdlPool's keywords
/// and integers gets a fresh lower-case word (a variable `?` and a word), one mapping for the
/// whole match.
struct GgpBaseScrambler {
    scramble: std::collections::HashMap<String, String>,
}

impl GgpBaseScrambler {
    fn word(&mut self, real: &str) -> String {
        let keywords = ["init", "true", "next", "role", "does", "goal", "legal", "terminal", "base", "input", "_"];
        let structural = ["<=", "not", "or", "distinct"];
        if keywords.contains(&real.to_lowercase().as_str()) || structural.contains(&real) || real.parse::<i32>().is_ok()
        {
            return real.to_string();
        }
        let next = format!(
            "{}{}",
            if real.starts_with('?') { "?" } else { "" },
            ["everything", "officials", "knowledge"][self.scramble.len() % 3].to_string()
                + &self.scramble.len().to_string()
        );
        self.scramble.entry(real.to_string()).or_insert(next).clone()
    }

    fn term(&mut self, sx: &Sx) -> Sx {
        match sx {
            Sx::Atom(a) => Sx::Atom(self.word(a)),
            Sx::List(items) => Sx::List(items.iter().map(|i| self.term(i)).collect()),
        }
    }

    /// `unscramble`: fake words are read in any case; unknown words come back lower-cased.
    fn unscramble(&self, sx: &Sx) -> Sx {
        match sx {
            Sx::Atom(a) => {
                let fake = a.to_lowercase();
                let real = self.scramble.iter().find(|(_, f)| **f == fake).map(|(r, _)| r.clone());
                Sx::Atom(real.unwrap_or(if fake.parse::<i32>().is_ok() { a.clone() } else { fake }))
            }
            Sx::List(items) => Sx::List(items.iter().map(|i| self.unscramble(i)).collect()),
        }
    }
}

/// Runs whole matches the way ggp-base's `GameServer` does, with its exact messages, against
/// one interpreter player per role, scrambled (as its GUI server does by default) and not
/// (as `GameServerRunner` does), and checks every reply as it does: the reply, unscrambled,
/// must be one of the legal moves spelled exactly as in the rules (a case-sensitive match).
#[test]
fn ggp_base_game_server_matches_record_no_errors() {
    let text = game_text("ticTacToe.kif");
    let rules = kif::parse_all(&text).unwrap();
    let game = interpreter_of(&rules).unwrap();
    let spelling = gdl_player::rename::Spelling::of_rules(&rules);
    use gdl_runtime::Game as _;
    for scrambled in [false, true] {
        let mut scrambler = GgpBaseScrambler { scramble: Default::default() };
        let render = |s: &mut GgpBaseScrambler, sx: &Sx| {
            if scrambled {
                ggp_base_render(&s.term(sx))
            } else {
                ggp_base_render(sx)
            }
        };
        let description: String = rules.iter().map(|r| render(&mut scrambler, r) + " ").collect();
        // A compiled game is recognized in this START too (numbers kept, variables renamed
        // across the whole rule set).
        let sent = kif::parse_all(&description).unwrap();
        assert!(gdl_player::rename::Spelling::recognize(&rules, &sent).is_some());
        let players: Vec<String> = (0..2).map(|_| interpreter_server(Kind::Mcts)).collect();
        let id = format!("Base.ticTacToe.{scrambled}");
        for address in &players {
            assert_eq!(ggp_base_request(address, "( INFO )"), "((name gdlc) (status available))");
            assert_eq!(ggp_base_request(address, &format!("( PREVIEW ({description}) 2 )")), "ready");
        }
        for (r, address) in players.iter().enumerate() {
            let role = render(&mut scrambler, &Sx::Atom(game.role_name(r).to_string()));
            let start = format!("( START {id} {role} ({description}) 10 1)");
            assert_eq!(ggp_base_request(address, &start), "ready");
        }
        let mut state = game.initial_state();
        let mut previous: Option<Vec<Sx>> = None;
        while !game.is_terminal(&state) {
            let moves = match &previous {
                None => "NIL".to_string(),
                Some(moves) => {
                    format!("({})", moves.iter().map(|m| render(&mut scrambler, m) + " ").collect::<String>())
                }
            };
            let mut joint = Vec::new();
            let mut chosen = Vec::new();
            for (r, address) in players.iter().enumerate() {
                let started = Instant::now();
                let reply = ggp_base_request(address, &format!("( PLAY {id} {moves} )"));
                assert!(started.elapsed() < Duration::from_secs(2), "over the play clock and its grace");
                let term = kif::parse_one(&reply).unwrap();
                let real = if scrambled { scrambler.unscramble(&term) } else { term };
                let mut legal = Vec::new();
                game.legal_moves(&state, r, &mut legal);
                let spelled: Vec<Sx> =
                    legal.iter().map(|m| spelling.to_match(&kif::parse_one(&game.move_string(m)).unwrap())).collect();
                let index = spelled.iter().position(|m| *m == real);
                let index = index.unwrap_or_else(|| panic!("IL {reply}: not one of {spelled:?}"));
                joint.push(legal[index].clone());
                chosen.push(real);
            }
            state = game.next_state(&state, &joint);
            previous = Some(chosen);
        }
        let moves: String = previous.unwrap().iter().map(|m| render(&mut scrambler, m) + " ").collect();
        for address in &players {
            assert_eq!(ggp_base_request(address, &format!("( STOP {id} ({moves}) )")), "done");
        }
    }
}

#[test]
fn gdl_ii_messages_in_both_letter_cases() {
    let address = interpreter_server(Kind::Mcts);
    let rules = game_text("diceDuel.kif");
    for upper in [true, false] {
        let case = |text: String| if upper { text.to_uppercase() } else { text.to_lowercase() };
        let id = if upper { "D1" } else { "d1" };
        assert_eq!(ok(&address, &case(start(id, "alice", &rules, "0.3"))), "ready");
        assert_eq!(ok(&address, &case(format!("(play {id} 0 nil nil)"))), case("noop".into()));
        // Alice learns her own roll only; she keeps a 3 (bob's unknown roll is at most 3).
        let decision = ok(&address, &case(format!("(play {id} 1 noop ((rolled 3)))")));
        assert_eq!(decision, case("keep".into()));
        assert_eq!(ok(&address, &case(format!("(play {id} 2 keep ((other_choice reroll)))"))), case("noop".into()));
        assert_eq!(ok(&address, &case(format!("(stop {id} 3 noop nil)"))), "done");
        assert_eq!(ok(&address, &case(format!("(play {id} 4 noop nil)"))), "busy");
    }
}

#[test]
fn bad_gdl_ii_messages_get_clear_errors() {
    let address = interpreter_server(Kind::Random);
    let dice = game_text("diceDuel.kif");
    let cases = [
        ("(PLAY d 0 NIL)", "or GDL-II's (PLAY id turn lastmove percepts), found 3"),
        ("(PLAY d soon NIL NIL)", "the turn must be a natural number, not `soon`"),
        ("(PLAY d 0 noop NIL)", "turn 0 is the first PLAY, whose last move must be NIL"),
        ("(PLAY d 1 NIL NIL)", "turn 1 must name the player's last move"),
        ("(PLAY d 1 noop rolled)", "expected NIL or a list of percepts, not `rolled`"),
        ("(PLAY d 3 noop NIL)", "match d: expected turn 1, but the message says turn 3"),
        ("(PLAY d 1 (jump 3) NIL)", "match d: `(jump 3)` is not a move of role `alice`"),
    ];
    assert_eq!(ok(&address, &start("d", "alice", &dice, "1")), "ready");
    assert_eq!(ok(&address, "(PLAY d 0 NIL NIL)"), "noop");
    for (message, expected) in cases {
        let (status, reply) = post(&address, message);
        assert_eq!(status, 400, "{message} -> {reply}");
        assert!(reply.contains(expected), "{message} -> {reply}");
    }
    // The errors changed nothing: the match goes on at turn 1.
    assert!(matches!(ok(&address, "(PLAY d 1 noop ((rolled 2)))").as_str(), "keep" | "reroll"));
    // The random role is the manager's.
    let (status, reply) = post(&address, &start("r", "random", &dice, "1"));
    assert_eq!(status, 400, "{reply}");
    assert!(reply.contains("the `random` role is played by the game manager"), "{reply}");
    // A game of complete information keeps the GDL-I messages.
    assert_eq!(ok(&address, &start("t", "xplayer", &game_text("ticTacToe.kif"), "1")), "ready");
    let (status, reply) = post(&address, "(PLAY t 0 NIL NIL)");
    assert_eq!(status, 400, "{reply}");
    assert!(reply.contains("neither `sees` rules nor a `random` role"), "{reply}");
}

#[test]
fn the_manager_plays_random_and_sends_each_player_its_own_percepts() {
    let address = interpreter_server(Kind::Random);
    let game =
        gdlc::load::load_valid(std::path::Path::new(&format!("{}/../games/montyHall.kif", env!("CARGO_MANIFEST_DIR"))))
            .expect("montyHall is valid");
    let interp = Interpreter::new(&game.description).unwrap();
    let rules = gdlc::load::rules_of(&game).unwrap();
    let options = |players: Vec<String>| Options {
        match_id: "monty".into(),
        players,
        start_clock: Duration::from_secs(5),
        play_clock: Duration::from_millis(300),
        seed: 5,
    };
    let url = format!("http://{address}/");
    let e = manager::run_match(&interp, &rules, &options(vec![url.clone(), url.clone()]), &mut |_| {}).unwrap_err();
    assert!(e.contains("roles that take a player are candidate (the manager plays `random`), but 2 players"), "{e}");
    let record = manager::run_match(&interp, &rules, &options(vec![url.clone()]), &mut |_| {}).unwrap();
    assert_eq!(record.players, [Some(url), None]);
    assert_eq!(record.start_replies, [Some("ready".to_string()), None]);
    assert_eq!(record.steps.len(), 3);
    assert!(record.steps.iter().all(|s| s.substitutions.is_empty()), "{:?}", record.steps);
    // The door the host opened is what the candidate saw, then where the car is.
    let opened = record.steps[1].joint[1].trim_start_matches("(open_door ").trim_end_matches(')').to_string();
    let percepts: Vec<_> = record.steps.iter().map(|s| s.percepts.clone().expect("GDL-II percepts")).collect();
    assert_eq!(percepts[0], [Vec::<String>::new(), vec![]]);
    assert_eq!(percepts[1], [vec![opened], vec![]]);
    let car = record.steps[0].joint[1].trim_start_matches("(hide_car ").trim_end_matches(')').to_string();
    assert_eq!(percepts[2], [vec![car], vec![]]);
}
