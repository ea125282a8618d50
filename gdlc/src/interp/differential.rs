//! Differential testing: an engine (a compiled game, a [`gdl_runtime::engine::ProgramGame`])
//! played beside a reference engine (the [`Interpreter`](super::Interpreter)) over seeded
//! random playouts, compared state by state on the facts, terminal, goals, every role's legal
//! moves and, on every step, the percepts. The tests of the compiled games and of the engine
//! over the ground program share it.

use gdl_runtime::rng::Rng;
use gdl_runtime::Game;
use std::fmt;

/// What a comparison that found no difference compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Agreement {
    /// The states compared.
    pub states: usize,
    /// The percepts compared, over every step and role.
    pub percepts: usize,
}

/// The first difference found, with where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The playout, from 0.
    pub playout: usize,
    /// The step of the playout, from 0 (the initial state).
    pub step: usize,
    /// What differs.
    pub difference: Difference,
}

/// What differs between the engine and the reference. Facts and moves are canonical KIF.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    /// The roles (names, in order).
    Roles { engine: Vec<String>, reference: Vec<String> },
    /// Whether the game is GDL-II, or its `random` role.
    GdlII,
    /// The facts of the state.
    State { engine: Vec<String>, reference: Vec<String> },
    /// Whether the state (given by its facts) is terminal.
    Terminal { state: Vec<String> },
    /// The goal values in a state.
    Goals { state: Vec<String>, engine: Vec<Option<u32>>, reference: Vec<Option<u32>> },
    /// Every goal value of a role in a state, where both engines can tell them all.
    GoalValues { role: usize, state: Vec<String>, engine: Vec<u32>, reference: Vec<u32> },
    /// A role's legal moves in a state, sorted.
    Legal { role: usize, state: Vec<String>, engine: Vec<String>, reference: Vec<String> },
    /// A move of the engine that the reference does not parse.
    UnknownMove { role: usize, text: String },
    /// What the roles perceive on a step by a joint move.
    Percepts { joint: Vec<String>, engine: Vec<Vec<String>>, reference: Vec<Vec<String>> },
    /// The engine's percepts of one role asked alone differ from those of all roles at once.
    PerceptsOfOneRole { role: usize, alone: Vec<String>, all: Vec<String> },
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "playout {}, step {}: ", self.playout, self.step)?;
        match &self.difference {
            Difference::Roles { engine, reference } => {
                write!(f, "roles differ: engine {engine:?}, reference {reference:?}")
            }
            Difference::GdlII => f.write_str("GDL-II or not, or the random role, differs"),
            Difference::State { engine, reference } => {
                write!(f, "states differ:\nengine:    {engine:?}\nreference: {reference:?}")
            }
            Difference::Terminal { state } => write!(f, "terminal differs in {state:?}"),
            Difference::Goals { state, engine, reference } => {
                write!(f, "goals differ in {state:?}: engine {engine:?}, reference {reference:?}")
            }
            Difference::GoalValues { role, state, engine, reference } => {
                write!(f, "goal values of role {role} differ in {state:?}: engine {engine:?}, reference {reference:?}")
            }
            Difference::Legal { role, state, engine, reference } => write!(
                f,
                "legal moves of role {role} differ in {state:?}:\nengine:    {engine:?}\nreference: {reference:?}"
            ),
            Difference::UnknownMove { role, text } => write!(f, "the reference has no move `{text}` of role {role}"),
            Difference::Percepts { joint, engine, reference } => {
                write!(f, "percepts differ after {joint:?}:\nengine:    {engine:?}\nreference: {reference:?}")
            }
            Difference::PerceptsOfOneRole { role, alone, all } => {
                write!(f, "role {role}'s percepts alone {alone:?} differ from all roles' percepts {all:?}")
            }
        }
    }
}

impl std::error::Error for Disagreement {}

