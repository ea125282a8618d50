//! A game in the table form with its lifted rules beside it ([`crate::lifted::OnBits`]): on
//! some games the rules with variables, joined over each state's facts, play faster than the
//! ground program evaluated incrementally (a race game whose every step moves the cars of the
//! whole field, for one), on most the ground program does. Which one plays is chosen once per
//! process, on first use, by a race: random playouts from the initial state through each for
//! the same time, alternated twice. Both give the same answers; the choice is a matter of
//! speed. The environment variable `GDL_ENGINE` (`tables` or `lifted`) skips the race.

use super::Program;
use crate::lifted::OnBits;
use crate::rng::Rng;
use std::cell::{Cell, RefCell};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The engine that plays a [`TablesOrLifted`] game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The ground program, evaluated incrementally.
    Tables,
    /// The rules with variables, evaluated over each state's facts.
    Lifted,
}

/// How long each engine plays in each of the race's two rounds.
const RACE_ROUND: Duration = Duration::from_millis(50);

/// How much faster than the tables the lifted rules must be to be chosen: the tables are the
/// engine every grounded game is tested with, and a close race is noise.
const LIFTED_MARGIN: f64 = 1.2;

/// A table-form game and, when gdlc could write them, its lifted rules over the same states
/// and moves; the faster of the two answers (see the module's documentation).
#[derive(Debug)]
pub struct TablesOrLifted {
    tables: &'static Program,
    lifted: Option<OnBits>,
    /// The initial state, where the race's playouts start.
    initial: Vec<u64>,
    chosen: OnceLock<Engine>,
}

