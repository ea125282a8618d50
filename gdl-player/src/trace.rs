//! Match traces in the JSON Lines format of the conformance suite: reading, writing, replaying
//! through any [`Game`], and comparing two traces.

use gdl_runtime::Game;
use serde::Deserialize;
use std::fmt::Write as _;

/// The first line of a match.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Header {
    /// The game's name.
    pub game: String,
    /// The game's roles, in role order.
    pub roles: Vec<String>,
}

/// One state of a match.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Step {
    /// The state's number in the match, from 0 for the initial state.
    pub step: usize,
    /// The base facts true in the state, as [`Game::state_facts`] gives them.
    pub state: Vec<String>,
    /// Whether the state is terminal.
    pub terminal: bool,
    /// Every role's legal moves in canonical KIF, in role order, each role's sorted.
    pub legal: Vec<Vec<String>>,
    /// Every role's goal value, in role order (`null` where the game defines none), on a
    /// terminal state; `None` (`null`) on the others.
    pub goals: Option<Vec<Option<i64>>>,
    /// The joint move played from the state, one move per role in role order; `None` (`null`)
    /// on the last state.
    pub joint: Option<Vec<String>>,
}

/// A header and the states of one match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    /// The first line: the game and its roles.
    pub header: Header,
    /// The match's states, in order.
    pub steps: Vec<Step>,
}

/// Reads every match of a trace file; each starts with its header line.
pub fn read(text: &str) -> Result<Vec<Match>, String> {
    let mut matches: Vec<Match> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("line {}: not JSON: {e}", n + 1))?;
        if value.get("game").is_some() {
            let header = Header::deserialize(&value).map_err(|e| format!("line {}: bad header: {e}", n + 1))?;
            matches.push(Match { header, steps: Vec::new() });
        } else {
            let step = Step::deserialize(&value).map_err(|e| format!("line {}: bad state line: {e}", n + 1))?;
            let current =
                matches.last_mut().ok_or_else(|| format!("line {}: a state line before any header", n + 1))?;
            current.steps.push(step);
        }
    }
    Ok(matches)
}

/// A match as `gdlc match --record` writes it, read as a trace: its joint moves, with states
/// left empty (a record holds none), and the final goals it reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// The roles, the joint moves in order, and one last step without a joint move.
    pub trace: Match,
    /// Every role's goal in the final state, 0 where the game defines none.
    pub goals: Vec<u32>,
}

/// The parts of a record that a replay reads.
#[derive(Deserialize)]
struct RecordFile {
    match_id: String,
    roles: Vec<String>,
    steps: Vec<RecordStep>,
    goals: Vec<u32>,
}

#[derive(Deserialize)]
struct RecordStep {
    joint: Vec<String>,
}

/// Reads a record written by `gdlc match --record`; `None` when `text` is not one (a trace in
/// the JSON Lines format, say).
pub fn read_record(text: &str) -> Option<Result<Recorded, String>> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    value.get("steps")?;
    let file = match RecordFile::deserialize(&value) {
        Ok(file) => file,
        Err(e) => return Some(Err(format!("not a match record: {e}"))),
    };
    let empty = |step: usize, joint: Option<Vec<String>>| Step {
        step,
        state: Vec::new(),
        terminal: false,
        legal: Vec::new(),
        goals: None,
        joint,
    };
    let mut steps: Vec<Step> = file.steps.into_iter().enumerate().map(|(i, s)| empty(i, Some(s.joint))).collect();
    steps.push(empty(steps.len(), None));
    let header = Header { game: file.match_id, roles: file.roles };
    Some(Ok(Recorded { trace: Match { header, steps }, goals: file.goals }))
}

/// Replays a record through `game` and checks what a record can be checked against: every
/// joint move legal in its state, the last state terminal, and the final goals those of the
/// record. Returns the replayed trace.
pub fn check_record<G: Game>(game: &G, recorded: &Recorded) -> Result<Match, String> {
    let replayed = replay(game, &recorded.trace)?;
    for (step, line) in replayed.steps.iter().enumerate() {
        let Some(joint) = &line.joint else { continue };
        for (role, (m, legal)) in joint.iter().zip(&line.legal).enumerate() {
            if !legal.contains(m) {
                let name = &replayed.header.roles[role];
                return Err(format!("step {step}: `{m}` is not a legal move of role {name}; legal: {legal:?}"));
            }
        }
    }
    let last = replayed.steps.last().ok_or("the record has no state")?;
    if !last.terminal {
        return Err(format!("step {}: the record ends in a state that is not terminal", last.step));
    }
    let goals: Vec<u32> =
        last.goals.iter().flatten().map(|g| g.and_then(|g| u32::try_from(g).ok()).unwrap_or(0)).collect();
    if goals != recorded.goals {
        return Err(format!("step {}: goals {goals:?}, but the record says {:?}", last.step, recorded.goals));
    }
    Ok(replayed)
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("strings always serialize")
}

fn json_list(items: &[String]) -> String {
    format!("[{}]", items.iter().map(|s| json_string(s)).collect::<Vec<_>>().join(", "))
}