/// Plays `playouts` random playouts from `seed` through `engine`, drawing each role's move
/// uniformly among the engine's legal moves in the engine's order, and the same joint moves
/// through `reference`; compares the two in every state and on every step until a terminal
/// state, or one in which a role has no legal move.
pub fn random_playouts<E: Game, R: Game>(
    engine: &E,
    reference: &R,
    seed: u64,
    playouts: usize,
) -> Result<Agreement, Disagreement> {
    let at = |playout, step| move |difference| Disagreement { playout, step, difference };
    compare_game(engine, reference).map_err(at(0, 0))?;
    let mut rng = Rng::seeded(seed);
    let mut agreement = Agreement::default();
    let mut legal = Vec::new();
    for playout in 0..playouts {
        let (mut e, mut r) = (engine.initial_state(), reference.initial_state());
        for step in 0.. {
            compare_state(engine, reference, &e, &r).map_err(at(playout, step))?;
            agreement.states += 1;
            if engine.is_terminal(&e) {
                break;
            }
            engine.all_legal_moves(&e, &mut legal);
            if legal.iter().any(Vec::is_empty) {
                break;
            }
            let joint: Vec<E::Move> = legal.iter().map(|ms| ms[rng.below(ms.len())].clone()).collect();
            let rjoint = translate(engine, reference, &joint).map_err(at(playout, step))?;
            agreement.percepts +=
                compare_percepts(engine, reference, (&e, &joint), (&r, &rjoint)).map_err(at(playout, step))?;
            e = engine.next_state(&e, &joint);
            r = reference.next_state(&r, &rjoint);
        }
    }
    Ok(agreement)
}

/// Visits the states of `playouts` random playouts again in a seeded random order, comparing
/// each state and the state after a random joint move: an engine that keeps what it computed
/// for the last state it was asked about (the incremental evaluator) must answer a jump to any
/// state as it answers a step. `Disagreement::step` counts the visits.
pub fn scattered_states<E: Game, R: Game>(
    engine: &E,
    reference: &R,
    seed: u64,
    playouts: usize,
) -> Result<Agreement, Disagreement> {
    let at = |step| move |difference| Disagreement { playout: 0, step, difference };
    let mut rng = Rng::seeded(seed);
    let mut states = Vec::new();
    let mut legal = Vec::new();
    for _ in 0..playouts {
        let (mut e, mut r) = (engine.initial_state(), reference.initial_state());
        loop {
            states.push((e.clone(), r.clone()));
            engine.all_legal_moves(&e, &mut legal);
            if engine.is_terminal(&e) || legal.iter().any(Vec::is_empty) {
                break;
            }
            let joint: Vec<E::Move> = legal.iter().map(|ms| ms[rng.below(ms.len())].clone()).collect();
            let rjoint = translate(engine, reference, &joint).map_err(at(0))?;
            e = engine.next_state(&e, &joint);
            r = reference.next_state(&r, &rjoint);
        }
    }
    for i in (1..states.len()).rev() {
        states.swap(i, rng.below(i + 1));
    }
    let mut agreement = Agreement::default();
    for (visit, (e, r)) in states.iter().enumerate() {
        compare_state(engine, reference, e, r).map_err(at(visit))?;
        agreement.states += 1;
        engine.all_legal_moves(e, &mut legal);
        if engine.is_terminal(e) || legal.iter().any(Vec::is_empty) {
            continue;
        }
        let joint: Vec<E::Move> = legal.iter().map(|ms| ms[rng.below(ms.len())].clone()).collect();
        let rjoint = translate(engine, reference, &joint).map_err(at(visit))?;
        let (e2, r2) = (engine.next_state(e, &joint), reference.next_state(r, &rjoint));
        compare_state(engine, reference, &e2, &r2).map_err(at(visit))?;
        agreement.states += 1;
    }
    Ok(agreement)
}

