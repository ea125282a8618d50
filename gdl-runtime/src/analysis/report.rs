//! The report as text: how far the search went, then one line per verdict, a witness printed
//! as its joint moves in KIF, one list per step with one move per role in role order.

use super::{Entry, Proof, Property, Refutation, Report, Searched, Shows, Stop, Undecided, Verdict, Witness};
use std::fmt;

impl Property {
    /// The property's name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Property::Termination => "termination",
            Property::Playability => "playability",
            Property::Goals => "goal",
            Property::WeakWinnability => "weak winnability",
            Property::StrongWinnability => "strong winnability",
            Property::Input => "input",
            Property::Base => "base",
            Property::WellFormed => "well-formed",
        }
    }
}

impl Witness {
    /// The joint moves in KIF: `(noop (mark 1 1)) ((mark 2 2) noop)`.
    pub fn kif(&self) -> String {
        let joints: Vec<String> = self.joints.iter().map(|joint| format!("({})", joint.join(" "))).collect();
        joints.join(" ")
    }
}

impl Report {
    /// `role`'s name, or the whole game's label.
    fn subject(&self, property: Property, role: Option<usize>) -> String {
        match role {
            Some(r) => format!("{} of {}", property.name(), self.roles[r]),
            None => property.name().to_string(),
        }
    }

    /// What `shows` says, with role names.
    pub fn describe(&self, shows: &Shows) -> String {
        let name = |r: usize| self.roles.get(r).map_or("?", String::as_str);
        match shows {
            Shows::Cycle { from } => {
                format!("the last state is the state of step {from} again: a loop of non-terminal states")
            }
            Shows::NoLegalMove { role } => format!("{} has no legal move in a non-terminal state", name(*role)),
            Shows::GoalValues { role, values } if values.is_empty() => {
                format!("{} has no goal value in a terminal state", name(*role))
            }
            Shows::GoalValues { role, values } => {
                let values: Vec<String> = values.iter().map(u32::to_string).collect();
                format!("{} has goal values {} in a terminal state", name(*role), values.join(" and "))
            }
            Shows::MoveNotInInput { role, mv } => {
                format!("{} may play {mv}, which input does not declare", name(*role))
            }
            Shows::FactNotInBase { fact } => format!("the state holds {fact}, which base does not declare"),
            Shows::Win { role } => format!("a terminal state where {} gets 100", name(*role)),
            Shows::Strategy { role } => {
                format!("{} forces 100 (a line of its strategy, the others playing their first move)", name(*role))
            }
        }
    }

    fn verdict_text(&self, entry: &Entry) -> String {
        match &entry.verdict {
            Verdict::Proved(Proof::Exhaustive) => "proved (every reachable state searched)".to_string(),
            Verdict::Proved(Proof::Line(w)) => format!("proved: {}; {}", self.describe(&w.shows), witness_text(w)),
            Verdict::Refuted(Refutation::Line(w)) => {
                format!("refuted: {}; {}", self.describe(&w.shows), witness_text(w))
            }
            Verdict::Refuted(Refutation::Exhaustive) => {
                format!("refuted (every reachable state searched): {}", exhaustive_reason(entry.property))
            }
            Verdict::Refuted(Refutation::Because(parts)) => {
                let parts: Vec<String> = parts.iter().map(|&(p, r)| self.subject(p, r)).collect();
                format!("refuted: {} fails", parts.join(", "))
            }
            Verdict::Unknown(Undecided::Searched) => "unknown (not decided by the search)".to_string(),
            Verdict::Unknown(Undecided::ImperfectInformation) => {
                "unknown (a strategy wins when it sees the whole state; GDL-II players see percepts)".to_string()
            }
            Verdict::Unknown(Undecided::GoalValuesHidden) => {
                "unknown (this engine gives only the largest goal value)".to_string()
            }
            Verdict::NotDeclared => "not declared".to_string(),
        }
    }
}

/// Why a property that nothing shows fails, on a complete search.
fn exhaustive_reason(property: Property) -> &'static str {
    match property {
        Property::WeakWinnability => "no reachable terminal state gives it 100",
        Property::StrongWinnability => "no strategy forces 100 from the initial state",
        _ => "nothing shows it",
    }
}

fn witness_text(w: &Witness) -> String {
    match w.joints.len() {
        0 => "witness: the initial state".to_string(),
        n => format!("witness ({n} joint moves): {}", w.kif()),
    }
}

/// How far the search went, in a few words.
pub(crate) fn searched_text(s: &Searched) -> String {
    let walk = match s.stop {
        Stop::Complete => format!("all {} reachable states", s.states),
        Stop::MaxStates => {
            format!("{} states to depth {} in {:.2} s (the --max-states limit)", s.states, s.depth, s.walk_seconds)
        }
        Stop::Time => format!("{} states to depth {} in {:.2} s (out of time)", s.states, s.depth, s.walk_seconds),
        Stop::Wide => format!(
            "{} states to depth {} in {:.2} s (a state has more joint moves than --max-states)",
            s.states, s.depth, s.walk_seconds
        ),
    };
    let playouts = if s.playouts > 0 {
        format!(", {} random playouts of {} steps", s.playouts, s.playout_steps)
    } else {
        String::new()
    };
    format!("{walk}{playouts}, {:.2} s on {} threads", s.seconds, s.threads)
}

impl fmt::Display for Report {
    /// `searched: ...`, then `PROPERTY [of ROLE]: VERDICT`, one line each.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "roles: {}", self.roles.join(" "))?;
        writeln!(f, "searched: {}", searched_text(&self.searched))?;
        for entry in &self.entries {
            writeln!(f, "{}: {}", self.subject(entry.property, entry.role), self.verdict_text(entry))?;
        }
        Ok(())
    }
}
