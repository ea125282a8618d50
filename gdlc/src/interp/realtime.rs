//! The reference interpreter of rtGDL games: a state is a set of facts with remaining
//! lifetimes plus the facts that just expired, and every query goes to the plain interpreter of
//! the erased game ([`crate::realtime`]) on the state's facts, with `(rtgdl:expired F)` for each
//! expired fact. An update ages the facts, lets the erased `next` derive the new facts and
//! their lifetime markers, and reads the markers back into lifetimes.
//!
//! This is written against terms, independently of the generated code's bit tables
//! (`gdl_runtime::realtime::compiled`), so that the differential tests compare two
//! implementations of the semantics.

use super::{Error, Flat, Interpreter, Move, State};
use crate::ast::Description;
use crate::datalog::store::Sym;
use crate::realtime::{self as front, parse_lifetime};
use gdl_runtime::realtime::{RealTimeGame, Time};
use gdl_runtime::Game;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A real-time state: every fact with its remaining lifetime, sorted by the fact's encoding,
/// and the facts that expired at the event that produced it, sorted.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RtState {
    facts: Arc<[(Flat, Time)]>,
    expired: Arc<[Flat]>,
}

pub struct RealTimeInterpreter {
    plain: Interpreter,
    lifetime: Option<Sym>,
    constant: Option<Sym>,
    copy: Option<Sym>,
    expired: Option<Sym>,
    initial: RtState,
}

/// The end of the flat term that starts at `at`.
fn term_end(flat: &[u32], at: usize) -> usize {
    let arity = flat[at + 1] as usize;
    let mut end = at + 2;
    for _ in 0..arity {
        end = term_end(flat, end);
    }
    end
}

impl RealTimeInterpreter {
    /// Prepares a checked rtGDL game.
    pub fn new(description: &Description) -> Result<RealTimeInterpreter, Error> {
        RealTimeInterpreter::with_limits(description, &super::Limits::NONE)
    }

    /// [`RealTimeInterpreter::new`] within `limits` (see [`Interpreter::with_limits`]).
    pub fn with_limits(description: &Description, limits: &super::Limits) -> Result<RealTimeInterpreter, Error> {
        if !front::is_realtime(description) {
            return Err(Error::NotRealTime);
        }
        if let Some(error) = front::check(description).into_iter().find(crate::diag::Diagnostic::is_error) {
            return Err(Error::RealTimeCheck(error));
        }
        let plain = Interpreter::with_limits(&front::erase(description), limits)?;
        let sym = |name: &str| plain.symbols.get(name);
        let mut interp = RealTimeInterpreter {
            lifetime: sym(front::LIFETIME),
            constant: sym(front::CONST),
            copy: sym(front::COPY),
            expired: sym(front::EXPIRED),
            initial: RtState { facts: Arc::new([]), expired: Arc::new([]) },
            plain,
        };
        let derived: Vec<Flat> = interp.plain.initial.0.to_vec();
        interp.initial = RtState { facts: interp.settle(&derived, &BTreeMap::new())?.into(), expired: Arc::new([]) };
        Ok(interp)
    }

    /// Lifetimes from the markers among `derived` (the longest when a fact has several);
    /// `aged` has the lifetimes that copies read.
    fn settle(&self, derived: &[Flat], aged: &BTreeMap<&[u32], Time>) -> Result<Vec<(Flat, Time)>, Error> {
        let mut lifetimes: BTreeMap<Flat, Option<Time>> = BTreeMap::new();
        for flat in derived {
            let head = Some(flat[0]);
            if head == self.lifetime && flat[1] == 2 {
                let fact_end = term_end(flat, 2);
                let fact: Flat = flat[2..fact_end].into();
                let source = &flat[fact_end..];
                let lifetime = if Some(source[0]) == self.constant {
                    let name = self.plain.symbols.name(source[2]);
                    parse_lifetime(name)?
                } else if Some(source[0]) == self.copy {
                    *aged.get(&source[2..]).ok_or(Error::CopiedLifetimeMissing)?
                } else {
                    return Err(Error::MalformedMarker);
                };
                let entry = lifetimes.entry(fact).or_insert(None);
                *entry = Some(entry.map_or(lifetime, |l| l.max(lifetime)));
            } else if head == self.expired && flat[1] == 1 {
                // Derived by the erased game's rule that makes expired facts base facts; the
                // expired facts of a state are set by the update itself.
            } else {
                lifetimes.entry(flat.clone()).or_insert(None);
            }
        }
        lifetimes.into_iter().map(|(fact, lifetime)| lifetime.map(|l| (fact, l)).ok_or(Error::NoLifetime)).collect()
    }

