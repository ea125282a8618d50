//! Winnability (Def. 23) and the verdicts of the report. Weak winnability of a role is a
//! reachable terminal state where its goal is 100, which the walk or a playout finds. Strong
//! winnability is read here as the role having a strategy that forces such a state whatever
//! the others play, decided on a complete graph by retrograde analysis: a terminal state where
//! the role wins is won, and a non-terminal state is won once some move of the role leads to
//! won states only, whatever the others' moves. States won this way are numbered in the order
//! they are found, so a strategy's line always goes to earlier-won states and ends.

use super::explore::{Graph, NONE};
use super::{Declared, Entry, Found, Proof, Property, Refutation, Shows, Stop, Undecided, Verdict, Witness};
use crate::joints::choice_of;
use crate::Game;

/// What the retrograde analysis says of one role's strategies.
pub(crate) enum Strategy {
    /// Not decided: the graph is not complete, or the role is GDL-II's `random` role.
    Undecided,
    /// No strategy forces the role's goal to 100.
    None,
    /// A strategy does, and this is its line from the initial state, as `(node, number)` steps.
    Wins(Vec<(u32, u32)>),
}

/// Per role, on a complete graph: whether a strategy forces the role's goal to 100.
pub(crate) fn strategies<G: Game>(game: &G, graph: &Graph) -> Vec<Strategy> {
    (0..graph.roles())
        .map(|role| {
            if graph.stop != Stop::Complete || game.random_role() == Some(role) {
                return Strategy::Undecided;
            }
            forced_win(graph, role).map_or(Strategy::None, Strategy::Wins)
        })
        .collect()
}

/// The line of a strategy of `role` from the initial state, if it has one.
fn forced_win(graph: &Graph, role: usize) -> Option<Vec<(u32, u32)>> {
    let nodes = graph.expanded();
    // The counters of every (node, move of the role): the edges of that move not yet won.
    let mut first_move = vec![0usize; nodes + 1];
    for node in 0..nodes {
        first_move[node + 1] = first_move[node] + graph.counts_of(node)[role] as usize;
    }
    let mut open = vec![0u32; first_move[nodes]];
    let mut predecessors: Vec<Vec<(u32, u32)>> = vec![Vec::new(); nodes];
    for node in 0..nodes {
        let counts = graph.counts_of(node);
        for (number, &target) in graph.edges_of(node).iter().enumerate() {
            let choice = choice_of(counts, number, role);
            open[first_move[node] + choice] += 1;
            if target != NONE {
                predecessors[target as usize].push((node as u32, choice as u32));
            }
        }
    }
    // The move that wins each won node (0 for a terminal one), and the order it was won in.
    let mut won: Vec<Option<(u32, usize)>> = vec![None; nodes];
    let mut queue: Vec<u32> = (0..nodes as u32).filter(|&n| graph.wins[n as usize * graph.roles() + role]).collect();
    let mut order = 0;
    for &n in &queue {
        won[n as usize] = Some((0, order));
        order += 1;
    }
    let mut head = 0;
    while let Some(&node) = queue.get(head) {
        head += 1;
        for &(pred, choice) in &predecessors[node as usize] {
            let slot = first_move[pred as usize] + choice as usize;
            open[slot] -= 1;
            if open[slot] == 0 && won[pred as usize].is_none() && !graph.terminal[pred as usize] {
                won[pred as usize] = Some((choice, order));
                order += 1;
                queue.push(pred);
            }
        }
    }
    won[0]?;
    Some(strategy_line(graph, role, &won))
}

/// The line that the strategy of `won` plays from the initial state, the other roles playing
/// their first legal move.
fn strategy_line(graph: &Graph, role: usize, won: &[Option<(u32, usize)>]) -> Vec<(u32, u32)> {
    let mut line = Vec::new();
    let mut node = 0usize;
    while !graph.terminal[node] {
        let Some((choice, _)) = won[node] else { break };
        let stride: u32 = graph.counts_of(node)[role + 1..].iter().product();
        let number = choice * stride;
        line.push((node as u32, number));
        node = graph.edges_of(node)[number as usize] as usize;
    }
    line
}