/// Writes a match in the trace format, with the reference's spacing.
pub fn write(m: &Match) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{{\"game\": {}, \"roles\": {}}}", json_string(&m.header.game), json_list(&m.header.roles));
    for s in &m.steps {
        let legal = format!("[{}]", s.legal.iter().map(|l| json_list(l)).collect::<Vec<_>>().join(", "));
        let goals = match &s.goals {
            None => "null".to_string(),
            Some(g) => format!(
                "[{}]",
                g.iter().map(|v| v.map_or("null".to_string(), |v| v.to_string())).collect::<Vec<_>>().join(", ")
            ),
        };
        let joint = s.joint.as_ref().map_or("null".to_string(), |j| json_list(j));
        let _ = writeln!(
            out,
            "{{\"step\": {}, \"state\": {}, \"terminal\": {}, \"legal\": {legal}, \"goals\": {goals}, \"joint\": {joint}}}",
            s.step,
            json_list(&s.state),
            s.terminal
        );
    }
    out
}

/// Describes one state of `game` as a trace line (without its joint move).
pub fn observe<G: Game>(game: &G, state: &G::State, step: usize) -> Step {
    let terminal = game.is_terminal(state);
    let mut legal_moves = Vec::new();
    game.all_legal_moves(state, &mut legal_moves);
    let legal = legal_moves.iter().map(|moves| canonical_set(moves.iter().map(|m| game.move_string(m)))).collect();
    let goals = terminal.then(|| game.goals(state).into_iter().map(|g| g.map(i64::from)).collect());
    Step { step, state: canonical_set(game.state_facts(state)), terminal, legal, goals, joint: None }
}

/// A term of a game in the format's canonical form: every symbol in lower case, single spaces.
/// A game read with names kept apart by case (`--case-sensitive`) spells them as its rules do;
/// the format, as recorded from ggp-base's prover, writes them in lower case.
fn canonical(term: String) -> String {
    gdl_runtime::kif::canonical(&term).unwrap_or(term)
}

/// Terms in canonical form, sorted, each once.
fn canonical_set(terms: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut set: Vec<String> = terms.into_iter().map(canonical).collect();
    set.sort();
    set.dedup();
    set
}

/// Applies the joint moves of `reference` from the initial state of `game`, recording what
/// `game` says of every state.
pub fn replay<G: Game>(game: &G, reference: &Match) -> Result<Match, String> {
    let roles: Vec<String> = (0..game.num_roles()).map(|r| canonical(game.role_name(r).to_string())).collect();
    if roles != reference.header.roles {
        return Err(format!("the trace's roles {:?} are not the game's roles {:?}", reference.header.roles, roles));
    }
    let mut state = game.initial_state();
    let mut steps = Vec::with_capacity(reference.steps.len());
    for (i, line) in reference.steps.iter().enumerate() {
        let mut step = observe(game, &state, i);
        if let Some(joint) = &line.joint {
            if joint.len() != roles.len() {
                return Err(format!("step {i}: the joint move has {} moves for {} roles", joint.len(), roles.len()));
            }
            let moves = joint
                .iter()
                .enumerate()
                .map(|(r, text)| {
                    game.parse_move(r, text)
                        .ok_or_else(|| format!("step {i}: `{text}` is not a move of role {}", roles[r]))
                })
                .collect::<Result<Vec<_>, _>>()?;
            step.joint = Some(moves.iter().map(|m| canonical(game.move_string(m))).collect());
            state = game.next_state(&state, &moves);
        }
        steps.push(step);
    }
    Ok(Match { header: reference.header.clone(), steps })
}

/// Checks that two traces agree line by line (state and legal sets, terminal flag, goals on
/// terminal states), describing the first disagreement.
pub fn compare(expected: &Match, actual: &Match) -> Result<(), String> {
    if expected.steps.len() != actual.steps.len() {
        return Err(format!("{} states expected, {} replayed", expected.steps.len(), actual.steps.len()));
    }
    for (e, a) in expected.steps.iter().zip(&actual.steps) {
        let at = e.step;
        if e.state != a.state {
            let missing: Vec<_> = e.state.iter().filter(|f| !a.state.contains(f)).collect();
            let extra: Vec<_> = a.state.iter().filter(|f| !e.state.contains(f)).collect();
            return Err(format!("step {at}: state differs: missing {missing:?}, extra {extra:?}"));
        }
        if e.terminal != a.terminal {
            return Err(format!("step {at}: terminal expected {}, got {}", e.terminal, a.terminal));
        }
        if e.legal != a.legal {
            return Err(format!("step {at}: legal moves differ: expected {:?}, got {:?}", e.legal, a.legal));
        }
        if e.terminal && e.goals != a.goals {
            return Err(format!("step {at}: goals expected {:?}, got {:?}", e.goals, a.goals));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &str = r#"{"game": "g", "roles": ["a"]}
{"step": 0, "state": ["(p 1)"], "terminal": false, "legal": [["go"]], "goals": null, "joint": ["go"]}
{"step": 1, "state": ["(p 2)"], "terminal": true, "legal": [[]], "goals": [100], "joint": null}
"#;

    #[test]
    fn reads_and_writes_with_the_reference_spacing() {
        let m = read(TRACE).unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!(write(&m[0]), TRACE);
    }

    #[test]
    fn reads_several_matches_and_reports_bad_lines() {
        let two = format!("{TRACE}{TRACE}");
        assert_eq!(read(&two).unwrap().len(), 2);
        assert!(read("{\"step\": 0}").unwrap_err().starts_with("line 1"));
        assert!(read("not json").is_err());
    }

    #[test]
    fn compare_names_the_first_difference() {
        let a = read(TRACE).unwrap().remove(0);
        let mut b = a.clone();
        b.steps[1].goals = Some(vec![Some(0)]);
        assert!(compare(&a, &b).unwrap_err().contains("step 1: goals"));
        assert!(compare(&a, &a).is_ok());
    }
}