thread_local! {
    /// This thread's buffers of a random step: every role's legal moves and the joint move.
    static STEP: RefCell<(Vec<Vec<u32>>, Vec<u32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
    /// The engine [`with_engine`] makes this thread's games play with, if any.
    static FORCED: Cell<Option<Engine>> = const { Cell::new(None) };
}

/// Runs `f` with every [`TablesOrLifted`] game that this thread asks about played by `engine`
/// (when the game has it), whatever the race chose: how tests check each engine of a game.
pub fn with_engine<R>(engine: Engine, f: impl FnOnce() -> R) -> R {
    let before = FORCED.replace(Some(engine));
    let answer = f();
    FORCED.set(before);
    answer
}

impl TablesOrLifted {
    /// The game of the table form `tables` and of the lifted rules `lifted`, whose initial
    /// state is `initial`.
    pub fn new(tables: &'static Program, lifted: Option<OnBits>, initial: &[u64]) -> TablesOrLifted {
        TablesOrLifted { tables, lifted, initial: initial.to_vec(), chosen: OnceLock::new() }
    }

    /// The engine that plays, chosen on first use.
    pub fn engine(&self) -> Engine {
        *self.chosen.get_or_init(|| self.choose())
    }

    /// Whether the game has lifted rules beside its tables.
    pub fn has_lifted(&self) -> bool {
        self.lifted.is_some()
    }

    /// The lifted rules, when they play on this thread.
    fn lifted(&self) -> Option<&OnBits> {
        let engine = FORCED.get().unwrap_or_else(|| self.engine());
        self.lifted.as_ref().filter(|_| engine == Engine::Lifted)
    }

    /// `GDL_ENGINE`'s engine when it names one this game has, else the winner of a race.
    fn choose(&self) -> Engine {
        let Some(lifted) = &self.lifted else { return Engine::Tables };
        match std::env::var("GDL_ENGINE").as_deref() {
            Ok("tables") => return Engine::Tables,
            Ok("lifted") => return Engine::Lifted,
            _ => {}
        }
        let (mut tables_rate, mut lifted_rate) = (0.0, 0.0);
        for round in 0..2 {
            let seed = 0x9e37_79b9 + round;
            tables_rate += self.steps_per_sec(seed, |state, rng, out| Ok(self.tables_step(state, rng, out)));
            lifted_rate += self.steps_per_sec(seed, |state, rng, out| {
                STEP.with_borrow_mut(|(legal, joint)| lifted.random_step(state, rng, legal, joint, out))
            });
        }
        if lifted_rate > LIFTED_MARGIN * tables_rate {
            Engine::Lifted
        } else {
            Engine::Tables
        }
    }

    /// The steps a second that random playouts from the initial state make through `step` in
    /// [`RACE_ROUND`], after one step that is not timed (an engine may set up on first use); 0
    /// when `step` answers what the table form's states cannot say.
    fn steps_per_sec(
        &self,
        seed: u64,
        mut step: impl FnMut(&[u64], &mut Rng, &mut [u64]) -> Result<bool, crate::lifted::Unmapped>,
    ) -> f64 {
        let mut rng = Rng::seeded(seed);
        let (mut state, mut next) = (self.initial.clone(), self.initial.clone());
        if step(&state, &mut rng, &mut next).is_err() {
            return 0.0;
        }
        let start = Instant::now();
        let mut steps = 0u64;
        while start.elapsed() < RACE_ROUND {
            match step(&state, &mut rng, &mut next) {
                Ok(true) => {
                    steps += 1;
                    std::mem::swap(&mut state, &mut next);
                }
                Ok(false) => state.copy_from_slice(&self.initial),
                Err(_) => return 0.0,
            }
        }
        steps as f64 / start.elapsed().as_secs_f64()
    }

    /// Appends `role`'s legal moves in `state` through `push`, in move order.
    pub fn legal(&self, state: &[u64], role: usize, mut push: impl FnMut(u32)) {
        if let Some(lifted) = self.lifted() {
            let mut legal = Vec::new();
            if lifted.legal(state, &mut legal).is_ok() {
                legal.get(role).into_iter().flatten().for_each(|&m| push(m));
                return;
            }
        }
        self.tables.legal(state, role, push);
    }

    /// Writes the state after `joint` (one move index per role) into `out`.
    pub fn next(&self, state: &[u64], joint: &[u32], out: &mut [u64]) {
        if let Some(lifted) = self.lifted() {
            if lifted.next(state, joint, out).is_ok() {
                return;
            }
        }
        self.tables.next(state, joint, out);
    }

    /// Whether `state` is terminal.
    pub fn terminal(&self, state: &[u64]) -> bool {
        match self.lifted() {
            Some(lifted) => lifted.terminal(state),
            None => self.tables.terminal(state),
        }
    }

    /// Fills `out[r]` with role `r`'s largest goal value in `state`, `None` when it has none.
    pub fn goals(&self, state: &[u64], out: &mut [Option<u32>]) {
        match self.lifted() {
            Some(lifted) => lifted.goals(state, out),
            None => self.tables.goals(state, out),
        }
    }

    /// One step of a uniformly random playout, as [`crate::Game::random_step`] draws it:
    /// `false` when `state` is terminal or some role has no legal move, else `true` with the
    /// next state in `out`.
    pub fn random_step(&self, state: &[u64], rng: &mut Rng, out: &mut [u64]) -> bool {
        if let Some(lifted) = self.lifted() {
            let mut saved = rng.clone();
            let stepped =
                STEP.with_borrow_mut(|(legal, joint)| lifted.random_step(state, &mut saved, legal, joint, out));
            if let Ok(stepped) = stepped {
                *rng = saved;
                return stepped;
            }
        }
        self.tables_step(state, rng, out)
    }

    /// [`TablesOrLifted::random_step`] through the tables.
    fn tables_step(&self, state: &[u64], rng: &mut Rng, out: &mut [u64]) -> bool {
        // One incremental evaluation answers terminal, legal and next when the tables have one.
        let program = self.tables;
        let live = STEP.with_borrow_mut(|(_, joint)| {
            program.with_live((), |live, net, ()| live.random_step(net.program(program), net, state, joint, rng, out))
        });
        if let Ok(stepped) = live {
            return stepped;
        }
        if self.tables.terminal(state) {
            return false;
        }
        STEP.with_borrow_mut(|(legal, joint)| {
            legal.resize_with(self.tables.legal.len(), Vec::new);
            for (role, moves) in legal.iter_mut().enumerate() {
                moves.clear();
                self.tables.legal(state, role, |m| moves.push(m));
            }
            if crate::draw_joint(legal, rng, joint).is_none() {
                return false;
            }
            self.tables.next(state, joint, out);
            true
        })
    }
}
