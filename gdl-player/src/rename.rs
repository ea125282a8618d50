//! Symbol spelling between a game's own code and a match: recognizing a known game in the rules
//! of a START message up to a renaming of its symbols (game managers scramble names), and
//! translating moves both ways so that a player answers in the exact spelling START used.
//!
//! Names are told apart by their exact spelling, keywords read in any case, as ggp-base reads
//! them (and `gdlc serve` with it): `nextFile` and `nextfile` are two symbols. A term spelled
//! in another case than any symbol (a manager that upper-cases its messages, a game's code
//! read in any case, whose names are in lower case) still finds the one symbol it matches in
//! any case, when only one does.

use gdl_runtime::kif::Sx;
use std::collections::HashMap;

/// The words of GDL that keep their meaning under any renaming.
pub const KEYWORDS: [&str; 14] = [
    "role", "init", "true", "next", "legal", "does", "goal", "terminal", "distinct", "not", "or", "base", "input", "<=",
];

fn is_keyword(atom: &str) -> bool {
    KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(atom))
}

/// The structure of a rule set with names abstracted away: every non-keyword symbol becomes
/// `#k`, numbered in order of first occurrence over the whole rule set, and every variable
/// becomes `?k`, numbered in order of first occurrence within its rule. Two rule sets have the
/// same shape exactly when one is the other with its symbols renamed one-to-one (and its
/// variables renamed within rules), rule order and structure kept, as ggp-base's scrambler does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    form: Vec<Sx>,
    /// The symbols in order of first occurrence, in the spelling of that occurrence.
    symbols: Vec<String>,
}

impl Shape {
    /// The shape of the rule set `rules`.
    pub fn of(rules: &[Sx]) -> Shape {
        let mut ids: HashMap<String, usize> = HashMap::new();
        let mut symbols = Vec::new();
        let form = rules
            .iter()
            .map(|rule| {
                let mut variables: HashMap<String, usize> = HashMap::new();
                abstract_names(rule, &mut ids, &mut symbols, &mut variables)
            })
            .collect();
        Shape { form, symbols }
    }