/// Every verdict of the report, from the findings (with their lines) and the strategies.
pub(crate) fn entries<G: Game>(
    game: &G,
    graph: &Graph,
    declared: &Declared,
    mut found: Found<Vec<Vec<String>>>,
    strategies: Vec<Strategy>,
) -> Vec<Entry> {
    let complete = graph.stop == Stop::Complete;
    let roles = game.num_roles();
    let players: Vec<usize> = (0..roles).filter(|&r| game.random_role() != Some(r)).collect();
    let mut entries = Vec::new();
    let mut take = |property: Property, role: Option<usize>| found.remove(&(property, role));
    let entry = |property, role, verdict| Entry { property, role, verdict };
    entries.push(entry(Property::Termination, None, against(take(Property::Termination, None), complete)));
    for role in 0..roles {
        let verdict = against(take(Property::Playability, Some(role)), complete);
        entries.push(entry(Property::Playability, Some(role), verdict));
    }
    let hidden = !goal_values_told(game);
    for role in 0..roles {
        let mut verdict = against(take(Property::Goals, Some(role)), complete);
        if hidden && !matches!(verdict, Verdict::Refuted(_)) {
            verdict = Verdict::Unknown(Undecided::GoalValuesHidden);
        }
        entries.push(entry(Property::Goals, Some(role), verdict));
    }
    for &role in &players {
        let verdict = shown_by(take(Property::WeakWinnability, Some(role)), complete);
        entries.push(entry(Property::WeakWinnability, Some(role), verdict));
    }
    let mut strong = Vec::new();
    for &role in &players {
        let verdict = match &strategies[role] {
            Strategy::Wins(_) if game.is_gdl_ii() => Verdict::Unknown(Undecided::ImperfectInformation),
            Strategy::Wins(line) => {
                let witness = Witness { joints: graph.joints(game, line), shows: Shows::Strategy { role } };
                Verdict::Proved(Proof::Line(witness))
            }
            Strategy::None => Verdict::Refuted(Refutation::Exhaustive),
            // With one role, a line to a win is a sequence of that role's own moves.
            Strategy::Undecided if roles == 1 => strong_of_one(&entries),
            Strategy::Undecided => Verdict::Unknown(Undecided::Searched),
        };
        strong.push(verdict.clone());
        entries.push(entry(Property::StrongWinnability, Some(role), verdict));
    }
    entries.push(entry(Property::StrongWinnability, None, any_of(&strong)));
    let input = declared.input.as_ref().map(|_| against(take(Property::Input, None), complete));
    entries.push(entry(Property::Input, None, input.unwrap_or(Verdict::NotDeclared)));
    let base = declared.base.as_ref().map(|_| against(take(Property::Base, None), complete));
    entries.push(entry(Property::Base, None, base.unwrap_or(Verdict::NotDeclared)));
    let well_formed = well_formed(&entries, roles == 1);
    entries.push(entry(Property::WellFormed, None, well_formed));
    entries
}

/// The verdict of a property that a finding refutes.
fn against(finding: Option<(Vec<Vec<String>>, Shows)>, complete: bool) -> Verdict {
    match finding {
        Some((joints, shows)) => Verdict::Refuted(Refutation::Line(Witness { joints, shows })),
        None if complete => Verdict::Proved(Proof::Exhaustive),
        None => Verdict::Unknown(Undecided::Searched),
    }
}

/// The verdict of a property that a finding proves.
fn shown_by(finding: Option<(Vec<Vec<String>>, Shows)>, complete: bool) -> Verdict {
    match finding {
        Some((joints, shows)) => Verdict::Proved(Proof::Line(Witness { joints, shows })),
        None if complete => Verdict::Refuted(Refutation::Exhaustive),
        None => Verdict::Unknown(Undecided::Searched),
    }
}

/// Strong winnability of a game of one role, from its weak winnability.
fn strong_of_one(entries: &[Entry]) -> Verdict {
    let weak = entries.iter().find(|e| e.property == Property::WeakWinnability);
    match weak.map(|e| &e.verdict) {
        Some(Verdict::Proved(Proof::Line(w))) => {
            let Shows::Win { role } = w.shows else { return Verdict::Unknown(Undecided::Searched) };
            Verdict::Proved(Proof::Line(Witness { joints: w.joints.clone(), shows: Shows::Strategy { role } }))
        }
        _ => Verdict::Unknown(Undecided::Searched),
    }
}

/// Whether some role is strongly winnable, from each role's verdict.
fn any_of(verdicts: &[Verdict]) -> Verdict {
    if let Some(proved) = verdicts.iter().find(|v| matches!(v, Verdict::Proved(_))) {
        return proved.clone();
    }
    if !verdicts.is_empty() && verdicts.iter().all(|v| matches!(v, Verdict::Refuted(_))) {
        return Verdict::Refuted(Refutation::Exhaustive);
    }
    let hidden = Verdict::Unknown(Undecided::ImperfectInformation);
    verdicts.iter().find(|v| **v == hidden).cloned().unwrap_or(Verdict::Unknown(Undecided::Searched))
}

/// Def. 24 from the verdicts it is made of.
fn well_formed(entries: &[Entry], one_player: bool) -> Verdict {
    let parts: Vec<&Entry> = entries
        .iter()
        .filter(|e| match e.property {
            Property::Termination | Property::Playability | Property::WeakWinnability => true,
            Property::StrongWinnability => one_player && e.role.is_none(),
            _ => false,
        })
        .collect();
    let failed: Vec<(Property, Option<usize>)> =
        parts.iter().filter(|e| matches!(e.verdict, Verdict::Refuted(_))).map(|e| (e.property, e.role)).collect();
    if !failed.is_empty() {
        return Verdict::Refuted(Refutation::Because(failed));
    }
    if parts.iter().all(|e| matches!(e.verdict, Verdict::Proved(_))) {
        return Verdict::Proved(Proof::Exhaustive);
    }
    Verdict::Unknown(Undecided::Searched)
}

/// Whether `game` tells every goal value of a role, asked of its initial state.
fn goal_values_told<G: Game>(game: &G) -> bool {
    let mut values = Vec::new();
    game.goal_values(&game.initial_state(), 0, &mut values)
}
