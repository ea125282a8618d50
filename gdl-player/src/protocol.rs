//! The messages of the GGP player protocol (specification section 8 and appendix B, with
//! ggp-base's `INFO`, `PING`, `ABORT` and `PREVIEW`, and the GDL-II forms of PLAY and STOP of
//! the Dresden GGP server, `(PLAY id turn lastmove percepts)`): reading them in any letter case
//! while keeping the spelling of every game symbol, and printing them as a game manager sends
//! them.

use gdl_runtime::kif::{self, Sx};
use std::fmt;
use std::time::Duration;

/// The longest clock accepted in a message: a day, far beyond any real match, so that the
/// deadlines computed from it never overflow.
pub const MAX_CLOCK: Duration = Duration::from_secs(86_400);

/// One message from a game manager to a player.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// `(START id role (rules...) startclock playclock)`.
    Start {
        /// The match id.
        id: String,
        /// The role the player plays, in the match's spelling.
        role: Sx,
        /// The game's rules and facts, in the match's spelling.
        rules: Vec<Sx>,
        /// How long the player has to answer `ready`.
        start_clock: Duration,
        /// How long the player has to answer each PLAY.
        play_clock: Duration,
    },
    /// `(PLAY id NIL)` for the first move, `(PLAY id (m1 ... mn))` afterwards.
    Play {
        /// The match id.
        id: String,
        /// The last joint move, one move per role in role order; `None` for `NIL`.
        moves: Option<Vec<Sx>>,
    },
    /// `(STOP id NIL)` or `(STOP id (m1 ... mn))` with the last joint move.
    Stop {
        /// The match id.
        id: String,
        /// The last joint move, one move per role in role order; `None` for `NIL`.
        moves: Option<Vec<Sx>>,
    },
    /// GDL-II's `(PLAY id turn lastmove percepts)`: the player learns only its own last move
    /// and what it perceived.
    PlaySeen {
        /// The match id.
        id: String,
        /// The turn, the player's last move and its percepts.
        seen: Seen,
    },
    /// GDL-II's `(STOP id turn lastmove percepts)`, at the end of the match.
    StopSeen {
        /// The match id.
        id: String,
        /// The turn, the player's last move and its percepts.
        seen: Seen,
    },
    /// `(ABORT id)`.
    Abort {
        /// The match id.
        id: String,
    },
    /// `(PREVIEW (rules...) previewclock)`: ggp-base's game server sends it before START when a
    /// match has a preview clock, and its players answer `ready`.
    Preview {
        /// The game's rules and facts, in the match's spelling.
        rules: Vec<Sx>,
        /// How long the player has to study them.
        preview_clock: Duration,
    },
    /// `(INFO)`.
    Info,
    /// `(PING)`.
    Ping,
}

/// What a GDL-II game manager tells one player in PLAY and STOP: the Dresden GGP server's
/// `turn lastmove percepts`.
#[derive(Clone, Debug, PartialEq)]
pub struct Seen {
    /// 0 for the first PLAY, one more for every later PLAY or STOP of the match.
    pub turn: u64,
    /// The move the manager played for this player on the last step (its own, or the one that
    /// replaced a late or illegal one); `None` (`NIL`) in the first PLAY.
    pub last_move: Option<Sx>,
    /// What the player perceives on the last step (the `sees` relation); `NIL` or `()` when
    /// nothing, as in the first PLAY.
    pub percepts: Vec<Sx>,
}

impl Message {
    /// The match id the message is about, for the messages that name one.
    pub fn match_id(&self) -> Option<&str> {
        match self {
            Message::Start { id, .. }
            | Message::Play { id, .. }
            | Message::Stop { id, .. }
            | Message::PlaySeen { id, .. }
            | Message::StopSeen { id, .. }
            | Message::Abort { id } => Some(id),
            Message::Info | Message::Ping | Message::Preview { .. } => None,
        }
    }
}