    /// The erased game's state: the facts, and `(rtgdl:expired F)` for the expired ones.
    fn plain_state(&self, state: &RtState) -> State {
        let mut facts: Vec<Flat> = state.facts.iter().map(|(f, _)| f.clone()).collect();
        if let Some(expired) = self.expired {
            for fact in state.expired.iter() {
                let mut wrapped = vec![expired, 1];
                wrapped.extend_from_slice(fact);
                facts.push(wrapped.into());
            }
        }
        facts.sort();
        facts.dedup();
        State(facts.into())
    }

    fn text(&self, flat: &[u32]) -> String {
        self.plain.symbols.kif(flat)
    }

    /// Every goal value the goal relation gives each role in `state`, sorted.
    pub fn goal_values(&self, state: &RtState) -> Vec<Vec<u32>> {
        self.plain.goal_values(&self.plain_state(state))
    }
}

impl RealTimeGame for RealTimeInterpreter {
    type State = RtState;
    type Move = Move;

    fn num_roles(&self) -> usize {
        self.plain.num_roles()
    }

    fn role_name(&self, role: usize) -> &str {
        self.plain.role_name(role)
    }

    fn initial_state(&self) -> RtState {
        self.initial.clone()
    }

    fn legal_moves(&self, state: &RtState, role: usize, out: &mut Vec<Move>) {
        self.plain.legal_moves(&self.plain_state(state), role, out);
        out.sort_by_cached_key(|m| self.plain.move_string(m));
    }

    fn is_terminal(&self, state: &RtState) -> bool {
        self.plain.is_terminal(&self.plain_state(state))
    }

    fn goals(&self, state: &RtState) -> Vec<Option<u32>> {
        self.plain.goals(&self.plain_state(state))
    }

    fn next_expiry(&self, state: &RtState) -> Option<Time> {
        state.facts.iter().map(|&(_, t)| t).filter(|t| !t.is_infinite()).min()
    }

    fn update(&self, state: &RtState, elapsed: Time, moves: &[Option<Move>]) -> RtState {
        let mut aged: BTreeMap<&[u32], Time> = BTreeMap::new();
        let mut expired: Vec<Flat> = Vec::new();
        for (fact, lifetime) in state.facts.iter() {
            if *lifetime <= elapsed {
                expired.push(fact.clone());
            } else {
                aged.insert(fact, lifetime.minus(elapsed));
            }
        }
        let aged_state = RtState {
            facts: aged.iter().map(|(f, t)| (Flat::from(*f), *t)).collect::<Vec<_>>().into(),
            expired: expired.clone().into(),
        };
        let moves: Vec<Option<&Move>> = moves.iter().map(Option::as_ref).collect();
        let derived = self.plain.next_facts(&self.plain_state(&aged_state), &moves);
        // The erased game is checked to derive every fact with a marker whose source holds, so
        // settling cannot fail on a game that passed the checks.
        let facts = self.settle(&derived, &aged).unwrap_or_else(|e| panic!("internal error in the rtGDL update: {e}"));
        expired.sort();
        RtState { facts: facts.into(), expired: expired.into() }
    }

    fn timed_facts(&self, state: &RtState) -> Vec<(String, Time)> {
        let mut facts: Vec<(String, Time)> = state.facts.iter().map(|(f, t)| (self.text(f), *t)).collect();
        facts.sort();
        facts
    }

    fn expired_facts(&self, state: &RtState) -> Vec<String> {
        let mut facts: Vec<String> = state.expired.iter().map(|f| self.text(f)).collect();
        facts.sort();
        facts
    }

    fn move_string(&self, mv: &Move) -> String {
        self.plain.move_string(mv)
    }

    fn parse_move(&self, role: usize, text: &str) -> Option<Move> {
        self.plain.parse_move(role, text)
    }
}
