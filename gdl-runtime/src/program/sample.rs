//! Sample playouts that tell, for the rules that read a crowded atom, whether the incremental
//! evaluation should count or watch them (see [`super::incremental`]). Counting a rule costs a
//! touch whenever one of its atoms changes. Watching it costs a wake-up whenever the literal it
//! waits on becomes true, or, while it holds, whenever one of its literals becomes false; a
//! wake-up reads the rule's body and moves it between lists, many touches' work. Which is
//! cheaper depends on how the game moves: a turn fact read by every rule of a board game
//! changes at every step while the rules' other literals rarely hold, so watching wins; a
//! racer's position read by the rules of its every speed changes about as often as their other
//! literals, so counting wins. Random playouts from the initial state, evaluated with every
//! such rule watched, measure both costs. The same playouts tell which facts change at most
//! steps, and may gate the propositions that read them (see [`super::gates`]). How many
//! readers make an atom crowded is chosen by timing: two networks race ([`faster`]).

use super::incremental::Live;
use super::net::Net;
use super::Program;
use crate::rng::Rng;
use std::time::{Duration, Instant};

/// The work of an evaluation that tells watching a rule from counting it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tally {
    /// For every atom, how many times it changed: a counted rule is touched at every change of
    /// one of its atoms.
    pub(crate) changes: Vec<u32>,
    /// For every rule, how many times it was woken as a watched rule.
    pub(crate) wakes: Vec<u32>,
    /// The steps counted.
    pub(crate) steps: u32,
}

/// The steps of the sample before its costs are counted: the watches first settle on the
/// literals that rarely change, as they do in a long run.
const WARM_UP_STEPS: usize = 64;

/// The steps of the sample whose costs are counted.
const MEASURED_STEPS: usize = 256;

/// The longest the sample may take: a game whose steps are slow is sampled for this long, or,
/// when its warm-up does not end by then, keeps every crowded rule watched.
const TIME_LIMIT: Duration = Duration::from_secs(1);

/// The seed of the sample's moves, so that a program is always shaped the same way.
const SEED: u64 = 0x6764_6c63;

/// What the evaluation of `net` (with every rule that reads a crowded atom watched) costs
/// over random playouts from the program's initial state; `None` when the program has no
/// initial state, its initial state has no joint move, or the warm-up outlasts
/// [`TIME_LIMIT`].
pub(super) fn tally(program: &Program, net: &Net) -> Option<Tally> {
    if program.initial.is_empty() {
        return None;
    }
    let start = Instant::now();
    let initial = state_of(&program.initial, program.next.len());
    let mut live = Live::new(program, net);
    let mut playout = Playout { state: initial.clone(), joint: Vec::new(), next: vec![0; initial.len()] };
    let mut rng = Rng::seeded(SEED);
    let mut restarted = false;
    let mut step = 0;
    while step < WARM_UP_STEPS + MEASURED_STEPS && start.elapsed() < TIME_LIMIT {
        if step == WARM_UP_STEPS && live.tally.is_none() {
            live.tally = Some(Tally { changes: vec![0; net.atoms()], wakes: vec![0; net.watched.len()], steps: 0 });
        }
        live.set_state(program, net, &playout.state);
        if !playout.choose_joint(program, net, &live, &mut rng) {
            // A state with no joint move (terminal, or a role without a legal move) ends the
            // playout; an initial state without one ends the sample.
            if restarted {
                return None;
            }
            playout.state.clone_from(&initial);
            restarted = true;
            continue;
        }
        restarted = false;
        live.set_joint(program, net, &playout.joint);
        live.outputs(net).next(program.next.len(), &mut playout.next);
        std::mem::swap(&mut playout.state, &mut playout.next);
        if let Some(tally) = &mut live.tally {
            tally.steps += 1;
        }
        step += 1;
    }
    live.tally
}

/// The steps of random playouts that each network plays in a round of [`faster`].
const RACE_STEPS: usize = 512;