/// Reads one message. Command names and `NIL` are case-insensitive; the match id, the role,
/// the rules and the moves keep the spelling they were sent with.
pub fn parse(text: &str) -> Result<Message, String> {
    let sx = kif::parse_one(text).map_err(|e| format!("malformed message: {e}"))?;
    let Sx::List(items) = sx else {
        return Err(format!("malformed message: expected a parenthesized command, found `{sx}`"));
    };
    let Some(Sx::Atom(command)) = items.first() else {
        return Err("malformed message: expected a command name first".to_string());
    };
    let command = command.to_ascii_lowercase();
    let args = &items[1..];
    let arity = |n: usize, form: &str| {
        if args.len() == n {
            Ok(())
        } else {
            Err(format!(
                "malformed {} message: expected {form}, found {} argument(s)",
                command.to_uppercase(),
                args.len()
            ))
        }
    };
    match command.as_str() {
        "start" => {
            // ggp-base's players read the first five arguments and ignore any later ones, left
            // for future extensions of START.
            if args.len() < 5 {
                arity(5, "(START id role (rules...) startclock playclock)")?;
            }
            let Sx::List(rules) = &args[2] else {
                return Err("malformed START message: the rules must be a parenthesized list".to_string());
            };
            if !matches!(args[1], Sx::Atom(_)) {
                return Err(format!("malformed START message: the role must be a symbol, not `{}`", args[1]));
            }
            Ok(Message::Start {
                id: match_id(&args[0])?,
                role: args[1].clone(),
                rules: rules.clone(),
                start_clock: clock(&args[3], "start clock")?,
                play_clock: clock(&args[4], "play clock")?,
            })
        }
        "play" if args.len() == 4 => Ok(Message::PlaySeen { id: match_id(&args[0])?, seen: seen(&args[1..])? }),
        "play" => {
            arity(2, "(PLAY id NIL) or (PLAY id (moves...)), or GDL-II's (PLAY id turn lastmove percepts)")?;
            Ok(Message::Play { id: match_id(&args[0])?, moves: moves(&args[1])? })
        }
        "stop" if args.len() == 4 => Ok(Message::StopSeen { id: match_id(&args[0])?, seen: seen(&args[1..])? }),
        "stop" => {
            arity(2, "(STOP id NIL) or (STOP id (moves...)), or GDL-II's (STOP id turn lastmove percepts)")?;
            Ok(Message::Stop { id: match_id(&args[0])?, moves: moves(&args[1])? })
        }
        "abort" => {
            arity(1, "(ABORT id)")?;
            Ok(Message::Abort { id: match_id(&args[0])? })
        }
        "preview" => {
            arity(2, "(PREVIEW (rules...) previewclock)")?;
            let Sx::List(rules) = &args[0] else {
                return Err("malformed PREVIEW message: the rules must be a parenthesized list".to_string());
            };
            Ok(Message::Preview { rules: rules.clone(), preview_clock: clock(&args[1], "preview clock")? })
        }
        "info" => arity(0, "(INFO)").map(|()| Message::Info),
        "ping" => arity(0, "(PING)").map(|()| Message::Ping),
        _ => Err(format!("unknown command `{}`", items[0])),
    }
}

fn match_id(sx: &Sx) -> Result<String, String> {
    match sx {
        Sx::Atom(id) => Ok(id.clone()),
        Sx::List(_) => Err(format!("malformed message: the match id must be a symbol, not `{sx}`")),
    }
}

/// A clock in seconds: a non-negative integer as the specification has it, or a decimal
/// fraction, which gdlc's own manager sends for short test matches.
fn clock(sx: &Sx, what: &str) -> Result<Duration, String> {
    let text = match sx {
        Sx::Atom(a) => a.as_str(),
        Sx::List(_) => "",
    };
    let is_number = !text.is_empty() && text.chars().all(|c| c.is_ascii_digit() || c == '.');
    text.parse::<f64>()
        .ok()
        .filter(|s| is_number && s.is_finite())
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .filter(|d| *d <= MAX_CLOCK)
        .ok_or_else(|| {
            format!(
                "malformed message: the {what} must be a number of seconds up to {}, not `{sx}`",
                MAX_CLOCK.as_secs()
            )
        })
}

/// `NIL` (any case) or a list of moves.
fn moves(sx: &Sx) -> Result<Option<Vec<Sx>>, String> {
    match sx {
        Sx::Atom(a) if a.eq_ignore_ascii_case("nil") => Ok(None),
        Sx::List(moves) => Ok(Some(moves.clone())),
        Sx::Atom(_) => Err(format!("malformed message: expected NIL or a list of moves, not `{sx}`")),
    }
}

