//! A game played from its ground program as data: [`ProgramGame`] evaluates a [`Program`] (the
//! table form's tables) with the names of its roles, facts and moves ([`Names`]), so that a
//! game grounded at run time plays at once, with no Rust compiled for it. It answers as the
//! generated table form of the same game does, move for move and state for state.
//!
//! Threads: a [`Program`] is `Send + Sync`. Its evaluator keeps the node values of the last
//! state it evaluated in a thread-local cache keyed by the program's identity, so one
//! `ProgramGame` behind an `Arc` can be used from any number of threads at once, each thread
//! with its own cache.

use crate::program::Program;
use crate::Game;
use std::fmt;

/// What a [`ProgramGame`] needs besides its program: the names of everything the program
/// numbers, in canonical KIF, as the generated module's constant tables give them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    /// The roles, in the order of the game's `role` facts.
    pub roles: Vec<String>,
    /// The base fact of every bit of a state; an empty string is a bit no fact uses.
    pub base: Vec<String>,
    /// Every move term some role may play, sorted by bytes (moves are parsed by binary search).
    pub moves: Vec<String>,
    /// For every role, the moves it may ever play, as sorted indices into `moves`.
    pub role_moves: Vec<Vec<u32>>,
    /// The bits of the base facts true in the initial state.
    pub initial: Vec<u32>,
    /// Every term some role may perceive (GDL-II's `sees`), indexed by the program's percepts.
    pub percepts: Vec<String>,
    /// The GDL-II `random` role, if the game has one.
    pub random_role: Option<usize>,
    /// Whether the game is written in GDL-II (it has `sees` rules or a `random` role).
    pub gdl_ii: bool,
}

/// Why a program and its names do not make a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The game has no role.
    NoRoles,
    /// The program's own tables are inconsistent; the text says how.
    Program(&'static str),
    /// A table with one entry per role has another number of entries.
    RoleCount {
        /// The table.
        table: &'static str,
        /// Its number of entries.
        len: usize,
        /// The number of roles.
        roles: usize,
    },
    /// The program gives the next value of another number of facts than the state has.
    NextCount {
        /// The facts the program's `next` table gives.
        next: usize,
        /// The base facts of the names.
        base: usize,
    },
    /// An index refers past the end of the table it indexes.
    OutOfRange {
        /// The table that holds the index.
        table: &'static str,
        /// The index.
        index: usize,
        /// The length of the table it indexes.
        len: usize,
    },
    /// A table that is searched by bisection is not strictly increasing.
    Unsorted {
        /// The table.
        table: &'static str,
    },
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::NoRoles => f.write_str("the game has no role"),
            EngineError::Program(reason) => write!(f, "the ground program is inconsistent: {reason}"),
            EngineError::RoleCount { table, len, roles } => {
                write!(f, "the {table} table has {len} entries for {roles} roles")
            }
            EngineError::NextCount { next, base } => {
                write!(f, "the program gives the next value of {next} facts, but the state has {base}")
            }
            EngineError::OutOfRange { table, index, len } => {
                write!(f, "the {table} table refers to entry {index} of {len}")
            }
            EngineError::Unsorted { table } => write!(f, "the {table} table is not strictly increasing"),
        }
    }
}

impl std::error::Error for EngineError {}

/// A game state: one bit per base fact, bit `i % 64` of word `i / 64` for fact
/// [`Names::base`]`[i]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct State(Box<[u64]>);

impl State {
    /// The state's words.
    pub fn words(&self) -> &[u64] {
        &self.0
    }

    /// Whether base fact `i` holds.
    pub fn has(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 != 0)
    }
}

/// A move: an index into [`Names::moves`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(pub u32);

/// A game evaluated from its ground program: a [`Game`] like the generated table form, built
/// at run time.
#[derive(Clone, Debug)]
pub struct ProgramGame {
    program: Program,
    names: Names,
    initial: State,
}

impl ProgramGame {
    /// The game of `program` with `names`, once every index they hold is checked to be in
    /// range, so that no method can index past a table.
    pub fn new(mut program: Program, names: Names) -> Result<ProgramGame, EngineError> {
        validate(&program, &names)?;
        // Tables changed after an evaluation must not be answered from its cache.
        program.renew_identity();
        let initial = crate::program::state_of(&names.initial, names.base.len());
        Ok(ProgramGame { program, names, initial: State(initial.into()) })
    }

    /// The ground program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The names of the program's roles, facts, moves and percepts.
    pub fn names(&self) -> &Names {
        &self.names
    }
}