    /// A key of the shape, the same for every renaming of one rule set and in every process
    /// (64-bit FNV-1a of the abstracted rules), for caches of compiled games.
    pub fn key(&self) -> u64 {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for rule in &self.form {
            for byte in rule.to_string().bytes().chain(std::iter::once(b'\n')) {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        hash
    }
}

fn abstract_names(
    sx: &Sx,
    ids: &mut HashMap<String, usize>,
    symbols: &mut Vec<String>,
    variables: &mut HashMap<String, usize>,
) -> Sx {
    match sx {
        Sx::List(items) => Sx::List(items.iter().map(|i| abstract_names(i, ids, symbols, variables)).collect()),
        Sx::Atom(a) if a.starts_with('?') => {
            let next = variables.len();
            let id = *variables.entry(a.clone()).or_insert(next);
            Sx::Atom(format!("?{id}"))
        }
        Sx::Atom(a) if is_keyword(a) => Sx::Atom(a.to_lowercase()),
        Sx::Atom(a) => {
            let next = ids.len();
            let id = *ids.entry(a.clone()).or_insert_with(|| {
                symbols.push(a.clone());
                next
            });
            Sx::Atom(format!("#{id}"))
        }
    }
}

/// A one-to-one map between the symbols of a game's own code (as its `move_string` prints
/// them) and their spelling in a match.
#[derive(Clone, Debug, Default)]
pub struct Spelling {
    to_match: Folded,
    to_game: Folded,
}

/// A map from symbols to symbols, by exact spelling, and by spelling in lower case for the
/// symbols that are alone in folding to it.
#[derive(Clone, Debug, Default)]
struct Folded {
    exact: HashMap<String, String>,
    /// `None` for a spelling in lower case that two symbols fold to.
    folded: HashMap<String, Option<String>>,
}

impl Folded {
    fn insert(&mut self, from: &str, to: &str) {
        self.exact.insert(from.to_string(), to.to_string());
        self.folded
            .entry(from.to_lowercase())
            .and_modify(|kept| {
                if kept.as_deref() != Some(to) {
                    *kept = None;
                }
            })
            .or_insert_with(|| Some(to.to_string()));
    }

    /// The symbol `from` maps to: by its exact spelling, or else by its only match in any case.
    fn get(&self, from: &str) -> Option<String> {
        match self.exact.get(from) {
            Some(to) => Some(to.clone()),
            None => self.folded.get(&from.to_lowercase()).cloned().flatten(),
        }
    }
}

impl Spelling {
    /// The spelling of a game played under its own names: each symbol as `rules` spell it (and
    /// `cellHolds` for a game's code that reads names in any case, as `cellholds`).
    pub fn of_rules(rules: &[Sx]) -> Spelling {
        let shape = Shape::of(rules);
        let pairs = shape.symbols.iter().map(|s| (s.clone(), s.clone()));
        Spelling::from_pairs(pairs)
    }

    /// The renaming that turns `known` (a game's own rules) into `sent` (the rules of a START),
    /// when `sent` is `known` with its symbols renamed one-to-one; `None` when it is another game.
    pub fn recognize(known: &[Sx], sent: &[Sx]) -> Option<Spelling> {
        let (known, sent) = (Shape::of(known), Shape::of(sent));
        if known.form != sent.form {
            return None;
        }
        let pairs = known.symbols.iter().zip(&sent.symbols).map(|(k, s)| (k.clone(), s.clone()));
        Some(Spelling::from_pairs(pairs))
    }

    fn from_pairs(pairs: impl Iterator<Item = (String, String)>) -> Spelling {
        let mut spelling = Spelling::default();
        for (game, matched) in pairs {
            spelling.to_game.insert(&matched, &game);
            spelling.to_match.insert(&game, &matched);
        }
        spelling
    }

    /// A term of the game's code in the match's spelling; symbols the rules never mention are
    /// kept as they are.
    pub fn to_match(&self, game_term: &Sx) -> Sx {
        map_atoms(game_term, &|a| self.to_match.get(a))
    }

    /// A term of the match in the game's code's symbols; symbols the rules never mention are
    /// kept as they are.
    pub fn to_game(&self, match_term: &Sx) -> Sx {
        map_atoms(match_term, &|a| self.to_game.get(a))
    }
}

fn map_atoms(sx: &Sx, f: &dyn Fn(&str) -> Option<String>) -> Sx {
    match sx {
        Sx::Atom(a) => Sx::Atom(f(a).unwrap_or_else(|| a.clone())),
        Sx::List(items) => Sx::List(items.iter().map(|i| map_atoms(i, f)).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gdl_runtime::kif::parse_all;
    use gdl_runtime::rng::Rng;

    fn tic_tac_toe() -> Vec<Sx> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../games/ticTacToe.kif");
        parse_all(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    /// Renames every non-keyword symbol to a random fresh name and every variable to another
    /// variable, the way ggp-base's scrambler does.
    fn scramble(rules: &[Sx], seed: u64) -> (Vec<Sx>, HashMap<String, String>) {
        fn walk(sx: &Sx, names: &mut HashMap<String, String>, rng: &mut Rng) -> Sx {
            match sx {
                Sx::List(items) => Sx::List(items.iter().map(|i| walk(i, names, rng)).collect()),
                Sx::Atom(a) if is_keyword(a) => Sx::Atom(a.to_uppercase()),
                Sx::Atom(a) => {
                    let prefix = if a.starts_with('?') { "?V" } else { "Sym" };
                    let fresh = format!("{prefix}{:x}", rng.next_u64() >> 16);
                    Sx::Atom(names.entry(a.to_lowercase()).or_insert(fresh).clone())
                }
            }
        }
        let mut names = HashMap::new();
        let mut rng = Rng::seeded(seed);
        let scrambled = rules.iter().map(|r| walk(r, &mut names, &mut rng)).collect();
        (scrambled, names)
    }

    #[test]
    fn a_scrambled_game_is_recognized_and_moves_translate_both_ways() {
        let rules = tic_tac_toe();
        for seed in 1..4 {
            let (scrambled, names) = scramble(&rules, seed);
            let spelling = Spelling::recognize(&rules, &scrambled).expect("the same game renamed");
            let mark = gdl_runtime::kif::parse_one("(mark 2 3)").unwrap();
            let sent = spelling.to_match(&mark);
            let expected = format!("({} {} {})", names["mark"], names["2"], names["3"]);
            assert_eq!(sent.to_string(), expected);
            assert_eq!(spelling.to_game(&sent), mark);
            assert_eq!(spelling.to_game(&sent.to_lowercase()), mark);
        }
    }

    #[test]
    fn renamings_share_a_key_and_other_games_do_not() {
        let rules = tic_tac_toe();
        let key = Shape::of(&rules).key();
        for seed in 1..4 {
            assert_eq!(Shape::of(&scramble(&rules, seed).0).key(), key);
        }
        assert_ne!(Shape::of(&rules[1..]).key(), key);
    }

    #[test]
    fn a_different_game_is_not_recognized() {
        let rules = tic_tac_toe();
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../games/connectFour.kif");
        let other = parse_all(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert!(Spelling::recognize(&rules, &other).is_none());
        // One symbol renamed inconsistently breaks the one-to-one correspondence.
        let (mut scrambled, _) = scramble(&rules, 9);
        let last = scrambled.len() - 1;
        scrambled[last] = gdl_runtime::kif::parse_one("(init (control nobody))").unwrap();
        assert!(Spelling::recognize(&rules, &scrambled).is_none());
        // Two distinct symbols merged into one is not a renaming either.
        let merged: Vec<Sx> =
            rules.iter().map(|r| map_atoms(r, &|a| (a == "oplayer").then(|| "xplayer".into()))).collect();
        assert!(Spelling::recognize(&rules, &merged).is_none());
        assert!(Spelling::recognize(&rules, &rules[1..]).is_none());
    }

    #[test]
    fn the_spelling_of_rules_restores_their_letter_case() {
        let rules = parse_all("(role xPlayer) (init (cellHolds 1 1 B)) (<= (legal ?p NoOp) (role ?p))").unwrap();
        let spelling = Spelling::of_rules(&rules);
        let spelled = gdl_runtime::kif::parse_one("(cellHolds 1 1 B)").unwrap();
        // A game's code that read the names in any case has them in lower case.
        let folded = gdl_runtime::kif::parse_one("(cellholds 1 1 b)").unwrap();
        assert_eq!(spelling.to_match(&folded), spelled);
        assert_eq!(spelling.to_match(&spelled), spelled);
        assert_eq!(spelling.to_match(&Sx::Atom("noop".into())).to_string(), "NoOp");
        assert_eq!(spelling.to_match(&Sx::Atom("unknown".into())).to_string(), "unknown");
        // A manager that upper-cases its messages still names the game's symbols.
        assert_eq!(spelling.to_game(&gdl_runtime::kif::parse_one("(CELLHOLDS 1 1 b)").unwrap()), spelled);
    }

    #[test]
    fn symbols_that_differ_only_in_letter_case_stay_apart() {
        // alexChess's `castleQueenside` and a `castlequeenside` of its own: two symbols, as
        // ggp-base reads them; neither is found by a spelling that matches both in any case.
        let rules = parse_all("(role w) (<= (legal w castleQueenside) (true castlequeenside))").unwrap();
        let spelling = Spelling::of_rules(&rules);
        for name in ["castleQueenside", "castlequeenside"] {
            assert_eq!(spelling.to_game(&Sx::Atom(name.into())).to_string(), name);
            assert_eq!(spelling.to_match(&Sx::Atom(name.into())).to_string(), name);
        }
        assert_eq!(spelling.to_game(&Sx::Atom("CASTLEQUEENSIDE".into())).to_string(), "CASTLEQUEENSIDE");
        let shape = Shape::of(&rules);
        assert_eq!(shape.symbols, ["w", "castleQueenside", "castlequeenside"]);
    }
}