/// GDL-II's `turn lastmove percepts`: a turn that is a natural number, `NIL` or a move, and
/// `NIL` or a list of percepts.
fn seen(args: &[Sx]) -> Result<Seen, String> {
    let turn = match &args[0] {
        Sx::Atom(a) if !a.is_empty() && a.chars().all(|c| c.is_ascii_digit()) => a.parse::<u64>().ok(),
        _ => None,
    }
    .ok_or_else(|| format!("malformed message: the turn must be a natural number, not `{}`", args[0]))?;
    let last_move = match &args[1] {
        Sx::Atom(a) if a.eq_ignore_ascii_case("nil") => None,
        Sx::List(items) if items.is_empty() => {
            return Err("malformed message: the last move must be NIL or a move, not `()`".to_string())
        }
        other => Some(other.clone()),
    };
    let percepts = match &args[2] {
        Sx::Atom(a) if a.eq_ignore_ascii_case("nil") => Vec::new(),
        Sx::List(items) => items.clone(),
        Sx::Atom(_) => return Err(format!("malformed message: expected NIL or a list of percepts, not `{}`", args[2])),
    };
    if turn == 0 && last_move.is_some() {
        return Err("malformed message: turn 0 is the first PLAY, whose last move must be NIL".to_string());
    }
    if turn > 0 && last_move.is_none() {
        return Err(format!("malformed message: turn {turn} must name the player's last move, not NIL"));
    }
    Ok(Seen { turn, last_move, percepts })
}

fn write_seen(f: &mut fmt::Formatter<'_>, seen: &Seen) -> fmt::Result {
    write!(f, "{} ", seen.turn)?;
    match &seen.last_move {
        None => f.write_str("NIL ")?,
        Some(m) => write!(f, "{m} ")?,
    }
    if seen.percepts.is_empty() {
        f.write_str("NIL")
    } else {
        write!(f, "{}", Sx::List(seen.percepts.clone()))
    }
}

/// Prints a clock as whole seconds when it is whole (as ggp-base sends it) and as a decimal
/// fraction otherwise.
fn write_clock(f: &mut fmt::Formatter<'_>, clock: Duration) -> fmt::Result {
    if clock.subsec_nanos() == 0 {
        write!(f, "{}", clock.as_secs())
    } else {
        write!(f, "{}", clock.as_secs_f64())
    }
}

fn write_moves(f: &mut fmt::Formatter<'_>, moves: &Option<Vec<Sx>>) -> fmt::Result {
    match moves {
        None => f.write_str("NIL"),
        Some(moves) => write!(f, "{}", Sx::List(moves.clone())),
    }
}

impl fmt::Display for Message {
    /// The message as a game manager sends it, commands in upper case as ggp-base writes them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Message::Start { id, role, rules, start_clock, play_clock } => {
                write!(f, "(START {id} {role} {} ", Sx::List(rules.clone()))?;
                write_clock(f, *start_clock)?;
                f.write_str(" ")?;
                write_clock(f, *play_clock)?;
                f.write_str(")")
            }
            Message::Play { id, moves } => {
                write!(f, "(PLAY {id} ")?;
                write_moves(f, moves)?;
                f.write_str(")")
            }
            Message::Stop { id, moves } => {
                write!(f, "(STOP {id} ")?;
                write_moves(f, moves)?;
                f.write_str(")")
            }
            Message::PlaySeen { id, seen } => {
                write!(f, "(PLAY {id} ")?;
                write_seen(f, seen)?;
                f.write_str(")")
            }
            Message::StopSeen { id, seen } => {
                write!(f, "(STOP {id} ")?;
                write_seen(f, seen)?;
                f.write_str(")")
            }
            Message::Abort { id } => write!(f, "(ABORT {id})"),
            Message::Preview { rules, preview_clock } => {
                write!(f, "(PREVIEW {} ", Sx::List(rules.clone()))?;
                write_clock(f, *preview_clock)?;
                f.write_str(")")
            }
            Message::Info => f.write_str("(INFO)"),
            Message::Ping => f.write_str("(PING)"),
        }
    }
}