/// Checks the names against the program and against themselves.
fn validate(program: &Program, names: &Names) -> Result<(), EngineError> {
    let roles = names.roles.len();
    if roles == 0 {
        return Err(EngineError::NoRoles);
    }
    program.validate().map_err(EngineError::Program)?;
    role_count("legal", program.legal.len(), roles)?;
    role_count("goal", program.goals.len(), roles)?;
    role_count("role moves", names.role_moves.len(), roles)?;
    if !program.sees.is_empty() {
        role_count("sees", program.sees.len(), roles)?;
    }
    if program.next.len() != names.base.len() {
        return Err(EngineError::NextCount { next: program.next.len(), base: names.base.len() });
    }
    increasing("moves", &names.moves)?;
    let moves = names.moves.len();
    for role_moves in &names.role_moves {
        increasing("role moves", role_moves)?;
        in_range("role moves", role_moves.iter().copied(), moves)?;
    }
    in_range("legal", program.legal.iter().flatten().map(|&(m, _)| m), moves)?;
    in_range("does", program.does.iter().map(|&(_, m)| m), moves)?;
    in_range("does", program.does.iter().map(|&(r, _)| r), roles)?;
    in_range("sees", program.sees.iter().flatten().map(|&(p, _)| p), names.percepts.len())?;
    in_range("initial", names.initial.iter().copied(), names.base.len())?;
    if let Some(random) = names.random_role {
        in_range("random role", [random as u32], roles)?;
    }
    Ok(())
}

fn role_count(table: &'static str, len: usize, roles: usize) -> Result<(), EngineError> {
    if len == roles {
        Ok(())
    } else {
        Err(EngineError::RoleCount { table, len, roles })
    }
}

fn increasing<T: Ord>(table: &'static str, items: &[T]) -> Result<(), EngineError> {
    if items.windows(2).all(|w| w[0] < w[1]) {
        Ok(())
    } else {
        Err(EngineError::Unsorted { table })
    }
}

fn in_range(table: &'static str, indices: impl IntoIterator<Item = u32>, len: usize) -> Result<(), EngineError> {
    match indices.into_iter().find(|&i| i as usize >= len) {
        None => Ok(()),
        Some(index) => Err(EngineError::OutOfRange { table, index: index as usize, len }),
    }
}

/// Hands `f` the move indices of `joint`, from a buffer on the stack for up to 16 roles.
fn with_joint<T>(joint: &[Move], f: impl FnOnce(&[u32]) -> T) -> T {
    const INLINE: usize = 16;
    if joint.len() <= INLINE {
        let mut buffer = [0u32; INLINE];
        for (slot, m) in buffer.iter_mut().zip(joint) {
            *slot = m.0;
        }
        f(&buffer[..joint.len()])
    } else {
        let moves: Vec<u32> = joint.iter().map(|m| m.0).collect();
        f(&moves)
    }
}

impl Game for ProgramGame {
    type State = State;
    type Move = Move;

    fn num_roles(&self) -> usize {
        self.names.roles.len()
    }

    fn role_name(&self, role: usize) -> &str {
        &self.names.roles[role]
    }

    fn initial_state(&self) -> State {
        self.initial.clone()
    }

    fn legal_moves(&self, state: &State, role: usize, out: &mut Vec<Move>) {
        out.clear();
        self.program.legal(&state.0, role, |m| out.push(Move(m)));
    }

    fn next_state(&self, state: &State, joint: &[Move]) -> State {
        let mut words = vec![0u64; state.0.len()].into_boxed_slice();
        with_joint(joint, |moves| self.program.next(&state.0, moves, &mut words));
        State(words)
    }

    fn is_terminal(&self, state: &State) -> bool {
        self.program.terminal(&state.0)
    }

    fn goal(&self, state: &State, role: usize) -> Option<u32> {
        self.program.goal(&state.0, role)
    }

    fn goals_into(&self, state: &State, out: &mut [Option<u32>]) {
        self.program.goals(&state.0, out);
    }

    fn goal_values(&self, state: &State, role: usize, out: &mut Vec<u32>) -> bool {
        self.program.goal_values(&state.0, role, out);
        out.sort_unstable();
        out.dedup();
        true
    }

    fn state_facts(&self, state: &State) -> Vec<String> {
        let mut facts: Vec<String> = (0..self.names.base.len())
            .filter(|&i| state.has(i))
            .map(|i| &self.names.base[i])
            .filter(|fact| !fact.is_empty())
            .cloned()
            .collect();
        facts.sort_unstable();
        facts
    }

    fn move_string(&self, mv: &Move) -> String {
        self.names.moves[mv.0 as usize].clone()
    }

    fn parse_move(&self, role: usize, text: &str) -> Option<Move> {
        let index = crate::kif::find_term(text, &self.names.moves)? as u32;
        self.names.role_moves.get(role)?.binary_search(&index).ok().map(|_| Move(index))
    }

    fn is_gdl_ii(&self) -> bool {
        self.names.gdl_ii
    }

    fn random_role(&self) -> Option<usize> {
        self.names.random_role
    }

    fn percepts(&self, state: &State, joint: &[Move], role: usize, out: &mut Vec<String>) {
        out.clear();
        let percepts = &self.names.percepts;
        with_joint(joint, |moves| {
            self.program.sees(&state.0, moves, role, |p| out.push(percepts[p as usize].clone()));
        });
    }
}

#[cfg(test)]
mod tests;