/// Compares what does not depend on the state: the roles, and GDL-II.
fn compare_game<E: Game, R: Game>(engine: &E, reference: &R) -> Result<(), Difference> {
    let roles = |n: usize, name: &dyn Fn(usize) -> String| (0..n).map(name).collect::<Vec<String>>();
    let (er, rr) = (
        roles(engine.num_roles(), &|r| engine.role_name(r).to_string()),
        roles(reference.num_roles(), &|r| reference.role_name(r).to_string()),
    );
    if er != rr {
        return Err(Difference::Roles { engine: er, reference: rr });
    }
    if engine.is_gdl_ii() != reference.is_gdl_ii() || engine.random_role() != reference.random_role() {
        return Err(Difference::GdlII);
    }
    Ok(())
}

/// The engine's joint move as the reference's moves.
fn translate<E: Game, R: Game>(engine: &E, reference: &R, joint: &[E::Move]) -> Result<Vec<R::Move>, Difference> {
    let parse = |(role, m): (usize, &E::Move)| {
        let text = engine.move_string(m);
        reference.parse_move(role, &text).ok_or(Difference::UnknownMove { role, text })
    };
    joint.iter().enumerate().map(parse).collect()
}

/// Compares the two engines in one state.
fn compare_state<E: Game, R: Game>(engine: &E, reference: &R, e: &E::State, r: &R::State) -> Result<(), Difference> {
    let (ef, rf) = (engine.state_facts(e), reference.state_facts(r));
    if ef != rf {
        return Err(Difference::State { engine: ef, reference: rf });
    }
    if engine.is_terminal(e) != reference.is_terminal(r) {
        return Err(Difference::Terminal { state: ef });
    }
    let (eg, rg) = (engine.goals(e), reference.goals(r));
    if eg != rg {
        return Err(Difference::Goals { state: ef, engine: eg, reference: rg });
    }
    for role in 0..engine.num_roles() {
        let (mut ev, mut rv) = (Vec::new(), Vec::new());
        if engine.goal_values(e, role, &mut ev) && reference.goal_values(r, role, &mut rv) && ev != rv {
            return Err(Difference::GoalValues { role, state: ef, engine: ev, reference: rv });
        }
    }
    for role in 0..engine.num_roles() {
        let (em, rm) = (sorted_moves(engine, e, role), sorted_moves(reference, r, role));
        if em != rm {
            return Err(Difference::Legal { role, state: ef, engine: em, reference: rm });
        }
    }
    Ok(())
}

/// `role`'s legal moves in `state`, as sorted canonical KIF.
fn sorted_moves<G: Game>(game: &G, state: &G::State, role: usize) -> Vec<String> {
    let mut moves = Vec::new();
    game.legal_moves(state, role, &mut moves);
    let mut texts: Vec<String> = moves.iter().map(|m| game.move_string(m)).collect();
    texts.sort();
    texts
}

/// Compares what every role perceives on the step from the two states by the same joint
/// move, and the engine's percepts of each role alone with those of all roles; returns how
/// many percepts there were.
fn compare_percepts<E: Game, R: Game>(
    engine: &E,
    reference: &R,
    (e, joint): (&E::State, &[E::Move]),
    (r, rjoint): (&R::State, &[R::Move]),
) -> Result<usize, Difference> {
    let (mut ep, mut rp) = (Vec::new(), Vec::new());
    engine.all_percepts(e, joint, &mut ep);
    reference.all_percepts(r, rjoint, &mut rp);
    if ep != rp {
        let joint = joint.iter().map(|m| engine.move_string(m)).collect();
        return Err(Difference::Percepts { joint, engine: ep, reference: rp });
    }
    let mut alone = Vec::new();
    for (role, all) in ep.iter().enumerate() {
        engine.percepts(e, joint, role, &mut alone);
        if alone != *all {
            return Err(Difference::PerceptsOfOneRole { role, alone, all: all.clone() });
        }
    }
    Ok(ep.iter().map(Vec::len).sum())
}