/// The rounds of [`faster`]: each network's best round counts.
const RACE_ROUNDS: usize = 3;

/// Whichever of two networks of `program` plays the same seeded random playouts from the
/// initial state faster, in alternate rounds, each network's best round counting; `first`
/// unless `second` is at least 5% faster, and when the program has no initial state. The
/// rounds together take at most about [`TIME_LIMIT`]. Both networks evaluate the program
/// alike: the race chooses only how fast.
pub(super) fn faster(program: &Program, first: Net, second: Net) -> Net {
    if program.initial.is_empty() {
        return first;
    }
    let initial = state_of(&program.initial, program.next.len());
    let nets = [first, second];
    let mut lives = [0, 1].map(|k| Live::new(nets[k].program(program), &nets[k]));
    // Untimed, the evaluations are brought to the initial state, a change of every fact.
    for (k, live) in lives.iter_mut().enumerate() {
        live.set_state(nets[k].program(program), &nets[k], &initial);
    }
    // Each network's round has an equal share of the time.
    let share = TIME_LIMIT / (2 * RACE_ROUNDS as u32);
    let mut best = [u128::MAX; 2];
    for _ in 0..RACE_ROUNDS {
        for (k, live) in lives.iter_mut().enumerate() {
            let deadline = Instant::now() + share;
            let step_ns = time_steps(nets[k].program(program), &nets[k], live, &initial, deadline);
            best[k] = best[k].min(step_ns);
        }
    }
    let [first, second] = nets;
    match best[1].saturating_mul(20) <= best[0].saturating_mul(19) {
        true => second,
        false => first,
    }
}

/// The nanoseconds a step of seeded random playouts from `initial` takes in `live`, a mean
/// over [`RACE_STEPS`] steps or those made by `deadline` (at least 16); a terminal state starts
/// a new playout.
fn time_steps(program: &Program, net: &Net, live: &mut Live, initial: &[u64], deadline: Instant) -> u128 {
    let mut rng = Rng::seeded(SEED);
    let (mut state, mut next, mut joint) = (initial.to_vec(), initial.to_vec(), Vec::new());
    let start = Instant::now();
    let mut steps = 0;
    // At least 16 steps, so that a round begun near the deadline still measures a step.
    while steps < RACE_STEPS && (steps == 0 || steps % 16 != 0 || Instant::now() < deadline) {
        if live.random_step(program, net, &state, &mut joint, &mut rng, &mut next) {
            std::mem::swap(&mut state, &mut next);
        } else {
            state.copy_from_slice(initial);
        }
        steps += 1;
    }
    start.elapsed().as_nanos() / steps.max(1) as u128
}

/// The state and joint move of a random playout.
struct Playout {
    state: Vec<u64>,
    joint: Vec<u32>,
    next: Vec<u64>,
}

impl Playout {
    /// Chooses a random joint move of the legal moves of the state `live` was brought to;
    /// `false` when the state is terminal or some role has no legal move.
    fn choose_joint(&mut self, program: &Program, net: &Net, live: &Live, rng: &mut Rng) -> bool {
        if program.holds(program.terminal, &live.state, &live.joint, &live.values) {
            return false;
        }
        self.joint.clear();
        let outputs = live.outputs(net);
        let mut legal = Vec::new();
        for (role, moves) in program.legal.iter().enumerate() {
            legal.clear();
            outputs.legal(role, |k| legal.push(moves[k].0));
            if legal.is_empty() {
                return false;
            }
            self.joint.push(legal[rng.below(legal.len())]);
        }
        true
    }
}

/// The state of `bits` base facts (at least one word, as the generated module's `WORDS`) in
/// which the facts `facts` hold.
pub(crate) fn state_of(facts: &[u32], bits: usize) -> Vec<u64> {
    let mut state = vec![0u64; bits.div_ceil(64).max(1)];
    for &i in facts {
        state[i as usize / 64] |= 1 << (i % 64);
    }
    state
}