/// The reply to `INFO`: the player's name and whether it takes a new match.
pub fn info_reply(name: &str, available: bool) -> String {
    let status = if available { "available" } else { "busy" };
    let name = if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)) {
        name.to_string()
    } else {
        format!("{name:?}")
    };
    format!("((name {name}) (status {status}))")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atom(a: &str) -> Sx {
        Sx::Atom(a.to_string())
    }

    #[test]
    fn reads_every_message_in_both_letter_cases() {
        let start = "(START m1 xPlayer ((role xPlayer) (init (cellHolds 1 1 b))) 10 5)";
        for text in [start.to_string(), start.to_lowercase()] {
            let Message::Start { id, role, rules, start_clock, play_clock } = parse(&text).unwrap() else {
                panic!("not a START: {text}");
            };
            let lower = text == start.to_lowercase();
            assert_eq!(id, "m1");
            assert_eq!(role, atom(if lower { "xplayer" } else { "xPlayer" }));
            assert_eq!(rules.len(), 2);
            assert_eq!(
                rules[1].to_string(),
                if lower { "(init (cellholds 1 1 b))" } else { "(init (cellHolds 1 1 b))" }
            );
            assert_eq!((start_clock, play_clock), (Duration::from_secs(10), Duration::from_secs(5)));
        }
        for text in ["(PLAY m1 NIL)", "(play m1 nil)", "(Play m1 Nil)"] {
            assert_eq!(parse(text).unwrap(), Message::Play { id: "m1".into(), moves: None });
        }
        let moves = Some(vec![Sx::List(vec![atom("Mark"), atom("1"), atom("1")]), atom("noop")]);
        assert_eq!(
            parse("(PLAY m1 ((Mark 1 1) noop))").unwrap(),
            Message::Play { id: "m1".into(), moves: moves.clone() }
        );
        assert_eq!(parse("(stop m1 ((Mark 1 1) noop))").unwrap(), Message::Stop { id: "m1".into(), moves });
        assert_eq!(parse("(STOP m1 NIL)").unwrap(), Message::Stop { id: "m1".into(), moves: None });
        assert_eq!(parse("(ABORT m1)").unwrap(), Message::Abort { id: "m1".into() });
        assert_eq!(parse("(abort m1)").unwrap(), Message::Abort { id: "m1".into() });
        assert_eq!(parse("( INFO )").unwrap(), Message::Info);
        assert_eq!(parse("(info)").unwrap(), Message::Info);
        assert_eq!(parse("(PING)").unwrap(), Message::Ping);
        assert_eq!(parse("(ping)").unwrap(), Message::Ping);
        let preview = Message::Preview {
            rules: vec![Sx::List(vec![atom("role"), atom("xPlayer")])],
            preview_clock: Duration::from_secs(10),
        };
        assert_eq!(parse("( PREVIEW (( role xPlayer ) ) 10 )").unwrap(), preview);
        assert_eq!(parse("(preview ((role xPlayer)) 10)").unwrap(), preview);
    }

    #[test]
    fn reads_the_gdl_ii_forms_of_play_and_stop_in_both_letter_cases() {
        for text in ["(PLAY m1 0 NIL NIL)", "(play m1 0 nil nil)", "(Play m1 0 Nil ())"] {
            let seen = Seen { turn: 0, last_move: None, percepts: Vec::new() };
            assert_eq!(parse(text).unwrap(), Message::PlaySeen { id: "m1".into(), seen });
        }
        let percepts = vec![Sx::List(vec![atom("Rolled"), atom("2")]), atom("3")];
        let seen = Seen { turn: 2, last_move: Some(Sx::List(vec![atom("Choose"), atom("1")])), percepts };
        assert_eq!(
            parse("(PLAY m1 2 (Choose 1) ((Rolled 2) 3))").unwrap(),
            Message::PlaySeen { id: "m1".into(), seen: seen.clone() }
        );
        assert_eq!(
            parse("(stop m1 2 (Choose 1) ((Rolled 2) 3))").unwrap(),
            Message::StopSeen { id: "m1".into(), seen }
        );
        let seen = Seen { turn: 7, last_move: Some(atom("noop")), percepts: Vec::new() };
        assert_eq!(parse("(STOP m1 7 noop NIL)").unwrap(), Message::StopSeen { id: "m1".into(), seen });
        assert_eq!(parse("(PLAY m1 7 noop NIL)").unwrap().match_id(), Some("m1"));
    }

    #[test]
    fn start_ignores_arguments_after_the_play_clock_as_ggp_base_players_do() {
        let Message::Start { id, play_clock, .. } =
            parse("(START m1 white ((role white)) 10 5 future (args))").unwrap()
        else {
            panic!("not a START");
        };
        assert_eq!((id.as_str(), play_clock), ("m1", Duration::from_secs(5)));
    }

    #[test]
    fn printing_and_reading_agree() {
        let messages = [
            "(START m1 white ((role white) (<= terminal (true (step 3)))) 10 5)",
            "(START m1 white () 2 0.25)",
            "(PLAY m1 NIL)",
            "(PLAY m1 ((mark 1 1) noop))",
            "(STOP m1 (noop (mark 3 3)))",
            "(PLAY m1 0 NIL NIL)",
            "(PLAY m1 3 (choose 1) (2 (rolled 3)))",
            "(STOP m1 4 noop NIL)",
            "(ABORT m1)",
            "(PREVIEW ((role white) (init (step 1))) 30)",
            "(INFO)",
            "(PING)",
        ];
        for text in messages {
            assert_eq!(parse(text).unwrap().to_string(), text);
        }
    }

    #[test]
    fn bad_messages_are_clear_errors() {
        let cases = [
            ("", "malformed message: expected a term"),
            ("(PLAY m1 NIL", "unbalanced"),
            ("(PLAY m1 NIL))", "unbalanced"),
            ("PLAY", "expected a parenthesized command"),
            ("((PLAY) m1)", "expected a command name"),
            ("(JUMP m1)", "unknown command `JUMP`"),
            ("(PLAY m1)", "expected (PLAY id NIL)"),
            ("(PLAY m1 noop)", "expected NIL or a list of moves"),
            ("(PLAY (m1) NIL)", "the match id must be a symbol"),
            ("(START m1 white role 10 5)", "the rules must be a parenthesized list"),
            ("(START m1 (white) () 10 5)", "the role must be a symbol"),
            ("(START m1 white () -1 5)", "the start clock must be a number"),
            ("(START m1 white () 10 soon)", "the play clock must be a number"),
            ("(START m1 white () 10 1e999)", "the play clock must be a number"),
            ("(START m1 white () 10 99999999)", "the play clock must be a number"),
            ("(INFO now)", "expected (INFO)"),
            ("(START m1 white () 10)", "expected (START id role (rules...) startclock playclock), found 4"),
            ("(PREVIEW ((role white)))", "expected (PREVIEW (rules...) previewclock)"),
            ("(PREVIEW white 10)", "the rules must be a parenthesized list"),
            ("(PREVIEW () soon)", "the preview clock must be a number"),
            ("(PING) (PING)", "expected one term, found 2"),
            ("(PLAY m1 0 NIL)", "or GDL-II's (PLAY id turn lastmove percepts), found 3"),
            ("(STOP m1 1 noop NIL extra)", "or GDL-II's (STOP id turn lastmove percepts), found 5"),
            ("(PLAY m1 first NIL NIL)", "the turn must be a natural number, not `first`"),
            ("(PLAY m1 -1 NIL NIL)", "the turn must be a natural number"),
            ("(PLAY m1 (1) NIL NIL)", "the turn must be a natural number"),
            ("(PLAY m1 99999999999999999999999 noop NIL)", "the turn must be a natural number"),
            ("(PLAY m1 2 noop seen)", "expected NIL or a list of percepts, not `seen`"),
            ("(PLAY m1 0 noop NIL)", "turn 0 is the first PLAY, whose last move must be NIL"),
            ("(PLAY m1 3 NIL NIL)", "turn 3 must name the player's last move"),
            ("(PLAY m1 3 () NIL)", "the last move must be NIL or a move, not `()`"),
            ("(STOP (m1) 3 noop NIL)", "the match id must be a symbol"),
        ];
        for (text, expected) in cases {
            let e = parse(text).unwrap_err();
            assert!(e.contains(expected), "{text}: {e}");
        }
    }

    #[test]
    fn info_reply_quotes_odd_names() {
        assert_eq!(info_reply("gdlc", true), "((name gdlc) (status available))");
        assert_eq!(info_reply("gdlc mcts", false), "((name \"gdlc mcts\") (status busy))");
    }
}
